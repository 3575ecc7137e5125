"""Which paired comparisons the recorded trials allow: full against legacy, each ablation and limit against
full, each rerun of full against its original run, and the mechanism runs: each protocol that adds one condition
to the mechanism base (the protocol whose only condition is a clean KV cache), and full, against that base."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.paired import Sides
from slmbench.analysis.selection import Selected
from slmbench.analysis.topics.protocol.conditions import FULL, LEGACY, RERUN_KEY, condition_rows, limit_values
from slmbench.vocab import STUDY_ID

Family = Literal["protocol", "ablation", "limit", "rerun", "mechanism"]
FAMILIES: dict[Family, str] = {
    "protocol": "the full protocol against the first dataset's",
    "ablation": "one condition left out of the full protocol",
    "limit": "another turn limit or token cap under the full protocol",
    "rerun": "the full protocol run again (another machine or build)",
    "mechanism": "one condition added to the mechanism base, or all of them (full)",
}
MECHANISM_BASE = "clean_kv"
"""The conditions of the mechanism base (tidy's ``conditions``): the first dataset's protocol with a clean KV
cache, so that every trial's arithmetic is its own."""


@dataclass(frozen=True)
class Comparison:
    """Two conditions paired task by task: ``base`` is the first-named side ("primary"), ``other`` the second."""

    key: str
    """The key part ``proto.cmp.<key>``."""
    name: str
    """``<condition> vs <reference>``."""
    base: Selected
    other: Selected
    family: Family = "ablation"
    """What the comparison asks (``FAMILIES``)."""
    added: str = ""
    """The condition a mechanism run adds to the mechanism base (empty for every other comparison)."""

    def sides(self, trials: pd.DataFrame) -> Sides:
        """The selections of the two sides: each side's numbers select exactly its paired trials."""
        return Sides(trials, self.base.selection, self.other.selection)

    @property
    def is_rerun(self) -> bool:
        """Whether this is a rerun of full against its original run (which crosses machines by design)."""
        return self.family == "rerun"


def comparisons(trials: pd.DataFrame) -> list[Comparison]:
    """Every comparison with trials on both sides: full vs legacy, each ablation and limit vs full, and each
    rerun of full vs its original run (the same condition on another machine: what the machine alone
    changes)."""
    protocols = sorted(trials.loc[trials["study"] == STUDY_ID, "protocol"].dropna().unique().tolist())
    full = condition_rows(trials, FULL, reruns=True)
    out = [
        Comparison("full", "full vs legacy", condition_rows(trials, LEGACY, reruns=True), full, "protocol")
    ]
    for name in protocols:
        if name.startswith(f"{FULL}-no-"):
            out.append(
                Comparison(
                    nb.slug(name),
                    f"{name} vs full",
                    full,
                    condition_rows(trials, name, reruns=True),
                    "ablation",
                )
            )
    for column, values in limit_values(trials).items():
        for value in values:
            other = condition_rows(trials, FULL, {column: value}, reruns=True)
            out.append(
                Comparison(f"{nb.slug(column)}-{value}", f"{column}={value} vs full", full, other, "limit")
            )
    labels = sorted(full.rows["rerun"].dropna().unique().tolist()) if "rerun" in full.rows else []
    for label in labels:
        rerun = full.where({"rerun": label})
        name = f"{FULL} rerun {label} vs full"
        out.append(
            Comparison(f"{RERUN_KEY}-{nb.slug(label)}", name, condition_rows(trials, FULL), rerun, "rerun")
        )
    out += mechanism_comparisons(trials, full)
    return [c for c in out if len(c.base) and len(c.other)]


def mechanism_comparisons(trials: pd.DataFrame, full: Selected) -> list[Comparison]:
    """Each protocol whose conditions are the mechanism base's and one more, and full, against the base (the
    pairs fall on the build both ran on)."""
    if "conditions" not in trials:
        return []
    named = trials.loc[
        (trials["study"] == STUDY_ID) & trials["conditions"].notna(), ["protocol", "conditions"]
    ]
    conditions = {str(p): set(filter(None, str(c).split("+"))) for p, c in named.drop_duplicates().to_numpy()}
    bases = sorted(name for name, on in conditions.items() if on == {MECHANISM_BASE})
    if not bases:
        return []
    base_name = bases[0]
    base = condition_rows(trials, base_name, reruns=True)
    out = [
        Comparison(
            nb.slug(name),
            f"{name} vs {base_name}",
            base,
            condition_rows(trials, name, reruns=True),
            "mechanism",
            added=min(on - {MECHANISM_BASE}),
        )
        for name, on in sorted(conditions.items())
        if on > {MECHANISM_BASE} and len(on) == 2
    ]
    out.append(Comparison(f"{FULL}-{nb.slug(base_name)}", f"{FULL} vs {base_name}", base, full, "mechanism"))
    return out


def changed_class(pairs: pd.DataFrame) -> int:
    """Pairs failed on both sides whose failure class differs."""
    both_failed = ~pairs["p_pass"] & ~pairs["o_pass"]
    return int((both_failed & (pairs["failure_class_p"] != pairs["failure_class_o"])).sum())
