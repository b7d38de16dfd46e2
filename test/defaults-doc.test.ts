/**
 * docs/defaults.md states the default migration of `solve`; the code's default config must
 * be that one. Changing either alone fails here (issue 38: the doc follows the evidence, the
 * code follows the doc). Its table of every default is the code's (src/config/defaults-doc.ts),
 * and so is every other default its prose names.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIG_FILE } from '../src/config/config-file.ts';
import { readConfigFile } from '../src/config/load.ts';
import { MIGRATION_MODE_BY_N, migrationModeByNText } from '../src/config/defaults.ts';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { defaultRows, defaultsTable, type DefaultRow } from '../src/config/defaults-doc.ts';
import { REGISTRIES } from '../src/config/registries.ts';
import { TOPOLOGY_REGISTRY } from '../src/topology/kinds/registry.ts';
import { studyTable } from '../bench/defaults-tables.ts';
import { ruleMarkdown, ruleVerdict } from '../bench/defaults-rule.ts';
import { ROOT } from './cli-helpers.ts';
import { nodeArgsFor } from './paths.ts';
import { handMadeStudy } from './hand-study.ts';

const PAGE = path.join(ROOT, 'docs', 'defaults.md');
/** The study folders the page's evidence was made from, kept in the repository so a referee can redo every number. */
const STUDIES = path.join(ROOT, 'config', 'experiments', 'default-migration-2', 'results');
const DM2 = /<!-- dm2-tables:begin -->\n([\s\S]*?)<!-- dm2-tables:end -->/;
/** The confirmatory study of issue 45 (docs/defaults.md, "The confirmatory rule"), and the page's block made from it. */
const CONFIRMATORY = path.join(ROOT, 'config', 'experiments', 'default-migration-3', 'results');
const DM3 = /<!-- dm3-rule:begin -->\n([\s\S]*?)<!-- dm3-rule:end -->/;
/** The commit that added the rule, and that built the study: the page names it. */
const RULE_COMMIT = /run from the build of commit ([0-9a-f]{7,40})/;
/** Prettier pads the tables' cells; the words are the script's. */
const words = (text: string) => text.replace(/-{3,}/g, '---').replace(/\s+/g, ' ').trim();
const TABLE = /(<!-- code-defaults:begin -->\n)([\s\S]*?)(<!-- code-defaults:end -->)/;

/** The code's default of `key` where it always applies, as the value it parses to. */
function codeDefault(rows: readonly DefaultRow[], key: string): unknown {
  const row = rows.find((r) => r.key === key && r.when === '');
  assert.ok(row, `the code has a default for ${key}`);
  return JSON.parse(row.value);
}

/** A Markdown table's cells, row by row, however it is padded (prettier aligns the columns). */
function cells(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/^-+$/, '-')),
    );
}

