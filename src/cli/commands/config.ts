/**
 * `config print [--config F] [flags] [--json]`: the fully resolved run config, written in
 * the file shape so that the output is itself a config file reproducing the run.
 * `config schema`: the JSON Schema of config files, for editors.
 * A bad config is one line on stderr and exit code 2.
 */
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import YAML from 'yaml';
import { ConfigError } from '../../config/errors.ts';
import { CONFIG_FILE_OPTION, RUN_FLAG_OPTIONS } from '../../config/flags.ts';
import { runConfigJsonSchema } from '../../config/json-schema.ts';
import { DEFAULT_CONFIG_FILE, displayName, loadConfigFromArgv } from '../../config/load.ts';
import { toFileShape } from '../../config/schema.ts';

/** Runs `action`; a ConfigError becomes one line on stderr and exit code 2. */
function reportingConfigErrors(action: () => void): void {
  try {
    action();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = error.exitCode;
  }
}

function toYaml(value: unknown, header: string): string {
  const doc = new YAML.Document(value);
  doc.commentBefore = header;
  // Short lists of numbers (edge pairs) read best on one line: [0, 1].
  YAML.visit(doc, {
    Seq(_, node) {
      if (node.items.every((item) => YAML.isScalar(item))) node.flow = true;
    },
  });
  return doc.toString({ flowCollectionPadding: false });
}

interface PrintArgs {
  config?: string;
  json?: boolean;
}

const printCommand: CommandModule<object, PrintArgs> = {
  command: 'print',
  describe: 'print the resolved run config (file plus flags, every default filled in)',
  builder: (yargs) =>
    yargs
      .options(CONFIG_FILE_OPTION)
      .option('json', { type: 'boolean', describe: 'print JSON instead of YAML' })
      .options(RUN_FLAG_OPTIONS)
      .strict(),
  handler: (argv: ArgumentsCamelCase<PrintArgs>) =>
    reportingConfigErrors(() => {
      const config = loadConfigFromArgv(argv);
      const shape = toFileShape(config);
      const from = displayName(argv.config ?? DEFAULT_CONFIG_FILE);
      process.stdout.write(argv.json ? `${JSON.stringify(shape, null, 2)}\n` : toYaml(shape, ` Resolved run config, from ${from} and flags.`));
    }),
};

const schemaCommand: CommandModule = {
  command: 'schema',
  describe: 'print the JSON Schema of run-config files (for editors)',
  builder: (yargs: Argv) => yargs.strict(),
  handler: () => {
    process.stdout.write(`${JSON.stringify(runConfigJsonSchema(), null, 2)}\n`);
  },
};

export const configCommand: CommandModule = {
  command: 'config',
  describe: 'show the resolved run config or the JSON Schema of config files',
  builder: (yargs: Argv) =>
    yargs
      .command(printCommand)
      .command(schemaCommand)
      .demandCommand(1, 'config needs a subcommand: print or schema'),
  handler: () => {},
};
