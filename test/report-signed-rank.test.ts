// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from '../src/ga/rng.ts';
import { excludesZero, hodgesLehmann, signedRankTest, smallestP } from '../src/report/statistics/signed-rank.ts';

/*
 * Expected values computed offline with scipy 1.17.1 (python3), the p-values by scipy itself
 * and the intervals by R's wilcox.test algorithm written out over scipy (R is not on this
 * machine): exact case [w[qu-1], w[M-qu]] with qu = qsignrank(alpha/2, n) over the sorted
 * Walsh averages w, normal case the roots of R's wdiff (tie and continuity corrections) by
 * brentq(xtol=1e-10):
 *
 *   from scipy.stats import wilcoxon, norm, rankdata
 *   from scipy.stats._wilcoxon import _get_wilcoxon_distr
 *   m = 'exact' if n <= 50 and no ties/zeros else 'asymptotic'
 *   wilcoxon(d, method=m, correction=True).pvalue
 *   qu = argmax(cumsum(_get_wilcoxon_distr(n)) >= alpha/2); ci = (w[qu-1], w[M-qu])
 *   def wdiff(mu, zq): xd = d - mu; xd = xd[xd != 0]; nx = len(xd); dr = rankdata(abs(xd))
 *       zd = dr[xd > 0].sum() - nx*(nx+1)/4; t = counts of equal dr
 *       return (zd - sign(zd)*0.5) / sqrt(nx*(nx+1)*(2*nx+1)/24 - sum(t**3 - t)/48) - zq
 *   ci = (brentq(wdiff, d.min(), d.max(), args=(norm.isf(alpha/2),)), brentq(..., args=(-norm.isf(alpha/2),)))
 */
const hwX = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3];
const hwY = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
const log15X = [412, 388, 903, 250, 611, 702, 455, 381, 520, 288, 760, 333, 690, 405, 499];
const log15Y = [530, 401, 870, 390, 640, 980, 600, 377, 805, 300, 1010, 512, 702, 622, 530];
// Censored at c = 2000 (min(T, c)): zeros where both were cut off, ties among the rest.
const cens20X = [900, 1200, 2000, 2000, 700, 450, 2000, 1300, 640, 2000, 880, 1500, 2000, 300, 990, 2000, 1750, 610, 2000, 520];
const cens20Y = [1000, 2000, 2000, 1600, 900, 700, 2000, 2000, 640, 1800, 1000, 2000, 2000, 450, 1200, 2000, 2000, 800, 1400, 600];
// numpy.random.default_rng(45).normal(-0.2, 0.5, 50) rounded to 12 places, then .normal(-0.1, 0.5, 60).
const n50 = [
  -0.428932603166, -0.511429341076, -0.132354986785, 0.221951296903, -0.274249344077, -0.068758109072, 0.065834019025, 0.144903649935,
  -0.645949333516, 0.034410212162, -0.208893814225, -0.500714849143, -0.538817512188, -0.313607666258, -0.696777702168, -0.929451443439,
  -0.168121308291, 0.187258912206, -0.32056585424, 0.170023448402, -0.399982801698, -0.697679865052, -0.961115327481, -0.61012573048,
  0.526641193855, -0.314195361684, -1.108192816857, -0.200636399747, -0.393465558934, -0.437401071008, -0.520288175809, -0.622615775786,
  -0.385446953155, -1.107347579175, -0.773094833798, -0.364700256887, 0.182124873868, 0.028678414822, 0.726024252487, 0.404760153063,
  -1.130419080045, 0.063074674966, 0.289569862775, -0.086910742843, -1.127501757834, -0.382332047616, -0.609380345358, -0.01542785077,
  0.376103791221, 0.122200603295,
];
const n60 = [
  -0.617996281559, 0.294324973567, -0.096631833661, 0.39507085466, -0.25072552996, -0.003320340263, -0.136140381649, -0.217599410831,
  0.646437743532, 0.337423971314, 0.101170740841, -0.803889317811, -0.459939427105, -0.105194062968, 0.177126135889, -0.972740772112,
  0.296316271089, -0.682373947983, -0.730360905497, 0.399153072266, -0.428610808197, 0.040875079785, 0.368360692274, 0.170156940235,
  -0.682690447935, -0.433002539048, -0.447775470485, 0.050870208884, 0.023201091507, 0.411758480438, 0.113038456183, 0.338984732204,
  -0.236645115948, -0.299072325949, -0.909244685062, -0.468061679289, -0.983904399702, -0.551507520285, 0.61906147569, -0.010935822662,
  -0.099507475118, -0.181018946804, -0.376740331586, -0.166141655503, 0.388213728827, -0.651503234864, -0.447814016956, -0.585851622567,
  -0.295865503518, 1.191767449163, 0.823853653372, 0.87671964204, -0.77374701979, -0.821158143281, 0.358109746202, -0.576669218297,
  0.044765918701, -0.804553352581, 0.46332924829, -0.170035476744,
];
const logRatios = (x: number[], y: number[]) => x.map((v, i) => Math.log(v / y[i]));

