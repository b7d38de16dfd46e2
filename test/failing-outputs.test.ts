/**
 * An output that fails (a full disk, stdout on /dev/full, a checkpoint that keeps failing) is
 * said in one line, exit 4, once, and the result is kept wherever it could be written. Through
 * the built binary (a real stdout on /dev/full) and in-process (`runCli`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, cliInProcess, toDevFull } from './cli-helpers.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel4-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const HAS_DEV_FULL = existsSync('/dev/full');

const studyFile = (name: string) => studyYaml(tmp, name, 'seeds: [1, 2]');

describe('one failing output keeps the result elsewhere (exit 4, one line)', { skip: !HAS_DEV_FULL && 'no /dev/full' }, () => {
  const study = join(tmp, 'study-1');
  before(async () => {
    const r = await cliInProcess(['experiment', studyFile('s1'), '--out', study]);
    assert.equal(r.code, 0, r.stderr);
  });
  // [name, args, stdout on /dev/full, what stderr says, the file that keeps the result]
  const cases: [string, string[], boolean, RegExp, string | null][] = [
    [
      'solve --trace /dev/full --out r.json',
      ['solve', '-n', '8', '--seed', '1', '--quiet', '--trace', '/dev/full', '--out', 'r1.json'],
      false,
      /--trace \/dev\/full: cannot be written \(no space left on the device\); the result is on stdout and in r1\.json/,
      'r1.json',
    ],
    [
      'solve --json --out r.json >/dev/full',
      ['solve', '-n', '8', '--seed', '1', '--quiet', '--json', '--out', 'r2.json'],
      true,
      /stdout: cannot be written \(no space left on the device\)/,
      'r2.json',
    ],
    ['solve --json >/dev/full', ['solve', '-n', '8', '--seed', '1', '--quiet', '--json'], true, /stdout: cannot be written/, null],
    ['verify >/dev/full', ['verify', '2', '4', '1', '3'], true, /stdout: cannot be written/, null],
    ['verify of a non-solution >/dev/full (not exit 1)', ['verify', '1', '2', '3', '4'], true, /stdout: cannot be written/, null],
    ['config print >/dev/full', ['config', 'print', '-n', '8'], true, /stdout: cannot be written/, null],
    ['report >/dev/full', ['report', 'study-1'], true, /stdout: cannot be written/, null],
    [
      'report --csv /dev/full',
      ['report', 'study-1', '--csv', '/dev/full'],
      false,
      /--csv \/dev\/full: cannot be written \(no space left on the device\); the summary is on stdout only/,
      null,
    ],
  ];
  for (const [name, args, stdoutFull, says, kept] of cases) {
    it(name, () => {
      const r = stdoutFull
        ? toDevFull(args, tmp)
        : spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
      const stderr = 'stderr' in r ? String(r.stderr) : '';
      assert.equal('status' in r ? r.status : r.code, 4, stderr);
      assert.match(stderr, says);
      assert.doesNotMatch(stderr, /internal error|\n\s+at /);
      if (!stdoutFull) assert.ok(String((r as { stdout: string }).stdout).length > 0, 'the result is on stdout');
      if (kept !== null) assert.equal(JSON.parse(readFileSync(join(tmp, kept), 'utf8')).solved, true);
    });
  }
});

describe('a checkpoint that keeps failing the same way is said once', { skip: !existsSync('/dev/full') && 'no /dev/full' }, () => {
  it('--checkpoint /dev/full every 10 ms over a run of many checkpoints: one line, the result still printed', async () => {
    const r = await cliInProcess([
      'solve',
      '-n',
      '60',
      '--seed',
      '1',
      '--islands',
      '2',
      '--quiet',
      '--json',
      '--max-iterations',
      '3000',
      '--checkpoint',
      '/dev/full',
      '--checkpoint-every',
      '0.01',
    ]);
    const lines = r.stderr.trimEnd().split('\n');
    assert.deepEqual(lines, [
      'nqueens-islands: --checkpoint /dev/full: cannot be written (no space left on the device); the run goes on (the previous checkpoint, if any, stays)',
    ]);
    assert.equal((JSON.parse(r.stdout) as { n: number }).n, 60);
  });
});

describe("stdout that fails: yargs' own output too, and no false note", { skip: !existsSync('/dev/full') && 'no /dev/full' }, () => {
  const line =
    'nqueens-islands: stdout: cannot be written (no space left on the device); nothing more is shown there (files it was given to write are still written)\n';
  for (const args of [['--help'], ['solve', '--help'], ['--version'], ['completion']])
    it(`${args.join(' ')} >/dev/full: exit 4 and one line (was exit 0, nothing said)`, () => {
      assert.deepEqual(toDevFull(args, tmp), { code: 4, stderr: line });
    });

  it('solve --json --out r.json >/dev/full: exit 4, the result in r.json, and no claim that it is lost', () => {
    const out = join(tmp, 'kept.json');
    assert.deepEqual(toDevFull(['solve', '-n', '8', '--seed', '1', '--quiet', '--json', '--out', out], tmp), { code: 4, stderr: line });
    assert.equal((JSON.parse(readFileSync(out, 'utf8')) as { solved: boolean }).solved, true);
  });
});
