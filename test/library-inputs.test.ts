/**
 * The library refuses what the CLI refuses, as InputErrors with the CLI's words: tuples with
 * holes, BigInt, null options, huge topologies, misspelt option keys, a baseline the study lacks,
 * anything `verify` is given that is not a tuple; its exported registries are frozen.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError, runExperiment, startRun, topologies, verify } from '../src/index.ts';
import { cliInProcess } from './cli-helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel4-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** [1, <hole>, 3]: an array with an empty slot, as `[1, , 3]` makes it. */
function holed(): number[] {
  const tuple: number[] = [];
  tuple[0] = 1;
  tuple[2] = 3;
  return tuple;
}

describe('library calls with holes, BigInt, null options or huge topologies are InputErrors, not TypeErrors', () => {
  // [name, the call, what the message says]
  const cases: [string, () => unknown, RegExp][] = [
    ['verify with a hole', () => verify(holed()), /entry 2 is empty \(a hole in the array\)/],
    ['verify with BigInts', () => verify([1n, 2n] as unknown as number[]), /1n \(a BigInt\) is not a positive integer/],
    [
      'startRun with null options',
      () => startRun({ n: 8, islands: 1 }, null as never),
      /startRun options: expected an object of options, got null/,
    ],
    [
      'startRun with a BigInt checkpoint period',
      () => startRun({ n: 8, islands: 1 }, { checkpoint: { file: join(tmp, 'x.ckpt'), everySeconds: 1n as unknown as number } }),
      /checkpoint(\.|: )everySeconds: expected a number.*got 1n/,
    ],
    [
      'runExperiment with null options',
      () => runExperiment({ name: 'x', base: { overrides: { n: 8 } }, seeds: [1] }, null as never),
      /runExperiment options: expected an object/,
    ],
    [
      'a topology of a million islands (refused before any edge)',
      () => topologies.edges({ kind: 'fully-connected' }, 1_000_000),
      /topology: at most 4096 islands, got 1000000/,
    ],
    [
      'a topology of a BigInt island count',
      () => topologies.edges({ kind: 'ring' }, 4n as never),
      /topology needs a positive integer island count, got 4/,
    ],
  ];
  for (const [name, call, says] of cases) {
    it(name, async () => {
      await assert.rejects(
        () => Promise.resolve().then(call),
        (error: Error) => error instanceof InputError && says.test(error.message) && !error.message.includes('\n'),
      );
    });
  }
});

describe("library options get the CLI's checks; exported registries are frozen", () => {
  it('a misspelt key inside an option is refused with the nearest name', async () => {
    const { solve, runExperiment } = await import('../src/index.ts');
    await assert.rejects(
      solve({ n: 8, islands: 1 }, { checkpoint: { file: join(tmp, 'c.ckpt'), every: 1 } as never }),
      /startRun options: checkpoint: unknown option "every"; expected one of file, everySeconds/,
    );
    await assert.rejects(
      solve({ n: 8, islands: 1 }, { checkpoint: { file: join(tmp, 'c.ckpt'), everySeconds: '1' } as never }),
      /checkpoint\.everySeconds: expected a number of seconds > 0/,
    );
    await assert.rejects(
      runExperiment(
        { base: { overrides: { n: 8 } }, seeds: [1] },
        {
          out: join(tmp, 'never-3'),
          hooks: { onRunEnds: () => {} } as never,
        },
      ),
      /hooks: unknown option "onRunEnds"; did you mean "onRunEnd"\?/,
    );
  });
  it('studyReport: a baseline the study does not have is refused as --baseline is', async () => {
    const { studyReport } = await import('../src/index.ts');
    const file = join(tmp, 'swept.yaml');
    writeFileSync(
      file,
      'base: { overrides: { n: 8, islands: 1, limits: { maxIterations: 50 } } }\nsweep:\n  migration.interval: [1, 2]\nrepeats: 1\nseed: 1\n',
    );
    const out = join(tmp, 'swept');
    assert.equal((await cliInProcess(['experiment', file, '--out', out, '--quiet'])).code, 0);
    assert.throws(
      () => studyReport(out, { baseline: { foo: 1 } }),
      /studyReport options: baseline: foo is not a sweep key; expected one of migration\.interval/,
    );
    assert.throws(
      () => studyReport(out, { baseline: { 'migration.interval': 7 } }),
      /baseline: migration\.interval: expected one of the swept values 1, 2, got 7/,
    );
    assert.ok(studyReport(out, { baseline: { 'migration.interval': 2 } }).summary);
  });
  it('topologies, its kinds and ERT_TARGETS cannot be changed', async () => {
    const { topologies, ERT_TARGETS } = await import('../src/index.ts');
    assert.throws(() => (topologies.kinds as string[]).push('mine'), TypeError);
    assert.throws(() => ((topologies as { kinds: unknown }).kinds = []), TypeError);
    assert.throws(() => ((ERT_TARGETS as unknown as number[])[0] = 99), TypeError);
    assert.ok(Object.isFrozen(topologies) && Object.isFrozen(topologies.kinds) && Object.isFrozen(ERT_TARGETS));
  });
});

describe('verify() of what is not a tuple', () => {
  it('verify() of anything but a tuple is a TupleSyntaxError (an InputError) with a message', () => {
    for (const value of [[], null, undefined, {}, 'x', '', [0], [1.5], ['1'], 42]) {
      assert.throws(
        () => verify(value as never),
        (e: unknown) => e instanceof InputError && /^tuple: /.test((e as Error).message),
        JSON.stringify(value),
      );
    }
  });
});
