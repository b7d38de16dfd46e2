/**
 * The launcher for islands on other machines: it splits a run's islands over hosts of the
 * bus (contiguous blocks, in host order), sends each host its islands' tasks, and gives the
 * archipelago a coordination that talks over the bus. The archipelago drives it exactly as
 * it drives the local pool (src/archipelago/launcher.ts); it never learns where islands run.
 *
 * One winner: in async mode each host's islands claim the stop in their own shared memory
 * and the claim travels to the other hosts; two hosts can both claim within the relay's
 * latency. The coordinator decides: the first valid solution it receives wins (the
 * archipelago's rule); the other claimer is recorded as 'also-solved' (run-result.ts).
 * A host that is lost (no heartbeat, or gone from the bus) fails its islands, as a crashed
 * worker would; `onIslandError` decides whether the run goes on.
 *
 * Core NATS delivers a message only to those subscribed when the broker routes it, so
 * nothing is sent to a host before it can hear it: an order that finds nobody listening (a
 * host that reconnects after a broker restart renews its subscriptions a moment later) is
 * sent again at the host's next heartbeat, and what the run tells its hosts (halt,
 * terminate, departures) waits for each host's acceptance, which it sends once subscribed.
 * No wait is unbounded: an order has ACCEPT_TIMEOUT_MS, and islands told to terminate have
 * MISSED_HEARTBEATS heartbeat periods to report, or fail.
 */
import type { LaunchedRun, LaunchPlan, Launcher, LaunchReport } from '../../archipelago/launcher.ts';
import { watchConnection, type Subjects } from '../bus/connection.ts';
import { CLUSTER_CAPABILITIES, heartbeatPeriodMs, MISSED_HEARTBEATS } from '../defaults.ts';
import { type BusMessage } from '../bus/messages.ts';
import type { BusEndpoint } from '../bus/endpoint.ts';
import type { HostDirectory, KnownHost } from '../leases/host-directory.ts';
import { safeText } from '../bus/text.ts';
import { HostedRun } from './hosted-run.ts';

/** How long a host has to accept its islands. */
const ACCEPT_TIMEOUT_MS = 10_000;

export class ClusterLauncher implements Launcher {
  readonly capabilities = CLUSTER_CAPABILITIES;
  /** Host name of each island of the last launched run. */
  private placement: string[] = [];
  /** The broker was lost during the last run (a later run on a reconnected client may go on). */
  private brokerLost = false;
  /** Set before the coordinator disconnects on purpose, so that is not taken for a lost broker. */
  closing = false;
  /** Ends the current run's islands when the connection drops (bus.ts `watchConnection`). */
  private lost: (() => void) | null = null;
  private connected = true;
  private readonly waiting: (() => void)[] = [];
  /** Reconnected since the leases were last renewed before a run. */
  private reconnected = false;
  /** Hosts whose lease was lost while the broker was away (another coordinator has them now): not ours to use. */
  private readonly unleased = new Set<string>();

  constructor(
    private readonly bus: BusEndpoint,
    private readonly subjects: Subjects,
    private readonly hosts: readonly KnownHost[],
    private readonly directory: HostDirectory,
    /** One line when the coordinator waits for something (a host not yet listening). */
    private readonly log: (line: string) => void = () => {},
    /** Renews the hosts' leases; the ids of those lost (host-lease.ts `renew`). */
    private readonly renewLeases: () => Promise<readonly string[]> = () => Promise.resolve([]),
  ) {
    const { nc } = bus;
    // Lost at the first disconnect, not after the reconnect attempts: what was sent meanwhile is gone for good.
    watchConnection(nc, {
      disconnect: () => {
        this.connected = false;
        if (!this.closing) this.lost?.();
      },
      reconnect: () => {
        this.connected = true;
        this.reconnected = true;
        for (const wake of this.waiting.splice(0)) wake();
      },
    });
    // Given up reconnecting: a run waiting for the connection (see `connection`) is lost too.
    void nc.closed().then(() => {
      this.connected = false;
      if (!this.closing) this.lost?.();
    });
  }

  report(): LaunchReport {
    const { malformed, foreign, unauthenticated, invalid } = this.bus.dropped;
    return {
      placement: [...this.placement],
      brokerLost: this.brokerLost,
      dropped: { malformed, foreign, unauthenticated, invalid },
    };
  }

  /** Resolves once the client is connected: a run launched while it reconnects (after a broker restart) starts when it is back. */
  private connection(): Promise<void> {
    return this.connected ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }

  /**
   * After a reconnect the leases are renewed before any order: a broker restarted without its
   * memory has lost them (they are created again), and a host another coordinator leased
   * meanwhile is not ours any more.
   */
  private async leased(): Promise<void> {
    if (!this.reconnected) return;
    this.reconnected = false;
    const lost = await this.renewLeases().catch(() => []);
    for (const id of lost) this.unleased.add(id);
  }

