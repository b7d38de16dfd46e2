/** Reading Linux's /proc stat files, for the tests and the bench. */
import { readFileSync } from 'node:fs';

/**
 * The fields of a /proc stat file after the command's closing parenthesis (state is [0],
 * ppid [1], utime [11], stime [12], cutime [13], cstime [14], nice [16]); null without the file.
 */
export function statFields(file: string): string[] | null {
  try {
    const stat = readFileSync(file, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}
