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


def test_the_kozel_rules_depend_on_the_standard_library_and_the_tile_tables_only() -> None:
    """kva.kozel is a game's rules like kva.rules: it may take the tiles, errors and fair deals
    from kva.rules's public API and nothing else of kva."""
    outside = [
        f"{name}:{imp.line} imports {imp.module}"
        for name in MODULES if _in(name, "kva.kozel")
        for imp in imports_of(name)
        if (imp.module.startswith("kva") and not _in(imp.module, "kva.kozel")
            and imp.module not in {"kva.rules", "kva.rules.engine"})
        or imp.module.split(".")[0] in {"sqlalchemy", "fastapi", "numpy", "redis"}
    ]
    assert outside == []


def test_the_status_names_depend_on_nothing_of_kva() -> None:
    """:mod:`kva.status` is shared by storage, the services and the web tier: importing any of
    them (or anything else of kva) would tie those layers together through it."""
    assert kva_dependencies("kva.status") == set()


def test_the_package_imports_nothing_of_the_repository_s_tools() -> None:
    """``tools/`` (benchmarks, research, training and its yardsticks) is not installed: kva
    ships without it, so no module of kva may import it (``kva bench`` finds a benchmark by
    name at run time, and says where to get it when it is missing)."""
    found = [
        f"{name}:{imp.line} imports {imp.module}"
        for name in MODULES
        for imp in imports_of(name)
        if imp.module.split(".")[0] == "tools"
    ]
    assert found == []


#: Standard modules that reach the outside world (files, processes, the clock, the network):
#: a game's rules are a pure function of their inputs, so they import none of them.
IMPURE = {"os", "io", "sys", "time", "datetime", "pathlib", "socket", "subprocess", "asyncio",
          "logging", "shutil", "tempfile", "threading"}


def test_the_rules_of_both_games_do_no_io_and_read_no_clock() -> None:
    impure = [
        f"{name}:{imp.line} imports {imp.module}"
        for name in MODULES if _in(name, "kva.rules", "kva.kozel")
        for imp in imports_of(name)
        if imp.module.split(".")[0] in IMPURE
    ]
    assert impure == []


def test_the_game_interface_is_pure_and_takes_only_the_engines_public_api() -> None:
    """kva.games adapts the engines for everything above them: like them it does no I/O and
    reads no clock, and it takes each engine through its public API only."""
    engines = {"kva.rules", "kva.rules.engine", "kva.kozel", "kva.kozel.engine"}
    outside = [
        f"{name} imports {dependency}"
        for name in MODULES if _in(name, "kva.games")
        for dependency in sorted(kva_dependencies(name))
        if not _in(dependency, "kva.games") and dependency not in engines
    ]
    impure = [
        f"{name}:{imp.line} imports {imp.module}"
        for name in MODULES if _in(name, "kva.games")
        for imp in imports_of(name)
        if imp.module.split(".")[0] in IMPURE | {"sqlalchemy", "fastapi", "numpy", "redis"}
    ]
    assert outside + impure == []


def test_the_kozel_rules_draw_no_global_randomness() -> None:
    """Every shuffle goes through a ``random.Random`` passed in: no module-level ``random.x()``
    call and no unseeded generator."""
    calls = re.compile(r"\brandom\.(?!Random\(\w)[a-z_]+\(|random\.Random\(\)")
    found = [
        f"{name}:{i}"
        for name, path in MODULES.items() if _in(name, "kva.kozel")
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if calls.search(line) and ">>>" not in line
    ]
    assert found == []


def test_code_outside_the_kozel_rules_uses_their_public_api() -> None:
    inner = [
        f"{name}:{imp.line} imports {imp.module}"
        for name in MODULES if not _in(name, "kva.kozel")
        for imp in imports_of(name)
        if _in(imp.module, "kva.kozel") and imp.module not in {"kva.kozel", "kva.kozel.engine"}
    ]
    assert inner == []


