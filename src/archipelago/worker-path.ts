import { fileURLToPath } from 'node:url';

/**
 * Where the island worker lives, next to the running code: under tsx (this module is a
 * `.ts` file) it is `workers/island-worker.ts` and the worker needs tsx's loader, which
 * piscina cannot supply on Node 20; compiled, it is `dist/workers/island-worker.js`.
 */
export function islandWorkerFile(moduleUrl: string = import.meta.url): { filename: string; execArgv: string[] | undefined } {
  const fromTs = moduleUrl.endsWith('.ts');
  const filename = fileURLToPath(new URL(`../../workers/island-worker.${fromTs ? 'ts' : 'js'}`, moduleUrl));
  // Workers inherit the parent's execArgv; add the loader only if the parent got tsx otherwise (e.g. programmatically).
  const hasTsx = process.execArgv.some((arg) => arg.includes('tsx'));
  return { filename, execArgv: fromTs && !hasTsx ? [...process.execArgv, '--import', 'tsx'] : undefined };
}
