/**
 * Checkpoint and resume, through the real CLI (each resume in a process of its own; the runs
 * it is compared with and the refusals in this process, `runCli`): a sync run checkpointed and stopped with
 * SIGINT after its first checkpoint, then resumed, reaches exactly the result of an
 * uninterrupted run with the same seed (solution, finder, iteration and evaluation
 * counts). Bad checkpoints and contradicting flags are refused with one line and exit 2.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  CHECKPOINT_FORMAT_VERSION,
  checkpointContents,
  encodeCheckpoint,
  readCheckpoint,
  type CheckpointFile,
} from '../src/run/checkpoint.ts';
import { cli, cliInProcess, isOneLineError, spawnCli } from './cli-helpers.ts';
import { repeatablePart } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-ckpt-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const SYNC = ['--islands', '2', '--migration', 'sync', '--interval', '5', '--migrants', '2'];
// Solved after about 1,600 iterations (well under a second).
const SMALL = ['solve', '-n', '48', '--seed', '3', '--population', '200', ...SYNC];
// Not solved for many seconds: safe to interrupt.
const LARGE = ['solve', '-n', '300', '--seed', '1', ...SYNC];
const ckpt = join(tmp, 'run.ckpt');

interface Record {
  solved: boolean;
  solution: number[] | null;
  best?: number[];
  fitness: number;
  foundBy: number | null;
  foundAtIteration: number | null;
  iterations: number;
  evaluations: number;
  islands: {
    iterations: number;
    evaluations: number;
    bestFitness: number;
    migrantsSent: number;
    migrantsAccepted: number;
    stopReason: string;
  }[];
}
/** Everything a repeatable run must reproduce (not times). */
const essence = (r: Record) => ({
  solved: r.solved,
  solution: r.solution,
  best: r.best,
  fitness: r.fitness,
  foundBy: r.foundBy,
  foundAtIteration: r.foundAtIteration,
  iterations: r.iterations,
  evaluations: r.evaluations,
  islands: r.islands.map((i) => [i.iterations, i.evaluations, i.bestFitness, i.migrantsSent, i.migrantsAccepted, i.stopReason]),
});
/** A run's record: in this process (`runCli`), or with `fresh`, as a resume is checked, in a process of its own (nothing carried over in memory). */
const json = async (args: string[], code: number, fresh = false): Promise<Record> => {
  const r = fresh ? cli([...args, '--json']) : await cliInProcess([...args, '--json']);
  assert.equal(r.code, code, r.stderr);
  return JSON.parse(r.stdout);
};

describe('checkpoint and resume (sync)', () => {
  it('stopped by SIGINT after a checkpoint, then resumed: the same state as a run never stopped', async () => {
    const run = spawnCli([...LARGE, '--checkpoint', ckpt, '--checkpoint-every', '0.05']);
    await run.waitForStderr(/checkpoint written to .*run\.ckpt \(epoch \d+\)/);
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    assert.equal(code, 130, run.stderr());
    assert.deepEqual(readdirSync(tmp), ['run.ckpt'], 'only the checkpoint, no temporary file');

    const saved = checkpointContents(readFileSync(ckpt)) as CheckpointFile;
    assert.equal(saved.format, 'nqueens-islands checkpoint');
    assert.equal(saved.formatVersion, CHECKPOINT_FORMAT_VERSION);
    assert.equal(saved.mode, 'sync');
    assert.ok(saved.epoch! >= 1);
    assert.equal((saved.config as { seed: number }).seed, 1);
    // Every island at the same epoch barrier.
    assert.deepEqual(
      saved.islands.map((s) => [s.island, s.epoch, s.state.iterations]),
      [0, 1].map((i) => [i, saved.epoch, saved.epoch! * 5]),
    );
    assert.ok(saved.islands[0].state.population.genes instanceof Uint16Array);

    // Resume to a few epochs past the checkpoint; a run never stopped must be in the same state there.
    const limit = String(saved.epoch! * 5 + 40);
    const resumedRun = cli(['solve', '--resume', ckpt, '--max-iterations', limit, '--json']);
    assert.equal(resumedRun.code, 1, resumedRun.stderr);
    assert.match(resumedRun.stderr, new RegExp(`resumed from .*run\\.ckpt at epoch ${saved.epoch}`));
    const resumed = JSON.parse(resumedRun.stdout) as Record;
    assert.equal(resumed.iterations, Number(limit));
    assert.deepEqual(essence(resumed), essence(await json([...LARGE, '--max-iterations', limit], 1)));
  });

  it('a run ended after checkpoints and resumed reaches the same solution, finder and counts', async () => {
    const file = join(tmp, 'small.ckpt');
    const first = await cliInProcess([...SMALL, '--checkpoint', file, '--checkpoint-every', '0.02', '--max-iterations', '1000']);
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /checkpoint written to/);
    const resumed = await json(['solve', '--resume', file, '--max-iterations', '100000'], 0, true);
    const uninterrupted = await json(SMALL, 0);
    assert.deepEqual(essence(resumed), essence(uninterrupted));
    // And taking checkpoints does not change a sync run.
    assert.deepEqual(
      essence(await json([...SMALL, '--checkpoint', join(tmp, 'every.ckpt'), '--checkpoint-every', '0.02'], 0)),
      essence(uninterrupted),
    );
  });
});

