import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package this code belongs to, found by walking up from this module to its
 * package.json: the same code runs from src/ (tsx) and dist/src/ (built).
 */
let root: string | null = null;
let info: { name: string; version: string } | null = null;

export function packageRoot(): string {
  if (root !== null) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  // existsSync, not a read that throws: every command asks (for --version), and from the
  // bundle (dist/bundle) the package is two folders up.
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above src/');
    dir = parent;
  }
  return (root = dir);
}

/** The tool's name and version from its package.json (read once). */
export function toolInfo(): { name: string; version: string } {
  if (info !== null) return info;
  const pkg = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { name?: string; version?: string };
  return (info = { name: pkg.name ?? 'nqueens-islands', version: pkg.version ?? 'unknown' });
}
