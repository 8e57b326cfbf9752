"""`gomoku` command line: one click group; each subcommand lives in its own module.

Subcommand modules are imported lazily so `gomoku --help` and the brain stay fast.
"""
from __future__ import annotations

import difflib
import importlib

import click

# name -> (module, attribute, summary): the summaries are the top-level help's list, whole
_COMMANDS = {
    "play": ("gomoku.tools.play_cmd", "play", "Play against the engine in the terminal."),
    "match": ("gomoku.tools.match_cmd", "match", "Engine-vs-engine matches with Elo statistics."),
    "analyze": ("gomoku.tools.analyze_cmd", "analyze", "Review a recorded game: every move's winning chance, mistakes, forced wins."),
    "bench": ("gomoku.tools.bench_cmd", "bench", "Search fixed positions: nodes/s and the search's signature."),
    "brain": ("gomoku.tools.brain_cmd", "brain", "Run the Piskvork protocol brain on stdin/stdout."),
    "warmup": ("gomoku.tools.warmup_cmd", "warmup", "Compile and cache the numba core (run once after install)."),
    "freeze": ("gomoku.tools.freeze_cmd", "freeze", "Build a one-folder Piskvork brain (Gomocup .exe) with PyInstaller."),
    "openings": ("gomoku.tools.openings_cmd", "openings", "Make a book of balanced openings over the whole board."),
    "labels": ("gomoku.tools.labels_cmd", "labels", "Make training labels: self-play positions with the search's scores."),
    "distill": ("gomoku.tools.distill_cmd", "distill", "Train a learned evaluator on searched positions (labels)."),
    "params": ("gomoku.tools.params_cmd", "params", "List the classical engine's search parameters (for specs and tuning)."),
    "tune": ("gomoku.tools.tune_cmd", "tune", "Fit the evaluation's tables to games or scores; tune search parameters (--spsa)."),
    "info": ("gomoku.tools.info_cmd", "info", "Show what an ONNX net file is (metadata, inputs, outputs)."),
    "train": ("gomoku.tools.train_cmd", "train", "Train a policy-value net by self-play (resumable)."),
    "export": ("gomoku.tools.export_cmd", "export", "Export a training checkpoint to a verified ONNX net."),
    "plot": ("gomoku.tools.plot_cmd", "plot", "PNG plots of a training run's metrics."),
    "ship": ("gomoku.tools.ship_cmd", "ship", "Put a run's best net into weights/ with its manifest entry."),
    "study": ("gomoku.tools.study_cmd", "study", "Rerun a paper's experiment at a chosen scale (tables beside the paper's)."),
}


class LazyGroup(click.Group):
    """Imports a subcommand's module only when it runs, and gives every command one exit status
    after Ctrl-C (130, the shell's for SIGINT) instead of click's 'Aborted!' and 1."""

    def __call__(self, *args, **kwargs):
        """The console script's entry: Ctrl-C's handling is installed before anything else
        runs, and a command that Ctrl-C stopped leaves without the interpreter's teardown
        (tools.interruptible). Click's CliRunner calls `main`, not this, so commands run inside
        a test process leave that process's own Ctrl-C and exit alone."""
        from gomoku.tools.interruptible import exit_interrupted, install
        install()
        try:
            return super().__call__(*args, **kwargs)
        except SystemExit as exc:
            exit_interrupted(exc.code)
            raise

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            from gomoku.tools.options import INTERRUPTED
            click.echo("\ninterrupted", err=True)
            raise click.exceptions.Exit(INTERRUPTED) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the summaries above, whole and wrapped: click's own list imports
        every command's module and cuts its docstring's first sentence at the terminal's width
        with '...', which left every summary unfinished."""
        rows = [(name, _COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        """A mistyped command gets the nearest names ('Did you mean play?'), as a mistyped
        option already does in click."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.6)
            hint = f" Did you mean {' or '.join(close)}?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, name: str):
        spec = _COMMANDS.get(name)
        if spec is None:
            return None
        module, attr, _ = spec
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gomoku")
def main() -> None:
    """Gomoku / renju / caro engine: play, analyze, match, brain, bench, warmup, freeze, openings,
    labels, distill, params, tune, info, train, export, plot, ship, study. `gomoku COMMAND --help` gives a
    command's options."""


if __name__ == "__main__":
    main()
