/**
 * Paper mode's speed, this build against another, in one run: `solve -n N --seed S --json
 * --quiet` (the default config) with both builds' commands, alternating which goes first
 * seed by seed, so that a noisy machine slows both alike. Prints each pair, then per N the
 * median wall time of each build and the median of the paired ratios this / other. The
 * evaluations of a seed must be the same in both builds (the default migration repeats a
 * run): a difference is reported, since then the times do not compare the same work.
 *
 *   npm run build && node dist/bench/paper-builds.js OTHER/dist [N ...]   (default N: 1000 2000; seeds 1-5)
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface Timed {
  wall: number;
  evaluations: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function fail(line: string): never {
  process.stderr.write(`paper-builds: ${line}\n`);
  process.exit(2);
}

function solve(dist: string, n: number, seed: number): Timed {
  const started = performance.now();
  const out = execFileSync(
    process.execPath,
    [path.join(dist, 'bundle/nqueens-islands.cjs'), 'solve', '-n', String(n), '--seed', String(seed), '--json', '--quiet'],
    {
      encoding: 'utf8',
      cwd: path.dirname(dist),
    },
  );
  const wall = (performance.now() - started) / 1000;
  return { wall, evaluations: (JSON.parse(out) as { evaluations: number }).evaluations };
}

const [otherArg, ...sizes] = process.argv.slice(2);
if (otherArg === undefined || !existsSync(path.join(otherArg, 'bundle/nqueens-islands.cjs')))
  fail(`expected another build's dist/ folder first (with bundle/nqueens-islands.cjs), got ${JSON.stringify(otherArg ?? '')}`);
const ns = sizes.length > 0 ? sizes.map(Number) : [1000, 2000];
if (ns.some((n) => !Number.isInteger(n) || n < 4)) fail(`N: expected integers of 4 or more, got ${sizes.join(' ')}`);
const builds = { this: fileURLToPath(new URL('..', import.meta.url)), other: path.resolve(otherArg) };
const seeds = [1, 2, 3, 4, 5];

for (const n of ns) {
  const pairs: { this: Timed; other: Timed }[] = [];
  for (const seed of seeds) {
    const order = seed % 2 ? (['other', 'this'] as const) : (['this', 'other'] as const);
    const pair = {} as { this: Timed; other: Timed };
    for (const which of order) pair[which] = solve(builds[which], n, seed);
    pairs.push(pair);
    const same = pair.this.evaluations === pair.other.evaluations ? '' : ' (evaluations differ)';
    console.log(`N = ${n}, seed ${seed}: this ${pair.this.wall.toFixed(2)} s, other ${pair.other.wall.toFixed(2)} s${same}`);
  }
  const ratios = pairs.map((p) => p.this.wall / p.other.wall);
  console.log(
    `N = ${n}: median wall this ${median(pairs.map((p) => p.this.wall)).toFixed(2)} s, other ${median(pairs.map((p) => p.other.wall)).toFixed(2)} s; ` +
      `median of paired ratios this / other ${median(ratios).toFixed(3)} (range ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); ` +
      `same evaluations: ${pairs.every((p) => p.this.evaluations === p.other.evaluations) ? 'yes' : 'no'}`,
  );
}
