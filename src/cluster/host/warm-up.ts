/**
 * The first pass over a run's message paths costs a process 1-10 ms of CPU: zod compiles each
 * object schema on its first parse, msgpackr learns each structure, V8 compiles each function
 * on its first call (frame, MAC, the bus and thread schemas, the result checks). Left to the
 * run, a coordinator's first pass over the winner's solution and report came during the stop,
 * beside the hosts that had to hear it, and on two cores held up the stop by as much (about
 * 1 ms at the median, up to 10; CHANGELOG.md, 0.4.1, "Measured"). So a process takes every path of
 * a spread run once, on small samples, before it takes part in one: the coordinator before it
 * hands out islands, a host before it says it is ready.
 */
import { randomBytes } from 'node:crypto';
import { encode } from '../../archipelago/codec.ts';
import { measuresOf } from '../../archipelago/island-counters.ts';
import type {
  BestMessage,
  IslandReport,
  MigrantsMessage,
  ProgressMessage,
  SolutionMessage,
  StartedMessage,
} from '../../archipelago/messages.ts';
import { carried } from '../bus/carried.ts';
import { type BusCodec } from '../bus/codec.ts';
import { type BusMessage } from '../bus/messages.ts';
import { bestMessageProblem, PermutationCheck, reportProblem, solutionProblem } from '../result-checks.ts';

const N = 8;
/** A solution of N = 8, and a chromosome of fitness 2 (its last two genes swapped). */
const SOLUTION = Uint16Array.of(0, 4, 7, 5, 2, 6, 1, 3);
const BEST = Uint16Array.of(0, 4, 7, 5, 2, 6, 3, 1);
const BEST_FITNESS = 2;
const RUN = 'warm-up';
const SUBJECT = 'warm-up.run';

function samples(): { bus: BusMessage; inner?: 'control' | 'report' | 'migrants' }[] {
  const progress: ProgressMessage = {
    type: 'progress',
    island: 0,
    iteration: 1,
    evaluations: 10,
    bestFitness: BEST_FITNESS,
    meanFitness: 2,
    diversity: 0.5,
    migrantsSent: 1,
    migrantsAccepted: 1,
    time: 1,
    migrations: new Int32Array(6),
    survivals: new Int32Array(0),
  };
  const best: BestMessage = { type: 'best', island: 0, bestFitness: BEST_FITNESS, best: BEST };
  const solution: SolutionMessage = { type: 'solution', island: 0, iteration: 2, genes: SOLUTION, foundAt: 2 };
  const started: StartedMessage = { type: 'started', island: 0, time: 1 };
  const report: IslandReport = {
    type: 'report',
    island: 0,
    iterations: 2,
    evaluations: 20,
    bestFitness: 0,
    best: SOLUTION,
    solution: SOLUTION,
    foundAtIteration: 2,
    foundAt: 2,
    claimed: true,
    ...measuresOf({ migrantsSent: 1, migrantsAccepted: 1, migrantsReceived: 1 }),
    startedAt: 1,
    stoppedAt: 3,
    stopReason: 'solved',
    migrations: new Int32Array(6),
    survivals: new Int32Array(0),
    evaluationsFrom: 0,
    evaluationsAt: new Float64Array(0),
    course: new Float64Array(0),
  };
  const migrants: MigrantsMessage = {
    type: 'migrants',
    from: 0,
    epoch: 0,
    iteration: 1,
    count: 2,
    genes: Uint16Array.from([...SOLUTION, ...BEST]),
  };
  return [
    ...[progress, best, solution, started].map(
      (m) => ({ bus: { type: 'control', runId: RUN, bytes: encode(m) }, inner: 'control' }) as const,
    ),
    { bus: { type: 'report', runId: RUN, island: 0, bytes: encode(report), error: null }, inner: 'report' },
    { bus: { type: 'migrants', runId: RUN, from: 0, to: 1, bytes: encode(migrants) }, inner: 'migrants' },
    {
      bus: {
        type: 'state',
        runId: RUN,
        reached: [0, 1],
        foundEpoch: 0x7fffffff,
        stop: 1,
        winner: 0,
        ledger: [0, 0, 10],
        ledgerFound: 0x7fffffff,
      },
    },
    { bus: { type: 'alive', runId: RUN } },
  ];
}

let warmed = false;

/**
 * Takes every message of a spread run through `codec`'s key once (encoded, signed, decoded,
 * checked as where it lands), once per process. Returns what was refused: nothing, unless a
 * sample no longer fits its schema (test/cluster-bus.test.ts keeps them in step).
 */
export function warmRunPaths(codec: BusCodec, force = false): string[] {
  if (warmed && !force) return [];
  warmed = true;
  // Its own sender and sequence numbers, the process's real ones left as they were; a fresh
  // sender each time, so its GMAC key (one per sender) never meets a sequence number twice.
  const own = codec.sibling(`${RUN}-${randomBytes(6).toString('hex')}`);
  const refused: string[] = [];
  const permutations = new PermutationCheck(N);
  for (const { bus, inner } of samples()) {
    const decoded = own.decode(SUBJECT, own.encode(SUBJECT, bus), [bus.type]);
    if (decoded.kind !== 'ok') {
      refused.push(`${bus.type}: ${decoded.kind}`);
      continue;
    }
    const message = decoded.message as BusMessage<'control' | 'report' | 'migrants'>;
    const problem = inner && message.bytes ? innerProblem(inner, message.bytes, permutations) : null;
    if (problem) refused.push(`${inner}: ${problem}`);
  }
  return refused;
}

/** The carried thread message checked as where it lands: the coordinator's checks, or the relay's of migrants. */
function innerProblem(inner: 'control' | 'report' | 'migrants', bytes: Uint8Array, permutations: PermutationCheck): string | null {
  if (inner === 'report') {
    const report = carried('report', bytes);
    return report ? reportProblem(report, N) : 'does not fit';
  }
  if (inner === 'migrants') {
    const migrants = carried('migrants', bytes);
    return migrants ? permutations.problem(migrants.genes, migrants.count) : 'does not fit';
  }
  const control = carried('control', bytes);
  if (!control) return 'does not fit';
  if (control.type === 'best') return bestMessageProblem(control, N);
  if (control.type === 'solution') return solutionProblem(control.genes, N);
  return null;
}
