import { fileURLToPath } from 'node:url';

/**
 * Where the island worker lives, next to the running code. Bundled (dist/bundle/, what the
 * `nqueens-islands` command runs), it is `dist/bundle/island-worker.cjs` (the worker's
 * bundle behind its code-cache loader). Under tsx (this module is a `.ts` file) it is `workers/island-worker.ts` and
 * the worker needs tsx's loader, which piscina cannot supply on Node 20; compiled by tsc (the
 * library), it is `dist/workers/island-worker.js`.
 */
export function islandWorkerFile(moduleUrl: string = import.meta.url): { filename: string; execArgv: string[] | undefined } {
  const bundle = moduleUrl.lastIndexOf('/dist/bundle/');
  if (bundle >= 0) return { filename: fileURLToPath(`${moduleUrl.slice(0, bundle)}/dist/bundle/island-worker.cjs`), execArgv: undefined };
  const fromTs = moduleUrl.endsWith('.ts');
  const filename = fileURLToPath(new URL(`../../workers/island-worker.${fromTs ? 'ts' : 'js'}`, moduleUrl));
  // Workers inherit the parent's execArgv; add the loader only if the parent got tsx otherwise (e.g. programmatically).
  const hasTsx = process.execArgv.some((arg) => arg.includes('tsx'));
  return { filename, execArgv: fromTs && !hasTsx ? [...process.execArgv, '--import', 'tsx'] : undefined };
}
