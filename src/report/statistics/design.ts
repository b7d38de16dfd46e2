/**
 * Whether a study's design can answer its question, before it runs (`experiment FILE --plan`
 * and the study's first lines): for each family of the report (summary.ts FAMILIES) the
 * number of tests, the smallest adjusted p its seeds can reach, and where that is not below
 * ALPHA the number of seeds that would be; and from a pilot (an earlier study's folder), the
 * seeds needed to detect a chosen paired ratio with 80% power, by simulation from the spread
 * of the pilot's paired log ratios of evaluations.
 */
import type { Experiment } from '../../experiment/load.ts';
import { Rng } from '../../ga/rng.ts';
import { baselineMapper } from './baseline.ts';
import { hodgesLehmann, signedRankTest, smallestP } from './signed-rank.ts';
import { fisherExact } from './stats.ts';
import { readStudy } from '../data/study-data.ts';
import { ALPHA, summarise } from './summary.ts';

/** The power a design is sized for, and the simulation behind it (seeded: the same pilot gives the same answer). */
export const POWER = { target: 0.8, simulations: 2000, seed: 1, maxSeeds: 1000 } as const;

/** The ratio `--plan --pilot` sizes for unless told (--detect). */
export const DEFAULT_DETECT_RATIO = 0.8;

export interface FamilyDesign {
  family: 'evaluations' | 'seconds' | 'success';
  /** Tests in the family (success: at most, since a pair of cells that both solve every run is left out). */
  tests: number;
  /** min(1, tests x the smallest p `seeds` pairs can give). */
  smallestAdjustedP: number;
  /** The fewest seeds whose smallest adjusted p is below ALPHA (null when the family is empty). */
  seedsToReach: number | null;
}

export interface PowerPlan {
  pilot: string;
  ratio: number;
  /** Paired log ratios of evaluations the pilot gave (every compared cell, at its common budget). */
  pairs: number;
  /** The fewest seeds with at least POWER.target power, or null when even POWER.maxSeeds fall short. */
  seeds: number | null;
  /** The simulated power at this study's seeds. */
  powerAtStudySeeds: number;
}

/** The compared cells of a study: those with a baseline other than themselves. */
function comparedCells(experiment: Experiment): number {
  return experiment.cells.filter((cell) => cell.baseline !== null && cell.baseline !== cell.id).length;
}

/** The fewest n from 2 whose `smallest(n)` x m is below ALPHA. */
function seedsToReach(m: number, smallest: (n: number) => number): number | null {
  if (m === 0) return null;
  let n = 2;
  while (m * smallest(n) >= ALPHA) n++;
  return n;
}

const fisherSmallest = (n: number) => Math.min(fisherExact(n, n, 0, n), fisherExact(0, n, n, n));

/** The report's families for this study's design, with the smallest adjusted p its seeds can reach. */
export function familyDesigns(experiment: Experiment): FamilyDesign[] {
  const m = comparedCells(experiment);
  const seeds = experiment.seeds.length;
  const signedRank = (family: 'evaluations' | 'seconds'): FamilyDesign => ({
    family,
    tests: m,
    // One seed is one pair: no test can reject (smallestP is NaN there, and the line said "NaN").
    smallestAdjustedP: seeds < 2 ? 1 : Math.min(1, m * smallestP(seeds)),
    seedsToReach: seedsToReach(m, smallestP),
  });
  return [
    signedRank('evaluations'),
    signedRank('seconds'),
    {
      family: 'success',
      tests: m,
      smallestAdjustedP: Math.min(1, m * fisherSmallest(seeds)),
      seedsToReach: seedsToReach(m, fisherSmallest),
    },
  ];
}

/** The paired log ratios of evaluations of a finished study, each comparison's centred on its own Hodges-Lehmann estimate. */
function pilotSpread(dir: string): number[] {
  const study = readStudy(dir);
  const summary = summarise(study, baselineMapper(study.manifest, study.manifest.baseline), study.manifest.baseline);
  return summary.cells.flatMap((cell) => {
    const c = cell.comparison?.evaluations;
    if (!c || c.notRun !== null) return [];
    const centre = hodgesLehmann(c.logRatios, 0.95).estimate;
    return c.logRatios.map((d) => d - centre);
  });
}

