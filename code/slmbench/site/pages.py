"""The site's HTML pages: the trial table, one page per number and the list of numbers.

Every text from the data goes through :func:`html.escape`; data the script reads sits in a
``<script type="application/json">`` element written by :func:`slmbench.site.encode.script_json`.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from slmbench.site.encode import script_json
from slmbench.site.numbers import NumberTrials, tex_text


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def page(title: str, body: str, *, root: str, kind: str, data: Any = None, needs_index: bool = True) -> str:
    """A complete page: header, ``body``, the page's data and the site's script (all local, relative)."""
    scripts = []
    if data is not None:
        scripts.append(f'<script type="application/json" id="page-data">{script_json(data)}</script>')
    # site.js first: it defines SLM (which the data files call) and runs once the page is parsed.
    scripts.append(f'<script src="{root}assets/site.js"></script>')
    if needs_index:
        scripts.append(f'<script src="{root}data/index.js"></script>')
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{_e(title)}</title>
<link rel="stylesheet" href="{root}assets/site.css">
</head>
<body data-page="{_e(kind)}" data-root="{_e(root)}">
<header class="site"><span class="brand">slmbench audit</span>
<nav><a href="{root}index.html">Trials</a><a href="{root}numbers/index.html">Numbers in the paper</a></nav></header>
<main>
{body}
</main>
<footer class="site">Built by <code>slmbench view</code> from the raw shards, the tidy trials table and the paper's
provenance. Static files: no server, no network.</footer>
{chr(10).join(scripts)}
</body>
</html>
"""