def test_code_outside_the_rules_uses_their_public_api() -> None:
    """``kva.rules`` for the game, ``kva.rules.engine`` for the bitmask layer search uses."""
    inner = [
        f"{name}:{imp.line} imports {imp.module}"
        for name in MODULES if not _in(name, "kva.rules")
        for imp in imports_of(name)
        if _in(imp.module, "kva.rules") and imp.module not in {"kva.rules", "kva.rules.engine"}
    ]
    assert inner == []


#: The game engines: the play core reaches them only through kva.games.
ENGINES = ("kva.rules", "kva.kozel")
#: The play core's remaining imports of an engine, each with its reason; anything else of an
#: engine it needs is behind :class:`kva.games.Game` or the game's :class:`kva.games.LivePlay`.
PLAY_ENGINE_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("kva.service.play.clock", "parse_ascii_int"):
        "reads the clock presets setting's numbers: text parsing, no game logic",
    ("kva.service.play.presence", "DRAW"):
        "the first-move timeout of a match with no clock asks whether a Georgian seat ever "
        "chose a move; it moves behind the game with the per-match timer",
    ("kva.service.play.presence", "PASS"): "as DRAW",
}


def test_the_play_core_imports_no_game_engine_but_through_the_games() -> None:
    """``kva.service.play`` knows a game only as a :class:`kva.games.Game` found by name (and
    that game's :class:`kva.games.LivePlay`), so a new game needs no change to it."""
    found = [
        f"{name}:{imp.line} imports {imp.module} {taken}"
        for name in MODULES if _in(name, "kva.service.play")
        for imp in imports_of(name)
        if _in(imp.module, *ENGINES)
        for taken in imp.names or ("",)
        if (name, taken) not in PLAY_ENGINE_EXCEPTIONS
    ]
    assert found == []


def test_the_match_journal_is_written_by_the_games() -> None:
    """The journal of kva.storage stores and assembles changes; what a change holds is the
    game's (:func:`kva.games.georgian_live.change_of` for the Georgian game)."""
    found = [f"kva.storage.journal:{imp.line} imports {imp.module}"
             for imp in imports_of("kva.storage.journal") if _in(imp.module, *ENGINES)]
    assert found == []


#: What each layer must not import (docs/architecture.md): the rules and bots know nothing of
#: storage, services or the web; storage nothing of services or the web; services nothing of
#: the web; the web nothing of storage (it calls services, which own their transactions; only
#: the composition root, kva.platform, makes the database); the play core nothing of the
#: features that hook into a match's end.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "kva.bots": ("kva.storage", "kva.service", "kva.web"),
    "kva.kozel": ("kva.storage", "kva.service", "kva.web", "kva.bots"),
    "kva.games": ("kva.storage", "kva.service", "kva.web", "kva.bots"),
    "kva.storage": ("kva.service", "kva.web"),
    "kva.service": ("kva.web", "kva.platform"),
    "kva.web": ("kva.storage",),
    # a match's coins and rating are settled by the hooks of kva.service.finish; play knows
    # only what a stake may be (kva.service.coins.stakes, pure)
    "kva.service.play": ("kva.service.coins.wallets", "kva.service.coins.audit",
                         "kva.service.ratings", "kva.service.analysis"),
    "kva.settings": ("kva.storage", "kva.service", "kva.web", "kva.bots", "kva.config"),
    "kva.config": ("kva.storage", "kva.service", "kva.web", "kva.bots"),
}


def test_each_layer_imports_only_the_layers_beneath_it() -> None:
    """A migration is exempt: it may compute a value it stores with the code that computes
    it at run time (the nickname key of :mod:`kva.service.accounts.nicknames`, which is pure)."""
    wrong = [
        f"{name} imports {dependency}"
        for layer, banned in FORBIDDEN.items()
        for name in MODULES if _in(name, layer) and not _in(name, "kva.storage.migrations")
        for dependency in sorted(kva_dependencies(name))
        if _in(dependency, *banned)
    ]
    assert wrong == []


