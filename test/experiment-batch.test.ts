/**
 * A study as a batch job runs it: progress lines in a log file (stderr no terminal) and the
 * study lock under five processes at once, through the built CLI; `--resume` refusing another
 * build unless --mixed-builds (recorded in the manifest) and the manifest's configs, in this
 * process (`runCli`: its build is "an unknown commit", which the cases edit away from); the
 * plain progress line's parts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { duration, plainProgress, progressBar, progressInterval, PROGRESS_LINE_MS } from '../src/experiment/progress.ts';
import { CLI, cliAsync, cliInProcess, isOneLineError, ROOT } from './cli-helpers.ts';

let dir: string;
let study: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'nqi-batch-'));
  study = path.join(dir, 'study.yaml');
  writeFileSync(study, 'base: { overrides: { islands: 2, ga: { populationSize: 30 } } }\nsweep:\n  n: [8, 10]\nrepeats: 2\nseed: 5\n');
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI with stderr into a file, as a batch system's log: returns that file's text. */
function withLogFile(args: string[], env: NodeJS.ProcessEnv): { code: number | null; log: string } {
  const log = path.join(dir, `log-${Math.random().toString(16).slice(2)}.txt`);
  const fd = openSync(log, 'w');
  try {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', fd] });
    return { code: r.status, log: readFileSync(log, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

describe('progress when stderr is a file', () => {
  it('prints a plain line per interval (here shortened to every run), silenced by -q', () => {
    const out = path.join(dir, 'progress');
    // The test's interval: 0 ms, so a line is due at each run's end (no waiting, no sleeps).
    const { code, log } = withLogFile(['experiment', study, '--out', out], { NQI_TEST_PROGRESS_MS: '0' });
    assert.equal(code, 0, log);
    const lines = log.split('\n').filter((l) => / runs \d+\/4/.test(l));
    assert.equal(lines.length, 4, log);
    lines.forEach((line, i) => assert.match(line, new RegExp(`^nqueens-islands: \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z runs ${i + 1}/4`)));
    assert.match(lines[0], /, on n=\d+ seed \d; about \d+s left$/);
    assert.match(lines[3], /runs 4\/4; done$/);
    assert.ok(!log.includes('\u001b['), 'no cursor movement');
    const quiet = withLogFile(['experiment', study, '--out', path.join(dir, 'quiet'), '-q'], { NQI_TEST_PROGRESS_MS: '0' });
    assert.equal(quiet.code, 0, quiet.log);
    assert.doesNotMatch(quiet.log, / runs \d+\/4/);
  });

  it('the test variable can only shorten the interval', () => {
    assert.equal(progressInterval({}), PROGRESS_LINE_MS);
    assert.equal(progressInterval({ NQI_TEST_PROGRESS_MS: '50' }), 50);
    assert.equal(progressInterval({ NQI_TEST_PROGRESS_MS: '3600000' }), PROGRESS_LINE_MS);
    assert.equal(progressInterval({ NQI_TEST_PROGRESS_MS: '-1' }), PROGRESS_LINE_MS);
    assert.equal(progressInterval({ NQI_TEST_PROGRESS_MS: 'never' }), PROGRESS_LINE_MS);
  });

  it('estimates the time left from the runs done in this invocation', () => {
    let clock = 1_000_000;
    const text: string[] = [];
    const stream = { write: (chunk: string) => text.push(chunk) } as unknown as NodeJS.WritableStream;
    const progress = plainProgress(stream, 0, () => clock);
    const cell = { id: 'n=8', values: {}, baseline: null } as never;
    progress.hooks.onPlan!(10, 4);
    progress.hooks.onRunStart!({ cell, seed: 1 }, 4);
    clock += 30_000;
    progress.hooks.onRunEnd!({} as never, 4);
    progress.hooks.onRunStart!({ cell, seed: 2 }, 5);
    clock += 90_000;
    progress.hooks.onRunEnd!({} as never, 5);
    progress.stop();
    // 2 runs in 120 s, 4 left: 240 s. Runs done before this invocation do not count.
    assert.match(text[0], /runs 5\/10, on n=8 seed 1; about 2m30s left/);
    assert.match(text[1], /runs 6\/10, on n=8 seed 2; about 4m00s left/);
    assert.deepEqual([duration(35), duration(3725), duration(59.6)], ['35s', '1h02m', '1m00s']);
  });
});

describe('progress on a terminal', () => {
  // A terminal that takes cursor movement, whatever TERM the tests run under.
  const term = process.env.TERM;
  before(() => void (process.env.TERM = 'xterm-256color'));
  after(() => void (term === undefined ? delete process.env.TERM : (process.env.TERM = term)));
  it('redraws one bar line in place: left to right, no NaN, the time left from this invocation, notes above it', () => {
    let clock = 1_000_000;
    let text = '';
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 100 }) as unknown as NodeJS.WriteStream;
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const progress = progressBar(stream, false, () => clock);
    const cell = { id: 'n=8', values: {}, baseline: null } as never;
    progress.hooks.onPlan!(10, 4);
    assert.match(text, /runs 4\/10 \|█{16}░{24}\| 40% \| ETA … \| $/m, 'before a run of this invocation ends: no rate, no NaN');
    progress.hooks.onRunStart!({ cell, seed: 1 }, 4);
    clock += 30_000;
    progress.hooks.onRunEnd!({} as never, 4);
    progress.log('a note');
    progress.stop();
    // 1 run in 30 s, 5 left: 2m30s; the note on its own line, the bar drawn again after it.
    const end = text.slice(text.lastIndexOf('a note'));
    assert.match(end, /^a note\n/);
    assert.match(end, /runs 5\/10 \|█{20}░{20}\| 50% \| ETA 2m30s \| n=8 seed 1/);
    assert.ok(text.includes('\u001b['), 'the bar is redrawn with cursor movement');
    assert.doesNotMatch(text, /NaN|Infinity|NFs/);
  });

  it('keeps the line one column short of a narrow terminal', () => {
    let text = '';
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 30 }) as unknown as NodeJS.WriteStream;
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const progress = progressBar(stream, false, () => 0);
    progress.hooks.onPlan!(3, 0);
    progress.stop();
    const escape = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');
    const lines = text
      .replace(escape, '')
      .split('\n')
      .filter((l) => l.length > 0);
    assert.ok(lines.length > 0 && lines.every((l) => [...l].length <= 29), JSON.stringify(lines));
  });
});

