/**
 * The command line: yargs over the commands; `main.ts` loads it once the signal handlers are
 * in. `runCli` runs the same command line inside a caller (tests, code that embeds the tool).
 */
import { fatalLine } from './fatal.ts';
import yargs, { type Argv } from 'yargs';
import { InputError } from '../io/errors.ts';
import { toolInfo } from '../package-info.ts';
import { configCommand } from './commands/config.ts';
import { solveCommand } from './commands/solve.ts';
import { verifyCommand } from './commands/verify.ts';
import { experimentCommand } from './commands/experiment.ts';
import { reportCommand } from './commands/report.ts';
import { hostCommand } from './commands/host.ts';
import { hostsCommand } from './commands/hosts.ts';
import { brokerCommand } from './commands/broker.ts';
import { emptyFlagValue, EXIT, UsageError } from './errors.ts';
import { exitWhenWritten, printError, printLine, setExitCode, withCliIo } from './output.ts';
import { withFlagSuggestions } from './unknown-flags.ts';
import { COMPLETION_FLAG } from './completion-flag.ts';

/** Errors that mean "your input is wrong": one line, exit 2, no stack trace. */
function isInputError(error: unknown): error is Error {
  // YError: yargs' own parse errors (a flag without its value) when thrown past `.fail()`;
  // yargs does not export the class, so its name is the only handle on it.
  if (error instanceof InputError) return !OPEN_FILES_LIMIT.test(error.message);
  return error instanceof Error && error.name === 'YError';
}

/**
 * A file that could not be read or written for the process's limit on open files is no
 * mistake in the input: fatalLine names the limit (exit 3), wherever the reason was put in a
 * file's message ("config/default.yaml: cannot read the file (EMFILE)").
 */
const OPEN_FILES_LIMIT = /\((EMFILE|ENFILE)\)/;

/** What a yargs middleware sees of the command's options (`getOptions` is not in @types/yargs). */
interface OptionTable {
  getOptions(): { boolean: string[]; alias: Record<string, string[]> };
}

/**
 * Checks yargs cannot make: yargs reads `--json=foo` as false, and takes `--html ""` as a
 * file name to fail on later. A boolean flag's value is true or false; a flag's value is
 * never empty. Only the words before `--` are flags.
 */
function checkFlagValues(raw: readonly string[]) {
  return (_argv: unknown, y: OptionTable): void => {
    const { boolean, alias } = y.getOptions();
    const booleans = new Set(boolean.flatMap((name) => [name, ...(alias[name] ?? [])]));
    const end = raw.indexOf('--') === -1 ? raw.length : raw.indexOf('--');
    for (let i = 0; i < end; i++) {
      const word = raw[i];
      const withValue = /^(--?)([^=]+)=(.*)$/s.exec(word);
      if (withValue !== null) {
        const [, dashes, name, value] = withValue;
        const flag = `${dashes}${name}`;
        if (booleans.has(name.replace(/^no-/, '')) && !/^(true|false)$/i.test(value)) {
          throw new UsageError(`${flag}: expected true or false, got ${JSON.stringify(value)}`);
        }
        if (value === '') throw emptyFlagValue(flag);
      } else if (word === '' && i > 0 && /^--?[^-]/.test(raw[i - 1]) && !booleans.has(raw[i - 1].replace(/^--?(no-)?/, ''))) {
        throw emptyFlagValue(raw[i - 1]);
      }
    }
  };
}

/**
 * Words after `--` are positionals, never flags: `verify` reads them as rows of its tuple
 * (`verify -- 2 4 1 3`); no other command takes any there, and a word it would ignore is
 * refused rather than guessed at.
 */
function checkWordsAfterDashes(raw: readonly string[]) {
  return (argv: { _: (string | number)[] }): void => {
    const at = raw.indexOf('--');
    if (at === -1 || at === raw.length - 1 || argv._[0] === 'verify') return;
    throw new UsageError(`${JSON.stringify(raw[at + 1])} after --: ${argv._[0]} takes no words there (only verify reads a tuple after --)`);
  };
}

/** What a command line did: its exit code and what it wrote. */
export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command line in this process, as the `nqueens-islands` binary would run it, and
 * returns its exit code and output instead of writing them and exiting: the same parsing,
 * checks, messages and exit codes (`--help` and `--version` included). What it does not
 * share with the binary: the entry point's signal handlers and early worker start
 * (src/cli/main.ts), and environment variables, which are this process's. A `solve` that
 * runs closes its worker threads before this resolves.
 */
export async function runCli(argv: readonly string[]): Promise<CliOutcome> {
  const outcome: CliOutcome = { code: 0, stdout: '', stderr: '' };
  await withCliIo(
    {
      stdout: (text) => (outcome.stdout += text),
      stderr: (text) => (outcome.stderr += text),
      setExitCode: (code) => (outcome.code = code),
      exit: (cleanup) => cleanup(),
    },
    () => main([...argv]),
  );
  return outcome;
}

