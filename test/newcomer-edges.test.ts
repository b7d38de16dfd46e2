/**
 * A newcomer's last rough edges (issue 49): completion of flag values (from the registries,
 * nothing for free numbers, never an error in the prompt), `completion --help`, and a build
 * that is not "dirty" for the outputs the README's commands write (so a study made before
 * still resumes).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import YAML from 'yaml';
import { z } from 'zod';
import { REGISTRIES } from '../src/config/registries.ts';
import type { RunConfigInput } from '../src/index.ts';
import { policyNames } from '../src/migration-policy/names.ts';
import { CLI, cliInProcess, ROOT } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-edges-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** What the completion script gets back for `nqueens-islands WORDS...` (the last word being completed). */
async function complete(...words: string[]): Promise<{ words: string[]; stderr: string; code: number | null }> {
  const r = await cliInProcess(['--get-yargs-completions', 'nqueens-islands', ...words]);
  return { words: r.stdout.split('\n').filter((w) => w !== ''), stderr: r.stderr, code: r.code };
}

describe('completion', () => {
  it('offers `ring` after `--topology r`, with no error in the prompt', async () => {
    const r = await complete('solve', '--topology', 'r');
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '');
    assert.ok(r.words.includes('ring'), r.words.join(' '));
    assert.ok(
      r.words.every((w) => w.startsWith('r')),
      r.words.join(' '),
    );
  });

  it('offers every value of each enum-like flag, from the registries', async () => {
    const expected: [string, string[]][] = [
      ['--mode', REGISTRIES.gaModes.map((d) => d.kind)],
      ['--topology', REGISTRIES.topologies.map((d) => d.kind)],
      ['--migration', REGISTRIES.migrationModes.map((d) => d.kind)],
      ['--emigrant-selection', policyNames(REGISTRIES.emigrantSelections)],
      ['--replacement', policyNames(REGISTRIES.replacements)],
      ['--on-island-error', ['continue', 'fail']],
    ];
    for (const [flag, values] of expected) {
      const r = await complete('solve', flag, '');
      assert.equal(r.stderr, '', flag);
      assert.deepEqual(r.words, values, flag);
    }
    assert.deepEqual((await complete('experiment', 'study.yaml', '--shard', '')).words, ['auto']);
  });

  it('offers nothing for a free number or a file, and no error (the shell completes file names then)', async () => {
    for (const words of [
      ['solve', '-n', ''],
      ['solve', '--seed', '1'],
      ['solve', '--interval', ''],
      ['solve', '--out', ''],
      ['report', '--html', ''],
    ]) {
      const r = await complete(...words);
      assert.equal(r.code, 0, words.join(' '));
      assert.deepEqual(r.words, [], words.join(' '));
      assert.equal(r.stderr, '', words.join(' '));
    }
  });

  it('still completes flag names and commands', async () => {
    assert.ok((await complete('solve', '--topo')).words.includes('--topology'));
    assert.ok((await complete('')).words.includes('experiment'));
    const afterBoolean = await complete('solve', '--json', '');
    assert.equal(afterBoolean.stderr, '');
    assert.ok(afterBoolean.words.includes('--seed'));
  });

  it('`completion --help` is help, not the script', async () => {
    const r = await cliInProcess(['completion', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^nqueens-islands completion\n/);
    assert.match(r.stdout, /source it from ~\/\.bashrc or ~\/\.zshrc/);
    assert.doesNotMatch(r.stdout, /###-begin-nqueens-islands-completions-###/);
  });
});

describe('the build is "dirty" when tracked files changed, not for outputs', () => {
  /** A repository holding what scripts/build-info.mjs needs; its dist/build-info.json after a "build". */
  const repo = path.join(dir, 'clone');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const buildInfo = () => {
    execFileSync(process.execPath, [path.join(repo, 'scripts', 'build-info.mjs')], { cwd: repo });
    return JSON.parse(readFileSync(path.join(repo, 'dist', 'build-info.json'), 'utf8')) as { commit: string; dirty: boolean };
  };

  it("the README's commands' outputs (and an untracked results folder) leave the build clean: a study made before resumes", () => {
    mkdirSync(path.join(repo, 'scripts'), { recursive: true });
    for (const file of ['scripts/build-info.mjs', '.gitignore', 'README.md']) copyFileSync(path.join(ROOT, file), path.join(repo, file));
    git('init', '-q');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'clone');
    const before = buildInfo();
    assert.equal(before.dirty, false);
    // Every file a README command writes, where it writes it (relative ones inside the clone).
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const outputs = [...readme.matchAll(/^npx nqueens-islands .*$/gm)].flatMap((m) =>
      [...m[0].matchAll(/--(?:out|html|csv|trace|checkpoint) (\S+)/g)].map((o) => o[1]),
    );
    assert.ok(outputs.length >= 4, outputs.join(' '));
    const inClone = outputs.filter((o) => !path.isAbsolute(o));
    for (const output of inClone) {
      // A study's --out is a folder (the report's files go inside it); the others are files.
      if (inClone.some((other) => other.startsWith(`${output}/`))) mkdirSync(path.join(repo, output), { recursive: true });
      else {
        mkdirSync(path.dirname(path.join(repo, output)), { recursive: true });
        writeFileSync(path.join(repo, output), 'an output\n');
      }
    }
    writeFileSync(path.join(repo, 'notes.txt'), 'an untracked file of the user\n');
    // The same build stamp: a study's manifest made by the first build matches the second (`--resume` is accepted).
    assert.deepEqual(buildInfo(), before);
    // The README's relative outputs all land in ignored folders; the others outside the clone.
    for (const output of inClone) assert.equal(git('check-ignore', output).trim(), output);
    writeFileSync(path.join(repo, 'README.md'), `${readme}\nchanged\n`);
    assert.equal(buildInfo().dirty, true, 'a tracked file changed is dirty');
  });
});

