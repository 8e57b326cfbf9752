"""The brain's options are parsed once (protocol/options.py) and handed down as arguments: the
environment gives only their defaults, a value on the command line wins, and nothing below
the parse reads the brain's variables or writes the environment.

The parse is pure (an explicit environment in, `BrainArgs` out); the set-up is the process's
own (`brain.start_session`, through protocol_script's `Script(options=...)`), in this process;
the last test reads the source of protocol/ and engine/ for environment access."""
from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from gomoku.engine.base.timeman import DEFAULT_TURN_MS
from gomoku.protocol.options import OPTIONS, BrainArgs, BrainUsageError, parse_brain_args
from protocol_script import Script

ROOT = Path(__file__).resolve().parent.parent
ENV = {"GOMOKU_NET": "env.onnx", "GOMOKU_EVAL": "env.eval.npz", "GOMOKU_EVAL_SHARE": "70",
       "GOMOKU_BRAIN_LOG": "env.log", "GOMOKU_TURN_MS": "900"}


def _settings(o: BrainArgs) -> tuple:
    return o.net, o.evaluator, o.share, o.log, o.turn_ms


def test_each_variable_is_its_option_s_default_and_the_command_line_wins(tmp_path) -> None:
    assert {o.env for o in OPTIONS if o.env} == set(ENV)
    from_env = parse_brain_args([], ENV)
    assert _settings(from_env) == ("env.onnx", "env.eval.npz", 70, "env.log", 900)
    assert from_env.named == frozenset() and dict(from_env.env_problems) == {}
    log = str(tmp_path / "line.log")
    line = ["--net", "a.onnx", "--eval", "a.eval.npz", "--share", "30", "--log", log, "--turn-ms", "200"]
    given = parse_brain_args(line, ENV)
    assert _settings(given) == ("a.onnx", "a.eval.npz", 30, log, 200)
    assert given.named == {"--net", "--eval", "--share", "--log", "--turn-ms"}
    assert _settings(parse_brain_args(["--turn-ms", "0"], ENV))[4] == 0             # one option, the rest from ENV
    assert _settings(parse_brain_args(["--turn-ms", "0"], ENV))[:4] == _settings(from_env)[:4]
    assert parse_brain_args([], {}) == BrainArgs() == parse_brain_args([], {k: "" for k in ENV})  # empty: unset
    assert BrainArgs().turn_ms == DEFAULT_TURN_MS and BrainArgs().share is None


def test_the_parse_reads_this_process_s_environment_and_writes_nothing(monkeypatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOMOKU_TURN_MS", "750")
    monkeypatch.setenv("GOMOKU_EVAL_SHARE", "40")
    before = dict(os.environ)
    assert parse_brain_args([]).turn_ms == 750
    parsed = parse_brain_args(["--eval", "f.eval.npz", "--share", "10", "--turn-ms", "20"])
    assert (parsed.share, parsed.turn_ms) == (10, 20)
    assert dict(os.environ) == before


def test_a_bad_variable_is_noted_and_its_default_plays_a_bad_option_is_a_usage_error() -> None:
    env = {"GOMOKU_TURN_MS": "soon", "GOMOKU_EVAL_SHARE": "150", "GOMOKU_EVAL": "f.eval.npz"}
    parsed = parse_brain_args([], env)
    assert (parsed.turn_ms, parsed.share, parsed.evaluator) == (DEFAULT_TURN_MS, None, "f.eval.npz")
    assert dict(parsed.env_problems) == {
        "--turn-ms": "GOMOKU_TURN_MS not used ('soon' is not a whole number of milliseconds (0 or more))",
        "--share": "GOMOKU_EVAL_SHARE not used (share=150 is not a percent (0..100))"}
    assert parse_brain_args([], {"GOMOKU_TURN_MS": " 900 "}).turn_ms == 900      # as int() took it
    # the command line's value wins, and a bad variable beneath it is not even read
    assert dict(parse_brain_args(["--turn-ms", "5"], env).env_problems) == {"--share": parsed.env_problems["--share"]}
    for line, said in ((["--turn-ms", "soon"], "--turn-ms: 'soon' is not a whole number"),
                       (["--turn-ms", "-5"], "--turn-ms: '-5' is not a whole number"),
                       (["--turn-ms", "\u00b3"], "--turn-ms: '\u00b3' is not a whole number"),
                       (["--eval", "f.eval.npz", "--share", "150"], "--share: share=150 is not a percent")):
        with pytest.raises(BrainUsageError, match=said):
            parse_brain_args(line, {})
    # --share needs --eval on the command line: GOMOKU_EVAL does not stand in for it
    with pytest.raises(BrainUsageError, match="--share needs --eval") as exc:
        parse_brain_args(["--share", "50"], {"GOMOKU_EVAL": "f.eval.npz", "GOMOKU_BRAIN_LOG": "env.log"})
    assert exc.value.log == "env.log"          # where pbrain-gomoku writes the line besides stderr
    with pytest.raises(BrainUsageError) as exc:
        parse_brain_args(["--frob"], {})
    assert exc.value.log is None


def test_the_session_plays_the_move_time_it_is_given_and_the_environment_stays_as_it_was(monkeypatch,
                                                                                        capsys) -> None:
    """--turn-ms on the command line, else GOMOKU_TURN_MS, sets a move's budget when no time
    INFO came; a bad GOMOKU_TURN_MS is logged and 5000 ms play. The brain is set up as the
    process sets it up (brain.start_session), each time with a loader of its own."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOMOKU_TURN_MS", "900")
    before = dict(os.environ)
    for line, turn_ms in ((["--turn-ms", "200"], 200), ([], 900)):
        with Script(options=parse_brain_args(line)) as b:
            assert dict(os.environ) == before
            assert b.session.time.default_turn == turn_ms
            b.send("INFO max_depth 2", "START 15")
            assert b.line() == "OK"
            b.send("BEGIN")
            assert b.session.request.budget.limit_ms == turn_ms
            b.move(size=(15, 15))
            b.end()
        assert dict(os.environ) == before
    assert "GOMOKU_TURN_MS not used" not in capsys.readouterr().out
    monkeypatch.setenv("GOMOKU_TURN_MS", "soon")
    with Script(options=parse_brain_args([])) as b:
        assert b.session.time.default_turn == DEFAULT_TURN_MS
        b.send("START 15", "INFO max_depth 2", "BEGIN")
        assert b.line() == "OK"
        assert b.session.request.budget.limit_ms == DEFAULT_TURN_MS
        b.move(size=(15, 15))
        b.end()
    assert os.environ["GOMOKU_TURN_MS"] == "soon"
    assert ("GOMOKU_TURN_MS not used ('soon' is not a whole number of milliseconds (0 or more)); "
            "5000 ms a move when the manager sends no time INFO") in capsys.readouterr().out


def test_an_evaluator_named_only_by_the_environment_is_the_loader_s_to_try(tmp_path, monkeypatch, capsys) -> None:
    """--eval's file is checked before the first game (a bad one refuses every game,
    test_protocol_refusal); GOMOKU_EVAL's is not: the loader logs that it does not load and the
    tables play."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    missing = tmp_path / "gone.eval.npz"
    monkeypatch.setenv("GOMOKU_EVAL", str(missing))
    with Script(options=parse_brain_args([])) as b:
        assert b.session.refusal is None and b.loader.eval_path == str(missing)
        b.send("START 15", "INFO max_depth 2", "BEGIN")
        assert b.line() == "OK"
        b.move(size=(15, 15))
        b.end()
    assert f"evaluator not used (evaluator file not found: {missing}); playing with the tables" \
        in capsys.readouterr().out
    with Script(options=parse_brain_args(["--eval", str(missing)])) as b:
        assert b.session.refusal == f"evaluator file not found: {missing}"
        b.send("START 15")
        assert b.line() == f"ERROR evaluator file not found: {missing}"
        b.end()


