"""slmbench.tasks: the task suites as data, their schema, variants and state-based checks."""

from slmbench.tasks.checks import TrialView, evaluate
from slmbench.tasks.loader import TaskFileError, load_suite, load_task, suite_names
from slmbench.tasks.refusal import RefusalVerdict, classify_refusal
from slmbench.tasks.schema import Task
from slmbench.tasks.variants import FaultSpec, TrialSpec, trial_plan

__all__ = [
    "FaultSpec",
    "RefusalVerdict",
    "Task",
    "TaskFileError",
    "TrialSpec",
    "TrialView",
    "classify_refusal",
    "evaluate",
    "load_suite",
    "load_task",
    "suite_names",
    "trial_plan",
]
