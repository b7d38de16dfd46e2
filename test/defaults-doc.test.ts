/**
 * docs/defaults.md states the default migration of `solve`; the code's default config must
 * be that one. Changing either alone fails here (issue 38: the doc follows the evidence, the
 * code follows the doc).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIG_FILE } from '../src/config/config-file.ts';
import { readConfigFile } from '../src/config/load.ts';
import { ROOT } from './cli-helpers.ts';

describe('docs/defaults.md and the default config agree', () => {
  it("the doc's stated migration is the one solve runs with no flags", () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'defaults.md'), 'utf8');
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
    for (const [key, value] of Object.entries(fields)) assert.equal(String(config.migration[key]), value, `migration.${key}`);
    assert.deepEqual(Object.keys(fields).sort(), ['emigrantSelection', 'interval', 'lag', 'migrants', 'mode', 'replacement']);
  });
});
