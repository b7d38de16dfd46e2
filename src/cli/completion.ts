/**
 * Shell completion of flag values. yargs completes commands and flag names; after a flag that
 * takes a value it would offer flag names again (and our checks would print an error into the
 * prompt for the empty word being completed). Here: the names an enum-like flag accepts, from
 * the registries (`--topology r` offers `ring`, `ring-bi`, ...); nothing for a free number or
 * text (the shell's own file completion then applies, as the script asks for `-o default`).
 */
import { policyFamilies, policyNames } from '../migration-policy/names.ts';
import { REGISTRIES, type Registries } from '../config/registries.ts';
import { flagSpelling, runFlags } from '../config/flags.ts';

/** Flags outside the run config that take a value: a file, a folder, a URL, a count. */
const OTHER_VALUE_FLAGS = new Set(
  ['config', 'c', 'out', 'trace', 'checkpoint', 'checkpoint-every', 'html', 'csv', 'markdown', 'table1', 'bundle', 'set', 'repeats']
    .concat(['shard', 'baseline', 'run', 'file', 'board', 'nats', 'nats-creds', 'nats-ca', 'nats-cert', 'nats-key', 'nats-prefix'])
    .concat(['cluster-key-file', 'hosts', 'wait', 'serve', 'serve-host', 'island-nice', 'name']),
);

/** `completion --help`: yargs' completion command has no help of its own (it printed the script). */
export function completionHelp(describe: string): string {
  return `nqueens-islands completion

${describe}

  nqueens-islands completion >> ~/.bashrc    # bash (SHELL=/bin/bash)
  nqueens-islands completion >> ~/.zshrc     # zsh (SHELL=/usr/bin/zsh)

It completes commands, flags, and the values of enum-like flags from the registries
(${[...flagChoices().keys()].join(', ')}); file flags complete file names.

Options:
  -h, --help  Show help`;
}

/** The values each enum-like flag takes, by flag spelling (`--topology`). */
export function flagChoices(registries: Registries = REGISTRIES): Map<string, string[]> {
  const policies = Object.fromEntries(policyFamilies(registries).map(([key, registry]) => [key, policyNames(registry)]));
  return new Map([
    ['--mode', registries.gaModes.map((d) => d.kind)],
    ['--topology', registries.topologies.map((d) => d.kind)],
    ['--migration', registries.migrationModes.map((d) => d.kind)],
    ['--emigrant-selection', policies.emigrantSelection],
    ['--replacement', policies.replacement],
    ['--on-island-error', ['continue', 'fail']],
    ['--shard', ['auto']],
  ]);
}

/**
 * The completions of the last word of `words` (the command line after the program's name, the
 * last word being completed) when the word before it is a flag that takes a value; null when it
 * is not (yargs completes commands and flag names then).
 */
export function valueCompletions(words: readonly string[]): string[] | null {
  if (words.length < 2) return null;
  const [flag, current] = [words[words.length - 2], words[words.length - 1]];
  const choices = flagChoices().get(flag);
  if (choices !== undefined) return choices.filter((value) => value.startsWith(current));
  const name = flag.replace(/^--?/, '');
  const runFlag = runFlags().find((f) => flagSpelling(f) === flag);
  if (runFlag !== undefined) return runFlag.value === 'boolean' ? null : [];
  return flag.startsWith('-') && OTHER_VALUE_FLAGS.has(name) ? [] : null;
}
