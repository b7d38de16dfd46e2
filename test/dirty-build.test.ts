/**
 * A build is "dirty" when tracked files changed, not for the outputs the README's commands
 * write (nor an untracked results folder), so a study made before still resumes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from './cli-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-edges-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the build is "dirty" when tracked files changed, not for outputs', () => {
  /** A repository holding what scripts/build-info.mjs needs; its dist/build-info.json after a "build". */
  const repo = path.join(dir, 'clone');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const buildInfo = () => {
    execFileSync(process.execPath, [path.join(repo, 'scripts', 'build-info.mjs')], { cwd: repo });
    return JSON.parse(readFileSync(path.join(repo, 'dist', 'build-info.json'), 'utf8')) as { commit: string; dirty: boolean };
  };

  it("the README's commands' outputs (and an untracked results folder) leave the build clean: a study made before resumes", () => {
    mkdirSync(path.join(repo, 'scripts'), { recursive: true });
    for (const file of ['scripts/build-info.mjs', '.gitignore', 'README.md']) copyFileSync(path.join(ROOT, file), path.join(repo, file));
    git('init', '-q');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'clone');
    const before = buildInfo();
    assert.equal(before.dirty, false);
    // Every file a README command writes, where it writes it (relative ones inside the clone).
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const outputs = [...readme.matchAll(/^npx nqueens-islands .*$/gm)].flatMap((m) =>
      [...m[0].matchAll(/--(?:out|html|csv|trace|checkpoint) (\S+)/g)].map((o) => o[1]),
    );
    assert.ok(outputs.length >= 4, outputs.join(' '));
    const inClone = outputs.filter((o) => !path.isAbsolute(o));
    for (const output of inClone) {
      // A study's --out is a folder (the report's files go inside it); the others are files.
      if (inClone.some((other) => other.startsWith(`${output}/`))) mkdirSync(path.join(repo, output), { recursive: true });
      else {
        mkdirSync(path.dirname(path.join(repo, output)), { recursive: true });
        writeFileSync(path.join(repo, output), 'an output\n');
      }
    }
    writeFileSync(path.join(repo, 'notes.txt'), 'an untracked file of the user\n');
    // The same build stamp: a study's manifest made by the first build matches the second (`--resume` is accepted).
    assert.deepEqual(buildInfo(), before);
    // The README's relative outputs all land in ignored folders; the others outside the clone.
    for (const output of inClone) assert.equal(git('check-ignore', output).trim(), output);
    writeFileSync(path.join(repo, 'README.md'), `${readme}\nchanged\n`);
    assert.equal(buildInfo().dirty, true, 'a tracked file changed is dirty');
  });
});
