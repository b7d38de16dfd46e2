/**
 * Two writers on one study or one file: a live lock refuses in one line, a stale lock is taken
 * over, resumes started at once run nothing twice, event logs are one per cell, and one file
 * named for two outputs is refused before any work.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { thisHolder } from '../src/experiment/lease.ts';
import { LOCK_FILE } from '../src/experiment/lock.ts';
import { eventLogPath } from '../src/experiment/runner.ts';
import { cli, cliAsync, cliInProcess, inBatches, isOneLineError, oneLine } from './cli-helpers.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A small study file (fast runs); `sweep` as YAML text. */
const studyFile = (name: string, sweep: string, seeds = '[1, 2]') => studyYaml(tmp, name, `sweep:\n${sweep}\nseeds: ${seeds}`);

// ---------------------------------------------------------------------------------------
// Class 4: one writer per study; one file per output.

describe('two writers on one study, two outputs on one file', () => {
  it('a study folder locked by a live process: one line naming it, exit 2, nothing run', () => {
    const file = studyFile('locked', '  n: [8]');
    const dir = join(tmp, 'locked');
    mkdirSync(dir);
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ ...thisHolder(), startedAt: 'now' }));
    const line = oneLine(cli(['experiment', file, '--out', dir, '--resume']), 'locked');
    assert.equal(
      line,
      `--out ${dir}: the study is in use by process ${process.pid} on ${hostname()} since now (it is running on this machine); wait for it to end`,
    );
    assert.deepEqual(readdirSync(dir), [LOCK_FILE]);
  });

  it('a stale lock (its process gone, this host) is taken over; the study runs and unlocks', () => {
    const file = studyFile('stale', '  n: [8]');
    const dir = join(tmp, 'stale');
    mkdirSync(dir);
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ ...thisHolder(), pid: 2 ** 22 + 12345, startedAt: 'then' }));
    const r = cli(['experiment', file, '--out', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(join(dir, LOCK_FILE)), false);
    assert.equal(readFileSync(join(dir, 'runs.jsonl'), 'utf8').trimEnd().split('\n').length, 2);
  });

  for (const stale of [false, true]) {
    it(`three \`experiment --resume\` at once${stale ? ', on a stale lock' : ''}: no run twice, one line per run`, async () => {
      const name = stale ? 'thrice-stale' : 'thrice';
      const file = studyFile(name, '  n: [8, 9, 10, 11]', '[1, 2, 3]');
      const dir = join(tmp, name);
      if (stale) {
        mkdirSync(dir);
        writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ ...thisHolder(), pid: 2 ** 22 + 54321, startedAt: 'then' }));
      }
      const results = await inBatches([0, 1, 2], 3, () => cliAsync(['experiment', file, '--out', dir, '--resume']));
      for (const r of results) assert.ok(r.code === 0 || isOneLineError(r), `${r.code} ${r.stderr}`);
      const refused = results.filter((r) => r.code === 2);
      for (const r of refused) assert.match(r.stderr, /the study is in use by process \d+ on /);
      const lines = readFileSync(join(dir, 'runs.jsonl'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { cell: string; seed: number });
      assert.equal(lines.length, 12);
      assert.equal(new Set(lines.map((l) => `${l.cell}@${l.seed}`)).size, 12);
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.startsWith(LOCK_FILE)),
        [],
      );
    });
  }

  it('event logs are one per cell: `a/b` and `a_b` (and long ids) each get their own, resumable', async () => {
    const long = `x${'y'.repeat(400)}`;
    const file = studyFile('names', `  output.file: ["a/b", "a_b", "a b", ${JSON.stringify(long)}]`, '[1]');
    const dir = join(tmp, 'names');
    const r = await cliInProcess(['experiment', file, '--out', dir, '--events']);
    assert.equal(r.code, 0, r.stderr);
    for (const cell of ['a/b', 'a_b', 'a b', long]) assert.ok(existsSync(join(dir, eventLogPath(`output.file=${cell}`, 1))), cell);
    assert.equal(readdirSync(join(dir, 'events')).length, 4);
    const again = await cliInProcess(['experiment', file, '--out', dir, '--events', '--resume']);
    assert.equal(again.code, 0, again.stderr);
  });

  const x = join(tmp, 'same.json');
  const linkToX = join(tmp, 'same-link.json');
  before(() => {
    writeFileSync(x, 'kept\n');
    symlinkSync(x, linkToX);
  });
  const sameFile: [string, string[]][] = [
    ['--out x --trace x', ['solve', '-n', '8', '--out', x, '--trace', x]],
    ['--out x --trace ./x (another spelling)', ['solve', '-n', '8', '--out', x, '--trace', join(tmp, '.', 'same.json')]],
    ['--out x --checkpoint link-to-x', ['solve', '-n', '8', '--out', x, '--checkpoint', linkToX]],
    [
      '--trace new --out new (not there yet)',
      ['solve', '-n', '8', '--trace', join(tmp, 'new.json'), '--out', join(tmp, '..', 'nq-rel-' + tmp.split('nq-rel-')[1], 'new.json')],
    ],
    ['report --html x --csv x', ['report', join(tmp, 'whatever'), '--html', x, '--csv', x]],
  ];
  for (const [name, args] of sameFile) {
    it(`one file for two outputs is refused before any work: ${name}`, async () => {
      assert.match(oneLine(await cliInProcess(args), name), /: the same file as --\w+ .*; give each output its own file$/);
      assert.equal(readFileSync(x, 'utf8'), 'kept\n');
      assert.equal(existsSync(join(tmp, 'new.json')), false);
    });
  }
});
