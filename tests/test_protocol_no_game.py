"""A refused START or RECTSTART ends the previous game: every game command answers one ERROR
line until a valid START/RECTSTART (a `TURN 3,3` after `START 0` was once played on
the old board). The real session in this process (protocol_script)."""
from __future__ import annotations

import pytest

from conftest import MOVE_RE
from protocol_script import Script

#: Every command that acts on the game's board, each with its data lines where it has some.
GAME_COMMANDS = [
    ("TURN 3,3",),
    ("BEGIN",),
    ("BOARD", "7,7,1", "8,8,2", "DONE"),
    ("YXBOARD", "7,7,1", "DONE"),
    ("SWAP2BOARD", "DONE"),
    ("SWAP2BOARD", "7,7", "8,8", "9,9", "DONE"),
    ("RESTART",),
    ("TAKEBACK 7,7",),
    ("PLAY 3,3",),
]


def _refused_everything(b: Script, refused: str) -> None:
    for lines in GAME_COMMANDS:
        b.send(*lines)
        reply = b.line()
        assert reply.startswith("ERROR ") and f"{refused} was refused" in reply, (lines, reply)
        b.silent()                        # one line, nothing after it (no move, no traceback)


@pytest.mark.parametrize("bad_start, refused", [
    ("START 0", "START 0"), ("START 99", "START 99"), ("START", "START"), ("START abc", "START abc"),
    ("RECTSTART 30,20", "RECTSTART 30,20"), ("RECTSTART 20", "RECTSTART 20"),
])
def test_a_refused_start_drops_the_previous_game(bad_start: str, refused: str) -> None:
    with Script() as b:
        b.send("INFO max_depth 4", "START 15")
        assert b.line() == "OK"
        b.send("TURN 7,7")
        b.move(size=(15, 15))
        b.send(bad_start)
        reply = b.line()
        assert reply.startswith("ERROR ") and "Traceback" not in reply, reply
        _refused_everything(b, refused)
        b.send("YXSHOWFORBID")            # Yixin-Board waits for its FORBID line: still answered
        assert b.line() == "FORBID ."
        b.send("START 15")                # a valid START: a new, empty game
        assert b.line() == "OK"
        b.send("TURN 7,7")                # 7,7 was taken in the old game; here it is free
        assert b.move(size=(15, 15)) != (7, 7)
        b.end()


def test_a_refused_rectstart_after_a_game_then_a_valid_rectstart() -> None:
    with Script() as b:
        b.send("INFO max_depth 4", "RECTSTART 20,12")
        assert b.line() == "OK"
        b.send("BEGIN")
        b.move(size=(20, 12))
        b.send("RECTSTART 4,30")
        assert b.line().startswith("ERROR ")
        b.send("TURN 19,11")
        reply = b.line()
        assert reply == ("ERROR TURN without a game: RECTSTART 4,30 was refused; "
                         "send START or RECTSTART with a supported size"), reply
        b.send("RECTSTART 12,20")
        assert b.line() == "OK"
        b.send("BEGIN")                   # the board is empty again: BEGIN is legal
        b.move(size=(12, 20))
        b.end()


def test_game_commands_before_any_start_still_say_so() -> None:
    with Script() as b:
        b.send("INFO max_depth 4", "TURN 3,3")
        assert b.line() == "ERROR TURN before START"
        b.send("RESTART")
        assert b.line() == "ERROR RESTART before START"
        b.send("START 15")
        assert b.line() == "OK"
        b.send("RESTART")
        assert b.line() == "OK"
        b.send("BEGIN")
        assert MOVE_RE.match(b.answer())
        b.end()
