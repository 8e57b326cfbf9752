"""`gomoku brain`: the same Piskvork brain as the `pbrain-gomoku` executable."""
from __future__ import annotations

import os
from typing import Optional

import click


@click.command(name="brain")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default=None,
              help="Append a session log here (stdout/stderr of libraries land there too).")
@click.option("--turn-ms", type=click.IntRange(0, None), default=None,
              help="Per-move budget when the manager sends no time INFO (default 5000).")
@click.option("--net", "net_path", type=click.Path(dir_okay=False), default=None,
              help="Play with this ONNX policy-value net + MCTS on the boards and rules it was trained "
                   "for (the classical engine elsewhere). Also GOMOKU_NET=FILE.")
@click.option("--eval", "eval_path", type=click.Path(dir_okay=False), default=None,
              help="Score the alpha-beta's positions with this learned evaluator (NAME.eval.npz) under "
                   "the rule it was trained for (the tables under the others). Also GOMOKU_EVAL=FILE.")
@click.option("--share", type=click.IntRange(0, 100), default=None,
              help="With --eval: the percent of each leaf's value the evaluator gives, the tables the "
                   "rest (default: what the file says, else 100). Also GOMOKU_EVAL_SHARE=P.")
def brain(log_path: Optional[str], turn_ms: Optional[int], net_path: Optional[str],
          eval_path: Optional[str], share: Optional[int]) -> None:
    """Run the Piskvork/Gomocup protocol brain on stdin/stdout (for managers and GUIs)."""
    from gomoku.tools.options import output_path
    output_path(log_path or None, "--log")
    from gomoku.protocol.brain import net_problem, run
    if net_path is not None:
        why = net_problem(net_path)
        if why:
            raise click.UsageError(why)
        os.environ["GOMOKU_NET"] = net_path
    if eval_path is not None:
        from gomoku.engine.search.learned_file import EvalFileError, evaluator_path, load_evaluator
        try:
            eval_path = str(evaluator_path(eval_path))
            load_evaluator(eval_path)
        except EvalFileError as exc:
            raise click.UsageError(str(exc)) from None
        os.environ["GOMOKU_EVAL"] = eval_path
    if share is not None:
        if eval_path is None:
            raise click.UsageError("--share needs --eval FILE.eval.npz (it blends that evaluator with the tables)")
        from gomoku.engine.search.blend import SHARE_ENV
        os.environ[SHARE_ENV] = str(share)
    if turn_ms is not None:
        os.environ["GOMOKU_TURN_MS"] = str(turn_ms)
    run(log_path=log_path or os.environ.get("GOMOKU_BRAIN_LOG") or None)
