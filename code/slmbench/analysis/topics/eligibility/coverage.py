"""How many runs (model x prompt x quantisation x task) are recorded, of how many the study plans, and which
models and quantisations they cover: the paper says what has been run before what it shows
(``elig.n.runs``, ``elig.phrase.coverage``)."""

from __future__ import annotations

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.topics.eligibility.common import STUDY, TOPIC, provenance
from slmbench.analysis.topics.eligibility.items import Config
from slmbench.vocab import SHIPPED


def _runs(n: int) -> str:
    return f"{n} run" + ("s" if n != 1 else "")


def coverage(configs: list[Config], planned: int | None) -> list[Number]:
    """The recorded runs against the plan (``planned``: how many the study plans, when known)."""
    prov = provenance(TOPIC, {"study": STUDY}, "recorded runs against the plan")
    out = [nb.count("elig.n.runs", len(configs), prov)]
    if planned is not None:
        out.append(nb.count("elig.n.runs-planned", planned, prov))
    by_model: dict[str, dict[str, int]] = {}
    for model, _prompt, quant, _task in configs:
        counts = by_model.setdefault(model, {})
        counts[quant] = counts.get(quant, 0) + 1
    parts = [
        f"{model} ({'; '.join(f'{q}, {_runs(c[q])}' for q in sorted(c, key=lambda x: (x != SHIPPED, x)))})"
        for model, c in sorted(by_model.items())
    ]
    verb = "is" if len(configs) == 1 else "are"
    runs = "run" if len(configs) == 1 and planned is None else "runs"
    head = f"{len(configs)} {runs} {verb} recorded"
    if planned is not None:
        head = f"{len(configs)} of the {planned} planned runs {verb} recorded"
    text = f"{head}: {'; '.join(parts)}" if parts else head
    out.append(nb.text("elig.phrase.coverage", text, prov))
    return out
