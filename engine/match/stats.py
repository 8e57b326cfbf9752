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


def sweep_bound(games: int, confidence: float = 0.95) -> Optional[float]:
    """After `games` games all won, the Elo the winner is at least `confidence` sure to be
    above, or None when that many games do not show it stronger at all.

    Every game won is all-or-nothing for each game, so the exact one-sided binomial bound
    applies: if the winner's chance per game were p, winning all n has probability p**n; the
    bound is the p where that falls to 1 - confidence. The Wilson interval used elsewhere is
    too generous there (its lower end after 3 wins of 3 is already above one half) and its
    two-sided end fell below one half after 2 wins, which printed "at least -113.4" for a
    player that had won everything. A loser's bound is this with the sign turned."""
    if games <= 0:
        return None
    p = (1.0 - confidence) ** (1.0 / games)
    return elo_from_score(p) if p > 0.5 else None


def sweep_games_needed(confidence: float = 0.95) -> int:
    """The fewest games won in a row that give `sweep_bound` a bound (5 at 95 %)."""
    return math.floor(math.log(1.0 - confidence) / math.log(0.5)) + 1


def elo_bounds(wins: int, losses: int, draws: int) -> tuple[Optional[float], Optional[float]]:
    """The 95 % bounds on the Elo difference that `elo_text` states, (lower, upper), None
    where there is none: cutechess's elo -/+ error; after a sweep the one-sided
    `sweep_bound` on the winner's side (and None on the other, which is unbounded); the
    Wilson interval where cutechess's leaves (0, 1). The --json report carries these."""
    n = wins + losses + draws
    if n == 0:
        return None, None
    elo, err = elo_diff(wins, losses, draws), elo_error(wins, losses, draws)
    if math.isfinite(elo) and math.isfinite(err):
        return elo - err, elo + err
    if math.isinf(elo):
        bound = sweep_bound(n)
        if elo > 0:
            return bound, None
        return None, (None if bound is None else -bound)
    lo, hi = (elo_from_score(p) for p in score_interval(wins, losses, draws))
    return lo, hi


def elo_text(wins: int, losses: int, draws: int) -> str:
    """The Elo difference with its 95 % error: cutechess's `X +/- Y` where that is finite;
    after a sweep (inf +/- nan there) the winner's one-sided bound, or that there are too few
    games for one; after a near-sweep the Wilson interval."""
    n = wins + losses + draws
    if n == 0:
        return "none yet (no games)"
    elo, err = elo_diff(wins, losses, draws), elo_error(wins, losses, draws)
    if math.isfinite(elo) and math.isfinite(err):
        return f"{_fmt_elo(elo)} +/- {_fmt_elo(err)}"
    lo, hi = elo_bounds(wins, losses, draws)
    if math.isinf(elo):
        every = "won" if elo > 0 else "lost"
        games = "1 game" if n == 1 else f"all {n} games"
        bound = lo if elo > 0 else hi
        if bound is None:
            return f"{games} {every}, too few for a 95 % bound ({sweep_games_needed()} needed)"
        side = "at least" if elo > 0 else "at most"
        return f"{side} {bound:+.1f} ({games} {every}; 95 % one-sided bound)"
    assert lo is not None and hi is not None      # a near-sweep has both ends of its interval
    return f"{_fmt_elo(elo)}, 95 % interval {_fmt_elo(lo)} to {_fmt_elo(hi)}"


def elo_brief(wins: int, losses: int, draws: int) -> str:
    """The live view's short form of `elo_text` (never "+inf Elo"): `+70 Elo`, `>= +34 Elo`
    after a sweep with a bound, `Elo: too few games` without one; "" before any game."""
    n = wins + losses + draws
    if n == 0:
        return ""
    elo = elo_diff(wins, losses, draws)
    if math.isfinite(elo):
        return f"{elo + 0.0:+.0f} Elo".replace("-0 ", "+0 ")
    lo, hi = elo_bounds(wins, losses, draws)
    if lo is not None:
        return f">= {lo:+.0f} Elo"
    if hi is not None:
        return f"<= {hi:+.0f} Elo"
    return "Elo: too few games"


def elo_line(wins: int, losses: int, draws: int) -> str:
    return (f"Elo difference: {elo_text(wins, losses, draws)}, LOS: {100 * los(wins, losses):.1f} %, "
            f"DrawRatio: {100 * draw_ratio(wins, losses, draws):.1f} %")


