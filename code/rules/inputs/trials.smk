# The trial shards' plan and resources (rules in code/rules/trials.smk).
import functools

from slmbench.models.resources import served_limits, served_resource
from slmbench.run.key import STEM_PATTERN, ShardKey
from slmbench.run.plan import plan_shards, resources, shard_for

# The shard plan (slmbench.run.plan): every shard config.yaml asks for, by "<model>/<stem>".
try:  # two parts that plan one shard differently, or an unknown task: one line naming the fields
    PLAN = {shard.key.name: shard for shard in plan_shards(STUDY)}
except ConfigError as exc:
    sys.exit(str(exc))
TRIAL_SHARDS = [f"{RAW}/{name}.jsonl" for name, shard in PLAN.items() if shard.kinds - {"protocol"}]
PROTOCOL_SHARDS = [f"{RAW}/{name}.jsonl" for name, shard in PLAN.items() if "protocol" in shard.kinds]
MODEL_PATTERN = "|".join(re.escape(m) for m in STUDY.models)
# Served load: each served model's shards claim its `concurrency` of a resource of its own whose limit is that
# `concurrency` (slmbench.models.resources.served_limits), so its trials in flight never exceed it across shards.
# `--resources served_<model>=N` on the command line sets another limit.
for _name, _limit in served_limits(STUDY).items():
    if _name not in workflow.global_resources:
        workflow.register_resource(_name, _limit)


def _served_claim(model, wildcards):
    """A shard's claim on served model ``model``'s resource: its ``concurrency`` for that model's shards, else 0."""
    return STUDY.models[model].concurrency if wildcards.model == model else 0


SERVED_CLAIMS = {
    served_resource(model): functools.partial(_served_claim, model)
    for model in STUDY.models
    if served_resource(model) in served_limits(STUDY)
}
"""The ``resources`` of the shard rule for served load, one per served model."""


@functools.cache
def _resources(name):
    shard = PLAN.get(name) or shard_for(STUDY, ShardKey.from_name(name))  # a shard the plan lacks: by hand
    return resources(STUDY, shard, Path(RAW))


def _shard_resources(wildcards):
    """Threads, memory and wall time of the shard a rule builds (``slmbench.run.plan.resources``)."""
    return _resources(f"{wildcards.model}/{wildcards.stem}")


def shard_name(wildcards):
    """``<model>/<stem>``: the shard ``slmbench run --shard`` runs."""
    return f"{wildcards.model}/{wildcards.stem}"


def shard_threads(wildcards):
    """A trial shard's CPU threads (the model's size; ``slmbench.models.resources``)."""
    return _shard_resources(wildcards).threads


def shard_mem_mb(wildcards, attempt):
    """A trial shard's memory in MB (GGUF, KV cache, measured peak RSS); doubled on a retry."""
    return _shard_resources(wildcards).mem_mb * attempt


def shard_runtime(wildcards, attempt):
    """A trial shard's wall-time limit in minutes (its trials × the model's measured seconds per trial)."""
    return _shard_resources(wildcards).runtime_min * attempt
