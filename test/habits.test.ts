import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { islandLines, terminalFor, type IslandRow } from '../src/cli/live-view.ts';
import { withFlagSuggestions } from '../src/cli/unknown-flags.ts';
import { cliInProcess, ROOT } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-habits-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('small habits', () => {
  it('help types number flags as numbers (their values still reach the schema as typed)', async () => {
    const help = (await cliInProcess(['solve', '--help'])).stdout;
    for (const flag of ['-n', '--seed', '--islands', '--interval', '--lag', '--max-iterations', '--time-limit', '--checkpoint-every']) {
      assert.match(help, new RegExp(`^\\s+${flag} .*\\[number\\]`, 'm'), flag);
    }
    assert.match(help, /^\s+--migration\s+async \| sync \| lagged\s+\[string\]$/m);
    assert.match((await cliInProcess(['verify', '--help'])).stdout, /^\s+-n [^[]*\[number\]/m);
    const bad = await cliInProcess(['solve', '-n', '8', '--interval', 'ten']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--interval: expected an integer >= 1, got "ten"/);
  });

  it('suggests the flag a misspelt one meant, as config keys do', async () => {
    assert.equal(
      withFlagSuggestions('Unknown argument: topologgy', ['help', 'topology', 'n'], ['--topologgy', 'ring']),
      'Unknown argument: topologgy; did you mean --topology?',
    );
    assert.equal(
      withFlagSuggestions('Unknown argument: htlm', ['help', 'version', 'html'], ['--htlm']),
      'Unknown argument: htlm; did you mean --html?',
    );
    assert.equal(
      withFlagSuggestions('Unknown argument: extra', ['extras'], ['extra']),
      'Unknown argument: extra',
      'a positional is not a flag',
    );
    assert.equal(
      withFlagSuggestions('Unknown arguments: max-iteratons, maxIteratons, zz', ['max-iterations'], ['--max-iteratons=3', '--zz']),
      'Unknown arguments: max-iteratons, zz; did you mean --max-iterations for --max-iteratons?',
    );
    const r = await cliInProcess(['solve', '-n', '8', '--topologgy', 'ring']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'nqueens-islands: Unknown argument: topologgy; did you mean --topology?\n');
    assert.match(
      (
        await cliInProcess([
          'solve',
          '--config',
          path.join(ROOT, 'config/paper.yaml'),
          '--json',
          '-n',
          '8',
          '--migration',
          'sync',
          '--interval',
          '1',
          '--islands',
          '1',
          '--seed',
          '1',
        ])
      ).stdout,
      /"solved":true/,
    );
  });

  it('config print without -n prints the config with n unset and says so', async () => {
    const r = await cliInProcess(['config', 'print']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^# n is not set \(give -n N, or n: in the file\); values that depend on it are null\.$/m);
    assert.match(r.stdout, /^n: null$/m);
    assert.match(r.stdout, /^ {2}badRepositorySize: null$/m, 'floor(sqrt(n)) cannot be known yet');
    assert.match(r.stdout, /^ {2}populationSize: 1000$/m);
    const json = await cliInProcess(['config', 'print', '--json', '--islands', '3']);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).n, null);
    assert.equal(JSON.parse(json.stdout).islands, 3);
    assert.match(json.stderr, /n is not set/);
    assert.match((await cliInProcess(['config', 'print', '-n', '25'])).stdout, /^ {2}badRepositorySize: 5$/m);
    assert.equal((await cliInProcess(['config', 'print', '--interval', 'ten'])).code, 2);
  });

  it('docs and help examples say what is true: which verify example is a solution, sync for repeatable', async () => {
    // The verify examples moved with the commands to docs/cli.md (README's own commands: test/readme.test.ts).
    const readme = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
    for (const [tuple, code, comment] of [
      ['1 5 8 6 3 7 2 4', 0, '# a solution: exit 0'],
      ['8 6 4 1 3 5 7 2', 1, 'not a solution: exit 1'],
    ] as const) {
      assert.ok(
        readme.split('\n').some((line) => line.startsWith(`npx nqueens-islands verify ${tuple} `) && line.includes(comment)),
        tuple,
      );
      assert.equal((await cliInProcess(['verify', ...tuple.split(' ')])).code, code, tuple);
    }
    const help = (await cliInProcess(['solve', '--help'])).stdout.replace(/\s+/g, ' ');
    assert.match(
      help,
      /solve -n 64 --islands 4 --topology ring --migration sync --interval 10 --migrants 2 --seed 7 repeatable: sync migration and a seed give the same run every time/,
    );
  });

  it('a long tuple points to the --out file given, not to --out', async () => {
    const out = path.join(dir, 'long.txt');
    const r = await cliInProcess([
      'solve',
      '--config',
      path.join(ROOT, 'config/large-n.yaml'),
      '-n',
      '300',
      '--seed',
      '1',
      '--islands',
      '1',
      '--out',
      out,
      '--quiet',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`290 more; all of them in ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
    assert.doesNotMatch(r.stdout, /use --out/);
    assert.match((await cliInProcess(['verify', '--file', out])).stdout, /290 more; --all prints them\)/);
  });

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
