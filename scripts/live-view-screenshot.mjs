// Makes docs/live-view.png, the README's picture of the live view, from a real run: a seeded
// `solve --serve 0` of the built CLI, watched in headless Chromium (playwright-core) until the
// run is over, then photographed. Beside it, docs/live-view.png.json records the version the
// page showed and the command, which test/live-view-doc.test.ts holds to package.json's version.
// Needs Chromium (NQI_CHROMIUM, or on PATH).
//
//   npm run screenshot:live     (builds, then: node scripts/live-view-screenshot.mjs [out.png])
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'bundle', 'nqueens-islands.cjs');
const OUT = process.argv[2] ?? path.join(ROOT, 'docs', 'live-view.png');
const RUN = ['solve', '-n', '400', '--islands', '8', '--topology', 'ring', '--migration', 'sync', '--interval', '5'];
const LIMITS = ['--seed', '11', '--max-iterations', '400', '--quiet', '--serve', '0'];

const chromiumPath = process.env.NQI_CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => existsSync(file));
if (!chromiumPath) throw new Error('Chromium not found: apt-get install chromium, or set NQI_CHROMIUM');
if (!existsSync(CLI)) throw new Error(`${CLI}: missing; run npm run build first`);

const run = spawn(process.execPath, [CLI, ...RUN, ...LIMITS], { stdio: ['ignore', 'ignore', 'pipe'] });
const url = await new Promise((resolve, reject) => {
  let stderr = '';
  run.stderr.on('data', (chunk) => {
    stderr += chunk.toString();
    if (stderr.includes('\n')) resolve(stderr.slice(0, stderr.indexOf('\n')));
  });
  run.on('close', (code) => reject(new Error(`solve ended (${code}) before printing its URL: ${stderr}`)));
});
const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 1 });
  await page.goto(url);
  // The server sends the last view before it closes: the page then has the whole run.
  await page.waitForSelector('body[data-state="over"]', { timeout: 600_000 });
  await page.screenshot({ path: OUT, fullPage: true });
  const version = await page.locator('#tool').getAttribute('data-version');
  const command = ['nqueens-islands', ...RUN, ...LIMITS].join(' ');
  writeFileSync(`${OUT}.json`, `${JSON.stringify({ version, command }, null, 2)}\n`);
  console.log(`wrote ${OUT} (version ${version}) from ${command}`);
} finally {
  await browser.close();
  run.kill();
}
