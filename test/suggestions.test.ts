/**
 * A wrong word or file gets the right one named: did-you-mean for flags, keys and values, and
 * the command or flag that a file or word of the wrong kind meant.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../src/cli/cli.ts';
import { withFlagSuggestions } from '../src/cli/unknown-flags.ts';
import { cliInProcess, ROOT } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-edges-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('wrong-kind files and words are named', () => {
  it('a run config given to experiment, and a study given to solve -c, each say which it is and the command to use', async () => {
    const asStudy = await cliInProcess(['experiment', 'config/default.yaml', '--out', path.join(dir, 'never')]);
    assert.equal(asStudy.code, 2);
    assert.equal(asStudy.stderr, 'nqueens-islands: config/default.yaml is a run config, not a study: use `solve -c config/default.yaml`\n');
    const asConfig = await cliInProcess(['solve', '-c', 'config/experiments/islands.yaml']);
    assert.equal(asConfig.code, 2);
    assert.equal(
      asConfig.stderr,
      'nqueens-islands: config/experiments/islands.yaml is a study (an experiment file: sweep, repeats, ...), not a run config: use `experiment config/experiments/islands.yaml`\n',
    );
  });
  it("`solve 8` suggests -n 8; `report FILE.jsonl` suggests --run; a study's own file suggests its folder", async () => {
    assert.match((await cliInProcess(['solve', '8'])).stderr, /^nqueens-islands: Unknown argument: 8; did you mean -n 8\?\n$/);
    const trace = path.join(dir, 'trace.jsonl');
    writeFileSync(trace, '{}\n');
    const r = await cliInProcess(['report', trace]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /trace\.jsonl: is a file, not a study folder; .* is reported with: nqueens-islands report --run .*trace\.jsonl\n$/,
    );
    const runs = path.join(dir, 'study', 'runs.jsonl');
    mkdirSync(path.dirname(runs));
    writeFileSync(runs, '');
    assert.match(
      (await cliInProcess(['report', runs])).stderr,
      /is a file of a study folder; report the folder: nqueens-islands report .*study\n$/,
    );
  });
});

describe('did-you-mean for values', () => {
  // Bad input in this process (runCli: the binary's parsing and checks, no process per case).
  it('values get did-you-mean, as keys and flags do', async () => {
    for (const [flag, typed, meant] of [
      ['--topology', 'fully_connected', 'fully-connected'],
      ['--migration', 'synk', 'sync'],
      ['--mode', 'hybird', 'hybrid'],
      ['--emigrant-selection', 'bets', 'best'],
    ]) {
      const r = await runCli(['solve', '-n', '8', flag, typed]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, new RegExp(`^nqueens-islands: ${flag}: expected .*got "${typed}"; did you mean "${meant}"\\?\\n$`));
    }
    assert.doesNotMatch((await runCli(['solve', '-n', '8', '--topology', 'zzz'])).stderr, /did you mean/);
  });
});

describe('did-you-mean for flags', () => {
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
});