/** Simulated power at n seeds: residuals drawn with replacement, shifted by log(ratio), tested at ALPHA / m. */
function power(residuals: readonly number[], shift: number, n: number, m: number): number {
  const rng = Rng.forStream(POWER.seed, n);
  const d = new Array<number>(n);
  let rejected = 0;
  for (let s = 0; s < POWER.simulations; s++) {
    for (let k = 0; k < n; k++) d[k] = residuals[rng.int(residuals.length)] + shift;
    if (signedRankTest(d).pValue < ALPHA / m) rejected++;
  }
  return rejected / POWER.simulations;
}

/**
 * The seeds this study needs to detect a paired ratio of `ratio` in evaluations with
 * POWER.target power in its primary family (Bonferroni over its compared cells), from the
 * spread of the pilot study's paired log ratios (folder `pilot`).
 */
export function powerPlan(experiment: Experiment, pilot: string, ratio: number = DEFAULT_DETECT_RATIO): PowerPlan {
  const residuals = pilotSpread(pilot);
  const m = Math.max(1, comparedCells(experiment));
  const shift = Math.log(ratio);
  const base = { pilot, ratio, pairs: residuals.length };
  if (residuals.length < 2) return { ...base, seeds: null, powerAtStudySeeds: Number.NaN };
  const enough = (n: number) => power(residuals, shift, n, m) >= POWER.target;
  let seeds: number | null = null;
  // Power grows with n (up to the simulation's noise): double, then bisect.
  let high = 2;
  while (high <= POWER.maxSeeds && !enough(high)) high *= 2;
  if (high <= POWER.maxSeeds || enough(POWER.maxSeeds)) {
    let low = Math.floor(high / 2);
    high = Math.min(high, POWER.maxSeeds);
    while (low + 1 < high) {
      const mid = Math.floor((low + high) / 2);
      if (enough(mid)) high = mid;
      else low = mid;
    }
    seeds = high;
  }
  return { ...base, seeds, powerAtStudySeeds: power(residuals, shift, experiment.seeds.length, m) };
}

const pText = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

/** The design's lines, for `--plan` and the study's start: one per family, a warning where α is out of reach, the power plan if any. */
export function designLines(experiment: Experiment, plan: PowerPlan | null = null): string[] {
  const seeds = experiment.seeds.length;
  const names = { evaluations: 'evaluations (primary)', seconds: 'wall time', success: 'success rates' };
  const lines = familyDesigns(experiment).flatMap((f) => {
    if (f.tests === 0) return [];
    const line = `design: ${names[f.family]}: ${f.family === 'success' ? 'at most ' : ''}${f.tests} test${f.tests === 1 ? '' : 's'} (Bonferroni), smallest reachable p Bonf. with ${seeds} seed${seeds === 1 ? '' : 's'} ${pText(f.smallestAdjustedP)}`;
    if (f.smallestAdjustedP < ALPHA) return [line];
    return [`${line}; warning: it cannot reach α = ${ALPHA}, so no verdict is possible; ${f.seedsToReach} seeds would reach it`];
  });
  if (plan !== null) lines.push(powerLine(plan, seeds));
  return lines;
}

function powerLine(plan: PowerPlan, seeds: number): string {
  const from = `from ${plan.pairs} paired log ratios of evaluations in ${plan.pilot}`;
  if (Number.isNaN(plan.powerAtStudySeeds)) return `design: power: ${from}: too few to simulate (at least 2 needed)`;
  const need = plan.seeds === null ? `more than ${POWER.maxSeeds} seeds` : `${plan.seeds} seeds`;
  return (
    `design: power: to detect ${plan.ratio}x in evaluations with ${POWER.target * 100}% power ${from} ` +
    `(${POWER.simulations} simulations, seed ${POWER.seed}): ${need}; with ${seeds} seeds the power is ${Math.round(plan.powerAtStudySeeds * 100)}%`
  );
}
