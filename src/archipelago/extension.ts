/**
 * Registry entries from outside the source tree (a library user's own policy, a test's):
 * a module whose default export is an `Extension`. The config takes its entries through
 * `extendRegistries`; a run passes the module's URL in `ArchipelagoOptions.extensions`, and
 * each island's worker imports it, so the island can build what the config named.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { EmigrantSelectionRegistry, PolicyRegistries, ReplacementRegistry } from './policies/lookup.ts';

export interface Extension {
  emigrantSelections?: EmigrantSelectionRegistry;
  replacements?: ReplacementRegistry;
}

/** `base` with each extension's entries after its own (any other registries of `base` kept). */
export function extendRegistries<R extends PolicyRegistries>(base: R, extensions: readonly Extension[]): R {
  return {
    ...base,
    emigrantSelections: [...base.emigrantSelections, ...extensions.flatMap((e) => e.emigrantSelections ?? [])],
    replacements: [...base.replacements, ...extensions.flatMap((e) => e.replacements ?? [])],
  };
}

/**
 * The extensions of module URLs (each module's default export). A TypeScript module (run
 * under tsx, as the tests are) is required: in a Node 20 worker thread tsx's require hook
 * works and its import hook does not.
 */
export async function loadExtensions(urls: readonly string[]): Promise<Extension[]> {
  const load = async (url: string) => (/\.[cm]?ts$/.test(url) ? createRequire(import.meta.url)(fileURLToPath(url)) : await import(url)) as { default: Extension };
  return Promise.all(urls.map(async (url) => (await load(url)).default));
}
