/**
 * Writes dist/build-info.json: the git commit the build was made from and whether tracked
 * files had changes (staged or not). Untracked files do not count: outputs a user's commands
 * wrote into the clone (solution.txt, results) are no change of the code, and would otherwise
 * stamp every later build "dirty" and stop `experiment --resume` of a study made before. Outputs carry it as their
 * provenance (src/provenance.ts). Without git or outside a repository: commit "unknown".
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

let info = { commit: 'unknown', dirty: null };
try {
  const commit = git('rev-parse', 'HEAD');
  if (/^[0-9a-f]{40}$/.test(commit)) info = { commit, dirty: git('status', '--porcelain', '--untracked-files=no').length > 0 };
} catch {
  // No git, or not a repository (a package unpacked from a tarball): the commit is unknown.
}
mkdirSync(new URL('../dist/', import.meta.url), { recursive: true });
writeFileSync(new URL('../dist/build-info.json', import.meta.url), `${JSON.stringify(info)}\n`);
