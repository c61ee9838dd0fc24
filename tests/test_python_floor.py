"""The code stays runnable on the oldest Python supported (3.9), whatever runs the tests.

CI runs the suite on 3.9 too; these checks name the line at once, on any version,
for what 3.9 lacks: syntax (``match``), keyword arguments (``slots=``, ``strict=``),
names (``anext``, ``asyncio.timeout``, ``datetime.UTC``...), ``X | Y`` evaluated at run
time, and asyncio primitives bound to a loop when made. What differs between versions
lives in :mod:`ndbtop.compat`, which alone may name the newer features.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FLOOR = (3, 9)
COMPAT = ROOT / "ndbtop" / "compat.py"
SOURCES = sorted(p for d in ("ndbtop", "tests", "bench") for p in (ROOT / d).rglob("*.py"))

NEWER_NAMES = {"anext", "aiter", "ExceptionGroup", "BaseExceptionGroup", "EncodingWarning"}
"""Builtins added after 3.9."""
NEWER_ATTRIBUTES = {
    ("asyncio", "timeout"), ("asyncio", "timeout_at"), ("asyncio", "TaskGroup"),
    ("asyncio", "Runner"), ("asyncio", "Barrier"), ("datetime", "UTC"),
    ("itertools", "pairwise"), ("itertools", "batched"), ("enum", "StrEnum"),
    ("typing", "TypeAlias"), ("typing", "ParamSpec"), ("typing", "Self"),
    ("typing", "TypeGuard"), ("typing", "Concatenate"), ("typing", "Never"),
    ("typing", "assert_never"), ("typing", "LiteralString"), ("typing", "override"),
    ("typing", "get_type_hints"), ("types", "UnionType"), ("contextlib", "chdir"),
    ("contextlib", "aclosing"), ("hashlib", "file_digest"), ("dataclasses", "KW_ONLY"),
}
"""``module.name`` (or ``from module import name``) added after 3.9, or (get_type_hints)
that cannot read ``X | Y`` on 3.9: :mod:`ndbtop.compat` has what is needed of them."""
NEWER_MODULES = {"tomllib"}
NEWER_METHODS = {"bit_count"}
"""``int.bit_count`` (3.10)."""
NEWER_KEYWORDS = {"dataclass": {"slots", "kw_only", "match_args"}, "zip": {"strict"}}
BUILTIN_TYPES = {"int", "str", "float", "bytes", "bool", "list", "tuple", "dict", "set",
                 "frozenset", "type", "object"}
PRIMITIVES = {"Lock", "Event", "Condition", "Semaphore", "BoundedSemaphore", "Queue",
              "LifoQueue", "PriorityQueue"}


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def callee(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def annotations(tree: ast.AST) -> set[int]:
    """The ids of every node inside an annotation (never evaluated: see the future import)."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        found = []
        if isinstance(node, ast.arg) and node.annotation is not None:
            found.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        inside.update(id(n) for a in found for n in ast.walk(a))
    return inside


def uses_bar(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr)


def camel(node: ast.AST) -> bool:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return name[:1].isupper() and not name.isupper()


def typeish(node: ast.AST) -> bool:
    """A class name, ``None`` or a subscripted type: what ``X | Y`` joins (flags are UPPER)."""
    if uses_bar(node):
        return typeish(node.left) or typeish(node.right)  # type: ignore[attr-defined]
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.Subscript):
        return typeish(node.value)
    return (isinstance(node, ast.Name) and node.id in BUILTIN_TYPES) or camel(node)


