"""SWAP2BOARD answers (Gomocup swap2 opening): propose three stones, or choose SWAP / a move.

0 stones: a fixed, roughly balanced three-stone opening near the centre.
3 or 5 stones: white is to move; the engine searches that position briefly from white's view.
If white looks clearly worse we answer SWAP (we take black), otherwise we keep white and play
the engine's move. The quick answer (used by the watchdog, or when the engine is not loaded)
is SWAP-free: the cheap fallback move for white, which is always valid syntax.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from gomoku.engine.game.rules import Rule
from gomoku.protocol.commands import format_move
from gomoku.protocol.fallback import cheap_move
from gomoku.protocol.position import Position

#: Centi-stones (mover's view) below which white is judged lost enough to take black instead.
SWAP_THRESHOLD = -150
#: Seconds at most spent on the swap decision, whatever the clock allows.
MAX_DECISION_S = 3.0

EffectFor = Callable[[list[tuple[int, int]]], Callable[[], None]]
Answer = tuple[str, Optional[Callable[[], None]], list[str]]


def check_stones(width: int, height: int, stones: list[Optional[tuple[int, int]]]) -> None:
    """Raise ValueError unless stones are 0, 3 or 5 distinct in-board cells."""
    if len(stones) not in (0, 3, 5):
        raise ValueError(f"SWAP2BOARD needs 0, 3 or 5 stones, got {len(stones)}")
    seen = set()
    for xy in stones:
        if xy is None:
            raise ValueError("SWAP2BOARD data lines must be X,Y")
        if not (0 <= xy[0] < width and 0 <= xy[1] < height):
            raise ValueError(f"SWAP2BOARD stone {xy[0]},{xy[1]} is outside the board")
        if xy in seen:
            raise ValueError(f"SWAP2BOARD stone {xy[0]},{xy[1]} is given twice")
        seen.add(xy)


def opening_three(width: int, height: int) -> list[tuple[int, int]]:
    """Black centre, white diagonal neighbour, black a knight's-move-and-a-half away: a sparse
    shape with no immediate threat for either side."""
    cx, cy = width // 2, height // 2
    return [(cx, cy), (cx + 1, cy - 1), (cx + 2, cy + 1)]


def quick_answer(pos: Position, rule: Rule, effect_for: EffectFor) -> Answer:
    """An immediate, always-valid answer for this stage."""
    if pos.stone_count == 0:
        stones = opening_three(pos.width, pos.height)
        return " ".join(format_move(m) for m in stones), effect_for(stones), []
    move = cheap_move(pos, rule)
    assert move is not None
    return format_move(move), effect_for([move]), []


def decide(req: Any, pos: Position, rule: Rule, loader: Any, effect_for: EffectFor) -> Optional[Answer]:
    """Runs in the thinking thread: the engine's choice for this stage, or None (fallback)."""
    if pos.stone_count == 0:
        return quick_answer(pos, rule, effect_for)
    until = min(req.budget.soft, req.clock() + MAX_DECISION_S)
    now = req.clock()
    if not loader.acquire(until - now, ready_timeout=until - now - 0.02):
        return None
    try:
        board = pos.to_board(loader.Board, rule)
        think_s = max(0.0, min(until, req.budget.soft) - req.clock())
        result = loader.think(board, loader.Limit(turn_time=think_s), req.stop)
    finally:
        loader.release()
    score = result.info.get("score")
    if _white_is_lost(score):
        return "SWAP", None, [f"swap: white's outlook {score}"]
    move = result.move
    if move is None or not pos.in_bounds(*move) or pos.cell(*move) != 0:
        return None
    return format_move(move), effect_for([move]), []


def _white_is_lost(score: Any) -> bool:
    if isinstance(score, str):
        return score.lower().startswith("loss")
    try:
        return float(score) < SWAP_THRESHOLD
    except (TypeError, ValueError):
        return False
