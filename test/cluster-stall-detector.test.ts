/**
 * A coordinator that stalls does not charge its stall to its hosts (src/cluster/bus/liveness.ts):
 * its event loop blocked for five heartbeat periods, it still takes both live hosts for live
 * once it runs again, and a host that is stopped (SIGSTOP) is still found lost. The block is
 * made inside the handling of a heartbeat, where a stalled coordinator would be: its checks
 * come due before it has read what the broker holds for it. Nor is a broker's stall charged:
 * a nats-server stopped (SIGSTOP) for five periods gets no live host taken for lost.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BusCodec } from '../src/cluster/bus/codec.ts';
import { Subjects } from '../src/cluster/bus/connection.ts';
import { BusEndpoint } from '../src/cluster/bus/endpoint.ts';
import { HostDirectory } from '../src/cluster/leases/host-directory.ts';
import { localCluster, nats, SHORT_HEARTBEAT, SHORT_HEARTBEAT_MS, within } from './nats-server.ts';

/** Blocks this thread (timers, sockets and all) for `ms`, as a process that is not scheduled. */
function freeze(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** A coordinator's view of the hosts on `prefix` (0.5 s heartbeats), and the losses it reports. */
function watchHosts(nc: NatsConnection, prefix: string) {
  const directory = new HostDirectory(new BusEndpoint(nc, new BusCodec('coordinator', null)), new Subjects(prefix), {}, SHORT_HEARTBEAT_MS);
  const lost: string[] = [];
  directory.onGone((host, how) => lost.push(`${host.name} ${how}`));
  /**
   * Beats are the clock (no sleep): resolves once both hosts were heard four periods after
   * now, past the checks that would have lost them, or once one was lost.
   */
  const heardOnAfter = async (what: string) => {
    const late = Date.now() + 4 * SHORT_HEARTBEAT_MS;
    while (lost.length === 0 && [...directory.hosts.values()].filter((h) => h.lastSeen >= late).length < 2)
      await within(30, `the hosts to beat after ${what}`, directory.nextBeat(30_000));
  };
  return { directory, lost, heardOnAfter };
}

describe('a coordinator or broker that stalls', { skip: nats.skip, timeout: 120_000 }, () => {
  const broker = localCluster('detector');

  it('a coordinator takes no live host for lost after its own stall of five heartbeat periods, and still finds a stopped one', async () => {
    const { prefix, hosts } = await broker.startHosts(['steady', 'stopped'], { env: SHORT_HEARTBEAT });
    const nc = await connect({ servers: broker.server.url.replace('nats://', '') });
    const { directory, lost, heardOnAfter } = watchHosts(nc, prefix);
    const stopped = hosts.get('stopped')!;
    try {
      assert.equal(await directory.waitFor(2, 30_000), true, 'both hosts heard');
      // Resolved from the heartbeat's handler: the block holds the loop before it reads anything more.
      await directory.nextBeat(30_000);
      freeze(5 * SHORT_HEARTBEAT_MS);
      await heardOnAfter('the stall');
      assert.deepEqual(lost, [], 'a stall of the coordinator is not its hosts’ silence');

      stopped.child.kill('SIGSTOP');
      const gone = new Promise<void>((resolve) => directory.onGone(() => resolve()));
      await within(30, 'the stopped host to be found lost', gone);
      assert.deepEqual(lost, ['stopped lost']);
      assert.deepEqual(
        [...directory.hosts.values()].map((h) => h.name),
        ['steady'],
      );
    } finally {
      stopped.child.kill('SIGCONT');
      directory.close();
      await nc.close();
    }
  });

  it('a broker stopped for five heartbeat periods gets no live host taken for lost', async () => {
    // A server of this test's own, to stop: the suite's is shared by its other tests.
    const server = spawn(nats.path(), ['-a', '127.0.0.1', '-p', '-1'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    server.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    try {
      while (!/Server is ready/.test(log)) await within(30, 'the broker to be ready', once(server.stderr, 'data'));
      const port = /client connections on 127\.0\.0\.1:(\d+)/.exec(log)![1];
      const { prefix } = await broker.startHosts(['one', 'two'], { env: SHORT_HEARTBEAT, url: `nats://127.0.0.1:${port}` });
      const nc = await connect({ servers: `127.0.0.1:${port}` });
      const { directory, lost, heardOnAfter } = watchHosts(nc, prefix);
      try {
        assert.equal(await directory.waitFor(2, 30_000), true, 'both hosts heard');
        server.kill('SIGSTOP');
        // The stop's length, not a wait for an event: the coordinator checks five times meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 5 * SHORT_HEARTBEAT_MS));
        server.kill('SIGCONT');
        await heardOnAfter('the stop');
        assert.deepEqual(lost, [], 'a stall of the broker is not the hosts’ silence');
      } finally {
        directory.close();
        await nc.close();
      }
    } finally {
      server.kill('SIGCONT');
      server.kill('SIGKILL');
    }
  });
});
