"""Every rule quotes its shell arguments: a path or name that Snakemake fills in (a wildcard, an input, an output, a
log, a parameter) is quoted by ``:q``, so a study folder whose path has a space runs as written. Parameters that
are whole option lists are built quoted by their input functions (``shlex``) and named here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
RULES = sorted((ROOT / "code" / "rules").glob("*.smk"))
BUILT_QUOTED = {"options", "topics", "values", "external", "summary", "args"}
"""``params`` that hold several options, each path in them quoted by the function that builds them."""
NOT_PATHS = {
    "threads", "params.bootstrap_seed", "params.n_boot", "params.alpha", "params.equivalence_margin", "params.site",
}  # fmt: skip
"""Placeholders that are numbers, or text checked to be safe where it is read (``site_base``)."""


def shell_placeholders(text: str) -> list[str]:
    """The ``{...}`` placeholders of every ``shell:`` block's strings."""
    found = []
    for block in re.findall(r"^    shell:\n((?:        .*\n)+)", text, flags=re.M):
        found += re.findall(r"(?<!\{)\{([a-z_.]+(?::q)?)\}(?!\})", block)
    return found


def test_every_path_a_rule_fills_in_is_quoted() -> None:
    unquoted = [
        f"{path.name}: {{{name}}}"
        for path in RULES
        for name in shell_placeholders(path.read_text())
        if not name.endswith(":q")
        and name not in NOT_PATHS
        and name.removeprefix("params.") not in BUILT_QUOTED
    ]
    assert unquoted == []
    assert len([n for p in RULES for n in shell_placeholders(p.read_text())]) > 40


def test_the_check_sees_an_unquoted_placeholder() -> None:
    rule = 'rule x:\n    shell:\n        "slmbench run --out {output} > {log:q}"\n'
    assert shell_placeholders(rule) == ["output", "log:q"]
