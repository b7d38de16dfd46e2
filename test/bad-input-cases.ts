/**
 * The bad-input table: cases of every kind (N, islands, migration, GA, topology, config files,
 * outputs, checkpoints, commands and flags, verify), each with the one line it must answer.
 * Run in-process by bad-input.test.ts and, one of each kind, through the built binary by
 * bad-input-binary.test.ts. Each test file that imports this gets its own temporary folder.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { cliAsync, cliInProcess, isOneLineError, type CliRun } from './cli-helpers.ts';

export const tmp = mkdtempSync(join(tmpdir(), 'nq-bad-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

export function file(name: string, text: string | Uint8Array): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

const dir = join(tmp, 'a-folder');
mkdirSync(dir);
const yamlSyntax = file('syntax.yaml', 'n: 8\nmigration:\n  interval: [1, 2\n');
const jsonSyntax = file('syntax.json', '{"n": 8,\n  "islands": 2,,\n}');
const misspelt = file('misspelt.yaml', 'n: 8\nmigration:\n  intervall: 3\n');
const wrongType = file('type.yaml', 'n: 8\nmigration:\n  interval: ten\n');
const empty = file('empty.yaml', '');
const commentsOnly = file('comments.yaml', '# nothing here\n');
const missingIsland = file('edges.yaml', 'n: 8\nislands: 2\ntopology:\n  kind: edges\n  edges: [[0, 1], [1, 5]]\n');
const noEdges = file('no-edges.yaml', 'n: 8\nislands: 2\ntopology:\n  kind: edges\n');
const stray = file('stray.yaml', 'n: 8\ntopology:\n  kind: ring\n  probability: 0.3\n');
const nZero = file('n0.json', '{"n": 0}');
const badMode = file('mode.yaml', 'n: 8\nga:\n  mode: quantum\n');
const notMapping = file('migration.yaml', 'n: 8\nmigration: 5\n');
const duplicate = file('dup.yaml', 'n: 8\nn: 9\n');
const topList = file('list.yaml', '- 1\n- 2\n');
const corrupt = file('corrupt.ckpt', new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01]));
const textCkpt = file('text.ckpt', 'n: 8\n');
const tuplesEmpty = file('tuples-empty.txt', '\n# only a comment\n');
const tuplesWord = file('tuples-word.txt', '1 2 3\n4 five 6\n');
const recordMismatch = file('record.json', '{"n": 8, "solution": [2, 4, 1, 3]}');
const tuplesTwice = file('twice.json', '{"solution": [2, 4, 1, 3], "solution": [1]}');
const configTwice = file('twice-config.json', '{"n": 8, "migration": {"interval": 2, "interval": 3}}');
const tuplesDeep = file('deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
const configDeep = file('deep-config.json', `{"n": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
const selfConfig = file('self.json', '{"n": 8, "islands": 1}');

/**
 * [name, args, what the one line must say, options]. Solve cases get --out (and keep
 * --checkpoint) under `out/`. `binary`: also run through the built binary; `env`: only there
 * (runCli reads this process's environment).
 */
