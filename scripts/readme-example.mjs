/**
 * Regenerates README.md's JSON example from a real run of the built CLI:
 * `npx nqueens-islands solve -n 8 --seed 1 --islands 2 --json`, laid out as the README shows
 * it (top-level keys one a line, small objects and lists on one line, wrapped). Run it after
 * `npm run build` whenever the version changes (test/readme.test.ts holds the example's
 * version to package.json's and its layout to this script's):
 *
 *   npm run build && node scripts/readme-example.mjs          # rewrites the block in README.md
 *   node scripts/readme-example.mjs --check                   # exit 1 if the block's version is stale
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = `${ROOT}README.md`;
/** The command whose record the README shows (the line before the block names it). */
export const EXAMPLE_COMMAND = 'npx nqueens-islands solve -n 8 --seed 1 --islands 2 --json';
const WIDTH = 120;

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
/** Laid out over several lines: an object holding objects, or a non-empty list of objects. */
const expands = (v) =>
  (isPlainObject(v) && Object.values(v).some((x) => x !== null && typeof x === 'object' && (!Array.isArray(x) || x.some(isPlainObject)))) ||
  (Array.isArray(v) && v.length > 0 && v.some(isPlainObject));

/** `value` as compact JSON starting at column `column`, wrapped after a member's comma, continuation lines under its first member. */
function compact(value, column) {
  const text = JSON.stringify(value);
  if (!isPlainObject(value) || column + text.length <= WIDTH) return text;
  const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const lines = [];
  let line = '{';
  for (const [i, member] of members.entries()) {
    const piece = `${member}${i === members.length - 1 ? '}' : ','}`;
    const at = lines.length === 0 ? column : column + 1;
    if (line !== '{' && line !== '' && at + line.length + piece.length > WIDTH) {
      lines.push(line);
      line = '';
    }
    line += piece;
  }
  lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : `${' '.repeat(column + 1)}${l}`)).join('\n');
}

/** `value` at `indent` spaces, after a key that ends at column `column`. */
function layout(value, indent, column) {
  if (!expands(value)) return compact(value, column);
  const inner = ' '.repeat(indent + 2);
  if (Array.isArray(value)) return `[\n${value.map((item) => `${inner}${compact(item, indent + 2)}`).join(',\n')}\n${' '.repeat(indent)}]`;
  const entries = Object.entries(value).map(([key, v]) => {
    const head = `${inner}${JSON.stringify(key)}: `;
    return `${head}${layout(v, indent + 2, head.length)}`;
  });
  return `{\n${entries.join(',\n')}\n${' '.repeat(indent)}}`;
}

/** The README's layout of a record. */
export function formatRecord(record) {
  return layout(record, 0, 0);
}

/** The JSON block after the line naming EXAMPLE_COMMAND: its start and end offsets in `text`. */
export function exampleBlock(text) {
  const named = text.indexOf(EXAMPLE_COMMAND);
  const start = text.indexOf('```json\n', named) + '```json\n'.length;
  const end = text.indexOf('```', start);
  if (named < 0 || start < named || end < 0) throw new Error(`README.md: no json block after ${EXAMPLE_COMMAND}`);
  return { start, end };
}

function main() {
  const text = readFileSync(README, 'utf8');
  const { start, end } = exampleBlock(text);
  const version = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).version;
  if (process.argv.includes('--check')) {
    const shown = JSON.parse(text.slice(start, end)).provenance.version;
    if (shown !== version) {
      console.error(
        `README.md: the JSON example was made by ${shown}, not ${version}: run npm run build && node scripts/readme-example.mjs`,
      );
      process.exit(1);
    }
    return;
  }
  const args = EXAMPLE_COMMAND.replace('npx nqueens-islands ', '').split(' ');
  const out = execFileSync(process.execPath, [`${ROOT}dist/bundle/nqueens-islands.cjs`, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const record = JSON.parse(out);
  if (record.provenance.version !== version)
    throw new Error(`the build says ${record.provenance.version}, package.json ${version}: npm run build first`);
  writeFileSync(README, `${text.slice(0, start)}${formatRecord(record)}\n${text.slice(end)}`);
  console.error(
    `README.md: the JSON example is now the record of ${version} (commit ${record.provenance.commit}, dirty ${record.provenance.dirty})`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
