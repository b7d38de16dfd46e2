"""Power of the confirmatory default-migration rule (docs/defaults.md, "The confirmatory rule").

For each N, d(s) = mean over 2 and 4 islands of ln(E_sync / E_lagged2) per seed of issue 38's
studies; the resampled d are shifted so their median is ln(0.8), and the rule's test (two-sided
Wilcoxon signed-rank at 0.05/6, exact when n <= 50) is applied to n of them, 1000 times.
Run from the repository root: python3 scripts/defaults-power.py
"""
import json
import math

import numpy as np
from scipy.stats import wilcoxon

FOLDER = "config/experiments/default-migration-2/results/dm2-n%d/runs.jsonl"
SEEDS = {50: 40, 100: 100, 200: 60, 500: 30, 1000: 12, 2000: 12}
ALPHA = 0.05 / len(SEEDS)


def pooled_log_ratios(n_queens):
    evaluations = {}
    for line in open(FOLDER % n_queens):
        record = json.loads(line)
        values = record["values"]
        migration = values["migration"]
        mode = {"sync": "sync", "lagged": "lagged%d" % migration.get("lag", 0)}.get(migration["mode"])
        evaluations[(values["islands"], mode, record["seed"])] = record["evaluations"]
    seeds = sorted({seed for (_, _, seed) in evaluations})
    ratio = lambda k, s: math.log(evaluations[(k, "sync", s)] / evaluations[(k, "lagged2", s)])
    return np.array([(ratio(2, s) + ratio(4, s)) / 2 for s in seeds])


def power(d, n, rng, resamples=1000):
    centred = d - np.median(d) + math.log(0.8)
    method = "exact" if n <= 50 else "approx"
    hits = 0
    for _ in range(resamples):
        x = rng.choice(centred, n)
        hits += wilcoxon(x, method=method, correction=True).pvalue < ALPHA and np.median(x) < 0
    return hits / resamples


rng = np.random.default_rng(1)
for n_queens, n in SEEDS.items():
    d = pooled_log_ratios(n_queens)
    print(f"N = {n_queens}: {n} seeds, power at 0.8x {power(d, n, rng):.2f}, smallest p {2 / 2**n:.2g}")