export type Case = readonly [string, readonly string[], RegExp, { env?: NodeJS.ProcessEnv; out?: boolean; binary?: boolean }?];
const SOLVE = ['solve', '--islands', '1'];
export const cases: Case[] = [
  // N
  ['N missing', ['solve'], /default\.yaml: n: missing; expected an integer from 1 to 2147483648 \(set it in the file or pass -n\)$/],
  ['N = 0', ['solve', '-n', '0'], /^-n: expected an integer from 1 to 2147483648, got 0$/, { binary: true }],
  ['N negative', ['solve', '-n=-5'], /^-n: expected an integer from 1 to 2147483648, got -5$/],
  ['N fractional', ['solve', '-n', '8.5'], /^-n: expected an integer from 1 to 2147483648, got 8\.5$/],
  ['N not a number', ['solve', '-n', 'ten'], /^-n: expected an integer from 1 to 2147483648, got "ten"$/],
  [
    'N far too large for memory',
    ['solve', '-n', '100000000', '--islands', '2'],
    /^-n: 100000000 needs about [\d.]+ GB for 2 islands .* this machine allows/,
  ],
  // islands, migration, GA
  ['islands 0', [...SOLVE.slice(0, 1), '-n', '8', '--islands', '0'], /^--islands: expected an integer from 1 to 4096/],
  ['islands 10,000', ['solve', '-n', '8', '--islands', '10000'], /^--islands: expected an integer from 1 to 4096 .*got 10000/],
  ['threads 0', ['solve', '-n', '8', '--threads', '0'], /^--threads: expected an integer from 1 to 256 .*got 0/],
  ['threads not a number', ['solve', '-n', '8', '--threads', 'few'], /^--threads: expected an integer/],
  ['islands not a number', ['solve', '-n', '8', '--islands', 'many'], /^--islands: expected an integer/],
  ['interval 0', [...SOLVE, '-n', '8', '--interval', '0'], /^--interval: expected an integer >= 1, got 0$/],
  [
    'migrants larger than the population',
    [...SOLVE, '-n', '8', '--population', '10', '--migrants', '11'],
    /^--migrants: 11 emigrants is more than ga\.populationSize \(10\)/,
  ],
  ['migrants 0', [...SOLVE, '-n', '8', '--migrants', '0'], /^--migrants: expected an integer >= 1, a fraction/],
  ['migrants 150%', [...SOLVE, '-n', '8', '--migrants', '150%'], /^--migrants: expected .*got "150%"/],
  [
    'a probability above 1',
    [...SOLVE, '-n', '8', '--mutation-probability', '1.5'],
    /^--mutation-probability: expected a number in \[0, 1\], got 1\.5$/,
  ],
  [
    'a probability below 0',
    [...SOLVE, '-n', '8', '--crossover-probability=-0.1'],
    /^--crossover-probability: expected a number in \[0, 1\]/,
  ],
  [
    'double mutation above mutation',
    [...SOLVE, '-n', '8', '--double-mutation-probability', '0.9'],
    /^--double-mutation-probability: 0\.9 is more than ga\.mutationProbability/,
  ],
  ['population 1', [...SOLVE, '-n', '8', '--population', '1'], /^--population: expected an integer >= 2, got 1$/],
  ['a negative seed', [...SOLVE, '-n', '8', '--seed=-1'], /^--seed: expected an integer from 0/],
  ['a non-numeric seed', [...SOLVE, '-n', '8', '--seed', 'abc'], /^--seed: expected an integer/],
  [
    'a seed past 2^53, quoted as typed (not rounded)',
    [...SOLVE, '-n', '8', '--seed', '9007199254740993'],
    /^--seed: expected an integer from 0 to 9007199254740991 .*got "9007199254740993"$/,
  ],
  ['max-iterations 0', [...SOLVE, '-n', '8', '--max-iterations', '0'], /^--max-iterations: expected an integer >= 1/],
  ['time-limit 0', [...SOLVE, '-n', '8', '--time-limit', '0'], /^--time-limit: expected a number of seconds > 0/],
  [
    'an unknown migration mode',
    [...SOLVE, '-n', '8', '--migration', 'sideways'],
    /^--migration: expected one of async \| sync \| lagged, got "sideways"$/,
  ],
  [
    'a tournament of 1',
    [...SOLVE, '-n', '8', '--emigrant-selection', 'tournament(1)'],
    /^--emigrant-selection: K in "tournament\(1\)": expected an integer >= 2, got 1$/,
  ],
  ['an unknown replacement', [...SOLVE, '-n', '8', '--replacement', 'best'], /^--replacement: expected one of worst-if-better/],
  [
    'an unknown --on-island-error',
    [...SOLVE, '-n', '8', '--on-island-error', 'retry'],
    /^--on-island-error: expected one of continue \| fail, got "retry"$/,
  ],
  // topology
  ['an unknown topology', ['solve', '-n', '8', '--topology', 'moebius'], /^--topology: expected one of ring \| .*got "moebius"$/],
  [
    'a hypercube of 3 islands',
    ['solve', '-n', '8', '--islands', '3', '--topology', 'hypercube'],
    /^--islands: 3 is not a power of two, which topology\.kind "hypercube" needs/,
  ],
  [
    'grid rows that do not divide',
    ['solve', '-n', '8', '--islands', '4', '--topology', 'grid', '--rows', '3'],
    /^--rows: 3 rows do not divide the 4 islands/,
  ],
  [
    'a random topology with p = 2',
    [...SOLVE, '-n', '8', '--topology', 'random', '--probability', '2'],
    /^--probability: expected a number in \[0, 1\], got 2$/,
  ],
  [
    'an edge list naming a missing island',
    ['solve', '--config', missingIsland],
    /edges\.yaml: topology\.edges\[1\]: island 5 does not exist; with 2 islands, ids are 0\.\.1$/,
  ],
  ['kind edges without edges', ['solve', '--config', noEdges], /no-edges\.yaml: topology\.edges: missing; topology\.kind "edges" needs/],
  [
    'a topology option of another kind',
    ['solve', '--config', stray],
    /stray\.yaml: topology\.probability: only used with topology\.kind "random", not "ring"; remove it$/,
  ],
  // config files
  ['a YAML syntax error', ['solve', '--config', yamlSyntax], /syntax\.yaml:\d+:\d+: invalid YAML: /],
  ['a JSON syntax error', ['solve', '--config', jsonSyntax], /syntax\.json:2:\d+: invalid JSON: /],
  [
    'an unknown key',
    ['solve', '--config', misspelt],
    /misspelt\.yaml: unknown key "migration\.intervall"; did you mean "migration\.interval"\?$/,
    { binary: true },
  ],
  ['a wrong type', ['solve', '--config', wrongType], /type\.yaml: migration\.interval: expected an integer >= 1, got "ten"$/],
  ['an empty file', ['solve', '--config', empty], /empty\.yaml: empty file; expected a mapping with at least "n"$/],
  ['a file of comments only', ['solve', '--config', commentsOnly], /comments\.yaml: empty file/],
  ['a missing file', ['solve', '--config', join(tmp, 'absent.yaml')], /absent\.yaml: no such file$/],
  ['a directory as config file', ['solve', '--config', dir], /a-folder: is a directory; expected a YAML or JSON file$/, { binary: true }],
  ['n: 0 in a file', ['solve', '--config', nZero], /n0\.json: n: expected an integer from 1 to 2147483648, got 0$/],
  ['an unknown GA mode', ['solve', '--config', badMode], /mode\.yaml: ga\.mode: expected "paper"/],
  ['a section that is not a mapping', ['solve', '--config', notMapping], /migration\.yaml: migration: expected a mapping, got 5$/],
  ['a duplicate key', ['solve', '--config', duplicate], /dup\.yaml:2:1: invalid YAML: Map keys must be unique/],
  ['a list at the top level', ['solve', '--config', topList], /list\.yaml: expected a mapping, got a list$/],
  [
    'an error in config print',
    ['config', 'print', '-n', '8', '--interval', '-2'],
    /^--interval: expected an integer >= 1, got -2$/,
    { out: false },
  ],
  // output, checkpoints, resume
  [
    '--out in a missing folder',
    ['solve', '-n', '8', '--out', join(tmp, 'no', 'such', 'r.json')],
    /^--out .*r\.json: folder .* does not exist$/,
    { out: false, binary: true },
  ],
  [
    '--out naming a directory',
    ['solve', '-n', '8', '--out', dir],
    /^--out .*a-folder: is a directory, expected a file name$/,
    { out: false },
  ],
  [
    '--serve not a port',
    [...SOLVE, '-n', '8', '--serve', 'http'],
    /^--serve: expected a port number 0\.\.65535 \(0 or none: a free port\), got "http"$/,
  ],
  [
    '--serve above 65535',
    [...SOLVE, '-n', '8', '--serve', '70000'],
    /^--serve: expected a port number 0\.\.65535 \(0 or none: a free port\), got "70000"$/,
  ],
  ['--serve-host without --serve', [...SOLVE, '-n', '8', '--serve-host', '0.0.0.0'], /^--serve-host: only with --serve \[PORT\]$/],
  [
    '--checkpoint-every 0',
    [...SOLVE, '-n', '8', '--checkpoint', join(tmp, 'out', 'c.ckpt'), '--checkpoint-every', '0'],
    /^--checkpoint-every: expected a number of seconds > 0, at most 2147483 \(24\.8 days\), got "0"$/,
  ],
  [
    '--checkpoint-every not a number',
    [...SOLVE, '-n', '8', '--checkpoint', join(tmp, 'out', 'c.ckpt'), '--checkpoint-every', 'often'],
    /^--checkpoint-every: expected a number of seconds > 0, at most 2147483 \(24\.8 days\), got "often"$/,
  ],
  [
    '--checkpoint-every without --checkpoint',
    [...SOLVE, '-n', '8', '--checkpoint-every', '5'],
    /^--checkpoint-every: needs --checkpoint FILE/,
  ],
  [
    '--checkpoint in a missing folder',
    [...SOLVE, '-n', '8', '--checkpoint', join(tmp, 'none', 'c.ckpt')],
    /^--checkpoint .*c\.ckpt: folder .* does not exist$/,
  ],
  ['--resume of a missing file', ['solve', '--resume', join(tmp, 'absent.ckpt')], /^--resume .*absent\.ckpt: no such file$/],
  [
    '--resume of a corrupt checkpoint',
    ['solve', '--resume', corrupt],
    /^--resume .*corrupt\.ckpt: not an nqueens-islands checkpoint/,
    { binary: true },
  ],
  ['--resume of a text file', ['solve', '--resume', textCkpt], /^--resume .*text\.ckpt: not an nqueens-islands checkpoint/],
  ['--resume of a directory', ['solve', '--resume', dir], /^--resume .*a-folder: is a directory; expected a checkpoint file$/],
  ['--resume with --config', ['solve', '--resume', corrupt, '--config', misspelt], /^--config: not with --resume/],
  [
    'a malformed test fault',
    [...SOLVE, '-n', '8'],
    /^NQUEENS_ISLANDS_TEST_FAULT: expected island\|\*:iteration:throw\|exit\|slow:MS, got "1:x"$/,
    { env: { NQUEENS_ISLANDS_TEST_FAULT: '1:x' } },
  ],
  // commands and flags
  ['an unknown command', ['solvee', '-n', '8'], /Unknown argument|Did you mean solve/, { out: false, binary: true }],
  ['an unknown flag', ['solve', '-n', '8', '--islandz', '2'], /^Unknown argument: islandz; did you mean --islands\?$/, { binary: true }],
  [
    'a misspelt dashed flag',
    ['solve', '-n', '8', '--max-iteratons', '2'],
    /^Unknown argument: max-iteratons; did you mean --max-iterations\?$/,
  ],
  ['an unknown flag far from any', ['solve', '-n', '8', '--zzzzzzzz', '2'], /^Unknown argument: zzzzzzzz$/],
  ['a flag without its value', ['solve', '-n'], /Not enough arguments following: n/, { out: false, binary: true }],
  // verify
  [
    'verify: a tuple that is not numbers',
    ['verify', '1', 'x', '3'],
    /^word 2: "x" is not a positive integer$/,
    { out: false, binary: true },
  ],
  ['verify: a row out of range', ['verify', '1', '5', '2'], /^tuple: row 5 in column 2 is out of range 1\.\.3$/, { out: false }],
  ['verify: a zero', ['verify', '0', '1'], /^word 1: 0 is out of range, rows are 1-based$/, { out: false }],
  [
    'verify: a tuple of the wrong length for -n',
    ['verify', '-n', '8', '2', '4', '1', '3'],
    /^tuple: has 4 rows, expected N = 8 \(-n\)$/,
    { out: false },
  ],
  [
    'verify: the second of two tuples of the wrong length',
    ['verify', '-n', '4', '(2, 4, 1, 3)', '(1, 2, 3)'],
    /^tuple 2: has 3 rows, expected N = 4 \(-n\)$/,
    { out: false },
  ],
  ['verify: -n not a number', ['verify', '-n', 'eight', '2', '4', '1', '3'], /^-n: expected an integer >= 1, got "eight"$/, { out: false }],
  ['verify: no tuple', ['verify'], /^verify: expected a tuple/, { out: false }],
  ['verify: tuples and --file', ['verify', '1', '2', '--file', tuplesWord], /^verify: give tuples or --file, not both$/, { out: false }],
  [
    'verify: an empty tuples file',
    ['verify', '--file', tuplesEmpty],
    /tuples-empty\.txt: no tuples, only blank lines and comments$/,
    { out: false },
  ],
  [
    'verify: a word in a tuples file',
    ['verify', '--file', tuplesWord],
    /tuples-word\.txt:2: "five" is not a positive integer$/,
    { out: false },
  ],
  [
    'verify: a record whose solution does not match its n',
    ['verify', '--file', recordMismatch],
    /record\.json: key "solution" has 4 rows but key "n" is 8/,
    { out: false },
  ],
  // Issue 39 class 7 and issue 37: malformed input refused, not guessed; words named by position.
  ['verify: two commas in a row', ['verify', '1,,2'], /^tuple 1: "1,,2" has no row at entry 2 /, { out: false }],
  ['verify: a comma at the end', ['verify', '(2, 4, 1, 3,)'], /^tuple 1: .* has no row at entry 5 /, { out: false }],
  [
    'verify: a key twice in --file JSON',
    ['verify', '--file', tuplesTwice],
    /twice\.json: not valid JSON \(key "solution" appears twice in one object\)$/,
    { out: false },
  ],
  [
    'verify: deeply nested --file JSON',
    ['verify', '--file', tuplesDeep],
    /deep\.json: not valid JSON \(nested deeper than 256 levels\)$/,
    { out: false, binary: true },
  ],
  [
    'config: a key twice in a JSON config',
    [...SOLVE, '--config', configTwice],
    /twice-config\.json:1:\d+: invalid JSON: Map keys must be unique/,
  ],
  [
    'config: deeply nested JSON config',
    [...SOLVE, '--config', configDeep],
    /deep-config\.json: invalid JSON: nested deeper than 256 levels$/,
    { binary: true },
  ],
  ['solve: words after --', [...SOLVE, '-n', '8', '--', 'foo'], /^"foo" after --: solve takes no words there/],
  [
    'config print: words after --',
    ['config', 'print', '-n', '8', '--', 'foo'],
    /^"foo" after --: config takes no words there/,
    { out: false },
  ],
  ['report: words after --', ['report', '--', 'x'], /^"x" after --: report takes no words there/, { out: false }],
  [
    '--lag with --migration sync',
    [...SOLVE, '-n', '8', '--migration', 'sync', '--lag', '2'],
    /^--lag: only for migration mode lagged; the mode is sync/,
  ],
  [
    '--lag with --migration async',
    [...SOLVE, '-n', '8', '--migration', 'async', '--lag', '0'],
    /^--lag: only for migration mode lagged; the mode is async/,
  ],
  [
    '--out with an unknown format',
    [...SOLVE, '-n', '8', '--out', join(tmp, 'r.csv')],
    /r\.csv: no result format for \.csv; expected \.json .* or \.txt/,
  ],
  [
    '--out onto its own --config',
    [...SOLVE, '--config', selfConfig, '--out', selfConfig],
    /^--out .*self\.json: is the run config .*self\.json, an input of this command; not overwritten/,
  ],
  [
    '--trace onto its own --config',
    [...SOLVE, '--config', selfConfig, '--trace', selfConfig],
    /^--trace .*self\.json: is the run config .*, an input of this command/,
  ],
  ['verify: a missing file', ['verify', '--file', join(tmp, 'absent.txt')], /^--file .*absent\.txt: no such file$/, { out: false }],
  [
    'verify: a directory as file',
    ['verify', '--file', dir],
    /^--file .*a-folder: is a directory; expected a file of tuples$/,
    { out: false },
  ],
];

/** Runs case `i` (in this process, or with `binary` through the built binary) with its own output folder; asserts nothing was written. */
export async function runCase([, args, , options = {}]: Case, i: number, how: 'in-process' | 'binary'): Promise<CliRun> {
  const outDir = join(tmp, 'out', how, String(i));
  mkdirSync(outDir, { recursive: true });
  const withOut = options.out !== false && !args.includes('--out');
  const argv = withOut ? [...args, '--out', join(outDir, 'result.json')] : [...args];
  const r = how === 'binary' ? await cliAsync(argv, { env: options.env }) : await cliInProcess(argv);
  assert.deepEqual(readdirSync(outDir), [], 'nothing written, not even a temporary file');
  assert.equal(existsSync(join(tmp, 'out', 'c.ckpt')), false);
  return r;
}

export function assertSays(r: CliRun, says: RegExp): void {
  assert.ok(isOneLineError(r), `code ${r.code}, stderr ${JSON.stringify(r.stderr)}, stdout ${JSON.stringify(r.stdout)}`);
  assert.match(r.stderr.trim().replace(/^nqueens-islands: /, ''), says);
}
