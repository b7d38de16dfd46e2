/**
 * Batch-node limits (docs/hpc.md): runs under an address-space limit (`ulimit -v`) fall back
 * to the TypeScript kernel and say so once; the memory check reads RLIMIT_AS and the cgroup's
 * memory.max and refuses in one line naming the island count that fits.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addressSpaceNeeded, estimateMemory, memoryAdvice, readMemoryLimits, runMemoryAdvice } from '../src/config/memory.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { CLI, ROOT } from './cli-helpers.ts';

let dir: string;
before(() => (dir = mkdtempSync(path.join(tmpdir(), 'nqi-limits-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI in a shell whose address space is limited to `kb` kilobytes, as a batch system sets it. */
function underUlimit(kb: number, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const quoted = [process.execPath, CLI, ...args].map((w) => `'${w}'`).join(' ');
  const r = spawnSync('bash', ['-c', `ulimit -v ${kb} && exec ${quoted}`], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('solve under ulimit -v', () => {
  it('6 GB: solves N = 30 with the TypeScript kernel, saying so once', () => {
    const r = underUlimit(6_000_000, ['solve', '-n', '30', '--islands', '2', '--seed', '1', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.solved, true);
    assert.deepEqual(
      result.islands.map((i: { error?: unknown }) => i.error ?? null),
      [null, null],
    );
    assert.equal(r.stderr.match(/leaves no room for the WebAssembly kernel/g)?.length, 1, r.stderr);
    // The same run without the limit (the WebAssembly kernel): the same result.
    const free = spawnSync(process.execPath, [CLI, 'solve', '-n', '30', '--islands', '2', '--seed', '1', '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(free.status, 0, free.stderr);
    assert.doesNotMatch(free.stderr, /WebAssembly kernel/);
    assert.deepEqual(JSON.parse(free.stdout).solution, result.solution);
  });

  it('4 GB: 8 islands on 8 threads are refused in one line naming the island count that fits', () => {
    // Each thread reserves address space, islands that share threads do not: 8 islands on fewer threads may fit.
    const r = underUlimit(4_000_000, ['solve', '-n', '30', '--islands', '8', '--threads', '8', '--seed', '1']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.match(
      r.stderr,
      /needs about [\d.]+ GB of address space for 8 islands .* more than the address-space limit of 4\.1 GB \(ulimit -v\); it fits with islands = [1-7] /,
    );
    const fits = Number(/it fits with islands = (\d)/.exec(r.stderr)![1]);
    const ok = underUlimit(4_000_000, ['solve', '-n', '30', '--islands', String(fits), '--seed', '1', '-q']);
    assert.equal(ok.code, 0, ok.stderr);
  });
});

describe('the limits the memory check reads', () => {
  function files(name: string, limits: string, cgroup: string, memory: Record<string, string>) {
    const root = path.join(dir, name);
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(root, 'limits'), limits);
    writeFileSync(path.join(root, 'cgroup'), cgroup);
    for (const [file, text] of Object.entries(memory)) {
      mkdirSync(path.dirname(path.join(root, 'fs', file)), { recursive: true });
      writeFileSync(path.join(root, 'fs', file), text);
    }
    return { limits: path.join(root, 'limits'), cgroup: path.join(root, 'cgroup'), cgroupRoot: path.join(root, 'fs') };
  }
  const header = 'Limit                     Soft Limit           Hard Limit           Units     \n';

  it('cgroup v2 memory.max of the process cgroup, and RLIMIT_AS', () => {
    const at = files('v2', `${header}Max address space         6144000000           unlimited            bytes     \n`, '0::/job/step\n', {
      'job/step/memory.max': '2000000000\n',
    });
    const limits = readMemoryLimits(at);
    assert.deepEqual([limits.cgroupMax, limits.addressSpace], [2e9, 6.144e9]);
  });

  it("cgroup v1's memory controller; the root's file when the path is not visible; no limit as null", () => {
    const v1 = files(
      'v1',
      `${header}Max address space         unlimited            unlimited            bytes     \n`,
      '5:cpu,cpuacct:/a\n4:memory:/slurm/uid_1\n',
      {
        'memory/slurm/uid_1/memory.limit_in_bytes': '3000000000\n',
      },
    );
    assert.deepEqual([readMemoryLimits(v1).cgroupMax, readMemoryLimits(v1).addressSpace], [3e9, null]);
    const container = files('container', header, '0::/kubepods/pod1\n', { 'memory.max': '1500000000\n' });
    assert.equal(readMemoryLimits(container).cgroupMax, 1.5e9);
    const unlimited = files('unlimited', header, '0::/\n', { 'memory.max': 'max\n' });
    assert.equal(readMemoryLimits(unlimited).cgroupMax, null);
    const v1None = files('v1-none', header, '4:memory:/\n', { 'memory/memory.limit_in_bytes': '9223372036854771712\n' });
    assert.equal(readMemoryLimits(v1None).cgroupMax, null);
    const none = readMemoryLimits({ limits: path.join(dir, 'nothing'), cgroup: path.join(dir, 'nothing'), cgroupRoot: dir });
    assert.deepEqual([none.cgroupMax, none.addressSpace], [null, null]);
  });

  it('counts the threads the launcher would start: threads if set, else one per island up to the cores it is told', () => {
    const cores = (availableParallelism: number) => ({ availableParallelism, totalMemory: 64e9 });
    const run = resolveRunConfig({ n: 30, islands: 8 }, 'test', {}, cores(1));
    const migrants = run.migration.interval > 0 ? run.migration.migrants : 0;
    const address = (threads: number) => addressSpaceNeeded(estimateMemory(30, 8, run.ga, migrants, undefined, threads).bytes, threads);
    // Room for 8 islands on 2 threads, not on 8 (each thread reserves address space).
    const limits = { addressSpace: (address(2) + address(8)) / 2 };
    assert.equal(runMemoryAdvice(run, { ...cores(2), ...limits }), null);
    assert.match(runMemoryAdvice(run, { ...cores(8), ...limits }) ?? '', /of address space for 8 islands/);
    assert.equal(runMemoryAdvice({ ...run, threads: 2 }, { ...cores(8), ...limits }), null);
    // Resolving a config checks the same, with the cores of the environment it is given.
    assert.doesNotThrow(() => resolveRunConfig({ n: 30, islands: 8 }, 'test', {}, { ...cores(2), ...limits }));
    assert.throws(() => resolveRunConfig({ n: 30, islands: 8 }, 'test', {}, { ...cores(8), ...limits }), /of address space for 8 islands/);
  });

  it('a cgroup below the machine is the limit, named as such, with the island count that fits', () => {
    const config = resolveRunConfig(
      { n: 100_000, islands: 8, ga: { populationSize: 50 } },
      'test',
      {},
      { availableParallelism: 8, totalMemory: 64e9 },
    );
    const { n, islands, ga } = config;
    assert.equal(memoryAdvice(n, islands, ga, 1, { totalMemory: 64e9 }), null);
    const advice = memoryAdvice(n, islands, ga, 1, { totalMemory: 64e9, cgroupMax: 1e9 });
    assert.match(
      advice ?? '',
      /more than the 0\.8 GB this machine allows \(75% of the cgroup's memory\.max, 1\.0 GB\); it fits with islands = [1-7] \(about/,
    );
    const address = memoryAdvice(n, islands, ga, 1, { totalMemory: 64e9, addressSpace: 3e9 });
    assert.match(
      address ?? '',
      /of address space for 8 islands .* more than the address-space limit of 3\.0 GB \(ulimit -v\); it fits with islands = [1-7] /,
    );
  });
});
