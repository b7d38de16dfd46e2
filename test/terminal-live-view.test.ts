/**
 * The terminal's live view of a run (src/cli/live-view.ts): its header kept on the last
 * frame, 80 columns assumed when the terminal reports 0, no wrapping at 30 columns, and off
 * under TERM=dumb.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { islandLines, terminalFor, type IslandRow, fitWidth } from '../src/cli/live-view.ts';
import { drawsOn } from '../src/io/terminal.ts';
import { CLI, ROOT } from './cli-helpers.ts';

describe('the last frame', () => {
  it('the live view keeps its header on the last frame (under a terminal made by script(1))', (t) => {
    if (spawnSync('script', ['--version']).status !== 0) return t.skip('no script(1) to make a terminal');
    const r = spawnSync('script', ['-qec', `${process.execPath} ${CLI} solve -n 30 --islands 2 --seed 1`, '/dev/null'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, TERM: 'xterm', COLUMNS: '200' },
      timeout: 120_000,
    });
    assert.equal(r.status, 0, r.stderr);
    // What the terminal shows at the end: the text after the last redraw's cursor-up moves.
    const screen = stripVTControlCharacters(r.stdout.split('\u001b[1A').pop() ?? '');
    assert.match(screen, /N=30 {2}islands 2 {2}ring sync every 1 {2}seed 1/); // the default mode at N = 30 (docs/defaults.md)
    assert.match(screen, /island {2}1 {2}iteration/);
    assert.match(screen, /solved N=30: /);
  });
});

describe('a terminal that reports no width', () => {
  it('the live view assumes 80 columns when the terminal reports 0, and its end leaves a line per island', () => {
    const stream = { columns: 0, rows: 0, write: () => true } as unknown as NodeJS.WriteStream;
    assert.deepEqual([terminalFor(stream).columns, terminalFor(stream).rows], [80, 24]);
    const wide = { columns: 132, rows: 50, write: () => true } as unknown as NodeJS.WriteStream;
    assert.equal(terminalFor(wide).columns, 132);
    const sample = {
      type: 'progress' as const,
      island: 1,
      iteration: 40,
      evaluations: 4000,
      bestFitness: 0,
      meanFitness: 3.5,
      diversity: 0.25,
      migrantsSent: 4,
      migrantsAccepted: 2,
      seconds: 0.1,
    };
    const rows = new Map<number, IslandRow>([
      [1, { last: sample, trend: [3, 1, 0] }],
      [0, { last: { ...sample, island: 0, bestFitness: 2 }, trend: [2] }],
    ]);
    const lines = islandLines(rows);
    assert.equal(lines.length, 2);
    assert.match(lines[0], /^ {2}island {2}0 {2}iteration {6}40 {2}best {4}2/);
    assert.match(lines[1], /best {4}0 .* migrants 4\/2/);
  });
});

describe('narrow and dumb terminals', () => {
  it('the live view fits a 30-column terminal and is off under TERM=dumb', () => {
    const view = fitWidth(
      `N=1000  islands 2  ring async every 5  seed 1  3.0 s  1.00M evaluations\n  island  0  iteration  100  best  12 ▁▂▃▄▅▆▇█`,
      30,
    );
    for (const line of view.split('\n')) assert.ok([...line].length <= 29, line);
    const term = process.env.TERM;
    try {
      process.env.TERM = 'dumb';
      assert.equal(drawsOn({ isTTY: true } as NodeJS.WriteStream), false);
      process.env.TERM = 'xterm';
      assert.equal(drawsOn({ isTTY: true } as NodeJS.WriteStream), true);
    } finally {
      if (term === undefined) delete process.env.TERM;
      else process.env.TERM = term;
    }
  });
  it(
    'under a real terminal of 30 columns the live view never wraps; under TERM=dumb it sends no escape',
    { skip: existsSync('/usr/bin/script') ? false : 'needs script(1) for a pseudo-terminal' },
    () => {
      const run = (term: string) =>
        spawnSync(
          'script',
          [
            '-qfec',
            `stty cols 30 rows 20; TERM=${term} "${process.execPath}" "${CLI}" solve -n 2000 --islands 2 --seed 1 --time-limit 0.6`,
            '/dev/null',
          ],
          { encoding: 'utf8', timeout: 60_000 },
        );
      const xterm = run('xterm');
      assert.equal(xterm.status, 1, xterm.stderr);
      // Every line drawn (between cursor moves) fits in 30 columns. A run of 0.6 s draws at
      // least its last frame (close() draws it once an island has reported), so both islands'
      // lines are there to check (not a loop over nothing).
      // eslint-disable-next-line no-control-regex
      const drawn = xterm.stdout.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '\n').split(/[\r\n]+/);
      const lines = drawn.filter((l) => /island/.test(l) && !/^not solved|iterations;/.test(l));
      for (const island of [0, 1])
        assert.ok(
          lines.some((l) => new RegExp(`^ *island +${island} `).test(l)),
          `island ${island}'s line drawn: ${JSON.stringify(lines)}`,
        );
      for (const line of lines) assert.ok([...line].length <= 29, JSON.stringify(line));
      const dumb = run('dumb');
      assert.equal(dumb.status, 1, dumb.stderr);
      assert.ok(!dumb.stdout.includes('\u001b'), 'no escape under TERM=dumb');
    },
  );
});
