/**
 * Reading `--nats URL` and `--nats-prefix` (no NATS client here: result records use it to
 * hide a password, without loading the client).
 */
import type { ConnectionOptions } from '@nats-io/transport-node';
import { ConfigError } from '../config/errors.ts';

export const DEFAULT_NATS_PORT = 4222;

export interface BusAddress {
  /** Connection options: the server without credentials, plus user/pass or token. */
  options: ConnectionOptions;
  /** The URL as shown to people: the password or token replaced by ***. */
  display: string;
}

/**
 * Reads `--nats URL`: nats://[user[:password]@ | token@]host[:port]. Only the nats:// scheme
 * (a plain TCP client) is offered; the port defaults to 4222.
 * @throws ConfigError naming the flag for anything else.
 */
export function parseNatsUrl(text: string, flag = '--nats'): BusAddress {
  const bad = (why: string) => new ConfigError(`${flag}: ${why}, got ${JSON.stringify(text)}; expected nats://[user:password@]host[:port]`);
  let url: URL;
  try {
    url = new URL(text.includes('://') ? text : `nats://${text}`);
  } catch {
    throw bad('not a URL');
  }
  if (url.protocol !== 'nats:') throw bad(`scheme ${url.protocol.replace(/:$/, '')} is not offered`);
  if (url.hostname === '') throw bad('no host');
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') throw bad('a path or query has no meaning here');
  const server = `${url.hostname}:${url.port || DEFAULT_NATS_PORT}`;
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  const options: ConnectionOptions = { servers: server };
  let display = `nats://${server}`;
  if (user !== '' && url.password !== '') {
    Object.assign(options, { user, pass });
    display = `nats://${url.username}:***@${server}`;
  } else if (user !== '') {
    options.token = user;
    display = `nats://***@${server}`;
  }
  return { options, display };
}

/** `--nats-prefix`: NATS subject tokens (letters, digits, - and _), dot-separated. */
export function checkPrefix(prefix: string, flag = '--nats-prefix'): string {
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix) || prefix.length > 64) {
    throw new ConfigError(`${flag}: expected subject tokens of letters, digits, - and _ separated by dots (at most 64 characters), got ${JSON.stringify(prefix)}`);
  }
  return prefix;
}
