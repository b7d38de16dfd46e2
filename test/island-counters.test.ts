/**
 * The measures are declared once (src/archipelago/island-counters.ts): every place that
 * keeps, checks or totals them goes by the table, so each measure, whatever its name, makes
 * the same way through the lagged history, the report message's shape, a run's island and
 * a study's record and its schema.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BuildStopped } from '../src/ga/errors.ts';
import { combineMeasures, MEASURE_NAMES, MEASURES, measuresOf, type Measures } from '../src/archipelago/island-counters.ts';
import { islandSummary } from '../src/archipelago/events.ts';
import { FOREIGN_MESSAGE_SHAPES } from '../src/archipelago/message-shapes.ts';
import { LagHistory } from '../src/archipelago/modes/lag-history.ts';
import { stoppedInBuild } from '../src/archipelago/stopped-in-build.ts';
import { runRecordSchema } from '../src/experiment/record-schema.ts';

/** Each measure a value of its own (10, 20, ...), so a swap or a loss shows. */
function distinct(base: number): Measures {
  return Object.fromEntries(MEASURE_NAMES.map((name, k) => [name, base + 10 * (k + 1)])) as Measures;
}

describe('the measures, declared once', () => {
  it('the lagged history gives back every measure as it was at each iteration held', () => {
    const history = new LagHistory();
    for (let t = 0; t < 5; t++) history.record(t, 100 + t, 7 - t, distinct(t));
    for (let t = 0; t < 5; t++)
      assert.deepEqual(history.at(t), { iterations: t, evaluations: 100 + t, bestFitness: 7 - t, ...distinct(t) });
  });

  it('combines each measure over the islands as the table says; one an older record lacks counts 0', () => {
    const islands = [distinct(0), distinct(1), { migrantsSent: 3, migrantsAccepted: 1 }];
    const total = combineMeasures(islands);
    for (const [k, name] of MEASURE_NAMES.entries()) {
      const older = name === 'migrantsSent' ? 3 : name === 'migrantsAccepted' ? 1 : 0;
      const counts = [10 * (k + 1), 1 + 10 * (k + 1), older];
      const expected = MEASURES[name] === 'sum' ? counts[0] + counts[1] + counts[2] : Math.max(...counts);
      assert.equal(total[name], expected, name);
    }
    assert.deepEqual(measuresOf({ migrantsSent: 2, migrantsAccepted: 1 }), { ...measuresOf({}), migrantsSent: 2, migrantsAccepted: 1 });
  });

  it('an island report without any one measure is refused; an island summary carries each', () => {
    const report = { ...stoppedInBuild(0, new BuildStopped(null, 5), 1), ...distinct(0) };
    assert.ok(FOREIGN_MESSAGE_SHAPES.report.safeParse(report).success);
    for (const name of MEASURE_NAMES) {
      const { [name]: _gone, ...without } = report;
      assert.equal(FOREIGN_MESSAGE_SHAPES.report.safeParse(without).success, false, name);
    }
    const summary = islandSummary({ id: 0, iterations: 1, evaluations: 2, evaluationsAfterSolution: null, bestFitness: 3, ...distinct(0) });
    assert.deepEqual(measuresOf(summary), distinct(0));
  });

  it("a study record's totals are checked as counts, each of them", () => {
    const record = {
      cell: 'a',
      values: {},
      seed: 1,
      solved: false,
      fitness: 1,
      seconds: 0,
      iterations: 1,
      evaluations: 2,
      foundBy: null,
      stopLatencyMs: null,
      islands: [],
      solution: null,
      error: null,
      finishedAt: '2026-01-01T00:00:00.000Z',
      ...distinct(0),
    };
    assert.ok(runRecordSchema.safeParse(record).success);
    for (const name of MEASURE_NAMES) assert.equal(runRecordSchema.safeParse({ ...record, [name]: -1 }).success, false, name);
  });
});
