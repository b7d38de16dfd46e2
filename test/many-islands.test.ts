/**
 * An island costs its populations, not a thread (issue 33): 256 islands at N = 64 on 2
 * threads start at most 2 worker threads (and whatever few Node starts besides) and peak
 * under 1 GB of resident memory. Its own file: the peak is this process's, from its start.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as library from '../src/index.ts';
import { osThreads } from './helpers.ts';

describe('many islands on few threads', () => {
  it('256 islands at N = 64 on 2 threads: at most 2 more threads than Node has besides, and a peak under 1 GB', async () => {
    const before = osThreads();
    const run = library.startRun({ n: 64, seed: 2, islands: 256, threads: 2, limits: { maxIterations: 3 } });
    let during: number | null = null;
    // 'started': every island passed the start gate, so every thread the run uses is up.
    run.events$.subscribe((e) => {
      if (e.type === 'started') during = osThreads();
    });
    const record = await run.result;
    assert.equal(record.islands.length, 256);
    assert.ok(record.islands.every((i) => i.iterations >= 1 || i.stopReason === 'solved' || i.stopReason === 'other-solved'));
    if (before !== null) {
      assert.notEqual(during, null, 'the run reported its start');
      // The 2 island threads, and at most 4 of libuv's pool that an async file operation may start meanwhile.
      assert.ok(during! - before <= 2 + 4, `threads: ${before} before the run, ${during} during it`);
      assert.ok(during! - before >= 2, `threads: ${before} before the run, ${during} during it (the 2 island threads?)`);
    }
    const peak = process.resourceUsage().maxRSS * 1024;
    assert.ok(peak < 1e9, `peak resident memory ${(peak / 1e6).toFixed(0)} MB`);
  });
});
