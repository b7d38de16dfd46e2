/**
 * `--help` and the docs' examples say what is true: every flag --resume may change is named,
 * number flags are typed as numbers, what --migrants accepts is shown without wrapping off a
 * terminal, and the examples do what they say.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cliInProcess, cli, ROOT } from './cli-helpers.ts';

describe('solve --help', () => {
  it('names every flag --resume may change (the checkpoint code keeps that list)', async () => {
    const { RESUMABLE_KEYS } = await import('../src/config/resolve.ts');
    const { flagForPath } = await import('../src/config/flags.ts');
    const help = (await cliInProcess(['solve', '--help'])).stdout.replace(/\s+/g, ' ');
    const line = /continue the run saved in FILE; only (.*?) may change/.exec(help);
    assert.ok(line !== null, help);
    assert.deepEqual(
      line[1].split(/, | and /),
      RESUMABLE_KEYS.map((key) => flagForPath(key)),
    );
  });
});

describe('help off a terminal', () => {
  it('help shows what --migrants accepts, and does not wrap when stdout is not a terminal', () => {
    const help = cli(['solve', '--help']).stdout;
    assert.match(help, /^\s+--migrants .*\[number or percent\]$/m);
    assert.match(
      help,
      /^ {2}nqueens-islands solve -n 64 --islands 4 --topology ring --migration sync --interval 10 --migrants 2 --seed 7 {2}/m,
    );
  });
});

describe('help and examples', () => {
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
});
