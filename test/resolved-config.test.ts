/**
 * One shape of a resolved run: what crosses a process (a checkpoint file) carries the
 * resolved config itself with its schema version, checked on arrival against the resolved
 * config's schema and never resolved again from the file shape. In-process: checkpoints are
 * written and read with the real functions; the islands' states come from real evolvers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { IslandSnapshot } from '../src/archipelago/island-snapshot.ts';
import { ConfigError } from '../src/config/errors.ts';
import { toFileShape } from '../src/config/file-shape.ts';
import { resolveRunConfig, type ResolveEnv } from '../src/config/resolve.ts';
import { RESOLVED_CONFIG_VERSION } from '../src/config/resolved-schema.ts';
import { createEvolver, evolverSpecOf } from '../src/ga/create-evolver.ts';
import { Rng } from '../src/ga/rng.ts';
import {
  checkpointFile,
  CHECKPOINT_FORMAT_VERSION,
  encodeCheckpoint,
  readCheckpoint,
  resumeConfig,
  type CheckpointFile,
} from '../src/run/checkpoint.ts';
import type { SeededRunConfig } from '../src/run/start-run.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-resolved-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const env: ResolveEnv = { availableParallelism: 2, totalMemory: 16e9 };

/**
 * A checkpoint of `config`: each island's state from a real evolver of the config's GA mode
 * (the takeover mode's members scored by its own fitness), which is what the checkpoint
 * reader checks the states against.
 */
function checkpointOf(config: SeededRunConfig, steps = 1): CheckpointFile {
  const { seed } = config;
  const islands: IslandSnapshot[] = Array.from({ length: config.islands }, (_, island) => {
    const evolver = createEvolver(evolverSpecOf(config), Rng.forStream(seed, island), undefined, undefined, undefined, { island, seed });
    for (let i = 0; i < steps; i++) evolver.step();
    return { island, epoch: 0, state: evolver.snapshot(), migrantsSent: 0, migrantsAccepted: 0 };
  });
  return checkpointFile({ type: 'checkpoint', mode: config.migration.mode, epoch: null, islands, between: [], seconds: 1 }, config);
}

/** Writes a checkpoint (or a changed copy) as `writeCheckpoint` does: the thread codec's bytes. */
function saved(name: string, checkpoint: object): string {
  const file = join(tmp, name);
  writeFileSync(file, encodeCheckpoint(checkpoint as CheckpointFile));
  return file;
}

