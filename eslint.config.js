// ESLint flat config: the recommended JavaScript rules plus typescript-eslint's type-aware
// recommended set, checked against tsconfig.test.json (sources, workers, bench and tests).
// kernel/ is AssemblyScript (its own types, compiled by asc) and is not linted here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const SRC_FOLDERS = [
  'io',
  'problem',
  'schema',
  'ga',
  'topology',
  'migration-policy',
  'archipelago',
  'config',
  'run',
  'experiment',
  'report',
  'serve',
  'cluster',
  'cli',
];

/**
 * One no-restricted-imports entry per folder of src: every other folder not in its list is
 * forbidden. src/ga and src/problem also stay free of threads and of zod at run time (a GA
 * mode's option schema is built from the Fields kit it is handed).
 */
function layerRules(mayImport) {
  return SRC_FOLDERS.map((folder) => {
    const forbidden = SRC_FOLDERS.filter((other) => other !== folder && !mayImport[folder].includes(other));
    const pure = folder === 'ga' || folder === 'problem';
    const patterns = [];
    if (forbidden.length > 0)
      patterns.push({
        regex: `(^|/)(${forbidden.join('|')})/`,
        message: `src/${folder} may import only ${mayImport[folder].map((f) => `src/${f}`).join(', ') || 'nothing of src'}: dependencies point down.`,
      });
    if (pure)
      patterns.push({
        group: ['zod'],
        allowTypeImports: true,
        message: 'Only types from zod: options are built from the Fields kit a registry entry is handed.',
      });
    return {
      files: [`src/${folder}/**/*.ts`],
      rules: {
        '@typescript-eslint/no-restricted-imports': [
          'error',
          {
            ...(pure ? { paths: [{ name: 'node:worker_threads', message: 'The GA core knows nothing of threads.' }] } : {}),
            patterns,
          },
        ],
      },
    };
  });
}

/**
 * The floors inside one folder of src (src/report: data, statistics, figures, page, exports):
 * each sub-folder may import only the sub-folders listed for it; the folder's own top-level
 * files may import them all. ESLint's own no-restricted-imports, so that these add to the
 * folder's rules (a second setting of the same rule would replace them).
 */
function innerFloors(folder, mayImport) {
  const subs = Object.keys(mayImport);
  const forbiddenTo = (sub) => subs.filter((other) => other !== sub && !mayImport[sub].includes(other));
  return subs.flatMap((sub) => {
    const forbidden = forbiddenTo(sub);
    if (forbidden.length === 0) return [];
    const below = mayImport[sub].map((f) => `src/${folder}/${f}`).join(', ') || `no other folder of src/${folder}`;
    const patterns = [
      { regex: `(^|/)(${forbidden.join('|')})/`, message: `src/${folder}/${sub} may import only ${below}: dependencies point down.` },
    ];
    return [{ files: [`src/${folder}/${sub}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } }];
  });
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'kernel/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    // The live view's page: plain browser modules (no build step), outside the TypeScript project.
    files: ['src/serve/page/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'module',
      globals: {
        document: 'readonly',
        location: 'readonly',
        EventSource: 'readonly',
        requestAnimationFrame: 'readonly',
        URLSearchParams: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
  {
    // A disable comment that no longer silences anything fails too (it would hide the next real hit).
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: {
      parserOptions: {
        project: './tsconfig.test.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }],
        },
      ],
      // Interfaces here declare callbacks in method syntax (a launcher's terminate, a port's
      // handlers) and hand them on; flagging every hand-off would push `this: void` everywhere.
      '@typescript-eslint/unbound-method': 'off',
      // Ambient declarations (kernel.ts types the little of WebAssembly it uses) are not namespaces in code.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  // Dependencies point down (docs/ARCHITECTURE.md, "The map"): each folder of src may import
  // only the folders listed for it; the root modules (index.ts, package-info.ts, ...) are the
  // library's entry or leaves anyone may use; src/report's sub-folders have floors of their own.
  // test/lint-layers.test.ts shows an upward import failing.
  ...layerRules({
    io: [],
    problem: ['io'],
    schema: ['io'],
    ga: ['problem', 'schema', 'io'],
    topology: ['ga', 'problem', 'schema', 'io'],
    'migration-policy': ['ga', 'problem', 'schema', 'io'],
    archipelago: ['topology', 'migration-policy', 'ga', 'problem', 'schema', 'io'],
    config: ['archipelago', 'topology', 'migration-policy', 'ga', 'problem', 'schema', 'io'],
    run: ['config', 'archipelago', 'topology', 'migration-policy', 'ga', 'problem', 'schema', 'io'],
    experiment: ['run', 'config', 'archipelago', 'topology', 'migration-policy', 'ga', 'problem', 'schema', 'io'],
    report: ['experiment', 'run', 'config', 'archipelago', 'topology', 'migration-policy', 'ga', 'problem', 'schema', 'io'],
    serve: ['report', 'experiment', 'run', 'config', 'archipelago', 'topology', 'migration-policy', 'ga', 'problem', 'schema', 'io'],
    cluster: ['experiment', 'run', 'config', 'archipelago', 'topology', 'migration-policy', 'ga', 'problem', 'schema', 'io'],
    cli: [
      'serve',
      'cluster',
      'report',
      'experiment',
      'run',
      'config',
      'archipelago',
      'topology',
      'migration-policy',
      'ga',
      'problem',
      'schema',
      'io',
    ],
  }),
  ...innerFloors('report', {
    data: [],
    statistics: ['data'],
    figures: ['statistics', 'data'],
    page: ['figures', 'statistics', 'data'],
    exports: ['page', 'figures', 'statistics', 'data'],
  }),
  // Short functions and files (docs/development.md, "Code style"), counted in raw lines as an
  // editor shows them (comments and blank lines too). test/lint-layers.test.ts shows both failing.
  {
    files: ['src/**/*.ts', 'workers/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // Tests read the tool's JSON output untyped on purpose: they assert on its shape.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain JavaScript (this file, build scripts): not in a tsconfig, so no type-aware rules; Node's globals.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' },
    },
  },
  {
    // The code-cache loader and its build step are CommonJS scripts (scripts/bundle.mjs says why).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
