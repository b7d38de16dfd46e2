/**
 * The cluster's library calls check their options as the run's do (config/library-options.ts):
 * null or a number for options, an unknown or misspelt option, or one of the wrong type is a
 * ConfigError naming it, before any connection (a missing `nats` was a TypeError).
 */
import { ConfigError } from '../config/errors.ts';
import { callback, checkedOptions, number, object, text, type OptionCheck } from '../config/library-options.ts';
import type { NatsAuth } from '../config/nats-url.ts';
import type { ClusterKeySource } from './bus/key.ts';
import type { ClusterOptions } from './study/study.ts';

const NATS_AUTH = { credsFile: text, caFile: text, certFile: text, keyFile: text } satisfies Record<keyof NatsAuth, OptionCheck>;
const KEY_SOURCE = { clusterKey: text, clusterKeyFile: text } satisfies Record<keyof ClusterKeySource, OptionCheck>;
/** The options of every call that reaches a broker. */
export const BUS = { nats: text, auth: object, prefix: text, ...KEY_SOURCE };

export const CLUSTER_OPTIONS = {
  ...BUS,
  hosts: number,
  waitMs: number,
  ackWaitMs: number,
  heartbeatMs: number,
  log: callback,
} satisfies Record<keyof ClusterOptions, OptionCheck>;

/** `given` as the options of a call that reaches a broker: checked, `nats` given, `auth` checked too. @throws ConfigError */
export function busOptions<T extends { nats: string; auth?: NatsAuth }>(given: T, what: string, checks: Record<keyof T, OptionCheck>): T {
  const options = checkedOptions(given, what, checks);
  if (options.nats === undefined) throw new ConfigError(`${what}: nats: missing; expected the broker's URL, e.g. nats://127.0.0.1:4222`);
  if (options.auth !== undefined) checkedOptions<NatsAuth>(options.auth, `${what}: auth`, NATS_AUTH);
  return options as T;
}
