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
  // existsSync before any read (a read that throws is slower): every command asks (for
  // --version), and from the bundle (dist/bundle) the package is two folders up.
  while (!isPackageRoot(dir)) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above src/');
    dir = parent;
  }
  return (root = dir);
}

/**
 * A folder with a package.json that names a package: dist/bundle's own package.json names
 * none (it only makes piscina's bundled worker.js there CommonJS, scripts/bundle.mjs).
 */
function isPackageRoot(dir: string): boolean {
  const file = path.join(dir, 'package.json');
  return existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name !== undefined;
}

/** The tool's name and version from its package.json (read once). */
export function toolInfo(): { name: string; version: string } {
  if (info !== null) return info;
  const pkg = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { name?: string; version?: string };
  return (info = { name: pkg.name ?? 'nqueens-islands', version: pkg.version ?? 'unknown' });
}
