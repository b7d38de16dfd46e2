/**
 * The library as a newcomer meets it: an operator object given in part, config keys documented
 * as TSDoc (generated fresh), event types and policy names exported by name, runExperiment's
 * default folder, and a throwing events$ subscriber contained.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { filter } from 'rxjs';
import { configDocsSource } from '../src/config/config-docs.ts';
import {
  resolveConfig,
  type BetweenEvent,
  type EmigrantSelectionName,
  type RunConfigInput,
  type SurvivalEvent,
  runExperiment,
  startRun,
} from '../src/index.ts';
import { cliInProcess, ROOT } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-newcomer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

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
    assert.match(fresh, /\/\*\* board size N \(at most 2\^31: rows are 32-bit integers\) \*\/\n {2}n\?: unknown;/);
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

describe("the library's defaults and its events", () => {
  it('runExperiment(spec) without options runs into results/<name>', async () => {
    // The default folder is relative to the working directory (here the repository's, where results/ is ignored by git).
    const name = `nq-rel-no-options-${process.pid}`;
    const folder = join('results', name);
    try {
      const outcome = await runExperiment({ name, base: { overrides: { n: 8, islands: 1, topology: { kind: 'none' } } }, seeds: [1] });
      assert.equal(outcome.completed, 1);
      assert.ok(existsSync(join(folder, 'runs.jsonl')));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
  it('a throwing events$ subscriber (also through pipe) is contained: the run ends normally, a warning says what happened', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const run = startRun({ n: 12, islands: 2, seed: 4, migration: { mode: 'sync', interval: 5 } });
      let seen = 0;
      run.events$.subscribe(() => {
        throw new Error('boom in next');
      });
      run.events$.pipe(filter((e) => e.type !== 'done')).subscribe(() => {
        throw new Error('boom after pipe');
      });
      run.events$.subscribe(() => seen++);
      const record = await run.result;
      assert.equal(record.n, 12);
      assert.ok(seen > 0);
      await new Promise<void>((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings.map((w) => w.message).sort(), ['boom after pipe', 'boom in next']);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
