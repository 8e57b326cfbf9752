"""Match statistics: score, Elo difference with error bars, LOS, draw ratio and SPRT.

Pure functions over win/loss/draw counts, using the formulas of cutechess-cli so our
numbers can be compared with the match reports people already read:

* Elo from the score fraction with the logistic model, error margin from the 95 % normal
  interval of the score mapped back through the same curve (cutechess `Elo::errorMargin`).
* LOS from the normal approximation of wins vs losses (draws carry no information).
* SPRT: the log-likelihood ratio of cutechess (`Sprt::status`), a BayesElo trinomial model
  whose draw Elo is estimated from the games so far; elo0/elo1 are logistic Elo.

Used by `gomoku match` and by training (gating), so nothing here prints or imports UI code.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Optional

_STANDARD_NORMAL = NormalDist()


def _two_sided_z(confidence: float) -> float:
    """The normal quantile that leaves (1 - confidence) / 2 in each tail: the standard
    library's inverse CDF, so no scipy and no hand-written approximation."""
    return _STANDARD_NORMAL.inv_cdf(1 - (1 - confidence) / 2)


def score(wins: int, losses: int, draws: int) -> float:
    """Score fraction (wins + draws/2) / games; 0.5 for no games."""
    n = wins + losses + draws
    return (wins + draws / 2) / n if n else 0.5


def elo_from_score(s: float) -> float:
    """Logistic Elo difference for a score fraction; +-inf at 1 and 0."""
    if s >= 1.0:
        return math.inf
    if s <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / s - 1.0)


def elo_diff(wins: int, losses: int, draws: int) -> float:
    return elo_from_score(score(wins, losses, draws))


def elo_error(wins: int, losses: int, draws: int, confidence: float = 0.95) -> float:
    """Half-width of the confidence interval of the Elo difference (cutechess formula).

    The per-game score variance around the mean, divided by n, gives the standard error of
    the mean score; its two-sided interval is mapped through the Elo curve and halved.
    Returns inf/nan at the extremes like cutechess (all wins, all losses, no games).
    """
    n = wins + losses + draws
    if n == 0:
        return math.nan
    w, l, d = wins / n, losses / n, draws / n
    mu = w + d / 2
    var = w * (1 - mu) ** 2 + l * (0 - mu) ** 2 + d * (0.5 - mu) ** 2
    stdev = math.sqrt(var) / math.sqrt(n)
    z = _two_sided_z(confidence)
    mu_max, mu_min = mu + z * stdev, mu - z * stdev
    if not 0 < mu_min < mu_max < 1:
        return math.nan if stdev == 0 else math.inf
    return (elo_from_score(mu_max) - elo_from_score(mu_min)) / 2


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority in [0, 1]: P(A stronger than B) from wins vs losses."""
    if wins + losses == 0:
        return 0.5
    return 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses)))


def draw_ratio(wins: int, losses: int, draws: int) -> float:
    n = wins + losses + draws
    return draws / n if n else 0.0


# ---------------------------------------------------------------------------------------
# SPRT (cutechess `Sprt`)

@dataclass(frozen=True)
class SprtResult:
    llr: float
    lower: float          # log(beta / (1 - alpha)): at or below, H0 is accepted
    upper: float          # log((1 - beta) / alpha): at or above, H1 is accepted
    decision: Optional[str]  # "H0", "H1" or None while undecided

    @property
    def percent(self) -> float:
        """How far the LLR has travelled towards the bound it is heading to (cutechess's
        figure in parentheses)."""
        bound = self.upper if self.llr >= 0 else self.lower
        return 100.0 * self.llr / bound if bound else 0.0


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must be in (0, 1)")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _bayes_probs(bayes_elo: float, draw_elo: float) -> tuple[float, float, float]:
    p_win = 1.0 / (1.0 + 10.0 ** ((draw_elo - bayes_elo) / 400.0))
    p_loss = 1.0 / (1.0 + 10.0 ** ((draw_elo + bayes_elo) / 400.0))
    return p_win, p_loss, 1.0 - p_win - p_loss


def sprt_llr(wins: int, losses: int, draws: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (elo = elo1) against H0 (elo = elo0).

    cutechess's model: estimate the draw Elo from the observed frequencies, convert the
    logistic elo0/elo1 to BayesElo with the draw-dependent scale, and compare the
    trinomial likelihoods. cutechess returns 0 until there is at least one win, one loss and
    one draw, so a 6 - 0 sweep read "llr 0 (0.0%)"; here the draw Elo (a nuisance parameter)
    is then estimated with half a game added to each outcome, and the likelihoods use the
    real counts. With all three outcomes seen the figure is cutechess's.
    """
    n = wins + losses + draws
    if n <= 0:
        return 0.0
    if wins > 0 and losses > 0 and draws > 0:
        p_win, p_loss = wins / n, losses / n
    else:
        p_win, p_loss = (wins + 0.5) / (n + 1.5), (losses + 0.5) / (n + 1.5)
    draw_elo = 200.0 * math.log10((1 - p_loss) / p_loss * (1 - p_win) / p_win)
    x = 10.0 ** (-draw_elo / 400.0)
    scale = 4.0 * x / ((1.0 + x) ** 2)
    w0, l0, d0 = _bayes_probs(elo0 / scale, draw_elo)
    w1, l1, d1 = _bayes_probs(elo1 / scale, draw_elo)
    return wins * math.log(w1 / w0) + losses * math.log(l1 / l0) + draws * math.log(d1 / d0)


