/**
 * `report --ioh` and `--figures` write folders: checked before any work, written whole (a
 * killed or failed export leaves nothing that blocks a retry), and written through a link to an
 * empty folder.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliInProcess } from './cli-helpers.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel4-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const studyFile = (name: string) => studyYaml(tmp, name, 'seeds: [1, 2]');

describe('--ioh is checked before any work and written whole', () => {
  const study = join(tmp, 'study-3');
  before(async () => assert.equal((await cliInProcess(['experiment', studyFile('s4'), '--out', study])).code, 0));
  it('a missing parent folder is refused at once, nothing printed or written', async () => {
    const r = await cliInProcess(['report', study, '--ioh', join(tmp, 'absent', 'ioh'), '--csv', join(tmp, 'c.csv')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--ioh .*: folder .*absent does not exist/);
    assert.equal(r.stdout, '');
    assert.equal(existsSync(join(tmp, 'c.csv')), false);
  });
  it('an export is written whole: no temporary folder stays, and a second export to a fresh folder works', async () => {
    const out = join(tmp, 'ioh-ok');
    assert.equal((await cliInProcess(['report', study, '--ioh', out])).code, 0);
    assert.ok(readdirSync(out).length > 0);
    assert.deepEqual(
      readdirSync(tmp).filter((f) => f.endsWith('.tmp')),
      [],
    );
  });
  it("a killed export's staging folder (SIGKILL: no handler ran) is removed by the next export to that name; others stay", async () => {
    const parent = join(tmp, 'killed');
    mkdirSync(parent);
    const dead = spawnSync(process.execPath, ['-e', '']).pid; // a process that has ended
    const stale = join(parent, `.ioh.${dead}.${'a'.repeat(16)}.tmp`);
    mkdirSync(join(stale, 'n12'), { recursive: true });
    writeFileSync(join(stale, 'n12', 'half.dat'), '1 2\n');
    const kept = [
      `.ioh.${process.pid}.${'b'.repeat(16)}.tmp`, // a live export's
      `.other.${dead}.${'c'.repeat(16)}.tmp`, // another folder's
      `.ioh.${dead}.${'d'.repeat(16)}.tmp`, // a link, never followed or removed
    ];
    mkdirSync(join(parent, kept[0]));
    mkdirSync(join(parent, kept[1]));
    symlinkSync(join(parent, kept[0]), join(parent, kept[2]));
    const r = await cliInProcess(['report', study, '--ioh', join(parent, 'ioh')]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readdirSync(parent).sort(), [...kept, 'ioh'].sort());
    assert.ok(readdirSync(join(parent, 'ioh')).length > 0);
  });
  it('a failed export leaves nothing that blocks a retry (--ioh on /dev/full is refused as a folder)', async () => {
    const r = await cliInProcess(['report', study, '--ioh', '/dev/full']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--ioh \/dev\/full: is a file; expected a missing or empty folder/);
  });
});

describe('report --figures and --ioh onto a link to an empty folder', () => {
  it('write through the link into the folder it names (was a failure after the work)', async () => {
    const study = join(tmp, 'for-links');
    const file = join(tmp, 'links.yaml');
    writeFileSync(file, 'base: { overrides: { n: 8, islands: 1, limits: { maxIterations: 50 } } }\nrepeats: 1\nseed: 1\n');
    assert.equal((await cliInProcess(['experiment', file, '--out', study, '--quiet'])).code, 0);
    for (const flag of ['--figures', '--ioh']) {
      const folder = join(tmp, `empty${flag}`);
      mkdirSync(folder);
      symlinkSync(folder, `${folder}-link`);
      const r = await cliInProcess(['report', study, flag, `${folder}-link`]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(readdirSync(folder).length > 0, `${flag}: files in the linked folder`);
      assert.ok(lstatSync(`${folder}-link`).isSymbolicLink(), 'the link stays');
    }
  });
});
