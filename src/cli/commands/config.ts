/**
 * `config print [--config F] [flags] [--json]`: the fully resolved run config, written in
 * the file shape so that the output is itself a config file reproducing the run.
 * `config schema [--study]`: the JSON Schema of config files (or of experiment files), for editors.
 * A bad config is one line on stderr and exit code 2 (src/cli/main.ts).
 */
import type { Argv, CommandModule } from 'yargs';
import { withRunConfigFlags } from '../run-flags.ts';
import type { PrintArgs } from './config-run.ts';

const printCommand: CommandModule<object, PrintArgs> = {
  command: 'print',
  describe: 'print the resolved run config (file plus flags, every default filled in)',
  builder: async (yargs) =>
    (await withRunConfigFlags(yargs)).option('json', { type: 'boolean', describe: 'print JSON instead of YAML' }).strict(),
  handler: async (argv) => (await import('./config-run.ts')).printConfig(argv),
};

const schemaCommand: CommandModule<object, { study: boolean }> = {
  command: 'schema',
  describe: 'print the JSON Schema of run-config files, or with --study of experiment files (for editors)',
  builder: (yargs: Argv) =>
    yargs
      .option('study', {
        type: 'boolean',
        default: false,
        describe: 'the JSON Schema of experiment (study) files instead (config/experiment.schema.json)',
      })
      .strict(),
  handler: async (argv) => (await import('./config-run.ts')).printSchema(argv),
};

export const configCommand: CommandModule = {
  command: 'config',
  describe: 'show the resolved run config or the JSON Schema of config files',
  builder: (yargs: Argv) =>
    yargs.command(printCommand).command(schemaCommand).demandCommand(1, 'config needs a subcommand: print or schema'),
  handler: () => {},
};
