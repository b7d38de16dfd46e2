/**
 * The `nqueens-islands` entry point: signal handlers first; for `solve`, its worker threads
 * (they take longest to boot), for `report` its worker thread; then the CLI (yargs, the commands). No top-level await: the
 * command's bundle is a CommonJS script, so that it can start from a code cache
 * (scripts/bundle.mjs).
 */
import { noteStdoutError, printError } from './output.ts';
import { installSignalHandlers } from './signals.ts';
import { fatalLine } from './fatal.ts';
import { startSplit } from './startup-split.ts';

startSplit();
installSignalHandlers();
// A reader that went away (`| head`) or a closed terminal (EIO after SIGHUP) is not an error
// to report; another failure is one line and exit 4. The rest (--out) still gets written.
process.stdout.on('error', noteStdoutError);
process.stderr.on('error', () => {
  // Messages have nowhere to go; the work and its files go on.
});
// The last resort: what escapes every command (a failure while loading, a worker thread the
// permission model refuses, too many open files) is one line, never a stack trace.
const fatal = (error: unknown): void => {
  const { line, code } = fatalLine(error);
  printError(line);
  process.exit(code);
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);
const argv = process.argv.slice(2);
void (async () => {
  if (!workingDirectoryExists()) return;
  if (argv[0] === 'solve') (await import('./early-host.ts')).startEarlyHost(argv.slice(1));
  if (argv[0] === 'report') (await import('./report-thread.ts')).startReportThread(argv.slice(1));
  const { main } = await import('./cli.ts');
  await main(argv);
})();

/**
 * Relative paths, the default study folder and the libraries' own look-ups all start from
 * the working directory: one that was deleted under the shell (`rm -r` of the folder it is
 * in) is one line and exit 2 instead of a stack trace from deep inside.
 */
function workingDirectoryExists(): boolean {
  try {
    process.cwd();
    return true;
  } catch (error) {
    printError(
      `the working directory cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}: deleted or moved away?); cd to an existing folder and run again`,
    );
    process.exitCode = 2;
    return false;
  }
}
