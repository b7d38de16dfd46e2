/**
 * Small study files for the tests of the study commands: N = 8 (runs of milliseconds), written
 * into a test file's own temporary folder.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `DIR/NAME.yaml`: N = 8 on `islands` islands (one island: no topology), then `rest` as YAML lines (sweep, seeds, ...). */
export function studyYaml(dir: string, name: string, rest: string, islands = 1): string {
  const file = join(dir, `${name}.yaml`);
  const topology = islands === 1 ? '    topology: { kind: none }\n' : '';
  writeFileSync(file, `name: ${name}\nbase:\n  overrides:\n    n: 8\n    islands: ${islands}\n${topology}${rest}\n`);
  return file;
}
