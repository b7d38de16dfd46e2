/**
 * Large boards through the real CLI and real workers: hybrid mode (config/large-n.yaml)
 * solves N = 10^6, and the solution it writes passes the independent validator
 * (src/problem/validate.ts) and the paper's sort-based fitness. No timing here: speed is
 * the bench's (`npm run bench -- --only large-n`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { referenceFitness } from '../src/problem/reference-fitness.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { cli } from './cli-helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-large-n-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe('large N (real CLI, real workers)', () => {
  it('hybrid mode solves N = 1,000,000 and the written solution is valid', () => {
    const n = 1_000_000;
    const out = join(tmp, 'million.json');
    const r = cli(['solve', '--config', 'config/large-n.yaml', '-n', String(n), '--islands', '2', '--seed', '5', '--out', out, '--quiet']);
    assert.equal(r.code, 0, r.stderr);
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
  });
});
