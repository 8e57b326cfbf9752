"""`gomoku warmup` must reach every jitted entry point the brain calls in a game, or the first
game to need one compiles it in the middle of a timed move."""
import pytest


def test_warm_up_reaches_the_search_and_solvers():
    """The suite's set-up ran warm_up() in this process (conftest) and nothing else yet needs
    these: each has a compiled signature only if the warm-up reached it."""
    from gomoku.engine.player import warmup
    from gomoku.engine.search import dfpn, pvs, threats
    done = list(warmup.warm_up_steps())
    # in one process the compile-staging steps are skipped (the alpha-beta step covers them)
    assert done == [s for s in warmup.step_names() if s not in warmup.COMPILE_ONLY]
    assert warmup.COMPILE_ONLY <= set(warmup.step_names())
    missing = [f.__name__ for f in (pvs.root_search, pvs.root_moves,
                                    pvs.refutes_vcf, threats.vcf, threats.vct,
                                    dfpn.dfpn, dfpn.proof_line)
               if not f.signatures]
    assert missing == []


def test_plans_cover_every_step_once_for_any_number_of_processes(monkeypatch):
    from gomoku.engine.player import warmup
    extra = len(set(warmup.step_names()) - {s for g in warmup.GROUPS for s in g})   # hooks not grouped
    for jobs in range(1, 7):
        plan = warmup.plan_processes(jobs)
        flat = [s for group in plan for s in group]
        assert sorted(flat) == sorted(warmup.step_names()) and len(plan) == min(jobs, len(warmup.GROUPS) + extra)
        for group in plan:     # the board core, where a process has it, comes first
            cores = [i for i, s in enumerate(group) if s.startswith("board core")]
            assert cores == list(range(len(cores)))
    # a hook nobody grouped yet still gets compiled
    monkeypatch.setattr(warmup, "EXTRA_HOOKS", warmup.EXTRA_HOOKS + [("gomoku.engine.newroom.x", "warm_up", "x")])
    flat = [s for group in warmup.plan_processes(2) for s in group]
    assert "x" in flat and sorted(flat) == sorted(warmup.step_names())


def test_the_large_steps_each_start_a_process_and_the_order_holds():
    """One lane of the plan is cut before every FRESH_PROCESS step: the alpha-beta search's
    three parts never share a process, and its helpers come before pvs, pvs before the rest."""
    from gomoku.engine.player import warmup
    (lane,) = warmup.plan_processes(1)
    runs = warmup.processes_of(lane)
    assert [s for run in runs for s in run] == lane == warmup.step_names()
    for run in runs:
        assert sum(s in warmup.FRESH_PROCESS for s in run) <= 1
        assert all(s not in warmup.FRESH_PROCESS for s in run[1:])
    firsts = [run[0] for run in runs]
    assert {"search helpers", "pvs", "alphabeta"} <= set(firsts)
    assert lane.index("threats") < lane.index("search helpers") < lane.index("pvs") < lane.index("alphabeta")
    assert warmup.processes_of([]) == []


@pytest.mark.process
def test_compile_in_processes_reports_each_step_and_a_failing_child_is_one_clear_error(monkeypatch, tmp_path):
    """The children really run (from the warm cache here, quickly) and report every step, a
    FRESH_PROCESS step in a process of its own (each process appends one line to the compile
    log); a child that fails is one clear error."""
    import json

    from gomoku.engine.player import warmup
    monkeypatch.setattr(warmup, "plan_processes",
                        lambda jobs: [["playouts"], ["board core (caro)", "board core (renju)"]])
    monkeypatch.setattr(warmup, "FRESH_PROCESS", frozenset({"board core (renju)"}))
    log = tmp_path / "compile.jsonl"
    seen = []
    seconds = warmup.compile_in_processes(lambda label, s: seen.append(label), jobs=2, log=str(log))
    assert sorted(seen) == ["board core (caro)", "board core (renju)", "playouts"] and seconds > 0
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert sorted([s for s, _ in line["steps"]] for line in lines) == [
        ["board core (caro)"], ["board core (renju)"], ["playouts"]]
    assert all(line["cpu"] > 0 and line["rss_mb"] > 0 for line in lines)
    monkeypatch.setattr(warmup, "plan_processes", lambda jobs: [["no such step"]])
    with pytest.raises(warmup.CompileError, match="unknown warm-up step"):
        warmup.compile_in_processes(lambda label, s: None, jobs=1)


def test_ensure_compiled_draws_progress_and_marks_the_cache_warm(monkeypatch):
    import io

    from rich.console import Console

    from gomoku.engine.player import warmup
    from gomoku.engine.base import numba_cache
    from gomoku.tools import prepare
    marked = []
    monkeypatch.setattr(numba_cache, "cache_is_warm", lambda *a: False)
    monkeypatch.setattr(numba_cache, "mark_warm", lambda *a: marked.append(1))

    def fake(on_step, jobs=None, poll=None):
        for group in warmup.plan_processes(jobs or 1):
            for label in group:
                poll()
                on_step(label, 0.01)
        return 1.5

    monkeypatch.setattr(warmup, "compile_in_processes", fake)
    buf = io.StringIO()
    assert prepare.ensure_compiled(Console(file=buf, width=100), jobs=2) == 1.5
    assert marked == [1] and "engine compiled in 2 s with 2 processes" in buf.getvalue()
    monkeypatch.setattr(numba_cache, "cache_is_warm", lambda *a: True)
    assert prepare.ensure_compiled(Console(file=buf)) is None       # warm: nothing to do


def test_the_session_warm_up_leaves_the_cache_reading_warm() -> None:
    """conftest filled the cache with what `gomoku warmup` runs. A module with cached functions
    that no warm-up step compiles (the ADP critic's features were one) never gets an index
    file, so the cache read cold for ever after and every command's start compiled again in
    child processes (3 s a start, and a process no in-process test may start)."""
    from gomoku.engine.base import numba_cache
    cold = [py.name for py in numba_cache._jit_modules(numba_cache.engine_dir())
            if not numba_cache._index_files(py)]
    assert cold == [] and numba_cache.cache_is_warm()
