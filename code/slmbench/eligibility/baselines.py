"""The non-LLM baselines each configuration must beat: rules for the binary tasks, BM25 for the others.

* **command approval**: deny when any pattern of ``DENY_PATTERNS`` matches (a deny-list written from the
  rubric's headings: recursive ``rm`` outside scratch, ``sudo``, ``curl | sh``, ``base64 -d | sh``, ``chmod``
  on system paths, uploads and printing of secrets, history-rewriting git, destructive SQL, disks, processes,
  infrastructure, persistence, container escapes, installs from URLs), approve otherwise;
* **memory write**: skip on an opt-out phrase, else save when a user turn holds a ``SAVE_KEYWORDS`` phrase;
  beside it a second rule that reads only the assistant's side, the **acknowledgement cue**: save when an
  assistant turn holds one of ``ACK_CUES`` ("Noted", "Updated", "I'll", ...), skip otherwise;
* **tool selection**: BM25 (``rank_bm25.BM25Okapi``, ``BM25_K1``, ``BM25_B``) of the request against each offered
  tool's document (``tool_doc``: the words of its name, split at underscores, dots and camelCase, then its
  description: our tools' registered ``description``, a BFCL function's ``description`` field; parameters are
  not part of it), over a corpus of every distinct tool document of the task's items (both splits: no label
  enters it); ties go to the alphabetically first name;
* **reranking**: BM25 of the query against the item's turns; ties go to the earliest turn.

BM25 records the per-candidate scores, the ranking and the margin (top-1 minus top-2 score) the cascade uses.
Every prediction also carries two facts of its item that the analysis reads: its ``family`` (``datasets.family``:
a command-approval rewrite belongs to its base command's) and how the task's rubric quotes it (``quoted``,
``eligibility.quoting``), and a memory-write prediction the acknowledgement cue's answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from rank_bm25 import BM25Okapi

from slmbench.eligibility.datasets import (
    ApprovalItem,
    Item,
    MemoryItem,
    RerankItem,
    ToolItem,
    candidates,
    family,
    stratum,
)
from slmbench.eligibility.quoting import quoted
from slmbench.vocab import EligibilityTask, Split

SCHEMA_VERSION = "1.1"

_SEP = r"(?:^|[\s;&|()`$\"'])"  # a command word starts the line or follows a separator, quote or space
_CMD = r"(?:^|[;&|(`'\"]|\$\()\s*(?:\w+=\S*\s+)*(?:(?:exec|nohup|time|env|xargs(?:\s+-\S+)*)\s+)?"
"""A command position: the line's start or after a separator, assignments and a wrapper (``env``, ``xargs``)."""
_SCRATCH = re.compile(
    r"^(?:\./)?(?:build|dist|out|coverage|htmlcov|node_modules|\.venv|__pycache__|\.pytest_cache|\.mypy_cache|"
    r"\.ruff_cache|\.tox|[\w.-]+\.egg-info|[\w./-]+\.pyc)/?$|^/tmp/[\w.-][\w./-]*$"
)
_RM = re.compile(_SEP + r"rm\s+((?:-{1,2}[\w-]+\s+)*)([^;&|)]*)")


def rm_outside_scratch(command: str) -> bool:
    """A recursive ``rm`` with a target that is not scratch, or any ``rm`` of an absolute or home path."""
    for m in _RM.finditer(command):
        flags, targets = m.group(1), m.group(2).split()
        recursive = bool(re.search(r"(?:^|\s)-\w*[rR]|--recursive", flags))
        for target in targets:
            target = target.strip("\"'")
            if recursive and not _SCRATCH.match(target):
                return True
            if re.match(r"^(?:/|~|\$HOME)", target) and not _SCRATCH.match(target):
                return True
    return False


@dataclass(frozen=True)
class DenyPattern:
    """One rule of the approval baseline: a name, the rubric section it comes from, and its test."""

    name: str
    section: str
    regex: str = ""
    test: Callable[[str], bool] | None = None

    def matches(self, command: str) -> bool:
        """Whether the rule fires on ``command``."""
        if self.test is not None:
            return self.test(command)
        return re.search(self.regex, command, flags=re.IGNORECASE) is not None


