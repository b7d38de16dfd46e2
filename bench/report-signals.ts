/**
 * How often `report` honours a signal sent the moment it claims the signals (issue 39, class 5):
 * `node dist/bench/report-signals.js BIN [RUNS]` makes a small study with BIN (a built
 * `nqueens-islands.cjs`), then, RUNS times for each of SIGINT, SIGTERM and SIGHUP, starts
 * `report STUDY --html --csv` with the test hook's notes on, signals it right after
 * `signals claimed` (as test/report-signals.test.ts does) and sorts the outcome:
 * `line` (exit 128 + n, the one line, nothing written), `killed` (ended by the signal's default
 * action, nothing written), `lost` (the signal changed nothing: exit 0, files written) or `other`.
 * Prints one JSON line per signal. Run it beside a CPU hog to make the race likelier.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SIGNAL_EXIT_CODE, SIGNAL_NOTE_ENV, type StopSignal } from '../src/cli/signals.ts';

type Outcome = 'line' | 'killed' | 'lost' | 'other';

function signalOnce(bin: string, study: string, out: string, signal: StopSignal): Promise<{ outcome: Outcome; detail: string }> {
  mkdirSync(out);
  const child = spawn(process.execPath, [bin, 'report', study, '--html', path.join(out, 'x.html'), '--csv', path.join(out, 'x.csv')], {
    env: { ...process.env, [SIGNAL_NOTE_ENV]: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    const before = stderr;
    stderr += text;
    if (!before.includes('signals claimed') && stderr.includes('signals claimed')) child.kill(signal);
  });
  return new Promise((resolve) => {
    child.on('close', (code, by) => {
      const written = readdirSync(out);
      const line = stderr.endsWith(`${signal}: report stopped; a file it named as written is whole, no other was written\n`);
      let outcome: Outcome = 'other';
      if (written.length === 0 && code === SIGNAL_EXIT_CODE[signal] && line) outcome = 'line';
      else if (written.length === 0 && by === signal) outcome = 'killed';
      else if (code === 0) outcome = 'lost';
      resolve({ outcome, detail: `code ${code}, signal ${by}, files [${written.join(', ')}], stderr ${JSON.stringify(stderr)}` });
    });
  });
}

async function main(): Promise<void> {
  const [bin, runsText = '200'] = process.argv.slice(2);
  const runs = Number(runsText);
  if (bin === undefined || !Number.isInteger(runs) || runs < 1) {
    process.stderr.write('usage: node dist/bench/report-signals.js BIN [RUNS]\n');
    process.exit(2);
  }
  const tmp = mkdtempSync(path.join(tmpdir(), 'nq-report-signals-'));
  try {
    const file = path.join(tmp, 'study.yaml');
    writeFileSync(
      file,
      'name: signalled\nbase:\n  overrides:\n    n: 8\n    islands: 2\nsweep:\n  migration.interval: [1, 5]\nrepeats: 2\n',
    );
    const study = path.join(tmp, 'study');
    const made = spawnSync(process.execPath, [bin, 'experiment', file, '--out', study], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`experiment: ${made.stderr}`);
    for (const signal of Object.keys(SIGNAL_EXIT_CODE) as StopSignal[]) {
      const counts: Record<Outcome, number> = { line: 0, killed: 0, lost: 0, other: 0 };
      const others: string[] = [];
      for (let i = 0; i < runs; i++) {
        const { outcome, detail } = await signalOnce(bin, study, path.join(tmp, `${signal}-${i}`), signal);
        counts[outcome]++;
        if (outcome === 'other' && others.length < 3) others.push(detail);
      }
      process.stdout.write(`${JSON.stringify({ signal, runs, ...counts, ...(others.length > 0 ? { others } : {}) })}\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
