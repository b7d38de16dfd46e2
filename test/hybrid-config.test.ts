import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { overridesFromArgv } from '../src/config/flags.ts';
import { loadConfigFile } from '../src/config/load.ts';
import { estimateMemory, fittedNoteOf } from '../src/config/memory.ts';
import { toFileShape } from '../src/config/file-shape.ts';
import { resolveRunConfig, type ResolveEnv } from '../src/config/resolve.ts';
import { hybridParams } from '../src/ga/hybrid/params.ts';
import { evolverSpecOf } from '../src/ga/create-evolver.ts';
import { validateSolution } from '../src/problem/validate.ts';
import { cli } from './cli-helpers.ts';

const env: ResolveEnv = { availableParallelism: 2, totalMemory: 16e9 };

describe('hybrid mode in the run config', () => {
  it('fills the hybrid defaults for the board and builds a hybrid island spec', () => {
    const config = resolveRunConfig({ n: 50_000, ga: { mode: 'hybrid' } }, 'x.yaml', {}, env);
    assert.equal(config.ga.mode, 'hybrid');
    const spec = evolverSpecOf(config);
    assert.deepEqual(spec, { mode: 'hybrid', params: hybridParams(50_000) });
  });

  it('turns operators off with null and sets the crossover probability', () => {
    const config = resolveRunConfig(
      { n: 500, ga: { mode: 'hybrid', localSearch: null, smartStart: null, crossoverProbability: 0.3 } },
      'x.yaml',
      {},
      env,
    );
    assert.ok(config.ga.mode === 'hybrid');
    assert.equal(config.ga.operators.localSearch, null);
    assert.equal(config.ga.operators.smartStart, null);
    assert.deepEqual(config.ga.operators.crossover, { probability: 0.3 });
  });

  it('reads back what it prints (config print reproduces a hybrid run)', () => {
    const config = resolveRunConfig({ n: 2000, seed: 4, ga: { mode: 'hybrid', populationSize: 12 } }, 'x.yaml', {}, env);
    assert.deepEqual(resolveRunConfig(toFileShape(config), 'printed.yaml', {}, env), config);
  });

  it('refuses paper keys in hybrid mode, naming the key', () => {
    assert.throws(
      () => resolveRunConfig({ n: 500, ga: { mode: 'hybrid', pairsPerIteration: 3 } }, 'x.yaml', {}, env),
      /x\.yaml: unknown key "ga\.pairsPerIteration"/,
    );
  });

  it('lets --mode hybrid replace a paper ga section from the file', () => {
    const config = resolveRunConfig(
      { n: 500, ga: { mode: 'paper', populationSize: 100 } },
      'x.yaml',
      overridesFromArgv({ mode: 'hybrid' }),
      env,
    );
    assert.equal(config.ga.mode, 'hybrid');
    assert.equal(config.ga.populationSize, 8);
  });

  it('estimates memory with the diagonal counts, migrants and threads, and refuses what does not fit, saying what would', () => {
    // Per island (N = 5e7): 9 boards of 6 bytes a column, the occupancy bits, a migrant's 8 copies, 1 MB of its own; 64 MB per thread.
    const island = 9 * 6 * 5e7 + 5e7 / 2 + 8 * 4 * 5e7 + 1e6;
    // The coordinator: each island's last best; the solution fits in what the solved island gave back (from N = 2^20).
    const total = (islands: number, threads = islands) => 80e6 + islands * island + threads * 64e6 + islands * 4 * 5e7;
    const ga = resolveRunConfig({ n: 50_000_000, islands: 1, ga: { mode: 'hybrid', populationSize: 8 } }, 'x.yaml', {}, env).ga;
    assert.equal(estimateMemory(50_000_000, 4, ga, 1).bytes, total(4));
    assert.equal(estimateMemory(50_000_000, 4, ga, 1, undefined, 2).bytes, total(4, 2));
    // Two cores (env): 4 islands share 2 threads.
    assert.throws(() => resolveRunConfig({ n: 50_000_000, islands: 4, ga: { mode: 'hybrid', populationSize: 8 } }, 'x.yaml', {}, env), {
      message: `x.yaml: n: 50000000 needs about ${(total(4, 2) / 1e9).toFixed(1)} GB for 4 islands (per island: hybrid population 8 and one scratch board, 4 bytes per gene + 2 bytes of diagonal counts per column; 1 migrant in flight; 2 threads of 64 MB for all), more than the 12.0 GB this machine allows (75% of 16.0 GB); it fits with islands = 2 (about ${(total(2) / 1e9).toFixed(1)} GB)`,
    });
    assert.throws(
      () => resolveRunConfig({ n: 200_000_000, islands: 2, ga: { mode: 'hybrid', populationSize: 8 } }, 'x.yaml', {}, env),
      /n: 200000000 needs about [\d.]+ GB for 2 islands .*; even one island needs about [\d.]+ GB; lower n or the population \(ga.populationSize, --population\)$/,
    );
  });

  it('gives islands and population left to their defaults the largest that fit, and says so in one line', () => {
    // N = 10^8: islands = cores (2) of population 8 would need about 20 GB; the defaults plan 20 bytes a queen (2 GB here).
    const big = resolveRunConfig({ n: 100_000_000, ga: { mode: 'hybrid' } }, 'x.yaml', {}, env);
    assert.deepEqual([big.islands, big.ga.populationSize], [1, 2]);
    assert.ok(estimateMemory(1e8, 1, big.ga, 0).bytes <= 24 * 1e8);
    // N = 10^9 fits this 25 GB machine (75%: 18.9 GB) on 1 island of population 2: a solved
    // island gives its members' genes (8 GB) and counts back before the report, so the
    // solution's copies fit in what the search held (docs/large-n.md). 1.1·10^9 does not.
    const billion = resolveRunConfig({ n: 1_000_000_000, ga: { mode: 'hybrid' } }, 'x.yaml', {}, { ...env, totalMemory: 25.2e9 });
    assert.deepEqual([billion.islands, billion.ga.populationSize], [1, 2]);
    assert.ok(estimateMemory(1e9, 1, billion.ga, 0).bytes <= 20 * 1e9, 'at most 20 bytes a queen');
    assert.throws(
      () => resolveRunConfig({ n: 1_100_000_000, ga: { mode: 'hybrid' } }, 'x.yaml', {}, { ...env, totalMemory: 25.2e9 }),
      /n: 1100000000 needs about [\d.]+ GB .*; even one island needs about [\d.]+ GB; lower n or the population/,
    );
    assert.match(
      fittedNoteOf(big)!,
      /^N = 100000000 runs on 1 island of population 2 \(about 2\.4 GB\): the defaults, 2 islands of population 8, would need about \d+\.\d GB, more than what this machine allows; --islands and --population choose$/,
    );
    // Given, a size is kept: the island count (the population gives way), or both (refused as before).
    const given = resolveRunConfig({ n: 30_000_000, islands: 2, ga: { mode: 'hybrid' } }, 'x.yaml', {}, env);
    assert.deepEqual([given.islands, given.ga.populationSize], [2, 2]);
    assert.throws(
      () => resolveRunConfig({ n: 100_000_000, islands: 2, ga: { mode: 'hybrid', populationSize: 8 } }, 'x.yaml', {}, env),
      /needs about/,
    );
    // Where the defaults fit, nothing changes and nothing is said.
    const small = resolveRunConfig({ n: 1_000_000, ga: { mode: 'hybrid' } }, 'x.yaml', {}, env);
    assert.deepEqual([small.islands, small.ga.populationSize, fittedNoteOf(small)], [2, 8, null]);
  });

  it('config/large-n.yaml resolves to hybrid mode', () => {
    const config = loadConfigFile('config/large-n.yaml', {}, env);
    assert.equal(config.ga.mode, 'hybrid');
  });
});

describe('hybrid mode from the command line', () => {
  it('solves N = 20,000 on two islands, writes one row per line, and verify accepts it', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'nq-hybrid-')), 'solution.txt');
    const r = cli(['solve', '--config', 'config/large-n.yaml', '-n', '20000', '--islands', '2', '--seed', '3', '--out', out, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const tuple = readFileSync(out, 'utf8').trim().split('\n').map(Number);
    assert.equal(tuple.length, 20_000);
    assert.deepEqual(validateSolution(tuple), { valid: true });
    assert.equal(JSON.parse(r.stdout).solved, true);
    assert.equal(cli(['verify', '--file', out]).code, 0);
  });
});
