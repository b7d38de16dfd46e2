/**
 * The shapes a study folder's files must have when read back (manifest.json, the lines of
 * runs.jsonl, event logs). A folder edited by hand or damaged on disk is refused with one
 * line naming the file, the line and the key, instead of failing deep inside the report.
 * Objects are loose: fields a newer version adds are kept, not refused.
 */
import { z } from 'zod';
import { measureShapes } from '../archipelago/island-counters.ts';
import { runFieldsShape } from '../run/record-schema.ts';
import { formatPath } from '../schema/fields.ts';
import { MAX_SHARDS } from './shard.ts';

const count = z.number().int().min(0);
const nonNegative = z.number().min(0);
/** A time as Date.toISOString writes it (a real date: not 2026-02-30). */
const isoTime = z.iso.datetime({ error: 'expected an ISO 8601 UTC time, as 2026-01-01T12:00:00.000Z' });
/** Clocks of a distributed study's machines may differ: a time is held to now within a day. */
export const CLOCK_SLACK_MS = 86_400_000;
const sweepValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.record(z.string(), z.unknown())]);
const values = z.record(z.string(), sweepValue);

/** A line of runs.jsonl: the run fields (one schema with `solve --json`'s record) and the study's own. */
export const runRecordSchema = z.looseObject({
  cell: z.string(),
  values,
  ...runFieldsShape,
  // The measures' totals (island-counters.ts); a record of an older version may lack any but the first two.
  ...measureShapes(count.optional()),
  migrantsSent: count,
  migrantsAccepted: count,
  error: z.string().nullable(),
  // As Date.toISOString writes it (a real date: not 2026-02-30); when, against the study's start: record-consistency.ts.
  finishedAt: isoTime,
  // As `solve --json` prints it (absent before 0.2); the study's reader takes only its hash.
  provenance: z.looseObject({ configHash: z.string().optional() }).optional(),
  // The machine that ran it, for a distributed study.
  host: z.string().optional(),
});

function distinct(items: readonly unknown[]): boolean {
  return new Set(items).size === items.length;
}

export const manifestSchema = z.looseObject({
  name: z.string(),
  description: z.string().nullable(),
  experiment: z.looseObject({ file: z.string(), sha256: z.string(), text: z.string() }),
  keys: z.array(z.string()),
  // Each seed and each cell once: a repeat would plan runs that cannot be told apart ("4 of 6 runs" of 4).
  seeds: z.array(count).min(1).refine(distinct, { error: 'a seed is listed twice' }),
  baseline: values.nullable(),
  cells: z
    .array(
      z.looseObject({ id: z.string(), values, baseline: z.string().nullable(), config: z.looseObject({ n: z.number().int().min(1) }) }),
    )
    .min(1)
    .refine((cells) => distinct(cells.map((c) => c.id)), { error: 'a cell id is listed twice' }),
  events: z.boolean(),
  tool: z.looseObject({ name: z.string(), version: z.string() }),
  // The build that made the study, compared on resume (manifest.ts buildDifference).
  provenance: z
    .looseObject({
      version: z.string(),
      commit: z.string(),
      dirty: z.boolean().nullable(),
      node: z.string(),
      bundleSha256: z.string().optional(),
    })
    .optional(),
  environment: z.looseObject({}),
  // When the study started: its records' finishedAt are held to it (record-consistency.ts), so it is a time, and not a future one.
  startedAt: isoTime.refine((at) => Date.parse(at) <= Date.now() + CLOCK_SLACK_MS, { error: 'is in the future' }),
  resumedAt: z.array(isoTime),
  shards: z.number().int().min(1).max(MAX_SHARDS).optional(),
  shardDealing: z.literal('seeds').optional(),
});

const island = z.number().int().min(0);
/** The events the report reads, by type; other types only need to be named. */
const EVENT_SHAPES: Record<string, z.ZodType> = {
  progress: z.looseObject({ island, seconds: nonNegative, bestFitness: count }),
  solution: z.looseObject({ island, seconds: nonNegative }),
  migration: z.looseObject({ from: island, to: island, sent: count, accepted: count }),
  between: z.looseObject({
    iteration: count,
    distance: z.array(z.array(nonNegative)),
    meanDistance: nonNegative,
    distinct: count,
    sampled: count.min(1),
    lineage: z.array(z.array(z.number().int().min(-1))).optional(),
  }),
  survival: z.looseObject({ from: island, to: island, iteration: count, received: count, accepted: count, survived: count }),
};
const anyEvent = z.looseObject({ type: z.string() });

/** What is wrong with one line of an event log, or null when the report can read it. */
export function eventProblem(value: unknown): string | null {
  const named = anyEvent.safeParse(value);
  if (!named.success) return firstProblem(named.error);
  const shape = EVENT_SHAPES[named.data.type];
  const checked = shape?.safeParse(value);
  return checked === undefined || checked.success ? null : firstProblem(checked.error);
}

/** The first problem of a failed parse, as `key.path: expected number, received string`. */
export function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = formatPath(issue.path);
  const what = issue.message.replace(/^Invalid input: /, '');
  return path === '' ? what : `${path}: ${what}`;
}
