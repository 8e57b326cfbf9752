"""`pbrain-gomoku --net` / `--eval` with a file trained for another game: the
brain keeps its documented fallback (the classical engine plays) and tells the manager, in one
MESSAGE line before its move, what the net is and what the game is; never a crash or traceback.
The real session and EngineLoader in this process (protocol_script)."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import MOVE_RE
from gomoku.protocol.engine_loader import EngineLoader
from gomoku.protocol.options import parse_brain_args
from protocol_script import Script, real_loader
WEIGHTS = Path(__file__).resolve().parent.parent / "weights"
NET15 = str(WEIGHTS / "15x15k5-b4c32.onnx")       # freestyle, 15x15 only
NET3P = str(WEIGHTS / "3p-8x8k4-cnn3.onnx")       # three players, four in a row, 8x8

RENJU_NOTICE = ("MESSAGE net 15x15k5-b4c32.onnx is a freestyle net (two players, five in a row, trained "
                "on 15x15); this game is renju 15x15: playing the classical engine")


def _reply(b: Script, *lines: str) -> tuple[list[str], tuple[int, int]]:
    """Send `lines`; the MESSAGE lines before the move, and the move."""
    if lines:
        b.send(*lines)
    messages = []
    text = b.line(30)
    while text.startswith("MESSAGE "):
        messages.append(text)
        text = b.line(30)
    assert MOVE_RE.match(text), (lines, messages, text)
    x, y = map(int, text.split(","))
    return messages, (x, y)


def _notices(messages: list[str]) -> list[str]:
    return [m for m in messages if " is a " in m or " did not load " in m]


def test_a_wrong_rule_net_is_told_once_then_the_classical_engine_plays(capsys) -> None:
    with Script(loader=real_loader(net=NET15, fresh=True)) as b:
        b.send("START 15")
        assert b.line() == "OK"
        b.send("INFO rule 4", "INFO timeout_turn 300", "INFO max_depth 4")
        messages, first = _reply(b, "BEGIN")
        assert messages[:1] == [RENJU_NOTICE], messages
        messages, _ = _reply(b, "TURN 8,8" if first != (8, 8) else "TURN 6,6")
        assert _notices(messages) == [], messages           # once per game, not once per move
        assert all(m.startswith("MESSAGE classical ") for m in messages), messages
        # the rule switched back: the net plays, and nothing is said about it
        b.send("INFO rule 0", "START 15")
        assert b.line() == "OK"
        messages, _ = _reply(b, "BEGIN")
        assert _notices(messages) == [], messages
        # a board the net was not trained on
        b.send("START 20")
        assert b.line() == "OK"
        messages, _ = _reply(b, "BEGIN")
        assert _notices(messages) == [
            "MESSAGE net 15x15k5-b4c32.onnx is a freestyle net (two players, five in a row, trained on "
            "15x15); this game is freestyle 20x20: playing the classical engine"], messages
        b.end()
    assert "Traceback" not in capsys.readouterr().err


def test_the_notice_comes_with_a_move_asked_for_while_the_net_loads() -> None:
    """c-gomoku-cli and GomocupJudge ask for a move right after START, often before the net has
    loaded: the notice then goes with that move if the search got the engine, else the next."""
    loader = EngineLoader(warmup=False, net=NET15)          # not loaded yet when BEGIN comes
    with Script(loader=loader) as b:
        b.send("START 15", "INFO rule 4", "INFO timeout_turn 300", "INFO max_depth 4", "BEGIN")
        assert b.line() == "OK"
        loader.start()
        said: list[str] = []
        messages, first = _reply(b)
        said += _notices(messages)
        assert loader.finished.wait(120) and loader.ready.is_set()   # the next move has the net
        messages, _ = _reply(b, "TURN 8,8" if first != (8, 8) else "TURN 6,6")
        said += _notices(messages)
        assert said == [RENJU_NOTICE]
        b.end()


def test_a_three_player_net_is_named_as_one_and_the_classical_engine_plays() -> None:
    with Script(loader=real_loader(net=NET3P)) as b:
        b.send("START 8", "INFO max_depth 4")
        assert b.line() == "OK"
        messages, _ = _reply(b, "BEGIN")
        assert messages[:1] == [
            "MESSAGE net 3p-8x8k4-cnn3.onnx is a freestyle net (three players, four in a row, trained on 8x8); "
            "this game is freestyle 8x8, two players, five in a row: playing the classical engine"], messages
        b.send("ABOUT")
        about = b.line()
        b.end()
    # ABOUT no longer claims that the net plays 8x8 freestyle
    assert 'searcher="classical alpha-beta + VCF/VCT; net 3p-8x8k4-cnn3.onnx not used: a freestyle net ' \
        '(three players, four in a row, trained on 8x8)"' in about, about


def test_a_net_named_by_the_environment_that_does_not_load_is_told(tmp_path: Path, monkeypatch) -> None:
    """GOMOKU_NET is --net's default, but unlike --net its file is not checked before the first
    game: the loader tries it, the classical engine plays, a MESSAGE says why."""
    missing = tmp_path / "gone.onnx"
    monkeypatch.setenv("GOMOKU_NET", str(missing))
    options = parse_brain_args([])                          # the net named by the environment
    assert options.net == str(missing) and "--net" not in options.named
    with Script(options=options) as b:
        assert b.session.refusal is None and b.loader.net_path == str(missing)
        b.send("START 15", "INFO timeout_turn 300", "INFO max_depth 4")
        assert b.line() == "OK"
        said = []
        for move in ("TURN 7,7", "TURN 3,3"):
            messages, _ = _reply(b, move)
            said += _notices(messages)
        b.end()
    assert said == [f"MESSAGE net gone.onnx did not load (ONNX file not found: {missing}): "
                    "playing the classical engine"], said


def test_an_evaluator_of_another_rule_is_told_and_the_tables_play(tmp_path: Path, capsys) -> None:
    pytest.importorskip("torch")
    from gomoku.engine.search.learned_file import save_evaluator
    from gomoku.train.models import build_model
    model = build_model("mix8", 2, "renju")
    path = tmp_path / "r.eval.npz"
    save_evaluator(path, model.evaluator_weights(), model.arch, "renju")
    with Script(loader=real_loader(evaluator=str(path), fresh=True)) as b:
        b.send("START 15", "INFO timeout_turn 300", "INFO max_depth 4")
        assert b.line() == "OK"
        messages, _ = _reply(b, "BEGIN")
        assert _notices(messages) == [
            "MESSAGE evaluator r.eval.npz is a renju evaluator (mix8, any board size); this game is "
            "freestyle 15x15: playing the alpha-beta with its tables"], messages
        b.send("INFO rule 4", "START 15")             # its own rule: nothing to say
        assert b.line() == "OK"
        messages, _ = _reply(b, "BEGIN")
        assert _notices(messages) == [], messages
        b.end()
    assert "Traceback" not in capsys.readouterr().err
