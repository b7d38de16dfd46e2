/**
 * What no command handles, in one line and never a stack trace: the process's own limit on
 * open files and Node's permission model each say what to change; anything else is an
 * internal error. Used by the CLI's catch-all and, for what escapes it (a failure while
 * loading, a worker thread refused), by the entry point's last resort.
 */
import { safeText } from '../cluster/bus/text.ts';
import { EXIT } from './errors.ts';

/** Node's permission scopes (`error.permission` of ERR_ACCESS_DENIED): what was refused, and the flag that allows it. */
const PERMISSIONS: Record<string, [string, string]> = {
  FileSystemRead: ['reading', '--allow-fs-read'],
  FileSystemWrite: ['writing', '--allow-fs-write'],
  WorkerThreads: ['worker threads (the islands run on them)', '--allow-worker'],
  ChildProcess: ['child processes', '--allow-child-process'],
};

/** The line and exit code for an error no command handled. */
export function fatalLine(error: unknown): { line: string; code: number } {
  const e = (typeof error === 'object' && error !== null ? error : {}) as NodeJS.ErrnoException & {
    permission?: unknown;
    resource?: unknown;
  };
  const at = typeof e.path === 'string' ? ` (at ${safeText(e.path, 200)})` : '';
  // A worker thread that cannot start says it only in its message ("Worker initialization failure: EMFILE").
  const code = e.code === 'EMFILE' || e.code === 'ENFILE' ? e.code : /\b(EMFILE|ENFILE)\b/.exec(String(e.message))?.[1];
  if (code === 'EMFILE' || code === 'ENFILE') {
    const whose = code === 'EMFILE' ? "this process's limit (ulimit -n)" : "the system's limit (fs.file-max)";
    return { line: `too many open files, ${whose} reached${at}: raise it and run again`, code: EXIT.islandFailed };
  }
  if (e.code === 'ERR_ACCESS_DENIED') {
    const [what, flag] = PERMISSIONS[String(e.permission)] ?? [`${safeText(String(e.permission), 40)}`, '--allow-...'];
    const resource = typeof e.resource === 'string' && e.resource !== '' ? ` ${safeText(e.resource, 200)}` : '';
    return {
      line: `Node's permission model (--experimental-permission) does not allow ${what}${resource}: allow it with ${flag}, or run without the permission model`,
      code: EXIT.badInput,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { line: `internal error: ${safeText(message, 500)}`, code: EXIT.islandFailed };
}
