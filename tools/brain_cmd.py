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
    """Run the Piskvork/Gomocup protocol brain on stdin/stdout (for managers and GUIs).

    A --net or --eval file that cannot be used does not stop it: it answers ABOUT and every
    START with `ERROR <why>`, as pbrain-gomoku does; a malformed command line is a usage error."""
    from gomoku.tools.options import output_path
    output_path(log_path or None, "--log")
    from gomoku.protocol.brain import named_files_problem, run
    if share is not None:
        if eval_path is None:
            raise click.UsageError("--share needs --eval FILE.eval.npz (it blends that evaluator with the tables)")
        from gomoku.engine.search.blend import SHARE_ENV
        os.environ[SHARE_ENV] = str(share)
    if turn_ms is not None:
        os.environ["GOMOKU_TURN_MS"] = str(turn_ms)
    check = (lambda: named_files_problem(net_path, eval_path)) \
        if net_path is not None or eval_path is not None else None
    run(log_path=log_path or os.environ.get("GOMOKU_BRAIN_LOG") or None, check=check)
