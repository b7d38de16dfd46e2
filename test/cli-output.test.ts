/**
 * What the CLI prints: colour only where the stream takes it, `report -q` without notes,
 * `config print` without -n, and a long tuple's pointer to the --out file given.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it, after } from 'node:test';
import { cli, cliInProcess, ROOT } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-edges-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('colour', () => {
  it('colour only where the stream takes it: FORCE_COLOR for a pipe, never by default or under FORCE_COLOR=0', () => {
    const forced = cli(['solve', '-n', '8', '--seed', '1'], { env: { FORCE_COLOR: '1' } });
    const ESC = '\u001b';
    assert.ok(forced.stdout.startsWith(`${ESC}[1m${ESC}[32msolved${ESC}[39m${ESC}[22m N=8: `), JSON.stringify(forced.stdout.slice(0, 40)));
    assert.ok(forced.stderr.startsWith(`${ESC}[1m${ESC}[36mnqueens-islands:`), JSON.stringify(forced.stderr.slice(0, 40)));
    for (const env of [{}, { FORCE_COLOR: '0' }, { NO_COLOR: '1' }]) {
      const plain = cli(['solve', '-n', '8', '--seed', '1'], { env: { FORCE_COLOR: undefined, ...env } });
      assert.ok(!(plain.stdout + plain.stderr).includes(ESC), JSON.stringify(env));
      assert.match(plain.stdout, /^solved N=8: /);
    }
  });
});

describe('report -q', () => {
  it('report -q prints the summary and no notes', async () => {
    const study = path.join(dir, 'q.yaml');
    writeFileSync(study, 'base: { overrides: { n: 8, islands: 1 } }\nsweep:\n  n: [8, 9]\nrepeats: 1\n');
    const out = path.join(dir, 'q');
    assert.equal((await cliInProcess(['experiment', study, '--out', out, '-q'])).code, 0);
    const csv = path.join(dir, 'q.csv');
    const loud = await cliInProcess(['report', out, '--csv', csv]);
    assert.match(loud.stderr, /wrote .*q\.csv/);
    const quiet = await cliInProcess(['report', out, '--csv', csv, '-q']);
    assert.equal(quiet.code, 0);
    assert.equal(quiet.stderr, '');
    assert.equal(quiet.stdout, loud.stdout);
  });
});

describe('config print and long tuples', () => {
  it('config print without -n prints the config with n unset and says so', async () => {
    const r = await cliInProcess(['config', 'print']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^# n is not set \(give -n N, or n: in the file\); values that depend on it are null\.$/m);
    assert.match(r.stdout, /^n: null$/m);
    assert.match(r.stdout, /^ {2}badRepositorySize: null$/m, 'floor(sqrt(n)) cannot be known yet');
    assert.match(r.stdout, /^ {2}populationSize: 1000$/m);
    const json = await cliInProcess(['config', 'print', '--json', '--islands', '3']);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).n, null);
    assert.equal(JSON.parse(json.stdout).islands, 3);
    assert.match(json.stderr, /n is not set/);
    assert.match((await cliInProcess(['config', 'print', '-n', '25'])).stdout, /^ {2}badRepositorySize: 5$/m);
    assert.equal((await cliInProcess(['config', 'print', '--interval', 'ten'])).code, 2);
  });
  it('a long tuple points to the --out file given, not to --out', async () => {
    const out = path.join(dir, 'long.txt');
    const r = await cliInProcess([
      'solve',
      '--config',
      path.join(ROOT, 'config/large-n.yaml'),
      '-n',
      '300',
      '--seed',
      '1',
      '--islands',
      '1',
      '--out',
      out,
      '--quiet',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`290 more; all of them in ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
    assert.doesNotMatch(r.stdout, /use --out/);
    assert.match((await cliInProcess(['verify', '--file', out])).stdout, /290 more; --all prints them\)/);
  });
});
