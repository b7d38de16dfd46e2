/**
 * The flags that put work on a NATS broker, shared by `host` and `experiment`: their yargs
 * options and their reading into the cluster library's options (one-line errors, exit 2).
 */
import type { Options } from 'yargs';
import { ConfigError } from '../config/errors.ts';
import { lastValue, numberLiteral, numberInHelp } from '../schema/flag-value.ts';
import type { RunConfig } from '../config/run-config.ts';
import { DEFAULT_PREFIX, DEFAULT_WAIT_SECONDS } from './defaults.ts';

const GROUP = 'Across machines (NATS, docs/distributed.md):';

export const NATS_OPTION = {
  nats: { type: 'string', requiresArg: true, coerce: lastValue, group: GROUP, describe: 'NATS broker: nats://[user:password@ | token@]host[:port]' },
  'nats-prefix': { type: 'string', requiresArg: true, coerce: lastValue, group: GROUP, describe: `subject prefix, so several teams can share a broker (default ${DEFAULT_PREFIX})` },
  'cluster-key-file': { type: 'string', requiresArg: true, coerce: lastValue, group: GROUP, describe: 'file holding the cluster key that signs every bus message (default: $NQI_CLUSTER_KEY; docs/distributed.md, Security model)' },
} as const satisfies Record<string, Options>;

export const CLUSTER_OPTIONS = {
  ...NATS_OPTION,
  hosts: { type: 'string', ...numberInHelp(), requiresArg: true, coerce: lastValue, group: GROUP, describe: 'hosts to wait for (with --nats; start them with `nqueens-islands host`)' },
  wait: { type: 'string', ...numberInHelp(), requiresArg: true, coerce: lastValue, group: GROUP, describe: `seconds to wait for the hosts (default ${DEFAULT_WAIT_SECONDS})` },
} as const satisfies Record<string, Options>;

/** A flag's positive number: integer or not. */
export function positiveNumber(flag: string, raw: unknown, integer: boolean): number {
  const text = String(raw).trim();
  const value = numberLiteral(text);
  if (!(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new ConfigError(`${flag}: expected a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(text)}`);
  }
  return value;
}

export interface ClusterArgs {
  nats?: string;
  natsPrefix?: string;
  clusterKeyFile?: string;
  hosts?: string;
  wait?: string;
}

/** A run config's `cluster:` section as options (null: this machine). */
export function clusterFromConfig(cluster: RunConfig['cluster']): { nats: string; hosts: number; prefix: string; waitMs: number } | null {
  return cluster ? { nats: cluster.nats, hosts: cluster.hosts, prefix: cluster.prefix, waitMs: cluster.wait * 1000 } : null;
}

/** `--cluster-key-file` as the cluster library's option. */
export function keyFileOf(args: { clusterKeyFile?: string }): { clusterKeyFile?: string } {
  return args.clusterKeyFile === undefined ? {} : { clusterKeyFile: String(args.clusterKeyFile) };
}

/** The cluster flags as options, or null when `--nats` is absent (then --hosts/--wait/--nats-prefix are errors). */
export function clusterFromArgs(args: ClusterArgs): { nats: string; hosts: number; prefix?: string; waitMs?: number; clusterKeyFile?: string } | null {
  if (args.nats === undefined) {
    const stray = (['hosts', 'wait', 'natsPrefix'] as const).find((k) => args[k] !== undefined);
    if (stray) throw new ConfigError(`--${stray === 'natsPrefix' ? 'nats-prefix' : stray}: only with --nats URL`);
    return null;
  }
  if (args.hosts === undefined) throw new ConfigError('--hosts: needed with --nats: how many hosts to wait for');
  return {
    nats: String(args.nats),
    hosts: positiveNumber('--hosts', args.hosts, true),
    ...(args.natsPrefix !== undefined ? { prefix: String(args.natsPrefix) } : {}),
    ...(args.wait !== undefined ? { waitMs: positiveNumber('--wait', args.wait, false) * 1000 } : {}),
    ...keyFileOf(args),
  };
}
