"""The brain with an ADP critic (`gomoku brain --net CRITIC.onnx`): the critic one ply deep on
the game it was trained for (it takes a five on offer), the classical engine on other boards.
The real session and EngineLoader in this process (protocol_script)."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import pytest

from conftest import MOVE_RE
from protocol_script import Script, real_loader

torch = pytest.importorskip("torch")

from gomoku.engine.net.metadata import NetInfo  # noqa: E402
from gomoku.train.adp import Critic, export_critic  # noqa: E402

@pytest.fixture(scope="module")
def critic(tmp_path_factory) -> str:
    torch.manual_seed(5)
    info = NetInfo(players=2, win_length=5, rules=["freestyle"], board_sizes=[15], arch="adp-f30-h8",
                   value_head="critic", planes=["features30"])
    path = str(tmp_path_factory.mktemp("critic") / "adp.onnx")
    export_critic(Critic(30, [8]), path, info)
    return path


@contextmanager
def _warm_brain(critic: str, size: int, turn_ms: int) -> Iterator[Script]:
    """The session with the critic loaded, started on a `size` board, its clock set."""
    with Script(loader=real_loader(net=critic), turn_ms=turn_ms) as b:
        b.send(f"START {size}", "INFO max_depth 4")
        assert b.line() == "OK"
        b.send(f"INFO timeout_turn {turn_ms}")
        yield b


def _reply(b: Script) -> tuple[str, list[str]]:
    messages = []
    reply = b.line()
    while reply.startswith("MESSAGE"):
        messages.append(reply)
        reply = b.line()
    return reply, messages


def test_the_brain_plays_the_critic_one_ply_deep_and_says_so(critic):
    with _warm_brain(critic, 15, 1000) as b:
        played, messages = set(), []
        for x, y in [(7, 7), (8, 8), (6, 9), (9, 5)]:
            b.send(f"TURN {x},{y}")
            played.add((x, y))
            reply, said = _reply(b)
            messages += said
            assert MOVE_RE.match(reply), reply
            mv = tuple(int(v) for v in reply.split(","))
            assert mv not in played and all(0 <= v < 15 for v in mv)
            played.add(mv)
        # the brain (black here, to move) has four on row 3 (x 1..4) and x 5 is free: it takes the five
        b.send("BOARD", "1,3,1", "10,10,2", "2,3,1", "11,11,2", "3,3,1", "12,10,2", "4,3,1", "0,3,2", "DONE")
        reply, _ = _reply(b)
        assert reply == "5,3"
        b.send("ABOUT")
        about = b.line()
        b.end()
    assert 'searcher="ADP critic adp-f30-h8, one ply on 15x15 freestyle' in about
    assert any(m.startswith("MESSAGE ADP critic adp-f30-h8, one ply depth 1") for m in messages), messages
    assert real_loader(net=critic).net_info is not None      # the net loaded


def test_the_brain_plays_the_classical_engine_where_the_critic_has_no_claim(critic):
    with _warm_brain(critic, 12, 2000) as b:
        b.send("BOARD", "5,5,2", "6,6,1", "4,6,2", "DONE")
        reply, messages = _reply(b)
        assert MOVE_RE.match(reply), reply
        b.end()
    # the manager hears why, in one line (the search's own MESSAGE follows when it finished an iteration)
    assert any("trained on 15x15); this game is freestyle 12x12: playing the classical engine" in m
               for m in messages), messages
