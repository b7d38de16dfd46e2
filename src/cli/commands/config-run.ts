/** The work behind `config print` and `config schema`, imported only when they run (zod and yaml are heavy to load). */
import type { ArgumentsCamelCase } from 'yargs';
import YAML from 'yaml';
import { runConfigJsonSchema } from '../../config/json-schema.ts';
import { overridesFromArgv } from '../../config/flags.ts';
import { configFileOf, displayName } from '../../config/config-file.ts';
import { readConfigFile } from '../../config/load.ts';
import { toFileShape } from '../../config/file-shape.ts';
import { applyOverrides } from '../../config/overrides.ts';
import { printError, printOut } from '../output.ts';
import { resolveRunConfig } from '../../config/resolve.ts';
import { withoutSecrets } from '../../config/nats-url.ts';

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

/** Where two resolved shapes differ (values that depend on n), null; elsewhere their common value. */
function nullWhereDiffer(a: unknown, b: unknown): unknown {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a)) {
    return Object.fromEntries(Object.entries(a).map(([key, value]) => [key, nullWhereDiffer(value, (b as Record<string, unknown>)[key])]));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? a : null;
}

/**
 * The resolved config in the file shape. Without n (no -n, no `n:` in the file) it is
 * resolved for two board sizes and printed with n and every value that depends on it null
 * (the file's "null = from n" reading), so the defaults can be looked at before choosing N.
 */
function resolvedShape(argv: ArgumentsCamelCase<PrintArgs>): { shape: unknown; nSet: boolean } {
  const file = configFileOf(argv);
  const overrides = overridesFromArgv(argv);
  const input = readConfigFile(file);
  const merged = applyOverrides(input, overrides);
  if (merged === null || typeof merged !== 'object' || Array.isArray(merged) || (merged as { n?: unknown }).n !== undefined) {
    return { shape: toFileShape(resolveRunConfig(input, displayName(file), overrides)), nSet: true };
  }
  const withN = (n: number) => toFileShape(resolveRunConfig({ ...(input as object), n }, displayName(file), overrides));
  return { shape: { ...(nullWhereDiffer(withN(16), withN(400)) as object), n: null }, nSet: false };
}

/** Prints the resolved config in the file shape, so the output is itself a config reproducing the run. */
export function printConfig(argv: ArgumentsCamelCase<PrintArgs>): void {
  const { shape: resolved, nSet } = resolvedShape(argv);
  // A password in `cluster.nats` is shown as *** (the printed config then needs it again, from NQI_NATS_PASSWORD or the file).
  const shape = withoutSecrets(resolved);
  const from = displayName(configFileOf(argv));
  const unset = 'n is not set (give -n N, or n: in the file); values that depend on it are null';
  if (!nSet && argv.json) printError(`config print: ${unset}`);
  printOut(
    argv.json
      ? `${JSON.stringify(shape, null, 2)}\n`
      : toYaml(shape, ` Resolved run config, from ${from} and flags.${nSet ? '' : `\n ${unset}.`}`),
  );
}

export async function printSchema(args: { study?: boolean }): Promise<void> {
  const schema = args.study ? (await import('../../experiment/schema.ts')).experimentJsonSchema() : runConfigJsonSchema();
  printOut(`${JSON.stringify(schema, null, 2)}\n`);
}
