/**
 * Names of cells for people, made from their swept values: `mode=sync, islands=2`. A key is
 * shortened to its last part (`migration.mode` to `mode`) unless two swept keys would then
 * read alike. The plots' legends, the headline and the figure files use these names.
 */
import { formatValue, type SweepValue } from '../../experiment/sweep.ts';

/** Each cell id's name, in manifest order. */
export function cellNames(cells: readonly { id: string; values: Record<string, SweepValue> }[]): Map<string, string> {
  const keys = [...new Set(cells.flatMap((c) => Object.keys(c.values)))];
  const tails = keys.map((k) => k.slice(k.lastIndexOf('.') + 1));
  const short = new Set(tails).size === tails.length;
  const label = new Map(keys.map((k, i) => [k, short ? tails[i] : k]));
  return new Map(
    cells.map((c) => {
      const parts = Object.entries(c.values).map(([k, v]) => `${label.get(k)}=${formatValue(v)}`);
      return [c.id, parts.length === 0 ? c.id : parts.join(', ')];
    }),
  );
}
