# SPDX-License-Identifier: GPL-2.0
"""Statistics of diff: Student's t and normal quantiles, Welch's t
(per sample, and across runs), distribution-free intervals of quantiles,
and the comparison of two sets of runs."""

import fractions
import math
from typing import Dict, List, NamedTuple, Optional, Tuple

from .errors import Error
from .model import Hist, hist_sum, slot_lo, slot_top


def t_cdf_upper(t: float, df: float) -> float:
    """P(T > t) for Student's t with df degrees of freedom (t >= 0)."""
    if math.isinf(df):
        return 0.5 * math.erfc(t / math.sqrt(2))
    x = df / (df + t * t)
    return 0.5 * betainc(df / 2.0, 0.5, x)


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b), by its continued fraction."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(math.log(x) * a + math.log(1 - x) * b + lbeta)
    if x < (a + 1) / (a + b + 2):
        return front * betacf(a, b, x) / a
    return 1 - front * betacf(b, a, 1 - x) / b


def betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            if abs(c) < tiny:
                c = tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def t_quantile(p: float, df: float) -> float:
    """t such that P(T <= t) = p (p > 0.5), by bisection on the CDF."""
    lo, hi = 0.0, 1.0
    while t_cdf_upper(hi, df) > 1 - p:
        hi *= 2
        if hi > 1e9:
            break
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf_upper(mid, df) > 1 - p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def z_quantile(p: float) -> float:
    return t_quantile(p, float('inf'))


def welch(a: Hist, b: Hist, conf: float) -> Tuple[float, float, float]:
    """Welch's t on binned means and variances: (diff, half-width, df)."""
    na, nb = a.count, b.count
    va, vb = a.variance() / na, b.variance() / nb
    diff = b.mean() - a.mean()
    se = math.sqrt(va + vb)
    if se == 0:
        return diff, 0.0, float('inf')
    if na < 2 or nb < 2:
        return diff, float('inf'), 1.0
    df = (va + vb) ** 2 / ((va ** 2 / (na - 1) if va else 0) + (vb ** 2 / (nb - 1) if vb else 0))
    t = t_quantile(1 - (1 - conf) / 2, df)
    return diff, t * se, df


def pooled(hists: List[Hist]) -> Hist:
    """One histogram of every run's samples (runs at the same bits, or
    merged to the coarsest)."""
    bits = min(h.bits for h in hists)
    return hist_sum(bits, [h.merged(bits) for h in hists])


def welch_values(xs: List[float], ys: List[float],
                 conf: float) -> Tuple[float, float, float]:
    """Welch's t on two lists of per-run numbers: (diff, half-width, df)."""
    na, nb = len(xs), len(ys)
    ma, mb = sum(xs) / na, sum(ys) / nb
    va = sum((x - ma) ** 2 for x in xs) / (na - 1) / na
    vb = sum((y - mb) ** 2 for y in ys) / (nb - 1) / nb
    se = math.sqrt(va + vb)
    if se == 0:
        return mb - ma, 0.0, float('inf')
    df = (va + vb) ** 2 / ((va ** 2 / (na - 1)) + (vb ** 2 / (nb - 1)))
    return mb - ma, t_quantile(1 - (1 - conf) / 2, df) * se, df


def order_interval(h: Hist, q, conf: float) -> Tuple[int, int]:
    """Distribution-free interval of the q quantile: the order statistics
    j and k with P(X_(j) <= x_q <= X_(k)) >= conf (normal approximation of
    the binomial), widened to the edges of their slots (the in-slot model's
    error). (lo, hi)."""
    n = h.count
    z = z_quantile(1 - (1 - conf) / 2)
    q = float(q)
    sd = math.sqrt(n * q * (1 - q))
    j = max(int(math.floor(n * q - z * sd)), 1)
    k = min(int(math.ceil(n * q + z * sd)) + 1, n)
    return slot_lo(h.rank(j)[1], h.bits), slot_top(h.rank(k)[1], h.bits)


def verdict_dict(diff: float, ci: float, base: Optional[float], test: str) -> dict:
    return {'difference': diff, 'ci': ci, 'different': abs(diff) > ci,
            'percent': 100 * diff / base if base else None,
            'percent_ci': 100 * ci / base if base else None, 'test': test}


def half(h: Hist) -> float:
    return h.quantile(fractions.Fraction(1, 2))[0]


