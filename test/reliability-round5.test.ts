/**
 * Issue 47's local classes (the fifth hostile round), through the real CLI and the library:
 * a result never cut or misreported under a signal, no output written onto a study's records,
 * `--resume` reading records as `report` does, study files that cannot block, output paths
 * checked before any work, input refused that was taken silently, and messages that name the
 * flag a value came from.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CLI, ROOT } from './cli-helpers.ts';
import { COMPILED } from './paths.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-round5-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the binary with stdout on a socket the test does not read until `ready` says so, then signals it, then reads all. */
async function signalWhileDraining(args: string[], ready: () => boolean) {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  // Not read: the socket (about 200 KiB) fills, and the rest of the output waits in the process.
  child.stdout.pause();
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Polls for a file the command writes after its output has started (no fixed sleep).
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 10));
  child.kill('SIGTERM');
  child.stdout.resume();
  const code = await closed;
  return { code, stdout: Buffer.concat(chunks).toString(), stderr };
}

describe('a signal while the result drains to stdout', () => {
  it('solve: a 1.3 MB --json result arrives whole, --out holds it too, the exit is the run\'s, and no line claims "nothing was written"', async () => {
    const out = join(tmp, 'big.json');
    const r = await signalWhileDraining(
      [CLI, 'solve', '-n', '200000', '--mode', 'hybrid', '--islands', '1', '--seed', '1', '--json', '--quiet', '--out', out],
      () => existsSync(out),
    );
    assert.equal(r.code, 0, r.stderr);
    const record = JSON.parse(r.stdout) as { solution: number[] };
    assert.equal(record.solution.length, 200000);
    assert.doesNotMatch(r.stderr, /nothing was written/);
    assert.match(r.stderr, /SIGTERM: the run has ended; finishing writing its result/);
  });

  it("any command whose work is done (its signals let go): the output drains whole, with the command's exit code", async () => {
    // As report and experiment end: the signals claimed for the work, let go, then the output written (1 MB).
    const flag = join(tmp, 'written');
    const script = `
      import { writeFileSync } from 'node:fs';
      import { claimSignals, installSignalHandlers } from '${COMPILED ? './dist/src/cli/signals.js' : './src/cli/signals.ts'}';
      installSignalHandlers();
      claimSignals(() => {})();
      process.exitCode = 1;
      process.stdout.write('x'.repeat(1 << 20) + '\\n');
      writeFileSync(${JSON.stringify(flag)}, '');
    `;
    const node = [...(COMPILED ? [] : ['--import', 'tsx']), '--input-type=module', '-e', script];
    const r = await signalWhileDraining(node, () => existsSync(flag));
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout.length, (1 << 20) + 1);
    assert.match(r.stderr, /SIGTERM: the command has finished; its output is written out whole first/);
  });
});
