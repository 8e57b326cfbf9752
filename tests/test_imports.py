"""Dependencies point one way: tools -> train -> protocol -> engine, and inside the engine
match -> agent -> search -> game. Every import statement of every module is read (those inside
functions too: a late import is still an arrow), so an arrow back up fails here, not in a
review."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ("engine", "protocol", "train", "tools")

# room (dotted, below gomoku.) -> rooms it must never import
FORBIDDEN = {
    "engine": ("protocol", "train", "tools"),
    "protocol": ("train", "tools"),
    "train": ("tools",),
    "engine.game": ("engine.search", "engine.match", "engine.agent", "engine.timeman", "engine.warmup"),
    "engine.search": ("engine.match", "engine.agent", "engine.warmup"),
}


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


def _imports(name: str, path: Path) -> list[tuple[int, str]]:
    """(line, absolute dotted name) of everything the module imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.append((node.lineno, mod))
            found += [(node.lineno, f"{mod}.{a.name}") for a in node.names]
    return found


def _under(name: str, room: str) -> bool:
    full = "gomoku." + room
    return name == full or name.startswith(full + ".")


def test_the_walk_sees_every_room():
    names = {n for n, _ in _modules()}
    for mod in ("gomoku.engine.game.core", "gomoku.engine.search.alphabeta", "gomoku.engine.match.arena",
                "gomoku.protocol.brain", "gomoku.tools.cli"):
        assert mod in names


@pytest.mark.parametrize("name,path", _modules(), ids=lambda v: v if isinstance(v, str) else "")
def test_no_arrow_points_back_up(name: str, path: Path):
    bad = []
    for line, imported in _imports(name, path):
        if imported.split(".")[0] in ROOMS or imported == "engine":
            bad.append(f"{path.relative_to(ROOT)}:{line} imports {imported} (use gomoku.{imported})")
            continue
        if _under(imported, "tools") and not _under(name, "tools"):
            bad.append(f"{path.relative_to(ROOT)}:{line} imports {imported}: nothing imports tools")
        for room, never in FORBIDDEN.items():
            if _under(name, room):
                bad += [f"{path.relative_to(ROOT)}:{line} ({room}) imports {imported}"
                        for up in never if _under(imported, up)]
    assert not bad, "\n".join(bad)


def test_the_walk_catches_an_arrow(tmp_path):
    """The checker itself: a late import from engine into protocol is found."""
    bad = tmp_path / "x.py"
    bad.write_text("def f():\n    from gomoku.protocol.client import BrainClient\n")
    assert (2, "gomoku.protocol.client") in _imports("gomoku.engine.match.x", bad)
    rel = tmp_path / "y.py"
    rel.write_text("from ..search import alphabeta\n")
    assert (1, "gomoku.engine.search.alphabeta") in _imports("gomoku.engine.game.y", rel)
