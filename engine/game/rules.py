"""Rule sets and their names in the Piskvork protocol.

The internal ids are small contiguous ints so numba code can index tables by them; the
protocol's `INFO rule` bitmask is mapped here and only here.
"""
from __future__ import annotations

from enum import IntEnum


class Rule(IntEnum):
    FREESTYLE = 0   # five or more wins
    STANDARD = 1    # exactly five wins; overlines neither win nor count
    RENJU = 2       # black: double-three, double-four and overline forbidden; white five or more
    CARO = 3        # Piskvork rule 8: five not blocked at both ends by opponent stones; overlines win
    CARO_EXACT = 4  # Piskvork rule 9: like CARO but exactly five

    @property
    def label(self) -> str:
        return _LABELS[self]


NUM_RULES = 5

_LABELS = {
    Rule.FREESTYLE: "freestyle",
    Rule.STANDARD: "standard",
    Rule.RENJU: "renju",
    Rule.CARO: "caro",
    Rule.CARO_EXACT: "caro5",
}

_PISKVORK = {Rule.FREESTYLE: 0, Rule.STANDARD: 1, Rule.RENJU: 4, Rule.CARO: 8, Rule.CARO_EXACT: 9}


def rule_from_piskvork(value: int) -> Rule:
    """Map the protocol's `INFO rule` bitmask to a Rule.

    4 is renju (Gomocup); 2 is renju too in the Yixin protocol (Piskvork's 'continuous game'
    bit is never used in tournaments); caro is bit 8, with bit 1 meaning exactly five.
    Raises ValueError for values no manager sends.
    """
    if value & 8:
        return Rule.CARO_EXACT if value & 1 else Rule.CARO
    if value & 4 or value == 2:
        return Rule.RENJU
    if value in (0, 1):
        return Rule(value)
    if value == 3:  # exact five + continuous: play it as standard
        return Rule.STANDARD
    raise ValueError(f"unsupported rule value {value}")


def rule_to_piskvork(rule: Rule) -> int:
    return _PISKVORK[Rule(rule)]


def parse_rule(text: str | int) -> Rule:
    """Accept a name (freestyle, standard, renju, caro, caro5) or a Piskvork number."""
    if isinstance(text, int):
        return rule_from_piskvork(text)
    t = str(text).strip().lower()
    for rule, label in _LABELS.items():
        if t == label or t == rule.name.lower():
            return rule
    aliases = {"exact": Rule.STANDARD, "exact5": Rule.STANDARD, "caro6": Rule.CARO, "caro9": Rule.CARO_EXACT,
               "caro8": Rule.CARO, "gomoku": Rule.FREESTYLE}
    if t in aliases:
        return aliases[t]
    try:
        return rule_from_piskvork(int(t))
    except ValueError:
        pass
    raise ValueError(f"unknown rule {text!r}: use freestyle, standard, renju, caro, caro5 or 0/1/4/8/9")

#: the rule ids as plain ints, for jitted code (st.meta[M_RULE] holds one)
R_FREESTYLE, R_STANDARD, R_RENJU, R_CARO, R_CARO_EXACT = (int(r) for r in Rule)
