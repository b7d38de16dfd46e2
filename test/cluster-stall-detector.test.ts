/**
 * A coordinator that stalls does not charge its stall to its hosts (src/cluster/bus/liveness.ts):
 * its event loop blocked for five heartbeat periods, it still takes both live hosts for live
 * once it runs again, and a host that is stopped (SIGSTOP) is still found lost. The block is
 * made inside the handling of a heartbeat, where a stalled coordinator would be: its checks
 * come due before it has read what the broker holds for it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { BusCodec } from '../src/cluster/bus/codec.ts';
import { Subjects } from '../src/cluster/bus/connection.ts';
import { BusEndpoint } from '../src/cluster/bus/endpoint.ts';
import { HostDirectory } from '../src/cluster/leases/host-directory.ts';
import { localCluster, nats, SHORT_HEARTBEAT, SHORT_HEARTBEAT_MS, within } from './nats-server.ts';

/** Blocks this thread (timers, sockets and all) for `ms`, as a process that is not scheduled. */
function freeze(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('a coordinator whose own event loop stalls', { skip: nats.skip, timeout: 120_000 }, () => {
  const broker = localCluster('detector');

  it('takes no live host for lost after a stall of five heartbeat periods, and still finds a stopped one', async () => {
    const { prefix, hosts } = await broker.startHosts(['steady', 'stopped'], { env: SHORT_HEARTBEAT });
    const nc = await connect({ servers: broker.server.url.replace('nats://', '') });
    const directory = new HostDirectory(
      new BusEndpoint(nc, new BusCodec('coordinator', null)),
      new Subjects(prefix),
      {},
      SHORT_HEARTBEAT_MS,
    );
    const lost: string[] = [];
    directory.onGone((host, how) => lost.push(`${host.name} ${how}`));
    const stopped = hosts.get('stopped')!;
    try {
      assert.equal(await directory.waitFor(2, 30_000), true, 'both hosts heard');
      // Resolved from the heartbeat's handler: the block holds the loop before it reads anything more.
      await directory.nextBeat(30_000);
      freeze(5 * SHORT_HEARTBEAT_MS);
      // Beats are the clock (no sleep): on until each host was heard four periods after the stall, past the checks that would have lost it.
      const heardLate = Date.now() + 4 * SHORT_HEARTBEAT_MS;
      while (lost.length === 0 && [...directory.hosts.values()].filter((h) => h.lastSeen >= heardLate).length < 2)
        await within(30, 'the hosts to beat after the stall', directory.nextBeat(30_000));
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
});
