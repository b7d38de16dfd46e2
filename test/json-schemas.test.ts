/**
 * JSON Schemas for editors: config/run-config.schema.json and config/experiment.schema.json
 * accept every shipped file and are current; migration.mode is a literal type in the library.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import YAML from 'yaml';
import { z } from 'zod';
import type { RunConfigInput } from '../src/index.ts';
import { cliInProcess, ROOT } from './cli-helpers.ts';

describe('JSON Schemas for editors: run configs and study files', () => {
  /** Shipped files of a kind, under config/ (YAML or JSON, not the schemas). */
  const shipped = (folder: string, skip: string[] = []): string[] => {
    const files: string[] = [];
    const walk = (at: string) => {
      for (const entry of readdirSync(at)) {
        const p = path.join(at, entry);
        if (statSync(p).isDirectory()) {
          if (!skip.includes(entry)) walk(p);
        } else if (/\.(ya?ml|json)$/.test(entry) && !entry.endsWith('.schema.json')) files.push(p);
      }
    };
    walk(path.join(ROOT, 'config', folder));
    return files;
  };
  /** A validator made from the committed JSON Schema itself (zod reads JSON Schema), not from the zod schema it was made from. */
  const validator = (file: string) => z.fromJSONSchema(JSON.parse(readFileSync(path.join(ROOT, 'config', file), 'utf8')));

  it('config/run-config.schema.json accepts every shipped run config, config/default.yaml (no n) included', () => {
    const schema = validator('run-config.schema.json');
    const files = shipped('', ['experiments', 'hpc']);
    assert.ok(files.some((f) => f.endsWith('default.yaml')) && files.length >= 11, files.join(' '));
    for (const file of files) {
      const r = schema.safeParse(YAML.parse(readFileSync(file, 'utf8')));
      assert.ok(r.success, `${file}: ${JSON.stringify(r.error?.issues)}`);
    }
    assert.equal(schema.safeParse({ n: 8, migration: { mode: 'synch' } }).success, false);
  });

  it('config/experiment.schema.json (`config schema --study`) accepts every shipped study and is current', async () => {
    const schema = validator('experiment.schema.json');
    // config/experiments holds studies and the run configs some of them start from (base.yaml).
    const parsed = shipped('experiments', ['results']).map((file) => ({ file, value: YAML.parse(readFileSync(file, 'utf8')) as object }));
    const isStudy = (value: object) => ['sweep', 'base', 'repeats', 'seeds'].some((key) => key in value);
    assert.ok(parsed.filter((p) => isStudy(p.value)).length >= 10);
    const runConfig = validator('run-config.schema.json');
    for (const { file, value } of parsed) {
      const r = (isStudy(value) ? schema : runConfig).safeParse(value);
      assert.ok(r.success, `${file}: ${JSON.stringify(r.error?.issues)}`);
    }
    assert.equal(schema.safeParse({ sweep: { n: [] } }).success, false, 'an empty value list');
    assert.equal(schema.safeParse({ sweeps: { n: [8] } }).success, false, 'an unknown key');
    const printed = await cliInProcess(['config', 'schema', '--study']);
    assert.equal(printed.code, 0);
    assert.deepEqual(
      JSON.parse(printed.stdout),
      JSON.parse(readFileSync(path.join(ROOT, 'config', 'experiment.schema.json'), 'utf8')),
      'regenerate it: config schema --study > config/experiment.schema.json',
    );
  });

  it('migration.mode is a literal type in the library, as ga modes, topologies and policies are', () => {
    // @ts-expect-error a misspelt migration mode is a type error (the build fails if it is not)
    const typo: RunConfigInput = { n: 8, migration: { mode: 'synch' } };
    const fine: RunConfigInput = { n: 8, migration: { mode: 'lagged', lag: 2 } };
    assert.notEqual(typo, fine);
  });
});
