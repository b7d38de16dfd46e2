/**
 * A study's run records are typed and bounded field by field (issue 47, fifth round): a record
 * with an absurd value (1e308 seconds, a finishedAt that is no time or lies in the future, a
 * count its islands do not add up to) is refused by `report` in one line naming FILE:LINE and
 * the key (exit 2), and set aside by `--resume`, said once, its run redone; a last line that is
 * whole but lacks its newline is a record, kept and finished. Through the bundle; the budget
 * and memory checks of island groups through the bundle and the library.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../src/config/errors.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { readRuns } from '../src/experiment/store.ts';
import { solve } from '../src/index.ts';
import { cliAsync, cliInProcess, inBatches } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-refusals-records-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => path.join(dir, name);
/** `experiment st.yaml --out OUT --resume` (of a folder this build may not have made). */
const resume = (out: string) => cliAsync(['experiment', at('st.yaml'), '--out', out, '--resume', '-q', '--mixed-builds']);
// Two islands (so the islands' sums mean something), two cells, two seeds: 4 runs of milliseconds.
const STUDY = 'name: st\nbase: { overrides: { n: 8, islands: 2 } }\nsweep: { migration.interval: [5, 10] }\nseeds: [1, 2]\n';
writeFileSync(at('st.yaml'), STUDY);

type Json = Record<string, unknown>;
/** [what, how the record on line 1 is spoilt, the key the refusal must name] */
const FIELDS: [string, (r: Json) => void, string][] = [
  ['seconds past any run', (r) => (r.seconds = 1e308), 'seconds'],
  ['startupSeconds past any run', (r) => (r.startupSeconds = 1e300), 'startupSeconds'],
  ['stopLatencyMs past any run', (r) => (r.stopLatencyMs = 1e300), 'stopLatencyMs'],
  ['seconds more than the study has run', (r) => (r.seconds = 1e7), 'seconds'],
  ['finishedAt not a time', (r) => (r.finishedAt = 'yesterday'), 'finishedAt'],
  ['finishedAt not a real date', (r) => (r.finishedAt = '2026-02-30T00:00:00.000Z'), 'finishedAt'],
  ['finishedAt far in the future', (r) => (r.finishedAt = '2099-01-01T00:00:00.000Z'), 'finishedAt'],
  ['finishedAt before the study started', (r) => (r.finishedAt = '2001-01-01T00:00:00.000Z'), 'finishedAt'],
  ['a negative count', (r) => (r.evaluations = -1), 'evaluations'],
  ['a fractional count', (r) => (r.iterations = 2.5), 'iterations'],
  ['a count past 2^53', (r) => (r.migrantsSent = 2 ** 60), 'migrantsSent'],
  ["evaluations not its islands' sum", (r) => (r.evaluations = (r.evaluations as number) + 1), 'evaluations'],
  ["an island's evaluations not in the run's", (r) => ((r.islands as Json[])[0].evaluations = 5), 'evaluations'],
  ["evaluationsAfterSolution not its islands' sum", (r) => (r.evaluationsAfterSolution = 99_999_999), 'evaluationsAfterSolution'],
  ['iterations its islands never ran', (r) => (r.iterations = 1_000_000), 'iterations'],
  ["a measure not its islands' sum", (r) => (r.migrantsReceived = 99), 'migrantsReceived'],
  ['an island left out', (r) => (r.islands as Json[]).pop(), 'islands'],
  ['more threads than islands', (r) => (r.threads = 100_000), 'threads'],
  ['provenance not an object', (r) => (r.provenance = null), 'provenance'],
];

let study = '';
let lines: string[] = [];
before(async () => {
  study = at('st');
  const r = await cliAsync(['experiment', at('st.yaml'), '--out', study, '-q']);
  assert.equal(r.code, 0, r.stderr);
  lines = readFileSync(path.join(study, 'runs.jsonl'), 'utf8').trim().split('\n');
  // Every genuine record passes: no bound refuses what the tool writes.
  assert.equal((await cliAsync(['report', study])).code, 0);
});

/** A copy of the study whose line 1 is spoilt by `spoil`. */
function spoilt(name: string, spoil: (r: Json) => void): string {
  const copy = at(name);
  cpSync(study, copy, { recursive: true });
  const record = JSON.parse(lines[0]) as Json;
  spoil(record);
  writeFileSync(path.join(copy, 'runs.jsonl'), [JSON.stringify(record), ...lines.slice(1)].map((l) => `${l}\n`).join(''));
  return copy;
}

