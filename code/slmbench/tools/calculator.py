"""``calculator``: evaluate arithmetic safely by walking a restricted ``ast``."""

from __future__ import annotations

import ast
import logging
import math
import operator
import warnings
from collections.abc import Callable
from typing import Any

from slmbench.tools.arguments import ArgumentError, need_str
from slmbench.tools.base import ToolContext, ToolResult, register_tool

logger = logging.getLogger(__name__)

Number = int | float

MAX_EXPONENT = 1000
MAX_INT_BITS = 4000
MAX_EXPRESSION_CHARS = 1000

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_HINTS: dict[type[ast.operator], str] = {ast.BitXor: "^ is not supported; use ** for powers"}


def _sqrt(x: Number) -> float:
    return math.sqrt(x)


def _round(x: Number, digits: Number | None = None) -> Number:
    if digits is None:
        return round(x)
    if not isinstance(digits, int) or abs(digits) > 100:
        raise ArgumentError("round() digits must be an integer between -100 and 100")
    return round(x, digits)


_FUNCTIONS: dict[str, Callable[..., Number]] = {
    "round": _round,
    "abs": abs,
    "min": min,
    "max": max,
    "sqrt": _sqrt,
}
_ARITY: dict[str, tuple[int, int]] = {
    "round": (1, 2),
    "abs": (1, 1),
    "sqrt": (1, 1),
    "min": (1, 100),
    "max": (1, 100),
}


def _check_size(value: Number) -> Number:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise ArgumentError("result too large")
    if isinstance(value, float) and not math.isfinite(value):
        raise ArgumentError("result is not a finite number")
    if not isinstance(value, int | float):
        raise ArgumentError("result is not a real number")
    return value


def _eval(node: ast.AST) -> Number:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise ArgumentError(f"unsupported value {node.value!r}")
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        op_type = type(node.op)
        if op_type not in _BINARY:
            raise ArgumentError(_HINTS.get(op_type, f"operator {op_type.__name__} is not supported"))
        left, right = _eval(node.left), _eval(node.right)
        if op_type is ast.Pow and abs(right) > MAX_EXPONENT:
            raise ArgumentError(f"exponent too large (limit {MAX_EXPONENT})")
        if op_type is ast.Pow and isinstance(left, int) and left.bit_length() * abs(right) > MAX_INT_BITS:
            raise ArgumentError("result too large")
        return _check_size(_BINARY[op_type](left, right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
        name = node.func.id
        low, high = _ARITY[name]
        if node.keywords or not low <= len(node.args) <= high:
            raise ArgumentError(f"wrong arguments for {name}()")
        return _check_size(_FUNCTIONS[name](*(_eval(arg) for arg in node.args)))
    if isinstance(node, ast.Call | ast.Name):
        raise ArgumentError(f"unknown name; allowed functions are {', '.join(sorted(_FUNCTIONS))}")
    raise ArgumentError(f"unsupported syntax: {type(node).__name__}")


def evaluate(expression: str) -> Number:
    """Evaluate ``expression``; raises ``ArgumentError`` for anything not plain arithmetic."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ArgumentError(f"expression too long (limit {MAX_EXPRESSION_CHARS} characters)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # e.g. "1e" would warn before failing
            tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ArgumentError(f"invalid expression: {exc.msg}") from None
    try:
        return _eval(tree)
    except ZeroDivisionError:
        raise ArgumentError("division by zero") from None
    except (OverflowError, ValueError, TypeError) as exc:
        if isinstance(exc, ArgumentError):
            raise
        raise ArgumentError(f"cannot evaluate: {exc}") from None


@register_tool(name="calculator")
class Calculator:
    """Arithmetic with + - * / // % **, parentheses and round/abs/min/max/sqrt."""

    name = "calculator"
    description = (
        "Evaluate an arithmetic expression, e.g. '(12.5 * 4) / 3' or 'sqrt(2) ** 2'. "
        "Supports + - * / // % **, parentheses and the functions round, abs, min, max, sqrt."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"expression": {"type": "string", "description": "The arithmetic expression."}},
        "required": ["expression"],
        "additionalProperties": False,
    }

    def __init__(self, ctx: ToolContext) -> None:
        self._expressions: list[str] = []

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Return ``{"result": number}``."""
        try:
            expression = need_str(arguments, "expression")
            self._expressions.append(expression)
            return ToolResult(ok=True, content={"result": evaluate(expression)})
        except ArgumentError as exc:
            return ToolResult(ok=False, content=None, error=str(exc))

    def snapshot(self) -> dict[str, Any]:
        """The expressions evaluated (or attempted), in order."""
        return {"expressions": list(self._expressions)}
