"""Elo / LOS / SPRT arithmetic against published cutechess numbers.

Reference values:
* cutechess's own unit test projects/lib/tests/sprt/tst_sprt.cpp (LLR and bounds, +-0.01).
* cutechess-cli match reports quoted in public pull requests (JoAnnP38/Pedantic #8 and #10,
  kelseyde/calvin-chess-engine #97, princesslana/princhess #265), printed to one decimal.
"""
from __future__ import annotations

import math

import pytest

from gomoku.engine.match import stats


@pytest.mark.parametrize(
    "w,l,d,elo,err,los_pct,dr_pct",
    [
        (332, 316, 352, "5.6", "17.3", "73.5", "35.2"),       # Pedantic #8
        (1342, 1317, 1341, "2.2", "8.8", "68.6", "33.5"),     # Pedantic #10
        (540, 531, 1590, "1.2", "8.4", "60.8", "59.8"),       # calvin #97
        (1216, 1199, 3939, "0.9", "5.3", "63.5", "62.0"),     # calvin #97
        (65, 66, 69, "-1.7", "39.1", "46.5", "34.5"),         # princhess #265
    ],
)
def test_elo_line_matches_cutechess_reports(w, l, d, elo, err, los_pct, dr_pct):
    line = stats.elo_line(w, l, d)
    assert line == f"Elo difference: {elo} +/- {err}, LOS: {los_pct} %, DrawRatio: {dr_pct} %"


def test_score_line_format():
    assert stats.score_line("A", "B", 332, 316, 352) == "Score of A vs B: 332 - 316 - 352  [0.508] 1000"


def test_elo_hand_values():
    # 60 % score -> -400*log10(1/0.6 - 1) = 70.437 Elo
    assert stats.elo_diff(60, 40, 0) == pytest.approx(70.437, abs=1e-3)
    assert stats.elo_diff(10, 10, 5) == pytest.approx(0.0)
    assert stats.elo_diff(5, 0, 0) == math.inf
    assert stats.elo_diff(0, 5, 0) == -math.inf
    # symmetric
    assert stats.elo_diff(30, 20, 7) == pytest.approx(-stats.elo_diff(20, 30, 7))
    assert stats.elo_error(30, 20, 7) == pytest.approx(stats.elo_error(20, 30, 7))
    # LOS 60-40: 0.5 + 0.5*erf(20/sqrt(2*100)) = 0.5 + 0.5*erf(sqrt 2) = 0.97725
    assert stats.los(60, 40) == pytest.approx(0.977250, abs=1e-6)
    assert stats.los(0, 0) == 0.5
    assert stats.draw_ratio(1, 1, 2) == 0.5


def test_two_sided_z_is_the_normal_quantile():
    # the tabled 95 %, 98 % and 99 % two-sided quantiles, to 1e-9
    assert stats._two_sided_z(0.95) == pytest.approx(1.959963985, abs=1e-9)
    assert stats._two_sided_z(0.98) == pytest.approx(2.326347874, abs=1e-9)
    assert stats._two_sided_z(0.99) == pytest.approx(2.575829304, abs=1e-9)
    assert stats._two_sided_z(0.0) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError):
        stats._two_sided_z(1.0)


def test_intervals_keep_the_values_of_the_rational_approximation():
    # figures of the former hand-written quantile (Acklam's approximation + one Newton step)
    assert stats.elo_error(30, 20, 7) == pytest.approx(87.59648337, abs=1e-6)
    lo, hi = stats.score_interval(10, 0, 0)
    assert (lo, hi) == (pytest.approx(0.722467, abs=1e-6), 1.0)


@pytest.mark.parametrize(
    "elo0,elo1,alpha,beta,w,l,d,llr,lb,ub",
    [
        (0.0, 10.0, 0.01, 0.01, 1477, 1351, 2942, 2.52, -4.6, 4.6),   # tst_sprt test1
        (0.0, 10.0, 0.01, 0.01, 555, 555, 298, -0.74, -4.6, 4.6),     # tst_sprt test2
    ],
)
def test_sprt_matches_cutechess_unit_test(elo0, elo1, alpha, beta, w, l, d, llr, lb, ub):
    r = stats.sprt(w, l, d, elo0, elo1, alpha, beta)
    assert r.llr == pytest.approx(llr, abs=0.01)
    assert r.lower == pytest.approx(lb, abs=0.01)
    assert r.upper == pytest.approx(ub, abs=0.01)
    assert r.decision is None


