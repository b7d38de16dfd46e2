/**
 * Host names where a person gives one (`--name`): strict. One read from the bus is made
 * harmless by ../bus/text.ts.
 */
import { ConfigError } from '../../config/errors.ts';
import { safeName } from '../bus/text.ts';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `--name`: letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most 64 characters. */
export function checkHostName(name: string, flag = '--name'): string {
  if (!NAME.test(name))
    throw new ConfigError(
      `${flag}: expected letters, digits, ., _ and - (starting with a letter or digit, at most 64 characters), got ${JSON.stringify(safeName(name))}`,
    );
  return name;
}

/** The default host name: this machine's hostname, made to fit `--name`'s rule, and a short tag. */
export function defaultHostName(hostname: string, tag: string): string {
  const base = hostname
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 58);
  return `${base || 'host'}-${tag}`;
}
