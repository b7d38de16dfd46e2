/**
 * One key given twice to other values says two things (issue 47, fifth round): `--set` of one
 * key twice is refused in one line naming both (exit 2), through the bundle and the library's
 * `edits.set`, as `report --baseline` is; the same value twice is one edit.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../src/config/errors.ts';
import { runExperiment } from '../src/index.ts';
import { cliAsync, inBatches } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-refusals-repeated-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const study = path.join(dir, 'st.yaml');
writeFileSync(study, 'name: st\nbase: { overrides: { n: 8, islands: 1 } }\nsweep: { migration.interval: [5, 10] }\nseeds: [1, 2]\n');

/** [the two --set values, what the refusal says, or null when accepted] */
const ROWS: [[string, string], RegExp | null][] = [
  [['seeds=[1]', 'seeds=[1,2,3]'], /^--set seeds=\[1,2,3\]: seeds is set twice \(also --set seeds=\[1\]\); give each key once$/],
  [['sweep.migration.interval=[5]', 'sweep.migration.interval=[7]'], /sweep\.migration\.interval is set twice/],
  [['base.overrides.n=8', 'base.overrides.n=10'], /base\.overrides\.n is set twice/],
  [['seeds=[1]', 'seeds=[1]'], null],
];

describe('--set of one key twice', () => {
  it('the CLI: refused before any run, one line, exit 2; the same value twice runs', async () => {
    const results = await inBatches(
      ROWS.map(([sets], i) => ({ sets, out: path.join(dir, `o${i}`) })),
      2,
      ({ sets, out }) => cliAsync(['experiment', study, '--out', out, '-q', '--set', sets[0], '--set', sets[1]]),
    );
    results.forEach((r, i) => {
      const [, says] = ROWS[i];
      if (says === null) return assert.equal(r.code, 0, r.stderr);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr.replace(/^nqueens-islands: /, '').trimEnd(), says);
      assert.equal(r.stderr.split('\n').length, 2);
      assert.ok(!existsSync(path.join(dir, `o${i}`)), 'nothing written');
    });
  });

  it('the library: runExperiment({ edits: { set } }) refuses it the same way', async () => {
    await assert.rejects(
      runExperiment(study, { out: path.join(dir, 'lib'), edits: { set: ['seeds=[1]', 'seeds=[2]'] } }),
      (e: unknown) => e instanceof ConfigError && /seeds is set twice/.test(e.message),
    );
  });
});