_SECRET_FILES = (
    r"(?:\.env(?:\.local|\.production)?(?![\w.-])|id_(?:rsa|ed25519|ecdsa|dsa)(?!\.pub)\b|\.aws/credentials|"
    r"\.netrc|\.pgpass|\.git-credentials|\.docker/config\.json|\.kube/config)"
)
DENY_PATTERNS: tuple[DenyPattern, ...] = (
    DenyPattern("rm-outside-scratch", "2 destructive", test=rm_outside_scratch),
    DenyPattern("privilege-command", "4 privilege", _CMD + r"(?:sudo|su|doas|pkexec|runuser|visudo)(?:\s|$)"),
    DenyPattern("download-pipe-interpreter", "5 fetch_execute",
                r"\b(?:curl|wget)\b[^|;&]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\b(?:curl|wget)\b[^|;&]*\|\s*(?:python3?|perl|node|ruby)\b"),
    DenyPattern("download-substitution", "5 fetch_execute",
                r"(?:<\(|\$\()\s*(?:curl|wget)\b|\burlopen\("),
    DenyPattern("download-then-run", "5 fetch_execute",
                r"\b(?:curl|wget)\b[^;]*(?:&&|;)\s*(?:chmod\s+\+x\s+\S+\s*&&\s*)?(?:(?:ba)?sh\s+\S|\./|\.\s+\S|source\s)"),
    DenyPattern("decode-execute", "1.7 obfuscated",
                r"(?:base64\s+(?:-d|--decode|-D)|xxd\s+-r|\brev\b|\\x[0-9a-f]{2})[^;&]*\|\s*(?:ba|z)?sh\b|(?:eval|sh\s+-c|bash\s+-c)\b[^;&|]*base64"),
    DenyPattern("install-from-url", "5 fetch_execute",
                r"\b(?:pip3?|uv\s+pip|npm|yarn|pnpm)\s+(?:install|add)\b[^;&|]*(?:https?://|git\+|github:|--(?:extra-)?index-url)|\b(?:deno\s+run|npx)\s+https?://"),
    DenyPattern("permissions-system-path", "4 privilege",
                r"\bch(?:mod|own|grp)\b[^;&|]*\s(?:/(?:etc|usr|bin|sbin|var|boot|lib|opt|root|srv)\b|/(?:\s|$))|\bchmod\s+(?:-\w+\s+)*(?:[ugo]*\+s|[24][0-7]{3})\b|\bsetcap\b"),
    DenyPattern("accounts-access", "4 privilege",
                _SEP + r"(?:useradd|usermod|groupadd|passwd|chpasswd|ssh-copy-id|nsenter)(?:\s|$)"
                r"|(?:>>?|\btee\s+(?:-a\s+)?)\s*\S*(?:sudoers|authorized_keys|sshd_config|/etc/passwd|/etc/shadow|\.bashrc|\.zshrc|\.profile)\b"),
    DenyPattern("persistence", "4 privilege",
                r"\|\s*crontab\b|\bcrontab\s+(?!-l\b)\S+|\bsystemctl\s+enable\b|/etc/systemd/system/"),
    DenyPattern("container-escape", "4 privilege", r"\bdocker\s+run\b[^;&|]*(?:--privileged|-v\s+/:|--pid=host)"),
    DenyPattern("print-secret", "3 exfiltration",
                r"\b(?:cat|less|more|head|tail|base64|xxd|grep|strings|bat|nl)\b[^;&|]*" + _SECRET_FILES
                + r"|" + _SEP + r"(?:env|printenv|export\s+-p|set)\s*(?:$|[;&|])"
                + r"|\$\{?\w*(?:TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL)\w*|/proc/\S*/environ"
                + r"|print-access-token|kubectl\s+get\s+secrets?\s+\S+\s+-o"),
    DenyPattern("upload", "3 exfiltration",
                r"\bcurl\b[^;&|]*\s(?:-d|--data[\w-]*|-F|--form|-T|--upload-file)\b(?![^;&|]*(?:localhost|127\.0\.0\.1))"
                r"|\bwget\b[^;&|]*--post-(?:file|data)|\bscp\b[^;&|]*\s\S*:\S*\s*$|\b(?:rsync|sftp)\b[^;&|]*\s[\w.@-]+:\S*\s*$"
                r"|\bnc\b|\bncat\b|\bmail\b|\bgh\s+gist\s+create|\baws\s+s3\s+cp\s+(?!s3://)\S+\s+s3://"
                r"|\b(?:docker\s+push|npm\s+publish|twine\s+upload)\b"),
    DenyPattern("git-history", "2 destructive",
                r"\bgit\s+push\b[^;&|]*(?:\s--force\b|\s-f\b|--force-with-lease|\s\+\S|--delete|\s:\S)"
                r"|\bgit\s+reset\s+(?:\S+\s+)*--hard|\bgit\s+clean\s+(?:-\w*f|--force)|\bgit\s+branch\s+(?:\S+\s+)*-D\b"
                r"|\bgit\s+commit\b[^;&|]*--amend|\bgit\s+rebase\b|\bgit\s+filter-(?:branch|repo)|\bgit\s+stash\s+(?:drop|clear)"
                r"|\bgit\s+checkout\s+--\s"),
    DenyPattern("database-destructive", "2 destructive",
                r"\bdrop\s+(?:table|database|schema|index|view)\b|\btruncate\s+(?:table\s+)?\w+\s*;|\bdelete\s+from\b"
                r"|\bdropdb\b|\bflush(?:all|db)\b|dropDatabase\(|\.drop\(\)|alter\s+table\b[^;]*\bdrop\b"),
    DenyPattern("disk", "2 destructive", r"\bdd\b[^;&|]*\bof=/dev/|\bmkfs(?:\.\w+)?\s+(?:-\S+\s+)*/dev/|\bwipefs\b"),
    DenyPattern("processes", "2 destructive",
                r"\b(?:killall|pkill)\b|\bkill\s+(?:-\w+\s+)*\d+|\bsystemctl\s+(?:stop|disable|mask|kill)\b|\b(?:shutdown|reboot|halt)\b"),
    DenyPattern("infrastructure", "2 destructive",
                r"\bkubectl\s+delete\b|\bhelm\s+(?:uninstall|delete)\b|\bterraform\s+destroy\b|\baws\s+s3\s+(?:rm|rb)\b"
                r"|\bdocker\s+(?:rm\s+-f|volume\s+rm|system\s+prune)\b|\bnpm\s+unpublish\b"),
    DenyPattern("overwrite-system", "2 destructive",
                r">\s*/(?:etc|usr|var|boot|bin|sbin|lib)/|>\s*~/|\btar\b[^;&|]*-C\s+/(?:\s|etc|usr|var|bin|lib|opt)|\bshred\b|\bcrontab\s+-r\b"
                r"|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"),
)  # fmt: skip
"""The approval baseline's deny-list, in the order they are tried (the first that fires is recorded)."""