def sprt_line(result: SprtResult, basis: str = "") -> str:
    """cutechess's SPRT line; `basis` ("pairs", "games") says what the test counted."""
    text = (f"SPRT: llr {result.llr:.3g} ({result.percent:.1f}%), lbound {result.lower:.2f}, "
            f"ubound {result.upper:.2f}")
    if basis:
        text += f" on {basis}"
    if result.decision == "H1":
        text += " - H1 was accepted"
    elif result.decision == "H0":
        text += " - H0 was accepted"
    return text


# ---------------------------------------------------------------------------------------
# Game pairs: pentanomial statistics and the generalised SPRT (fishtest, fastchess)
#
# A match plays each opening twice with colours swapped; the two games are one *pair*, worth
# 0, 1/2, 1, 3/2 or 2 points to A. Counting pairs instead of games removes the opening's bias
# from the variance (a lopsided opening gives 1 - 1 far more often than 2 - 0), so the same
# games give a smaller error bar and an SPRT decides sooner. The five counts are fishtest's
# `Ptnml(0-2)`: [LL, LD+DL, LW+DD+WL, DW+WD, WW].

#: the per-game score of each pentanomial outcome (pair points / 2)
_PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: what stands in for an outcome never seen, so the maximum-likelihood fit below has every
#: outcome to work with (fishtest's regularisation: a count of 1e-3)
_UNSEEN = 1e-3


@dataclass(frozen=True)
class Pentanomial:
    """Counts of game pairs by the points A took from the pair: 0, 1/2, 1, 3/2, 2."""
    counts: tuple[int, int, int, int, int]

    @classmethod
    def of_pairs(cls, pair_points: "list[float] | tuple[float, ...]") -> "Pentanomial":
        """From each pair's points for A (0, 0.5, 1, 1.5 or 2)."""
        c = [0] * 5
        for p in pair_points:
            k = int(round(2 * p))
            if not 0 <= k <= 4 or abs(2 * p - k) > 1e-9:
                raise ValueError(f"a game pair scores 0, 0.5, 1, 1.5 or 2 points, not {p}")
            c[k] += 1
        return cls((c[0], c[1], c[2], c[3], c[4]))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def mean_var(self) -> tuple[float, float]:
        """The mean per-game score over the pairs and the variance of one pair's mean score."""
        n = self.pairs
        if n == 0:
            return 0.5, 0.0
        mu = sum(c * s for c, s in zip(self.counts, _PAIR_SCORES)) / n
        var = sum(c * (s - mu) ** 2 for c, s in zip(self.counts, _PAIR_SCORES)) / n
        return mu, var

    def elo(self) -> float:
        return elo_from_score(self.mean_var()[0])

    def elo_error(self, confidence: float = 0.95) -> float:
        """Half-width of the Elo's confidence interval from the variance between pairs (the
        figure fastchess prints beside its Ptnml line); inf/nan at the extremes."""
        n = self.pairs
        if n == 0:
            return math.nan
        mu, var = self.mean_var()
        stdev = math.sqrt(var / n)
        z = _two_sided_z(confidence)
        hi, lo = mu + z * stdev, mu - z * stdev
        if not 0 < lo <= hi < 1:
            return math.nan if stdev == 0 else math.inf
        return (elo_from_score(hi) - elo_from_score(lo)) / 2

    def normalized_elo(self) -> tuple[float, float]:
        """Normalised Elo and its 95 % error (fishtest's nElo): the score's distance from 1/2
        in standard deviations of a game, scaled so that small values read like logistic Elo.
        It measures how sure the difference is, not how large, so it compares across time
        controls and draw rates."""
        n = self.pairs
        mu, var = self.mean_var()
        if n == 0 or var <= 0:
            return math.nan, math.nan
        scale = 800.0 / math.log(10.0)
        sigma = math.sqrt(2.0 * var)          # one game's standard deviation, from the pairs
        return (mu - 0.5) / sigma * scale, _two_sided_z(0.95) * scale / math.sqrt(n) / math.sqrt(2.0)

    def llr(self, elo0: float, elo1: float, model: str = "logistic") -> float:
        """The generalised log-likelihood ratio of H1 against H0 on these pairs (fishtest's
        GSPRT): under each hypothesis, the pentanomial distribution that satisfies it and lies
        closest to the observed one (maximum likelihood), compared on the observed counts.

        `model` "logistic": elo0/elo1 are logistic Elo (a hypothesis fixes the mean score);
        "normalized": they are normalised Elo (it fixes the mean's distance from 1/2 in
        standard deviations: fastchess's default, fishtest's today)."""
        if self.pairs == 0:
            return 0.0
        counts = [c if c > 0 else _UNSEEN for c in self.counts]
        total = sum(counts)
        probs = [c / total for c in counts]
        if model == "logistic":
            p0, p1 = (_mle_with_mean(probs, 1.0 / (1.0 + 10.0 ** (-e / 400.0))) for e in (elo0, elo1))
        elif model == "normalized":
            # a pair's t-value is sqrt(2) times a game's: its mean has half a game's variance
            p0, p1 = (_mle_with_t(probs, 0.5, math.sqrt(2.0) * e * math.log(10.0) / 800.0) for e in (elo0, elo1))
        else:
            raise ValueError(f"SPRT model must be logistic or normalized, not {model!r}")
        return total * sum(p * math.log(b / a) for p, a, b in zip(probs, p0, p1))

    def sprt(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
             model: str = "logistic") -> SprtResult:
        """The SPRT state after these pairs: LLR, bounds, and H0/H1 once a bound is crossed."""
        if elo1 <= elo0:
            raise ValueError("SPRT needs elo1 > elo0")
        lower, upper = sprt_bounds(alpha, beta)
        llr = self.llr(elo0, elo1, model)
        decision = "H1" if llr >= upper else "H0" if llr <= lower else None
        return SprtResult(llr, lower, upper, decision)

    def line(self) -> str:
        """fishtest's `Ptnml(0-2): LL, LD, WL+DD, DW, WW` with the pair-based Elo."""
        c = self.counts
        text = f"Ptnml(0-2): {c[0]}, {c[1]}, {c[2]}, {c[3]}, {c[4]}  ({self.pairs} pairs)"
        if self.pairs:
            elo, err = self.elo(), self.elo_error()
            if math.isfinite(elo) and math.isfinite(err):
                text += f", Elo {_fmt_elo(elo)} +/- {_fmt_elo(err)}"
            nelo, nerr = self.normalized_elo()
            if math.isfinite(nelo):
                text += f", nElo {_fmt_elo(nelo)} +/- {_fmt_elo(nerr)}"
        return text


