/**
 * Files are written the careful way (src/io/write-file.ts): a link planted at an output's
 * name or at its temporary name never redirects a write, a file keeps its mode when replaced,
 * and a read-only file is refused before the run, for every output. Through the built binary
 * and the library.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { appendLineSync, writeFileAtomic } from '../src/io/write-file.ts';
import { cliInProcess, oneLine } from './cli-helpers.ts';
import { studyYaml } from './small-study.ts';

const tmp = mkdtempSync(join(tmpdir(), 'nq-rel-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const IS_ROOT = process.geteuid?.() === 0;

/** A user id that is not this process's (nobody). */
const OTHER_UID = 65534;

/** A small study file (fast runs); `sweep` as YAML text. */
const studyFile = (name: string, sweep: string, seeds = '[1, 2]') => studyYaml(tmp, name, `sweep:\n${sweep}\nseeds: ${seeds}`);

// ---------------------------------------------------------------------------------------
// Class 1: no write through another's link; modes kept; read-only files not replaced.

describe('writes cannot be redirected, modes are kept', () => {
  const shared = join(tmp, 'shared');
  const victim = join(tmp, 'victim.txt');
  before(() => {
    mkdirSync(shared);
    // World-writable with the sticky bit, as /tmp.
    chmodSync(shared, 0o1777);
  });

  const writers: [string, (path: string) => string[]][] = [
    ['solve --out', (p) => ['solve', '-n', '8', '--seed', '1', '--quiet', '--out', p]],
    ['solve --checkpoint', (p) => ['solve', '-n', '8', '--seed', '1', '--quiet', '--checkpoint', p]],
    ['solve --trace', (p) => ['solve', '-n', '8', '--seed', '1', '--quiet', '--trace', p]],
  ];

  for (const [name, args] of writers) {
    it(
      `${name}: a link another user planted at the name in a shared sticky folder is refused, its target untouched`,
      { skip: IS_ROOT ? false : 'needs root to plant a link owned by another user' },
      async () => {
        writeFileSync(victim, 'precious\n');
        const planted = join(shared, `${name.replace(/\W+/g, '-')}.out`);
        symlinkSync(victim, planted);
        lchownSync(planted, OTHER_UID, OTHER_UID);
        const r = await cliInProcess(args(planted));
        assert.match(oneLine(r, name), /: is a symbolic link owned by another user in the shared folder .*; not followed$/);
        assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
        assert.ok(lstatSync(planted).isSymbolicLink());
        rmSync(planted);
      },
    );
  }

  it(
    'a folder link another user planted in a shared sticky folder is not followed either (results, traces, study folders)',
    { skip: IS_ROOT ? false : 'needs root to plant a link owned by another user' },
    async () => {
      const victimFolder = mkdtempSync(join(tmp, 'victim-folder-'));
      const planted = join(shared, 'evil');
      symlinkSync(victimFolder, planted);
      lchownSync(planted, OTHER_UID, OTHER_UID);
      const study = studyFile('through-link', '  n: [8]', '[1]');
      for (const args of [
        ['solve', '-n', '8', '--out', join(planted, 'r.json')],
        ['solve', '-n', '8', '--trace', join(planted, 'r.trace')],
        ['experiment', study, '--out', planted],
        ['experiment', study, '--out', join(planted, 'sub')],
      ]) {
        assert.match(
          oneLine(await cliInProcess(args), args.join(' ')),
          /goes through .*evil, a symbolic link owned by another user in the shared folder .*; not followed$/,
        );
      }
      assert.deepEqual(readdirSync(victimFolder), []);
      rmSync(planted);
    },
  );

  it('links planted at the temporary names (the old predictable ones, every pid form) never redirect a write', () => {
    writeFileSync(victim, 'precious\n');
    const target = join(shared, 'result.json');
    const planted = [`.result.json.${process.pid}.tmp`, `.result.json.${process.pid}.0000000000000000.tmp`].map((n) => join(shared, n));
    for (const p of planted) symlinkSync(victim, p);
    for (let i = 0; i < 20; i++) writeFileAtomic(target, `{"i":${i}}\n`);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
    assert.ok(lstatSync(target).isFile() && !lstatSync(target).isSymbolicLink());
    assert.equal(readFileSync(target, 'utf8'), '{"i":19}\n');
    for (const p of planted) assert.ok(lstatSync(p).isSymbolicLink(), 'the planted links are left alone');
    // Only the planted links and the file: no temporary file left.
    assert.deepEqual(
      readdirSync(shared)
        .filter((f) => f.includes('result'))
        .sort(),
      ['.result.json.' + process.pid + '.0000000000000000.tmp', `.result.json.${process.pid}.tmp`, 'result.json'].sort(),
    );
  });

  it("a study's runs.jsonl that is a planted link is refused (ELOOP), not written through", () => {
    writeFileSync(victim, 'precious\n');
    const runs = join(shared, 'runs.jsonl');
    symlinkSync(victim, runs);
    assert.throws(() => appendLineSync(runs, '{}'), { code: 'ELOOP' });
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
  });

  it('a link of this user is followed: the file it names is replaced, the link stays', async () => {
    const real = join(tmp, 'real.json');
    const link = join(tmp, 'link.json');
    writeFileSync(real, 'old\n');
    symlinkSync(real, link);
    const r = await cliInProcess(['solve', '-n', '8', '--seed', '1', '--quiet', '--out', link]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(JSON.parse(readFileSync(real, 'utf8')).solved, true);
  });

  for (const mode of [0o600, 0o640, 0o664, 0o755]) {
    it(`a ${mode.toString(8)} file keeps its mode when replaced (--out, --trace)`, async () => {
      const out = join(tmp, `mode-${mode.toString(8)}.json`);
      const trace = join(tmp, `mode-${mode.toString(8)}.trace`);
      for (const f of [out, trace]) {
        writeFileSync(f, 'x');
        chmodSync(f, mode);
      }
      const r = await cliInProcess(['solve', '-n', '8', '--seed', '1', '--quiet', '--out', out, '--trace', trace]);
      assert.equal(r.code, 0, r.stderr);
      for (const f of [out, trace]) assert.equal(statSync(f).mode & 0o7777, mode, f);
    });
  }

  it('a read-only (444) file is refused before the run, for every output, and left as it was', async () => {
    const cases: [string, string[]][] = [
      ['--out', ['solve', '-n', '8', '--seed', '1']],
      ['--checkpoint', ['solve', '-n', '8', '--seed', '1']],
      ['--trace', ['solve', '-n', '8', '--seed', '1']],
    ];
    for (const [flag, args] of cases) {
      const file = join(tmp, `ro${flag}`);
      writeFileSync(file, 'mine\n');
      chmodSync(file, 0o444);
      const line = oneLine(await cliInProcess([...args, flag, file]), flag);
      assert.match(line, new RegExp(`^${flag} .*: is read-only \\(mode 444\\); not replaced`));
      assert.equal(readFileSync(file, 'utf8'), 'mine\n');
      assert.equal(statSync(file).mode & 0o777, 0o444);
    }
  });
});