describe('docs/defaults.md and the default config agree', () => {
  it("the page's table of every default is the code's", () => {
    const page = readFileSync(PAGE, 'utf8');
    const fresh = defaultsTable();
    if (process.env.NQI_WRITE_DEFAULTS_DOC === '1')
      writeFileSync(
        PAGE,
        page.replace(TABLE, (_, begin: string, _old: string, end: string) => `${begin}\n${fresh}\n\n${end}`),
      );
    const table = TABLE.exec(readFileSync(PAGE, 'utf8'));
    assert.ok(table, 'docs/defaults.md has the <!-- code-defaults:begin --> and end markers');
    assert.deepEqual(
      cells(table[2]),
      cells(fresh),
      'docs/defaults.md: the table of defaults differs from the code; regenerate it with NQI_WRITE_DEFAULTS_DOC=1',
    );
    // Every registry's defaults are in it: a mode's, a kind's option, a policy's option.
    for (const row of [
      '| `ga.populationSize` | `ga.mode takeover` | `64` |',
      '| `topology.probability` | `topology.kind random` | `0.5` |',
      '| `migration.tournamentSize` | `emigrantSelection tournament` | `2` |',
    ])
      assert.ok(fresh.includes(row), row);
  });

  it('a default changed in a registry changes the table (so the page check above can fail)', () => {
    const random = TOPOLOGY_REGISTRY.find((d) => d.kind === 'random')!;
    const changed = { ...random, options: (f: Parameters<typeof random.options>[0]) => ({ probability: f.probability().default(0.25) }) };
    const rows = defaultRows({ ...REGISTRIES, topologies: TOPOLOGY_REGISTRY.map((d) => (d === random ? changed : d)) });
    assert.ok(defaultsTable(rows).includes('| `topology.probability` | `topology.kind random` | `0.25` |'));
    assert.notEqual(defaultsTable(rows), defaultsTable());
  });

  it("the opening's ring of `islands = cores` is the code's default topology and island count", () => {
    const opening = /on solve's default (\S+) of\s+`islands = cores`/.exec(readFileSync(PAGE, 'utf8'));
    assert.ok(opening, "docs/defaults.md's opening names solve's default topology and islands");
    const rows = defaultRows();
    assert.equal(codeDefault(rows, 'topology.kind'), opening[1]);
    // null = os.availableParallelism(): the cores.
    assert.equal(codeDefault(rows, 'islands'), null);
  });

  it("the doc's stated migration is the one solve runs with no flags", () => {
    const doc = readFileSync(PAGE, 'utf8');
    const stated = /\*\*The default:\*\* `migration: \{([^}]*)\}`/.exec(doc.replace(/\n/g, ' '));
    assert.ok(stated, 'docs/defaults.md opens with **The default:** `migration: { ... }`');
    const fields = Object.fromEntries(
      stated[1].split(',').map((kv) => {
        const [k, v] = kv.split(':').map((t) => t.trim());
        return [k, v.replace(/^"|"$/g, '')];
      }),
    );
    // The file as written (resolving turns "2%" into a count).
    const config = readConfigFile(DEFAULT_CONFIG_FILE) as { migration: Record<string, unknown> };
    const rows = defaultRows();
    for (const [key, value] of Object.entries(fields)) {
      assert.equal(String(config.migration[key]), value, `migration.${key} of config/default.yaml`);
      assert.equal(String(codeDefault(rows, `migration.${key}`)), value, `migration.${key} of the schema`);
    }
    assert.deepEqual(Object.keys(fields).sort(), ['emigrantSelection', 'interval', 'lag', 'migrants', 'mode', 'replacement']);
  });

  it("the doc's mode by board size is the code's, and solve resolves it so on both sides of each boundary", () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'defaults.md'), 'utf8').replace(/\n/g, ' ');
    const stated = /\*\*By board size:\*\* `mode: null` is ([^.]*)\./.exec(doc);
    assert.ok(stated, 'docs/defaults.md says **By board size:** `mode: null` is ...');
    assert.equal(stated[1], migrationModeByNText());
    const file = readConfigFile(DEFAULT_CONFIG_FILE) as Record<string, unknown>;
    const env = { availableParallelism: 2, totalMemory: 8e9 };
    const modeAt = (n: number) => resolveRunConfig({ ...file, n }, 'default.yaml', {}, env).migration.mode;
    for (const [i, range] of MIGRATION_MODE_BY_N.entries()) {
      const from = i === 0 ? 4 : MIGRATION_MODE_BY_N[i - 1].upTo! + 1;
      for (const n of [from, range.upTo ?? 2 * from]) assert.equal(modeAt(n), range.mode, `n = ${n}`);
    }
  });

  it("the confirmatory rule's block is the script's, made from the kept study folders, and the code's mode by N is its decision", () => {
    const kept = readdirSync(CONFIRMATORY)
      .filter((d) => /^dm3-n\d+$/.test(d))
      .sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
    assert.deepEqual(kept, ['dm3-n50', 'dm3-n100', 'dm3-n200', 'dm3-n500', 'dm3-n1000', 'dm3-n2000']);
    const verdict = ruleVerdict(kept.map((d) => path.join(CONFIRMATORY, d)));
    const page = DM3.exec(readFileSync(PAGE, 'utf8'));
    assert.ok(page, 'docs/defaults.md has the dm3-rule markers');
    assert.equal(words(page[1]), words(ruleMarkdown(verdict)));
    assert.deepEqual(MIGRATION_MODE_BY_N, verdict.modeByN, "src/config/defaults.ts MIGRATION_MODE_BY_N is the rule's decision");
    // Every seed the study files ask for is in (none censored or lost), so the rule's power statement holds.
    assert.deepEqual(
      verdict.sizes.map((s) => [s.n, s.seeds, s.censored]),
      [
        [50, 40, 0],
        [100, 100, 0],
        [200, 60, 0],
        [500, 30, 0],
        [1000, 12, 0],
        [2000, 12, 0],
      ],
    );
  });

  it('the confirmatory study ran from the build of the commit that wrote its rule, after that commit', () => {
    const named = RULE_COMMIT.exec(readFileSync(PAGE, 'utf8').replace(/\n/g, ' '));
    assert.ok(named, 'docs/defaults.md names the commit the confirmatory study ran from');
    for (const d of readdirSync(CONFIRMATORY)) {
      const manifest = JSON.parse(readFileSync(path.join(CONFIRMATORY, d, 'manifest.json'), 'utf8')) as {
        provenance: { commit: string; dirty: boolean };
        startedAt: string;
      };
      assert.ok(
        manifest.provenance.commit.startsWith(named[1]) && !manifest.provenance.dirty,
        `${d} ran from a clean build of ${named[1]}`,
      );
      let committed: string;
      try {
        committed = execFileSync('git', ['show', '-s', '--format=%cI', named[1]], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' }).trim();
      } catch {
        // A clone without that history (a shallow one, or none): the manifests above still hold the build to the page.
        continue;
      }
      assert.ok(Date.parse(manifest.startedAt) > Date.parse(committed), `${d} started after its rule was committed`);
      const rule = execFileSync('git', ['show', `${named[1]}:docs/defaults.md`], { cwd: ROOT, encoding: 'utf8' });
      assert.ok(rule.includes('## The confirmatory rule (issue 45), written before its study'), 'the commit holds the rule');
    }
  });

  it("the page's study tables are the script's, made again from the kept study folders", () => {
    const kept = readdirSync(STUDIES)
      .filter((d) => /^dm2-n\d+$/.test(d))
      .sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
    assert.deepEqual(kept, ['dm2-n50', 'dm2-n100', 'dm2-n200', 'dm2-n500', 'dm2-n1000', 'dm2-n2000']);
    const page = DM2.exec(readFileSync(PAGE, 'utf8'));
    assert.ok(page, 'docs/defaults.md has the dm2-tables markers');
    assert.equal(words(page[1]), words(kept.map((d) => studyTable(path.join(STUDIES, d))).join('\n\n')));
  });

  it("bench/defaults-tables.ts writes a study's table between the page's markers, from the report's numbers", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nq-dm2-'));
    try {
      const folder = handMadeStudy(dir, 'dm2-hand', null, {
        1: [1, 2, 3].map((seed) => ({ seed, solved: true, iterations: 10, evaluations: 100 * seed })),
        2: [1, 2, 3].map((seed) => ({ seed, solved: true, iterations: 10, evaluations: 50 * seed })),
      });
      const table = studyTable(folder);
      // ERT of islands=2: (50 + 100 + 150) / 3 = 100; every ratio 0.5. Three pairs reach no 95% interval (the exact
      // signed-rank test's smallest two-sided p is 2/2^3 = 0.25), and the table says so rather than print one.
      assert.match(
        table,
        /\| N = 12, islands=2 \| 3\/3 \| 100 \[\d+, \d+\] \| 0\.500× \(no 95% interval from 3 pairs\), 3 of 3 differ, p Bonf\. /,
      );
      assert.match(table, /\| N = 12, islands=1 \| 3\/3 \| 200 .*\| baseline \| baseline \|/);
      const page = path.join(dir, 'defaults.md');
      writeFileSync(page, 'before\n<!-- dm2-tables:begin -->\nold\n<!-- dm2-tables:end -->\nafter\n');
      execFileSync(process.execPath, [...nodeArgsFor('bench/defaults-tables.ts'), folder, '--write', page], {
        cwd: ROOT,
      });
      const written = readFileSync(page, 'utf8');
      assert.ok(written.startsWith('before\n<!-- dm2-tables:begin -->\n### dm2-hand: 6 of 6 runs'), written);
      assert.ok(written.includes(table) && written.endsWith('<!-- dm2-tables:end -->\nafter\n') && !written.includes('old'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