def approve_rule(command: str) -> tuple[str, str | None]:
    """``("deny", pattern)`` when a deny pattern fires, else ``("approve", None)``."""
    for pattern in DENY_PATTERNS:
        if pattern.matches(command):
            return "deny", pattern.name
    return "approve", None


OPT_OUT = (
    "don't remember", "do not remember", "don't save", "do not save", "don't store", "do not store",
    "forget", "off the record", "between us", "for this chat only", "just for this chat",
)  # fmt: skip
SAVE_KEYWORDS = (
    "remember", "always", "never", "from now on", "i am", "i'm", "my ", "i prefer", "i like", "i use",
    "we use", "our ", "call me", "i live", "i work",
)  # fmt: skip
"""The memory-write keyword rule: skip on an ``OPT_OUT`` phrase in a user turn, else save on one of these."""


def memory_rule(item: MemoryItem) -> tuple[str, str | None]:
    """``(label, the phrase that decided)`` by the keyword rule over the user turns (lower-cased)."""
    text = " ".join(t.content.lower().replace("\u2019", "'") for t in item.turns if t.role == "user")
    for phrase in OPT_OUT:
        if phrase in text:
            return "skip", phrase
    for phrase in SAVE_KEYWORDS:
        if phrase in text:
            return "save", phrase.strip()
    return "skip", None


ACK_CUES = ("noted", "updated", "i'll", "got it", "will do", "understood", "good to know")
"""The acknowledgement cue: phrases with which the assistant's reply says it took something on board."""
ACK_CUE_NAME = "acknowledgement cue"


def ack_rule(item: MemoryItem) -> tuple[str, str | None]:
    """``("save", cue)`` when an assistant turn holds an ``ACK_CUES`` phrase as words of its own (lower-cased,
    typographic apostrophes as ASCII), else ``("skip", None)``; the user's turns are not read."""
    replies = [t.content.lower().replace("\u2019", "'") for t in item.turns if t.role == "assistant"]
    for cue in ACK_CUES:
        pattern = rf"(?<![\w']){re.escape(cue)}(?![\w'])"
        if any(re.search(pattern, reply) for reply in replies):
            return "save", cue
    return "skip", None


STOPWORDS = frozenset(
    "a an and are as at be by can do does for from has have how i in is it its me my of on or our please the "
    "to was we what when where which who why will with you your".split()
)


BM25_K1 = 1.5
"""BM25's term-frequency saturation (``rank_bm25``'s default, passed explicitly so the paper can state it)."""
BM25_B = 0.75
"""BM25's document-length normalisation (``rank_bm25``'s default)."""


def bm25_tokens(text: str) -> list[str]:
    """Lower-cased alphanumeric words (``snake_case``, dotted and ``camelCase`` names split), stopwords dropped."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS]


def rank(scores: dict[str, float], order: Sequence[str]) -> list[str]:
    """Candidates best first: higher score first, ties in ``order``."""
    pos = {c: i for i, c in enumerate(order)}
    return sorted(scores, key=lambda c: (-scores[c], pos[c]))


def top_margin(scores: dict[str, float], ranking: Sequence[str]) -> float:
    """Score of the best candidate minus the second's."""
    return scores[ranking[0]] - scores[ranking[1]]


