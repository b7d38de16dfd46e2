/** `migration.migrants`: its field, and its count for the run and for each island group (of its own population). */
import { z } from 'zod';
import { expected } from '../schema/fields.ts';

/** `"5%"`: a percentage of the population. */
export const PERCENT = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/;

const MIGRANTS_EXPECTED = 'an integer >= 1, a fraction in (0, 1) or a percentage like "5%"';
const migrantsError = { error: expected(MIGRANTS_EXPECTED) };
// zod reports a union failure through the branch closest to the input, so every branch
// and check carries the same message.
/** `migration.migrants` in a file: a count, a fraction of the population or a percentage. */
export const migrantsSchema = z.union(
  [
    z.number(migrantsError).int(migrantsError).min(1, migrantsError),
    z.number(migrantsError).gt(0, migrantsError).lt(1, migrantsError),
    // zod runs a refinement even after the regex failed: it must not assume a match.
    z
      .string(migrantsError)
      .regex(PERCENT, migrantsError)
      .refine((s) => {
        const match = PERCENT.exec(s);
        return match !== null && Number(match[1]) > 0 && Number(match[1]) < 100;
      }, migrantsError),
  ],
  migrantsError,
);

/** Emigrants per migration as a count, for an island of `populationSize` (a fraction or percentage is of it, at least 1). */
export function migrantsCount(migrants: number | string, populationSize: number): number {
  if (typeof migrants === 'string') return Math.max(1, Math.round((Number(PERCENT.exec(migrants)![1]) / 100) * populationSize));
  return migrants < 1 ? Math.max(1, Math.round(migrants * populationSize)) : migrants;
}
