/**
 * The package as users get it: `npm pack`, installed into an empty project, type-checked and
 * compiled with `tsc --strict`, and run. The program is docs/library.md's example, verbatim (README links to it).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIXTURES, ROOT as root } from './paths.ts';
import { after, describe, it } from 'node:test';

const example = path.join(FIXTURES, 'library-example.ts');
const dir = mkdtempSync(path.join(tmpdir(), 'nq-package-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(command: string, args: string[], cwd: string) {
  const r = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  assert.equal(r.status, 0, `${command} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** npm's complaint about a dependency whose `engines` this Node does not meet (`npm warn EBADENGINE Unsupported engine`). */
const ENGINE_WARNING = /EBADENGINE|Unsupported engine/;

/**
 * Strict consumers, skipLibCheck off. The root entry's types need neither Node's types nor the
 * NATS client's (whose declarations want `Symbol.asyncDispose`, which lib es2022 lacks), so
 * they check with `"types": []`; the cluster entry is checked with Node's types, as its users
 * have them (and lib es2022 without the DOM's, as @tsconfig/node20 sets it), in the same tsc
 * run as the example (`cluster.ts` beside `example.ts`); the root check keeps the default lib
 * (es2022 with the DOM's), as a consumer without Node's types has it. Every declaration file
 * of the package and of its dependencies is checked; TypeScript's own lib.*.d.ts are not
 * (skipDefaultLibCheck): they are the same for every consumer, an error our types cause is
 * reported in our files, and checking them (and the DOM's) costs more CPU than the rest.
 */
const ROOT_CONSUMER =
  "import { solve, type SolveRecord } from 'nqueens-islands';\nconst r: SolveRecord = await solve({ n: 8 });\nexport const solved: boolean = r.solved;\n";
const CLUSTER_CONSUMER =
  "import { startHost, joinCluster } from 'nqueens-islands/cluster';\nimport { solve } from 'nqueens-islands';\nexport const f = [startHost, joinCluster, solve];\n";

describe('the packed package', () => {
  it('is the docs/library.md example, verbatim', () => {
    const readme = readFileSync(path.join(root, 'docs', 'library.md'), 'utf8');
    assert.ok(
      readme.includes(`\`\`\`ts\n${readFileSync(example, 'utf8')}\`\`\``),
      'docs/library.md holds test/fixtures/library-example.ts',
    );
  });

  it('installs into an empty project, type-checks strictly and solves N = 16', () => {
    // `npm test` has built dist/ already: pack what is there.
    const packed = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root)) as {
      filename: string;
      files: { path: string }[];
    }[];
    const files = packed[0].files.map((f) => f.path);
    for (const file of [
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/workers/island-worker.js',
      'dist/kernel/paper.wasm',
      'dist/build-info.json',
      'config/default.yaml',
      'src/serve/page/app.js',
    ])
      assert.ok(files.includes(file), `the package has ${file}`);
    // Study folders are evidence for the repository's readers (docs/defaults.md), not code: the
    // package leaves them out (about 9 MB), and keeps the study files that make them.
    assert.ok(files.includes('config/experiments/default-migration-2/n200.yaml'), 'the package has the study files');
    assert.deepEqual(
      files.filter((f) => /^config\/experiments\/[^/]+\/results\//.test(f)),
      [],
      'the package leaves study results out',
    );
    const project = path.join(dir, 'project');
    run('mkdir', ['-p', project], dir);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'uses-nqueens-islands', private: true, type: 'module' }));
    // The registry's packages come from npm's cache when they are there (npm ci put them there).
    // Node's types are this checkout's (@types/node as package.json pins it, by --typeRoots
    // below), not installed again: their install took as much CPU as all the package's dependencies.
    const install = spawnSync(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', path.join(dir, packed[0].filename)],
      { cwd: project, encoding: 'utf8', timeout: 300_000, env: { ...process.env, npm_config_update_notifier: 'false' } },
    );
    assert.equal(install.status, 0, `npm install failed:\n${install.stdout}\n${install.stderr}`);
    // A clean install on this Node (20 in CI): no dependency asks for a newer one (issue 37: @nats-io/nuid@3 wanted 22).
    assert.doesNotMatch(`${install.stdout}\n${install.stderr}`, ENGINE_WARNING);
    copyFileSync(example, path.join(project, 'example.ts'));
    writeFileSync(path.join(project, 'cluster.ts'), CLUSTER_CONSUMER);
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    // Type-checked strictly and compiled in one tsc run (any type error fails it), then run as
    // compiled JavaScript, as a user's build would.
    run(
      process.execPath,
      [
        tsc,
        '--strict',
        '--skipLibCheck',
        'false',
        '--skipDefaultLibCheck',
        '--target',
        'es2022',
        '--lib',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--typeRoots',
        path.join(root, 'node_modules', '@types'),
        '--types',
        'node',
        '--outDir',
        'out',
        'example.ts',
        'cluster.ts',
      ],
      project,
    );
    const stdout = run(process.execPath, ['out/example.js'], project);
    writeFileSync(path.join(project, 'root.ts'), ROOT_CONSUMER);
    writeFileSync(
      path.join(project, 'tsconfig.root.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          skipLibCheck: false,
          skipDefaultLibCheck: true,
          noEmit: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          types: [],
        },
        files: ['root.ts'],
      }),
    );
    run(process.execPath, [tsc, '-p', 'tsconfig.root.json'], project);
    assert.match(stdout, /^N=16 solved by island [01] at iteration \d+: (\d+ ){15}\d+$/m);
    assert.match(stdout, /solution: true/);
    assert.match(stdout, /^N=32 (solved|stopped|max-iterations): fitness \d+ after \d+ evaluations$/m);
    assert.match(stdout, /^4 runs in /m);
  });
});
