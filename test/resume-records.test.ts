/**
 * `experiment --resume` reads a study's records as `report` does (a bad one is set aside and
 * its run redone, said once) and checks the build that made them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliInProcess } from './cli-helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-round5-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe('--resume reads records as report does: a bad one is set aside and its run redone, said once', () => {
  const file = join(tmp, 'resume.yaml');
  before(() => writeFileSync(file, 'base: { overrides: { n: 8, islands: 1, limits: { maxIterations: 500 } } }\nrepeats: 3\nseed: 1\n'));
  // [what is wrong, how one good record is spoilt]
  const spoilers: [string, (r: Record<string, unknown>) => Record<string, unknown>][] = [
    ['a foreign seed', (r) => ({ ...r, seed: 999 })],
    ['a foreign cell', (r) => ({ ...r, cell: 'elsewhere' })],
    ['an invalid "solved"', (r) => ({ ...r, solved: true, fitness: 0, solution: [1, 1, 1, 1, 1, 1, 1, 1] })],
    ["another cell's values", (r) => ({ ...r, values: { n: 9 } })],
  ];
  for (const [shard, runsName] of [
    [null, 'runs.jsonl'],
    ['1/1', 'runs.shard-1-of-1.jsonl'],
  ] as const) {
    it(`${shard === null ? 'one process' : `--shard ${shard}`}: every kind at once`, async () => {
      const out = join(tmp, `resume-${shard === null ? 'one' : 'shard'}`);
      const more = shard === null ? [] : ['--shard', shard];
      assert.equal((await cliInProcess(['experiment', file, '--out', out, '--quiet', ...more])).code, 0);
      const runsFile = join(out, runsName);
      const lines = readFileSync(runsFile, 'utf8').trim().split('\n');
      const spoilt = spoilers.map(([, spoil], i) => JSON.stringify(spoil(JSON.parse(lines[i % lines.length]) as Record<string, unknown>)));
      writeFileSync(runsFile, [...lines, ...spoilt].map((l) => `${l}\n`).join(''));
      const refused = await cliInProcess(['report', out]);
      assert.equal(refused.code, 2, 'report refuses the folder');
      const r = await cliInProcess(['experiment', file, '--out', out, '--quiet', ...(shard === null ? ['--resume'] : more)]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr.match(/do not fit the study/g)?.length, 1, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`4 records that do not fit the study moved to .*${runsName.replace('.jsonl', '.set-aside.jsonl')}`),
      );
      assert.equal(readFileSync(join(out, runsName.replace('.jsonl', '.set-aside.jsonl')), 'utf8'), spoilt.map((l) => `${l}\n`).join(''));
      assert.equal(readFileSync(runsFile, 'utf8'), lines.map((l) => `${l}\n`).join(''), 'the good records stay as they were');
      const report = await cliInProcess(['report', out]);
      assert.equal(report.code, 0, report.stderr);
      // Nothing left to set aside: a second resume says nothing of it.
      const again = await cliInProcess(['experiment', file, '--out', out, '--quiet', ...(shard === null ? ['--resume'] : more)]);
      assert.doesNotMatch(again.stderr, /do not fit/);
    });
  }
  it('a bad "solved" record is redone: the study ends with the run\'s true record', async () => {
    const out = join(tmp, 'resume-redo');
    assert.equal((await cliInProcess(['experiment', file, '--out', out, '--quiet'])).code, 0);
    const runsFile = join(out, 'runs.jsonl');
    const lines = readFileSync(runsFile, 'utf8').trim().split('\n');
    const bad = { ...(JSON.parse(lines[0]) as Record<string, unknown>), solved: true, fitness: 0, solution: [1, 2, 3, 4, 5, 6, 7, 8] };
    writeFileSync(runsFile, [JSON.stringify(bad), ...lines.slice(1)].map((l) => `${l}\n`).join(''));
    const r = await cliInProcess(['experiment', file, '--out', out, '--quiet', '--resume']);
    assert.equal(r.code, 0, r.stderr);
    const redone = readFileSync(runsFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seed: number; solution: unknown });
    assert.equal(redone.length, lines.length);
    assert.deepEqual(redone.at(-1)!.solution, (JSON.parse(lines[0]) as { solution: unknown }).solution, 'the run again, as before');
  });
});

describe("a study's build on resume", () => {
  const file = join(tmp, 'build.yaml');
  before(() => writeFileSync(file, 'base: { overrides: { n: 8, islands: 1, limits: { maxIterations: 50 } } }\nrepeats: 1\nseed: 1\n'));
  async function studyWith(name: string, edit: (m: Record<string, unknown>) => void): Promise<string> {
    const out = join(tmp, name);
    assert.equal((await cliInProcess(['experiment', file, '--out', out, '--quiet'])).code, 0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    edit(manifest);
    writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest));
    return out;
  }
  it('a manifest with `commit: null` is a damaged folder: one line, exit 2 (was an internal error, exit 3)', async () => {
    const out = await studyWith('commit-null', (m) => ((m.provenance as Record<string, unknown>).commit = null));
    const r = await cliInProcess(['experiment', file, '--out', out, '--resume']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /manifest\.json: provenance\.commit: expected string, received null; the folder is damaged/);
  });
  it('a manifest without provenance is refused for --resume unless --mixed-builds', async () => {
    const out = await studyWith('no-provenance', (m) => delete m.provenance);
    const r = await cliInProcess(['experiment', file, '--out', out, '--resume']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /the manifest names no build \(no provenance\).*add --mixed-builds/);
    const mixed = await cliInProcess(['experiment', file, '--out', out, '--resume', '--mixed-builds']);
    assert.equal(mixed.code, 0, mixed.stderr);
  });
  it('two builds without git are told apart by their bundles; the same build, or two runs from source, are one', async () => {
    const { buildDifference } = await import('../src/experiment/manifest.ts');
    const { machineProvenance } = await import('../src/provenance.ts');
    const base = { ...machineProvenance(), commit: 'unknown', dirty: null };
    const manifest = (p: object) => ({ provenance: p }) as unknown as Parameters<typeof buildDifference>[0];
    const a = { ...base, bundleSha256: 'a'.repeat(64) };
    const b = { ...base, bundleSha256: 'b'.repeat(64) };
    assert.match(buildDifference(manifest(a), b, null)!, /a build without git \(bundle sha256 aaaaaaaaaaaa\.\.\.\), this is another/);
    assert.match(buildDifference(manifest(a), base, null)!, /no bundle hash/);
    assert.equal(buildDifference(manifest(a), a, null), null);
    assert.equal(buildDifference(manifest(base), base, null), null);
  });
});
