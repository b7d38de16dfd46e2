import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BUILT_DEFAULT_FILE, builtDefaultValue, configFileOf, DEFAULT_CONFIG_FILE, runConfigFromArgv } from '../src/config/config-file.ts';
import { overridesFromArgv } from '../src/config/flags.ts';
import { loadConfigFile, readConfigFile } from '../src/config/load.ts';
import type { ResolveEnv } from '../src/config/resolve.ts';

const env: ResolveEnv = { availableParallelism: 4, totalMemory: 16e9 };
const tmp = mkdtempSync(path.join(tmpdir(), 'nqueens-default-config-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe('config/default.yaml as the build stores it (the CLI reads it without the YAML parser)', () => {
  it("the build stored the file's exact text and what the YAML reader makes of it", () => {
    const built = JSON.parse(readFileSync(BUILT_DEFAULT_FILE, 'utf8')) as { text: string; value: unknown };
    assert.equal(built.text, readFileSync(DEFAULT_CONFIG_FILE, 'utf8'), 'dist/config/default.json is stale: run npm run build');
    assert.deepEqual(built.value, readConfigFile(DEFAULT_CONFIG_FILE));
  });

  it('is used only for exactly the text it was built from', () => {
    const file = path.join(tmp, 'built.json');
    writeFileSync(file, JSON.stringify({ text: 'seed: 3\n', value: { seed: 3 } }));
    assert.deepEqual(builtDefaultValue('seed: 3\n', file), { seed: 3 });
    assert.equal(builtDefaultValue('seed: 4\n', file), undefined, 'an edited default file is parsed, not the stale value used');
    assert.equal(builtDefaultValue('seed: 3\n', path.join(tmp, 'missing.json')), undefined);
  });

  it('gives the run config the YAML reader gives, with flags and with --config', async () => {
    for (const argv of [{ n: 12 }, { n: 30, islands: 3, seed: 9, topology: 'star' }, { n: 12, config: 'config/paper.yaml' }]) {
      assert.deepEqual(await runConfigFromArgv(argv, env), loadConfigFile(configFileOf(argv), overridesFromArgv(argv), env));
    }
  });
});
