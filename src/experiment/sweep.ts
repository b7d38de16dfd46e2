/**
 * A sweep is a grid: every combination of the listed values. Cells come out in a fixed
 * order (the last key varies fastest, as nested loops in file order) and each has an id
 * made from its values alone, so the same file always gives the same ids and a resumed
 * or extended study still matches its earlier runs.
 */
import { createHash } from 'node:crypto';

export type SweepValue = string | number | boolean | null | { [key: string]: unknown };

export interface Cell {
  /** Stable id from the values: `topology.kind=ring,migration.interval=10`; `base` for an empty sweep. */
  id: string;
  /** The value of each sweep key, in sweep-key order. */
  values: Record<string, SweepValue>;
}

/** A value as it appears in a cell id: strings bare, everything else as JSON. */
export function formatValue(value: SweepValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function cellId(values: Readonly<Record<string, SweepValue>>): string {
  const parts = Object.entries(values).map(([key, value]) => `${key}=${formatValue(value)}`);
  return parts.length === 0 ? 'base' : parts.join(',');
}

/** The grid product of `sweep`, one cell per combination. */
export function expandSweep(sweep: Readonly<Record<string, readonly SweepValue[]>>): Cell[] {
  let combos: Record<string, SweepValue>[] = [{}];
  for (const [key, values] of Object.entries(sweep)) {
    combos = combos.flatMap((combo) => values.map((value) => ({ ...combo, [key]: value })));
  }
  return combos.map((values) => ({ id: cellId(values), values }));
}

/**
 * The baseline of `cell`: the cell with the baseline's values for the baseline keys and the
 * cell's own values for the rest. With `baseline: { topology.kind: none }` and a sweep over
 * topology × interval, (ring, 10) is compared with (none, 10). Null without a baseline.
 */
export function baselineOf(cell: Cell, baseline: Readonly<Record<string, SweepValue>> | undefined): string | null {
  if (baseline === undefined || Object.keys(baseline).length === 0) return null;
  const values: Record<string, SweepValue> = {};
  for (const key of Object.keys(cell.values)) values[key] = key in baseline ? baseline[key] : cell.values[key];
  return cellId(values);
}

/** The seeds every cell runs (paired design): the list given, or base, base + 1, ... */
export function studySeeds(spec: { seed?: number; seeds?: readonly number[]; repeats?: number }): number[] {
  if (spec.seeds !== undefined) return [...spec.seeds];
  const base = spec.seed ?? 1;
  return Array.from({ length: spec.repeats ?? 1 }, (_, k) => base + k);
}

/** Characters of a cell id kept readable in its file name. */
const READABLE_CHARS = 64;

/**
 * A cell id as a file name, one-to-one and bounded: its first READABLE_CHARS characters
 * with anything but letters, digits and `.=-` as `_` (for people), then `~` and 16 hex
 * digits of the whole id's SHA-256 (so `a/b` and `a_b`, or two ids alike in their first
 * characters, never share a file). At most 81 bytes, far below any file system's limit.
 */
export function cellFileName(id: string): string {
  return `${legacyCellFileName(id.slice(0, READABLE_CHARS))}~${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}

/** How studies made before cellFileName named their event logs (not one-to-one): read only when unambiguous. */
export function legacyCellFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9.=-]+/g, '_');
}
