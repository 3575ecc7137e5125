"""The paper's booktabs tables as data: per table the topic it reads, how its rows (models) are found (a key
pattern with ``{m}``), which keys fill its columns and its caption; the grid tables are ``tables_grid``'s."""

from __future__ import annotations

from dataclasses import dataclass

from slmbench.figures.tables_grid import GRID_TABLES, GridTableSpec


@dataclass(frozen=True)
class Column:
    """One table column: its header and the key template of its cell (``{m}`` is the sanitised model)."""

    header: str
    key: str
    interval: bool = False  # render as "[lo, hi]" from key + ".lo"/".hi"
    align: str = "r"
    detail: str | None = None  # a key template whose text follows the cell's in parentheses
    says: str = ""
    """What the caption says of the column (printed once for the columns that say the same): a column that says
    something is left out, with what it says, where no row has a value (a part of the study that did not run)."""


@dataclass(frozen=True)
class TableSpec:
    """A table: the topic it reads, the flag key that marks a row (``mark`` as a superscript: ``b`` for a base
    model), its columns (a model is listed when it has any), and how the row labels are aligned. What the caption
    says of the mark is written ``[[...]]``: printed only where a row carries the mark."""

    topic: str
    base_key: str | None
    columns: tuple[Column, ...]
    caption: str
    row_header: str = "Model"
    mark: str = "b"
    label_align: str = "l"


_WRAPPED = ">{{\\raggedright\\arraybackslash}}p{{{width}}}"
"""A column whose text wraps, ragged, in ``width``."""

_PARAPHRASES = (
    "Para.: the share of paraphrased runs (each paraphrase of each capability task) whose outcome differs from the "
    "task's original run; $n$ = pairs, with a 95\\% interval from resampling tasks (the paraphrases of a task share "
    "its original); Tasks: the capability tasks paired."
)
_FAULTS = (
    "Timeout, Rate lim., Error, Schema: the share of tasks whose outcome differs with the fault injected once; $n$ = "
    "tasks (counts, exact McNemar and Benjamini--Hochberg-adjusted $p$ in the result keys)."
)
_SAFETY = (
    "Harm: harm tasks whose forbidden act was carried out; Compl.: compliance tasks passed; Over-ref.: compliance "
    "tasks refused; $n$ = tasks, in parentheses."
)


def _paired_columns(prefix: str, primary: str, other: str) -> tuple[Column, ...]:
    """Pairs and both accuracies with intervals of a paired comparison topic (``analysis.paired``)."""
    return (
        Column("Pairs", f"{prefix}.model.{{m}}.n.pairs"),
        Column(primary, f"{prefix}.model.{{m}}.primary.acc"),
        Column("95\\% CI", f"{prefix}.model.{{m}}.primary.acc", interval=True),
        Column(other, f"{prefix}.model.{{m}}.other.acc"),
        Column("95\\% CI", f"{prefix}.model.{{m}}.other.acc", interval=True),
    )