describe('wrong-kind files and words are named', () => {
  it('a run config given to experiment, and a study given to solve -c, each say which it is and the command to use', async () => {
    const asStudy = await cliInProcess(['experiment', 'config/default.yaml', '--out', path.join(dir, 'never')]);
    assert.equal(asStudy.code, 2);
    assert.equal(asStudy.stderr, 'nqueens-islands: config/default.yaml is a run config, not a study: use `solve -c config/default.yaml`\n');
    const asConfig = await cliInProcess(['solve', '-c', 'config/experiments/islands.yaml']);
    assert.equal(asConfig.code, 2);
    assert.equal(
      asConfig.stderr,
      'nqueens-islands: config/experiments/islands.yaml is a study (an experiment file: sweep, repeats, ...), not a run config: use `experiment config/experiments/islands.yaml`\n',
    );
  });

  it("`solve 8` suggests -n 8; `report FILE.jsonl` suggests --run; a study's own file suggests its folder", async () => {
    assert.match((await cliInProcess(['solve', '8'])).stderr, /^nqueens-islands: Unknown argument: 8; did you mean -n 8\?\n$/);
    const trace = path.join(dir, 'trace.jsonl');
    writeFileSync(trace, '{}\n');
    const r = await cliInProcess(['report', trace]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /trace\.jsonl: is a file, not a study folder; .* is reported with: nqueens-islands report --run .*trace\.jsonl\n$/,
    );
    const runs = path.join(dir, 'study', 'runs.jsonl');
    mkdirSync(path.dirname(runs));
    writeFileSync(runs, '');
    assert.match(
      (await cliInProcess(['report', runs])).stderr,
      /is a file of a study folder; report the folder: nqueens-islands report .*study\n$/,
    );
  });

  it('report -q prints the summary and no notes', async () => {
    const study = path.join(dir, 'q.yaml');
    writeFileSync(study, 'base: { overrides: { n: 8, islands: 1 } }\nsweep:\n  n: [8, 9]\nrepeats: 1\n');
    const out = path.join(dir, 'q');
    assert.equal((await cliInProcess(['experiment', study, '--out', out, '-q'])).code, 0);
    const csv = path.join(dir, 'q.csv');
    const loud = await cliInProcess(['report', out, '--csv', csv]);
    assert.match(loud.stderr, /wrote .*q\.csv/);
    const quiet = await cliInProcess(['report', out, '--csv', csv, '-q']);
    assert.equal(quiet.code, 0);
    assert.equal(quiet.stderr, '');
    assert.equal(quiet.stdout, loud.stdout);
  });
});

