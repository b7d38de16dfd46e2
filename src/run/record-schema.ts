/**
 * The shape of a run's record when read back: the run fields (result-record.ts `RUN_FIELDS`)
 * that the record `solve --json` prints and a study's line of runs.jsonl share, checked by one
 * schema; experiment/record-schema.ts adds a study's cell fields. Objects are loose: fields a
 * newer version adds are kept, not refused. Fields a study of an older version may lack are optional; `provenance` is
 * checked only where it is required (a solve record): a study's reader never reads it.
 */
import { z } from 'zod';
import { measureShapes } from '../archipelago/island-counters.ts';
import { ENDINGS } from './result-record.ts';

const count = z.number().int().min(0);
const nonNegative = z.number().min(0);
/**
 * No run lasts longer than this (ten years): a bound on a record's times, so that a record
 * edited to 1e308 seconds is refused instead of swamping every mean and sum it enters.
 */
export const MAX_RECORD_SECONDS = 315_576_000;
const seconds = nonNegative.max(MAX_RECORD_SECONDS);

const islandRecord = z.looseObject({
  id: count,
  iterations: count,
  evaluations: count,
  // Absent in studies of versions before 0.2.
  evaluationsAfterSolution: count.nullable().optional().default(null),
  bestFitness: count,
  // Its measures (island-counters.ts); a record of an older version may lack any but the first two.
  ...measureShapes(count.optional()),
  migrantsSent: count,
  migrantsAccepted: count,
});

/** The run fields' shapes, with the islands' (every record has them). */
export const runFieldsShape = {
  seed: count,
  solved: z.boolean(),
  fitness: count,
  seconds,
  startupSeconds: seconds.optional(),
  iterations: count,
  evaluations: count,
  evaluationsAfterSolution: count.nullable().optional().default(null),
  ended: z.enum(ENDINGS).optional(),
  foundBy: count.nullable(),
  stopLatencyMs: nonNegative.max(MAX_RECORD_SECONDS * 1000).nullable(),
  between: z
    .array(
      z.looseObject({
        iteration: count,
        meanDistance: nonNegative,
        distinct: count,
        sampled: count.min(1),
        // Lineage (docs/events.md): per island, [origin, count, ...]; origin -1 counts all others.
        lineage: z.array(z.array(z.number().int().min(-1))).optional(),
      }),
    )
    .optional(),
  trajectory: z.array(z.tuple([count, count])).optional(),
  takeover: z.looseObject({ iteration: count.nullable(), islands: z.array(count.nullable()) }).optional(),
  threads: count.optional(),
  solution: z.array(z.number().int().min(1)).nullable(),
  repeatable: z.boolean().optional(),
  islands: z.array(islandRecord),
};

/** The record `solve --json` prints, `--out` writes and the library's `solve()` resolves to. */
export const solveRecordSchema = z.looseObject({
  ...runFieldsShape,
  n: count.min(1),
  ended: runFieldsShape.ended.unwrap(),
  foundAtIteration: count.nullable(),
  between: runFieldsShape.between.unwrap(),
  failures: z.array(z.looseObject({ island: count, iteration: count, message: z.string() })),
  repeatable: z.boolean(),
  config: z.looseObject({ n: count.min(1) }),
  provenance: z.looseObject({ configHash: z.string() }),
});
