"""The layers of kva hold by construction: these tests read the source (``ast``), so a change
that breaks one fails here, not in a review. docs/architecture.md describes the layers."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kva"


@dataclass(frozen=True)
class Import:
    """One import in a module of kva: the module it names and the names it takes."""

    module: str
    names: tuple[str, ...]
    line: int


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str) -> Iterator[Import]:
    """Every import of module ``name``, at any depth (in functions and ``TYPE_CHECKING``
    blocks too: a cycle hidden in either is still a cycle of the design)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(alias.name, (), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            yield Import(module, tuple(a.name for a in node.names), node.lineno)


def kva_dependencies(name: str) -> set[str]:
    """The modules of kva that ``name`` imports (a name taken from a package that is itself a
    module of it counts as that submodule)."""
    found: set[str] = set()
    for imp in imports_of(name):
        for taken in imp.names or ("",):
            sub = f"{imp.module}.{taken}"
            if sub in MODULES:
                found.add(sub)
            elif imp.module in MODULES:
                found.add(imp.module)
    found.discard(name)
    return found


def _cycles() -> list[list[str]]:
    graph = {name: kva_dependencies(name) for name in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in MODULES:
        if name not in index:
            visit(name)
    return found


def _in(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_no_module_of_kva_imports_itself_round_a_cycle() -> None:
    assert _cycles() == []


def test_no_module_takes_another_modules_private_names() -> None:
    taken = [
        f"{name}:{imp.line} takes {imp.module}.{n}"
        for name in MODULES
        for imp in imports_of(name)
        if imp.module.startswith("kva") and imp.module != name
        for n in imp.names
        if n.startswith("_") and f"{imp.module}.{n}" not in MODULES
    ]
    assert taken == []


def test_the_rules_depend_on_nothing_but_the_standard_library() -> None:
    outside = [
        f"{name}:{imp.line} imports {imp.module}"
        for name in MODULES if _in(name, "kva.rules")
        for imp in imports_of(name)
        if (imp.module.startswith("kva") and not _in(imp.module, "kva.rules"))
        or imp.module.split(".")[0] in {"sqlalchemy", "fastapi", "numpy", "redis"}
    ]
    assert outside == []


def test_code_outside_the_rules_uses_their_public_api() -> None:
    """``kva.rules`` for the game, ``kva.rules.engine`` for the bitmask layer search uses."""
    inner = [
        f"{name}:{imp.line} imports {imp.module}"
        for name in MODULES if not _in(name, "kva.rules")
        for imp in imports_of(name)
        if _in(imp.module, "kva.rules") and imp.module not in {"kva.rules", "kva.rules.engine"}
    ]
    assert inner == []


#: What each layer must not import (docs/architecture.md): the rules and bots know nothing of
#: storage, services or the web; storage nothing of services or the web; services nothing of
#: the web; the play core nothing of the features that hook into a match's end.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "kva.bots": ("kva.storage", "kva.service", "kva.web"),
    "kva.storage": ("kva.service", "kva.web"),
    "kva.service": ("kva.web",),
    "kva.service.play": ("kva.service.coins", "kva.service.ratings", "kva.service.analysis"),
}


def test_each_layer_imports_only_the_layers_beneath_it() -> None:
    """A migration is exempt: it may compute a value it stores with the code that computes
    it at run time (the nickname key of :mod:`kva.service.nicknames`, which is pure)."""
    wrong = [
        f"{name} imports {dependency}"
        for layer, banned in FORBIDDEN.items()
        for name in MODULES if _in(name, layer) and not _in(name, "kva.storage.migrations")
        for dependency in sorted(kva_dependencies(name))
        if _in(dependency, *banned)
    ]
    assert wrong == []


def test_sql_is_written_only_in_storage() -> None:
    """Services and the web tier call repositories (kva.storage); they may name a session's
    type, never build a statement."""
    allowed = {"sqlalchemy.ext.asyncio", "sqlalchemy.exc"}
    wrong = [
        f"{name}:{imp.line} imports {imp.module} {', '.join(imp.names)}"
        for name in MODULES if _in(name, "kva.service", "kva.web")
        for imp in imports_of(name)
        if _in(imp.module, "sqlalchemy") and imp.module not in allowed
    ]
    assert wrong == []


def _functions(path: Path) -> Iterator[tuple[str, int]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            yield node.name, node.end_lineno - node.lineno + 1


def test_no_function_of_the_services_or_the_web_tier_is_over_60_lines() -> None:
    long = [
        f"{name}.{function}: {lines} lines"
        for name, path in MODULES.items() if _in(name, "kva.service", "kva.web")
        for function, lines in _functions(path)
        if lines > 60
    ]
    assert long == []


def test_the_play_service_keeps_to_turn_flow() -> None:
    lines = len((PACKAGE / "service" / "play" / "service.py").read_text().splitlines())
    assert lines < 300


def test_the_environment_is_read_only_by_the_configuration() -> None:
    """``kva serve`` may write what its command line changed for its worker processes."""
    reads = re.compile(r"os\.environ\.get|os\.getenv|os\.environ\[[^]]*\](?!\s*=)")
    wrong = [
        f"{name}:{i}"
        for name, path in MODULES.items() if name != "kva.config"
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if reads.search(line) and "KVA_" in line
    ]
    assert wrong == []
