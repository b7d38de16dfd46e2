/**
 * Shell completion: a bash or zsh script that asks the binary; flag values offered from the
 * registries, nothing for free numbers or files, never an error in the prompt; `completion
 * --help` is help.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REGISTRIES } from '../src/config/registries.ts';
import { policyNames } from '../src/migration-policy/names.ts';
import { cliInProcess, cli } from './cli-helpers.ts';

/** What the completion script gets back for `nqueens-islands WORDS...` (the last word being completed). */
async function complete(...words: string[]): Promise<{ words: string[]; stderr: string; code: number | null }> {
  const r = await cliInProcess(['--get-yargs-completions', 'nqueens-islands', ...words]);
  return { words: r.stdout.split('\n').filter((w) => w !== ''), stderr: r.stderr, code: r.code };
}

describe('completion', () => {
  it('offers `ring` after `--topology r`, with no error in the prompt', async () => {
    const r = await complete('solve', '--topology', 'r');
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '');
    assert.ok(r.words.includes('ring'), r.words.join(' '));
    assert.ok(
      r.words.every((w) => w.startsWith('r')),
      r.words.join(' '),
    );
  });

  it('offers every value of each enum-like flag, from the registries', async () => {
    const expected: [string, string[]][] = [
      ['--mode', REGISTRIES.gaModes.map((d) => d.kind)],
      ['--topology', REGISTRIES.topologies.map((d) => d.kind)],
      ['--migration', REGISTRIES.migrationModes.map((d) => d.kind)],
      ['--emigrant-selection', policyNames(REGISTRIES.emigrantSelections)],
      ['--replacement', policyNames(REGISTRIES.replacements)],
      ['--on-island-error', ['continue', 'fail']],
    ];
    for (const [flag, values] of expected) {
      const r = await complete('solve', flag, '');
      assert.equal(r.stderr, '', flag);
      assert.deepEqual(r.words, values, flag);
    }
    assert.deepEqual((await complete('experiment', 'study.yaml', '--shard', '')).words, ['auto']);
  });

  it('offers nothing for a free number or a file, and no error (the shell completes file names then)', async () => {
    for (const words of [
      ['solve', '-n', ''],
      ['solve', '--seed', '1'],
      ['solve', '--interval', ''],
      ['solve', '--out', ''],
      ['report', '--html', ''],
    ]) {
      const r = await complete(...words);
      assert.equal(r.code, 0, words.join(' '));
      assert.deepEqual(r.words, [], words.join(' '));
      assert.equal(r.stderr, '', words.join(' '));
    }
  });

  it('still completes flag names and commands', async () => {
    assert.ok((await complete('solve', '--topo')).words.includes('--topology'));
    assert.ok((await complete('')).words.includes('experiment'));
    const afterBoolean = await complete('solve', '--json', '');
    assert.equal(afterBoolean.stderr, '');
    assert.ok(afterBoolean.words.includes('--seed'));
  });

  it('`completion --help` is help, not the script', async () => {
    const r = await cliInProcess(['completion', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^nqueens-islands completion\n/);
    assert.match(r.stdout, /source it from ~\/\.bashrc or ~\/\.zshrc/);
    assert.doesNotMatch(r.stdout, /###-begin-nqueens-islands-completions-###/);
  });
});

describe('the completion script', () => {
  it('completion prints a bash or zsh script that asks the binary, and the binary answers', () => {
    const bash = cli(['completion'], { env: { SHELL: '/bin/bash' } });
    assert.equal(bash.code, 0);
    assert.match(bash.stdout, /complete -o bashdefault -o default -F _nqueens-islands_yargs_completions nqueens-islands/);
    const zsh = cli(['completion'], { env: { SHELL: '/usr/bin/zsh' } });
    assert.match(zsh.stdout, /^#compdef nqueens-islands/m);
    const words = cli(['--get-yargs-completions', 'nqueens-islands', 'solve', '--topo']).stdout.split('\n');
    assert.ok(words.includes('--topology'), words.join(' '));
  });
});
