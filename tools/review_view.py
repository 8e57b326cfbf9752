"""What a person reads and looks at of a game review (engine.player.review): the 80-column report and
the plot of the winning chance. `gomoku analyze` and `gomoku play`'s `review` both show them.

matplotlib is optional (the train and dev extras bring it): it is imported only when a plot is
asked for, and without it `write_plot` says in one line how to get it, so the review still runs.
"""
from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Optional

from gomoku.engine.game.rules import Rule
from gomoku.engine.player.review import (COLOUR, MARKS, GameReview, move_name, percent, summary_lines)

#: the report's width: an 80-column terminal
WIDTH = 80
#: the plot's size in pixels (inches at PLOT_DPI)
PLOT_SIZE = (900, 400)
PLOT_DPI = 100
STONE = {1: "X", 2: "O"}
#: how a mark looks on the plot: colour and marker size
_MARK_LOOK = {"??": ("#d62728", 60), "?": ("#ff7f0e", 40), "?!": ("#bcbd22", 20)}
MATPLOTLIB_MISSING = ("--plot needs matplotlib, which is not installed: pip install matplotlib "
                      "(or the train extra); the review goes on without the plot")


def budget_text(review: GameReview) -> str:
    lim = review.limit
    if lim.nodes:
        n = lim.nodes
        return f"{n // 1000}k nodes a position" if n % 1000 == 0 else f"{n} nodes a position"
    if lim.turn_time:
        return f"{lim.turn_time:g} s a position"
    return "the default budget"


def game_line(review: GameReview, source: str, game: int, games: int) -> str:
    rec = review.record
    which = f", game {game} of {games}" if games > 1 else ""
    players = " vs ".join(x for x in (f"black {rec.black}" if rec.black else "",
                                      f"white {rec.white}" if rec.white else "") if x)
    result = f", {rec.result}" + (f" ({rec.reason})" if rec.reason else "") if rec.result else ""
    return (f"{source}{which}: {rec.width}x{rec.height} {Rule(rec.rule).label}, {len(rec.moves)} moves"
            f"{', ' + players if players else ''}{result}")


def report_lines(review: GameReview, source: str, game: int = 1, games: int = 1,
                 engine: str = "") -> list[str]:
    """The terminal report: what was reviewed and how, the table (one line a move, the note cut
    to fit 80 columns), the turning points in full, and each side's marks."""
    out = [f"Review of {game_line(review, source, game, games)}"]
    how = f"{engine}, " if engine else ""
    out.append(f"{how}{budget_text(review)}: {review.searched} positions searched in "
               f"{review.seconds:.0f} s on {review.workers} process{'es' if review.workers > 1 else ''}")
    if review.ignored_moves:
        out.append(f"The game ended at move {len(review.record.moves) - review.ignored_moves} ({review.end}); "
                   f"the record's {review.ignored_moves} later moves are not reviewed.")
    if review.interrupted:
        done = sum(1 for m in review.moves if m.after is not None and m.before is not None)
        out.append(f"Interrupted: {done} of {len(review.moves)} moves reviewed.")
    out.append("")
    out.append("   #   move      best   before  after  drop   (the mover's winning chance)")
    for m in review.moves:
        drop = "-" if m.drop is None else f"{round(100 * m.drop)}"
        head = (f"{m.number:>4}  {STONE[m.colour]} {move_name(m.move):<4}{m.mark:<3} {move_name(m.best):<5}"
                f"{percent(m.before):>7}{percent(m.after):>7}{drop:>6}")
        note = "; ".join(m.notes)
        room = WIDTH - len(head) - 2
        if len(note) > room:
            note = note[:room - 3] + "..."
        out.append(f"{head}  {note}".rstrip())
    out.append("")
    out.append("Turning points")
    points = review.turning_points or []
    if not points:
        out.append("  none: no move changed the game much")
    for t in points:
        out += textwrap.wrap(f"move {t.number}: {t.text}", WIDTH, initial_indent="  ", subsequent_indent="      ")
    if review.losing_move is None and review.moves:
        if review.loser is None:
            out.append("  no losing move: the game is not decided")
        else:
            out.append(f"  no losing move: {COLOUR[review.loser]} was lost from move {review.first} on, or "
                       f"lost it by moves the review did not judge lost")
    out.append("")
    marks = ", ".join(f"{mark} {round(100 * least)}+" for least, mark in MARKS)
    out += summary_lines(review) + [f"(marks by the drop in points: {marks}; a point is 1 % of winning chance)"]
    # a long path or player name in the header, or a long legend, wraps rather than overflows
    return [piece for line in out for piece in (textwrap.wrap(line, WIDTH, subsequent_indent="  ") or [""])]


def write_plot(review: GameReview, path: Path, title: str) -> Optional[str]:
    """Write the PNG of black's winning chance over the game, the turning points marked, to
    `path` (atomically); returns None, or the one line saying why no plot was written."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return MATPLOTLIB_MISSING
    from gomoku.engine.base.fileio import write_atomic_with
    curve = [(n, 100 * c) for n, c in review.black_chance() if c is not None]
    fig, ax = plt.subplots(figsize=(PLOT_SIZE[0] / PLOT_DPI, PLOT_SIZE[1] / PLOT_DPI), dpi=PLOT_DPI)
    try:
        if curve:
            xs, ys = zip(*curve)
            ax.plot(xs, ys, color="black", linewidth=1.5, label="black's winning chance")
            ax.fill_between(xs, ys, 50, where=[y >= 50 for y in ys], color="0.25", alpha=0.25, interpolate=True)
            ax.fill_between(xs, ys, 50, where=[y <= 50 for y in ys], color="#1f77b4", alpha=0.15, interpolate=True)
        chance = dict(curve)
        for m in review.moves:
            if m.mark and m.number in chance:
                colour, size = _MARK_LOOK[m.mark]
                ax.scatter([m.number], [chance[m.number]], s=size, color=colour, zorder=3)
                if m.mark in ("?", "??"):
                    below = chance[m.number] > 85         # a label above the top would leave the axes
                    ax.annotate(f"{m.number} {move_name(m.move)}{m.mark}", (m.number, chance[m.number]),
                                textcoords="offset points", xytext=(4, -12 if below else 6), fontsize=8,
                                color=colour)
        if review.losing_move is not None:
            ax.axvline(review.losing_move, color="#d62728", linestyle="--", linewidth=1)
            ax.text(review.losing_move, 2, f" lost: move {review.losing_move}", color="#d62728", fontsize=8)
        ax.axhline(50, color="0.6", linewidth=0.8)
        ax.set_ylim(0, 100)
        ax.set_xlim(review.first - 1, max(review.first, len(review.positions) + review.first - 2))
        ax.set_xlabel("move")
        ax.set_ylabel(f"{COLOUR[1]}'s winning chance (%)")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        write_atomic_with(path, lambda tmp: fig.savefig(tmp, format="png", dpi=PLOT_DPI))
    finally:
        plt.close(fig)
    return None
