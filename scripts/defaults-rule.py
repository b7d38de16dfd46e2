"""docs/defaults.md's confirmatory rule (issue 45), recomputed with scipy from the study folders.

A referee's check of bench/defaults-tables.ts's block: the same d per seed, the same tests, the
same intervals, the same decision. Run from the repository root:
  python3 scripts/defaults-rule.py config/experiments/default-migration-3/results/dm3-n*
"""
import json
import math
import sys

import numpy as np
from scipy.stats import kruskal, norm, wilcoxon

ALPHA, SIZES, MARGIN = 0.05, 6, 1.05


def pair_log_ratio(sync, lagged):
    """ln(sync / lagged), both cut at the pair's smaller budget when a run did not solve."""
    cut = min(math.inf if s["solved"] else s["evaluations"] for s in (sync, lagged))
    return math.log(min(sync["evaluations"], cut) / min(lagged["evaluations"], cut))


def load(folder):
    runs = {}
    for line in open(f"{folder}/runs.jsonl"):
        r = json.loads(line)
        runs[(r["values"]["islands"], r["values"]["migration"]["mode"], r["seed"])] = r
    n = json.load(open(f"{folder}/manifest.json"))["cells"][0]["config"]["n"]
    seeds = sorted({s for (_, _, s) in runs if all((k, m, s) in runs for k in (2, 4) for m in ("sync", "lagged"))})
    ratios = {k: np.array([pair_log_ratio(runs[(k, "sync", s)], runs[(k, "lagged", s)]) for s in seeds]) for k in (2, 4)}
    return n, (ratios[2] + ratios[4]) / 2, ratios


def signrank_pmf(n):
    """The null distribution of V = R+ for n values without ties (counts / 2^n)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1
    for i in range(1, n + 1):
        shifted = np.zeros_like(counts)
        shifted[i:] = counts[:-i]
        counts = counts + shifted
    return counts / counts.sum()


def exact(d):
    """R's rule: the exact null law when at most 50 values remain, none zero or tied in size."""
    return len(d) <= 50 and len(set(np.abs(d))) == len(d) and np.all(d != 0)


def p_value(d):
    return wilcoxon(d, method="exact" if exact(d) else "asymptotic", correction=True).pvalue


def p_of_v(v, n, use_exact):
    """Two-sided p of V = R+ over n values: twice the tail V lies in (exact), or the corrected normal approximation."""
    mean = n * (n + 1) / 4
    if use_exact:
        cdf = np.cumsum(signrank_pmf(n))
        tail = 1 - cdf[int(v) - 1] if v > mean else cdf[int(v)]
        return min(1.0, 2 * tail)
    sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    z = (v - mean - 0.5 * np.sign(v - mean)) / sd
    return min(1.0, 2 * norm.cdf(-abs(z)))


def hodges_lehmann(d, level):
    """exp of the HL estimate and of the interval of shifts mu the same test accepts at 1 - level:
    between the k-th and (k+1)-th Walsh averages V(mu) = m - k (R's wilcox.test conf.int)."""
    n = len(d)
    walsh = np.sort([(d[i] + d[j]) / 2 for i in range(n) for j in range(i, n)])
    m, alpha, use_exact = len(walsh), 1 - level, exact(d)
    accepted = [p_of_v(m - k, n, use_exact) >= alpha for k in range(m + 1)]
    k_low = accepted.index(True)
    k_high = max(k for k in range(m + 1) if accepted[k])
    lo = -math.inf if k_low == 0 else walsh[k_low - 1]
    hi = math.inf if k_high >= m else walsh[k_high]
    return math.exp(np.median(walsh)), math.exp(lo), math.exp(hi)


def main(folders):
    sizes = sorted(load(f) for f in folders)
    rows = []
    for n, d, ratios in sizes:
        p = p_value(d)
        est = hodges_lehmann(d, 1 - ALPHA / SIZES)
        by = {k: hodges_lehmann(ratios[k], 0.95) for k in (2, 4)}
        lower = p < ALPHA / SIZES and est[2] < 1
        non_inferior = all(by[k][2] < MARGIN for k in (2, 4))
        rows.append((n, lower, non_inferior, est))
        print(f"N = {n}: {len(d)} seeds, {est[0]:.3f}x [{est[1]:.3f}, {est[2]:.3f}], p = {p:.3g}, "
              f"2 islands up to {by[2][2]:.3f}, 4 islands up to {by[4][2]:.3f}, lower {lower}, non-inferior {non_inferior}")
    h = kruskal(*[d for _, d, _ in sizes])
    print(f"Kruskal-Wallis: H = {h.statistic:.3f}, p = {h.pvalue:.4f}")
    all_d = np.concatenate([d for _, d, _ in sizes])
    pooled = hodges_lehmann(all_d, 1 - ALPHA)
    by = {k: hodges_lehmann(np.concatenate([r[k] for _, _, r in sizes]), 0.95) for k in (2, 4)}
    p = p_value(all_d)
    print(f"All sizes: {pooled[0]:.3f}x [{pooled[1]:.3f}, {pooled[2]:.3f}], p = {p:.3g}; "
          f"2 islands up to {by[2][2]:.3f}, 4 islands up to {by[4][2]:.3f}")
    if h.pvalue >= ALPHA:
        sync = p < ALPHA and pooled[2] < 1 and all(by[k][2] < MARGIN for k in (2, 4)) and all(e[1] <= 1 for *_, e in rows)
        print("Decision (one mode at every N):", "sync" if sync else "lagged")
    else:
        print("Decision (by N):", ", ".join(f"{n}: {'sync' if lo and ni else 'lagged'}" for n, lo, ni, _ in rows))


main(sys.argv[1:])