describe('checkpoint and resume (lagged)', () => {
  it('SIGKILLed after a timed checkpoint (islands answer it at different iterations), then resumed: the record of a run never stopped', async () => {
    const file = join(tmp, 'lagged.ckpt');
    const LAGGED = ['solve', '-n', '300', '--seed', '4', '--islands', '2', '--migration', 'lagged', '--interval', '3'];
    const run = spawnCli([...LAGGED, '--checkpoint', file, '--checkpoint-every', '0.05']);
    await run.waitForStderr(/checkpoint written to .*lagged\.ckpt/);
    run.child.kill('SIGKILL');
    await run.exited;
    const saved = checkpointContents(readFileSync(file)) as CheckpointFile;
    assert.equal(saved.mode, 'lagged');
    const limit = String(Math.max(...saved.islands.map((s) => s.state.iterations)) + 30);
    const resumed = await json(['solve', '--resume', file, '--max-iterations', limit], 1, true);
    assert.deepEqual(repeatablePart(resumed), repeatablePart(await json([...LAGGED, '--max-iterations', limit], 1)));
  });
});

describe('checkpoint and resume, hybrid mode (sync)', () => {
  it('a hybrid run ended after checkpoints and resumed reaches the same result; members keep their counts', async () => {
    // No smart start and a tiny local search: a hundred-odd generations, so it can be cut short.
    const dir = mkdtempSync(join(tmpdir(), 'nq-ckpt-hybrid-'));
    const config = join(dir, 'hybrid.yaml');
    writeFileSync(
      config,
      [
        'n: 400',
        'ga: { mode: hybrid, smartStart: null, localSearch: { applyTo: both, maxSteps: 4, triesPerQueen: 8 } }',
        'islands: 2',
        'migration: { mode: sync, interval: 1 }',
      ].join('\n'),
    );
    const file = join(dir, 'hybrid.ckpt');
    const first = await cliInProcess([
      'solve',
      '--config',
      config,
      '--seed',
      '2',
      '--checkpoint',
      file,
      '--checkpoint-every',
      '0.02',
      '--max-iterations',
      '60',
    ]);
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /checkpoint written to .*hybrid\.ckpt/);
    const saved = checkpointContents(readFileSync(file)) as CheckpointFile;
    assert.equal(saved.islands[0].state.bad.genes.length, 0, 'no bad repository in hybrid mode');
    // The conflict lists travel with the genes; one that misses a member's conflicts is refused before the run.
    const lists = saved.islands[0].state.lists!;
    assert.equal(lists.length, 8);
    const tampered = checkpointContents(readFileSync(file)) as CheckpointFile;
    const member = tampered.islands[0].state.population.fitness.findIndex((f) => f > 0);
    tampered.islands[0].state.lists![member] = new Int32Array(0);
    writeFileSync(join(dir, 'tampered.ckpt'), encodeCheckpoint(tampered));
    const refused = await cliInProcess(['solve', '--resume', join(dir, 'tampered.ckpt')]);
    assert.ok(isOneLineError(refused), refused.stderr);
    assert.match(refused.stderr, new RegExp(`island 0: conflict lists: list ${member} misses queens in conflict`));
    const resumed = await json(['solve', '--resume', file, '--max-iterations', '100000'], 0, true);
    const uninterrupted = await json(['solve', '--config', config, '--seed', '2'], 0);
    assert.deepEqual(essence(resumed), essence(uninterrupted));
  });
});