def test_sprt_bounds_and_decisions():
    # cutechess prints "lbound -2.25, ubound 2.89" for alpha 0.05, beta 0.10
    lo, hi = stats.sprt_bounds(0.05, 0.10)
    assert (round(lo, 2), round(hi, 2)) == (-2.25, 2.89)
    lo, hi = stats.sprt_bounds(0.05, 0.05)
    assert (round(lo, 2), round(hi, 2)) == (-2.94, 2.94)
    # a crushing score accepts H1, the reverse accepts H0
    assert stats.sprt(300, 100, 100, 0, 10).decision == "H1"
    assert stats.sprt(100, 300, 100, 0, 10).decision == "H0"
    # a sweep moves the LLR towards H1 (cutechess stays at 0 until all three outcomes appear)
    assert stats.sprt(6, 0, 0, 0, 10).llr > 0.1
    assert stats.sprt(0, 6, 0, 0, 10).llr < -0.1
    assert stats.sprt(10, 0, 3, 0, 10).llr > stats.sprt(6, 0, 0, 0, 10).llr
    assert stats.sprt(0, 0, 0, 0, 10).llr == 0.0
    with pytest.raises(ValueError):
        stats.sprt(1, 1, 1, 10, 0)
    line = stats.sprt_line(stats.sprt(300, 100, 100, 0, 10))
    assert line.startswith("SPRT: llr ") and line.endswith("H1 was accepted")


def test_elo_line_after_a_sweep_gives_a_bound_not_inf_nan():
    line = stats.elo_line(6, 0, 0)
    assert "inf" not in line and "nan" not in line, line
    assert line.startswith("Elo difference: at least +75.5 (all 6 games won; 95 % one-sided bound), LOS: ")
    assert stats.elo_line(0, 6, 0).startswith("Elo difference: at most -75.5 (all 6 games lost; ")
    near = stats.elo_line(5, 0, 1)             # normal interval leaves (0, 1): Wilson's instead
    assert "nan" not in near and "95 % interval" in near and "to inf" not in near, near
    assert stats.elo_line(30, 20, 7).startswith(
        f"Elo difference: {stats.elo_diff(30, 20, 7):.1f} +/- {stats.elo_error(30, 20, 7):.1f}, LOS: ")
    assert "no games" in stats.elo_line(0, 0, 0)
    lo, hi = stats.score_interval(10, 0, 0)
    assert 0.6 < lo < 1 and hi == 1.0


def test_a_sweep_bound_is_on_the_winners_side_or_there_is_none():
    """Winning all n games has probability p**n at a chance p per game: the one-sided 95 %
    bound is p = 0.05 ** (1/n), above one half (a positive Elo) from 5 games on. Before,
    the Wilson interval's two-sided end said "at least -113.4" after 2 wins of 2."""
    assert stats.sweep_games_needed() == 5 and stats.sweep_games_needed(0.99) == 7
    for n in range(1, 5):
        assert stats.sweep_bound(n) is None
        assert stats.elo_bounds(n, 0, 0) == (None, None) == stats.elo_bounds(0, n, 0)
        games = "1 game" if n == 1 else f"all {n} games"
        assert stats.elo_text(n, 0, 0) == f"{games} won, too few for a 95 % bound (5 needed)"
        assert stats.elo_text(0, n, 0) == f"{games} lost, too few for a 95 % bound (5 needed)"
        assert stats.elo_brief(n, 0, 0) == "Elo: too few games"
    previous = 0.0
    for n in (5, 6, 10, 20, 100):
        lo = stats.sweep_bound(n)
        assert lo is not None and lo > previous                       # more wins, a higher floor
        # the exact binomial bound: the score at that Elo, won n times running, is 5 % likely
        assert (1 / (1 + 10 ** (-lo / 400))) ** n == pytest.approx(0.05)
        assert stats.elo_bounds(n, 0, 0) == (lo, None) and stats.elo_bounds(0, n, 0) == (None, -lo)
        assert stats.elo_text(n, 0, 0) == f"at least {lo:+.1f} (all {n} games won; 95 % one-sided bound)"
        assert stats.elo_brief(n, 0, 0) == f">= {lo:+.0f} Elo" and stats.elo_brief(0, n, 0) == f"<= {-lo:+.0f} Elo"
        previous = lo
    assert stats.sweep_bound(5) == pytest.approx(34.35, abs=0.01)


def test_elo_bounds_and_brief_agree_with_the_report_elsewhere():
    elo, err = stats.elo_diff(30, 20, 7), stats.elo_error(30, 20, 7)
    assert stats.elo_bounds(30, 20, 7) == (pytest.approx(elo - err), pytest.approx(elo + err))
    assert stats.elo_brief(30, 20, 7) == f"{elo:+.0f} Elo"
    lo, hi = stats.elo_bounds(5, 0, 1)                 # near-sweep: the Wilson interval, as printed
    assert f"95 % interval {lo:.1f} to {hi:.1f}" in stats.elo_text(5, 0, 1)
    assert stats.elo_brief(0, 0, 4) == "+0 Elo"        # all draws: not "-0"
    assert stats.elo_bounds(0, 0, 0) == (None, None) and stats.elo_brief(0, 0, 0) == ""


# ---------------------------------------------------------------------------------------
# Game pairs (pentanomial). Reference values: fastchess match reports quoted in public
# repositories (its Elo, nElo and GSPRT are fishtest's formulas; its SPRT model is
# "normalized" by default), printed to two decimals.

