"""Fault injection: which calls are hit, and what the model sees."""

from slmbench.tools.base import ToolResult
from slmbench.tools.faults import FAULT_MESSAGES, FaultInjector, FaultSpec, drift


def test_a_once_fault_hits_only_the_first_call_of_its_tool():
    injector = FaultInjector((FaultSpec("calendar", "timeout", 1),))
    assert injector.fault_for("email") is None
    assert injector.fault_for("calendar") == "timeout"
    assert injector.fault_for("calendar") is None


def test_an_always_fault_hits_every_call():
    injector = FaultInjector((FaultSpec("web_search", "rate_limit", None),))
    assert [injector.fault_for("web_search") for _ in range(3)] == ["rate_limit"] * 3


def test_replacing_faults_never_run_the_tool_and_say_what_happened():
    ran = []

    def tool() -> ToolResult:
        ran.append(1)
        return ToolResult(ok=True, content={"x": 1})

    for kind in ("timeout", "rate_limit", "error"):
        result = FaultInjector.apply(kind, tool)
        assert not result.ok and result.error == FAULT_MESSAGES[kind]
    assert ran == []


def test_schema_drift_keeps_the_data_but_changes_the_shape():
    result = FaultInjector.apply("schema_drift", lambda: ToolResult(ok=True, content={"events": [1, 2]}))
    assert result.ok and result.content == {"status": "ok", "payload": {"events_v2": [1, 2]}}
    assert drift([1, 2]) == {"status": "ok", "records": [1, 2], "total": 2}
