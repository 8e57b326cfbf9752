"""The cold-compile benchmark (`gomoku bench --compile`) and the compile that runs behind
`gomoku play` (tools.prepare.BackgroundCompile)."""
import io
import json
import threading

import pytest
from rich.console import Console


def test_the_compile_log_books_each_compile_to_its_function_and_step():
    from numba import njit

    from gomoku.engine.base.compile_log import CompileLog, merge

    @njit
    def callee(x):
        return x + 1

    @njit
    def caller(x):
        return callee(x) * 2

    with CompileLog() as log:
        log.step = "first"
        caller(1)            # compiles caller, which compiles callee inside it
        log.done("first", 0.5)
        log.step = "second"
        caller(1.5)          # a second signature of both
        log.done("second", 0.25)
    caller(2.5)              # a third, after the log was left: not booked
    funcs = {k.rsplit(".", 1)[-1]: v for k, v in log.funcs.items()}
    assert set(funcs) == {"callee", "caller"}
    assert len(funcs["caller"]["sigs"]) == 2 and funcs["caller"]["steps"] == ["first", "second"]
    assert all(v["self"] > 0 for v in funcs.values())
    line = log.record()
    assert line["steps"] == [("first", 0.5), ("second", 0.25)] and line["cpu"] > 0 and line["rss_mb"] > 0
    # two processes' lines make one compile: CPU summed, the larger peak, each process listed
    other = {"funcs": {"x.caller": {"self": 1.0, "sigs": ["y"], "steps": ["third"]}},
             "steps": [("third", 1.0)], "cpu": 2.0, "rss_mb": 1e6}
    both = merge([line, other])
    assert both["cpu"] == line["cpu"] + 2.0 and both["rss_mb"] == 1e6
    assert [p["steps"] for p in both["processes"]] == [["first", "second"], ["third"]]
    assert len(both["funcs"]) == 3 and [s for s, _ in both["steps"]] == ["first", "second", "third"]


def test_report_sorts_by_cost_and_ends_with_the_totals():
    from gomoku.tools.bench_compile import report
    data = {"funcs": {"a.small": {"self": 1.0, "sigs": ["x"], "steps": ["s"]},
                      "b.big": {"self": 9.0, "sigs": ["x", "y"], "steps": ["s"]}},
            "steps": [["s", 10.0]], "cpu": 12.5, "rss_mb": 321.0, "wall": 11.0}
    lines: list[str] = []
    report(data, say=lines.append)
    assert "b.big" in lines[1] and "90.0%" in lines[1] and "a.small" in lines[2]
    assert lines[-1] == ("compile: functions=2 signatures=3 compile_s=10.0 wall_s=11.0 cpu_s=12.5 "
                         "peak_rss_mb=321 processes=1")


def _fake_compile(monkeypatch, gate):
    """compile_in_processes as the real one drives its callbacks: steps reported as they end,
    poll() between them, until `gate` lets the last step finish."""
    from gomoku.engine.base import numba_cache
    from gomoku.engine.player import warmup
    marked = []
    monkeypatch.setattr(numba_cache, "mark_warm", lambda *a: marked.append(1))

    def fake(on_step, jobs=None, poll=None):
        plan = warmup.plan_processes(jobs or 1)
        flat = [s for g in plan for s in g]
        for label in flat[:-1]:
            on_step(label, 0.01)
        while not gate.wait(0.01):
            poll()
        on_step(flat[-1], 0.01)
        return 2.0

    monkeypatch.setattr(warmup, "compile_in_processes", fake)
    return marked


def test_background_compile_shows_progress_then_lets_the_engine_move(monkeypatch):
    from gomoku.tools.prepare import BackgroundCompile
    gate = threading.Event()
    marked = _fake_compile(monkeypatch, gate)
    first: list[str] = []
    bc = BackgroundCompile(jobs=2, first=lambda: first.append("ran")).start()
    for _ in range(200):
        if sum(len(steps) for steps in bc.work.pending) == 1:
            break
        threading.Event().wait(0.01)
    assert first == ["ran"] and bc.error is None       # the person's move code, then the children
    assert not bc.done and 0.0 < bc.fraction() < 1.0
    assert "Engine compiling (once):" in bc.status_line()
    threading.Timer(0.2, gate.set).start()
    bc.wait(Console(file=io.StringIO()))          # blocks until the last step
    assert bc.done and bc.fraction() == pytest.approx(1.0) and bc.status_line() == "" and marked == [1]


def test_cancel_stops_a_running_compile(monkeypatch):
    from gomoku.tools.prepare import BackgroundCompile
    marked = _fake_compile(monkeypatch, threading.Event())     # never lets it finish
    bc = BackgroundCompile(jobs=1).start()
    bc.cancel()
    assert bc.done and bc.error == "cancelled" and marked == []
    import click
    with pytest.raises(click.ClickException):
        bc.wait(Console(file=io.StringIO()))