describe('progress lines', () => {
  it("give the current rate over the last interval and, after a resume, this sitting's evaluations", async () => {
    const { progressLine } = await import('../src/cli/progress-lines.ts');
    const sample = (island: number, evaluations: number) =>
      [island, { type: 'progress', island, iteration: 10, bestFitness: 3, evaluations }] as const;
    const latest = new Map([sample(0, 3_000_000), sample(1, 3_000_000)]) as unknown as Parameters<typeof progressLine>[0];
    // 4M of the 6M came from the checkpoint; 1M of the other 2M were made in the last 5 s.
    const line = progressLine(latest, { seconds: 20, startEvaluations: 4_000_000, previous: { seconds: 15, evaluations: 5_000_000 } });
    assert.equal(
      line,
      'progress: 20.0 s, iteration 10, best 3, 6.00M evaluations (2.00M this sitting), 0.20M evaluations/s over the last 5.0 s',
    );
  });

  it("a long paper-mode solve gets the model's estimate, said to be one; a short one or hybrid none", async () => {
    const { solveEstimate, paperSeconds } = await import('../src/config/run-time.ts');
    const paper = { n: 2000, ga: { mode: 'paper' as const } };
    assert.match(
      solveEstimate(paper, 2, 10)!,
      /^estimate: a whole paper-mode solve at N = 2000 takes about \d+ seconds on 2 cores \(the large-N model .*an estimate, not a promise/,
    );
    assert.ok(paperSeconds(2000, 2) >= 10);
    assert.equal(solveEstimate({ n: 200, ga: { mode: 'paper' as const } }, 2, 10), null);
    assert.equal(solveEstimate({ n: 100_000, ga: { mode: 'hybrid' as const } }, 2, 10), null);
  });

  it('the built CLI prints the estimate once, after the first line, in a log file', () => {
    const log = path.join(dir, 'estimate.log');
    // Unsolved at its iteration limit: exit 1, which is not what this test is about.
    spawnSync(
      'sh',
      ['-c', `"${process.execPath}" "${CLI}" solve -n 1500 --islands 2 --seed 1 --max-iterations 30 2> "${log}" >/dev/null`],
      {
        env: { ...process.env, NQUEENS_ISLANDS_PROGRESS_MS: '20' },
      },
    );
    const lines = readFileSync(log, 'utf8').split('\n');
    const first = lines.findIndex((l) => l.includes('progress: '));
    assert.ok(first >= 0, lines.join('\n'));
    assert.equal(lines.filter((l) => l.includes('estimate: ')).length, 1, lines.join('\n'));
    assert.match(lines[first + 1], /^nqueens-islands: estimate: a whole paper-mode solve at N = 1500/);
  });
});

describe('JSON Schemas for editors: run configs and study files', () => {
  /** Shipped files of a kind, under config/ (YAML or JSON, not the schemas). */
  const shipped = (folder: string, skip: string[] = []): string[] => {
    const files: string[] = [];
    const walk = (at: string) => {
      for (const entry of readdirSync(at)) {
        const p = path.join(at, entry);
        if (statSync(p).isDirectory()) {
          if (!skip.includes(entry)) walk(p);
        } else if (/\.(ya?ml|json)$/.test(entry) && !entry.endsWith('.schema.json')) files.push(p);
      }
    };
    walk(path.join(ROOT, 'config', folder));
    return files;
  };
  /** A validator made from the committed JSON Schema itself (zod reads JSON Schema), not from the zod schema it was made from. */
  const validator = (file: string) => z.fromJSONSchema(JSON.parse(readFileSync(path.join(ROOT, 'config', file), 'utf8')));

  it('config/run-config.schema.json accepts every shipped run config, config/default.yaml (no n) included', () => {
    const schema = validator('run-config.schema.json');
    const files = shipped('', ['experiments', 'hpc']);
    assert.ok(files.some((f) => f.endsWith('default.yaml')) && files.length >= 11, files.join(' '));
    for (const file of files) {
      const r = schema.safeParse(YAML.parse(readFileSync(file, 'utf8')));
      assert.ok(r.success, `${file}: ${JSON.stringify(r.error?.issues)}`);
    }
    assert.equal(schema.safeParse({ n: 8, migration: { mode: 'synch' } }).success, false);
  });

  it('config/experiment.schema.json (`config schema --study`) accepts every shipped study and is current', async () => {
    const schema = validator('experiment.schema.json');
    // config/experiments holds studies and the run configs some of them start from (base.yaml).
    const parsed = shipped('experiments', ['results']).map((file) => ({ file, value: YAML.parse(readFileSync(file, 'utf8')) as object }));
    const isStudy = (value: object) => ['sweep', 'base', 'repeats', 'seeds'].some((key) => key in value);
    assert.ok(parsed.filter((p) => isStudy(p.value)).length >= 10);
    const runConfig = validator('run-config.schema.json');
    for (const { file, value } of parsed) {
      const r = (isStudy(value) ? schema : runConfig).safeParse(value);
      assert.ok(r.success, `${file}: ${JSON.stringify(r.error?.issues)}`);
    }
    assert.equal(schema.safeParse({ sweep: { n: [] } }).success, false, 'an empty value list');
    assert.equal(schema.safeParse({ sweeps: { n: [8] } }).success, false, 'an unknown key');
    const printed = await cliInProcess(['config', 'schema', '--study']);
    assert.equal(printed.code, 0);
    assert.deepEqual(
      JSON.parse(printed.stdout),
      JSON.parse(readFileSync(path.join(ROOT, 'config', 'experiment.schema.json'), 'utf8')),
      'regenerate it: config schema --study > config/experiment.schema.json',
    );
  });

  it('migration.mode is a literal type in the library, as ga modes, topologies and policies are', () => {
    // @ts-expect-error a misspelt migration mode is a type error (the build fails if it is not)
    const typo: RunConfigInput = { n: 8, migration: { mode: 'synch' } };
    const fine: RunConfigInput = { n: 8, migration: { mode: 'lagged', lag: 2 } };
    assert.notEqual(typo, fine);
  });
});

describe('solve --help', () => {
  it('names every flag --resume may change (the checkpoint code keeps that list)', async () => {
    const { RESUMABLE_KEYS } = await import('../src/config/resolve.ts');
    const { flagForPath } = await import('../src/config/flags.ts');
    const help = (await cliInProcess(['solve', '--help'])).stdout.replace(/\s+/g, ' ');
    const line = /continue the run saved in FILE; only (.*?) may change/.exec(help);
    assert.ok(line !== null, help);
    assert.deepEqual(
      line[1].split(/, | and /),
      RESUMABLE_KEYS.map((key) => flagForPath(key)),
    );
  });
});