/** `--resume` on each row's folder, a few at a time: each refused (exit 2) with the one line `line(row, i)`. */
async function eachRefusedOnResume<R extends { what: string; out: string }>(rows: R[], batch: number, line: (row: R, i: number) => RegExp) {
  const results = await inBatches(rows, batch, ({ out }) => resume(out));
  results.forEach((r, i) => {
    assert.equal(r.code, 2, `${rows[i].what}: ${r.stderr}`);
    assert.match(r.stderr, line(rows[i], i), rows[i].what);
  });
}

describe('report refuses a record with a field out of its bounds: one line, FILE:LINE and the key, exit 2', () => {
  it('each field class', async () => {
    const rows = FIELDS.map(([what, spoil], i) => ({ what, folder: spoilt(`f${i}`, spoil) }));
    // In-process (runCli: the binary's parsing, checks and messages): a table of refusals costs no process each.
    const results = await inBatches(rows, 4, async ({ what, folder }) => ({ what, r: await cliInProcess(['report', folder]) }));
    results.forEach(({ what, r }, i) => {
      const key = FIELDS[i][2];
      assert.equal(r.code, 2, `${what}: ${r.stderr}`);
      assert.equal(r.stderr.split('\n').length, 2, `${what}: one line: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /\n\s+at /, what);
      assert.match(r.stderr, new RegExp(`f${i}/runs\\.jsonl:1: .*\\b${key}\\b`), `${what}: ${r.stderr}`);
    });
  });
});

describe('--resume sets every such record aside, said once, and runs its run again; the folder then reports', () => {
  it('all the field classes at once', async () => {
    const out = at('resumed');
    cpSync(study, out, { recursive: true });
    // Each spoilt copy of record 1 on a line of its own, after the good records 2..4: all are set aside, and run 1 redone once.
    const bad = FIELDS.map(([, spoil]) => {
      const record = JSON.parse(lines[0]) as Json;
      spoil(record);
      return JSON.stringify(record);
    });
    writeFileSync(path.join(out, 'runs.jsonl'), [...lines.slice(1), ...bad].map((l) => `${l}\n`).join(''));
    const r = await resume(out);
    assert.equal(r.code, 0, r.stderr);
    const said = r.stderr.split('\n').filter((l) => /set-aside\.jsonl/.test(l));
    assert.equal(said.length, 1, r.stderr);
    assert.match(
      said[0],
      new RegExp(`^nqueens-islands: ${FIELDS.length} records that do not fit the study moved to .*runs\\.set-aside\\.jsonl \\(line 4`),
    );
    assert.equal(readFileSync(path.join(out, 'runs.set-aside.jsonl'), 'utf8'), bad.map((l) => `${l}\n`).join(''));
    const kept = readFileSync(path.join(out, 'runs.jsonl'), 'utf8').trim().split('\n');
    assert.equal(kept.length, 4, 'the three good records and run 1 again');
    assert.equal((await cliAsync(['report', out])).code, 0);
    const again = await resume(out);
    assert.doesNotMatch(again.stderr, /set-aside/, 'nothing more to set aside');
  });

  it('a line that is not JSON, or not a run record, is set aside too (report refuses it, naming FILE:LINE)', async () => {
    const out = at('garbage');
    cpSync(study, out, { recursive: true });
    writeFileSync(path.join(out, 'runs.jsonl'), [...lines.slice(1), 'not json', '{"cell": 7}'].map((l) => `${l}\n`).join(''));
    const refused = await cliAsync(['report', out]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /garbage\/runs\.jsonl:4: not a JSON line/);
    const r = await resume(out);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /2 records that do not fit the study moved to .*\(line 4: not a JSON line/);
    assert.equal(readFileSync(path.join(out, 'runs.set-aside.jsonl'), 'utf8'), 'not json\n{"cell": 7}\n');
    assert.equal((await cliAsync(['report', out])).code, 0);
  });
});

describe('two different records of one run: report refuses naming both lines; --resume sets both aside and runs it again', () => {
  it('a repeat byte for byte counts once; one that differs is refused, then set aside with its first', async () => {
    const out = at('repeats');
    cpSync(study, out, { recursive: true });
    const runs = path.join(out, 'runs.jsonl');
    writeFileSync(runs, [...lines, lines[1]].map((l) => `${l}\n`).join(''));
    assert.equal((await cliAsync(['report', out])).code, 0, 'a line written twice is one record');
    const other = JSON.parse(lines[0]) as Json;
    other.finishedAt = new Date(Date.parse(other.finishedAt as string) + 1).toISOString();
    writeFileSync(runs, [...lines, JSON.stringify(other)].map((l) => `${l}\n`).join(''));
    const refused = await cliAsync(['report', out]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /repeats\/runs\.jsonl:5: a second record of .* that differs from the first \(.*repeats\/runs\.jsonl:1\)/);
    assert.equal(refused.stderr.split('\n').length, 2, refused.stderr);
    const r = await resume(out);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /2 records that do not fit the study moved to .*\(line 1 .*one of two different records of this run/);
    const kept = readFileSync(runs, 'utf8').trim().split('\n');
    assert.equal(kept.length, 4, 'runs 2..4 and run 1 again');
    assert.equal((await cliAsync(['report', out])).code, 0);
  });
});

describe('--resume refuses a set-aside file that is no regular file, naming it, before anything moves (exit 2)', () => {
  const KINDS: [string, (file: string) => void, RegExp][] = [
    ['a FIFO', (f) => execFileSync('mkfifo', [f]), /is a FIFO \(named pipe\)/],
    ['a folder', (f) => mkdirSync(f), /is a directory/],
    ['a link', (f) => symlinkSync('/etc/passwd', f), /is a symbolic link/],
  ];
  it('a FIFO, a folder, a link', async () => {
    const rows = KINDS.map(([what, make], i) => {
      const out = spoilt(`aside${i}`, (r) => (r.seconds = 1e308));
      make(path.join(out, 'runs.set-aside.jsonl'));
      return { what, out, says: KINDS[i][2] };
    });
    await eachRefusedOnResume(
      rows,
      3,
      ({ says }, i) =>
        new RegExp(
          `^nqueens-islands: .*aside${i}/runs\\.set-aside\\.jsonl: ${says.source}; expected a file of set-aside records, or none; the folder is damaged\\n$`,
        ),
    );
    for (const { what, out } of rows)
      assert.match(readFileSync(path.join(out, 'runs.jsonl'), 'utf8'), /1e\+308/, `${what}: the record stays where it was`);
  });
});

describe('--events: a file, FIFO or link (dangling or not) in place of events/ is refused before any run, naming it (exit 2)', () => {
  const KINDS: [string, (file: string) => void, string][] = [
    ['a file', (f) => writeFileSync(f, 'x'), 'a file'],
    ['a FIFO', (f) => execFileSync('mkfifo', [f]), 'a FIFO \\(named pipe\\)'],
    ['a link to a folder elsewhere', (f) => symlinkSync(dir, f), 'a symbolic link'],
    ['a dangling link', (f) => symlinkSync(path.join(dir, 'nowhere'), f), 'a symbolic link'],
  ];
  it('each kind, on --resume of a study run with --events', async () => {
    const rows = KINDS.map(([what, make, says], i) => {
      const out = at(`events${i}`);
      cpSync(study, out, { recursive: true });
      const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as Json;
      writeFileSync(path.join(out, 'manifest.json'), JSON.stringify({ ...manifest, events: true }));
      writeFileSync(path.join(out, 'runs.jsonl'), `${lines[0]}\n`);
      make(path.join(out, 'events'));
      return { what, out, says };
    });
    await eachRefusedOnResume(
      rows,
      4,
      ({ says }, i) =>
        new RegExp(
          `^nqueens-islands: .*events${i}/events: is ${says}; expected the folder of the study's event logs; the folder is damaged\\n$`,
        ),
    );
    for (const { what, out } of rows)
      assert.equal(readFileSync(path.join(out, 'runs.jsonl'), 'utf8'), `${lines[0]}\n`, `${what}: no run ran`);
  });
});

describe("the manifest's times: a startedAt that is no time or lies in the future is the manifest's damage, not every record's", () => {
  const MANIFESTS: [string, (m: Json) => void, RegExp][] = [
    ['startedAt not a time', (m) => (m.startedAt = 'garbage'), /manifest\.json: startedAt: expected an ISO 8601 UTC time/],
    ['startedAt in the future', (m) => (m.startedAt = '2099-01-01T00:00:00.000Z'), /manifest\.json: startedAt: is in the future/],
    ['a resumedAt not a time', (m) => (m.resumedAt = ['later']), /manifest\.json: resumedAt\[0\]: expected an ISO 8601 UTC time/],
  ];
  it('report and --resume refuse it in one line (exit 2), and --resume moves no record', async () => {
    const rows = MANIFESTS.map(([what, spoil, says], i) => {
      const out = at(`manifest${i}`);
      cpSync(study, out, { recursive: true });
      const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as Json;
      spoil(manifest);
      writeFileSync(path.join(out, 'manifest.json'), JSON.stringify(manifest));
      return { what, out, says };
    });
    const results = await inBatches(rows, 3, async ({ out }) => [await cliAsync(['report', out]), await resume(out)]);
    results.forEach((both, i) => {
      const { what, out, says } = rows[i];
      for (const r of both) {
        assert.equal(r.code, 2, `${what}: ${r.stderr}`);
        assert.match(r.stderr, says, what);
        assert.equal(r.stderr.split('\n').length, 2, what);
      }
      assert.equal(readFileSync(path.join(out, 'runs.jsonl'), 'utf8'), lines.map((l) => `${l}\n`).join(''), `${what}: no record moved`);
    });
  });
});

describe('readRuns reads lines across its 8 MB chunks exactly', () => {
  it('records of 5 and 20 MB (a padding key), then a torn line: each whole, on its line', () => {
    const file = at('long.jsonl');
    const padded = (mb: number) => JSON.stringify({ ...(JSON.parse(lines[0]) as Json), pad: 'x'.repeat(mb << 20) });
    const text = [padded(5), lines[1], padded(20), lines[2], padded(5)].join('\n');
    writeFileSync(file, `${text}\n{"cell":`);
    const read = readRuns(file);
    assert.deepEqual(read.lines, [1, 2, 3, 4, 5]);
    assert.deepEqual(
      read.runs.map((r) => ((r as unknown as Json).pad as string | undefined)?.length ?? 0),
      [5 << 20, 0, 20 << 20, 0, 5 << 20],
    );
    assert.equal(read.droppedBytes, '{"cell":'.length);
  });
});

describe('a last line that is whole JSON but lacks its newline (a write cut right before it) is a record', () => {
  for (const shard of [null, '1/2'] as const) {
    it(shard === null ? 'one process: report counts it, --resume keeps it and finishes the line' : '--shard 1/2 likewise', async () => {
      const out = at(shard === null ? 'nonl' : 'nonl-shard');
      const more = shard === null ? ['--resume'] : ['--shard', shard];
      if (shard !== null) {
        const first = await cliAsync(['experiment', at('st.yaml'), '--out', out, '-q', ...more]);
        assert.equal(first.code, 0, first.stderr);
      } else cpSync(study, out, { recursive: true });
      const runsFile = path.join(out, shard === null ? 'runs.jsonl' : 'runs.shard-1-of-2.jsonl');
      const whole = readFileSync(runsFile, 'utf8');
      writeFileSync(runsFile, whole.slice(0, -1));
      const count = whole.trim().split('\n').length;
      const report = await cliAsync(['report', out, '--json']);
      if (shard === null) {
        assert.equal(report.code, 0, report.stderr);
        assert.doesNotMatch(report.stderr, /half-written|dropped/);
      }
      const r = await cliAsync(['experiment', at('st.yaml'), '--out', out, '-q', '--mixed-builds', ...more]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`\\(0 new\\)`), 'no run redone');
      assert.equal(readFileSync(runsFile, 'utf8'), whole, 'the line finished with its newline, nothing else changed');
      assert.equal(count, whole.split('\n').length - 1);
    });
  }

  it('a torn last line (not whole JSON) is still cut off and its run redone', async () => {
    const out = at('torn');
    cpSync(study, out, { recursive: true });
    const runsFile = path.join(out, 'runs.jsonl');
    writeFileSync(
      runsFile,
      lines
        .map((l) => `${l}\n`)
        .join('')
        .slice(0, -2),
    );
    const r = await resume(out);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\(1 new\)/);
    assert.equal(readFileSync(runsFile, 'utf8').trim().split('\n').length, 4);
  });
});

