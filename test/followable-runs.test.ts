/**
 * A run can be followed: --trace lines read while it goes (whole after a stop or a kill), and
 * plain progress lines in a log file with the current rate, this sitting's evaluations after a
 * resume, and a paper-mode estimate said to be one. Through the built CLI.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CLI, ROOT } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-newcomer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A run that never solves and never ends by itself: no crossover, no mutation (a 200-board's random permutations are no solution). */
const ENDLESS = ['-n', '200', '--islands', '1', '--population', '50', '--seed', '1'];
const FROZEN = ['--crossover-probability', '0', '--mutation-probability', '0', '--double-mutation-probability', '0'];

/** The complete lines of a file being written (a last line without its newline is still being written). */
function completeLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(0, -1);
  } catch {
    // Not there yet: the run has not opened it.
    return [];
  }
}

/** The next look at a file being written, as `tail -f` looks (a poll, not a wait for the run). */
const poll = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

describe('a run that can be followed', () => {
  it('--trace lines can be read while the run goes; a stopped run leaves every line whole, ending with done', async () => {
    const file = path.join(dir, 'follow.jsonl');
    const child = spawn(process.execPath, [CLI, 'solve', ...ENDLESS, ...FROZEN, '--max-iterations', '100000000', '--trace', file, '-q'], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Waits for the file to hold the header and progress samples, as `tail -f` would see them.
    let seen: string[] = [];
    const deadline = Date.now() + 60_000;
    while (seen.filter((line) => line.includes('"type":"progress"')).length < 3 && Date.now() < deadline) {
      await poll();
      seen = completeLines(file);
    }
    assert.equal(child.exitCode, null, 'the run still goes while its trace is read');
    assert.equal(JSON.parse(seen[0]).type, 'trace');
    for (const line of seen) JSON.parse(line);
    child.kill('SIGINT');
    assert.equal(await exited, 130);
    const all = completeLines(file).map((line) => JSON.parse(line) as { type: string });
    assert.ok(all.length > seen.length);
    assert.equal(all.at(-1)?.type, 'done');
    assert.ok(readFileSync(file, 'utf8').endsWith('\n'));
  });

  it('a killed run leaves a trace whose complete lines all parse', async () => {
    const file = path.join(dir, 'killed.jsonl');
    const child = spawn(process.execPath, [CLI, 'solve', ...ENDLESS, ...FROZEN, '--max-iterations', '100000000', '--trace', file, '-q'], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    const deadline = Date.now() + 60_000;
    while (completeLines(file).length < 3 && Date.now() < deadline) await poll();
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    const lines = completeLines(file);
    assert.ok(lines.length >= 3);
    for (const line of lines) JSON.parse(line);
  });

  it('solve prints plain progress lines when stderr is a file, and -q silences them', async () => {
    const run = async (quiet: boolean) => {
      const log = path.join(dir, `progress-${quiet}.log`);
      const fd = openSync(log, 'w');
      const child = spawn(
        process.execPath,
        [CLI, 'solve', ...ENDLESS, ...FROZEN, '--max-iterations', '20000', ...(quiet ? ['-q'] : [])],
        // A test-only interval: lines every 20 ms instead of every few seconds.
        { cwd: ROOT, stdio: ['ignore', 'ignore', fd], env: { ...process.env, NQUEENS_ISLANDS_PROGRESS_MS: '20' } },
      );
      closeSync(fd);
      await new Promise<void>((resolve) => child.on('close', () => resolve()));
      return readFileSync(log, 'utf8').split('\n');
    };
    const lines = (await run(false)).filter((line) => line.startsWith('nqueens-islands: progress: '));
    assert.ok(lines.length >= 1, 'at least one progress line');
    for (const line of lines) {
      assert.match(
        line,
        /^nqueens-islands: progress: [\d.]+ s, iteration \d+, best \d+, [\d.]+M evaluations, [\d.]+M evaluations\/s over the last [\d.]+ s$/,
      );
    }
    assert.deepEqual(
      (await run(true)).filter((line) => line.includes('progress:')),
      [],
    );
  });
});

describe('progress lines', () => {
  it("give the current rate over the last interval and, after a resume, this sitting's evaluations", async () => {
    const { progressLine } = await import('../src/cli/progress-lines.ts');
    const sample = (island: number, evaluations: number) =>
      [island, { type: 'progress', island, iteration: 10, bestFitness: 3, evaluations }] as const;
    const latest = new Map([sample(0, 3_000_000), sample(1, 3_000_000)]) as unknown as Parameters<typeof progressLine>[0];
    // 4M of the 6M came from the checkpoint; 1M of the other 2M were made in the last 5 s.
    const line = progressLine(latest, { seconds: 20, startEvaluations: 4_000_000, previous: { seconds: 15, evaluations: 5_000_000 } });
    assert.equal(
      line,
      'progress: 20.0 s, iteration 10, best 3, 6.00M evaluations (2.00M this sitting), 0.20M evaluations/s over the last 5.0 s',
    );
  });

  it("a long paper-mode solve gets the model's estimate, said to be one; a short one or hybrid none", async () => {
    const { solveEstimate, paperSeconds } = await import('../src/config/run-time.ts');
    const paper = { n: 2000, ga: { mode: 'paper' as const } };
    assert.match(
      solveEstimate(paper, 2, 10)!,
      /^estimate: a whole paper-mode solve at N = 2000 takes about \d+ seconds on 2 cores \(the large-N model .*an estimate, not a promise/,
    );
    assert.ok(paperSeconds(2000, 2) >= 10);
    assert.equal(solveEstimate({ n: 200, ga: { mode: 'paper' as const } }, 2, 10), null);
    assert.equal(solveEstimate({ n: 100_000, ga: { mode: 'hybrid' as const } }, 2, 10), null);
  });

  it('the built CLI prints the estimate once, after the first line, in a log file', () => {
    const log = path.join(dir, 'estimate.log');
    // Unsolved at its iteration limit: exit 1, which is not what this test is about.
    spawnSync(
      'sh',
      ['-c', `"${process.execPath}" "${CLI}" solve -n 1500 --islands 2 --seed 1 --max-iterations 30 2> "${log}" >/dev/null`],
      {
        env: { ...process.env, NQUEENS_ISLANDS_PROGRESS_MS: '20' },
      },
    );
    const lines = readFileSync(log, 'utf8').split('\n');
    const first = lines.findIndex((l) => l.includes('progress: '));
    assert.ok(first >= 0, lines.join('\n'));
    assert.equal(lines.filter((l) => l.includes('estimate: ')).length, 1, lines.join('\n'));
    assert.match(lines[first + 1], /^nqueens-islands: estimate: a whole paper-mode solve at N = 1500/);
  });
});
