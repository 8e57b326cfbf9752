"""Dependencies point one way, room by room, and no two modules need each other.

The rooms, lowest first: engine.base (file writes, the numba cache, processes, Ctrl-C, the
limits and clocks every player speaks), engine.game (boards and rules), then engine.search
(alpha-beta, threats) and engine.net (running an ONNX net), engine.mcts (tree search over a net
or rollouts), engine.player (the classical player, the warm-up, the game review), engine.match
(players, referees, statistics), and beside them engine.fit (fitting the evaluation tables
offline, which nothing that plays imports); above the engine, protocol (the Piskvork brain), weights (the
shipped nets and their manifest), train (torch), and tools (the CLI), which nothing imports.
The engine's top folder holds only those rooms, one package per layer.

Every import statement of every module is read, those inside functions too: a late import
still runs whenever its function does, so the two modules still need each other to work and
cannot be read or tested apart (the engine.net metadata/evaluator tangle was one such late
import). Imports under `if TYPE_CHECKING:` count as well; they never run, but a type that
must come from a room above is the same arrow pointing back up.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ("engine", "protocol", "train", "tools", "weights")

#: the rooms inside the engine, lowest first, each with a rule below
ENGINE_ROOMS = ("engine.base", "engine.game", "engine.search", "engine.net", "engine.mcts", "engine.player",
                "engine.match", "engine.fit")

#: what runs on a brain or in `gomoku play` with the base install: never the trainer's
#: packages (torch, the onnx writer, safetensors, ray, matplotlib) nor the CLI's (click, rich)
TRAINER_PACKAGES = ("torch", "onnx", "safetensors", "ray", "matplotlib")
CLI_PACKAGES = ("click", "rich")

#: module prefix (below gomoku., or a third-party package) -> what it must never import.
#: A module obeys every rule whose prefix it is under (engine.game.board: "engine" and
#: "engine.game").
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "engine": ("protocol", "train", "tools", "weights") + TRAINER_PACKAGES + CLI_PACKAGES,
    "engine.base": ("engine.game", "engine.search", "engine.net", "engine.mcts", "engine.player",
                    "engine.match", "engine.fit"),
    "engine.base.limits": ("engine.base.timeman",),          # the vocabulary; timeman turns it into deadlines
    "engine.base.fileio": ("engine",),
    "engine.base.numba_cache": ("engine",),
    "engine.base.processes": ("engine",),
    "engine.base.interrupt": ("engine",),                    # Ctrl-C as a stop: below every room that searches
    "engine.game": ("engine.search", "engine.net", "engine.mcts", "engine.player", "engine.match",
                    "engine.base.limits", "engine.base.timeman", "engine.fit"),
    "engine.search": ("engine.net", "engine.mcts", "engine.player", "engine.match", "engine.fit"),
    "engine.net": ("engine.search", "engine.mcts", "engine.player", "engine.match", "engine.fit"),
    "engine.mcts": ("engine.player", "engine.match", "engine.fit"),
    "engine.player": ("engine.match", "engine.fit"),         # the match runner plays the player, not back
    "engine.player.agent": ("engine.player.warmup", "engine.player.review"),
    "engine.player.review": ("engine.mcts", "engine.net", "engine.player.warmup"),   # the agent's search over a record
    "engine.player.warmup": (),                              # the brain's compile step: may touch every room below match
    "engine.match": ("engine.player.warmup", "engine.fit"),
    # fitting the evaluation offline: above the search it fits, below nothing that plays
    "engine.fit": ("engine.net", "engine.mcts", "engine.player", "engine.match"),
    "protocol": ("train", "tools", "weights") + TRAINER_PACKAGES + CLI_PACKAGES,
    "weights": ("protocol", "train", "tools") + TRAINER_PACKAGES + CLI_PACKAGES,
    "train": ("tools",),
    "tools": (),                          # anything; but see TOP_LEVEL_FORBIDDEN, and nothing imports tools
}

#: prefix -> what it may import only inside a function: `gomoku --help`, play and match must
#: start on the base install, and the trainer's packages come with the train extra
TOP_LEVEL_FORBIDDEN: dict[str, tuple[str, ...]] = {
    "tools": ("train",) + TRAINER_PACKAGES,
}

#: (importer, imported) arrows that break a rule today, each with what removes it
KNOWN_ARROWS: set[tuple[str, str]] = set()

#: import cycles between modules that exist today, each with what removes it
KNOWN_CYCLES: list[set[str]] = []


def _modules() -> list[tuple[str, Path]]:
    out = []
    for room in ROOMS:
        for py in sorted((ROOT / room).rglob("*.py")):
            rel = py.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            out.append(("gomoku." + ".".join(parts), py))
    return out


MODULES = dict(_modules())


def _imports(name: str, path: Path) -> list[tuple[int, str, bool]]:
    """(line, absolute dotted name, at module level) of everything the module imports; for
    `from a import b` both a and a.b, since b may be a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: list[tuple[int, str, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend((child.lineno, a.name, top) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[:len(base) - child.level + 1]
                    mod = ".".join(base + ([child.module] if child.module else []))
                else:
                    mod = child.module or ""
                found.append((child.lineno, mod, top))
                found.extend((child.lineno, f"{mod}.{a.name}", top) for a in child.names)
            else:
                inner = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                visit(child, top and not inner)

    visit(tree, True)
    return found


def _under(name: str, prefix: str) -> bool:
    """Is the dotted `name` the module `prefix` or below it? Rooms are spelled without
    `gomoku.`; anything else (torch, click) is a third-party package."""
    full = "gomoku." + prefix if prefix.split(".")[0] in ROOMS else prefix
    return name == full or name.startswith(full + ".")


def _module_of(imported: str) -> str | None:
    """The project module an imported name lives in (`gomoku.engine.base.limits.Limit` ->
    `gomoku.engine.base.limits`), or None outside the project."""
    while imported not in MODULES:
        if "." not in imported:
            return None
        imported = imported.rsplit(".", 1)[0]
    return imported


def _graph() -> dict[str, set[str]]:
    """module -> the project modules it imports (at any level). Importing a.b also runs
    package a's __init__, but no edge is drawn to it: the packages' __init__ files import
    nothing of the project, which `test_packages_import_nothing_of_the_project` holds."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets = {_module_of(imported) for _, imported, _ in _imports(name, path)}
        graph[name] = {t for t in targets if t is not None and t != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(comp)
    return found


def test_the_walk_sees_every_room():
    names = set(MODULES)
    for mod in ("gomoku.engine.game.core", "gomoku.engine.search.alphabeta", "gomoku.engine.match.arena",
                "gomoku.engine.mcts.search", "gomoku.engine.net.evaluator", "gomoku.protocol.brain",
                "gomoku.train.loop", "gomoku.tools.cli", "gomoku.weights.manifest"):
        assert mod in names


def test_every_module_has_a_rule():
    """A new room, or a new module at the engine's top, gets a rule before it gets code."""
    for room in ROOMS + ENGINE_ROOMS:
        assert room in FORBIDDEN, room
    for name in MODULES:
        inner = name.split(".")[:3]
        room = ".".join(inner[1:3]) if inner[1] == "engine" and len(inner) > 2 else inner[1]
        assert room in FORBIDDEN, f"{name}: no rule for {room}"


def test_packages_import_nothing_of_the_project():
    bad = [f"{path.relative_to(ROOT)} imports {imported}" for name, path in MODULES.items()
           if path.name == "__init__.py" for _, imported, _ in _imports(name, path)
           if _module_of(imported) is not None]
    assert not bad, "\n".join(bad)


def _violations(name: str, path: Path) -> list[str]:
    """Every rule the module's imports break, one line each."""
    bad = []
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    for line, imported, top in _imports(name, path):
        where = f"{shown}:{line}"
        if imported.split(".")[0] in ROOMS:
            bad.append(f"{where} imports {imported} (use gomoku.{imported})")
            continue
        if _under(imported, "tools") and not _under(name, "tools"):
            bad.append(f"{where} imports {imported}: nothing imports tools")
        if (name, _module_of(imported)) in KNOWN_ARROWS:
            continue
        for room, never in FORBIDDEN.items():
            if _under(name, room):
                bad += [f"{where} ({room}) imports {imported}" for up in never if _under(imported, up)]
        for room, late in TOP_LEVEL_FORBIDDEN.items():
            if top and _under(name, room):
                bad += [f"{where} ({room}) imports {imported} at module level; only inside a function"
                        for up in late if _under(imported, up)]
    return bad


@pytest.mark.parametrize("name,path", _modules(), ids=lambda v: v if isinstance(v, str) else "")
def test_no_arrow_points_back_up(name: str, path: Path):
    bad = _violations(name, path)
    assert not bad, "\n".join(bad)


def test_the_known_arrows_still_exist():
    """A known arrow that is gone leaves the list, so it cannot hide a new one."""
    graph = _graph()
    assert [a for a in KNOWN_ARROWS if a[1] not in graph.get(a[0], ())] == []


def test_no_import_cycles():
    cycles = _cycles(_graph())
    new = [sorted(c) for c in cycles if c not in KNOWN_CYCLES]
    assert not new, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in new)
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in cycles]
    assert not gone, f"no longer cycles (drop them from KNOWN_CYCLES): {gone}"


def _room_of(name: str) -> str:
    """The room a module lives in: its engine sub-package (gomoku.engine.search), or the
    top-level room (gomoku.protocol) outside the engine."""
    parts = name.split(".")
    return ".".join(parts[:3] if parts[1] == "engine" and len(parts) > 2 else parts[:2])


def _room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph collapsed to rooms: room -> the other rooms its modules import."""
    rooms: dict[str, set[str]] = {}
    for name, targets in graph.items():
        rooms.setdefault(_room_of(name), set()).update(_room_of(t) for t in targets)
    return {room: targets - {room} for room, targets in rooms.items()}


def test_no_cycle_between_rooms():
    """Modules may be acyclic while their packages are not (a base module beside the player
    that imports the game, which imports that base module): each room, the engine's
    sub-packages included, stays below or above each other, never both."""
    cycles = _cycles(_room_graph(_graph()))
    assert not cycles, "cycles between rooms:\n" + "\n".join(" <-> ".join(sorted(c)) for c in cycles)


def test_the_engine_top_holds_only_rooms():
    """No module beside the engine's rooms: each one lives in the package of its layer."""
    loose = [n for n in MODULES if n.startswith("gomoku.engine.") and n.count(".") == 2
             and n.split(".", 1)[1] not in ENGINE_ROOMS]
    assert loose == []
    assert {n.split(".", 1)[1] for n in MODULES if n.startswith("gomoku.engine.") and n.count(".") == 2} \
        == set(ENGINE_ROOMS)


def test_the_room_graph_collapses_modules():
    graph = {"gomoku.engine.game.a": {"gomoku.engine.base.x"}, "gomoku.engine.base.x": {"gomoku.engine.game.b"},
             "gomoku.engine.game.b": set(), "gomoku.protocol.brain": {"gomoku.engine.game.a"}}
    assert _cycles(_room_graph(graph)) == [{"gomoku.engine.base", "gomoku.engine.game"}]
    assert _room_of("gomoku.engine") == "gomoku.engine" and _room_of("gomoku.tools.studies.x") == "gomoku.tools"


def test_the_walk_catches_an_arrow(tmp_path):
    """The checker itself: a late import from engine into protocol is found, and so is a
    relative one."""
    bad = tmp_path / "x.py"
    bad.write_text("def f():\n    from gomoku.protocol.client import BrainClient\n")
    assert (2, "gomoku.protocol.client", False) in _imports("gomoku.engine.match.x", bad)
    rel = tmp_path / "y.py"
    rel.write_text("from ..search import alphabeta\n")
    assert (1, "gomoku.engine.search.alphabeta", True) in _imports("gomoku.engine.game.y", rel)
    assert _under("torch.nn", "torch") and _under("gomoku.engine.net.planes", "engine.net")
    assert not _under("gomoku.engine.netx", "engine.net")


def test_the_rules_catch_torch_in_the_engine_and_a_module_level_trainer_import_in_tools(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import numpy\ndef f():\n    import torch\n")
    assert _violations("gomoku.engine.search.m", src) == [f"{src}:3 (engine) imports torch"]
    assert _violations("gomoku.tools.m", src) == []
    src.write_text("from gomoku.train.loop import TrainingRun\n")
    assert len(_violations("gomoku.tools.m", src)) == 2        # the module and its name
    assert _violations("gomoku.engine.mcts.m", tmp_path / "m.py") != []


def test_the_cycle_finder_finds_a_late_cycle_and_no_false_one():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert _cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    assert _module_of("gomoku.engine.base.limits.Limit") == "gomoku.engine.base.limits"
    assert _module_of("numpy.linalg") is None


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every project module that importing `start` can load, late imports included."""
    seen, todo = {start}, [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_mcts_player_never_loads_the_classical_agent():
    """The agent imports the MCTS player (it can play either); the player takes its time budget
    from engine.base.timeman. Nothing the player can import, at any depth and inside any function,
    is the agent, so playing MCTS under a clock never loads the classical engine."""
    reached = _reach(_graph(), "gomoku.engine.mcts.player")
    assert "gomoku.engine.base.timeman" in reached
    assert "gomoku.engine.player.agent" not in reached
