"""slmbench.tools: the ten sandboxed, deterministic tools an agent may call."""

from slmbench.tools.base import Tool, ToolContext, ToolResult, function_schema, register_tool
from slmbench.tools.calculator import Calculator
from slmbench.tools.calendar_tool import Calendar
from slmbench.tools.code_interpreter import CodeInterpreter
from slmbench.tools.csv_processor import CsvProcessor
from slmbench.tools.data_query import DataQuery
from slmbench.tools.email_tool import Email
from slmbench.tools.file_operator import FileOperator
from slmbench.tools.knowledge_lookup import KnowledgeLookup
from slmbench.tools.notification import Notification
from slmbench.tools.registry import build_tools, is_side_effect, tool_class, tool_names
from slmbench.tools.sandbox import SandboxLimits, SandboxResult, run_python
from slmbench.tools.web_search import WebSearch

__all__ = [
    "Calculator",
    "Calendar",
    "CodeInterpreter",
    "CsvProcessor",
    "DataQuery",
    "Email",
    "FileOperator",
    "KnowledgeLookup",
    "Notification",
    "SandboxLimits",
    "SandboxResult",
    "Tool",
    "ToolContext",
    "ToolResult",
    "WebSearch",
    "build_tools",
    "function_schema",
    "is_side_effect",
    "register_tool",
    "run_python",
    "tool_class",
    "tool_names",
]
