/**
 * A reader that goes away (`| head`) is no failure, whichever output it was reading: stdout
 * itself, or an output file that is stdout (`--trace /dev/stdout`). (A FIFO of its own whose
 * reader left is an output that failed: one line naming where the result still is.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CLI } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nqi-reader-gone-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `nqueens-islands ARGS | head -c 10`: the CLI's exit code and stderr. */
function intoHead(args: string): { code: number; stderr: string } {
  const script = `"${process.execPath}" "${CLI}" ${args} 2>"${dir}/err" | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"; cat "${dir}/err"`;
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
  const [code, ...stderr] = r.stdout.split('\n');
  return { code: Number(code), stderr: stderr.join('\n') };
}

describe('a reader that went away', () => {
  // N = 200's trace (seed 1) is about 130 kB: past a pipe's 64 kB, so head leaves while it is written.
  for (const args of [
    'solve -n 200 --seed 1 -q --trace /dev/stdout',
    'solve -n 200 --seed 1 -q --json',
    'solve -n 200 --seed 1 -q --trace /proc/self/fd/1',
  ])
    it(`${args} | head -c 10: exit 0, nothing said`, () => {
      const r = intoHead(args);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /cannot be written|internal error|\n\s+at /, r.stderr);
    });
});
