/**
 * The shapes of the thread messages (messages.ts) as zod schemas, for a message that arrives
 * from outside the process (a host of the cluster carries them over the bus): each schema is
 * held to its type in messages.ts by the compiler (`Shaped`), so a field added there and
 * forgotten here fails the build, and what passes is the type the archipelago reads, whole.
 * Threads of one process never need them: the islands' own messages are trusted.
 *
 * Loose objects: a field the schema does not name is kept, as the archipelago keeps it. What
 * a shape cannot know (is a chromosome a permutation of N, is a fitness right) is checked
 * where N is at hand (src/cluster/result-checks.ts).
 */
import { z } from 'zod';
import { measureShapes } from './island-counters.ts';
import { GA_MODE_SAMPLE_KEYS } from '../ga/modes/coordinator-hook.ts';
import {
  MIGRATION_RECORD,
  type BestMessage,
  type IslandReport,
  type IslandTask,
  type MigrantsMessage,
  type ProgressMessage,
  type SolutionMessage,
  type StartedMessage,
  type StopReason,
} from './messages.ts';
import type { Observation } from './observables/sample.ts';
import { SURVIVAL_RECORD } from './observables/survival.ts';

/** `schema` as it is, once the compiler has held its output to `T`: one lacking a field of T, or typing one differently, fails the build. */
const shapeOf =
  <T>() =>
  <S extends z.ZodType<T>>(schema: S): S =>
    schema;

const island = z.number().int().min(0).max(1_000_000);
const count = z.number().int().min(0);
const int = z.number().int();
const time = z.number();
const genes = z.union([z.instanceof(Uint16Array), z.instanceof(Int32Array)]);
/** A GA mode's fields of samples and reports (ga/modes/coordinator-hook.ts): integers, each optional. */
const modeFields = Object.fromEntries(GA_MODE_SAMPLE_KEYS.map((k) => [k, int.optional()])) as Record<
  (typeof GA_MODE_SAMPLE_KEYS)[number],
  z.ZodOptional<z.ZodNumber>
>;
const flatRecords = (width: number) => z.instanceof(Int32Array).refine((r) => r.length % width === 0);
/** Every StopReason. */
const STOP_REASONS = [
  'solved',
  'also-solved',
  'other-solved',
  'stopped',
  'max-iterations',
  'max-evaluations',
] as const satisfies readonly StopReason[];

const observation = shapeOf<Observation>()(
  z.object({
    positions: z.number().int().min(0).max(1_000_000),
    genes,
    hashes: z.instanceof(Uint32Array),
    lineage: z
      .instanceof(Uint32Array)
      .refine((l) => l.length % 2 === 0)
      .optional(),
  }),
);

const progress = shapeOf<ProgressMessage>()(
  z.looseObject({
    type: z.literal('progress'),
    island,
    iteration: count,
    evaluations: count,
    bestFitness: count,
    meanFitness: z.number().min(0),
    diversity: z.number().min(0),
    migrantsSent: count,
    migrantsAccepted: count,
    time,
    migrations: flatRecords(MIGRATION_RECORD),
    survivals: flatRecords(SURVIVAL_RECORD),
    observation: observation.optional(),
    ...modeFields,
  }),
);
const best = shapeOf<BestMessage>()(z.looseObject({ type: z.literal('best'), island, bestFitness: count, best: genes }));
const solution = shapeOf<SolutionMessage>()(z.looseObject({ type: z.literal('solution'), island, iteration: count, genes, foundAt: time }));
const started = shapeOf<StartedMessage>()(z.looseObject({ type: z.literal('started'), island, time }));

const report = shapeOf<IslandReport>()(
  z.looseObject({
    type: z.literal('report'),
    island,
    iterations: count,
    evaluations: count,
    bestFitness: int,
    best: genes.nullable(),
    solution: genes.nullable(),
    foundAtIteration: int,
    foundAt: time,
    claimed: z.boolean(),
    ...measureShapes(count),
    startedAt: time,
    stoppedAt: time,
    stopReason: z.enum(STOP_REASONS),
    migrations: flatRecords(MIGRATION_RECORD),
    survivals: flatRecords(SURVIVAL_RECORD),
    ...modeFields,
    evaluationsFrom: count,
    evaluationsAt: z.instanceof(Float64Array),
    // Its entries are checked where the logs are combined (trajectory.ts: a bad log is left out).
    course: z.instanceof(Float64Array),
    budgetAt: z.object({ counters: z.instanceof(Float64Array), best: genes.nullable() }).optional(),
  }),
);

const migrants = shapeOf<MigrantsMessage>()(
  z
    .looseObject({
      type: z.literal('migrants'),
      from: island,
      epoch: count,
      iteration: count,
      count: z.number().int().min(0).max(1_000_000),
      genes,
      origins: z.instanceof(Uint16Array).optional(),
    })
    .refine((m) => m.origins === undefined || m.origins.length === m.count, 'one origin per migrant'),
);

/**
 * An island task from another process, before its run is checked: no checkpoint to resume
 * from, no extension modules (a receiver loads only its own), and its `run` checked here only
 * for what names what the receiver must have (its GA mode, its policies); the receiver checks
 * the whole run against its own registries and puts the checked run in its place.
 */
export interface ForeignTask extends Omit<IslandTask, 'run' | 'snapshot'> {
  run: {
    islands: number;
    ga: { mode: string };
    migration: { emigrantSelection: { kind: string }; replacement: string | { kind: string } };
  };
  snapshot: null;
}
const name = z.string().min(1).max(100);
// Strict where it lands in a worker: a key no task has is dropped here, never handed on.
const task = shapeOf<ForeignTask>()(
  z.object({
    type: z.literal('task'),
    island,
    run: z.looseObject({
      islands: z.number().int().min(1).max(100_000),
      ga: z.looseObject({ mode: name }),
      migration: z.looseObject({
        emigrantSelection: z.looseObject({ kind: name }),
        replacement: z.union([name, z.looseObject({ kind: name })]),
      }),
    }),
    progressIntervalMs: z.number().min(1).max(3_600_000),
    sources: z.array(island),
    targets: z.array(island),
    snapshot: z.null(),
    lineage: z.boolean().optional(),
    extensions: z.array(z.string()).optional(),
  }),
);

/** The thread messages that may come from another process, by what carries them. No `snapshot`: checkpoints are not taken of islands elsewhere. */
export const FOREIGN_MESSAGE_SHAPES = {
  control: z.discriminatedUnion('type', [progress, best, solution, started]),
  report,
  migrants,
  task,
};
export type ForeignMessages = { [K in keyof typeof FOREIGN_MESSAGE_SHAPES]: z.output<(typeof FOREIGN_MESSAGE_SHAPES)[K]> };
