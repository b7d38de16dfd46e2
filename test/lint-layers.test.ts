// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
/**
 * The layer matrix of eslint.config.js (docs/ARCHITECTURE.md, "The map"): every folder of src
 * is in it, `npm run lint` applies it (and so holds the whole tree to it), and an import that
 * points up fails. Only the import rules run here (no type information), so this is quick.
 * Inside a folder, where the matrix says nothing, the import graph of src has no circle.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ROOT as root } from './paths.ts';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import ts from 'typescript';

const RULE = '@typescript-eslint/no-restricted-imports';
const { default: config } = (await import(pathToFileURL(path.join(root, 'eslint.config.js')).href)) as { default: Linter.Config[] };
const layers = config.filter((c) => c.rules?.[RULE] !== undefined);
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { '@typescript-eslint': tseslint.plugin as unknown as ESLint.Plugin },
    },
    ...layers,
  ],
});

async function importErrors(file: string, line: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${line}\nexport {};\n`, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

describe('the layer matrix', () => {
  it('names every folder of src', () => {
    const folders = readdirSync(path.join(root, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const covered = layers
      .flatMap((c) => c.files ?? [])
      .map((f) => String(f).split('/')[1])
      .sort();
    assert.deepEqual(covered, folders);
  });

  // `npm run lint` (ESLint over the whole tree with eslint.config.js, in `npm test` and CI) is
  // what holds every file of src to the matrix; linting src again here would repeat it.
  it('is what `npm run lint` applies to each folder of src', async () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { lint: string } };
    assert.match(pkg.scripts.lint, /^eslint \. /);
    const lint = new ESLint({ cwd: root });
    for (const layer of layers) {
      const file = path.join(root, String(layer.files![0]).replace('**/*.ts', 'any.ts'));
      assert.equal(await lint.isPathIgnored(file), false, file);
      const applied = (await lint.calculateConfigForFile(file)) as Linter.Config;
      assert.deepEqual(applied.rules?.[RULE], [2, (layer.rules![RULE] as [string, object])[1]], file);
    }
  });

  const upward: [string, string, RegExp][] = [
    ['src/run/result-record.ts', "import { parseNatsUrl } from '../cluster/nats-url.ts';", /src\/run may import only/],
    ['src/schema/fields.ts', "import { x } from '../config/locator.ts';", /src\/schema may import only src\/io/],
    ['src/topology/kinds/ring.ts', "import { x } from '../../archipelago/codec.ts';", /src\/topology may import only/],
    ['src/migration-policy/replacements/worst.ts', "import { x } from '../../config/schema.ts';", /src\/migration-policy may import only/],
    ['src/archipelago/archipelago.ts', "import { x } from '../config/schema.ts';", /src\/archipelago may import only/],
    ['src/ga/island.ts', "import { x } from '../archipelago/codec.ts';", /src\/ga may import only/],
    ['src/experiment/runner.ts', "import type { X } from '../report/statistics/stats.ts';", /src\/experiment may import only/],
    ['src/io/write-file.ts', "import { x } from '../problem/validate.ts';", /src\/io may import only nothing of src/],
    ['src/report/page/html.ts', "import { x } from '../cli/output.ts';", /src\/report may import only/],
    ['src/ga/island.ts', "import { Worker } from 'node:worker_threads';", /knows nothing of threads/],
    ['src/problem/fitness.ts', "import { z } from 'zod';", /Only types from zod/],
  ];
  for (const [file, line, message] of upward) {
    it(`refuses in ${file}: ${line}`, async () => {
      const errors = await importErrors(file, line);
      assert.equal(errors.length, 1, `one error, got ${JSON.stringify(errors)}`);
      assert.match(errors[0], message);
    });
  }

  it('lets imports point down', async () => {
    assert.deepEqual(await importErrors('src/cli/main.ts', "import { x } from '../cluster/bus.ts';"), []);
    assert.deepEqual(await importErrors('src/run/result-record.ts', "import { x } from '../config/nats-url.ts';"), []);
    assert.deepEqual(await importErrors('src/ga/island.ts', "import type { z } from 'zod';"), []);
    assert.deepEqual(await importErrors('src/migration-policy/replacements/worst.ts', "import { x } from '../../ga/rng.ts';"), []);
  });
});

