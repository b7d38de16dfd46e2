// @slow: among the longest test files; `npm test` starts these first (scripts/test.mjs).
/**
 * What a newcomer meets first (issue 37, and issue 34's followable trace and progress lines):
 * large-N advice, did-you-mean for values, shell completion, the live view's last frame, a
 * --trace file read while its run goes, and progress lines in a log file. Through the built CLI.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { largeNAdvice, paperSeconds, PAPER_CPU_MODEL } from '../src/config/run-time.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { configDocsSource } from '../src/config/config-docs.ts';
import { runCli } from '../src/cli/cli.ts';
import { CLI, cli, cliInProcess, ROOT } from './cli-helpers.ts';
import { resolveConfig, type BetweenEvent, type EmigrantSelectionName, type RunConfigInput, type SurvivalEvent } from '../src/index.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-newcomer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A run that never solves and never ends by itself: no crossover, no mutation (a 200-board's random permutations are no solution). */
const ENDLESS = ['-n', '200', '--islands', '1', '--population', '50', '--seed', '1'];
const FROZEN = ['--crossover-probability', '0', '--mutation-probability', '0', '--double-mutation-probability', '0'];

/** The complete lines of a file being written (a last line without its newline is still being written). */
function completeLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(0, -1);
  } catch {
    // Not there yet: the run has not opened it.
    return [];
  }
}

/** The next look at a file being written, as `tail -f` looks (a poll, not a wait for the run). */
const poll = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

describe('large-N advice', () => {
  it('paper mode says, before it starts, that a large N takes hours and points to --mode hybrid', async () => {
    // --max-iterations 1 and a population of 2 with no bad repository keep the run short (the
    // advice depends on N, the mode and the cores only); it comes before any population is built.
    const r = await cliInProcess([
      'solve',
      '-n',
      '40000',
      '--islands',
      '1',
      '--max-iterations',
      '1',
      '--population',
      '2',
      '--bad-repository-size',
      '0',
      '--seed',
      '1',
      '-q',
    ]);
    const advice = r.stderr
      .split('\n')
      .filter((line) => /paper mode at N = 40000 would take at least about [\d.]+ (hours|days)/.test(line));
    assert.equal(advice.length, 1, r.stderr);
    assert.match(advice[0], /--mode hybrid/);
    const small = await cliInProcess(['solve', '-n', '40', '--seed', '1', '-q']);
    assert.equal(small.code, 0);
    assert.doesNotMatch(small.stderr, /paper mode at N/);
    const hybrid = await cliInProcess([
      'solve',
      '-n',
      '40000',
      '--mode',
      'hybrid',
      '--islands',
      '1',
      '--max-iterations',
      '1',
      '--seed',
      '1',
      '-q',
    ]);
    assert.doesNotMatch(hybrid.stderr, /paper mode at N/);
  });

  it('the estimate follows the fitted power law, and the memory refusal names hybrid mode for a hopeless paper run', () => {
    const { coefficient, exponent } = PAPER_CPU_MODEL;
    assert.equal(paperSeconds(2000, 2), (coefficient * 2000 ** exponent) / 2);
    assert.ok(paperSeconds(4000, 1) / paperSeconds(2000, 1) > 3, 'superlinear in N');
    assert.equal(largeNAdvice({ n: 2000, ga: { mode: 'paper' } }, 2), null);
    assert.equal(largeNAdvice({ n: 10 ** 6, ga: { mode: 'hybrid' } }, 2), null);
    const env = { availableParallelism: 2, totalMemory: 16e9 };
    assert.throws(
      () => resolveRunConfig({ n: 10 ** 6 }, 'test', {}, env),
      (e: Error) => /more than the 12\.0 GB this machine allows.*would take at least about .*--mode hybrid/.test(e.message),
    );
    assert.equal(resolveRunConfig({ n: 10 ** 6, ga: { mode: 'hybrid' } }, 'test', {}, env).n, 10 ** 6);
  });
});