def sprt(wins: int, losses: int, draws: int, elo0: float, elo1: float,
         alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """The SPRT state after these games: LLR, bounds, and H0/H1 once a bound is crossed."""
    if elo1 <= elo0:
        raise ValueError("SPRT needs elo1 > elo0")
    lower, upper = sprt_bounds(alpha, beta)
    llr = sprt_llr(wins, losses, draws, elo0, elo1)
    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtResult(llr, lower, upper, decision)


# ---------------------------------------------------------------------------------------
# Report lines

def _fmt_elo(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x + 0.0:.1f}".replace("-0.0", "0.0")


def score_line(name_a: str, name_b: str, wins: int, losses: int, draws: int) -> str:
    n = wins + losses + draws
    return f"Score of {name_a} vs {name_b}: {wins} - {losses} - {draws}  [{score(wins, losses, draws):.3f}] {n}"


def score_interval(wins: int, losses: int, draws: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson interval of the score fraction: unlike the normal one it stays inside [0, 1]
    and has a width after a clean sweep (where the observed variance is 0)."""
    n = wins + losses + draws
    if n == 0:
        return 0.0, 1.0
    mu = score(wins, losses, draws)
    z = _two_sided_z(confidence)
    centre = (mu + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(max(0.0, mu * (1 - mu)) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_text(wins: int, losses: int, draws: int) -> str:
    """The Elo difference with its 95 % error: cutechess's `X +/- Y` where that is finite;
    after a sweep or a near-sweep (inf +/- nan there) a bound from the Wilson interval."""
    n = wins + losses + draws
    if n == 0:
        return "none yet (no games)"
    elo, err = elo_diff(wins, losses, draws), elo_error(wins, losses, draws)
    if math.isfinite(elo) and math.isfinite(err):
        return f"{_fmt_elo(elo)} +/- {_fmt_elo(err)}"
    lo, hi = (elo_from_score(p) for p in score_interval(wins, losses, draws))
    if math.isinf(elo):
        every = "won" if elo > 0 else "lost"
        bound = f"at least {_fmt_elo(lo)}" if elo > 0 else f"at most {_fmt_elo(hi)}"
        return f"{bound} (all {n} games {every}; 95 % bound)"
    return f"{_fmt_elo(elo)}, 95 % interval {_fmt_elo(lo)} to {_fmt_elo(hi)}"


def elo_line(wins: int, losses: int, draws: int) -> str:
    return (f"Elo difference: {elo_text(wins, losses, draws)}, LOS: {100 * los(wins, losses):.1f} %, "
            f"DrawRatio: {100 * draw_ratio(wins, losses, draws):.1f} %")


def sprt_line(result: SprtResult) -> str:
    text = (f"SPRT: llr {result.llr:.3g} ({result.percent:.1f}%), lbound {result.lower:.2f}, "
            f"ubound {result.upper:.2f}")
    if result.decision == "H1":
        text += " - H1 was accepted"
    elif result.decision == "H0":
        text += " - H0 was accepted"
    return text