def diff_per_run(ra: List[Hist], rb: List[Hist], a: Hist, b: Hist, conf: float,
                 percentiles: list) -> Tuple[dict, List[dict], str]:
    """Mean and median: Welch's t across runs, one number per run."""
    res = {}
    for key, f in (('mean', lambda h: h.mean()), ('median', half)):
        xs, ys = [f(h) for h in ra], [f(h) for h in rb]
        d, ci, df = welch_values(xs, ys, conf)
        base = sum(xs) / len(xs)
        res[key] = verdict_dict(d, ci, base, "Welch's t on the %d + %d per-run %ss, df %.1f"
                                % (len(xs), len(ys), key, df))
        res[key]['df'] = None if math.isinf(df) else df
    rows = []
    for w, q in percentiles:
        xs = [h.quantile(q)[0] for h in ra]
        ys = [h.quantile(q)[0] for h in rb]
        d, ci, _ = welch_values(xs, ys, conf)
        rows.append({'p': 'p' + w, 'x': sum(xs) / len(xs), 'y': sum(ys) / len(ys),
                     'difference': d, 'ci': ci, 'different': abs(d) > ci})
    return res, rows, ('per-run values (mean of the runs), Welch\'s t across runs at '
                       '%g%%' % (100 * conf))


def diff_per_sample(a: Hist, b: Hist, conf: float,
                    percentiles: list) -> Tuple[dict, List[dict], str]:
    """Every sample independent: Welch's t and the medians' order
    statistics, each interval widened by the binning's error bound."""
    res = {}
    md, mci, df = welch(a, b, conf)
    mci += a.mean_bound() + b.mean_bound()
    res['mean'] = verdict_dict(md, mci, a.mean(),
                               "per-sample Welch's t on the binned means and variances, "
                               'df %.0f, + the means\' bounds' % df)
    res['mean']['df'] = None if math.isinf(df) else df
    # The median: distribution-free intervals of each side's median, at
    # 1 - (1 - conf) / 2 each so that both hold at conf, to the edges of
    # their slots, so that the binning's error is inside them.
    c2 = 1 - (1 - conf) / 2
    half_q = fractions.Fraction(1, 2)
    ia, ib = order_interval(a, half_q, c2), order_interval(b, half_q, c2)
    dd = half(b) - half(a)
    lo, hi = ib[0] - ia[1], ib[1] - ia[0]
    res['median'] = verdict_dict(dd, max(dd - lo, hi - dd), half(a),
                                 'per-sample: the medians\' distribution-free intervals '
                                 '(binomial order statistics) to slot edges')
    res['median'].update(interval=[lo, hi], different=lo > 0 or hi < 0)
    rows = []
    for w, q in percentiles:
        ia, ib = order_interval(a, q, conf), order_interval(b, q, conf)
        rows.append({'p': 'p' + w, 'x': a.quantile(q)[0], 'y': b.quantile(q)[0],
                     'x_interval': ia, 'y_interval': ib,
                     'different': ia[1] < ib[0] or ib[1] < ia[0]})
    return res, rows, ('distribution-free %g%% intervals (binomial order statistics, '
                       'to slot edges); different if they do not overlap' % (100 * conf))


class Comparison(NamedTuple):
    """diff's result: the pooled sides, the mean and median verdicts, the
    percentile rows and their test, at conf2 per test."""
    per_run: bool
    conf2: float
    a: Hist
    b: Hist
    res: Dict[str, dict]
    rows: List[dict]
    ptest: str

    @property
    def different(self) -> bool:
        return self.res['mean']['different'] or self.res['median']['different']


def compare(ra: List[Hist], rb: List[Hist], conf: float, percentiles: list,
            per_sample: bool) -> Comparison:
    """Runs A against runs B: across runs with 2 or more captures a side
    (unless per_sample), else every sample taken as independent."""
    per_run = not per_sample
    if per_run and (len(ra) < 2 or len(rb) < 2):
        if len(ra) > 1 or len(rb) > 1:
            raise Error('the test across runs needs at least 2 captures on each side '
                        '(or --per-sample)')
        per_run = False
    a, b = pooled(ra), pooled(rb)
    # Two tests, one verdict: each at half the error rate (Bonferroni), so
    # that "either says different" is wrong at most 1 - conf of the time.
    conf2 = 1 - (1 - conf) / 2
    if per_run:
        res, rows, ptest = diff_per_run(ra, rb, a, b, conf2, percentiles)
    else:
        res, rows, ptest = diff_per_sample(a, b, conf2, percentiles)
    return Comparison(per_run, conf2, a, b, res, rows, ptest)
