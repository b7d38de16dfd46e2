/**
 * The cluster key: a secret shared out of band by a cluster's hosts and coordinators, never
 * sent on the bus and never on a command line (where `ps` shows it). Every bus message is
 * signed with a key derived from it (HKDF-SHA256, salted with the study's or run's id, one key per sender), so
 * a party on the broker without it can read the bus but neither forge, replay into another
 * run, stop nor join one (docs/distributed.md, "Security model").
 */
import { hkdfSync } from 'node:crypto';
import { ConfigError } from '../../config/errors.ts';
import { readSecretFile } from './credentials.ts';

export type ClusterKey = Uint8Array;

/** The environment variable holding the key itself. */
export const CLUSTER_KEY_ENV = 'NQI_CLUSTER_KEY';
const MIN_KEY_CHARS = 16;

export interface ClusterKeySource {
  /** The key itself (a library user's option). */
  clusterKey?: string;
  /** A file holding it (`--cluster-key-file`); one line, trailing whitespace ignored. */
  clusterKeyFile?: string;
}

function checked(text: string, where: string): ClusterKey {
  const key = text.trim();
  if (key.length < MIN_KEY_CHARS || key.includes('\n')) {
    throw new ConfigError(
      `${where}: expected one line of at least ${MIN_KEY_CHARS} characters (a random secret, e.g. from: openssl rand -hex 32), got ${key.length} characters${key.includes('\n') ? ' over several lines' : ''}`,
    );
  }
  return new Uint8Array(Buffer.from(key, 'utf8'));
}

/**
 * The key from the options, else the file they name, else $NQI_CLUSTER_KEY; null when none
 * is given (the bus is then trusted as it is).
 * @throws ConfigError (exit 2) naming the option, file or variable for a short or unreadable key.
 */
export function clusterKeyOf(source: ClusterKeySource, env: Readonly<Record<string, string | undefined>> = process.env): ClusterKey | null {
  if (source.clusterKey !== undefined) return checked(source.clusterKey, 'clusterKey');
  if (source.clusterKeyFile !== undefined) {
    const name = `--cluster-key-file ${source.clusterKeyFile}`;
    return checked(
      readSecretFile(source.clusterKeyFile, { name, expected: 'a file holding the cluster key', maxBytes: 4096 }).toString('utf8'),
      name,
    );
  }
  const fromEnv = env[CLUSTER_KEY_ENV];
  return fromEnv === undefined || fromEnv === '' ? null : checked(fromEnv, CLUSTER_KEY_ENV);
}

/**
 * The key that signs one sender's messages in one scope ('' the cluster's own: who is there,
 * orders; else a study's or run's id). One key per sender, because the MAC's nonce is the
 * sender's sequence number: two senders under one key would meet the same nonce.
 */
export function macKeyOf(key: ClusterKey, scope: string, sender: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', key, scope, `nqueens-islands bus v4\u0000${sender}`, 32));
}

/** The one line a process without a key says when it joins the bus. */
export const UNSIGNED_WARNING = `warning: no cluster key (${CLUSTER_KEY_ENV} or --cluster-key-file): anyone on the broker can forge or stop runs (docs/distributed.md)`;
