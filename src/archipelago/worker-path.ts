import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Set (to 1) by `npm run coverage` right after its build (and by hand after one): code running from
 * source under tsx starts the compiled island worker (`dist/workers/island-worker.js`), as the
 * library does, instead of the `.ts` one, which needs tsx's loader in every worker thread (four
 * times the CPU of starting one, and tests start hundreds). Without it, source runs the source worker, so
 * a test run after an edit without a build never runs stale code.
 */
export const COMPILED_WORKER_ENV = 'NQUEENS_ISLANDS_COMPILED_WORKER';

/**
 * Where the island worker lives, next to the running code. Bundled (dist/bundle/, what the
 * `nqueens-islands` command runs), it is `dist/bundle/island-worker.cjs` (the worker's
 * bundle behind its code-cache loader). Under tsx (this module is a `.ts` file) it is `workers/island-worker.ts` and
 * the worker needs tsx's loader, which piscina cannot supply on Node 20 (or, with
 * COMPILED_WORKER_ENV, the compiled worker, without the loader); compiled by tsc (the
 * library), it is the bundle's `dist/bundle/island-worker.cjs` too, built from the same
 * sources in the same `npm run build` (a run's two threads start in about 110 ms of CPU
 * instead of 190: one script from a code cache, not some fifty modules), or
 * `dist/workers/island-worker.js` where no bundle was built.
 */
export function islandWorkerFile(
  moduleUrl: string = import.meta.url,
  env: NodeJS.ProcessEnv = process.env,
): { filename: string; execArgv: string[] | undefined } {
  return workerFile('island-worker', moduleUrl, env);
}

/** Where the worker `name` (a file of workers/: `report-worker`) lives, as islandWorkerFile finds the island worker. */
export function workerFile(
  name: string,
  moduleUrl: string = import.meta.url,
  env: NodeJS.ProcessEnv = process.env,
): { filename: string; execArgv: string[] | undefined } {
  const bundle = moduleUrl.lastIndexOf('/dist/bundle/');
  if (bundle >= 0) return { filename: fileURLToPath(`${moduleUrl.slice(0, bundle)}/dist/bundle/${name}.cjs`), execArgv: undefined };
  const fromTs = moduleUrl.endsWith('.ts');
  if (fromTs && env[COMPILED_WORKER_ENV] === '1')
    // Workers inherit the parent's execArgv: leave tsx's loader out, the worker is JavaScript.
    return { filename: fileURLToPath(new URL(`../../dist/workers/${name}.js`, moduleUrl)), execArgv: withoutTsx(process.execArgv) };
  if (!fromTs) {
    // Compiled by tsc (the library): the same worker as bundled, when the build made it, starts in 60% of the CPU.
    const bundled = fileURLToPath(new URL(`../../bundle/${name}.cjs`, moduleUrl));
    return { filename: existsSync(bundled) ? bundled : fileURLToPath(new URL(`../../workers/${name}.js`, moduleUrl)), execArgv: undefined };
  }
  const filename = fileURLToPath(new URL(`../../workers/${name}.ts`, moduleUrl));
  // Workers inherit the parent's execArgv; add the loader only if the parent got tsx otherwise (e.g. programmatically).
  const hasTsx = process.execArgv.some((arg) => arg.includes('tsx'));
  return { filename, execArgv: hasTsx ? undefined : [...process.execArgv, '--import', 'tsx'] };
}

/** `execArgv` without the options that load tsx (`--import tsx`, `--import=tsx`, `--require tsx/cjs`, ...). */
function withoutTsx(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i];
    if (/^--(import|require|loader|experimental-loader)=.*tsx/.test(arg)) continue;
    if (/^(--import|--require|--loader|--experimental-loader|-r)$/.test(arg) && execArgv[i + 1]?.includes('tsx')) {
      i++;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}
