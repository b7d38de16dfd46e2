/**
 * docs/defaults.md states the default migration of `solve`; the code's default config must
 * be that one. Changing either alone fails here (issue 38: the doc follows the evidence, the
 * code follows the doc).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIG_FILE } from '../src/config/config-file.ts';
import { readConfigFile } from '../src/config/load.ts';
import { MIGRATION_MODE_BY_N, migrationModeByNText } from '../src/config/defaults.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { studyTable } from '../bench/defaults-tables.ts';
import { ROOT } from './cli-helpers.ts';
import { handMadeStudy } from './hand-study.ts';

describe('docs/defaults.md and the default config agree', () => {
  it("the doc's stated migration is the one solve runs with no flags", () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'defaults.md'), 'utf8');
    const stated = /\*\*The default:\*\* `migration: \{([^}]*)\}`/.exec(doc.replace(/\n/g, ' '));
    assert.ok(stated, 'docs/defaults.md opens with **The default:** `migration: { ... }`');
    const fields = Object.fromEntries(
      stated[1].split(',').map((kv) => {
        const [k, v] = kv.split(':').map((t) => t.trim());
        return [k, v.replace(/^"|"$/g, '')];
      }),
    );
    // The file as written (resolving turns "2%" into a count).
    const config = readConfigFile(DEFAULT_CONFIG_FILE) as { migration: Record<string, unknown> };
    for (const [key, value] of Object.entries(fields)) assert.equal(String(config.migration[key]), value, `migration.${key}`);
    assert.deepEqual(Object.keys(fields).sort(), ['emigrantSelection', 'interval', 'lag', 'migrants', 'mode', 'replacement']);
  });

  it("the doc's mode by board size is the code's, and solve resolves it so on both sides of each boundary", () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'defaults.md'), 'utf8').replace(/\n/g, ' ');
    const stated = /\*\*By board size:\*\* `mode: null` is ([^.]*)\./.exec(doc);
    assert.ok(stated, 'docs/defaults.md says **By board size:** `mode: null` is ...');
    assert.equal(stated[1], migrationModeByNText());
    const file = readConfigFile(DEFAULT_CONFIG_FILE) as Record<string, unknown>;
    const env = { availableParallelism: 2, totalMemory: 8e9 };
    const modeAt = (n: number) => resolveRunConfig({ ...file, n }, 'default.yaml', {}, env).migration.mode;
    for (const [i, range] of MIGRATION_MODE_BY_N.entries()) {
      const from = i === 0 ? 4 : MIGRATION_MODE_BY_N[i - 1].upTo! + 1;
      for (const n of [from, range.upTo ?? 2 * from]) assert.equal(modeAt(n), range.mode, `n = ${n}`);
    }
    // The studied sizes get their winners (docs/defaults.md): sync at 50 and 500, lagged at 100 and 200, and at 1000 and 2000 (not run).
    assert.deepEqual([50, 100, 200, 500, 1000, 2000].map(modeAt), ['sync', 'lagged', 'lagged', 'sync', 'lagged', 'lagged']);
  });

  it("bench/defaults-tables.ts writes a study's table between the page's markers, from the report's numbers", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nq-dm2-'));
    try {
      const folder = handMadeStudy(dir, 'dm2-hand', null, {
        1: [1, 2, 3].map((seed) => ({ seed, solved: true, iterations: 10, evaluations: 100 * seed })),
        2: [1, 2, 3].map((seed) => ({ seed, solved: true, iterations: 10, evaluations: 50 * seed })),
      });
      const table = studyTable(folder);
      // ERT of islands=2: (50 + 100 + 150) / 3 = 100; every ratio 0.5, so is every resample's.
      assert.match(table, /\| N = 12, islands=2 \| 3\/3 \| 100 \[\d+, \d+\] \| 0\.500× \[0\.500, 0\.500\], 3 of 3 differ, p Holm /);
      assert.match(table, /\| N = 12, islands=1 \| 3\/3 \| 200 .*\| baseline \| baseline \|/);
      const page = path.join(dir, 'defaults.md');
      writeFileSync(page, 'before\n<!-- dm2-tables:begin -->\nold\n<!-- dm2-tables:end -->\nafter\n');
      execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'defaults-tables.ts'), folder, '--write', page], {
        cwd: ROOT,
      });
      const written = readFileSync(page, 'utf8');
      assert.ok(written.startsWith('before\n<!-- dm2-tables:begin -->\n### dm2-hand: 6 of 6 runs'), written);
      assert.ok(written.includes(table) && written.endsWith('<!-- dm2-tables:end -->\nafter\n') && !written.includes('old'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
