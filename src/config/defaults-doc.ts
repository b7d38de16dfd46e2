/**
 * Every default of a run config as a Markdown table, made from the code: the run config's JSON
 * Schema (which the zod schema, and so each registry's defaults.ts, fills) and each registry
 * kind's own option fields (applied once the kind is known, so not in the JSON Schema).
 * docs/defaults.md holds it between its `code-defaults` markers; test/defaults-doc.test.ts
 * fails when the page and the code differ, and rewrites the page with NQI_WRITE_DEFAULTS_DOC=1.
 */
import type { z } from 'zod';
import { policyFamilies, optionKey } from '../migration-policy/names.ts';
import { fields } from '../schema/fields.ts';
import { runConfigJsonSchema } from './json-schema.ts';
import { REGISTRIES, type Registries } from './registries.ts';

interface Node {
  default?: unknown;
  const?: unknown;
  properties?: Record<string, Node>;
  oneOf?: Node[];
  anyOf?: Node[];
}

/** One row: the key, where it applies (a mode or kind; '' for always) and its default as JSON. */
export interface DefaultRow {
  key: string;
  when: string;
  value: string;
}

/** The keys with a default under `node`, depth first; a section's own `{}` is not a value. */
function schemaRows(node: Node, at: string, when: string): DefaultRow[] {
  const rows: DefaultRow[] = [];
  for (const branch of [node, ...(node.oneOf ?? []), ...(node.anyOf ?? [])]) {
    const mode = branch.properties?.mode?.const;
    const branchWhen = typeof mode === 'string' && at === 'ga' ? `ga.mode ${mode}` : when;
    for (const [key, child] of Object.entries(branch.properties ?? {})) {
      const path = `${at}${at === '' ? '' : '.'}${key}`;
      const isSection = child.default !== null && typeof child.default === 'object';
      // The mode itself is the default of every config; a section that defaults to null (cluster) has its keys once it is given.
      const keyWhen = key === 'mode' && at === 'ga' ? when : branchWhen;
      if ('default' in child && !isSection) rows.push({ key: path, when: keyWhen, value: JSON.stringify(child.default) });
      rows.push(...schemaRows(child, path, child.default === null ? `${path} given` : branchWhen));
    }
  }
  return rows;
}

/** A kind's options that have a default (a field that parses `undefined`). */
function optionRows(options: Record<string, z.ZodType>, key: (option: string) => string, when: string): DefaultRow[] {
  return Object.entries(options).flatMap(([option, schema]) => {
    const parsed = schema.safeParse(undefined);
    return parsed.success && parsed.data !== undefined ? [{ key: key(option), when, value: JSON.stringify(parsed.data) }] : [];
  });
}

/** Every default of a run config that may name what `registries` hold. */
export function defaultRows(registries: Registries = REGISTRIES): DefaultRow[] {
  const rows = schemaRows(runConfigJsonSchema(registries), '', '');
  for (const d of registries.topologies)
    rows.push(...optionRows(d.options(fields) as Record<string, z.ZodType>, (option) => `topology.${option}`, `topology.kind ${d.kind}`));
  for (const [family, registry] of policyFamilies(registries))
    for (const d of registry)
      rows.push(
        ...optionRows(d.options(fields) as Record<string, z.ZodType>, (o) => `migration.${optionKey(d.kind, o)}`, `${family} ${d.kind}`),
      );
  return rows;
}

/** The rows as the page shows them. */
export function defaultsTable(rows: readonly DefaultRow[] = defaultRows()): string {
  const lines = rows.map((r) => `| \`${r.key}\` | ${r.when === '' ? 'always' : `\`${r.when}\``} | \`${r.value}\` |`);
  return ['| key | applies when | default |', '| --- | --- | --- |', ...lines].join('\n');
}