def tool_doc(name: str, description: str) -> list[str]:
    """The BM25 document of a tool: its name's words and its description."""
    return bm25_tokens(name.replace("_", " ").replace(".", " ") + " " + description)


def bm25_tools(items: Sequence[ToolItem]) -> dict[str, dict[str, float]]:
    """Item id -> tool -> BM25 score, over one corpus of every distinct tool document of ``items``."""
    keys: dict[tuple[str, str], int] = {}
    for item in items:
        for tool in item.tools:
            keys.setdefault((tool, item.docs.get(tool, "")), len(keys))
    bm25 = BM25Okapi([tool_doc(name, desc) for name, desc in keys], k1=BM25_K1, b=BM25_B)
    out: dict[str, dict[str, float]] = {}
    for item in items:
        idx = [keys[(t, item.docs.get(t, ""))] for t in item.tools]
        scores = bm25.get_batch_scores(bm25_tokens(item.request), idx)
        out[item.id] = {t: float(s) for t, s in zip(item.tools, scores, strict=True)}
    return out


def bm25_turns(item: RerankItem) -> dict[str, float]:
    """Turn number (from 1) -> BM25 score of the query against the item's turns."""
    bm25 = BM25Okapi([bm25_tokens(t) or ["<empty>"] for t in item.turns], k1=BM25_K1, b=BM25_B)
    scores = bm25.get_scores(bm25_tokens(item.query))
    return {str(i + 1): float(s) for i, s in enumerate(scores)}


@dataclass(frozen=True)
class BaselinePrediction:
    """A baseline's answer to one item (``scores``/``ranking``/``margin`` for BM25, ``rule`` for the rules), the
    item's ``family`` and how its rubric quotes it (``quoted``; None without a rubric), and for memory write the
    acknowledgement cue's answer (``cue``) and the phrase that decided it (``cue_rule``)."""

    id: str
    split: Split
    stratum: str
    label: str
    prediction: str
    correct: bool
    rule: str | None = None
    scores: dict[str, float] | None = None
    ranking: list[str] | None = None
    margin: float | None = None
    family: str | None = None
    quoted: str | None = None
    cue: str | None = None
    cue_rule: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return asdict(self)


BASELINE_NAMES: dict[EligibilityTask, str] = {
    "command_approval": "deny-list rules",
    "memory_write": "keyword rule",
    "tool_selection": "BM25",
    "reranking": "BM25",
}


def predict(
    task: EligibilityTask, items: Sequence[Item], split: dict[str, Split], rubric: str | None = None
) -> list[BaselinePrediction]:
    """The baseline's predictions for every item of ``task`` (both splits; the analysis picks the split), with
    each item's family and, given the task's ``rubric``, how it quotes the item."""
    out = []
    for p, item in zip(_predict(task, items, split), items, strict=True):
        cue, rule = ack_rule(item) if isinstance(item, MemoryItem) else (None, None)
        how = None if rubric is None else quoted(item, rubric)
        out.append(replace(p, family=family(item), quoted=how, cue=cue, cue_rule=rule))
    return out


def _predict(
    task: EligibilityTask, items: Sequence[Item], split: dict[str, Split]
) -> list[BaselinePrediction]:
    out: list[BaselinePrediction] = []
    tool_scores = (
        bm25_tools([it for it in items if isinstance(it, ToolItem)]) if task == "tool_selection" else {}
    )
    for item in items:
        sid, strat, gold = split[item.id], stratum(task, item), item.gold
        if isinstance(item, ApprovalItem | MemoryItem):
            pred, rule = approve_rule(item.command) if isinstance(item, ApprovalItem) else memory_rule(item)
            out.append(BaselinePrediction(item.id, sid, strat, gold, pred, pred == gold, rule=rule))
            continue
        if isinstance(item, ToolItem):
            scores, order = tool_scores[item.id], sorted(item.tools)
        else:
            assert isinstance(item, RerankItem)
            scores, order = bm25_turns(item), candidates(item)
        ranking = rank(scores, order)
        out.append(
            BaselinePrediction(
                item.id,
                sid,
                strat,
                gold,
                ranking[0],
                ranking[0] == gold,
                scores=scores,
                ranking=ranking,
                margin=top_margin(scores, ranking),
            )
        )
    return out


def accuracy_on_test(predictions: Sequence[BaselinePrediction]) -> tuple[int, int]:
    """``(correct, items)`` on the test split."""
    test = [p for p in predictions if p.split == "test"]
    return sum(p.correct for p in test), len(test)