def test_a_cold_cache_compiles_a_move_on_a_copy_of_the_board_first(monkeypatch):
    from gomoku.engine.base import numba_cache
    from gomoku.engine.game.board import Board
    from gomoku.tools.prepare import start_compile
    gate = threading.Event()
    _fake_compile(monkeypatch, gate)
    monkeypatch.setattr(numba_cache, "cache_is_warm", lambda *a: False)
    board = Board(15)
    board.play(7, 7)
    bc = start_compile(jobs=1, board=board)
    gate.set()
    bc.wait(Console(file=io.StringIO()))
    assert bc.error is None and board.move_count == 1      # the game on screen is untouched


def test_a_warm_cache_starts_no_compile(monkeypatch):
    from gomoku.engine.base import numba_cache
    from gomoku.tools.prepare import start_compile
    monkeypatch.setattr(numba_cache, "cache_is_warm", lambda *a: True)
    assert start_compile() is None


def test_play_draws_the_board_during_the_compile_and_the_engine_waits_for_it(monkeypatch):
    from gomoku.engine.game.rules import Rule
    from gomoku.engine.base.limits import PlayResult, SearchInfo
    from gomoku.engine.match.players import parse_spec
    from gomoku.tools.play_two import TwoPlayerSession
    from gomoku.tools.prepare import BackgroundCompile
    gate = threading.Event()
    _fake_compile(monkeypatch, gate)
    console = Console(width=80, height=25, record=True, color_system=None, file=io.StringIO())
    s = TwoPlayerSession(console=console, width=15, height=15, rule=Rule.FREESTYLE, move_time=1.0,
                         save_path=None, spec=parse_spec("classical"))
    s.compiling = BackgroundCompile(jobs=2).start()
    s.new_game()
    s.messages = []
    s.human_move(7, 7)                    # the person's move goes in while the compile runs
    s.draw_game()
    lines = console.export_text().rstrip("\n").split("\n")
    status = [line for line in lines if "Engine compiling (once):" in line]
    assert len(status) == 1 and len(status[0]) <= 80 and len(lines) <= 24
    import gomoku.engine.player.agent as agent
    searched = []

    def think(board, limit, stop=None):
        searched.append(s.compiling)
        return PlayResult((9, 9), SearchInfo.of({"depth": 1, "score": 0, "nodes": 1}))
    monkeypatch.setattr(agent, "think", think)
    threading.Timer(0.3, gate.set).start()
    s.show_hint()                         # a search: waits for the compile's end first
    assert searched == [None] and s.hint == (9, 9)
    console.export_text()
    s.draw_game()
    assert "Engine compiling" not in console.export_text()


def test_the_compile_bar_fits_80_columns_and_its_time_left_never_reads_zero(monkeypatch):
    from gomoku.engine.player import warmup
    from gomoku.tools import prepare
    plan = warmup.plan_processes(4)
    bar = prepare._Bar(Console(file=io.StringIO()), plan, 4)
    t0, cost = bar.work.t0, bar.work.cost
    done, left = bar.work.estimate(t0)
    assert done == 0 and left == pytest.approx(max(sum(cost[s] for s in g) for g in plan))
    # far past every estimate: the share stops below the end, the time left stays above zero
    done, left = bar.work.estimate(t0 + 10_000)
    assert done < bar.work.total and left > 0
    bar.refresh()
    wide = Console(width=200, record=True, color_system=None, file=io.StringIO())
    wide.print(bar.progress.make_tasks_table(bar.progress.tasks))
    line = wide.export_text().strip()
    assert line.startswith("compiling once: ") and "left" in line and len(line) <= 80


def test_the_time_left_follows_the_speed_the_finished_steps_showed():
    """On a fake clock: before any step the estimate is the measured costs; a first step that
    took twice its cost doubles what is left; the share counts the finished step's cost."""
    from gomoku.engine.player import warmup
    from gomoku.tools.prepare import CompileProgress, _clock
    now = [100.0]
    plan = warmup.plan_processes(1)
    work = CompileProgress(plan, clock=lambda: now[0])
    first, rest = plan[0][0], plan[0][1:]
    assert work.estimate() == (0.0, pytest.approx(work.total))
    now[0] += 2 * work.cost[first]
    work.step_done(first, 2 * work.cost[first])
    done, left = work.estimate()
    assert done == pytest.approx(work.cost[first])
    assert left == pytest.approx(2 * sum(work.cost[s] for s in rest))
    assert work.summary() == f"{100 * work.cost[first] / work.total:.0f} %, ~{_clock(left)} left"


def test_the_play_status_line_says_the_time_left_in_80_columns():
    from gomoku.tools.prepare import BackgroundCompile
    now = [0.0]
    bc = BackgroundCompile(jobs=2, clock=lambda: now[0])      # made, not started: nothing runs
    now[0] = 3599.0                       # an hour into its first step: the longest line
    line = bc.status_line()
    text = line.removeprefix("[dim]").removesuffix("[/dim]")
    assert text.startswith("Engine compiling (once): ") and " left; you can move meanwhile." in text
    assert len(text) <= 80
