/**
 * Large boards through the real CLI and real workers: hybrid mode (config/large-n.yaml)
 * solves N = 10^6, the solution it writes passes the independent validator
 * (src/problem/validate.ts) and the paper's sort-based fitness, and the run's peak resident
 * memory is within the memory estimate `solve` checks before it starts. No timing here:
 * speed is the bench's (`npm run bench -- --only large-n`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfigFile } from '../src/config/load.ts';
import { addressSpaceNeeded, estimateMemory, PROCESS_BYTES, THREAD_BYTES } from '../src/config/memory.ts';
import { referenceFitness } from '../src/problem/reference-fitness.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { CLI, ROOT } from './cli-helpers.ts';
import { FIXTURES } from './paths.ts';

const PEAK_RSS = join(FIXTURES, 'peak-rss.cjs');

const tmp = mkdtempSync(join(tmpdir(), 'nq-large-n-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe('large N (real CLI, real workers)', () => {
  it('hybrid mode solves N = 1,000,000 and the written solution is valid', () => {
    const n = 1_000_000;
    const out = join(tmp, 'million.json');
    const peakFile = join(tmp, 'peak-rss');
    const args = ['solve', '--config', 'config/large-n.yaml', '-n', String(n), '--islands', '2', '--seed', '5', '--out', out, '--quiet'];
    const r = spawnSync(process.execPath, ['--require', PEAK_RSS, CLI, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, NQI_PEAK_RSS_FILE: peakFile },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^solved N=1000000: /);
    const record = JSON.parse(readFileSync(out, 'utf8')) as {
      solved: boolean;
      fitness: number;
      solution: number[];
      config: { ga: { mode: string } };
    };
    assert.equal(record.solved, true);
    assert.equal(record.fitness, 0);
    assert.equal(record.config.ga.mode, 'hybrid');
    assert.equal(record.solution.length, n);
    assert.deepEqual(validateSolution(record.solution, n), { valid: true });
    assert.equal(referenceFitness(record.solution), 0);
    // The estimate is an upper bound of what the run took, and not a loose one (docs/hybrid.md: 3-6% above at 10^6).
    const config = loadConfigFile('config/large-n.yaml', {}, { availableParallelism: 2, totalMemory: 16e9 });
    const estimate = estimateMemory(n, 2, config.ga, config.migration.migrants).bytes;
    const peak = Number(readFileSync(peakFile, 'utf8')) * 1024;
    assert.ok(peak <= estimate && peak >= 0.6 * estimate, `peak resident memory ${peak} bytes, estimate ${estimate}`);
  });

  it('hybrid mode with the defaults solves N = 2,000,000 within a budget of 40 bytes a queen, in at most 20, and the .bin it writes verifies', () => {
    const n = 2_000_000;
    const out = join(tmp, 'two-million.bin');
    const peakFile = join(tmp, 'peak-rss-2m');
    // The budget: the process and one thread, and 40 bytes a queen. Under an address-space
    // limit that leaves only that much beside what Node reserves, the defaults (islands = cores,
    // population 8: about 0.5 GB here) must give way by themselves, say so, and still solve.
    const budget = PROCESS_BYTES + THREAD_BYTES + 40 * n;
    const limitKb = Math.floor(addressSpaceNeeded(budget, 1) / 1024);
    const solve = ['--require', PEAK_RSS, CLI, 'solve', '-n', String(n), '--mode', 'hybrid', '--seed', '5', '--out', out, '--quiet'];
    const r = spawnSync('/bin/sh', ['-c', `ulimit -v ${limitKb} && exec "$0" "$@"`, process.execPath, ...solve], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, NQI_PEAK_RSS_FILE: peakFile },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stderr,
      /^nqueens-islands: N = 2000000 runs on 1 island of population \d+ \(about [\d.]+ GB\): the defaults, 2 islands of population 8, /m,
    );
    assert.match(r.stdout, /^solved N=2000000: /);
    // What it took: at most 20 bytes a queen past the process (issue 50's figure for 10^9; 136 MB measured, 184 MB allowed).
    const peak = Number(readFileSync(peakFile, 'utf8')) * 1024;
    const twenty = PROCESS_BYTES + THREAD_BYTES + 20 * n;
    assert.ok(
      peak <= twenty,
      `peak resident memory ${peak} bytes, at most ${twenty} (${((peak - PROCESS_BYTES - THREAD_BYTES) / n).toFixed(1)} bytes a queen past the process)`,
    );
    // The file: 16 bytes of header and 4 a row, checked by verify as it reads it.
    assert.equal(statSync(out).size, 16 + 4 * n);
    const v = spawnSync(process.execPath, [CLI, 'verify', '--file', out, '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(v.status, 0, v.stderr);
    assert.deepEqual(JSON.parse(v.stdout), [{ n, permutation: true, fitness: 0, solution: true }]);
  });
});
