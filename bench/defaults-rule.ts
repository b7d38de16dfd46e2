/**
 * docs/defaults.md's confirmatory rule (issue 45, "The confirmatory rule"), applied to the
 * study folders of config/experiments/default-migration-3/results: per N the signed-rank test
 * of d = ½[ln(E_sync,2 / E_lag2,2) + ln(E_sync,4 / E_lag2,4)] per seed with its Hodges–Lehmann
 * interval at 1 − 0.05/6, non-inferiority at each island count (95% upper bound below 1.05),
 * the Kruskal–Wallis test of d across sizes, and the decision the rule's item 7 makes of them.
 *   node --import tsx bench/defaults-rule.ts DIR... [--write docs/defaults.md]
 * Without --write it prints the block; with it, it replaces what lies between the page's
 * `<!-- dm3-rule:begin -->` and `<!-- dm3-rule:end -->` markers. scripts/defaults-rule.py
 * recomputes the same numbers with scipy.
 */
import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeDocBlock } from './doc-block.ts';
import { hodgesLehmann, signedRankTest } from '../src/report/statistics/signed-rank.ts';
import { averageRanks } from '../src/report/statistics/stats.ts';
import { readStudy } from '../src/report/data/study-data.ts';

/** The rule's constants, as docs/defaults.md states them. */
export const RULE = { alpha: 0.05, sizes: 6, margin: 1.05, islands: [2, 4] } as const;

type Mode = 'sync' | 'lagged';
/** Evaluations of one seed's four runs at one N, each pair cut at its smaller budget when a run was censored. */
interface SeedRuns {
  seed: number;
  logRatio: Record<number, number>;
  censored: boolean;
}

export interface Estimate {
  ratio: number;
  lower: number;
  upper: number;
}
export interface SizeVerdict {
  n: number;
  seeds: number;
  censored: number;
  p: number;
  method: string;
  /** exp(HL) of d with its interval at 1 − α/sizes. */
  pooled: Estimate;
  /** exp(HL) of each island count's log ratios with its 95% interval. */
  byIslands: Record<number, Estimate>;
  lower: boolean;
  nonInferior: boolean;
  /** d per seed, and each island count's log ratios per seed. */
  d: number[];
  logRatios: Record<number, number[]>;
}
export interface RuleVerdict {
  sizes: SizeVerdict[];
  interaction: { h: number; df: number; p: number };
  allSizes: { p: number; pooled: Estimate; byIslands: Record<number, Estimate>; nonInferior: boolean; noneWorse: boolean };
  branch: 'one mode at every N' | 'by N';
  modeByN: { upTo: number | null; mode: Mode }[];
}

/** The log ratio sync / lagged of one island count, each side cut at the pair's smaller budget if either is unsolved. */
function pairLogRatio(sync: { evaluations: number; solved: boolean }, lagged: { evaluations: number; solved: boolean }): number {
  const cut = Math.min(sync.solved ? Infinity : sync.evaluations, lagged.solved ? Infinity : lagged.evaluations);
  return Math.log(Math.min(sync.evaluations, cut) / Math.min(lagged.evaluations, cut));
}

function seedRuns(dir: string): { n: number; seeds: SeedRuns[] } {
  const study = readStudy(dir);
  const n = study.manifest.cells[0].config.n;
  const runs = new Map(
    study.runs.map((r) => {
      const v = r.values as { islands: number; migration: { mode: Mode } };
      return [`${v.islands}/${v.migration.mode}/${r.seed}`, r];
    }),
  );
  const seeds = study.manifest.seeds.flatMap((seed) => {
    const four = RULE.islands.flatMap((k) => (['sync', 'lagged'] as const).map((m) => runs.get(`${k}/${m}/${seed}`)));
    if (four.some((r) => r === undefined)) return [];
    const [s2, l2, s4, l4] = four.map((r) => ({ evaluations: r!.evaluations, solved: r!.solved }));
    return [{ seed, logRatio: { 2: pairLogRatio(s2, l2), 4: pairLogRatio(s4, l4) }, censored: four.some((r) => !r!.solved) }];
  });
  return { n, seeds };
}

function estimate(values: readonly number[], level: number): Estimate {
  const { estimate: e, lower, upper } = hodgesLehmann(values, level);
  return { ratio: Math.exp(e), lower: Math.exp(lower), upper: Math.exp(upper) };
}

/** Two-sided signed-rank p of values against 0 (exact up to 50 values without ties, else normal with corrections). */
function signedRank(values: readonly number[]): { p: number; method: string } {
  const t = signedRankTest(values);
  return { p: t.pValue, method: t.method };
}

function sizeVerdict(dir: string): SizeVerdict {
  const { n, seeds } = seedRuns(dir);
  const d = seeds.map((s) => (s.logRatio[2] + s.logRatio[4]) / 2);
  const { p, method } = signedRank(d);
  const pooled = estimate(d, 1 - RULE.alpha / RULE.sizes);
  const logRatios = Object.fromEntries(RULE.islands.map((k) => [k, seeds.map((s) => s.logRatio[k])]));
  const byIslands = Object.fromEntries(RULE.islands.map((k) => [k, estimate(logRatios[k], 0.95)]));
  return {
    n,
    seeds: seeds.length,
    censored: seeds.filter((s) => s.censored).length,
    p,
    method,
    pooled,
    byIslands,
    lower: p < RULE.alpha / RULE.sizes && pooled.upper < 1,
    nonInferior: RULE.islands.every((k) => byIslands[k].upper < RULE.margin),
    d,
    logRatios,
  };
}

