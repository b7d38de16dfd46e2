/**
 * A config or study file as text, before parsing: how it is named in messages and how it is
 * read with bounds. config-file.ts and load.ts (which config-file.ts loads on demand) both read it.
 */
import path from 'node:path';
import { InputError } from '../io/errors.ts';
import { MAX_CONFIG_BYTES, readRegularText } from '../io/read-file.ts';
import { ConfigError } from './errors.ts';

/** How a file is named in messages: as the user wrote it, or relative to cwd when it lies inside. */
export function displayName(file: string): string {
  if (!path.isAbsolute(file)) return file;
  const relative = path.relative(process.cwd(), file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/**
 * A whole text file (a regular file of at most MAX_CONFIG_BYTES), with the usual mistakes
 * as one-line errors naming it and what was `expected`.
 */
export function readText(file: string, name: string, expected = 'a YAML or JSON file'): string {
  try {
    return readRegularText(file, { name, expected, maxBytes: MAX_CONFIG_BYTES });
  } catch (error) {
    throw error instanceof InputError ? new ConfigError(error.message) : error;
  }
}
