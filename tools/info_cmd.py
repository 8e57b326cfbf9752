"""`gomoku info FILE.onnx | FILE.eval.npz`: what a net or learned-evaluator file says it is, checked
the way the engine checks it."""
from __future__ import annotations

import json

import click


@click.command(name="info")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the metadata as one JSON object.")
def info(path: str, as_json: bool) -> None:
    """Print an ONNX net's metadata (format, planes, players, win length, rules, board sizes,
    value head, architecture, provenance) and its inputs and outputs; exit 1 with one line if
    the engine would refuse the file. A learned evaluator's file (NAME.eval.npz, for the
    alpha-beta) gives its architecture, rule, scale and provenance."""
    if path.endswith(".npz"):
        _evaluator_info(path, as_json)
        return
    from gomoku.engine.net.critic_file import CriticNet, is_critic
    from gomoku.engine.net.evaluator import NetEvaluator
    from gomoku.engine.net.metadata import NetFormatError
    net: CriticNet | NetEvaluator
    try:
        net = CriticNet.load(path) if is_critic(path) else NetEvaluator.load(path)
    except NetFormatError as exc:
        raise click.ClickException(str(exc)) from None
    meta = net.info.to_metadata()
    if as_json:
        click.echo(json.dumps({**meta, "provenance": net.info.provenance}, sort_keys=True))
        return
    click.echo(f"{path}: {net.info.summary()}" + (", an ADP critic played one ply deep"
                                                  if isinstance(net, CriticNet) else ""))
    for key, value in meta.items():
        if key != "provenance":
            click.echo(f"  {key:13s} {value}")
    for key, value in sorted(net.info.provenance.items()):
        click.echo(f"  provenance.{key}: {value}")
    sess = net.session
    for i in sess.get_inputs():
        click.echo(f"  input  {i.name} {i.type} {i.shape}")
    for o in sess.get_outputs():
        click.echo(f"  output {o.name} {o.type} {o.shape}")
    click.echo(f"  provider      {sess.get_providers()[0]}")


def _evaluator_info(path: str, as_json: bool) -> None:
    from gomoku.engine.search.learned_file import EvalFileError, load_evaluator
    try:
        ev = load_evaluator(path)
    except EvalFileError as exc:
        raise click.ClickException(str(exc)) from None
    meta = {"kind": "learned evaluator (alpha-beta)", "arch": ev.arch, "rule": ev.rule,
            "eval_scale": ev.eval_scale, "parameters": int(sum(w.size for w in ev.weights.values()))}
    if as_json:
        click.echo(json.dumps({**meta, "provenance": ev.provenance}, sort_keys=True))
        return
    click.echo(f"{path}: {ev.arch} learned evaluator for {ev.rule}, played by the alpha-beta "
               f"(pbrain-gomoku --eval, classical:eval=FILE)")
    for key, value in meta.items():
        click.echo(f"  {key:13s} {value}")
    for key, value in sorted(ev.provenance.items()):
        click.echo(f"  provenance.{key}: {value}")
