# The topics' inputs and options, generated from the topic registry (rules in code/rules/analysis.smk).
from slmbench.analysis.topics import TOPIC_INPUTS, TOPICS, TRIAL_TOPICS, study_topics, topic_files
from slmbench.paper.sections import drawn_figures

STUDY_TOPICS = study_topics(STUDY.parts())
"""The topics this study computes: every topic of no optional part, and those of the parts its config asks for."""
STUDY_TRIAL_TOPICS = [t for t in TRIAL_TOPICS if t in STUDY_TOPICS]
STUDY_FIGURES = drawn_figures(STUDY)
"""The figures it draws: those whose every topic it computes and that its text can include (of parts it plans)."""

ANALYSIS_BOOTSTRAP_SEED = STUDY.bootstrap_seed  # not the trial seed (`seed`): each has its own config key
ANALYSIS_N_BOOT = STUDY.bootstrap_resamples
ANALYSIS_ALPHA = STUDY.alpha
ANALYSIS_EQUIVALENCE_MARGIN = STUDY.equivalence_margin


def teacher_forcing_reports(wildcards):
    """The teacher-forcing reports recorded (``slmbench teacher-force``), one per shard."""
    return sorted(str(p) for p in Path(TEACHER_FORCING).glob("*/*.json"))


ANALYSIS_INPUTS = {
    "trials": f"{PROCESSED}/trials.parquet",
    "events": f"{PROCESSED}/events.parquet",
    "summary": f"{PROCESSED}/external_summary.parquet",  # read by the published study's topic only
    "replay": REPLAY,
    "control": f"{PROCESSED}/control.json",
    "baselines": str(BASELINES),
    "record": elig_recorded_runs,
    "independent": elig_independent_passes,
    "forced": teacher_forcing_reports,
}
"""Each topic input by name (the CLI option, ``_`` as ``-``): a path, or an input function giving a list of
paths (one option per file)."""
TOPIC_OPTIONS = {"eligibility": f"--margin {ELIG_MARGIN} --planned-runs {len(ELIG_RUNS)}"}
"""Topic parameters from the study configuration, beyond the bootstrap seed, resamples and alpha."""


def _topic_files(wildcards, command, topics):
    """The files the topics read (``slmbench.analysis.topics.TOPIC_INPUTS``) by CLI option name, and the code
    the command runs to compute them: the topics' modules and what they import (so that editing a topic or the
    code it uses reruns it and what depends on it)."""
    names = [n for n in ANALYSIS_INPUTS if any(n in TOPIC_INPUTS[t] for t in topics)]
    return {
        "code": code_inputs(command, files=[p for t in topics for p in topic_files(t)]),
        **{
            name: value(wildcards) if callable(value) else value
            for name, value in ((n, ANALYSIS_INPUTS[n]) for n in names)
        },
    }


def topic_inputs(wildcards):
    """The files one topic reads (a topic that does not read the trials table: rule ``analyze``)."""
    return _topic_files(wildcards, "analyze", [wildcards.topic])


def trial_topic_inputs(wildcards):
    """The files the topics of the trials table read together (rule ``analyze_trials``)."""
    return _topic_files(wildcards, "analyze-trials", STUDY_TRIAL_TOPICS)


def topic_options(wildcards, input):
    """``--trials ... --events ...``: one option per input file, then the topic's configured options."""
    options = [
        f"--{name.replace('_', '-')} {shlex.quote(path)}"
        for name, value in input.items()
        if name != "code"
        for path in ([value] if isinstance(value, str) else value)
    ]
    return " ".join([*options, TOPIC_OPTIONS.get(getattr(wildcards, "topic", ""), "")]).strip()


def figure_values_options(wildcards, input):
    """``--figure-values <json>`` for each figure's values file (checked by `slmbench verify`)."""
    return " ".join(f"--figure-values {shlex.quote(path)}" for path in input.values)