interface Case {
  name: string;
  d: number[];
  method: 'exact' | 'normal';
  p: number;
  hl: number;
  /** [lower, upper] at 95% and at 1 - 0.05/3 (a Bonferroni family of three). */
  ci95: [number, number];
  ciB3: [number, number];
}

const cases: Case[] = [
  {
    name: "Hollander & Wolfe (R's ?wilcox.test), d = x - y",
    d: hwX.map((v, i) => v - hwY[i]),
    method: 'exact',
    p: 0.0390625,
    hl: 0.4600000000000001,
    ci95: [0.010000000000000009, 0.786],
    ciB3: [-0.08000000000000007, 0.9520000000000001],
  },
  {
    name: '15 log ratios, untied',
    d: logRatios(log15X, log15Y),
    method: 'exact',
    p: 0.0006103515625,
    hl: -0.20648882936175994,
    ci95: [-0.3404533414146407, -0.050546452657452],
    ciB3: [-0.35682285105414313, -0.03688904110177545],
  },
  {
    name: '20 censored log ratios (zeros and ties)',
    d: logRatios(cens20X, cens20Y),
    method: 'normal',
    p: 0.02486785931788523,
    hl: -0.13552174641278214,
    ci95: [-0.2513144283113786, -0.01408543851868082],
    ciB3: [-0.27115277054077586, 2.0842494631924598e-11],
  },
  {
    name: '50 untied differences: still exact',
    d: n50,
    method: 'exact',
    p: 5.9166993136017254e-5,
    hl: -0.28785775915899997,
    ci95: [-0.4204270150245, -0.15760023385650002],
    ciB3: [-0.454233891571, -0.12388682361650001],
  },
  {
    name: '60 untied differences: normal',
    d: n60,
    method: 'normal',
    p: 0.04808794749859665,
    hl: -0.1388269642965,
    ci95: [-0.27364147281499807, -0.0019464054235785223],
    ciB3: [-0.30219003997217714, 0.03532473261677306],
  },
];

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected}`);

describe('signedRankTest and hodgesLehmann against scipy and R', () => {
  for (const c of cases) {
    it(c.name, () => {
      const test = signedRankTest(c.d);
      assert.equal(test.method, c.method);
      close(test.pValue, c.p, 1e-12 * Math.max(1, c.p), 'p');
      const h95 = hodgesLehmann(c.d, 0.95);
      close(h95.estimate, c.hl, 1e-12, 'estimate');
      // The normal case's bounds are Walsh averages; brentq found each jump to within 1e-10.
      const tolerance = c.method === 'exact' ? 1e-12 : 1e-9;
      close(h95.lower, c.ci95[0], tolerance, '95% lower');
      close(h95.upper, c.ci95[1], tolerance, '95% upper');
      const h3 = hodgesLehmann(c.d, 1 - 0.05 / 3);
      close(h3.lower, c.ciB3[0], tolerance, 'Bonferroni-3 lower');
      close(h3.upper, c.ciB3[1], tolerance, 'Bonferroni-3 upper');
      assert.equal(excludesZero(h95), c.p < 0.05);
      assert.equal(excludesZero(h3), c.p < 0.05 / 3);
    });
  }
});

describe('the interval agrees with the test', () => {
  it('excludes 0 exactly when p < 1 - level, on many seeded samples with zeros and ties', () => {
    const rng = Rng.forStream(45, 0);
    let rejected = 0;
    let agreed = 0;
    for (let sample = 0; sample < 3000; sample++) {
      const n = 2 + rng.int(40);
      const shift = (rng.float() - 0.5) * 2;
      const zeros = rng.int(3) === 0 ? rng.int(n) : 0;
      // Rounded to a grid so that ties and exact zeros happen often, as min(T, c) gives them.
      const d = Array.from({ length: n }, (_, i) => (i < zeros ? 0 : Math.round((shift + rng.float() * 2 - 1) * 8) / 8));
      const { pValue } = signedRankTest(d);
      for (const level of [0.95, 1 - 0.05 / 3, 0.99]) {
        if (Number.isNaN(pValue)) continue;
        const h = hodgesLehmann(d, level);
        assert.equal(excludesZero(h), pValue < 1 - level, `d = [${d.join(', ')}], level ${level}, p ${pValue}`);
        assert.ok(h.lower <= h.estimate && h.estimate <= h.upper, `estimate inside, d = [${d.join(', ')}]`);
        if (pValue < 1 - level) rejected++;
        agreed++;
      }
    }
    // The property is tested on both sides: many samples reject, many do not.
    assert.ok(rejected > 500 && agreed - rejected > 500, `${rejected} of ${agreed} rejected`);
  });

  it('finds the order statistics of the Walsh averages that sorting them all gives', () => {
    const rng = Rng.forStream(7, 0);
    for (let sample = 0; sample < 200; sample++) {
      const n = 1 + rng.int(30);
      const d = Array.from({ length: n }, () => Math.round((rng.float() - 0.5) * 20) / 4);
      const walsh: number[] = [];
      for (let i = 0; i < n; i++) for (let j = i; j < n; j++) walsh.push((d[i] + d[j]) / 2);
      walsh.sort((a, b) => a - b);
      const m = walsh.length;
      const median = m % 2 === 1 ? walsh[(m - 1) / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2;
      // (-0 and 0 are one number here.)
      if (n >= 2 && d.some((v) => v !== 0)) assert.ok(hodgesLehmann(d, 0.9).estimate === median, `d = [${d.join(', ')}]`);
    }
  });

  it('cannot reach a level the pairs cannot give: unbounded, and no rejection', () => {
    // Four positive differences: the smallest exact p is 2/16 = 0.125 > 0.05.
    const h = hodgesLehmann([0.1, 0.2, 0.3, 0.4], 0.95);
    assert.equal(h.lower, -Infinity);
    assert.equal(h.upper, Infinity);
    assert.equal(excludesZero(h), false);
    assert.equal(signedRankTest([0.1, 0.2, 0.3, 0.4]).pValue, 0.125);
  });
});

describe('smallestP', () => {
  it('is 2 / 2^n up to 50 pairs and the normal approximation above', () => {
    assert.equal(smallestP(8), 2 / 256);
    assert.equal(smallestP(10), 2 / 1024);
    assert.equal(smallestP(1), Number.NaN);
    // n = 51, V = 1326: z = (1326 - 663 - 0.5) / sqrt(51*52*103/24) = 662.5 / 107.38 = 6.170;
    // python3: 2*norm.sf((51*52/4 - 0.5)/math.sqrt(51*52*103/24)) = 5.30109746670601e-10.
    close(smallestP(51), 5.30109746670601e-10, 1e-20, 'n = 51');
    assert.equal(signedRankTest(Array.from({ length: 8 }, (_, i) => -(i + 1))).pValue, smallestP(8));
  });
});
