"""`gomoku play` fits 80x25 as README says: no line wider than 80 columns, nothing scrolled off.

The engine's line was 86 columns (`classical played g8 (6,7) in 0.99 s, depth 13, score -789
for classical, 799.1k nodes`) and wrapped; the layout counted it as one row, so on 18x18 after
`hint` the title scrolled off and on 20x20 the top ruler did. Two checks: the screen the session
draws on an 80x25 console with the longest lines a search gives (fixed figures, no clock), and
the real command in an 80x25 pseudo-terminal after `hint` and an engine move."""
from __future__ import annotations

import io

import pytest
from rich.console import Console

from gomoku.engine.game.rules import Rule
from gomoku.engine.base.limits import PlayResult, SearchInfo
from gomoku.engine.match.players import parse_spec
from gomoku.tools import render
from gomoku.tools.play_two import TwoPlayerSession
from play_pty import ANSI, finish, spawn_play, wait

#: what a 1 s search on this machine says (the issue's figures)
LONG_INFO = {"depth": 13, "score": -789, "nodes": 799_123}
X = "Your move (X)>"


def drawn(size: int, monkeypatch, message: str = "") -> tuple[list[str], list[str], TwoPlayerSession]:
    """The screen lines (without the prompt's row) of a game on size x size at 80x25 after an
    engine move and a hint, both with LONG_INFO; and the board's own lines."""
    console = Console(width=80, height=25, record=True, color_system=None, file=io.StringIO())
    s = TwoPlayerSession(console=console, width=size, height=size, rule=Rule.FREESTYLE, move_time=1.0,
                         save_path=None, spec=parse_spec("classical"))
    s.new_game()
    s.messages = []
    for move in ((7, 7), (6, 7), (8, 8)):
        s.board.play(*move)
    s.engine_lines = [s.engine_line(1, (6, 7), 0.99, LONG_INFO)]
    import gomoku.engine.player.agent as agent
    monkeypatch.setattr(agent, "think", lambda board, limit, stop=None: PlayResult((9, 9), SearchInfo.of(LONG_INFO)))
    s.show_hint()                         # the real hint command, its search answered at once
    if message:
        s.messages.append(message)
    console.export_text()                 # drop the "Looking for a hint" line: the screen is cleared
    s.draw_game()
    lines = console.export_text().rstrip("\n").split("\n")
    board = Console(width=80, record=True, color_system=None, file=io.StringIO())
    board.print(render.render_board(s.board, hint=s.hint))
    return lines, board.export_text().rstrip("\n").split("\n"), s


def test_the_engine_line_fits_80_columns_and_keeps_depth_score_and_nodes(monkeypatch):
    _, _, s = drawn(15, monkeypatch)
    line = ANSI.sub("", s.engine_lines[0]).replace("[bold]", "").replace("[/bold]", "")
    assert line == "classical played g8 (6,7) in 0.99 s, depth 13, its score -789, 799k nodes"
    assert len(line) <= 80


@pytest.mark.parametrize("size", [15, 18, 20, 22])
def test_the_screen_fits_80x25_after_a_hint_and_a_long_engine_line(size, monkeypatch):
    lines, board, s = drawn(size, monkeypatch)
    assert len(lines) <= 24 and max(len(ln) for ln in lines) <= 80, "\n".join(lines)
    start = lines.index(board[0])                          # the top ruler is on screen ...
    assert lines[start:start + len(board)] == board       # ... and the whole board below it
    text = "\n".join(lines)
    if size <= 18:                                         # README: everything up to 18x18
        assert lines[0].startswith(f"gomoku freestyle {size}x{size}  you: X black  vs classical")
        assert "Move 4, O white (engine to move); last: i9 (8,8)" in text
        assert "classical played g8 (6,7) in 0.99 s, depth 13, its score -789, 799k nodes" in text
    else:                                                  # the game and the opponent on the status line
        assert lines[start + len(board)].startswith(f"freestyle {size}x{size} vs classical: Move 4") or size == 22
    assert "Hint: j10 (9,9) (marked *, " in text and "depth 13, your score -789, 799k nodes)" in text


def test_a_line_too_long_for_the_rows_left_is_cut_not_scrolled(monkeypatch):
    long = "Unknown command 'paly'. " + "word " * 40
    lines, board, _ = drawn(22, monkeypatch, message=long)
    assert len(lines) <= 24 and max(len(ln) for ln in lines) <= 80, "\n".join(lines)
    assert lines[0] == board[0]
    lines, board, _ = drawn(15, monkeypatch, message=long)
    assert len(lines) <= 24 and lines[0].startswith("gomoku freestyle 15x15")
    assert any(ln.startswith("Unknown command 'paly'.") for ln in lines)


@pytest.mark.process
def test_play_in_an_80x25_terminal_after_hint(tmp_path):
    """The real command on 15, 18, 20 and 22: a node-bounded opponent (its line has depth, score
    and nodes), a hint; every screen fits 80x25."""
    for size in ("15", "18", "20", "22"):
        folder = tmp_path / size
        folder.mkdir()
        child = spawn_play(["--size", size, "--opponent", "classical:nodes=20000", "--hint-time", "0.2"],
                           folder, 25, 80, 60)
        wait(child, X, 120)
        for command in ("h8", "hint"):
            child.sendline(command)
            child.expect_exact(X)
            screen = ANSI.sub("", (child.before + child.after).split("\x1b[2J")[-1]).replace("\r", "")
            lines = screen.split("\n")
            assert len(lines) <= 25 and max(len(ln) for ln in lines) <= 80, screen
            if int(size) <= 18:
                assert lines[0].startswith(f"gomoku freestyle {size}x{size}"), screen
            assert "a  b  c  d" in screen, screen                  # the letter ruler is on screen
        assert "Hint:" in screen or int(size) >= 20, screen
        child.sendline("quit")
        finish(child)
