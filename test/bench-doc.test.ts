// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
/**
 * `npm run bench -- --write PAGE` (bench/bench-doc.ts): the figures a run measured replace
 * their rows of the page's table, the others stay, new ones are added, each row names the run
 * and the command that measures it again; the page outside the markers is left as it was. A
 * page without the markers is refused before anything is measured.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { checkBenchDoc, mergedBlock, tableRows, writeBenchDoc } from '../bench/bench-doc.ts';
import { ROOT } from './paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-bench-doc-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const OLD = [
  '| figure | measured | target | met? | measured in | regenerate |',
  '| --- | --- | --- | --- | --- | --- |',
  '| `solve -n 8` / `node -e 0` | 2.80 | ≤ 2.0 | no | abc1234, 2026-11-29, load 2.4 | `npm run bench -- --only start --write docs/benchmarks.md` |',
  '| 2 islands / 1 island | 1.83 | ≥ 1.95 | no | abc1234, 2026-11-29, load 2.4 | `npm run bench -- --only islands --write docs/benchmarks.md` |',
].join('\n');
const RUN = 'def5678, 2026-11-30, load 0.3';

describe('the bench block', () => {
  it("replaces a measured figure's row, keeps the others, and adds a new figure at the end", () => {
    const block = mergedBlock(
      OLD,
      [
        { row: ['2 islands / 1 island', '1.97', '≥ 1.95', 'yes'], section: 'islands' },
        { row: ['a | new figure', 0.5, '≤ 1', 'yes', '`solve -n 200`'], section: 'cli' },
      ],
      RUN,
    );
    const rows = tableRows(block);
    assert.deepEqual(rows[0], tableRows(OLD)[0]);
    assert.deepEqual(rows[1], [
      '2 islands / 1 island',
      '1.97',
      '≥ 1.95',
      'yes',
      RUN,
      '`npm run bench -- --only islands --write docs/benchmarks.md`',
    ]);
    assert.deepEqual(rows[2], [
      'a \\| new figure (`solve -n 200`)',
      '0.5',
      '≤ 1',
      'yes',
      RUN,
      '`npm run bench -- --only cli --write docs/benchmarks.md`',
    ]);
    assert.equal(rows.length, 3);
  });

  it('writes the page with the text around the markers unchanged', () => {
    const page = path.join(dir, 'page.md');
    const before = '# Benchmarks\n\nintro\n\n<!-- bench:begin -->\n';
    const afterText = '\n<!-- bench:end -->\n\nmore text\n';
    writeFileSync(page, `${before}${OLD}${afterText}`);
    writeBenchDoc(page, [{ row: ['`solve -n 8` / `node -e 0`', '1.90', '≤ 2.0', 'yes'], section: 'start' }], RUN);
    const text = readFileSync(page, 'utf8');
    assert.ok(text.startsWith(before) && text.endsWith(afterText), text);
    assert.match(text, /\| `solve -n 8` \/ `node -e 0` \| 1\.90 \| ≤ 2\.0 \| yes \| def5678, 2026-11-30, load 0\.3 \|/);
    assert.match(text, /\| 2 islands \/ 1 island \| 1\.83 \|/);
  });

  it('refuses a page without the markers, and the bench refuses it before measuring (one line, exit 2)', () => {
    const page = path.join(dir, 'plain.md');
    writeFileSync(page, '# no block here\n');
    assert.throws(() => checkBenchDoc(page), /plain\.md: no <!-- bench:begin --> \.\.\. <!-- bench:end --> markers/);
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/bench.ts', '--only', 'start', '--write', page], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^bench: --write: .*plain\.md: no <!-- bench:begin -->/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(readFileSync(page, 'utf8'), '# no block here\n');
  });
});
