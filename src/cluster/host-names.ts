/**
 * Host names: strict where a person gives one (`--name`), made harmless where one is read
 * from the bus (any peer can announce any string: terminal escapes, bidi overrides, a
 * megabyte). Every name shown in a message, a display or a result file passes one of these.
 */
import { ConfigError } from '../config/errors.ts';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `--name`: letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most 64 characters. */
export function checkHostName(name: string, flag = '--name'): string {
  if (!NAME.test(name))
    throw new ConfigError(
      `${flag}: expected letters, digits, ., _ and - (starting with a letter or digit, at most 64 characters), got ${JSON.stringify(safeName(name))}`,
    );
  return name;
}

/**
 * A name from the bus as it may be shown: letters, digits and `._-@:+` kept, anything else
 * (control characters, escapes, spaces, format characters) as `?`, at most 64 characters.
 */
export function safeName(name: string): string {
  const chars = [...name];
  const kept = chars
    .slice(0, 64)
    .map((c) => (/^[\p{L}\p{N}._\-@:+]$/u.test(c) ? c : '?'))
    .join('');
  return chars.length > 64 ? `${kept}...` : kept;
}

/** The default host name: this machine's hostname, made to fit `--name`'s rule, and a short tag. */
export function defaultHostName(hostname: string, tag: string): string {
  const base = hostname
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 58);
  return `${base || 'host'}-${tag}`;
}

/** Free text from the bus (a lease's holder) as it may be shown: control and format characters as `?`, at most `max` characters. */
export function safeText(text: string, max: number): string {
  const chars = [...text];
  const kept = chars
    .slice(0, max)
    .map((c) => (/^[\p{C}\p{Zl}\p{Zp}]$/u.test(c) ? '?' : c))
    .join('');
  return chars.length > max ? `${kept}...` : kept;
}