describe("src/report's floors", () => {
  const INNER = 'no-restricted-imports';
  const floors = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      ...config.filter((c) => c.rules?.[INNER] !== undefined),
    ],
  });
  const errors = async (file: string, line: string) =>
    (await floors.lintText(`${line}\nexport {};\n`, { filePath: path.join(root, file) }))[0].messages.map((m) => m.message);

  it('refuses an import that points up from data, statistics, figures or page', async () => {
    assert.match(
      (await errors('src/report/statistics/summary.ts', "import { x } from '../page/table.ts';"))[0],
      /statistics may import only/,
    );
    assert.match(
      (await errors('src/report/data/study-data.ts', "import { x } from '../statistics/stats.ts';"))[0],
      /data may import only no other/,
    );
    assert.match(
      (await errors('src/report/figures/charts.ts', "import { x } from '../exports/ioh-export.ts';"))[0],
      /figures may import only/,
    );
    assert.match((await errors('src/report/page/html.ts', "import { x } from '../exports/figure-files.ts';"))[0], /page may import only/);
  });

  it('lets imports point down, and the top of src/report import every floor', async () => {
    assert.deepEqual(await errors('src/report/page/html.ts', "import { x } from '../statistics/stats.ts';"), []);
    assert.deepEqual(await errors('src/report/exports/figure-files.ts', "import { x } from '../page/table.ts';"), []);
    assert.deepEqual(await errors('src/report/report-outputs.ts', "import { x } from './exports/ioh-export.ts';"), []);
  });
});

/**
 * The relative imports of a module: static and type-only ones, re-exports and `import()` alike
 * (a circle of types still ties the files' meaning together; a lazy `import()` still needs the
 * module it is loaded from).
 */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  const add = (specifier: ts.Expression | undefined) => {
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.'))
      out.push(path.posix.join(path.posix.dirname(file), specifier.text));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return out;
}

/** The circles of an import graph (file -> files it imports): its strongly connected parts of two files or more, or a file importing itself (Tarjan). */
function importCircles(files: ReadonlyMap<string, string>): string[][] {
  const graph = new Map([...files].map(([file, text]) => [file, importsOf(file, text).filter((to) => files.has(to))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const to of graph.get(file)!) {
      if (!index.has(to)) visit(to);
      if (stack.includes(to)) low.set(file, Math.min(low.get(file)!, low.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const part = stack.splice(stack.indexOf(file));
    if (part.length > 1 || graph.get(file)!.includes(file)) circles.push(part.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

function sourcesOf(folder: string): Map<string, string> {
  const files = readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.posix.join(folder, f.split(path.sep).join('/')));
  return new Map(files.map((f) => [f, readFileSync(path.join(root, f), 'utf8')]));
}

describe('the import graph', () => {
  it('has no circle in src', () => {
    assert.deepEqual(importCircles(sourcesOf('src')), []);
  });

  it('finds a circle of imports, type-only imports, re-exports and import() alike', () => {
    const files = new Map([
      ['src/a/x.ts', "import type { Y } from './y.ts';\nexport type X = Y;"],
      ['src/a/y.ts', "export { z as Y } from '../b/z.ts';"],
      ['src/b/z.ts', "export const z = async () => (await import('../a/x.ts')).x;"],
      ['src/b/w.ts', "import { z } from './z.ts';\nimport { v } from './v.ts';"],
      ['src/b/v.ts', "import { v } from './v.ts';"],
    ]);
    assert.deepEqual(importCircles(files), [['src/a/x.ts', 'src/a/y.ts', 'src/b/z.ts'], ['src/b/v.ts']]);
    files.set('src/b/z.ts', 'export const z = 1;');
    files.set('src/b/v.ts', 'export const v = 1;');
    assert.deepEqual(importCircles(files), []);
  });
});

describe('the size limits', () => {
  const SIZE_RULES = ['max-lines-per-function', 'max-lines'];
  const sizes = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      ...config.filter((c) => SIZE_RULES.some((rule) => c.rules?.[rule] !== undefined) && c.rules?.['max-lines'] !== 'off'),
    ],
  });
  /** A function of `lines` raw lines (signature and closing brace included): statements, comments and blank lines in turn. */
  const fn = (lines: number) => {
    const body = Array.from({ length: lines - 4 }, (_, i) => ['  x += 1;', '  // why', ''][i % 3]);
    return `export function f(): number {\n  let x = 0;\n${body.join('\n')}\n  return x;\n}\n`;
  };
  const messages = async (file: string, text: string) =>
    (await sizes.lintText(text, { filePath: path.join(root, file) }))[0].messages.map((m) => m.ruleId);

  it('a function of 81 lines fails in src and workers; 80 lines pass (blank lines and comments count)', async () => {
    assert.deepEqual(await messages('src/ga/any.ts', fn(80)), []);
    assert.deepEqual(await messages('src/ga/any.ts', fn(81)), ['max-lines-per-function']);
    assert.deepEqual(await messages('workers/any.ts', fn(81)), ['max-lines-per-function']);
  });

  it('a file of 401 lines fails in src (blank lines and comments count)', async () => {
    const file = (lines: number) =>
      Array.from({ length: lines }, (_, i) => [`export const c${i} = ${i};`, '// why', ''][i % 3]).join('\n') + '\n';
    assert.deepEqual(await messages('src/ga/any.ts', file(400)), []);
    assert.deepEqual(await messages('src/ga/any.ts', file(401)), ['max-lines']);
  });
});
