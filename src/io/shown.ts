/**
 * A value from outside as an error message shows it: JSON where it has one, else what it is
 * (a BigInt, undefined, a function, a cycle). Messages about library input use this, so a
 * value JSON cannot carry is one line, not a TypeError from the message itself.
 */
export function shown(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n (a BigInt)`;
  // JSON writes these as null: a file's 1e400 is shown as what it read, Infinity.
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * An options argument of a library call: undefined is none, an object is taken, anything
 * else (null, a number) is refused with `error` instead of failing on its first property.
 */
export function optionsObject<T extends object>(value: T | null | undefined, what: string, error: (message: string) => Error): Partial<T> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw error(`${what}: expected an object of options, got ${shown(value)}`);
  return value;
}
