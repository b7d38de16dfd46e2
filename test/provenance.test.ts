import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../src/config/errors.ts';
import { toFileShape } from '../src/config/file-shape.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { readManifest, readRuns } from '../src/experiment/store.ts';
import { runStudy } from '../src/experiment/runner.ts';
import { solve } from '../src/index.ts';
import { canonicalJson, configHash, type Provenance } from '../src/provenance.ts';
import { checkpointContents, checkpointFile, readCheckpoint, writeCheckpoint } from '../src/run/checkpoint.ts';
import { recordedConfig } from '../src/run/result-record.ts';
import { cli, isOneLineError, ROOT } from './cli-helpers.ts';
import { COMPILED } from './paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-provenance-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { availableParallelism: 2, totalMemory: 8e9 };

/** The commit the package's work tree is at, when it is a git checkout (CI's fresh clone is). */
function headCommit(): string | null {
  const r = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Every machine field, as this process sees the machine; `fromBuild`: the commit is the build's. */
function assertMachine(p: Provenance | Omit<Provenance, 'configHash'>, what: string, fromBuild: boolean): void {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  assert.deepEqual([p.tool, p.version], [pkg.name, pkg.version], what);
  if (fromBuild) {
    const head = headCommit();
    // The build was made from this checkout (npm test builds first); without git the commit is unknown.
    if (head !== null) assert.equal(p.commit, head, `${what}: the build's commit`);
    assert.equal(typeof p.dirty, p.commit === 'unknown' ? 'object' : 'boolean', what);
  } else {
    // In-process code run from source (tsx): no build made this code.
    assert.deepEqual([p.commit, p.dirty], ['unknown', null], what);
  }
  assert.equal(p.node, process.version, what);
  assert.deepEqual(Object.keys(p.os).sort(), ['arch', 'platform', 'release'], what);
  assert.equal(p.os.platform, process.platform, what);
  assert.equal(p.os.arch, process.arch, what);
  assert.ok(typeof p.cpu.model === 'string' && p.cpu.model.length > 0, what);
  assert.equal(p.cpu.cores, availableParallelism(), what);
}

describe('config hash', () => {
  it('is the sha256 of the canonical JSON: key order does not matter, where the result goes does not count, everything else does', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } }), '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    const config = toFileShape({ ...resolveRunConfig({ n: 12, islands: 2 }, 'test', {}, env), seed: 4 });
    const reordered = Object.fromEntries(Object.entries(config).reverse());
    assert.equal(configHash(reordered), configHash(config));
    assert.equal(configHash({ ...config, output: { file: 'x.json' } }), configHash(config));
    assert.notEqual(configHash({ ...config, seed: 5 }), configHash(config));
    assert.notEqual(configHash({ ...config, migration: { ...config.migration, interval: 2 } }), configHash(config));
    assert.match(configHash(config), /^[0-9a-f]{64}$/);
  });
});