describe('--resume enforces the build', () => {
  /** A copy of one study made by this build (made once: each case edits its own copy). */
  async function editedStudy(
    name: string,
    edit: (provenance: Record<string, unknown>, manifest: Record<string, unknown>) => void,
  ): Promise<{ out: string; manifest: string }> {
    const made = path.join(dir, 'made-by-this-build');
    if (!existsSync(made)) {
      const run = await cliInProcess(['experiment', study, '--out', made, '-q']);
      assert.equal(run.code, 0, run.stderr);
    }
    const out = path.join(dir, name);
    cpSync(made, out, { recursive: true });
    const manifest = path.join(out, 'manifest.json');
    const json = JSON.parse(readFileSync(manifest, 'utf8'));
    edit(json.provenance, json);
    writeFileSync(manifest, JSON.stringify(json));
    return { out, manifest };
  }

  for (const [what, edit, message] of [
    [
      'another commit',
      (p: Record<string, unknown>, _m: Record<string, unknown>) => (p.commit = 'f'.repeat(40)),
      /the study was made at commit ffffffffffff, this build is (commit [0-9a-f]{12}|an unknown commit)/,
    ],
    [
      'a dirty build',
      (p: Record<string, unknown>, m: Record<string, unknown>) => ((p.dirty = true), (m.buildStamp = '2000-01-01T00:00:00.000Z')),
      /the study was made by a build with uncommitted changes \(built 2000-01-01T00:00:00\.000Z\), this is another build/,
    ],
    [
      'another Node version',
      (p: Record<string, unknown>, _m: Record<string, unknown>) => (p.node = 'v18.0.0'),
      new RegExp(`the study ran on Node v18\\.0\\.0, this is ${process.version}`),
    ],
  ] as const) {
    it(`refuses ${what} in one line; --mixed-builds accepts it and the manifest records the mix`, async () => {
      const { out, manifest } = await editedStudy(what.replace(/ /g, '-'), edit);
      const refused = await cliInProcess(['experiment', study, '--out', out, '--resume']);
      assert.ok(isOneLineError(refused), refused.stderr);
      assert.match(refused.stderr, message);
      assert.match(refused.stderr, /add --mixed-builds to mix them knowingly/);
      const mixed = await cliInProcess(['experiment', study, '--out', out, '--resume', '--mixed-builds', '-q']);
      assert.equal(mixed.code, 0, mixed.stderr);
      const saved = JSON.parse(readFileSync(manifest, 'utf8'));
      assert.equal(saved.mixedBuilds.length, 1);
      assert.match(saved.mixedBuilds[0].differs, message);
      assert.equal(saved.mixedBuilds[0].provenance.node, process.version);
    });
  }
});

describe("the manifest's resolved configs", () => {
  it('are accepted by `solve --config` and, with a run seed, give its record the same configHash', async () => {
    const out = path.join(dir, 'configs');
    // Policies other than the defaults, so their form in the manifest matters.
    const file = path.join(dir, 'policies.yaml');
    writeFileSync(
      file,
      'base: { overrides: { islands: 2, ga: { populationSize: 30 }, migration: { emigrantSelection: "tournament(3)", replacement: random-if-better } } }\nsweep:\n  n: [8, 9]\nrepeats: 2\nseed: 11\n',
    );
    const made = await cliInProcess(['experiment', file, '--out', out, '-q']);
    assert.equal(made.code, 0, made.stderr);
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    const runs = readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(runs.length, 4);
    for (const run of runs) {
      const cell = manifest.cells.find((c: { id: string }) => c.id === run.cell);
      const config = path.join(dir, `config-${run.seed}-${cell.config.n}.json`);
      writeFileSync(config, JSON.stringify({ ...cell.config, seed: run.seed }));
      const solved = await cliInProcess(['solve', '--config', config, '--json']);
      assert.equal(solved.code, 0, solved.stderr);
      const result = JSON.parse(solved.stdout);
      assert.equal(result.provenance.configHash, run.provenance.configHash, `${run.cell} seed ${run.seed}`);
      assert.equal(result.evaluations, run.evaluations);
    }
  });
});

describe('the study lock appears whole', () => {
  it('five `experiment --resume` at once on a new folder, three times: each runs or names the holder, never an unreadable lock', async () => {
    for (const round of [1, 2, 3]) {
      const out = path.join(dir, `lock-${round}`);
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => cliAsync(['experiment', study, '--out', out, '--resume', '-q'])));
      for (const r of results) {
        assert.ok(r.code === 0 || isOneLineError(r), `${r.code} ${r.stderr}`);
        if (r.code === 2) assert.match(r.stderr, /the study is in use by process \d+ on /);
        assert.doesNotMatch(r.stderr, /unreadable lock/);
      }
      const keys = readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { cell: string; seed: number })
        .map((r) => `${r.cell}@${r.seed}`);
      assert.equal(new Set(keys).size, keys.length);
    }
  });
});
