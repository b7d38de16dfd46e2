// @unit: in-process and quick; `npm run test:unit` runs it.
/**
 * Issue 39, class 6 ("library calls with holes, BigInt or null options"), held out for the
 * options argument: every library call that takes options refuses null, a misspelt option
 * and an option of the wrong type with a ConfigError (an InputError) naming it, before any
 * island starts or any connection is tried (the cluster's calls failed with TypeErrors, and a
 * misspelt `signa` was dropped without a word). The root's other functions with arguments
 * (figureData, paperSeconds, largeNAdvice, topologies.edges, studyReport) check theirs. The broker in the cluster rows is never
 * reached: port 1 on the loopback, where nothing listens.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  figureData,
  InputError,
  largeNAdvice,
  paperSeconds,
  runExperiment,
  solve,
  startRun,
  studyReport,
  topologies,
} from '../src/index.ts';
import { joinCluster, listHosts, startHost } from '../src/cluster/index.ts';

const NATS = 'nats://127.0.0.1:1';
const study = { name: 'x', base: { overrides: { n: 8 } }, sweep: { islands: [1] } };
const run = { n: 8, seed: 1 };
type Call = () => unknown;
const any = (value: unknown) => value as never;

const cases: [string, Call, RegExp][] = [
  [
    'startRun: a misspelt option',
    () => startRun(run, any({ signa: 1 })),
    /^startRun options: unknown option "signa"; did you mean "signal"\?$/,
  ],
  [
    'solve: signal not an AbortSignal',
    () => solve(run, any({ signal: {} })),
    /^startRun options: signal: expected an AbortSignal, got a mapping$/,
  ],
  [
    'solve: cluster not joined hosts',
    () => solve(run, any({ cluster: 5 })),
    /^startRun options: cluster: expected the hosts joinCluster gives \(from 'nqueens-islands\/cluster'\), got 5$/,
  ],
  ['solve: checkpoint a string', () => solve(run, any({ checkpoint: 'x' })), /^startRun options: checkpoint: expected an object, got "x"$/],
  [
    'solve: an unknown option',
    () => solve(run, any({ threads: 2 })),
    /^startRun options: unknown option "threads"; expected one of signal, cluster, checkpoint$/,
  ],
  [
    'runExperiment: resume a string',
    () => runExperiment(any(study), any({ resume: 'yes' })),
    /^runExperiment options: resume: expected true or false, got "yes"$/,
  ],
  [
    'runExperiment: a hook not a function',
    () => runExperiment(any(study), any({ hooks: { onPlan: 5 } })),
    /^runExperiment options: hooks\.onPlan: expected a function, got 5$/,
  ],
  [
    'runExperiment: out a number',
    () => runExperiment(any(study), any({ out: 5 })),
    /^runExperiment options: out: expected a string, got 5$/,
  ],
  [
    'runExperiment: a cluster without nats',
    () => runExperiment(any(study), any({ cluster: { hosts: 1 } })),
    /^runExperiment options: cluster: nats: missing; expected the broker's URL/,
  ],
  ['joinCluster: null', () => joinCluster(any(null)), /^joinCluster options: expected an object of options, got null$/],
  ['joinCluster: {}', () => joinCluster(any({})), /^joinCluster options: nats: missing;/],
  [
    'joinCluster: misspelt',
    () => joinCluster(any({ nats: NATS, hosts: 1, waitMS: 5 })),
    /^joinCluster options: unknown option "waitMS"; did you mean "waitMs"\?$/,
  ],
  [
    'joinCluster: hosts a string',
    () => joinCluster(any({ nats: NATS, hosts: '2' })),
    /^joinCluster options: hosts: expected a number, got "2"$/,
  ],
  [
    'joinCluster: auth misspelt',
    () => joinCluster(any({ nats: NATS, hosts: 1, auth: { credFile: 'x' } })),
    /^joinCluster options: auth: unknown option "credFile"; did you mean "credsFile"\?$/,
  ],
  ['startHost: null', () => startHost(any(null)), /^startHost options: expected an object of options, got null$/],
  [
    'startHost: extensions a string',
    () => startHost(any({ nats: NATS, extensions: 'x.js' })),
    /^startHost options: extensions: expected a list of strings, got "x\.js"$/,
  ],
  [
    'startHost: log not a function',
    () => startHost(any({ nats: NATS, log: true })),
    /^startHost options: log: expected a function, got true$/,
  ],
  ['listHosts: {}', () => listHosts(any({})), /^listHosts options: nats: missing;/],
  [
    'listHosts: a BigInt',
    () => listHosts(any({ nats: NATS, waitMs: 5n })),
    /^listHosts options: waitMs: expected a whole number of milliseconds from 1 to 2147483647 \(Node's longest timer\), got 5n \(a BigInt\)$/,
  ],
  // Past Node's longest timer a timeout fires after 1 ms: a wait of 1e21 ms would not wait at all.
  [
    'listHosts: a wait past the longest timer',
    () => listHosts(any({ nats: NATS, waitMs: 1e21 })),
    /^listHosts options: waitMs: expected a whole number of milliseconds from 1 to 2147483647 \(Node's longest timer\), got 1e\+21$/,
  ],
  [
    'joinCluster: a heartbeat of NaN',
    () => joinCluster(any({ nats: NATS, hosts: 1, heartbeatMs: Number.NaN })),
    /^joinCluster options: heartbeatMs: expected a whole number of milliseconds/,
  ],
  [
    'joinCluster: a negative ack wait',
    () => joinCluster(any({ nats: NATS, hosts: 1, ackWaitMs: -5 })),
    /^joinCluster options: ackWaitMs: expected a whole number of milliseconds from 1/,
  ],
  // The root's other functions with arguments: the same ConfigError, not a TypeError or a NaN.
  ['figureData: null', () => figureData(any(null)), /^figureData: study: expected an object, got null$/],
  ['figureData: no runs', () => figureData(any({ manifest: {} })), /^figureData: study\.runs: missing; expected a list$/],
  ['paperSeconds: null', () => paperSeconds(any(null), 2), /^paperSeconds: n: expected an integer >= 1, got null$/],
  ['paperSeconds: a fraction of cores', () => paperSeconds(100, 0.5), /^paperSeconds: parallel: expected an integer >= 1, got 0\.5$/],
  ['largeNAdvice: null', () => largeNAdvice(any(null), 2), /^largeNAdvice: run: expected an object, got null$/],
  ['largeNAdvice: no ga', () => largeNAdvice(any({ n: 5000 }), 2), /^largeNAdvice: run\.ga: missing; expected an object$/],
  [
    'topologies.edges: a seed as text',
    () => topologies.edges({ kind: 'ring' }, 4, any('x')),
    /^topologies\.edges: seed: expected an integer >= 0, got "x"$/,
  ],
  ['studyReport: null', () => studyReport(any(null)), /^studyReport: dir: expected a string, got null$/],
  ['studyReport: options a number', () => studyReport('.', any(5)), /^studyReport options: expected an object of options, got 5$/],
];

describe('library options are checked: null, misspelt or mistyped is a ConfigError naming it', () => {
  for (const [name, call, expected] of cases) {
    it(name, async () => {
      await assert.rejects(Promise.resolve().then(call), (error: unknown) => {
        assert.ok(error instanceof InputError, `not an InputError: ${String(error)}`);
        assert.match(error.message, expected);
        return true;
      });
    });
  }
  it('an option given as undefined is absent, and a run with good options runs', async () => {
    const record = await solve(run, { signal: undefined, checkpoint: undefined });
    assert.equal(record.solved, true);
  });
  it('good arguments give what they gave before', () => {
    assert.equal(paperSeconds(100, 1), 6.1e-5 * 100 ** 1.8);
    assert.equal(largeNAdvice({ n: 8, ga: { mode: 'paper' } }, 2), null);
    assert.match(largeNAdvice({ n: 100_000, ga: { mode: 'paper' } }, 2) ?? '', /^paper mode at N = 100000 would take/);
    assert.equal(topologies.edges({ kind: 'ring' }, 3, 7).length, 3);
  });
});
