/**
 * Text from the bus as it may be shown: any peer can send any string (terminal escapes, bidi
 * overrides, raw newlines that would forge a log line, a megabyte). Every name or text from
 * the bus shown in a message, a display or a result file passes one of these.
 */

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

/** Free text from the bus (a lease's holder) as it may be shown: control and format characters as `?`, at most `max` characters. */
export function safeText(text: string, max: number): string {
  const chars = [...text];
  const kept = chars
    .slice(0, max)
    .map((c) => (/^[\p{C}\p{Zl}\p{Zp}]$/u.test(c) ? '?' : c))
    .join('');
  return chars.length > max ? `${kept}...` : kept;
}
