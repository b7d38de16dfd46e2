/**
 * What one 40 kB migrants message (N = 1000, 20 chromosomes) costs a relay on the bus: encode
 * on one host, then decode, the carried message's schema and the permutation check of every
 * immigrant on the other, in µs per message (best of 5 batches of 2000, one after another on
 * one core). Builds given with `--baseline-dist DIR` (repeatable) run beside this one, batch
 * by batch, so load falls on all alike:
 *
 *   node dist/bench/bus-codec.js --baseline-dist /work/wt/before149/dist --baseline-dist /tmp/old/dist
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { encode } from '../src/archipelago/codec.ts';

const N = 1000;
const COUNT = 20;
const BATCH = 2000;
const BATCHES = 5;
const KEY = 'bench-cluster-key-0123456789abcdef';
const SUBJECT = 'nqi.run.r1.h2';

/** One message's round trip (encode, decode, checks) of a build; throws if the message is not taken. */
type RoundTrip = (bytes: Uint8Array) => void;

interface Case {
  label: string;
  trip: RoundTrip;
}

async function casesOf(dist: string, label: string): Promise<Case[]> {
  // A build's module by its path since 0.4.4 (src/cluster/bus/...), or the one before.
  const load = async (file: string, before = file) => {
    const at = (name: string) => path.join(dist, 'src', 'cluster', name);
    const found = existsSync(at(file)) ? file : before;
    return (await import(pathToFileURL(at(found)).href)) as Record<string, unknown>;
  };
  const codec = { ...(await load('bus/codec.js', 'bus-codec.js')), ...(await load('bus/carried.js', 'bus-codec.js')) };
  const message = (bytes: Uint8Array) => ({ type: 'migrants', runId: 'r1', from: 0, to: 1, bytes });
  const fail = (what: string) => {
    throw new Error(`${label}: ${what}`);
  };
  if (typeof codec.encodeBus === 'function') {
    // 149011b: no envelope, no key, no checks of the migrants at the relay.
    const encodeBus = codec.encodeBus as (m: object) => Uint8Array;
    const decodeBus = codec.decodeBus as (b: Uint8Array, ...t: string[]) => { kind: string };
    return [
      {
        label: `${label} (unsigned)`,
        trip: (bytes) => void (decodeBus(encodeBus(message(bytes)), 'migrants').kind === 'ok' || fail('dropped')),
      },
    ];
  }
  type Codec = {
    encode(s: string, m: object): Uint8Array;
    decode(s: string, d: Uint8Array, t: string[]): { kind: string; message?: { bytes: Uint8Array } };
  };
  const BusCodec = codec.BusCodec as new (self: string, key: Uint8Array | null) => Codec;
  const carried = codec.carried as (kind: string, data: Uint8Array) => { genes: Uint16Array; count: number } | null;
  const { clusterKeyOf } = (await load('bus/key.js', 'bus-key.js')) as { clusterKeyOf: (s: { clusterKey: string }) => Uint8Array };
  // Where a build checks immigrants: result-checks' PermutationCheck (0.3.0 on), or migrantsProblem (before).
  const checks = await load('result-checks.js');
  let holds: (genes: Uint16Array, count: number) => boolean;
  if (typeof checks.PermutationCheck === 'function') {
    const check = new (checks.PermutationCheck as new (n: number) => { problem(g: Uint16Array, c: number): string | null })(N);
    holds = (genes, count) => check.problem(genes, count) === null;
  } else {
    const { migrantsProblem } = checks as { migrantsProblem: (m: object, n: number) => string | null };
    holds = (genes, count) => migrantsProblem({ genes, count }, N) === null;
  }
  const tripOf = (key: Uint8Array | null): RoundTrip => {
    const sender = new BusCodec('h1', key);
    const receiver = new BusCodec('h2', key);
    return (bytes) => {
      const decoded = receiver.decode(SUBJECT, sender.encode(SUBJECT, message(bytes)), ['migrants']);
      if (decoded.kind !== 'ok') fail(`dropped (${decoded.kind})`);
      const migrants = carried('migrants', decoded.message!.bytes);
      if (!migrants || !holds(migrants.genes, migrants.count)) fail('migrants refused');
    };
  };
  return [
    { label: `${label} (signed)`, trip: tripOf(clusterKeyOf({ clusterKey: KEY })) },
    { label: `${label} (no key)`, trip: tripOf(null) },
  ];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const dists: [string, string][] = [[fileURLToPath(new URL('..', import.meta.url)), 'this build']];
  for (let at = args.indexOf('--baseline-dist'); at >= 0; at = args.indexOf('--baseline-dist', at + 1))
    dists.push([path.resolve(args[at + 1]), args[at + 1]]);
  const cases = (await Promise.all(dists.map(([dist, label]) => casesOf(dist, label)))).flat();
  const genes = new Uint16Array(N * COUNT);
  for (let c = 0; c < COUNT; c++) for (let i = 0; i < N; i++) genes[c * N + i] = (i * 7 + c) % N;
  const bytes = encode({ type: 'migrants', from: 0, epoch: 1, iteration: 10, count: COUNT, genes });
  const best = cases.map(() => Infinity);
  for (let round = 0; round <= BATCHES; round++) {
    cases.forEach(({ trip }, k) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < BATCH; i++) trip(bytes);
      // Round 0 warms up.
      if (round > 0) best[k] = Math.min(best[k], Number(process.hrtime.bigint() - start) / 1000 / BATCH);
    });
  }
  console.log(
    `one migrants message of ${bytes.length} bytes (N = ${N}, ${COUNT} chromosomes): encode + decode + checks, µs, best of ${BATCHES} x ${BATCH}`,
  );
  cases.forEach(({ label }, k) => console.log(`  ${label.padEnd(40)} ${best[k].toFixed(1)}`));
}

await main();
