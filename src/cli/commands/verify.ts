import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { lastValue, numberInHelp } from '../../schema/flag-value.ts';
import { checkTuple } from '../../problem/check-tuple.ts';
import { parseTuple, parseTupleFile } from '../../problem/tuple.ts';
import { extname } from 'node:path';
import { readRegularText } from '../../io/read-file.ts';
import { checkBinaryFile } from '../../problem/solution-file.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printLine, setExitCode, tupleForPeople } from '../output.ts';

/** A tuples file may hold a million-queen solution one row per line (about 7 MB); far beyond is a wrong file. */
const MAX_TUPLES_FILE_BYTES = 256 * 1024 * 1024;

interface VerifyArgs {
  /** Positionals after `--` (a tuple may start with a minus sign there); `_[0]` is the command. */
  _: (string | number)[];
  tuple?: string[];
  file?: string;
  n?: string;
  json: boolean;
  all: boolean;
}

function readTuples(args: VerifyArgs): number[][] {
  const parts = [...(args.tuple ?? []), ...args._.slice(1).map(String)];
  if (args.file !== undefined) {
    if (parts.length > 0) throw new UsageError('verify: give tuples or --file, not both');
    const text = readRegularText(args.file, { name: `--file ${args.file}`, expected: 'a file of tuples', maxBytes: MAX_TUPLES_FILE_BYTES });
    return parseTupleFile(text, args.file);
  }
  if (parts.length === 0) throw new UsageError('verify: expected a tuple such as 8 6 4 1 3 5 7 2, or --file FILE');
  // `verify 8 6 4 1` is one tuple, a row a word (a bad word is named by its position);
  // quoted arguments (`"8 6 4 1" "(2, 4, 1, 3)"`) are one tuple each.
  if (parts.every((p) => !/[\s,()[\]]/.test(p.trim()))) return [parts.map((p, i) => parseTuple(p, `word ${i + 1}`)[0])];
  return parts.map((p, i) => parseTuple(p, `tuple ${i + 1}`));
}

/** A `.bin` solution (docs/large-n.md), checked as it is read: a tuple of 10^8 rows never exists whole. */
function verifyBinary(args: VerifyArgs, file: string): void {
  if ([...(args.tuple ?? []), ...args._.slice(1)].length > 0) throw new UsageError('verify: give tuples or --file, not both');
  const { head, ...report } = checkBinaryFile(file, `--file ${file}`);
  if (args.n !== undefined && String(report.n) !== args.n.trim())
    throw new UsageError(`tuple: has ${report.n} rows, expected N = ${args.n} (-n)`);
  if (args.json) printLine(JSON.stringify([report]));
  else {
    const rows = report.n > head.length ? `(${head.join(', ')}, ... ${report.n - head.length} more)` : `(${head.join(', ')})`;
    printLine(
      `${rows}  N=${report.n}  permutation: ${report.permutation ? 'yes' : 'no'}  fitness: ${report.fitness}  solution: ${report.solution ? 'yes' : 'no'}`,
    );
  }
  setExitCode(report.solution ? EXIT.ok : EXIT.notSolved);
}

function run(args: ArgumentsCamelCase<VerifyArgs>): void {
  if (args.file !== undefined && extname(args.file).toLowerCase() === '.bin') return verifyBinary(args, args.file);
  const tuples = readTuples(args);
  // Tuples of different lengths may be checked together (each is its own board); `-n`
  // demands one board size, and a tuple of another length is malformed input.
  // A tuple is named with its file, as the file's own refusals name it.
  const where = (i: number) => `${args.file === undefined ? '' : `${args.file}: `}${tuples.length > 1 ? `tuple ${i + 1}` : 'tuple'}`;
  if (args.n !== undefined) {
    const n = /^\s*\d+\s*$/.test(args.n) ? Number(args.n) : NaN;
    if (!(n >= 1)) throw new UsageError(`-n: expected an integer >= 1, got ${JSON.stringify(args.n)}`);
    tuples.forEach((t, i) => {
      if (t.length !== n) throw new UsageError(`${where(i)}: has ${t.length} rows, expected N = ${n} (-n)`);
    });
  }
  const reports = tuples.map((t, i) => checkTuple(t, where(i)));
  if (args.json) {
    printLine(JSON.stringify(reports));
  } else {
    reports.forEach((r, i) => {
      printLine(
        `${tupleForPeople(tuples[i], args.all)}  N=${r.n}  permutation: ${r.permutation ? 'yes' : 'no'}  ` +
          `fitness: ${r.fitness}  solution: ${r.solution ? 'yes' : 'no'}`,
      );
    });
  }
  setExitCode(reports.every((r) => r.solution) ? EXIT.ok : EXIT.notSolved);
}

export const verifyCommand: CommandModule<object, VerifyArgs> = {
  command: 'verify [tuple..]',
  describe: 'Check 1-based tuples: permutation?, fitness, solution?',
  builder: (y: Argv) =>
    y
      .positional('tuple', {
        type: 'string',
        array: true,
        describe: 'a tuple: 8 6 4 1 3 5 7 2, or quoted ones: "(2, 6, 8, 3, 4, 1, 7, 5)"',
      })
      .option('file', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        describe:
          'read tuples from FILE: one tuple per line, a JSON array of arrays, {"solution": [...]}, one row per line (solve --out x.txt), or a .bin solution (solve --out x.bin)',
      })
      .option('n', {
        type: 'string',
        ...numberInHelp(),
        requiresArg: true,
        coerce: lastValue,
        describe: 'expect every tuple to have N rows (else exit 2); without it each tuple is its own board',
      })
      .option('json', { type: 'boolean', default: false, describe: 'print [{"n","permutation","fitness","solution"}, ...]' })
      .option('all', { type: 'boolean', default: false, describe: 'print long tuples in full' })
      .example('$0 verify 1 5 8 6 3 7 2 4', 'one tuple, a solution (exit 0)')
      .example('$0 verify 8 6 4 1 3 5 7 2', 'a permutation with one conflict, not a solution (exit 1)')
      .example('$0 verify --file solutions.txt --json', 'many tuples') as unknown as Argv<VerifyArgs>,
  handler: run,
};
