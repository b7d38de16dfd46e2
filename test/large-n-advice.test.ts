/**
 * Large-N advice: paper mode says before it starts that a large N takes hours and points to
 * --mode hybrid; the estimate follows the fitted power law, and the memory refusal names hybrid
 * mode for a hopeless paper run.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveRunConfig } from '../src/config/resolve.ts';
import { largeNAdvice, paperSeconds, PAPER_CPU_MODEL } from '../src/config/run-time.ts';
import { cliInProcess } from './cli-helpers.ts';

describe('large-N advice', () => {
  it('paper mode says, before it starts, that a large N takes hours and points to --mode hybrid', async () => {
    // --max-iterations 1 and a population of 2 with no bad repository keep the run short (the
    // advice depends on N, the mode and the cores only); it comes before any population is built.
    const r = await cliInProcess([
      'solve',
      '-n',
      '40000',
      '--islands',
      '1',
      '--max-iterations',
      '1',
      '--population',
      '2',
      '--bad-repository-size',
      '0',
      '--seed',
      '1',
      '-q',
    ]);
    const advice = r.stderr
      .split('\n')
      .filter((line) => /paper mode at N = 40000 would take at least about [\d.]+ (hours|days)/.test(line));
    assert.equal(advice.length, 1, r.stderr);
    assert.match(advice[0], /--mode hybrid/);
    const small = await cliInProcess(['solve', '-n', '40', '--seed', '1', '-q']);
    assert.equal(small.code, 0);
    assert.doesNotMatch(small.stderr, /paper mode at N/);
    const hybrid = await cliInProcess([
      'solve',
      '-n',
      '40000',
      '--mode',
      'hybrid',
      '--islands',
      '1',
      '--max-iterations',
      '1',
      '--seed',
      '1',
      '-q',
    ]);
    assert.doesNotMatch(hybrid.stderr, /paper mode at N/);
  });

  it('the estimate follows the fitted power law, and the memory refusal names hybrid mode for a hopeless paper run', () => {
    const { coefficient, exponent } = PAPER_CPU_MODEL;
    assert.equal(paperSeconds(2000, 2), (coefficient * 2000 ** exponent) / 2);
    assert.ok(paperSeconds(4000, 1) / paperSeconds(2000, 1) > 3, 'superlinear in N');
    assert.equal(largeNAdvice({ n: 2000, ga: { mode: 'paper' } }, 2), null);
    assert.equal(largeNAdvice({ n: 10 ** 6, ga: { mode: 'hybrid' } }, 2), null);
    const env = { availableParallelism: 2, totalMemory: 16e9 };
    assert.throws(
      () => resolveRunConfig({ n: 10 ** 6 }, 'test', {}, env),
      (e: Error) => /more than the 12\.0 GB this machine allows.*would take at least about .*--mode hybrid/.test(e.message),
    );
    assert.equal(resolveRunConfig({ n: 10 ** 6, ga: { mode: 'hybrid' } }, 'test', {}, env).n, 10 ** 6);
  });
});
