"""How a learned evaluator is mixed with the classical tables: its share of each leaf's value.

Kept apart from `learned_file` (which loads numpy and the numba evaluator) because the brain
reads the share from its command line and environment before the protocol starts, where only
cheap imports are allowed: ABOUT and START must be answered while the engine still loads.
"""
from __future__ import annotations

#: the environment variable that sets the brain's share (`pbrain-gomoku --eval FILE --share P`)
SHARE_ENV = "GOMOKU_EVAL_SHARE"
#: the share of an evaluator played alone, and the policy weight of one that orders no moves
ALONE_SHARE = 100
NO_ORDER = 0


def parse_share(text: str) -> int:
    """A share of the leaf value (a whole percent, 0..100) from a command line or the
    environment; ValueError with a one-line reason otherwise."""
    try:
        share = int(str(text).strip())
    except ValueError:
        raise ValueError(f"share={text!r} is not a whole number") from None
    if not 0 <= share <= 100:
        raise ValueError(f"share={share} is not a percent (0..100)")
    return share


def blend_words(share: int = ALONE_SHARE, order_weight: int = NO_ORDER) -> str:
    """How an evaluator is played besides its own value, in the player spec's words
    (' at share=50', ' at share=50, order=50'), or '' for the evaluator alone: one file played
    two ways makes two players, and ABOUT, MESSAGE and reports must say which one played."""
    parts = [f"{key}={value}" for key, value, alone in
             (("share", share, ALONE_SHARE), ("order", order_weight, NO_ORDER)) if value != alone]
    return f" at {', '.join(parts)}" if parts else ""