describe('checkpoints that cannot be resumed', () => {
  const variant = (name: string, change: (c: CheckpointFile) => void): string => {
    const c = checkpointContents(readFileSync(ckpt)) as CheckpointFile;
    change(c);
    const file = join(tmp, name);
    writeFileSync(file, encodeCheckpoint(c));
    return file;
  };
  // In this process (runCli): the binary answers bad input as runCli does (bad-input-binary.test.ts).
  const refuses = async (args: string[], says: RegExp) => {
    const r = await cliInProcess(args);
    assert.ok(isOneLineError(r), `code ${r.code}, stderr ${r.stderr}`);
    assert.match(r.stderr.trim(), says);
  };

  it('another tool version', async () => {
    await refuses(
      ['solve', '--resume', variant('old-tool.ckpt', (c) => (c.toolVersion = '0.0.1'))],
      /written by nqueens-islands 0\.0\.1, this is \d+\.\d+\.\d+; resume it with the version that wrote it$/,
    );
  });
  it('a single bit flipped anywhere (random-number state, config, the checksum itself): one line, exit 2', async () => {
    const bytes = readFileSync(ckpt);
    // Spread over the whole file, the last one inside the checksum.
    for (const at of [0, 1, Math.floor(bytes.length / 3), Math.floor(bytes.length / 2), bytes.length - 40, bytes.length - 1]) {
      const flipped = Buffer.from(bytes);
      flipped[at] ^= 0x01;
      const file = join(tmp, `flip-${at}.ckpt`);
      writeFileSync(file, flipped);
      await refuses(
        ['solve', '--resume', file],
        /flip-\d+\.ckpt: (damaged checkpoint \(its SHA-256 checksum does not match|not an nqueens-islands checkpoint)/,
      );
    }
  });
  it('another format version', async () => {
    await refuses(
      ['solve', '--resume', variant('old-format.ckpt', (c) => (c.formatVersion = 99))],
      new RegExp(
        `checkpoint format version 99, written by nqueens-islands \\d+\\.\\d+\\.\\d+; this nqueens-islands reads version ${CHECKPOINT_FORMAT_VERSION}$`,
      ),
    );
    // 0.8.0's files (format 3) hold no migrants in flight: refused, not resumed into another run.
    await refuses(
      ['solve', '--resume', variant('format-3.ckpt', (c) => (c.formatVersion = 3))],
      /checkpoint format version 3, written by nqueens-islands \d+\.\d+\.\d+; this nqueens-islands reads version \d+$/,
    );
  });
  it('damaged parts past the GA state (counts, migrants in flight, lag history, between-island points): one line each', async () => {
    const island0 = (c: CheckpointFile) => c.islands[0];
    const cases: [string, (c: CheckpointFile) => void, RegExp][] = [
      [
        'survived',
        (c) => (island0(c).runner!.immigrantsSurvived = island0(c).runner!.immigrantsChecked + 1),
        /island 0: more immigrants survived/,
      ],
      ['stamps', (c) => (island0(c).runner!.written = new Int32Array(3)), /island 0: write stamps: expected/],
      [
        'inbox',
        (c) => (island0(c).inbox = [{ type: 'migrants', from: 1, epoch: 1, iteration: 5, count: 1, genes: new Uint16Array(300) }]),
        /island 0: inbox message 0: migrant 0 is not a permutation/,
      ],
      [
        'sent',
        (c) => (island0(c).sent = [{ type: 'migrants', from: 7, epoch: 1, iteration: 5, count: 0, genes: new Uint16Array(0) }]),
        /island 0: sent message 0: from 7 is not an island of the run/,
      ],
      ['history', (c) => (island0(c).mode = { history: new Float64Array(5), newest: 9 }), /island 0: lagged history: expected at most/],
      [
        'between',
        (c) =>
          (c.between = [
            { iteration: 2, meanDistance: 0.5, distinct: 3, sampled: 4 },
            { iteration: 1, meanDistance: 0.5, distinct: 3, sampled: 4 },
          ]),
        /between-island points are not in iteration order/,
      ],
    ];
    for (const [name, change, says] of cases) await refuses(['solve', '--resume', variant(`part-${name}.ckpt`, change)], says);
  });
  it('a config that is not a resolved config (edited, or in the file shape): never resolved again', async () => {
    await refuses(
      ['solve', '--resume', variant('bad-config.ckpt', (c) => (c.config.migration.interval = 0))],
      /bad-config\.ckpt: damaged checkpoint \(config: migration\.interval: expected an integer >= 1, got 0\)$/,
    );
    await refuses(
      ['solve', '--resume', variant('file-shape.ckpt', (c) => ((c as { config: unknown }).config = { n: 300, islands: 2, seed: 1 }))],
      /file-shape\.ckpt: damaged checkpoint \(config: /,
    );
  });
  it('another N on the command line', async () => {
    await refuses(
      ['solve', '--resume', ckpt, '-n', '301'],
      /^nqueens-islands: -n: 301 contradicts the checkpoint .*run\.ckpt, which is for n = 300; with --resume only --max-iterations, --max-evaluations, --time-limit, --on-island-error, --out, --threads may change$/,
    );
  });
  it('any other run flag that contradicts it (the same value is fine)', async () => {
    await refuses(['solve', '--resume', ckpt, '--interval', '6'], /--interval: 6 contradicts the checkpoint .* migration\.interval = 5/);
    // A limit at what the checkpoint has run ends the resumed run at once (one below it is refused).
    const ran = String(Math.max(...readCheckpoint(ckpt).islands.map((island) => island.state.iterations)));
    const same = await cliInProcess(['solve', '--resume', ckpt, '-n', '300', '--interval', '5', '--quiet', '--max-iterations', ran]);
    assert.equal(same.code, 1, same.stderr);
    await refuses(
      ['solve', '--resume', ckpt, '--max-iterations', String(Number(ran) - 1)],
      new RegExp(`^nqueens-islands: --max-iterations: ${Number(ran) - 1} is below the ${ran} iterations the checkpoint .* has already run`),
    );
  });
  it('snapshots that do not match the config', async () => {
    await refuses(
      ['solve', '--resume', variant('short.ckpt', (c) => c.islands.pop())],
      /damaged checkpoint \(expected 2 island snapshots\)$/,
    );
  });
  it("with islands on other hosts: refused by the cluster launcher's capabilities, before any broker is reached", async () => {
    const noBroker = ['--nats', 'nats://127.0.0.1:1', '--hosts', '1'];
    const why = '\\(islands on other hosts are not checkpointed\\)$';
    await refuses(['solve', '--resume', ckpt, ...noBroker], new RegExp(`^nqueens-islands: --resume: not with --nats ${why}`));
    await refuses(
      ['solve', '-n', '8', '--checkpoint', join(tmp, 'never.ckpt'), ...noBroker],
      new RegExp(`^nqueens-islands: --checkpoint: not with --nats ${why}`),
    );
    assert.equal(existsSync(join(tmp, 'never.ckpt')), false);
  });
  it('a truncated file', async () => {
    const file = join(tmp, 'truncated.ckpt');
    writeFileSync(file, readFileSync(ckpt).subarray(0, 1000));
    await refuses(['solve', '--resume', file], /not an nqueens-islands checkpoint/);
  });
});