  /**
   * Whether `host` was heard (a heartbeat) after now and before `deadline`, while `wanted()`.
   * A host renews its subscriptions before it beats again after a reconnect, so by then
   * the broker routes its orders to it.
   */
  private async heardAgain(host: KnownHost, deadline: number, wanted: () => boolean): Promise<boolean> {
    const since = Date.now();
    while (wanted() && !this.bus.nc.isClosed()) {
      if ((this.directory.hosts.get(host.id)?.lastSeen ?? 0) > since) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.directory.nextBeat(left);
    }
    return false;
  }

  launch(plan: LaunchPlan): LaunchedRun {
    const { bus, subjects } = this;
    const { nc } = bus;
    const run = new HostedRun(bus, subjects, this.hosts, plan);
    const { runId, hosts, coordination } = run;
    this.placement = run.hostIndex.map((h) => hosts[h].name);
    // A client that gave up reconnecting takes no subscription (it would throw): the run is lost below, not an error.
    const sub = nc.isClosed()
      ? null
      : bus.listen(subjects.run(runId, 'coordinator'), ['control', 'report'], (message, from) => run.hear(message, from));
    // For this run's length: a host of it that leaves or is lost fails its islands.
    const unsubscribe = this.directory.onGone((host, how) => {
      const h = hosts.findIndex((k) => k.id === host.id);
      if (h >= 0) run.failHost(h, `host ${host.name} ${how === 'lost' ? 'was lost (no heartbeat)' : 'left'}`);
    });
    this.brokerLost = false;
    this.lost = () => {
      this.brokerLost = true;
      hosts.forEach((_, h) => run.failHost(h, 'the NATS broker was lost'));
    };
    // A connection that gave up reconnecting before this run: nothing can reach the hosts.
    if (nc.isClosed()) this.lost();

    // Each host gets its islands' tasks; a host that refuses or does not answer fails its islands.
    void this.connection()
      .then(() => this.leased())
      .then(() => {
        if (nc.isClosed()) return;
        hosts.forEach((host, h) => {
          if (this.unleased.has(host.id)) run.failHost(h, `host ${host.name} was leased by another coordinator while the broker was away`);
          else void this.sendOrder(run, h, run.order(h), Date.now() + ACCEPT_TIMEOUT_MS);
        });
      });

    // Hosts end the islands of a coordinator that went silent (killed), instead of running them forever:
    // `alive` at the hosts' own period, whatever heartbeatMs this coordinator was given.
    const alive = setInterval(() => run.toHosts({ type: 'alive', runId }), heartbeatPeriodMs());
    let terminated: NodeJS.Timeout | undefined;
    return {
      coordination,
      reports: run.reports,
      terminate: () => {
        run.toHosts({ type: 'terminate', runId });
        // A local worker is killed at once; islands elsewhere get a bound too: a host that does not report them fails them.
        terminated ??= setTimeout(
          () => hosts.forEach((host, h) => run.failHost(h, `host ${host.name} did not report its islands after they were terminated`)),
          MISSED_HEARTBEATS * this.directory.heartbeatMs,
        );
      },
      release: () => {
        this.lost = null;
        clearInterval(alive);
        clearTimeout(terminated);
        sub?.unsubscribe();
        unsubscribe();
      },
      threads: null, // the hosts' (the record's `hosts` names them)
    };
  }

  /**
   * Sends host `h` of `run` its `order` and takes its answer by `deadline`; a refusal or no
   * answer fails its islands. `said`: the wait for a host not listening was logged already.
   */
  private async sendOrder(run: HostedRun, h: number, order: BusMessage<'islands'>, deadline: number, said = false): Promise<void> {
    const { bus } = this;
    const { runId } = run;
    const host = run.hosts[h];
    // Only the ordered host's answer about this run counts: another reply (a party without the key answering first) is dropped.
    const answer = await bus.requestFrom(
      this.subjects.islands(host.id),
      order,
      ['accepted', 'refused'],
      (message, from) => from === host.id && message.runId === runId,
      Math.max(1, deadline - Date.now()),
    );
    if (answer.kind === 'answer') {
      if (answer.message.type === 'refused') run.failHost(h, safeText(answer.message.reason, 500));
      else run.accept(h);
      return;
    }
    // Nobody subscribed to the host's orders (yet): it has not heard this one; ask again once it beats.
    if (answer.kind === 'no-responders' && run.unsettled(h)) {
      if (!said) this.log(`host ${host.name} is not listening for orders yet (reconnecting?): asking again at its next heartbeat`);
      if (await this.heardAgain(host, deadline, () => run.unsettled(h))) return this.sendOrder(run, h, order, deadline, true);
    }
    const why =
      answer.kind === 'timeout' && answer.foreign ? `it runs ${answer.foreign}` : answer.kind === 'timeout' ? 'timeout' : 'no responders';
    run.failHost(h, `host ${host.name} did not accept its islands (${why})${bus.keyHint()}`);
  }
}
