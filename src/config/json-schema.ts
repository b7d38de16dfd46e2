/**
 * JSON Schema (draft 2020-12) of the run-config file shape, for editors: point the YAML
 * language server at it (`# yaml-language-server: $schema=...`) to get completion and
 * checks while writing files in config/. The zod schema stays the authority: cross-field
 * checks (migrants <= populationSize, hypercube island counts, memory) are not in here.
 */
import { z } from 'zod';
import { REGISTRIES, type Registries } from './registries.ts';
import { runConfigSchemaFor } from './schema.ts';

/** The JSON Schema of a run-config file that may name what `registries` hold. */
export function runConfigJsonSchema(registries: Registries = REGISTRIES): Record<string, unknown> {
  // io: 'input' describes what a file may contain (defaults optional), not the parsed output.
  const schema = z.toJSONSchema(runConfigSchemaFor(registries), { io: 'input', target: 'draft-2020-12' });
  // `n` may come from the command line (-n): config/default.yaml leaves it out; resolving a run still needs it.
  const required = (schema.required ?? []).filter((key) => key !== 'n');
  const { required: _dropped, ...rest } = schema;
  return { ...rest, ...(required.length > 0 ? { required } : {}), title: 'nqueens-islands run config' };
}