/** Island groups of very different populations: the budget must pay for the first populations' sum (sync, lagged), equal shares otherwise. */
describe('the budget check with island groups of different populations', () => {
  // 2 islands of population 60 (74 evaluations each in paper mode: M + b) and 2 of 120 (134).
  const GROUPS = '{"big":{"islands":2,"ga":{"populationSize":120}}}';
  const args = (mode: string, budget: number) => [
    'solve',
    '-n',
    '200',
    '--islands',
    '4',
    '--population',
    '60',
    '--island-groups',
    GROUPS,
    '--migration',
    mode,
    '--max-evaluations',
    String(budget),
    '--seed',
    '1',
    '--json',
  ];
  const ROWS: [string, number, string | null][] = [
    ['sync', 416, null],
    ['lagged', 416, null],
    ['sync', 415, 'their sum, 2 islands × 134 \\+ 2 islands × 74 evaluations; expected at least 416'],
    ['async', 536, null],
    ['async', 535, '4 islands × 134 evaluations each \\(migration mode async split the budget in equal shares.*expected at least 536'],
  ];
  it('the CLI: accepted when the first populations fit (and the run keeps the budget), else one line naming --max-evaluations', async () => {
    const results = await inBatches(ROWS, 3, ([mode, budget]) => cliAsync(args(mode, budget)));
    results.forEach((r, i) => {
      const [mode, budget, refusal] = ROWS[i];
      if (refusal === null) {
        assert.equal(r.code, 1, `${mode} ${budget}: ${r.stderr}`);
        const record = JSON.parse(r.stdout) as { ended: string; evaluations: number };
        assert.equal(record.ended, 'max-evaluations');
        assert.ok(record.evaluations <= budget, `${record.evaluations} of ${budget}`);
      } else {
        assert.equal(r.code, 2, r.stderr);
        assert.match(
          r.stderr,
          new RegExp(`^nqueens-islands: --max-evaluations: ${budget} does not pay for the first populations: ${refusal}\\n$`),
        );
      }
    });
  });

  it('islands on other machines (--nats, or cluster: in the config) share the ledger too: the sum, refused before any connect', async () => {
    const config = at('spread.yaml');
    writeFileSync(
      config,
      'n: 200\nislands: 4\nga: { populationSize: 60 }\nmigration: { mode: sync }\nlimits: { maxEvaluations: 415 }\nislandGroups: { big: { islands: 2, ga: { populationSize: 120 } } }\ncluster: { nats: "nats://127.0.0.1:1", hosts: 1, wait: 1 }\n',
    );
    const flags = args('sync', 415).concat(['--nats', 'nats://127.0.0.1:1', '--hosts', '1', '--wait', '1']);
    for (const r of await Promise.all([cliAsync(['solve', '-c', config]), cliAsync(flags)])) {
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /415 does not pay for the first populations: their sum, 2 islands × 134 \+ 2 islands × 74 evaluations; expected at least 416\n$/,
      );
    }
  });

  it('the library: one group of 2000 beside three of 60 runs on 2236 (sum), not 4 × 2014', async () => {
    const config = {
      n: 200,
      islands: 4,
      seed: 1,
      ga: { populationSize: 60 },
      migration: { mode: 'sync' as const },
      islandGroups: { big: { islands: [0], ga: { populationSize: 2000 } } },
    };
    const record = await solve({ ...config, limits: { maxEvaluations: 2300 } });
    assert.ok(record.evaluations <= 2300 && record.evaluations >= 2236, `${record.evaluations}`);
    assert.throws(
      () => resolveRunConfig({ ...config, limits: { maxEvaluations: 2235 } }, 'run.yaml'),
      (e: unknown) =>
        e instanceof ConfigError &&
        /^run\.yaml: limits\.maxEvaluations: 2235 .*their sum, 1 island × 2014 \+ 3 islands × 74 evaluations; expected at least 2236$/.test(
          e.message,
        ),
    );
  });

  it('memory: each island at its own population, summed (not every island at the largest)', () => {
    // Paper mode at N = 10^5: three islands of 40 and one of 2000 need about 2.6 GB; four of 2000 about 7.8 GB.
    const base = {
      n: 100_000,
      islands: 4,
      ga: { populationSize: 40 },
      migration: { mode: 'sync' as const },
      limits: { maxIterations: 10 },
    };
    const grouped = { ...base, islandGroups: { big: { islands: [3], ga: { populationSize: 2000 } } } };
    const env = (gb: number) => ({ availableParallelism: 4, totalMemory: gb * 1e9 });
    assert.equal(resolveRunConfig(grouped, 'run.yaml', {}, env(4)).islands, 4);
    assert.throws(() => resolveRunConfig({ ...base, ga: { populationSize: 2000 } }, 'run.yaml', {}, env(4)), /needs about 7\.8 GB/);
    assert.throws(
      () => resolveRunConfig(grouped, 'run.yaml', {}, env(2)),
      (e: unknown) =>
        e instanceof ConfigError &&
        /^run\.yaml: islandGroups\.big\.ga\.populationSize: .*needs about 2\.6 GB for 4 islands/.test(e.message),
    );
  });
});