def _secular(d: list[float], probs: list[float]) -> float:
    """The root x of sum_i probs_i d_i / (1 + x d_i) = 0 where every 1 + x d_i > 0 (the
    function falls monotonically there, so bisection finds it); d has both signs."""
    lo, hi = -1.0 / max(d), -1.0 / min(d)
    a, b = lo + 1e-12 * (hi - lo), hi - 1e-12 * (hi - lo)
    for _ in range(200):
        m = (a + b) / 2
        if sum(p * di / (1.0 + m * di) for p, di in zip(probs, d)) > 0:
            a = m
        else:
            b = m
        if b - a <= 1e-15 * max(1.0, abs(a)):
            break
    return (a + b) / 2


def _reweighed(probs: list[float], d: list[float], x: float) -> list[float]:
    q = [p / (1.0 + x * di) for p, di in zip(probs, d)]
    total = sum(q)
    return [v / total for v in q]


def _mle_with_mean(probs: list[float], s: float) -> list[float]:
    """The distribution over _PAIR_SCORES with mean `s` most likely to have produced the
    observed frequencies `probs` (all > 0): probs_i / (1 + x (a_i - s)) for the x that makes
    the mean s (a Lagrange multiplier; fishtest's MLE)."""
    d = [a - s for a in _PAIR_SCORES]
    return _reweighed(probs, d, _secular(d, probs))


def _mle_with_t(probs: list[float], ref: float, t: float) -> list[float]:
    """The distribution over _PAIR_SCORES whose (mean - ref) / sd is `t`, most likely to have
    produced `probs`: the constraint is not linear in the probabilities, so it is linearised
    at the current estimate and solved as for a mean, until the estimate stops moving
    (fishtest's MLE_t_value; it converges in a handful of rounds)."""
    q = [1.0 / len(probs)] * len(probs)
    for _ in range(100):
        mu = sum(p * a for p, a in zip(q, _PAIR_SCORES))
        sigma = math.sqrt(sum(p * (a - mu) ** 2 for p, a in zip(q, _PAIR_SCORES)))
        d = [a - ref - t * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0 for a in _PAIR_SCORES]
        new = _reweighed(probs, d, _secular(d, probs))
        done = max(abs(u - v) for u, v in zip(new, q)) < 1e-12
        q = new
        if done:
            break
    return q