const COMPLETION_DESCRIBE = 'print a shell completion script for bash or zsh (by $SHELL): source it from ~/.bashrc or ~/.zshrc';

/**
 * Completion and its help, before yargs: true when handled. The values come from the
 * registries (and so the config's schema), loaded only here: no other start pays for them.
 */
async function completionOnly(argv: readonly string[]): Promise<boolean> {
  const help = argv[0] === 'completion' && argv.slice(1).some((w) => w === '--help' || w === '-h');
  if (!help && argv[0] !== COMPLETION_FLAG) return false;
  const { completionHelp, valueCompletions } = await import('./completion.ts');
  if (help) {
    printLine(completionHelp(COMPLETION_DESCRIBE));
    return true;
  }
  const values = valueCompletions(argv.slice(2));
  if (values === null) return false;
  if (values.length > 0) printLine(values.join('\n'));
  return true;
}

export async function main(argv: string[]): Promise<void> {
  if (await completionOnly(argv)) return;
  // Completing a word: no checks of flag values (the word being completed is empty) and no error lines in the prompt.
  const completing = argv[0] === COMPLETION_FLAG;
  const base = yargs(argv);
  const cli = base
    .scriptName('nqueens-islands')
    // Every value arrives as typed: the schema reads numbers (no hex or exponent guessed by the parser; an option without a yargs type is not coerced either).
    .parserConfiguration({ 'parse-positional-numbers': false, 'parse-numbers': false })
    .command(solveCommand)
    .command(verifyCommand)
    .command(configCommand)
    .command(experimentCommand)
    .command(reportCommand)
    .command(hostCommand)
    .command(hostsCommand)
    .command(brokerCommand)
    // yargs' own: bash or zsh (from $SHELL); the script asks the binary for each completion.
    .completion('completion', COMPLETION_DESCRIBE)
    .demandCommand(1, 'name a command: solve, verify, config, experiment, report, host, hosts, broker or completion')
    .strict()
    .recommendCommands()
    .help()
    .alias('h', 'help')
    // Ours, read once; yargs' own guess searches for a package.json on every start (~5 ms).
    .version(toolInfo().version)
    // The terminal's width; not wrapped at all when stdout is not a terminal (a file, a pipe).
    .wrap(base.terminalWidth())
    .middleware((completing ? () => {} : checkFlagValues(argv)) as unknown as Parameters<Argv['middleware']>[0], true)
    .middleware(completing ? () => {} : checkWordsAfterDashes(argv), true)
    .fail((message, error, usage) => {
      if (error) throw error;
      throw new UsageError(withFlagSuggestions(message.replace(/\n/g, ' '), commandFlags(usage), argv));
    });
  skipHelpCache(cli);
  try {
    // yargs hands `--help`, `--version` and completion text to the callback instead of printing
    // it (console.log, which drops a write error: `--help >/dev/full` said nothing and exited 0) and exiting.
    await cli.parseAsync(argv, {}, (_error, _argv, text) => {
      if (text) printLine(text);
    });
  } catch (error) {
    if (completing) return;
    if (isInputError(error)) {
      printError(error.message);
      setExitCode(EXIT.badInput);
    } else {
      const { line, code } = fatalLine(error);
      printError(line);
      setExitCode(code);
    }
    // Said: the process ends once its output is out, whatever the failed work left pending (a
    // NATS client still retrying a refused TLS handshake until its connect timeout).
    await exitWhenWritten(async () => {});
  }
}

/**
 * yargs renders a command's whole help text each time the command runs, just in case it is
 * asked for later (about 100 ms of string-width on a cold start, on every `solve`). Our
 * `.fail()` never shows help, and `--help` renders it when asked, so the cache is switched
 * off. Internal API (yargs 18, pinned): if it is gone, nothing changes but the cost.
 */
function skipHelpCache(cli: Argv): void {
  const usage = (cli as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } })
    .getInternalMethods?.()
    .getUsageInstance?.();
  if (usage?.cacheHelpMessage) usage.cacheHelpMessage = () => {};
}

/**
 * The flags of the command being parsed, for suggestions. yargs hands `.fail()` its usage
 * instance, whose descriptions are keyed by the current command's options (internal API,
 * yargs 18, pinned: without it there are no suggestions, nothing else changes).
 */
function commandFlags(usage: unknown): string[] {
  const descriptions = (usage as { getDescriptions?: () => Record<string, unknown> } | undefined)?.getDescriptions?.();
  return descriptions ? Object.keys(descriptions) : [];
}
