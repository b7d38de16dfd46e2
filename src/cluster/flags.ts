/**
 * The flags that put work on a NATS broker, shared by `host` and `experiment`: their yargs
 * options and their reading into the cluster library's options (one-line errors, exit 2).
 */
import { ConfigError } from '../config/errors.ts';
import { MAX_TIME_LIMIT_SECONDS } from '../config/defaults.ts';
import { lastValue, numberLiteral, numberInHelp, type FlagOptions } from '../schema/flag-value.ts';
import type { RunConfig } from '../config/run-config.ts';
import { DEFAULT_PREFIX, DEFAULT_WAIT_SECONDS, PASSWORD_ENV, TOKEN_ENV } from './defaults.ts';
import type { NatsAuth } from '../config/nats-url.ts';

const GROUP = 'Across machines (NATS, docs/distributed.md):';

export const NATS_OPTION = {
  nats: {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    group: GROUP,
    describe: `NATS broker: (nats|tls)://[user@]host[:port]; the password from ${PASSWORD_ENV} or --nats-creds (in the URL, ps shows it)`,
  },
  'nats-creds': {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    group: GROUP,
    describe: `a NATS .creds file, an nkey seed file, or a file holding the password (for the URL's user) or token; or set ${PASSWORD_ENV} / ${TOKEN_ENV}`,
  },
  'nats-ca': {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    group: GROUP,
    describe: "tls://: the CA certificate (PEM) that signed the broker's",
  },
  'nats-cert': {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    group: GROUP,
    describe: "tls://: this client's certificate (PEM), with --nats-key",
  },
  'nats-key': { type: 'string', requiresArg: true, coerce: lastValue, group: GROUP, describe: "tls://: this client's private key (PEM)" },
  'nats-prefix': {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    group: GROUP,
    describe: `subject prefix, so several teams can share a broker (default ${DEFAULT_PREFIX})`,
  },
  'cluster-key-file': {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    group: GROUP,
    describe: 'file holding the cluster key that signs every bus message (default: $NQI_CLUSTER_KEY; docs/distributed.md, Security model)',
  },
} as const satisfies Record<string, FlagOptions>;

export const CLUSTER_OPTIONS = {
  ...NATS_OPTION,
  hosts: {
    type: 'string',
    ...numberInHelp(),
    requiresArg: true,
    coerce: lastValue,
    group: GROUP,
    describe: 'hosts to wait for (with --nats; start them with `nqueens-islands host`)',
  },
  wait: {
    type: 'string',
    ...numberInHelp(),
    requiresArg: true,
    coerce: lastValue,
    group: GROUP,
    describe: `seconds to wait for the hosts (default ${DEFAULT_WAIT_SECONDS})`,
  },
} as const satisfies Record<string, FlagOptions>;

/** A flag's positive number: integer or not. */
export function positiveNumber(flag: string, raw: unknown, integer: boolean): number {
  const text = String(raw).trim();
  const value = numberLiteral(text);
  if (!(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new ConfigError(`${flag}: expected a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** `--wait`: seconds > 0, at most Node's longest timer (a longer one fires at once: no wait at all). */
export function waitSeconds(raw: unknown): number {
  const text = String(raw).trim();
  const value = numberLiteral(text);
  if (!(value > 0 && value <= MAX_TIME_LIMIT_SECONDS))
    throw new ConfigError(
      `--wait: expected a number of seconds > 0, at most ${MAX_TIME_LIMIT_SECONDS} (24.8 days), got ${JSON.stringify(text)}`,
    );
  return value;
}

export interface NatsArgs {
  nats?: string;
  natsPrefix?: string;
  natsCreds?: string;
  natsCa?: string;
  natsCert?: string;
  natsKey?: string;
  clusterKeyFile?: string;
}

export interface ClusterArgs extends NatsArgs {
  hosts?: string;
  wait?: string;
}

/** The credential and TLS file flags (credentials.ts reads the files and the environment). */
export function authFromArgs(args: NatsArgs): NatsAuth {
  const files = { credsFile: args.natsCreds, caFile: args.natsCa, certFile: args.natsCert, keyFile: args.natsKey };
  return Object.fromEntries(
    Object.entries(files)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
}

/** A run config's `cluster:` section as options (null: this machine); the credential and key flags still apply. */
export function clusterFromConfig(
  cluster: RunConfig['cluster'],
  args: NatsArgs = {},
): { nats: string; auth: NatsAuth; hosts: number; prefix: string; waitMs: number; clusterKeyFile?: string } | null {
  return cluster
    ? {
        nats: cluster.nats,
        auth: authFromArgs(args),
        hosts: cluster.hosts,
        prefix: cluster.prefix,
        waitMs: cluster.wait * 1000,
        ...keyFileOf(args),
      }
    : null;
}

/** `--cluster-key-file` as the cluster library's option. */
export function keyFileOf(args: { clusterKeyFile?: string }): { clusterKeyFile?: string } {
  return args.clusterKeyFile === undefined ? {} : { clusterKeyFile: String(args.clusterKeyFile) };
}

const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** With no broker to use (no --nats, no `cluster:` in the config), a credential flag is a mistake. */
export function checkNoAuthFlags(args: NatsArgs): void {
  const stray = (['natsCreds', 'natsCa', 'natsCert', 'natsKey'] as const).find((k) => args[k] !== undefined);
  if (stray) throw new ConfigError(`${flagName(stray)}: only with --nats URL (or cluster: in the run config)`);
}

/**
 * The cluster flags as options, or null when `--nats` is absent (then --hosts/--wait/--nats-prefix
 * are errors; the credential flags are left for a config's `cluster:`, see checkNoAuthFlags).
 */
export function clusterFromArgs(
  args: ClusterArgs,
): { nats: string; auth: NatsAuth; hosts: number; prefix?: string; waitMs?: number; clusterKeyFile?: string } | null {
  if (args.nats === undefined) {
    const stray = (['hosts', 'wait', 'natsPrefix'] as const).find((k) => args[k] !== undefined);
    if (stray) throw new ConfigError(`${flagName(stray)}: only with --nats URL`);
    return null;
  }
  if (args.hosts === undefined) throw new ConfigError('--hosts: needed with --nats: how many hosts to wait for');
  return {
    nats: String(args.nats),
    auth: authFromArgs(args),
    hosts: positiveNumber('--hosts', args.hosts, true),
    ...(args.natsPrefix !== undefined ? { prefix: String(args.natsPrefix) } : {}),
    ...(args.wait !== undefined ? { waitMs: waitSeconds(args.wait) * 1000 } : {}),
    ...keyFileOf(args),
  };
}