def _kv(rows: list[tuple[str, str]]) -> str:
    cells = "".join(f"<tr><td>{_e(k)}</td><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="kv">{cells}</table>'


def _code(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return f"<code>{_e(text)}</code>"


def _shard_list(shards: list[dict[str, Any]]) -> str:
    items = []
    for s in shards:
        flag = ""
        if s.get("provenance_sha256") and s["provenance_sha256"] != s["sha256"]:
            flag = ' <span class="tag bad">differs from the hash the numbers were computed from</span>'
        items.append(
            f"<tr><td><code>{_e(s['path'])}</code></td><td>{_e(s['n_records'])}</td>"
            f"<td><code>{_e(s['sha256'])}</code>{flag}</td></tr>"
        )
    return (
        '<table class="shards"><thead><tr><th>raw file</th><th>records</th><th>sha256</th></tr></thead>'
        f"<tbody>{''.join(items)}</tbody></table>"
    )


def trials_page(meta: dict[str, Any], shards: list[dict[str, Any]]) -> str:
    """``index.html``: the trial table and, at ``#trial=<id>``, one trial's transcript."""
    build = [
        (k, _code(meta[k]))
        for k in ("source_sha256", "checks_version", "git_commit")
        if meta.get(k) not in (None, "")
    ]
    body = f"""<section id="table-view">
<h1>Trials</h1>
<p>{_e(meta["n_trials"])} trials, {_e(meta["n_transcripts"])} with a transcript from {_e(len(shards))} raw
shards; {_e(meta["n_numbers"])} <a href="numbers/index.html">numbers in the paper</a> link here. Filter, sort,
search in what the models wrote and what the tools answered, and open a trial to read its transcript.</p>
<div id="trial-table-box"><p class="meta">loading the trial index&hellip;</p></div>
<details><summary>Raw files and the build</summary>
{_kv(build)}
{_shard_list(shards)}
</details>
</section>
<section id="trial-view" hidden aria-live="polite"></section>"""
    return page("slmbench audit: trials", body, root="", kind="trials")


def _selection_rows(selection: dict[str, Any], ignored: list[str]) -> str:
    flag = " <span class='tag bad'>not a column of the trials table: ignored</span>"
    rows = [
        f"<tr><td><code>{_e(col)}</code></td><td>{_code(val)}{flag if col in ignored else ''}</td></tr>"
        for col, val in sorted(selection.items())
    ]
    return "".join(rows) or '<tr><td colspan="2">every trial</td></tr>'


def _computation(number: dict[str, Any], topic: dict[str, Any]) -> str:
    prov = number.get("provenance", {})
    where = f" (<code>{_e(topic['file'])}</code>)" if topic.get("file") else ""
    rows = [
        ("value", _code(number.get("value"))),
        ("topic", _code(number.get("topic", "")) + where),
        ("function", _code(prov.get("function", ""))),
    ]
    rows += [("parameter " + k, _code(v)) for k, v in sorted((prov.get("params") or {}).items())]
    rows += [("topic setting " + k, _code(v)) for k, v in sorted((topic.get("params") or {}).items())]
    return _kv(rows)


def number_page(
    number: dict[str, Any], chosen: NumberTrials, topic: dict[str, Any], hashes: dict[str, str]
) -> str:
    """``numbers/<key>.html``: the value, how it was computed and the trials behind it."""
    prov = number.get("provenance", {})
    key = str(number["key"])
    text = str(number.get("text", ""))
    outcomes = ", ".join(f"{n} {o}" for o, n in chosen.outcomes.items()) or "none"
    sources = "".join(
        f"<tr><td><code>{_e(path)}</code></td><td>{_e(n)}</td><td><code>{_e(hashes.get(path, ''))}</code></td></tr>"
        for path, n in chosen.sources.items()
    )
    typeset = f"<code>LaTeX: {_e(text)}</code>" if tex_text(text) != text else ""
    selection = _selection_rows(prov.get("selection", {}) or {}, chosen.ignored)
    unit = str(prov.get("unit", "trials"))
    counted = "" if unit == "trials" else f"n counts {unit}, from these "
    body = f"""<p><a href="index.html">&larr; all numbers</a></p>
<h1><code>\\res{{{_e(key)}}}</code></h1>
<p class="number-value" id="number-value">{_e(tex_text(text))}{typeset}</p>
<p id="number-description">{_e(prov.get("description", ""))}</p>
<section class="block"><h3>How it was computed</h3>
{_computation(number, topic)}
<h4>Selection (the trials table rows it is computed from)</h4>
<table class="kv" id="selection">{selection}</table>
<p class="meta">Reproduce by hand: <code>slmbench audit {_e(key)}</code> (the same selection, by
<code>slmbench.analysis.selection.select_trials</code>).</p>
</section>
<section class="block"><h3>The trials behind it</h3>
<p id="number-trials">{_e(counted)}{_e(len(chosen.positions))} trials ({_e(outcomes)}).</p>
<details><summary>Raw files they come from</summary>
<table class="shards"><thead><tr><th>file</th><th>trials</th><th>sha256</th></tr></thead>
<tbody>{sources}</tbody></table>
</details>
<div id="trial-table-box"><p class="meta">loading the trial index&hellip;</p></div>
</section>"""
    data = {"kind": "number", "key": key, "ranges": chosen.ranges}
    return page(f"{key} = {tex_text(text)}", body, root="../", kind="number", data=data)


def numbers_page(numbers: list[dict[str, Any]], counts: dict[str, int]) -> str:
    """``numbers/index.html``: every number of the paper, with a filter."""
    rows = []
    for n in numbers:
        prov = n.get("provenance", {})
        key = str(n["key"])
        rows.append(
            f'<tr><td><a href="{_e(key)}.html"><code>{_e(key)}</code></a></td>'
            f"<td>{_e(tex_text(str(n.get('text', ''))))}</td><td>{_e(n.get('topic', ''))}</td>"
            f"<td><code>{_e(prov.get('function', ''))}</code></td><td>{_e(counts.get(key, 0))}</td>"
            f"<td>{_e(prov.get('description', ''))}</td></tr>"
        )
    body = f"""<h1>Numbers in the paper</h1>
<p>Every <code>\\res{{key}}</code> of the paper links to its page here: its value, the function and parameters
that computed it, its selection of trials and those trials' transcripts.</p>
<p><label>filter <input type="search" id="number-filter" placeholder="key, topic, function, description"></label>
<span class="status" id="number-status">{_e(len(numbers))} numbers</span></p>
<div class="table-wrap"><table id="numbers"><thead><tr><th>key</th><th>value</th><th>topic</th><th>function</th>
<th>trials</th><th>description</th></tr></thead><tbody>
{chr(10).join(rows)}
</tbody></table></div>"""
    return page("slmbench audit: numbers", body, root="../", kind="numbers", needs_index=False)
