/**
 * The start-up split `npm run bench` prints (NQI_STARTUP_SPLIT=1, src/cli/startup-split.ts):
 * every milestone of a `solve` is there, in the order a start passes them, and without the
 * variable nothing is added to stderr.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { CLI } from './cli-helpers.ts';
import { MILESTONES } from '../bench/startup-split.ts';

const solve = (env: NodeJS.ProcessEnv) =>
  spawnSync(process.execPath, [CLI, 'solve', '-n', '8', '--seed', '1', '--quiet'], { encoding: 'utf8', env: { ...process.env, ...env } });

describe('start-up split', () => {
  it('solve: every milestone, in order, in ms since the process started', () => {
    const run = solve({ NQI_STARTUP_SPLIT: '1' });
    assert.equal(run.status, 0, run.stderr);
    const line = /^start-up split \(ms since the process started\): (.*)$/m.exec(run.stderr);
    assert.ok(line, run.stderr);
    const marks = line[1].split(', ').map((m) => m.split(' '));
    assert.deepEqual(
      marks.map(([name]) => name).filter((name) => name !== 'workers'),
      MILESTONES.map(([name]) => name).filter((name) => name !== 'workers'),
    );
    // Workers are heard online whenever the main thread is free: before or after the launch.
    assert.ok(
      marks.some(([name]) => name === 'workers'),
      'the pool came online',
    );
    const inOrder = marks.filter(([name]) => name !== 'workers').map(([, ms]) => Number(ms));
    inOrder.forEach((ms, i) => assert.ok(ms > 0 && (i === 0 || ms >= inOrder[i - 1]), line[1]));
  });

  it('off by default: stderr says nothing more', () => {
    const run = solve({ NQI_STARTUP_SPLIT: '' });
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /start-up split/);
  });
});