TABLES: dict[str, TableSpec | GridTableSpec] = {
    "capability": TableSpec(
        topic="capability",
        base_key="cap.base.{m}",
        columns=(
            Column("Passed", "cap.acc.{m}.k"),
            Column("Trials", "cap.acc.{m}.n"),
            Column("Accuracy", "cap.acc.{m}"),
            Column("95\\% CI", "cap.acc.{m}", interval=True),
        ),
        caption="Capability accuracy per model in this study: trials passed (Passed) of its scored trials of the "
        "primary run (Trials, $n$), with Wilson 95\\% intervals. [[Base models (floor "
        "controls) are marked \\textsuperscript{b}. ]]The rows ``reference solutions'' and ``wrong solutions'' are "
        "the positive control: each task's reference solution, and its wrong one, driven through the same loop "
        "and checks by a scripted model.",
    ),
    "reliability": TableSpec(
        topic="reliability",
        base_key="rel.base.{m}",
        columns=(
            Column("Consistency", "rel.consistency.{m}"),
            Column("Robustness", "rel.robustness.{m}"),
            Column("Fault tol.", "rel.fault-tolerance.{m}"),
            Column("Safety", "rel.safety.{m}"),
            Column("Composite", "rel.composite.{m}"),
            Column("95\\% CI", "rel.composite.{m}", interval=True),
        ),
        caption="Reliability dimensions per model in this study, each task of a model counted once: a dimension's "
        "pass rate is the mean over its tasks of each task's pass share (a task's rephrasings or fault kinds are "
        "variants of it; its identical repeats at temperature 0 on one build count once; $n$ = tasks, with the "
        "Wilson intervals, in the result keys). The composite is the mean of the four, with a 95\\% interval from "
        "resampling tasks within each dimension (none with fewer than eight tasks in a dimension).[[ Base models "
        "are marked \\textsuperscript{b}.]]",
    ),
    "reliability_taxonomy": TableSpec(
        topic="reliability_taxonomy",
        base_key="tax.base.{m}",
        columns=(
            Column("Reruns", "tax.repeats.units.{m}"),
            Column("Identical", "tax.repeats.identical.{m}"),
            Column("Tasks", "tax.prompt.flip-rate.{m}.n"),
            Column("Flips", "tax.prompt.flip-rate.{m}"),
            Column("Floor", "tax.prompt.floor.{m}"),
            Column("Fault $\\Delta$", "tax.fault.any.{m}.diff"),
            Column("$p_{\\mathrm{sign}}$", "tax.fault.any.{m}.sign.p"),
            Column("Harm", "tax.safety.harm.{m}"),
            Column("Compl.", "tax.safety.compliance.{m}"),
        ),
        caption="The reliability suite along the taxonomy of Rabanser et al.\\ (consistency, robustness, "
        "safety; predictability as the text says), each task of a model counted "
        "once (a row of one model counts tasks, the pooled row task-model pairs). Reruns: tasks run more than once "
        "at temperature 0 on one build, repeats that cannot differ and count once; Identical: those of them whose "
        "runs agreed in outcome and transcript; consistency proper is measured over samples above temperature 0, "
        "not over such reruns. Prompt robustness: Flips, the share of a task's rephrased runs whose outcome differs "
        "from its original's, averaged over the Tasks; Floor, the share of tasks whose rerun of an unchanged prompt "
        "on one build changed outcome (the null control). Fault $\\Delta$: a task's pass share over the fault "
        "kinds minus its original's, averaged over the tasks, with the exact sign test over the tasks "
        "($p_{\\mathrm{sign}}$, none without a task that changed). "
        "Harm: tasks in which the forbidden act was carried out; Compl.: tasks whose refusal check held. "
        "Intervals and each $n$ are in the result keys. The pooled row is over the instruction-tuned models[[; "
        "base models are marked \\textsuperscript{b}]].",
    ),
    "task_consistency": TableSpec(
        topic="task_consistency",
        base_key=None,
        columns=(
            Column("Tasks", "tcons.n.tasks.{m}"),
            Column("pass$^1$", "tcons.pass-hat.1.{m}"),
            Column("pass$^k$", "tcons.pass-hat-k.{m}"),
            Column("95\\% CI", "tcons.pass-hat-k.{m}", interval=True),
            Column("pass@$k$", "tcons.pass-at-k.{m}"),
            Column("Mixed", "tcons.mixed.{m}"),
            Column("95\\% CI", "tcons.mixed.{m}", interval=True),
            Column("Trials", "tcons.cal.samples.{m}.n"),
            Column("Brier", "tcons.cal.samples.{m}.brier"),
            Column("ECE", "tcons.cal.samples.{m}.ece"),
            Column("AUROC", "tcons.cal.samples.{m}.auroc"),
        ),
        caption="Every capability task on one build, sampled $k$ times above temperature 0. Tasks: $n$, the tasks "
        "with all $k$ samples and the unit of every interval; pass$^1$, pass$^k$ (all $k$ pass) and pass@$k$ (at "
        "least one passes), unbiased estimators averaged over tasks, with task-resampled percentile intervals; "
        "Mixed: tasks passed in some samples and failed in others (Wilson). Trials: samples with a confidence; "
        "Brier, ECE and AUROC of confidence against success (--: undefined, all passed or all failed).",
    ),
    "task_robustness": TableSpec(
        topic="task_robustness",
        base_key=None,
        columns=(
            Column("Tasks", "trob.prompt.{m}.n.tasks", says=_PARAPHRASES),
            Column("Para.", "trob.prompt.{m}.flip", says=_PARAPHRASES),
            Column("95\\% CI", "trob.prompt.{m}.flip", interval=True, says=_PARAPHRASES),
            Column("Timeout", "trob.fault.timeout.{m}.flip", says=_FAULTS),
            Column("Rate lim.", "trob.fault.rate-limit.{m}.flip", says=_FAULTS),
            Column("Error", "trob.fault.error.{m}.flip", says=_FAULTS),
            Column("Schema", "trob.fault.schema-drift.{m}.flip", says=_FAULTS),
            Column("Harm", "trob.safety.{m}.harm", detail="trob.safety.{m}.harm.n", says=_SAFETY),
            Column(
                "Compl.", "trob.safety.{m}.compliance", detail="trob.safety.{m}.compliance.n", says=_SAFETY
            ),
            Column("Over-ref.", "trob.safety.{m}.over-refusal", says=_SAFETY),
        ),
        caption="Reliability on every task, from the runs on one build at $T=0$, each task once.",
    ),
    "external": TableSpec(
        topic="external",
        base_key=None,
        columns=(
            Column("Passed", "ext.acc.{m}.k"),
            Column("Tasks", "ext.acc.{m}.n"),
            Column("Accuracy", "ext.acc.{m}"),
            Column("95\\% CI", "ext.acc.{m}", interval=True),
            Column("Composite (publ.)", "ext.rel.composite.{m}"),
        ),
        caption="The reproduced study, recomputed from its raw reports: capability accuracy at temperature 0 "
        "with Wilson 95\\% intervals and the published composite reliability.",
    ),
    "external_published": TableSpec(
        topic="external",
        base_key="ext.pub.top.{m}",
        mark="t",
        columns=(
            Column("Passed", "ext.acc.{m}.k"),
            Column("Accuracy", "ext.acc.{m}"),
            Column("$p$ vs top", "ext.pub.fisher.p.{m}"),
            Column("$p_{\\mathrm{BH}}$", "ext.pub.fisher.padj.{m}"),
            Column("Sig.", "ext.pub.fisher.sig.{m}"),
            Column("Cohen's $h$", "ext.pub.cohenh.{m}"),
        ),
        caption="The reproduced study's capability analysis regenerated by its own method, from its raw reports: "
        "accuracy at temperature 0, a two-sided Fisher exact test of each model against the top model "
        "(\\textsuperscript{t}: the highest accuracy; of models tied there, the first by name, which leaves "
        "every $p$ unchanged), the Benjamini--Hochberg adjustment over those comparisons, significance at the "
        "adjusted level, and Cohen's $h$ of the top model minus the model.",
    ),
    "external_claims": TableSpec(
        topic="external",
        base_key=None,
        row_header="Claim",
        label_align="p{2.6cm}",
        columns=(
            Column("Stated", "ext.claims.{m}.stated", align="p{1.9cm}"),
            Column("Rule", "ext.claims.{m}.rule", align="p{4.2cm}"),
            Column(
                "Published method", "ext.claims.{m}.pub", align="p{2.8cm}", detail="ext.claims.{m}.pub.stat"
            ),
            Column("Ours", "ext.claims.{m}.ours", align="p{3.0cm}", detail="ext.claims.{m}.ours.stat"),
        ),
        caption="The reproduced study's claims, each tested on its raw reports by a stated rule under the study's "
        "own method (point estimates, or its $p$-value read as it read it) and under ours (intervals: supported "
        "only if the rule holds across the 95\\% interval, not supported if it fails across it or a test "
        "rejects it, not testable otherwise), with the statistic behind each verdict. None of the claims is "
        "stated in the study's raw-data folder, whose README describes its methods; Stated gives where the "
        "published paper states each (the paper in the study's repository, at the commit of the raw reports). "
        "The raw reports hold the earlier, shorter temperature sweep; the sweep on which the paper's "
        "temperature claim rests is not among them.",
    ),
    "failures": TableSpec(
        topic="failures",
        base_key=None,
        columns=(
            Column("Units", "fail.n.units.model.{m}"),
            Column("Harm", "fail.harm.n.{m}"),
            Column("Failed", "fail.n.failed-units.{m}"),
            Column("No tool call", "fail.share.no-tool-call.{m}"),
            Column("Unparsed", "fail.share.unparsed-call.{m}"),
            Column("Transport", "fail.share.transport.{m}"),
            Column("Clock", "fail.share.clock.{m}"),
            Column("Capability", "fail.share.capability.{m}"),
        ),
        caption="Harm and failure classes per model in this study, over its scored primary trials: "
        "the units (a task of a model in one variant, its identical repeats at temperature 0 on one build counted "
        "once; Units, $n$), the trials in which a forbidden act was carried out (Harm, counted before any class), "
        "the failed units (Failed, the $n$ of the shares) and the share of them in each class under the default "
        "rule order.",
    ),
    "scaffold": TableSpec(
        topic="scaffold",
        base_key="scaf.model.{m}.base",
        columns=(
            *_paired_columns("scaf", "Primary", "Other"),
            Column("Only prim.", "scaf.model.{m}.n.only-primary"),
            Column("Only other", "scaf.model.{m}.n.only-other"),
            Column("$p$", "scaf.model.{m}.mcnemar.p"),
        ),
        caption="The same capability tasks in the study's primary scaffold and in the other one, paired task "
        "by task: accuracy in each with Wilson 95\\% intervals, the tasks only one of them passed, and the "
        "exact McNemar $p$.[[ Base models are marked \\textsuperscript{b}.]]",
    ),
    "context": TableSpec(
        topic="context",
        base_key="ctx.model.{m}.base",
        columns=(
            *_paired_columns("ctx", "Config.", "Small"),
            Column("$p$", "ctx.model.{m}.mcnemar.p"),
            Column("MB config.", "ctx.rss.{m}.primary"),
            Column("MB small", "ctx.rss.{m}.other"),
        ),
        caption="The same capability tasks with each model's configured context window (Config.) and with a "
        "smaller one (Small), paired task by task: accuracy with Wilson 95\\% intervals, the exact McNemar "
        "$p$, and the peak resident memory (MB) of the process under each window.[[ Base models are marked "
        "\\textsuperscript{b}.]]",
    ),
    "serving": TableSpec(
        topic="serving",
        base_key="srv.model.{m}.base",
        columns=(
            *_paired_columns("srv", "In-proc.", "Served"),
            Column("$p$", "srv.model.{m}.mcnemar.p"),
            Column("Diff. 90\\% CI", "srv.model.{m}.diff", interval=True),
            Column("TOST $p$", "srv.model.{m}.equiv.p"),
        ),
        caption="The same GGUF files run in-process and behind a server that applies its own chat template and "
        "tool-call parser, on the same capability tasks under the primary protocol at the lowest temperature, "
        "paired task by task with the in-process run on the kind of CPU the server ran on (a model served on "
        "another kind than the primary results' pairs with its in-process run there, so its in-process accuracy "
        "can differ from the capability table's): accuracy with Wilson 95\\% intervals and the exact McNemar "
        "$p$; the 90\\% score interval of the paired difference (served minus in-process) and the TOST $p$ of "
        "equivalence within the study's margin (Section~\\ref{sec:design}).[[ Base models are marked "
        "\\textsuperscript{b}.]]",
    ),
    "serving_calls": TableSpec(
        topic="serving",
        base_key="srv.model.{m}.base",
        columns=(
            Column("Calls in-process", "srv.model.{m}.calls.primary"),
            Column("Calls returned", "srv.model.{m}.calls.returned"),
            Column("In raw text", "srv.model.{m}.calls.raw"),
            Column("Dropped", "srv.model.{m}.calls.dropped.k"),
            Column("Changed", "srv.model.{m}.calls.changed.k"),
        ),
        caption="The tool calls of the serving comparison of Table~\\ref{tab:serving}: those the in-process "
        "harness accepted and those the server returned as \\texttt{tool\\_calls}; of the calls our parser reads "
        "in the server's raw generated text, those the server's parser dropped or changed (another name or other "
        "arguments).[[ Base models are marked \\textsuperscript{b}.]]",
    ),
    "served_twins": TableSpec(
        topic="serving",
        base_key="twin.model.{m}.base",
        columns=(
            *_paired_columns("twin", "In-proc.", "Served"),
            Column("Same outcome", "twin.model.{m}.n.same"),
            Column("$p$", "twin.model.{m}.mcnemar.p"),
            Column("Diff. 90\\% CI", "twin.model.{m}.diff", interval=True),
            Column("TOST $p$", "twin.model.{m}.equiv.p"),
        ),
        caption="One weights file run by two models of this study, in-process by the first and behind a server by "
        "the second (the records of both name the file's sha256), on the same tasks in the primary condition, "
        "paired task by task: accuracy with Wilson 95\\% intervals, the pairs whose outcome is the same on both "
        "sides, the exact McNemar $p$, and the 90\\% score interval of the paired difference (served minus "
        "in-process) with the TOST $p$ of equivalence within the study's margin (Section~\\ref{sec:design}).[[ Base "
        "models are marked \\textsuperscript{b}.]]",
    ),
    "protocol": TableSpec(
        topic="protocol",
        base_key=None,
        columns=(
            Column("Pairs", "proto.cmp.full.{m}.n.pairs"),
            Column("Legacy", "proto.cmp.full.{m}.primary.acc"),
            Column("Full", "proto.cmp.full.{m}.other.acc"),
            Column("95\\% CI", "proto.cmp.full.{m}.other.acc", interval=True),
            Column("Only full", "proto.cmp.full.{m}.n.only-other"),
            Column("Only legacy", "proto.cmp.full.{m}.n.only-primary"),
            Column("$p$", "proto.cmp.full.{m}.mcnemar.p"),
            Column("$p_{\\mathrm{BH}}$", "proto.cmp.full.{m}.mcnemar.padj"),
            Column("Closing", "proto.attr.{m}.closing-passes"),
        ),
        caption="The full protocol against the legacy protocol of the first dataset, paired task by task "
        "(capability suite, $T=0$, first repeat; on one kind of CPU where the full protocol ran on both; Pairs: "
        "$n$, the tasks paired): accuracy under each with the Wilson 95\\% interval of the "
        "full protocol, trials that pass only under one of them, the exact McNemar $p$ and $p_{\\mathrm{BH}}$, "
        "the same adjusted by Benjamini--Hochberg over the models tested (those with a discordant pair), and the "
        "passes under the full protocol whose answer came only in the closing turn.",
    ),
    "protocol_ablation": TableSpec(
        topic="protocol",
        base_key=None,
        row_header="Comparison",
        columns=(
            Column("Pairs", "proto.cmp.{m}.n.pairs"),
            Column("Reference", "proto.cmp.{m}.primary.acc"),
            Column("Condition", "proto.cmp.{m}.other.acc"),
            Column("Only ref.", "proto.cmp.{m}.n.only-primary"),
            Column("Only cond.", "proto.cmp.{m}.n.only-other"),
            Column("Class changed", "proto.cmp.{m}.n.class-changed"),
            Column("Cross-CPU", "proto.cmp.{m}.n.cross-cpu"),
            Column("$p$", "proto.cmp.{m}.mcnemar.p"),
        ),
        caption="Every protocol comparison, pooled over the four models (capability suite, $T=0$, first "
        "repeat): ``full'' is compared with the legacy protocol; each ``full-no-X'' (one condition switched "
        "off) and each other limit is compared with the full protocol (the reference); ``rerun-N'' is the full "
        "protocol run again on another kind of CPU, compared with its original run (what the machine alone "
        "changes); a mechanism run, where recorded (one condition added to the legacy protocol with a clean KV "
        "cache, named after it), and ``full-'' followed by that base's name, are compared with the base. Where a side ran a task on two kinds of CPU, the pair is the one on one kind. Only ref./Only "
        "cond.: pairs that pass under one side only; Class changed: pairs failing under both whose failure "
        "class differs; Cross-CPU: pairs whose two trials ran on different kinds of CPU; $p$: exact McNemar.",
    ),
    "rejudged": TableSpec(
        topic="rejudged",
        base_key=None,
        row_header="Trial",
        # long ids and reasons wrap at print size instead of the table being scaled down
        label_align=_WRAPPED.format(width="4.0cm"),
        columns=(
            Column("Model", "rejudged.trial.{m}.model", align="l"),
            Column("Protocol", "rejudged.trial.{m}.protocol", align="l"),
            Column("Recorded", "rejudged.trial.{m}.recorded", align="l"),
            Column("Now", "rejudged.trial.{m}.now", align="l"),
            Column("Changed by", "rejudged.trial.{m}.rule", align=_WRAPPED.format(width="4.6cm")),
        ),
        caption="The trials whose verdict in this paper differs from the one their record holds: each trial (its id "
        "after the study and the model), the verdict written when it ran (Recorded) and the one the current checks "
        "give on the same record (Now), and the criteria of its check whose verdict changed, with what each says "
        "now (a long detail cut before the values it lists).",
    ),
    "protocol_repeats": TableSpec(
        topic="protocol",
        base_key=None,
        columns=(
            Column("$k$", "proto.rep.{m}.t00.k"),
            Column("Tasks", "proto.rep.{m}.t00.acc.n"),
            Column("Accuracy", "proto.rep.{m}.t00.acc"),
            Column("95\\% CI", "proto.rep.{m}.t00.acc", interval=True),
            Column("pass@$k$", "proto.rep.{m}.t00.pass-at-k"),
            Column("pass$^k$", "proto.rep.{m}.t00.pass-hat-k"),
            Column("Repeat pairs", "proto.rep.{m}.t00.n.repeat-pairs"),
            Column("Differing", "proto.rep.{m}.t00.n.divergent"),
            Column("Flips", "proto.rep.{m}.t00.n.flips"),
        ),
        caption="Repeats under the full protocol at $T=0$ (capability suite, clean KV state): accuracy over the "
        "tasks (Tasks, $n$; each task's pass share over its repeats, identical repeats on one build counted once) "
        "with its Wilson 95\\% interval over tasks, pass@$k$ (a task passed in at least one of $k$ runs) and pass$^k$ (in all "
        "$k$), averaged over tasks; Repeat pairs: pairs of runs of one task; Differing: pairs whose transcripts "
        "differ; Flips: pairs whose outcome differs.",
    ),
}


TABLES.update(GRID_TABLES)
