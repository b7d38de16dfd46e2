/**
 * The cluster's library calls check their options as the run's do (config/library-options.ts):
 * null or a number for options, an unknown or misspelt option, or one of the wrong type is a
 * ConfigError naming it, before any connection (a missing `nats` was a TypeError).
 */
import { z } from 'zod';
import { callback, checkedOptions, number, options, text, type OptionSchema } from '../config/library-options.ts';
import type { NatsAuth } from '../config/nats-url.ts';
import { expected } from '../schema/fields.ts';
import type { ClusterKeySource } from './bus/key.ts';
import type { ClusterOptions } from './study/study.ts';

const NATS_AUTH = options({ credsFile: text, caFile: text, certFile: text, keyFile: text } satisfies Record<keyof NatsAuth, OptionSchema>);

/** The options of every call that reaches a broker; `nats` is required. */
export const BUS = {
  nats: z.string({ error: expected("the broker's URL, e.g. nats://127.0.0.1:4222") }),
  auth: NATS_AUTH,
  prefix: text,
  clusterKey: text,
  clusterKeyFile: text,
} satisfies Record<keyof ClusterKeySource | 'nats' | 'auth' | 'prefix', OptionSchema>;

/** The schema of a call's options that include BUS's: `nats` required, the others optional. */
export function busSchema({ nats, ...others }: typeof BUS & Record<string, OptionSchema>): OptionSchema {
  return options(others, { nats });
}

/** Node's longest timer: a longer timeout fires after 1 ms, so a wait past it would end at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Milliseconds a timer can wait: a whole number from 1 to Node's longest timer (24.8 days). */
const withinTimer = expected(`a whole number of milliseconds from 1 to ${MAX_TIMER_MS} (Node's longest timer)`);
export const timerMs = z
  .number({ error: withinTimer })
  .int({ error: withinTimer })
  .min(1, { error: withinTimer })
  .max(MAX_TIMER_MS, { error: withinTimer });

/** joinCluster's options, and runExperiment's `cluster`. */
export const CLUSTER_CALL_OPTIONS = busSchema({
  ...BUS,
  hosts: number,
  waitMs: timerMs,
  ackWaitMs: timerMs,
  heartbeatMs: timerMs,
  log: callback,
} satisfies Record<keyof ClusterOptions, OptionSchema>);

/** `given` as the options of a call that reaches a broker, checked by `schema` (from busSchema). @throws ConfigError */
export function busOptions<T extends { nats: string }>(given: T, what: string, schema: OptionSchema): T {
  return checkedOptions(given, what, schema) as T;
}
