"""Kill a real shard run at random moments and resume it: every trial once, the same as a run never killed, also
with several trials in flight at once (records then land in the order the trials finish)."""

from __future__ import annotations

import logging
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.fixtures import scripted_shard

from slmbench.records.ledger import ShardLockedError, ShardWriter, iter_records
from slmbench.records.schema import TrialRecord
from slmbench.run.runner import trial_id, trials

log = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parents[3]
FIXTURE = REPO / "tests" / "fixtures" / "scripted_shard.py"
TIMING_FIELDS = {"t", "wall_s", "latency_s", "peak_rss_mb", "started_at"}
N_TASKS, REPEATS, SLEEP_S, KILLS, KILLS_IN_FLIGHT = 8, 5, 0.02, 12, 6


def _start(
    out: Path, n_tasks: int, repeats: int, sleep_s: float, concurrency: int = 1
) -> subprocess.Popen[bytes]:
    command = [sys.executable, str(FIXTURE), str(out), str(n_tasks), "--repeats", str(repeats)]
    command += ["--sleep", str(sleep_s), "--concurrency", str(concurrency)]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _comparable(records: list[TrialRecord]) -> list[tuple[str, str, str | None, list[dict[str, Any]]]]:
    """Trial ids, outcomes, failure classes and events, without the fields that vary with timing."""
    return [
        (
            r.trial_id,
            r.outcome,
            r.failure_class,
            [{k: v for k, v in e.model_dump().items() if k not in TIMING_FIELDS} for e in r.events],
        )
        for r in records
    ]


def _complete_lines(path: Path) -> tuple[list[TrialRecord], bool]:
    """The records of every newline-terminated line, and whether an unterminated (torn) tail follows."""
    if not path.exists():
        return [], False
    data = path.read_bytes()
    lines = data.split(b"\n")
    return [TrialRecord.model_validate_json(line) for line in lines[:-1]], lines[-1] != b""


@pytest.mark.slow
@pytest.mark.parametrize(("concurrency", "kills"), [(1, KILLS), (4, KILLS_IN_FLIGHT)])
def test_kills_and_resumes_equal_an_uninterrupted_run(tmp_path: Path, concurrency: int, kills: int) -> None:
    reference = tmp_path / "reference.jsonl"
    assert scripted_shard.run(reference, N_TASKS, REPEATS) == N_TASKS * REPEATS
    expected = _comparable([r for _, r in iter_records(reference)])
    by_id = {e[0]: e for e in expected}
    spec = scripted_shard.shard_spec(N_TASKS, REPEATS)
    assert [e[0] for e in expected] == [trial_id(spec, t) for t in trials(spec)]

    out = tmp_path / "killed.jsonl"
    rng = random.Random(20261129)
    on_disk, mid_trial, torn_tails = 0, 0, 0
    for _ in range(kills):
        proc = _start(out, N_TASKS, REPEATS, SLEEP_S, concurrency)
        assert proc.stdout is not None
        calls_before_kill = rng.randint(1, 6) + 2 * (concurrency - 1)  # the kill lands after some calls ...
        for _ in range(calls_before_kill):
            line = proc.stdout.readline()
            assert line.startswith(b"call "), proc.stderr.read() if proc.stderr else ""
        time.sleep(rng.uniform(0.0, 1.5 * SLEEP_S))  # ... and at a random point of the next step
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL  # killed, not finished
        records, torn = _complete_lines(out)
        calls = int((rest.splitlines() or [line])[-1].split()[1])  # the last model call it announced
        mid_trial += calls > 1 + 2 * (len(records) - on_disk)  # one preflight, then two calls per trial
        torn_tails += torn
        kept = _comparable(records)
        assert len(records) >= on_disk  # a kill never loses a finished trial
        assert len({k[0] for k in kept}) == len(kept)  # nor writes one twice
        assert all(k == by_id[k[0]] for k in kept)  # what is kept is right
        if concurrency == 1:
            assert kept == expected[: len(records)]  # one at a time: in plan order
        on_disk = len(records)

    assert 0 < on_disk < len(expected)  # kills kept trials and all landed before the shard was complete
    log.info(
        "%d kills with %d in flight (%d mid-trial, %d torn tails); %d/%d trials on disk",
        kills,
        concurrency,
        mid_trial,
        torn_tails,
        on_disk,
        len(expected),
    )
    final = _start(out, N_TASKS, REPEATS, SLEEP_S, concurrency)
    _, err = final.communicate(timeout=60)
    assert final.returncode == 0, err.decode()
    assert out.read_bytes().endswith(b"\n")
    resumed = [r for _, r in iter_records(out)]  # raises on a torn, corrupt or duplicated line
    assert sorted(_comparable(resumed), key=lambda e: e[0]) == sorted(expected, key=lambda e: e[0])
    assert {r.provenance["settings"]["concurrency"] for r in resumed} == {concurrency}


def test_a_second_runner_is_refused_while_the_shard_is_held(tmp_path: Path) -> None:
    reference = tmp_path / "reference.jsonl"
    scripted_shard.run(reference, 1, 2)
    first, second = [r for _, r in iter_records(reference)]
    out = tmp_path / "held.jsonl"
    with ShardWriter(out) as writer:
        writer.append(first)
        refused = subprocess.run(
            [sys.executable, str(FIXTURE), str(out), "1", "--repeats", "2", "--sleep", "0"],
            cwd=REPO,
            capture_output=True,
            timeout=60,
        )
        writer.append(second)
    assert refused.returncode == scripted_shard.EXIT_LOCKED
    assert f"{out} is being written by another runner" in refused.stderr.decode()
    assert refused.stdout == b""  # it never reached the model
    assert out.read_bytes() == reference.read_bytes()  # only the holder's lines, whole and in order


def test_a_running_shard_refuses_a_second_writer(tmp_path: Path) -> None:
    out = tmp_path / "running.jsonl"
    proc = _start(out, 1, 2, sleep_s=0.3)
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"call 1\n"  # the lock is taken before the first (preflight) call
    with pytest.raises(ShardLockedError, match="being written by another runner"):
        with ShardWriter(out):
            pass
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    spec = scripted_shard.shard_spec(1, 2)
    assert [r.trial_id for _, r in iter_records(out)] == [trial_id(spec, t) for t in trials(spec)]