def test_the_configuration_loads_no_service_storage_or_web_module() -> None:
    """Reading the settings (``kva.config`` and the pure pieces in ``kva.settings``) loads
    neither a service, nor a database driver, nor the web framework, at any depth: a command
    that only reads its settings stays light, and a setting's default has one home."""
    seen: set[str] = set()
    todo = ["kva.config"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(kva_dependencies(name))
    wrong = sorted(name for name in seen if _in(name, "kva.service", "kva.storage", "kva.web"))
    assert wrong == []
    third_party = sorted(
        f"{name}:{imp.line} imports {imp.module}"
        for name in seen
        for imp in imports_of(name)
        if imp.module.split(".")[0] in {"sqlalchemy", "fastapi", "starlette", "redis"})
    assert third_party == []


def test_the_web_tier_opens_no_session_or_transaction() -> None:
    """A route or a socket calls a service function, which opens its session and begins and
    ends its transaction: no ``sessions()`` and no ``begin()`` in kva.web."""
    opens = re.compile(r"\bsessions\(\)|\.begin\(\)")
    wrong = [
        f"{name}:{i}"
        for name, path in MODULES.items() if _in(name, "kva.web")
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if opens.search(line)
    ]
    assert wrong == []


def test_one_composition_root_makes_the_database() -> None:
    """The platform is put together in kva.platform alone: no other module of the services
    or the web tier makes a Database, a broker or the play service."""
    makers = re.compile(r"\b(Database|PlayService|make_broker)\(")
    wrong = [
        f"{name}:{i}"
        for name, path in MODULES.items() if _in(name, "kva.service", "kva.web")
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if makers.search(line) and not line.lstrip().startswith(("def ", "class ", "#"))
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


def _literal_strings(node: ast.expr) -> list[str]:
    """The string constants ``node`` is or holds (a tuple, list or set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [s for element in node.elts for s in _literal_strings(element)]
    return []


def _names_a_status(node: ast.expr) -> bool:
    """``x.status`` (an attribute) or ``x["status"]`` (a message's field)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "status"
    return (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
            and node.slice.value == "status")


def test_statuses_are_compared_and_set_through_their_enums_never_as_string_literals() -> None:
    """A match's status is a :class:`kva.status.MatchStatus` (a challenge's a
    ``ChallengeStatus``): a literal like ``"finished"`` compared with or assigned to a
    ``status`` would be a typo the type checker cannot catch, and a value kept in two places."""
    found = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(map(_names_a_status, sides)) and any(map(_literal_strings, sides)):
                    found.append(f"{name}:{node.lineno} compares a status with a literal")
            elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(map(_names_a_status, targets)) and _literal_strings(node.value):
                    found.append(f"{name}:{node.lineno} sets a status to a literal")
    assert found == []


def test_the_play_service_routes_commands_not_argument_lists() -> None:
    """Every change to a live match is a typed command (kva/service/play/commands.py): no
    function of the play service takes ``*args``, and each ``route`` takes one command."""
    wrong = []
    for name, path in MODULES.items():
        if not _in(name, "kva.service.play"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if node.args.vararg is not None:
                wrong.append(f"{name}.{node.name} takes *{node.args.vararg.arg}")
            if node.name == "route":
                params = [a for a in [*node.args.posonlyargs, *node.args.args,
                                      *node.args.kwonlyargs] if a.arg != "self"]
                hints = [ast.unparse(a.annotation) if a.annotation else "" for a in params]
                if len(hints) != 1 or not re.match(r"(\w+\.)?Command\[", hints[0]):
                    wrong.append(f"{name}.route takes {', '.join(hints) or 'nothing'}")
    assert wrong == []


#: What sets a timer or waits for one: the event loop's timers and every ``sleep``.
TIMER_CALLS = {"call_later", "call_at", "sleep"}
#: Where the play service may still wait by itself, and why: none of these is a match's timer.
TIMER_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("kva.service.play.owners", "sleep"): "the renewal of this process's leases: one loop "
                                          "for the process, not a timer of a match",
    ("kva.service.play.liveness", "sleep"): "this process's liveness writes: one loop for "
                                            "the process (on the injected clock)",
    ("kva.service.play.routing.watching", "sleep"): "the renewal of the watches of other "
                                                    "processes: one loop for the process",
    ("kva.service.play.routing.leases", "sleep"): "a short pause before a change asks a "
                                                  "match's new owner again, within the change",
    ("kva.service.play.routing.handoff", "sleep"): "a short pause before a hello asks a "
                                                   "match's new owner again, within the hello",
    ("kva.service.play.bot_moves", "sleep"): "a bot worker process's thread that watches for "
                                             "the server's exit, not a timer of a match",
}


def _timer_calls(path: Path) -> Iterator[tuple[str, int]]:
    """Each call of a :data:`TIMER_CALLS` name in ``path`` (``asyncio.sleep``,
    ``loop.call_later``, a clock's ``sleep``...), with its line."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = (func.attr if isinstance(func, ast.Attribute)
                    else func.id if isinstance(func, ast.Name) else None)
            if name in TIMER_CALLS:
                yield name, node.lineno


def test_the_timers_of_matches_are_set_only_by_the_match_scheduler() -> None:
    """Every timer of a live match is set on its scheduler (kva.service.play.scheduler), on
    the one injected clock: a ``call_later``, ``call_at`` or ``sleep`` elsewhere in the play
    service would be a timer that neither the fake clock of the tests moves nor the end of
    the match cancels."""
    wrong = [
        f"{name}:{line} calls {call}"
        for name, path in MODULES.items()
        if _in(name, "kva.service.play") and name != "kva.service.play.scheduler"
        for call, line in _timer_calls(path)
        if (name, call) not in TIMER_EXCEPTIONS
    ]
    assert wrong == []
    unused = [key for key in TIMER_EXCEPTIONS
              if not any(call == key[1] for call, _line in _timer_calls(MODULES[key[0]]))]
    assert unused == []  # an exception whose reason is gone goes too


def test_seats_are_read_as_rows_outside_the_migrations() -> None:
    """A match's seats, with their client seeds, are rows of ``match_seats`` (migration 0014),
    read through the helpers of :class:`kva.storage.models.MatchRow` and
    :mod:`kva.storage.seats`: only the migrations that made and dropped the old per-seat
    columns name them."""
    columns = re.compile(r"seat[01]_|client_seed[01]|seed_by[01]")
    wrong = [
        f"{name}:{i}"
        for name, path in MODULES.items() if not _in(name, "kva.storage.migrations")
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if columns.search(line)
    ]
    assert wrong == []


#: A class of one implementation of a part that processes share (the broker, presence records,
#: attendance, the quick-game queue): in memory or in Redis.
_IMPLEMENTATION = re.compile(r"(Memory|Redis)[A-Z]\w*")


def _names(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Every name the code of ``tree`` uses, imports or defines (docstrings and comments
    aside), with its line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.id, node.lineno
        elif isinstance(node, ast.Attribute):
            yield node.attr, node.lineno
        elif isinstance(node, ast.ImportFrom):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ClassDef):
            yield node.name, node.lineno


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def test_only_the_cluster_and_the_composition_root_name_a_redis_implementation() -> None:
    """Each shared part is a Protocol with an in-memory and a Redis implementation; the Redis
    ones live in kva.service.cluster and kva.platform picks one of each. Any other module of
    the services or the web tier depends on the protocol alone, so it works the same in one
    process and in several."""
    wrong = [
        f"{name}:{line} names {used}"
        for name, path in MODULES.items()
        if _in(name, "kva.service", "kva.web") and not _in(name, "kva.service.cluster")
        for used, line in _names(_tree(path))
        if used.startswith("Redis") and _IMPLEMENTATION.fullmatch(used)
    ]
    assert wrong == []


def test_no_service_asks_which_implementation_it_was_given() -> None:
    """No ``isinstance`` or ``issubclass`` against an in-memory or Redis implementation in the
    services or the web tier: what differs between them is behind their protocol (the
    broker's ``url`` says whether other processes share it)."""
    wrong = [
        f"{name}:{node.lineno}"
        for name, path in MODULES.items() if _in(name, "kva.service", "kva.web")
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2
        and any(_IMPLEMENTATION.fullmatch(used) for used, _line in _names(node.args[1]))
    ]
    assert wrong == []
