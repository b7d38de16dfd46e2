/** Whether `v` is among `values[0..count)` (selections keep their k slots distinct). */
export function contains(values: Int32Array, count: number, v: number): boolean {
  for (let i = 0; i < count; i++) if (values[i] === v) return true;
  return false;
}