describe('CLI habits', () => {
  // Bad input in this process (runCli: the binary's parsing and checks, no process per case).
  it('values get did-you-mean, as keys and flags do', async () => {
    for (const [flag, typed, meant] of [
      ['--topology', 'fully_connected', 'fully-connected'],
      ['--migration', 'synk', 'sync'],
      ['--mode', 'hybird', 'hybrid'],
      ['--emigrant-selection', 'bets', 'best'],
    ]) {
      const r = await runCli(['solve', '-n', '8', flag, typed]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, new RegExp(`^nqueens-islands: ${flag}: expected .*got "${typed}"; did you mean "${meant}"\\?\\n$`));
    }
    assert.doesNotMatch((await runCli(['solve', '-n', '8', '--topology', 'zzz'])).stderr, /did you mean/);
  });

  it('help shows what --migrants accepts, and does not wrap when stdout is not a terminal', () => {
    const help = cli(['solve', '--help']).stdout;
    assert.match(help, /^\s+--migrants .*\[number or percent\]$/m);
    assert.match(
      help,
      /^ {2}nqueens-islands solve -n 64 --islands 4 --topology ring --migration sync --interval 10 --migrants 2 --seed 7 {2}/m,
    );
  });

  it('colour only where the stream takes it: FORCE_COLOR for a pipe, never by default or under FORCE_COLOR=0', () => {
    const forced = cli(['solve', '-n', '8', '--seed', '1'], { env: { FORCE_COLOR: '1' } });
    const ESC = '\u001b';
    assert.ok(forced.stdout.startsWith(`${ESC}[1m${ESC}[32msolved${ESC}[39m${ESC}[22m N=8: `), JSON.stringify(forced.stdout.slice(0, 40)));
    assert.ok(forced.stderr.startsWith(`${ESC}[1m${ESC}[36mnqueens-islands:`), JSON.stringify(forced.stderr.slice(0, 40)));
    for (const env of [{}, { FORCE_COLOR: '0' }, { NO_COLOR: '1' }]) {
      const plain = cli(['solve', '-n', '8', '--seed', '1'], { env: { FORCE_COLOR: undefined, ...env } });
      assert.ok(!(plain.stdout + plain.stderr).includes(ESC), JSON.stringify(env));
      assert.match(plain.stdout, /^solved N=8: /);
    }
  });

  it('a study warns about sweeps whose cells cannot differ (topology swept on 1 island)', async () => {
    const study = path.join(dir, 'moot.yaml');
    writeFileSync(study, 'name: moot\nbase:\n  overrides:\n    n: 8\n    islands: 1\nsweep:\n  topology.kind: [ring, none]\nrepeats: 1\n');
    const r = await cliInProcess(['experiment', study, '--out', path.join(dir, 'moot')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /sweep: cells topology\.kind=ring; topology\.kind=none cannot differ \(no island sends migrants/);
    writeFileSync(study, 'name: apart\nbase:\n  overrides:\n    n: 8\n    islands: 4\nsweep:\n  topology.kind: [ring, none]\nrepeats: 1\n');
    assert.doesNotMatch((await cliInProcess(['experiment', study, '--out', path.join(dir, 'apart')])).stderr, /cannot differ/);
  });

  it('completion prints a bash or zsh script that asks the binary, and the binary answers', () => {
    const bash = cli(['completion'], { env: { SHELL: '/bin/bash' } });
    assert.equal(bash.code, 0);
    assert.match(bash.stdout, /complete -o bashdefault -o default -F _nqueens-islands_yargs_completions nqueens-islands/);
    const zsh = cli(['completion'], { env: { SHELL: '/usr/bin/zsh' } });
    assert.match(zsh.stdout, /^#compdef nqueens-islands/m);
    const words = cli(['--get-yargs-completions', 'nqueens-islands', 'solve', '--topo']).stdout.split('\n');
    assert.ok(words.includes('--topology'), words.join(' '));
  });

  it('the live view keeps its header on the last frame (under a terminal made by script(1))', (t) => {
    if (spawnSync('script', ['--version']).status !== 0) return t.skip('no script(1) to make a terminal');
    const r = spawnSync('script', ['-qec', `${process.execPath} ${CLI} solve -n 30 --islands 2 --seed 1`, '/dev/null'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, TERM: 'xterm', COLUMNS: '200' },
      timeout: 120_000,
    });
    assert.equal(r.status, 0, r.stderr);
    // What the terminal shows at the end: the text after the last redraw's cursor-up moves.
    const screen = stripVTControlCharacters(r.stdout.split('\u001b[1A').pop() ?? '');
    assert.match(screen, /N=30 {2}islands 2 {2}ring sync every 1 {2}seed 1/); // the default mode at N = 30 (docs/defaults.md)
    assert.match(screen, /island {2}1 {2}iteration/);
    assert.match(screen, /solved N=30: /);
  });
});

describe('a run that can be followed', () => {
  it('--trace lines can be read while the run goes; a stopped run leaves every line whole, ending with done', async () => {
    const file = path.join(dir, 'follow.jsonl');
    const child = spawn(process.execPath, [CLI, 'solve', ...ENDLESS, ...FROZEN, '--max-iterations', '100000000', '--trace', file, '-q'], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Waits for the file to hold the header and progress samples, as `tail -f` would see them.
    let seen: string[] = [];
    const deadline = Date.now() + 60_000;
    while (seen.filter((line) => line.includes('"type":"progress"')).length < 3 && Date.now() < deadline) {
      await poll();
      seen = completeLines(file);
    }
    assert.equal(child.exitCode, null, 'the run still goes while its trace is read');
    assert.equal(JSON.parse(seen[0]).type, 'trace');
    for (const line of seen) JSON.parse(line);
    child.kill('SIGINT');
    assert.equal(await exited, 130);
    const all = completeLines(file).map((line) => JSON.parse(line) as { type: string });
    assert.ok(all.length > seen.length);
    assert.equal(all.at(-1)?.type, 'done');
    assert.ok(readFileSync(file, 'utf8').endsWith('\n'));
  });

  it('a killed run leaves a trace whose complete lines all parse', async () => {
    const file = path.join(dir, 'killed.jsonl');
    const child = spawn(process.execPath, [CLI, 'solve', ...ENDLESS, ...FROZEN, '--max-iterations', '100000000', '--trace', file, '-q'], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    const deadline = Date.now() + 60_000;
    while (completeLines(file).length < 3 && Date.now() < deadline) await poll();
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    const lines = completeLines(file);
    assert.ok(lines.length >= 3);
    for (const line of lines) JSON.parse(line);
  });

  it('solve prints plain progress lines when stderr is a file, and -q silences them', async () => {
    const run = async (quiet: boolean) => {
      const log = path.join(dir, `progress-${quiet}.log`);
      const fd = openSync(log, 'w');
      const child = spawn(
        process.execPath,
        [CLI, 'solve', ...ENDLESS, ...FROZEN, '--max-iterations', '20000', ...(quiet ? ['-q'] : [])],
        // A test-only interval: lines every 20 ms instead of every few seconds.
        { cwd: ROOT, stdio: ['ignore', 'ignore', fd], env: { ...process.env, NQUEENS_ISLANDS_PROGRESS_MS: '20' } },
      );
      closeSync(fd);
      await new Promise<void>((resolve) => child.on('close', () => resolve()));
      return readFileSync(log, 'utf8').split('\n');
    };
    const lines = (await run(false)).filter((line) => line.startsWith('nqueens-islands: progress: '));
    assert.ok(lines.length >= 1, 'at least one progress line');
    for (const line of lines) {
      assert.match(
        line,
        /^nqueens-islands: progress: [\d.]+ s, iteration \d+, best \d+, [\d.]+M evaluations, [\d.]+M evaluations\/s over the last [\d.]+ s$/,
      );
    }
    assert.deepEqual(
      (await run(true)).filter((line) => line.includes('progress:')),
      [],
    );
  });
});

describe('the library', () => {
  it('an operator object may be given in part: the keys not given keep their defaults (library and YAML alike)', async () => {
    const config: RunConfigInput = { n: 100, seed: 1, ga: { mode: 'hybrid', localSearch: { maxSteps: 8 } } };
    const resolved = resolveConfig(config);
    assert.deepEqual((resolved.ga as unknown as { operators: { localSearch: unknown } }).operators.localSearch, {
      applyTo: 'both',
      maxSteps: 8,
      triesPerQueen: 128,
    });
    const yaml = path.join(dir, 'partial.yaml');
    writeFileSync(yaml, 'n: 100\nga:\n  mode: hybrid\n  conflictMutation:\n    partners: 3\n');
    const printed = await cliInProcess(['config', 'print', '--config', yaml, '--json']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.deepEqual(JSON.parse(printed.stdout).ga.conflictMutation, { probability: 0.8, moves: 1, partners: 3 });
    writeFileSync(yaml, 'n: 100\nga:\n  mode: hybrid\n  conflictMutation:\n    partner: 3\n');
    const typo = await cliInProcess(['config', 'print', '--config', yaml]);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown key "ga\.conflictMutation\.partner"; did you mean "ga\.conflictMutation\.partners"\?/);
  });

  it("config keys carry the schema's descriptions as TSDoc: src/config/run-config-docs.ts is generated fresh", () => {
    const schema = JSON.parse(readFileSync(path.join(ROOT, 'config', 'run-config.schema.json'), 'utf8'));
    const file = path.join(ROOT, 'src', 'config', 'run-config-docs.ts');
    const fresh = configDocsSource(schema);
    if (process.env.NQI_WRITE_CONFIG_DOCS === '1') writeFileSync(file, fresh);
    assert.equal(readFileSync(file, 'utf8'), fresh, 'src/config/run-config-docs.ts is stale: regenerate it with NQI_WRITE_CONFIG_DOCS=1');
    assert.match(fresh, /\/\*\* board size N \*\/\n {2}n\?: unknown;/);
    assert.match(fresh, /maxSteps\?: unknown;/);
  });

  it('event types and policy names are exported by name (a type error here fails the build)', () => {
    const names: EmigrantSelectionName[] = ['best', 'random', 'tournament', 'tournament(3)'];
    // @ts-expect-error a misspelt policy name is a type error (the build fails if it is not)
    const typo: EmigrantSelectionName = 'bset';
    assert.equal(typo, 'bset');
    const between = (e: BetweenEvent) => e.type;
    const survival = (e: SurvivalEvent) => e.type;
    assert.deepEqual(names.length, 4);
    assert.equal(typeof between, 'function');
    assert.equal(typeof survival, 'function');
  });
});
