/**
 * docs/live-view.png is remade by `npm run screenshot:live` from a seeded run of the built CLI;
 * the script records the version the page showed beside it (docs/live-view.png.json). A
 * version bump without a new screenshot fails here.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { ROOT } from './paths.ts';

it("the live view's screenshot was made by this version", () => {
  const png = path.join(ROOT, 'docs', 'live-view.png');
  assert.ok(existsSync(png), 'docs/live-view.png');
  const made = JSON.parse(readFileSync(`${png}.json`, 'utf8')) as { version: string; command: string };
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.equal(made.version, version, 'rerun `npm run screenshot:live` after a version bump');
  assert.match(made.command, /--seed \d+/, 'made from a seeded run');
});
