/**
 * The broker's shared state is checked before use (src/cluster/leases/shared-state.ts): a
 * lease bucket made without a max age or with a tiny value limit, and a stream squatting on
 * the subjects of the studies' work queues, are refused in one line before any work.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { runStudyOnCluster } from '../src/cluster/study/study.ts';
import { subjectsOverlap } from '../src/cluster/leases/shared-state.ts';
import { ConfigError } from '../src/config/errors.ts';
import { loadExperiment } from '../src/experiment/load.ts';
import { cliAsync, oneLine } from './cli-helpers.ts';
import { localCluster, nats } from './nats-server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'nq-shared-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('subjectsOverlap', () => {
  it('says whether one subject can match both patterns', () => {
    const table: [string, string, boolean][] = [
      ['nqi.study.*.runs', 'nqi.study.abc.runs', true],
      ['nqi.study.*.runs', 'nqi.>', true],
      ['nqi.study.*.runs', 'nqi.study.*.result', false],
      ['nqi.study.*.runs', 'nqi.study', false],
      ['nqi.study.*.runs', '*.*.*.*', true],
      ['nqi.study.*.runs', 'other.study.x.runs', false],
      ['>', 'anything.at.all', true],
    ];
    for (const [a, b, overlap] of table) {
      assert.equal(subjectsOverlap(a, b), overlap, `${a} / ${b}`);
      assert.equal(subjectsOverlap(b, a), overlap, `${b} / ${a}`);
    }
  });
});

describe("the broker's shared state, as found", { skip: nats.skip, timeout: 120_000 }, () => {
  const cluster = localCluster('ss');

  it('a lease bucket without a max age, or with a tiny value limit: one line, exit 2, before anything is asked of a host', async () => {
    const nc = await connect({ servers: cluster.server.url });
    try {
      const kvm = new Kvm(nc);
      const forever = cluster.freshPrefix();
      await kvm.create(`${forever}_hosts`, { history: 1 });
      const tiny = cluster.freshPrefix();
      await kvm.create(`${tiny}_hosts`, { history: 1, ttl: 10_000, maxValueSize: 16 });
      const line = async (prefix: string) =>
        oneLine(await cliAsync(['solve', '-n', '8', '--nats', cluster.server.url, '--nats-prefix', prefix, '--hosts', '1']), prefix);
      assert.match(
        await line(forever),
        new RegExp(
          `^the broker's KV bucket ${forever}_hosts keeps entries for ever; leases need a max age of at most 10000 ms, or a dead coordinator's hosts stay held: remove it \\(nats kv del ${forever}_hosts\\)`,
        ),
      );
      assert.match(
        await line(tiny),
        new RegExp(`^the broker's KV bucket ${tiny}_hosts takes values of at most 16 bytes; a lease needs 1024`),
      );
    } finally {
      await nc.close();
    }
  });

  it("a stream on the studies' work-queue subjects: the study is refused in one line before its folder is made", async () => {
    const prefix = cluster.freshPrefix();
    const nc = await connect({ servers: cluster.server.url });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: 'squatter', subjects: [`${prefix}.study.*.runs`] });
      const file = path.join(dir, 'squat.yaml');
      writeFileSync(file, 'base: { overrides: { n: 8, islands: 1 } }\nrepeats: 1\nseed: 1\n');
      const out = path.join(dir, 'squat');
      await assert.rejects(
        runStudyOnCluster(loadExperiment(file), {
          outDir: out,
          resume: false,
          events: false,
          nats: cluster.server.url,
          hosts: 1,
          prefix,
          waitMs: 60_000,
        }),
        (e: unknown) =>
          e instanceof ConfigError &&
          e.message ===
            `the broker's stream squatter takes ${prefix}.study.*.runs, which a study's work queue (${prefix}.study.*.runs) needs: remove it (nats stream rm squatter) or use another --nats-prefix`,
      );
      assert.equal(existsSync(out), false);
    } finally {
      await nc.close();
    }
  });
});
