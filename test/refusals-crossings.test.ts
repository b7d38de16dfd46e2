/**
 * Hostile values where a check meets another part (issue 47, fifth round): each row goes
 * through the real CLI (the bundle) and, where the library takes the same value, through the
 * library too; each must be refused at once in one line, exit 2, naming the flag or key.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runExperiment, startRun } from '../src/index.ts';
import { cliAsync, inBatches } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-refusals-crossings-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => path.join(dir, name);
// A study whose baseline names a member every object inherits (Object.prototype's).
const STUDY =
  'name: st\nbase: { overrides: { n: 8, islands: 1, limits: { maxIterations: 20 } } }\nsweep: { n: [8, 10] }\nrepeats: 1\nseed: 1\n';
writeFileSync(file('st.yaml'), STUDY);
writeFileSync(file('inherited.yaml'), `${STUDY}baseline: { toString: 8 }\n`);
writeFileSync(file('wait.yaml'), 'n: 8\ncluster: { nats: "nats://127.0.0.1:1", hosts: 1, wait: 1e21 }\n');
// Sweep keys that are no run-config path: the key is what is wrong, not its list of values.
const BAD_SWEEP_KEYS = ['', 'n.', 'ga..mode', '1n'];
BAD_SWEEP_KEYS.forEach((key, i) =>
  writeFileSync(file(`key-${i}.yaml`), STUDY.replace('sweep: { n: [8, 10] }', `sweep: { ${JSON.stringify(key)}: [8] }`)),
);

interface Row {
  what: string;
  args: string[];
  message: RegExp;
}

const ROWS: Row[] = [
  {
    // Past Node's longest timer a timeout fires at once: checkpoints back to back, not never.
    what: '--checkpoint-every past the longest timer',
    args: ['solve', '-n', '8', '--islands', '1', '--checkpoint', file('a.ckpt'), '--checkpoint-every', '1e21'],
    message: /^nqueens-islands: --checkpoint-every: expected a number of seconds > 0, at most 2147483 \(24\.8 days\), got "1e21"\n$/,
  },
  {
    what: '--checkpoint-every one second past the longest timer',
    args: ['solve', '-n', '8', '--islands', '1', '--checkpoint', file('b.ckpt'), '--checkpoint-every', '2147484'],
    message: /^nqueens-islands: --checkpoint-every: .*got "2147484"\n$/,
  },
  {
    what: 'a baseline key every object inherits, in the experiment file',
    args: ['experiment', file('inherited.yaml'), '--out', file('o1'), '-q'],
    message: /^nqueens-islands: .*inherited\.yaml: baseline\.toString: expected a sweep key \(n\)\n$/,
  },
  {
    what: 'a baseline key every object inherits, by --set',
    args: ['experiment', file('st.yaml'), '--out', file('o2'), '-q', '--set', 'baseline.valueOf=8'],
    message: /^nqueens-islands: .*st\.yaml: baseline\.valueOf: expected a sweep key \(n\)\n$/,
  },
  // --wait likewise (a wait past the longest timer waited 1 ms); refused before any connect.
  ...[
    ['hosts', '--nats', 'nats://127.0.0.1:1', '--wait', '1e21'],
    ['solve', '-n', '8', '--nats', 'nats://127.0.0.1:1', '--hosts', '1', '--wait', '2147484'],
  ].map((args) => ({
    what: `${args[0]} --wait ${args[args.length - 1]}`,
    args,
    message: new RegExp(
      `^nqueens-islands: --wait: expected a number of seconds > 0, at most 2147483 \\(24\\.8 days\\), got "${args[args.length - 1]}"\n$`,
    ),
  })),
  {
    what: "a config file's cluster.wait past the longest timer",
    args: ['solve', '-c', file('wait.yaml')],
    message:
      /^nqueens-islands: .*wait\.yaml: cluster\.wait: expected a number of seconds > 0, at most 2147483 \(24\.8 days\), got 1e\+21\n$/,
  },
  // A run's seed is read as every number in a flag (no hex); an empty one is no seed 0.
  ...['0x1', '', '0b1', '1.5'].map((seed) => ({
    what: `report --run CELL@${seed}`,
    args: ['report', file('run-study'), '--run', `n=8@${seed}`],
    message: new RegExp(`^nqueens-islands: --run n=8@${seed.replace(/\./g, '\\.')}: expected CELL@SEED, e\\.g\\. n=8@1\n$`),
  })),
  ...['0x1', 'Infinity', '-0.5'].map((ratio) => ({
    what: `experiment --plan --detect ${ratio}`,
    args: ['experiment', file('st.yaml'), '--plan', '--pilot', file('run-study'), '--detect', ratio],
    message: new RegExp(
      `^nqueens-islands: --detect ${ratio.replace(/\./g, '\\.')}: expected a paired ratio above 0 other than 1, e\\.g\\. 0\\.8\n$`,
    ),
  })),
  {
    what: 'report --baseline giving one sweep key two values',
    args: ['report', file('run-study'), '--baseline', 'n=8', '--baseline', 'n=10'],
    message: /^nqueens-islands: --baseline n=10: n is 8 in an earlier --baseline; give each sweep key once\n$/,
  },
  {
    what: 'report --x-axis with a name every object inherits',
    args: ['report', file('none'), '--x-axis', 'toString'],
    message: /^nqueens-islands: --x-axis: expected one of iterations \| evaluations \| seconds, got "toString"\n$/,
  },
  {
    what: 'report --x-axis given twice: the last counts, and is checked',
    args: ['report', file('none'), '--x-axis', 'seconds', '--x-axis', 'minutes'],
    message: /^nqueens-islands: --x-axis: expected one of iterations \| evaluations \| seconds, got "minutes"\n$/,
  },
  {
    what: 'report --x-axis without its value',
    args: ['report', '--run', file('none.jsonl'), '--x-axis'],
    message: /^nqueens-islands: Not enough arguments following: x-axis\n$/,
  },
  ...BAD_SWEEP_KEYS.map((key, i) => ({
    what: `the sweep key ${JSON.stringify(key)}`,
    args: ['experiment', file(`key-${i}.yaml`), '--out', file(`o-key-${i}`), '-q'],
    message: new RegExp(
      `^nqueens-islands: .*key-${i}\\.yaml: sweep: key ${JSON.stringify(key).replace(/\./g, '\\.')}: expected a dotted run-config path such as migration\\.interval\n$`,
    ),
  })),
];

describe('hostile values where checks cross', () => {
  before(async () => {
    const made = await cliAsync(['experiment', file('st.yaml'), '--out', file('run-study'), '-q']);
    assert.equal(made.code, 0, made.stderr);
  });

  it('each row is one line naming its flag, exit 2, nothing written', async () => {
    const runs = await inBatches(ROWS, 2, (row) => cliAsync(row.args));
    ROWS.forEach((row, i) => {
      const { code, stderr, stdout } = runs[i];
      assert.equal(code, 2, `${row.what}: ${stderr}`);
      assert.match(stderr, row.message, row.what);
      assert.equal(stdout, '', row.what);
    });
    assert.ok(!existsSync(file('o1')) && !existsSync(file('o2')), 'no study folder made');
  });

  it('the library names a bad sweep key as the CLI does', async () => {
    for (const key of BAD_SWEEP_KEYS) {
      const study = { name: 'st', base: { overrides: { n: 8 } }, sweep: { [key]: [8] }, seed: 1 };
      await assert.rejects(runExperiment(study, { out: file('lib-key') }), {
        name: 'ConfigError',
        message: `experiment: sweep: key ${JSON.stringify(key)}: expected a dotted run-config path such as migration.interval`,
      });
    }
  });

  it('the library refuses a baseline key every object inherits, as the CLI does', async () => {
    for (const key of ['toString', 'hasOwnProperty', 'constructor']) {
      const study = { name: 'st', base: { overrides: { n: 8 } }, sweep: { n: [8, 10] }, baseline: { [key]: 8 }, seed: 1 };
      await assert.rejects(runExperiment(study, { out: file(`lib-${key}`) }), (error: Error) => {
        assert.equal(error.name, 'ConfigError', error.stack);
        assert.match(error.message, new RegExp(`baseline\\.${key}`));
        return true;
      });
    }
  });

  it('the library refuses the same checkpoint periods before anything starts', () => {
    for (const everySeconds of [1e21, 2_147_484, Infinity]) {
      assert.throws(
        () => startRun({ n: 8, islands: 1 }, { checkpoint: { file: file('lib.ckpt'), everySeconds } }),
        /^ConfigError: checkpoint\.everySeconds: expected a number of seconds > 0, at most 2147483 \(24\.8 days\)/,
      );
    }
  });

  it('--checkpoint (and checkpoint.file) onto a file that is not a checkpoint is refused, the file kept', async () => {
    const precious = file('precious.txt');
    writeFileSync(precious, 'precious\n');
    const run = await cliAsync(['solve', '-n', '30', '--checkpoint', precious, '--checkpoint-every', '0.01', '--max-iterations', '50']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^nqueens-islands: --checkpoint .*precious\.txt: the file is there and is not a checkpoint; .*\n$/);
    assert.throws(
      () => startRun({ n: 30, islands: 1 }, { checkpoint: { file: precious, everySeconds: 0.01 } }),
      /^InputError: checkpoint\.file .*precious\.txt: the file is there and is not a checkpoint/,
    );
    assert.equal(readFileSync(precious, 'utf8'), 'precious\n');
    // A checkpoint is written over by the next run's checkpoints, as before.
    const ckpt = file('again.ckpt');
    for (let i = 0; i < 2; i++) {
      const again = await cliAsync([
        'solve',
        '-n',
        '300',
        '--seed',
        '1',
        '--checkpoint',
        ckpt,
        '--checkpoint-every',
        '0.01',
        '--max-iterations',
        '300',
        '-q',
      ]);
      assert.equal(again.code, 1, again.stderr); // not solved within its 300 iterations: no refusal
      assert.ok(existsSync(ckpt), 'a checkpoint was written');
    }
  });

  it("--bundle is never written onto a study's records (a shard's included), as no other output is", async () => {
    const study = file('sharded');
    const made = await cliAsync(['experiment', file('st.yaml'), '--out', study, '-q', '--shard', '1/2']);
    assert.equal(made.code, 0, made.stderr);
    const before = new Map(readdirSync(study).map((name) => [name, readFileSync(path.join(study, name), 'utf8')]));
    const names = ['manifest.json', 'runs.shard-1-of-2.jsonl'];
    const runs = await inBatches(names, 2, (name) => cliAsync(['experiment', file('st.yaml'), '--bundle', path.join(study, name)]));
    names.forEach((name, i) => {
      assert.equal(runs[i].code, 2, runs[i].stderr);
      assert.match(
        runs[i].stderr,
        new RegExp(
          `^nqueens-islands: --bundle .*${name.replace(/\./g, '\\.')}: is ${name.replace(/\./g, '\\.')} of the study in .*; a study's records are never written over \\(choose another file\\)\n$`,
        ),
      );
    });
    for (const [name, text] of before) assert.equal(readFileSync(path.join(study, name), 'utf8'), text, name);
  });

  it('--figures and --ioh onto a link that leads to no folder are refused before the work', async () => {
    const study = file('links-study');
    const made = await cliAsync(['experiment', file('st.yaml'), '--out', study, '-q']);
    assert.equal(made.code, 0, made.stderr);
    symlinkSync(file('gone'), file('dangling'));
    symlinkSync(file('loop-b'), file('loop-a'));
    symlinkSync(file('loop-a'), file('loop-b'));
    const rows = ['--figures', '--ioh'].flatMap((flag) => [
      [flag, 'dangling', `is a symbolic link to ${file('gone')}, which does not exist`],
      [flag, 'loop-a', 'is a loop of symbolic links'],
    ]);
    const runs = await inBatches(rows, 2, ([flag, link]) => cliAsync(['report', study, flag, file(link)]));
    rows.forEach(([flag, link, why], i) => {
      const { code, stdout, stderr } = runs[i];
      assert.equal(code, 2, `${flag} ${link}: ${stderr}`);
      assert.equal(stdout, '', 'refused before the summary is made');
      assert.equal(stderr, `nqueens-islands: ${flag} ${file(link)}: ${why}; expected a missing or empty folder, or a link to one\n`);
    });
    assert.ok(!existsSync(file('gone')));
  });

  it('N = 2 and 3 are answered at once: no view served, no broker asked, no file', async () => {
    const cases = [
      ['solve', '-n', '2', '--serve', '0', '--out', file('n2.json')],
      ['solve', '-n', '3', '--nats', 'nats://127.0.0.1:1', '--hosts', '1', '--trace', file('n3.jsonl')],
    ];
    const runs = await inBatches(cases, 2, (args) => cliAsync(args));
    runs.forEach(({ code, stdout, stderr }, i) => {
      const n = cases[i][2];
      assert.equal(code, 1, stderr);
      assert.equal(stdout, '');
      assert.equal(stderr, `nqueens-islands: N = ${n} has no solution: no ${n} queens can be placed without two sharing a diagonal\n`);
    });
    assert.ok(!existsSync(file('n2.json')) && !existsSync(file('n3.jsonl')));
  });

  it('--detect reads a number as every flag does: 8e-1 is 0.8', async () => {
    const plan = (ratio: string) => cliAsync(['experiment', file('st.yaml'), '--plan', '--pilot', file('run-study'), '--detect', ratio]);
    const [exponent, plain] = await Promise.all([plan('8e-1'), plan('0.8')]);
    assert.equal(exponent.code, 0, exponent.stderr);
    assert.equal(exponent.stdout, plain.stdout);
  });

  it("a shard's lock of a pid <= 0 or a huge host is unreadable; one without a start time says so", async () => {
    const study = file('locked');
    const made = await cliAsync(['experiment', file('st.yaml'), '--out', study, '-q', '--shard', '1/2']);
    assert.equal(made.code, 0, made.stderr);
    const lock = path.join(study, '.nqueens-islands.lock.shard-2-of-2');
    const shard2 = ['experiment', file('st.yaml'), '--out', study, '-q', '--shard', '2/2'];
    for (const holder of [
      { pid: 0, host: 'h' },
      { pid: -1, host: 'h' },
      { pid: 1, host: 'h'.repeat(300) },
    ]) {
      writeFileSync(lock, JSON.stringify(holder));
      const r = await cliAsync(shard2);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^nqueens-islands: --out .*locked: the study is in use by another writer \(unreadable lock\)/);
      assert.ok(r.stderr.length < 400, 'one short line');
    }
    // pid 1 is alive here: the lease (1 s in this test) has to run out before the lock is taken over.
    writeFileSync(lock, JSON.stringify({ pid: 1, host: hostname() }));
    const r = await cliAsync(shard2, { env: { NQI_TEST_LOCK_LEASE_MS: '1000' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /lease of process 1 on .* since an unknown time to run out/);
    assert.doesNotMatch(r.stderr, /undefined/);
  });
});

describe("the tool's own outputs are inputs it reads", () => {
  it('a trace of N = 1 (answered without a search: its header alone) is read by report --run, and --serve says why it has nothing to replay', async () => {
    const trace = path.join(dir, 'n1.jsonl');
    const solved = await cliAsync(['solve', '-n', '1', '--trace', trace]);
    assert.equal(solved.code, 0, solved.stderr);
    const read = await cliAsync(['report', '--run', trace]);
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stdout, /N=1, .*answered without a search \(boards 1 to 3 need none\), so the trace holds no events/);
    const served = await cliAsync(['report', '--run', trace, '--serve', '0']);
    assert.equal(served.code, 2, served.stderr);
    assert.match(
      served.stderr.trim(),
      /^nqueens-islands: --run .*n1\.jsonl: N = 1 is answered without a search, so there is nothing to replay$/,
    );
  });
});
