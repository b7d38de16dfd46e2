/**
 * Outputs on a disk that fills up mid-write (a real 64 KB tmpfs, mounted when the tests run as
 * root; skipped with the reason otherwise): a file that grows while a run goes (`--trace`)
 * keeps only whole lines, with one line on stderr and exit 4, the result still on stdout.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliAsync } from './cli-helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-full-disk-'));
const full = join(tmp, 'full');
let mounted = false;
after(() => {
  if (mounted) spawnSync('umount', [full]);
  rmSync(tmp, { recursive: true, force: true });
});

function mountTmpfs(): string | null {
  if (process.platform !== 'linux') return 'tmpfs mounts need Linux';
  mkdirSync(full);
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', full], { encoding: 'utf8' });
  if (r.status !== 0) return `cannot mount a 64 KB tmpfs (${(r.stderr || 'not permitted').trim()}); run the tests as root to enable`;
  mounted = true;
  return null;
}
const unmountable = mountTmpfs();

// [what, the trace's run flags]: each run's events pass the ~4 KB left.
const TRACES: [string, string[]][] = [
  ['sync, 2 islands', ['-n', '200', '--islands', '2', '--migration', 'sync', '--max-iterations', '200']],
  ['lagged, 2 islands', ['-n', '200', '--islands', '2', '--migration', 'lagged', '--max-iterations', '200']],
  ['takeover mode', ['-n', '100', '--islands', '3', '--mode', 'takeover', '--migration', 'sync', '--max-iterations', '300']],
];

describe('a trace the disk fills up keeps its whole lines', { skip: unmountable ?? false }, () => {
  before(() => writeFileSync(join(full, 'filler'), Buffer.alloc(60 * 1024, 1)));

  for (const [what, flags] of TRACES) {
    it(what, async () => {
      const trace = join(full, 't.jsonl');
      const r = await cliAsync(['solve', ...flags, '--seed', '1', '--quiet', '--json', '--trace', trace]);
      assert.equal(r.code, 4, r.stderr);
      assert.ok(JSON.parse(r.stdout).evaluations > 0, 'the result is on stdout');
      assert.match(
        r.stderr,
        /^nqueens-islands: --trace .*t\.jsonl: cannot be written \(no space left on the device\); the result is on stdout only\n$/,
      );
      const text = readFileSync(trace, 'utf8');
      assert.ok(text.length > 0 && text.endsWith('\n'), `ends with a whole line: ...${text.slice(-80)}`);
      for (const line of text.slice(0, -1).split('\n')) JSON.parse(line);
      rmSync(trace);
    });
  }
});
