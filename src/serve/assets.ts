/**
 * The page's files (src/serve/page/: HTML, CSS and plain browser modules, no build step),
 * shipped in the package and read once: the view needs no network but this server.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../package-info.ts';

export interface PageAsset {
  body: string;
  type: string;
}

const FILES: Record<string, string> = {
  '/': 'index.html',
  '/style.css': 'style.css',
  '/app.js': 'app.js',
  '/draw.js': 'draw.js',
  '/run-view.js': 'run-view.js',
  '/study-view.js': 'study-view.js',
  '/cell-overlay.js': 'cell-overlay.js',
  '/heat.js': 'heat.js',
  '/timeline.js': 'timeline.js',
  '/lineage.js': 'lineage.js',
};
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

let loaded: Map<string, PageAsset> | null = null;

/** The asset served at `pathname`, or null. */
export function pageAsset(pathname: string): PageAsset | null {
  loaded ??= new Map(
    Object.entries(FILES).map(([route, file]) => [
      route,
      { body: readFileSync(path.join(packageRoot(), 'src', 'serve', 'page', file), 'utf8'), type: TYPES[path.extname(file)] },
    ]),
  );
  return loaded.get(pathname) ?? null;
}
