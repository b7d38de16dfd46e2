import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BaselineRun {
  iterations: number;
  evaluations: number;
  /** The program's own search time. */
  seconds: number;
  /** The whole process, as a command (start and exit included). */
  wallSeconds: number;
  solved: boolean;
}

/** Compiles bench/baseline.c (the same reading in plain C) with the machine's cc, -O2. */
export function compileBaseline(): string {
  // Compiled, this module runs from dist/bench/; the C source stays in bench/.
  const here = import.meta.url;
  const source = fileURLToPath(new URL(here.includes('/dist/') ? '../../bench/baseline.c' : './baseline.c', here));
  const binary = join(mkdtempSync(join(tmpdir(), 'nq-bench-')), 'baseline');
  execFileSync('cc', ['-O2', '-o', binary, source, '-lm']);
  return binary;
}

/** Solves N for a seed (or runs exactly `iterations` iterations) with the C baseline. */
export function runBaseline(binary: string, n: number, seed: number, iterations?: number): BaselineRun {
  const args = [String(n), String(seed), ...(iterations === undefined ? [] : [String(iterations)])];
  const t0 = performance.now();
  const out = execFileSync(binary, args, { encoding: 'utf8' });
  const wallSeconds = (performance.now() - t0) / 1000;
  const [it, evals, seconds, solved] = out.trim().split(' ').map(Number);
  return { iterations: it, evaluations: evals, seconds, wallSeconds, solved: solved === 1 };
}
