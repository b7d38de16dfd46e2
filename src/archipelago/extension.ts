/**
 * Registry entries from outside the source tree (a library user's own policy, a test's):
 * a module whose default export is an `Extension`. The config takes its entries through
 * `extendRegistries`; a run passes the module's URL in `ArchipelagoOptions.extensions`, and
 * each island's worker imports it, so the island can build what the config named.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { GaModeRegistry } from '../ga/create-evolver.ts';
import type { EmigrantSelectionRegistry, ReplacementRegistry } from '../migration-policy/lookup.ts';
import type { MigrationModeRegistry } from './modes/define.ts';

/** What an island builds from registries: its GA mode, its migration mode and its migration policies. */
export interface IslandRegistries {
  gaModes: GaModeRegistry;
  migrationModes: MigrationModeRegistry;
  emigrantSelections: EmigrantSelectionRegistry;
  replacements: ReplacementRegistry;
}

export type Extension = Partial<IslandRegistries>;

/** `base` with each extension's entries after its own (any other registries of `base` kept). */
export function extendRegistries<R extends IslandRegistries>(base: R, extensions: readonly Extension[]): R {
  const more = <T>(own: readonly T[], of: (e: Extension) => readonly T[] | undefined): T[] => [
    ...own,
    ...extensions.flatMap((e) => of(e) ?? []),
  ];
  return {
    ...base,
    gaModes: more(base.gaModes, (e) => e.gaModes),
    migrationModes: more(base.migrationModes, (e) => e.migrationModes),
    emigrantSelections: more(base.emigrantSelections, (e) => e.emigrantSelections),
    replacements: more(base.replacements, (e) => e.replacements),
  };
}

/**
 * The extensions of module URLs (each module's default export). A TypeScript module (run
 * under tsx, as the tests are) is required: in a Node 20 worker thread tsx's require hook
 * works and its import hook does not.
 */
export async function loadExtensions(urls: readonly string[]): Promise<Extension[]> {
  const load = async (url: string) => {
    if (!/\.[cm]?ts$/.test(url)) return (await import(url)) as { default: Extension };
    try {
      return createRequire(import.meta.url)(fileURLToPath(url)) as { default: Extension };
    } catch (error) {
      // Without tsx's loader in this thread (compiled code; npm test's compiled workers) the
      // first type annotation is a syntax error: say so instead of "Unexpected token".
      if (!(error instanceof SyntaxError)) throw error;
      throw new Error(
        `extension module ${fileURLToPath(url)}: ${error.message}; a TypeScript module needs tsx's loader in the thread that loads it: compile it to JavaScript`,
        { cause: error },
      );
    }
  };
  return Promise.all(urls.map(async (url) => (await load(url)).default));
}

/** The registry entries an island's task names: its GA mode and its two migration policies. */
export interface TaskEntries {
  mode: string;
  emigrantSelection: string;
  replacement: string;
}

/** The first entry `uses` names that `registries` lack, as `replacement "random"`; null when they have all. */
export function missingEntry(uses: TaskEntries, registries: IslandRegistries): string | null {
  if (!registries.gaModes.some((d) => d.kind === uses.mode)) return `GA mode ${JSON.stringify(uses.mode)}`;
  if (!registries.emigrantSelections.some((d) => d.kind === uses.emigrantSelection))
    return `emigrant selection ${JSON.stringify(uses.emigrantSelection)}`;
  if (!registries.replacements.some((d) => d.kind === uses.replacement)) return `replacement ${JSON.stringify(uses.replacement)}`;
  return null;
}
