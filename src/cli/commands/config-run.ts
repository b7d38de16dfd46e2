/** The work behind `config print` and `config schema`, imported only when they run (zod and yaml are heavy to load). */
import type { ArgumentsCamelCase } from 'yargs';
import YAML from 'yaml';
import { runConfigJsonSchema } from '../../config/json-schema.ts';
import { DEFAULT_CONFIG_FILE, displayName, loadConfigFromArgv } from '../../config/load.ts';
import { toFileShape } from '../../config/schema.ts';

export interface PrintArgs {
  config?: string;
  json?: boolean;
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

/** Prints the resolved config in the file shape, so the output is itself a config reproducing the run. */
export function printConfig(argv: ArgumentsCamelCase<PrintArgs>): void {
  const config = loadConfigFromArgv(argv);
  const shape = toFileShape(config);
  const from = displayName(argv.config ?? DEFAULT_CONFIG_FILE);
  process.stdout.write(argv.json ? `${JSON.stringify(shape, null, 2)}\n` : toYaml(shape, ` Resolved run config, from ${from} and flags.`));
}

export function printSchema(): void {
  process.stdout.write(`${JSON.stringify(runConfigJsonSchema(), null, 2)}\n`);
}
