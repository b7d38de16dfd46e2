/** The process's address-space limit (RLIMIT_AS, `ulimit -v`), read without loading anything else: the CLI's entry point asks it before it boots workers. */
import { readFileSync } from 'node:fs';

/** The soft RLIMIT_AS in bytes from Linux's /proc/self/limits ("Max address space"), or null for none (or no such file). */
export function addressSpaceLimit(file = '/proc/self/limits'): number | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const value = Number(/^Max address space\s+(\S+)/m.exec(text)?.[1]);
  return Number.isFinite(value) && value > 0 ? value : null;
}
