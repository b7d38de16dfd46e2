/**
 * The `nqueens-islands` entry point: signal handlers first; for `solve`, its worker threads
 * (they take longest to boot); then the CLI (yargs, the commands). No top-level await: the
 * command's bundle is a CommonJS script, so that it can start from a code cache
 * (scripts/bundle.mjs).
 */
import { installSignalHandlers } from './signals.ts';

installSignalHandlers();
// A reader that went away (`| head`) is not an error to report; the rest (--out) still gets written.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
const argv = process.argv.slice(2);
void (async () => {
  if (argv[0] === 'solve') (await import('./early-host.ts')).startEarlyHost(argv.slice(1));
  const { main } = await import('./cli.ts');
  await main(argv);
})();
