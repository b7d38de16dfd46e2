/**
 * The process's own limits and surroundings: too many open files (EMFILE, under
 * `ulimit -n`), Node's permission model (`--experimental-permission` without write or worker
 * rights) and a deleted working directory are one line with the exit code the docs name (3 or
 * 2), never a stack trace; --jitless (no WebAssembly) gives the kernel's result. The built CLI
 * runs in a shell that sets the limit, as a user's would.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CLI, oneLine } from './cli-helpers.ts';
import { handMadeStudy } from './hand-study.ts';
import { ROOT } from './paths.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel-limits-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The CLI under `node ...nodeArgs`, in a shell with `ulimit -n files` when given. */
function run(args: string[], options: { files?: number; nodeArgs?: string[] } = {}) {
  const limit = options.files === undefined ? '' : `ulimit -n ${options.files}; `;
  const r = spawnSync('bash', ['-c', `${limit}exec "$@"`, 'bash', process.execPath, ...(options.nodeArgs ?? []), CLI, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describe('too many open files', () => {
  it('wherever EMFILE strikes once our code runs, one line (exit 3) or the result, never a stack trace', () => {
    // Below about 19 descriptors Node cannot read the entry script itself (its own trace, none of ours);
    // above about 28 the run has what it needs. Where it strikes in between varies from run to run.
    const lines: string[] = [];
    for (let files = 19; files <= 28; files++) {
      const out = join(tmp, `emfile-${files}.json`);
      const r = run(['solve', '--n', '8', '--islands', '2', '--seed', '1', '--out', out], { files });
      if (r.stderr.startsWith('node:') || r.signal !== null) continue; // Node's own start-up, before any of our code
      const what = `ulimit -n ${files}: exit ${r.code}\n${r.stderr}`;
      assert.doesNotMatch(r.stderr, /\n\s+at |^\s+\^$/m, what);
      // Exit 4: the run ended (an island that could not start is a failed island, onIslandError
      // continue) but --out could not be written: the result is on stdout, as class 1 wants.
      assert.ok(r.code === 0 || r.code === 3 || r.code === 4, what);
      if (r.code === 0) assert.ok(existsSync(out), what);
      if (r.code === 4) {
        assert.match(r.stderr, /--out .*: cannot be written \(EMFILE\); the result is on stdout only\n$/, what);
        assert.match(r.stdout, /solution|solved/i, what);
        assert.ok(!existsSync(out), what);
      }
      const line = /too many open files, this process's limit \(ulimit -n\) reached.*: raise it and run again/.exec(r.stderr);
      if (line) {
        assert.equal(r.stderr.trimEnd().split('\n').length, 1, what);
        lines.push(line[0]);
      }
    }
    assert.ok(lines.length > 0, 'EMFILE was met at least once and named');
  });
});

describe("Node's permission model", () => {
  const study = handMadeStudy(tmp, 'perm-study', 100, {
    1: [{ seed: 1, solved: true, evaluations: 100, iterations: 10 }],
    2: [{ seed: 1, solved: true, evaluations: 80, iterations: 8 }],
  });
  const read = ['--experimental-permission', '--allow-fs-read=*', '--no-warnings'];
  const work = [...read, '--allow-worker'];
  // [name, node's flags, the command line, exit code, the line, what must not exist]
  const cases: [string, string[], string[], number, RegExp, string | null][] = [
    [
      'solve without worker threads',
      read,
      ['solve', '--n', '8', '--seed', '1'],
      2,
      /^nqueens-islands: Node's permission model \(--experimental-permission\) does not allow worker threads .*: allow it with --allow-worker, or run without the permission model\n$/,
      null,
    ],
    [
      'solve --out without fs write',
      work,
      ['solve', '--n', '8', '--seed', '1', '--out', join(tmp, 'p.json')],
      2,
      /^nqueens-islands: --out .*p\.json: cannot be written \(Node's permission model does not allow it: allow it with --allow-fs-write\)\n$/,
      join(tmp, 'p.json'),
    ],
    [
      'experiment --out without fs write',
      work,
      ['experiment', join(ROOT, 'config', 'experiments', 'topology.yaml'), '--out', join(tmp, 'exp')],
      2,
      /^nqueens-islands: --out .*exp: cannot create the folder \(Node's permission model does not allow it: allow it with --allow-fs-write\)/,
      join(tmp, 'exp'),
    ],
    [
      'report --csv without fs write',
      work,
      ['report', study, '--csv', join(tmp, 'r.csv')],
      2,
      /^nqueens-islands: --csv .*r\.csv: cannot be written \(Node's permission model does not allow it: allow it with --allow-fs-write\)\n$/,
      join(tmp, 'r.csv'),
    ],
    [
      'report --ioh without fs write',
      work,
      ['report', study, '--ioh', join(tmp, 'ioh')],
      2,
      /^nqueens-islands: --ioh .*ioh: .* cannot be written \(Node's permission model does not allow it: allow it with --allow-fs-write\)\n$/,
      join(tmp, 'ioh'),
    ],
  ];
  for (const [name, nodeArgs, args, code, line, absent] of cases) {
    it(`${name}: one line before any work, exit ${code}`, () => {
      const r = run(args, { nodeArgs });
      assert.equal(r.code, code, r.stderr);
      assert.match(r.stderr, line);
      assert.equal(r.stdout, '', 'nothing done before the refusal');
      if (absent !== null) assert.equal(existsSync(absent), false);
    });
  }
});

describe('a deleted working directory, --jitless', () => {
  for (const args of [
    ['verify', '1'],
    ['solve', '-n', '8'],
    ['report', 'x'],
    ['experiment', 'x.yaml'],
  ]) {
    it(`${args[0]} in a deleted working directory: one line, exit 2`, () => {
      const gone = mkdtempSync(join(tmp, 'gone-'));
      const r = spawnSync('sh', ['-c', `cd "${gone}" && rmdir "${gone}" && exec "${process.execPath}" "${CLI}" ${args.join(' ')}`], {
        encoding: 'utf8',
      });
      assert.match(
        oneLine({ code: r.status, stdout: r.stdout, stderr: r.stderr }, args[0]),
        /^the working directory cannot be read \(ENOENT: deleted or moved away\?\); cd to an existing folder/,
      );
    });
  }
  it('--jitless (no WebAssembly): the TypeScript operators, the same result as with the kernel', () => {
    // N = 20, seed 3: 22 iterations of every operator on 2 islands (N = 30 took 101, under --jitless 4 CPU s).
    const args = [CLI, 'solve', '-n', '20', '--islands', '2', '--migration', 'sync', '--seed', '3', '--json', '--quiet'];
    const kernel = spawnSync(process.execPath, args, { encoding: 'utf8' });
    const jitless = spawnSync(process.execPath, ['--jitless', ...args], { encoding: 'utf8' });
    assert.equal(jitless.status, 0, jitless.stderr);
    const pick = (s: string) => {
      const r = JSON.parse(s) as { solution: number[]; iterations: number; evaluations: number; foundBy: number };
      return [r.solution, r.iterations, r.evaluations, r.foundBy];
    };
    assert.deepEqual(pick(jitless.stdout), pick(kernel.stdout));
  });
});