describe('provenance in every output', () => {
  it('solve --json, the --out record and the trace header (the CLI from the build) carry it, with the hash of the config they hold', () => {
    const out = path.join(dir, 'result.json');
    const trace = path.join(dir, 'run.trace.jsonl');
    const r = cli(['solve', '-n', '10', '--seed', '3', '--islands', '2', '--json', '--out', out, '--trace', trace]);
    assert.equal(r.code, 0, r.stderr);
    const printed = JSON.parse(r.stdout) as { provenance: Provenance; config: unknown };
    const saved = JSON.parse(readFileSync(out, 'utf8')) as { provenance: Provenance; config: unknown };
    const header = JSON.parse(readFileSync(trace, 'utf8').split('\n')[0]) as { provenance: Provenance; config: unknown };
    for (const [what, output] of [
      ['solve --json', printed],
      ['--out', saved],
      ['trace', header],
    ] as const) {
      assertMachine(output.provenance, what, true);
      assert.equal(output.provenance.configHash, configHash(output.config), what);
    }
    assert.equal(saved.provenance.configHash, printed.provenance.configHash);
    assert.equal(header.provenance.configHash, printed.provenance.configHash, 'the trace is of the same config');
  });

  it('a checkpoint file carries it, and it reads back', () => {
    const config = { ...resolveRunConfig({ n: 12, islands: 2 }, 'test', {}, env), seed: 9 };
    const file = path.join(dir, 'run.ckpt');
    writeCheckpoint(file, checkpointFile({ type: 'checkpoint', mode: 'async', epoch: null, islands: [], between: [], seconds: 1 }, config));
    const raw = checkpointContents(readFileSync(file)) as { provenance: Provenance };
    assertMachine(raw.provenance, 'checkpoint', COMPILED);
    assert.equal(raw.provenance.configHash, configHash(recordedConfig(config)));
    assert.deepEqual(readCheckpoint(file).provenance, raw.provenance);
  });

  it('a study: the manifest says what started it, each runs.jsonl record what made it, with the hash solve prints for the same config and seed', async () => {
    const file = path.join(dir, 'study.yaml');
    writeFileSync(file, 'base: { overrides: { n: 1, islands: 1 } }\nsweep:\n  migration.interval: [1, 2]\nrepeats: 2\nseed: 5\n');
    const experiment = loadExperiment(file, env);
    const out = path.join(dir, 'study-out');
    await runStudy(experiment, { outDir: out, resume: false, events: false });
    const manifest = readManifest(path.join(out, 'manifest.json'));
    assertMachine(manifest.provenance!, 'manifest', COMPILED);
    assert.deepEqual(manifest.experiment.inputs, [{ file, sha256: experiment.sha256 }]);
    assert.equal(manifest.experiment.studySha256, experiment.studySha256);
    const { runs } = readRuns(path.join(out, 'runs.jsonl'));
    assert.equal(runs.length, 4);
    for (const run of runs) {
      const cell = experiment.cells.find((c) => c.id === run.cell)!;
      assertMachine(run.provenance!, `record ${run.cell}@${run.seed}`, COMPILED);
      const solved = await solve({ ...toFileShape(cell.config), seed: run.seed });
      assert.equal(run.provenance!.configHash, solved.provenance.configHash, `record ${run.cell}@${run.seed}`);
    }
    assert.notEqual(runs[0].provenance!.configHash, runs[1].provenance!.configHash, 'cells differ');
  });
});

describe('experiment --resume refuses another study, saying which part differs', () => {
  const base = path.join(dir, 'base.yaml');
  const file = path.join(dir, 'resumable.yaml');
  writeFileSync(base, 'n: 1\nislands: null\n');
  writeFileSync(file, 'base: base.yaml\nsweep:\n  migration.interval: [1, 2]\nrepeats: 2\n');

  async function study(name: string): Promise<string> {
    const out = path.join(dir, name);
    await runStudy(loadExperiment(file, env), { outDir: out, resume: false, events: false });
    return out;
  }

  it('the study hash covers the base file', async () => {
    const experiment = loadExperiment(file, env);
    assert.deepEqual(
      experiment.inputs.map((i) => i.file),
      [file, 'base.yaml'],
    );
    const out = await study('base-changed');
    writeFileSync(base, 'n: 1\nislands: null\n# edited\n');
    try {
      await assert.rejects(
        runStudy(loadExperiment(file, env), { outDir: out, resume: true, events: false }),
        (e: unknown) => e instanceof ConfigError && /made from other files \(study sha256 .*: base\.yaml differs\)/.test(e.message),
      );
    } finally {
      writeFileSync(base, 'n: 1\nislands: null\n');
    }
  });

  it('a cell that now resolves to another config (here: islands null on a machine with other cores)', async () => {
    const out = await study('cores-changed');
    await assert.rejects(
      runStudy(loadExperiment(file, { ...env, availableParallelism: 3 }), { outDir: out, resume: true, events: false }),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message.endsWith(
          "cell migration.interval=1 now resolves islands to 3 instead of 2 (a changed default, or this machine's core count when islands is null); choose another --out",
        ),
    );
  });

  it('another version (the CLI: one line, exit 2)', async () => {
    const out = await study('version-changed');
    const manifestFile = path.join(out, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    manifest.tool.version = '0.0.1';
    manifest.provenance.version = '0.0.1';
    writeFileSync(manifestFile, JSON.stringify(manifest));
    assert.ok(existsSync(manifestFile));
    const r = cli(['experiment', file, '--out', out, '--resume']);
    assert.ok(isOneLineError(r), r.stderr);
    assert.match(
      r.stderr,
      /the study in this folder was made by nqueens-islands 0\.0\.1, this is \S+; resume it with 0\.0\.1 or choose another --out/,
    );
  });
});