def _environment_uses(tree: ast.AST) -> list[ast.AST]:
    """Every `os.environ`, `os.getenv`, `os.putenv` and `os.unsetenv` in `tree`."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id == "os"
            and node.attr in ("environ", "getenv", "putenv", "unsetenv")]


def test_below_the_parse_nothing_reads_the_brain_s_variables_or_writes_the_environment() -> None:
    """Only protocol/options.py reads the brain's variables; protocol/ and engine/ write none
    (a setting handed on through os.environ reached code that never said it read it). Engine
    code may read variables that are no brain option (NUMBA_CACHE_DIR, GOMOKU_ORT_LOG, ...),
    by their literal names, so that this test can tell them apart."""
    brain_vars = {o.env for o in OPTIONS if o.env}
    readers: dict[str, set[str]] = {}
    for path in sorted([*(ROOT / "protocol").rglob("*.py"), *(ROOT / "engine").rglob("*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for name in _environ_reads_or_fail(_environment_uses(tree), parents, rel):
            readers.setdefault(rel, set()).add(name)
    assert readers.pop("protocol/options.py", None) == {"<mapping>"}
    assert all(not names & brain_vars for names in readers.values()), readers
    assert readers, "the scan found no environment read at all: it reads nothing"


def _environ_reads_or_fail(uses: list[ast.AST], parents: dict, rel: str) -> list[str]:
    """The variable names `uses` read (literal names only; "<mapping>" for os.environ handed
    on whole as a mapping, allowed in options.py alone); an assertion for any write."""
    names = []
    for use in uses:
        assert use.attr not in ("putenv", "unsetenv"), f"{rel}:{use.lineno} changes the environment"
        parent = parents[use]
        if isinstance(parent, ast.Subscript):
            assert isinstance(parent.ctx, ast.Load), f"{rel}:{use.lineno} writes os.environ"
            key = parent.slice
        elif isinstance(parent, ast.Attribute) and parent.attr == "get" and isinstance(parents[parent], ast.Call):
            key = parents[parent].args[0]
        elif isinstance(parent, ast.Call) and use.attr == "getenv":
            key = parent.args[0]
        else:
            assert rel == "protocol/options.py" and isinstance(parent, ast.IfExp), \
                f"{rel}:{use.lineno} uses os.environ other than by reading one variable"
            names.append("<mapping>")
            continue
        assert isinstance(key, ast.Constant) and isinstance(key.value, str), \
            f"{rel}:{use.lineno} reads a variable not named literally"
        names.append(key.value)
    return names
