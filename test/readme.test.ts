/**
 * README.md cannot go stale: every command in its `sh` blocks runs against the built CLI, in
 * order, in a scratch folder that sees the repository's config/ (a command may use the file an
 * earlier one wrote), and must exit 0. A command marked `# test: skip, REASON` is skipped
 * visibly with its reason; `# test: with FLAGS` runs it with FLAGS appended (a smaller budget;
 * a repeated flag's last value wins); a `solve` without `--seed` runs with `--seed 1`. Every
 * `json` block in README.md and docs/*.md parses, and one that follows a
 * `npx nqueens-islands ... --json` command has exactly the keys that
 * command prints now, at every depth. The README is at most 300 lines.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { CLI, ROOT } from './cli-helpers.ts';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const dir = mkdtempSync(path.join(tmpdir(), 'nq-readme-'));
symlinkSync(path.join(ROOT, 'config'), path.join(dir, 'config'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The fenced blocks of one language in a Markdown text, with where each starts. */
function blocks(text: string, language: string): { body: string; at: number }[] {
  const found: { body: string; at: number }[] = [];
  const fence = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm');
  for (let m = fence.exec(text); m !== null; m = fence.exec(text)) found.push({ body: m[1], at: m.index });
  return found;
}

interface Command {
  line: string;
  command: string;
  skip: string | null;
  extra: string;
}

/** A README command line: the command, and its `# test:` note (the rest of a comment is for people). */
function parseCommand(line: string): Command {
  const note = /\s+#\s*test:\s*(.*)$/.exec(line);
  const command = (note ? line.slice(0, note.index) : line).replace(/\s+#\s.*$/, '').trim();
  const skip = note && note[1].startsWith('skip') ? note[1].replace(/^skip,?\s*/, '') : null;
  const extra = note && note[1].startsWith('with ') ? note[1].slice('with '.length) : '';
  return { line, command, skip, extra };
}

const commands = blocks(README, 'sh').flatMap(({ body }) =>
  body
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
    .map(parseCommand),
);

/**
 * A `solve` the README gives without a seed runs with this one: the test's time then does not
 * hang on luck (an unseeded `solve -n 400` once took 27 s here; seeds 1 to 6 took 4.5 to 7.4 s).
 */
const UNSEEDED_SOLVE_SEED = '--seed 1';

/** What bash runs for a README command: `npx nqueens-islands` is the built binary. */
function shellLine(c: Command): string {
  const seed = /^npx nqueens-islands solve\b/.test(c.command) && !/\s--seed\b/.test(`${c.command} ${c.extra}`) ? UNSEEDED_SOLVE_SEED : '';
  return `${c.command.replace(/^npx nqueens-islands\b/, `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`)} ${c.extra} ${seed}`.trim();
}

/** Every key path of a JSON value: objects by key, arrays by their first element. */
function keyPaths(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.length > 0 && typeof value[0] === 'object' ? keyPaths(value[0], `${at}[]`) : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => [`${at}.${key}`, ...keyPaths(v, `${at}.${key}`)]);
}

describe('README.md', () => {
  it('is at most 300 lines and has the two quick-start commands', () => {
    assert.ok(README.split('\n').length <= 300, `${README.split('\n').length} lines`);
    const quick = blocks(README, 'sh')[0].body;
    assert.match(quick, /^npx nqueens-islands solve -n 200$/m);
    assert.match(quick, /^npm test\b/m);
  });

  for (const c of commands) {
    it(`runs: ${c.command}${c.extra ? ` (with ${c.extra})` : ''}`, (t) => {
      if (c.skip !== null) return t.skip(c.skip);
      assert.match(c.command, /^npx nqueens-islands /, 'a README command is the tool, or is marked `# test: skip, REASON`');
      const r = spawnSync('bash', ['-c', shellLine(c)], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
      assert.equal(r.status, 0, `${c.line}\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(0, 2000)}`);
    });
  }

  it('the JSON example was made by this version (package.json), laid out by scripts/readme-example.mjs', async () => {
    const { exampleBlock, formatRecord } = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'readme-example.mjs')).href)) as {
      exampleBlock(text: string): { start: number; end: number };
      formatRecord(record: unknown): string;
    };
    const { start, end } = exampleBlock(README);
    const block = README.slice(start, end);
    const record = JSON.parse(block) as { provenance: { version: string; commit: string } };
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(record.provenance.version, version, 'rerun: npm run build && node scripts/readme-example.mjs');
    assert.match(record.provenance.commit, /^[0-9a-f]{40}$/, 'made by a build of a commit');
    assert.equal(`${formatRecord(record)}\n`, block, 'the block is as the script writes it');
  });

  const sources = [
    ['README.md', README],
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => [`docs/${f}`, readFileSync(path.join(ROOT, 'docs', f), 'utf8')]),
  ];
  for (const [name, text] of sources) {
    for (const { body, at } of blocks(text, 'json')) {
      it(`${name}: the JSON example at character ${at} parses, and has the keys its command prints now`, () => {
        const example: unknown = JSON.parse(body);
        const made = /`(npx nqueens-islands [^`]*--json)`[^`]*$/.exec(text.slice(Math.max(0, at - 600), at));
        if (made === null) return;
        const r = spawnSync('bash', ['-c', shellLine(parseCommand(made[1]))], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
        const printed: unknown = JSON.parse(r.stdout);
        assert.deepEqual(keyPaths(example).sort(), keyPaths(printed).sort(), made[1]);
      });
    }
  }
});