describe('a checkpoint carries the resolved config', () => {
  // Takeover mode with no iteration limit: in the file shape `maxIterations: null` means the
  // mode's default (10,000), so this resolved value is one the file shape cannot express.
  // Lagged, as checkpointOf's epoch null says (at n = 16 the default would be sync).
  const resolved = resolveRunConfig(
    { n: 16, islands: 2, ga: { mode: 'takeover', populationSize: 8 }, migration: { mode: 'lagged' } },
    'test',
    {},
    env,
  );
  const config: SeededRunConfig = { ...resolved, seed: 7, limits: { ...resolved.limits, maxIterations: null } };

  it('round trip: the config read back is the one written, a value the file shape cannot express included', () => {
    const file = saved('ok-takeover.ckpt', checkpointOf(config));
    const read = readCheckpoint(file);
    assert.equal(read.configVersion, RESOLVED_CONFIG_VERSION);
    const resumed = resumeConfig(read, file, {}, env);
    assert.deepEqual(resumed, config);
    assert.equal(resumed.limits.maxIterations, null);
    // What the old way (file shape, resolved again) would have made of it: a different run.
    assert.equal(resolveRunConfig(toFileShape(config), 'printed', {}, env).limits.maxIterations, 10_000);
  });

  it('resumable flags change only their keys; others must repeat the saved value', () => {
    const file = saved('ok-flags.ckpt', checkpointOf(config));
    const read = readCheckpoint(file);
    const longer = resumeConfig(read, file, { limits: { timeLimit: 5 }, onIslandError: 'fail' }, env);
    assert.deepEqual(longer, { ...config, limits: { ...config.limits, timeLimit: 5 }, onIslandError: 'fail' });
    assert.equal(longer.limits.maxIterations, null, 'a flag for another limit resolves nothing else');
    assert.deepEqual(resumeConfig(read, file, { n: 16, islands: 2 }, env), config);
    // Threads are placement only (a sync or lagged record is the same for any count): a resume may change them.
    assert.deepEqual(resumeConfig(read, file, { threads: 1 }, env), { ...config, threads: 1 });
    assert.throws(() => resumeConfig(read, file, { threads: 0 }, env), { message: /^--threads: expected an integer from 1 to / });
    assert.throws(() => resumeConfig(read, file, { islands: 3 }, env), {
      message: /^--islands: 3 contradicts the checkpoint .*ok-flags\.ckpt, which is for islands = 2; with --resume only/,
    });
    assert.throws(() => resumeConfig(read, file, { limits: { maxEvaluations: 3 } }, env), {
      message: /^--max-evaluations: 3 does not pay for the first populations/,
    });
  });
  it('a limit lowered on resume below what the checkpoint has run is refused in one line', () => {
    const paper = resolveRunConfig({ n: 16, islands: 2, ga: { populationSize: 8 }, migration: { mode: 'lagged' } }, 'test', {}, env);
    const file = saved('ok-limits.ckpt', checkpointOf({ ...paper, seed: 7 }, 5));
    const read = readCheckpoint(file);
    // A limit lowered below what the checkpoint has already run would end the run at once past it.
    const spent = read.islands.reduce((sum, island) => sum + island.state.evaluations, 0);
    const iterations = Math.max(...read.islands.map((island) => island.state.iterations));
    assert.ok(iterations >= 1 && spent > 16, `the checkpoint has run: ${iterations} iterations, ${spent} evaluations`);
    assert.throws(() => resumeConfig(read, file, { limits: { maxEvaluations: spent - 1 } }, env), {
      message: new RegExp(
        `^--max-evaluations: ${spent - 1} is below the ${spent} evaluations the checkpoint .*ok-limits\\.ckpt has already run`,
      ),
    });
    assert.equal(resumeConfig(read, file, { limits: { maxEvaluations: spent } }, env).limits.maxEvaluations, spent);
    assert.throws(() => resumeConfig(read, file, { limits: { maxIterations: iterations - 1 } }, env), {
      message: new RegExp(`^--max-iterations: ${iterations - 1} is below the ${iterations} iterations the checkpoint`),
    });
  });

  it('refuses a tampered config, another config schema version and an old format, in one line naming the file', () => {
    const good = checkpointOf(config);
    const refuses = (name: string, change: (c: Record<string, unknown>) => void, says: RegExp) => {
      const c = structuredClone(good) as unknown as Record<string, unknown>;
      change(c);
      assert.throws(
        () => readCheckpoint(saved(name, c)),
        (error: Error) => error instanceof ConfigError && !error.message.includes('\n') && says.test(error.message),
      );
    };
    const cfg = (c: Record<string, unknown>) => c.config as Record<string, Record<string, unknown>>;
    refuses(
      'pop.ckpt',
      (c) => (cfg(c).ga.populationSize = -1),
      /pop\.ckpt: damaged checkpoint \(config: ga\.populationSize: expected an integer >= 2, got -1\)$/,
    );
    refuses(
      'infinite.ckpt',
      (c) => (cfg(c).limits.maxIterations = Infinity),
      /damaged checkpoint \(config: limits\.maxIterations: .*got Infinity\)$/,
    );
    refuses('fileshape.ckpt', (c) => (c.config = toFileShape(config)), /damaged checkpoint \(config: /);
    refuses('schema.ckpt', (c) => (c.configVersion = 0), /damaged checkpoint \(config schema version 0, expected 1\)$/);
    refuses(
      'old.ckpt',
      (c) => (c.formatVersion = 1),
      new RegExp(
        `old\\.ckpt: checkpoint format version 1, written by nqueens-islands \\S+; this nqueens-islands reads version ${CHECKPOINT_FORMAT_VERSION}$`,
      ),
    );
  });
});
