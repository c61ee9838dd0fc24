"""The packages of ndbtop depend on each other without circles.

Every ``import`` in the source counts, those inside functions too: a lazy import
is still a dependency, only a later one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ndbtop

ROOT = Path(ndbtop.__file__).parent


def _package(module: str) -> str:
    """``ndbtop.tui.views.nodes`` -> ``tui``; top-level modules are their own package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def package_imports() -> dict[str, set[str]]:
    """For each package of ndbtop, the other packages of ndbtop it imports."""
    graph: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        module = ".".join(("ndbtop", *path.relative_to(ROOT).with_suffix("").parts))
        source = _package(module)
        graph.setdefault(source, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if name.startswith("ndbtop.") and _package(name) != source:
                    graph[source].add(_package(name))
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_cycle_finder_finds_a_circle() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set(), "c": {"a"}}) is None


def test_no_circle_between_packages() -> None:
    found = cycle(package_imports())
    assert found is None, " -> ".join(found or ())


def test_the_terminal_ui_does_not_start_things() -> None:
    """cli starts things (simulators, sources) and hands them to tui, which renders."""
    assert "cli" not in package_imports()["tui"]


def module_imports(package: str) -> dict[str, set[str]]:
    """For each module of ``package`` (``ndbtop``, ``ndbtop.tui``), the modules of it that it
    imports.

    Every import counts: at the top, inside a function (a lazy import is a dependency all
    the same, only a later one) and under ``TYPE_CHECKING`` (an annotation that names a
    module depends on it; a circle all the same, which the next runtime import would close).
    ``from P import name`` counts ``P.name`` when that is a module, else ``P``. That
    importing a module runs its package's ``__init__`` first is not counted: every
    ``__init__`` that re-exports its modules would make each package a circle."""
    base = ROOT.joinpath(*package.split(".")[1:])
    modules: dict[str, Path] = {}
    for path in base.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(("ndbtop", *(parts[:-1] if parts[-1] == "__init__" else parts)))] = path
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        graph[module] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules
                         else node.module for alias in node.names]
            graph[module] |= {n for n in names if n in modules and n != module}
    return graph


def test_module_graph_reads_type_checking_imports() -> None:
    graph = module_imports("ndbtop.tui")
    assert "ndbtop.tui.source" in graph["ndbtop.tui.hosts"], "an import under TYPE_CHECKING"
    assert "ndbtop.tui.action_flow" in graph["ndbtop.tui.app"]


def test_no_circle_between_the_terminal_uis_modules() -> None:
    """The app imports its screens, its action flow and its recorder; they take what they
    need of it as a protocol (``tui/hosts.py``) and never import it."""
    graph = module_imports("ndbtop.tui")
    found = cycle(graph)
    assert found is None, " -> ".join(found or ())
    for module in ("ndbtop.tui.action_flow", "ndbtop.tui.recording", "ndbtop.tui.screens.main",
                   "ndbtop.tui.screens.live", "ndbtop.tui.screens.replay"):
        assert "ndbtop.tui.app" not in graph[module], module


def test_module_graph_reads_lazy_imports_and_imported_modules() -> None:
    graph = module_imports("ndbtop")
    assert "ndbtop.cli.monitor" in graph["ndbtop.cli"], "an import inside main()"
    assert "ndbtop.mgm.errorcodes" in graph["ndbtop.sim.cluster.backups"], \
        "from ndbtop.mgm import errorcodes"


def test_no_circle_between_modules() -> None:
    """No module of ndbtop imports, at any depth, a module that imports it (every import
    counts, those inside functions and under ``TYPE_CHECKING`` too: see
    :func:`module_imports`). What two modules share goes to a module below both; what a
    helper needs from the module that holds it, that module's public face, named as a
    protocol (``tui/hosts.py``, ``collect/hub_face.py``)."""
    found = cycle(module_imports("ndbtop"))
    assert found is None, "import circle: " + " -> ".join(found or ())