/** Kruskal–Wallis H (with the tie correction) of groups, and its chi-square p on groups − 1 degrees of freedom. */
export function kruskalWallis(groups: readonly (readonly number[])[]): { h: number; df: number; p: number } {
  const all = groups.flat();
  const ranks = averageRanks(all);
  const total = all.length;
  let at = 0;
  let sum = 0;
  for (const g of groups) {
    const r = ranks.slice(at, at + g.length).reduce((a, b) => a + b, 0);
    sum += (r * r) / g.length;
    at += g.length;
  }
  const counts = new Map<number, number>();
  for (const r of ranks) counts.set(r, (counts.get(r) ?? 0) + 1);
  let ties = 0;
  for (const t of counts.values()) ties += t * t * t - t;
  const h = ((12 / (total * (total + 1))) * sum - 3 * (total + 1)) / (1 - ties / (total * total * total - total));
  const df = groups.length - 1;
  return { h, df, p: 1 - chisquareCdf(h, df) };
}

/** Each N between two studied sizes takes the nearer one's mode on a log scale; runs of one mode merge. */
function modeRanges(sizes: readonly { n: number; mode: Mode }[]): { upTo: number | null; mode: Mode }[] {
  const ranges: { upTo: number | null; mode: Mode }[] = [];
  sizes.forEach((s, i) => {
    const next = sizes[i + 1];
    const upTo = next === undefined ? null : Math.floor(Math.sqrt(s.n * next.n));
    if (ranges.length > 0 && ranges.at(-1)!.mode === s.mode) ranges.at(-1)!.upTo = upTo;
    else ranges.push({ upTo, mode: s.mode });
  });
  return ranges;
}

/** The rule's item 7 (a) - (c) over all sizes pooled: the signed-rank test at α, non-inferiority at each island count, no size worse. */
function allSizesVerdict(sizes: readonly SizeVerdict[]): RuleVerdict['allSizes'] {
  const d = sizes.flatMap((s) => s.d);
  const { p } = signedRank(d);
  const byIslands = Object.fromEntries(
    RULE.islands.map((k) => [
      k,
      estimate(
        sizes.flatMap((s) => s.logRatios[k]),
        0.95,
      ),
    ]),
  );
  return {
    p,
    pooled: estimate(d, 1 - RULE.alpha),
    byIslands,
    nonInferior: RULE.islands.every((k) => byIslands[k].upper < RULE.margin),
    noneWorse: sizes.every((s) => s.pooled.lower <= 1),
  };
}

/** The rule's item 7: one mode at every N unless the interaction test rejects, else a mode by N. */
export function ruleVerdict(dirs: readonly string[]): RuleVerdict {
  const sizes = dirs.map(sizeVerdict).sort((a, b) => a.n - b.n);
  const interaction = kruskalWallis(sizes.map((s) => s.d));
  const allSizes = allSizesVerdict(sizes);
  const oneMode = interaction.p >= RULE.alpha;
  const syncEverywhere = allSizes.p < RULE.alpha && allSizes.pooled.upper < 1 && allSizes.nonInferior && allSizes.noneWorse;
  const modeByN = oneMode
    ? [{ upTo: null, mode: syncEverywhere ? ('sync' as const) : ('lagged' as const) }]
    : modeRanges(sizes.map((s) => ({ n: s.n, mode: s.lower && s.nonInferior ? ('sync' as const) : ('lagged' as const) })));
  return { sizes, interaction, allSizes, branch: oneMode ? 'one mode at every N' : 'by N', modeByN };
}

const ratio = (e: Estimate) => `${e.ratio.toFixed(3)}× [${e.lower.toFixed(3)}, ${e.upper.toFixed(3)}]`;
const pText = (p: number) => (p < 0.0001 ? p.toExponential(1) : p.toFixed(4));

/** The markdown of a verdict: a row per N, the interaction and pooled tests, and the decision in words. */
export function ruleMarkdown(v: RuleVerdict): string {
  const level = `${(100 * (1 - RULE.alpha / RULE.sizes)).toFixed(2)}%`;
  const header = [
    'N',
    'seeds',
    'censored',
    `sync / lagged 2, exp(HL) of d [${level}]`,
    'p (signed-rank)',
    '2 islands [95%]',
    '4 islands [95%]',
    'lower',
    'non-inferior',
  ];
  const rows = v.sizes.map((s) =>
    [
      s.n,
      s.seeds,
      s.censored,
      ratio(s.pooled),
      `${pText(s.p)} (${s.method})`,
      ratio(s.byIslands[2]),
      ratio(s.byIslands[4]),
      s.lower ? 'yes' : 'no',
      s.nonInferior ? 'yes' : 'no',
    ].join(' | '),
  );
  const a = v.allSizes;
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r} |`),
    '',
    `- Interaction (Kruskal–Wallis of d across the ${v.sizes.length} sizes): H = ${v.interaction.h.toFixed(3)}, df ${v.interaction.df}, p = ${pText(v.interaction.p)}.`,
    `- All sizes pooled (${v.sizes.reduce((t, s) => t + s.seeds, 0)} seeds): ${ratio(a.pooled)} (95%), p = ${pText(a.p)}; 2 islands ${ratio(a.byIslands[2])}, 4 islands ${ratio(a.byIslands[4])}; no size worse: ${a.noneWorse ? 'yes' : 'no'}.`,
    `- **Decision (${v.branch}):** ${v.modeByN.map((r) => `${r.mode}${r.upTo === null ? '' : ` up to N = ${r.upTo}`}`).join(', then ')}.`,
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  writeDocBlock(process.argv.slice(2), 'dm3-rule', (dirs) => ruleMarkdown(ruleVerdict(dirs)));