def problems(text: str, where: str) -> Iterator[str]:
    """Each line of the module ``text`` (named ``where``) that 3.9 cannot run, with why."""
    tree = ast.parse(text, where)
    in_annotation = annotations(tree)
    postponed = any(isinstance(n, ast.ImportFrom) and n.module == "__future__"
                    and any(a.name == "annotations" for a in n.names) for n in tree.body)
    for node in ast.walk(tree):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Name) and node.id in NEWER_NAMES:
            yield f"{line}: {node.id} is not in 3.9"
        elif isinstance(node, ast.Name) and node.id == "TimeoutError" and where.startswith(
                "ndbtop"):
            yield (f"{line}: on 3.9 socket.timeout and asyncio.TimeoutError are no "
                   "TimeoutError: use ndbtop.compat.TIMEOUT_ERRORS")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
                (node.value.id, node.attr) in NEWER_ATTRIBUTES):
            yield f"{line}: {node.value.id}.{node.attr} (use ndbtop.compat or an older form)"
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (node.module, alias.name) in NEWER_ATTRIBUTES:
                    yield f"{line}: from {node.module} import {alias.name}"
            if node.module in NEWER_MODULES:
                yield f"{line}: {node.module} is not in 3.9"
        elif isinstance(node, ast.Import) and {a.name for a in node.names} & NEWER_MODULES:
            yield f"{line}: a module that 3.9 lacks"
        elif isinstance(node, ast.Attribute) and node.attr in NEWER_METHODS:
            yield f"{line}: .{node.attr}() is not in 3.9 (ndbtop.compat)"
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg in NEWER_KEYWORDS.get(callee(node), ()):
                    yield f"{line}: {callee(node)}({keyword.arg}=) (ndbtop.compat)"
            if callee(node) in ("isinstance", "issubclass") and len(node.args) == 2 and (
                    uses_bar(node.args[1])):
                yield f"{line}: {callee(node)} with X | Y: use a tuple"
        if id(node) in in_annotation:
            if uses_bar(node) and not postponed:
                yield f"{line}: X | Y in an annotation without `from __future__ import annotations`"
        elif uses_bar(node) and typeish(node.left) and typeish(node.right):  # type: ignore[attr-defined]
            yield f"{line}: X | Y evaluated at run time: use Union or Optional"


def test_every_module_parses_as_the_oldest_python() -> None:
    failures = []
    for path in SOURCES:
        try:
            ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=FLOOR)
        except SyntaxError as exc:
            failures.append(f"{rel(path)}:{exc.lineno}: {exc.msg}")
    assert not failures, "\n".join(failures)


def test_nothing_newer_than_the_oldest_python_is_used_outside_compat() -> None:
    found = [p for path in SOURCES if path != COMPAT
             for p in problems(path.read_text(encoding="utf-8"), rel(path))]
    assert not found, "\n".join(found)


def made_outside_a_coroutine(tree: ast.AST, in_coroutine: bool = False) -> Iterator[int]:
    for child in ast.iter_child_nodes(tree):
        inside = in_coroutine
        if isinstance(child, ast.AsyncFunctionDef):
            inside = True
        elif isinstance(child, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            inside = False
        if (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                and isinstance(child.func.value, ast.Name) and child.func.value.id == "asyncio"
                and child.func.attr in PRIMITIVES and not inside):
            yield child.lineno
        yield from made_outside_a_coroutine(child, inside)


def test_asyncio_primitives_made_outside_a_coroutine_come_from_compat() -> None:
    """3.9 binds them to the thread's loop when made: another loop (asyncio.run) or a
    thread without one then fails; ``ndbtop.compat.AsyncLock``/``AsyncEvent`` do not."""
    found = [f"{rel(path)}:{line}" for path in SOURCES if path.parts[-2:] != ("ndbtop", "compat.py")
             and "ndbtop" in path.relative_to(ROOT).parts[:1]
             for line in made_outside_a_coroutine(parsed(path))]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text, why", [
    ("@dataclass(frozen=True, slots=True)\nclass A:\n    x: int\n", "dataclass(slots=)"),
    ("for a, b in zip(x, y, strict=True):\n    pass\n", "zip(strict=)"),
    ("Alias = int | None\n", "X | Y evaluated at run time"),
    ("ok = isinstance(v, int | str)\n", "isinstance with X | Y"),
    ("from datetime import UTC\n", "from datetime import UTC"),
    ("import asyncio\nasync def f():\n    async with asyncio.timeout(1):\n        pass\n",
     "asyncio.timeout"),
    ("n = (5).bit_count()\n", ".bit_count()"),
    ("def f(x: int | None) -> None:\n    pass\n", "without `from __future__"),
    ("try:\n    pass\nexcept TimeoutError:\n    pass\n", "TIMEOUT_ERRORS"),
])
def test_the_checks_find_what_3_9_cannot_run(text: str, why: str) -> None:
    found = list(problems(text, "ndbtop/probe.py"))
    assert any(why in p for p in found), found


def test_the_checks_let_annotations_and_flags_be() -> None:
    text = ("from __future__ import annotations\nimport os\n"
            "def f(x: int | None, y: list[str | None]) -> dict[str, int] | None:\n"
            "    z: int | None = None\n    return os.O_RDONLY | os.O_NONBLOCK\n")
    assert list(problems(text, "probe.py")) == []


def test_the_floor_is_the_same_in_packaging_lint_and_ci() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^requires-python = ">=3\.9"$', pyproject, re.M)
    assert re.search(r'^target-version = "py39"$', pyproject, re.M)
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^PYTHONS=\(3\.9 ", ci, re.M), "CI runs the suite on 3.9 first"
