"""A re-judged trial names the criteria that judge it otherwise than its record did."""

from slmbench.records.schema import CheckResult
from slmbench.tidy.rows import changed_criteria


def _check(*oks: bool, detail: str = "d") -> CheckResult:
    kinds = ("answer_number", "answered")
    criteria = [{"kind": k, "ok": ok, "detail": f"{k} {detail}"} for k, ok in zip(kinds, oks, strict=False)]
    return CheckResult(passed=all(oks), partial=0.0, criteria=criteria)


def test_the_changed_criterion_is_named_with_what_it_says_now() -> None:
    assert changed_criteria(_check(True, True), _check(True, False, detail="now")) == "answered: answered now"


def test_a_verdict_without_a_changed_criterion_says_so() -> None:
    assert changed_criteria(_check(True), _check(True)).startswith("the check's verdict")
    assert changed_criteria(None, _check(False)) == "answer_number: answer_number d"
