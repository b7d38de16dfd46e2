/**
 * Results are checked where they land: what a host claims (a solution, a best chromosome
 * and its fitness, an island's report, a study's run record) is checked here with
 * the independent validator (problem/validate.ts) and the paper's reference fitness, never
 * with the GA's own code (migrants are checked by the relay that takes them in, island-relay.ts). Each check returns why a claim fails, or null when it holds; a
 * claim that fails is dropped and counted, never used or written.
 */
import type { BestMessage, IslandReport } from '../archipelago/messages.ts';
import { eventProblem, firstProblem, runRecordSchema } from '../experiment/record-schema.ts';
import { recordContradiction } from '../experiment/record-consistency.ts';
import type { RunRecord } from '../experiment/records.ts';
import { toOneBased, type Genes } from '../problem/genes.ts';
import { referenceFitness } from '../problem/reference-fitness.ts';
import { validateSolution } from '../problem/validate.ts';

/**
 * Why `count` chromosomes of N genes, one after another, are not each a permutation of
 * 0..N-1, or null. Allocates nothing once made (the relay checks every immigrant with one):
 * a row is marked seen with the current chromosome's mark, a new mark per chromosome, the
 * marks cleared only when they wrap.
 */
export class PermutationCheck {
  private readonly seen: Uint32Array;
  private mark = 0;

  constructor(private readonly n: number) {
    this.seen = new Uint32Array(n);
  }

  problem(genes: ArrayLike<number>, count = 1): string | null {
    const { n, seen } = this;
    if (genes.length !== n * count) return `holds ${genes.length} genes, expected ${n * count}`;
    for (let c = 0; c < count; c++) {
      if (this.mark === 0xffffffff) {
        seen.fill(0);
        this.mark = 0;
      }
      const mark = ++this.mark;
      for (let i = c * n, end = i + n; i < end; i++) {
        const row = genes[i];
        if (!(row >= 0 && row < n)) return `gene ${i - c * n} is ${row}, outside 0..${n - 1}`;
        if (seen[row] === mark) return `row ${row} is used twice`;
        seen[row] = mark;
      }
    }
    return null;
  }
}

/** A best chromosome and the fitness claimed for it, recomputed with the reference fitness. */
/** A best chromosome that is no permutation of 0..n-1. */
function bestShapeProblem(best: Genes, n: number): string | null {
  const wrong = new PermutationCheck(n).problem(best);
  return wrong ? `best chromosome ${wrong}` : null;
}

export function bestProblem(best: Genes, fitness: number, n: number): string | null {
  const shape = bestShapeProblem(best, n);
  if (shape) return shape;
  const actual = referenceFitness(Array.from(best));
  return actual === fitness ? null : `claims fitness ${fitness} for a best chromosome of fitness ${actual}`;
}

export function bestMessageProblem(message: BestMessage, n: number): string | null {
  return bestProblem(message.best, message.bestFitness, n);
}

/** A claimed solution, with the independent validator. */
export function solutionProblem(genes: Genes, n: number): string | null {
  const check = validateSolution(toOneBased(genes), n);
  return check.valid ? null : `invalid solution: ${check.reason}`;
}

/** An island's report: its best and fitness, and its solution if it claims one. */
export function reportProblem(report: IslandReport, n: number): string | null {
  // An island stopped by another's solution may have run past the run's cut (lagged): it reports
  // its counters at the cut, fitness included, but holds the chromosome it has now, so only the
  // chromosome's shape can be checked (its fitness decides nothing: the winner's solution is checked).
  if (report.stopReason === 'other-solved' && report.best !== null) return bestShapeProblem(report.best, n);
  // No best: an island stopped while it built its population, before any member was whole.
  const best = report.best === null ? null : bestProblem(report.best, report.bestFitness, n);
  if (best) return best;
  if (report.stopReason === 'solved' && report.solution === null) return 'says solved without a solution';
  return report.solution === null ? null : solutionProblem(report.solution, n);
}

/**
 * A study's run record from a host, for the run `planned` (its N and island count). A record
 * of a failed run (`error` set) is kept for the record and left out of every statistic: only
 * what names the run and its solution are checked then.
 */
export function recordProblem(
  record: Record<string, unknown>,
  events: readonly string[],
  planned: { cell: string; seed: number; n: number; islands: number },
): string | null {
  if (record.cell !== planned.cell || record.seed !== planned.seed) return 'does not name the run it was given';
  if (record.error !== null && (typeof record.error !== 'string' || record.error.length > 10_000)) return 'error: expected a line or null';
  const solution = record.solution;
  if (solution !== null && !(Array.isArray(solution) && solution.every((row) => typeof row === 'number')))
    return 'solution: expected rows or null';
  if (solution !== null) {
    const check = validateSolution(solution, planned.n);
    if (!check.valid) return `invalid solution: ${check.reason}`;
  }
  if (record.solved !== (solution !== null)) return 'solved and solution disagree';
  if (record.error === null) {
    const parsed = runRecordSchema.safeParse(record);
    if (!parsed.success) return firstProblem(parsed.error);
    const r = parsed.data as unknown as RunRecord;
    if (r.islands.length !== planned.islands || r.islands.some((island, i) => island.id !== i))
      return `has ${r.islands.length} islands, expected ${planned.islands}`;
    const best = Math.min(...r.islands.map((i) => i.bestFitness));
    if (
      r.solved
        ? r.fitness !== 0 || r.foundBy === null || r.foundBy >= planned.islands
        : r.fitness !== best || r.fitness === 0 || r.foundBy !== null
    ) {
      return "solved, fitness, foundBy and the islands' best disagree";
    }
    const contradiction = recordContradiction(r, planned.n);
    if (contradiction) return `record ${contradiction}`;
  }
  for (const [k, line] of events.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return `event line ${k + 1} is not JSON`;
    }
    const problem = eventProblem(value);
    if (problem) return `event line ${k + 1}: ${problem}`;
  }
  return null;
}