@pytest.mark.parametrize(
    "counts,elo,err,nelo,nerr",
    [
        ((352, 579, 1264, 743, 464), 19.83, 6.77, 24.25, 8.26),     # Zeno doubled-passed-pawns
        ((0, 0, 1, 8, 1), 190.85, 65.54, 549.34, 152.27),          # a 20-game test
        ((1, 10, 78, 48, 13), 72.85, 22.33, 132.30, 39.32),        # sf19 small net vs sf18
        ((0, 1, 0, 1, 0), 0.0, 296.58, 0.0, 340.48),               # 4 games
    ],
)
def test_pentanomial_elo_matches_fastchess_reports(counts, elo, err, nelo, nerr):
    p = stats.Pentanomial(counts)
    assert round(p.elo(), 2) == pytest.approx(elo, abs=1e-9)
    assert round(p.elo_error(), 2) == pytest.approx(err, abs=1e-9)
    n, ne = p.normalized_elo()
    assert (round(n, 2), round(ne, 2)) == (pytest.approx(nelo, abs=1e-9), pytest.approx(nerr, abs=1e-9))


@pytest.mark.parametrize(
    "counts,elo0,elo1,llr",
    [
        ((352, 579, 1264, 743, 464), 9.0, 16.0, 4.60),      # Zeno: "LLR: 4.60 ... [9.00, 16.00]"
        ((0, 0, 1, 8, 1), 0.0, 50.0, 1.24),                 # "LLR: 1.24 (42.1%) (-2.94, 2.94) [0.00, 50.00]"
    ],
)
def test_normalized_gsprt_matches_fastchess_reports(counts, elo0, elo1, llr):
    p = stats.Pentanomial(counts)
    assert round(p.llr(elo0, elo1, "normalized"), 2) == pytest.approx(llr, abs=1e-9)
    res = p.sprt(elo0, elo1, 0.05, 0.05, "normalized")
    assert round(res.percent, 1) == pytest.approx(42.1) if counts == (0, 0, 1, 8, 1) else res.decision == "H1"


def test_logistic_gsprt_tends_to_the_normal_approximation():
    """On many pairs the exact GSPRT and its normal approximation (N/2 ((mu-s0)^2 - (mu-s1)^2)
    / var, fishtest's LLR_alt2) agree: here within 0.1 %."""
    p = stats.Pentanomial((1200, 8000, 17000, 8300, 1300))
    mu, var = p.mean_var()
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (0.0, 2.0))
    approx = 0.5 * p.pairs * ((mu - s0) ** 2 - (mu - s1) ** 2) / var
    assert p.llr(0.0, 2.0) == pytest.approx(approx, rel=1e-3)
    assert p.llr(0.0, 2.0) == pytest.approx(4.607, abs=1e-3)


def test_gsprt_hand_cases():
    even = stats.Pentanomial((10, 40, 100, 40, 10))
    # a symmetric sample says nothing for or against symmetric hypotheses around 0
    assert even.llr(-5.0, 5.0) == pytest.approx(0.0, abs=1e-9)
    # it favours elo 0 over elo 10: negative, and more so with more of the same pairs
    assert even.llr(0.0, 10.0) < 0
    assert stats.Pentanomial((20, 80, 200, 80, 20)).llr(0.0, 10.0) == pytest.approx(2 * even.llr(0.0, 10.0),
                                                                                   rel=1e-9)
    # swapping the players mirrors the counts and the hypotheses: A's H1 (+10) against H0 (0) is
    # B's 0 against -10, the ratio upside down
    a = stats.Pentanomial((3, 20, 50, 30, 9))
    b = stats.Pentanomial((9, 30, 50, 20, 3))
    assert a.llr(0.0, 10.0) == pytest.approx(-b.llr(-10.0, 0.0), rel=1e-9)
    assert stats.Pentanomial((0, 0, 0, 0, 0)).llr(0.0, 10.0) == 0.0
    with pytest.raises(ValueError):
        a.llr(0.0, 10.0, "bayes")
    with pytest.raises(ValueError):
        a.sprt(5.0, 5.0)


def test_pairs_cut_the_error_bar_when_openings_are_lopsided():
    """Pairs of 1 - 1 (each side wins the opening's good colour) are the same games to a
    trinomial count as a coin toss, but a pair count sees that they tell nothing apart: the
    pentanomial error bar is the honest, smaller one."""
    pairs = stats.Pentanomial((5, 10, 70, 10, 5))            # 100 pairs, mostly 1 - 1
    games_w, games_l, games_d = 5 * 2 + 10 + 70, 5 * 2 + 10 + 70, 10 + 10   # the same 200 games
    assert pairs.elo_error() < 0.6 * stats.elo_error(games_w, games_l, games_d)


def test_of_pairs_and_line():
    p = stats.Pentanomial.of_pairs([0, 0.5, 1, 1, 1.5, 2, 2])
    assert p.counts == (1, 1, 2, 1, 2) and p.pairs == 7
    assert p.line().startswith("Ptnml(0-2): 1, 1, 2, 1, 2  (7 pairs), Elo ")
    assert stats.Pentanomial((0, 0, 0, 0, 0)).line() == "Ptnml(0-2): 0, 0, 0, 0, 0  (0 pairs)"
    with pytest.raises(ValueError):
        stats.Pentanomial.of_pairs([0.75])
