#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { InputError } from '../io/input-error.ts';
import { configCommand } from './commands/config.ts';
import { solveCommand } from './commands/solve.ts';
import { verifyCommand } from './commands/verify.ts';
import { experimentCommand } from './commands/experiment.ts';
import { reportCommand } from './commands/report.ts';
import { EXIT, UsageError } from './errors.ts';
import { printError } from './output.ts';

/** Errors that mean "your input is wrong": one line, exit 2, no stack trace. */
function isInputError(error: unknown): error is Error {
  // YError: yargs' own parse errors (a flag without its value) when thrown past `.fail()`;
  // yargs does not export the class, so its name is the only handle on it.
  return error instanceof InputError || (error instanceof Error && error.name === 'YError');
}

export async function main(argv: string[]): Promise<void> {
  const cli = yargs(argv)
    .scriptName('nqueens-islands')
    .parserConfiguration({ 'parse-positional-numbers': false })
    .command(solveCommand)
    .command(verifyCommand)
    .command(configCommand)
    .command(experimentCommand)
    .command(reportCommand)
    .demandCommand(1, 'name a command: solve, verify, config, experiment or report')
    .strict()
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((message, error) => {
      if (error) throw error;
      throw new UsageError(message.replace(/\n/g, ' '));
    });
  try {
    await cli.parseAsync();
  } catch (error) {
    if (isInputError(error)) {
      printError(error.message);
      process.exitCode = EXIT.badInput;
      return;
    }
    printError(`internal error: ${(error as Error)?.message ?? String(error)}`);
    process.exitCode = 3;
  }
}

await main(hideBin(process.argv));
