/**
 * A study spread over hosts: every run not yet in runs.jsonl becomes one message on a
 * JetStream work-queue stream of its own (one per invocation), with explicit acks. Hosts
 * pull runs, run them, send the result here and ack only once this coordinator has written
 * it. A host that dies mid-run never acks: the broker redelivers its run after the ack
 * deadline, and a result that arrives twice is written once (runs are keyed by cell and
 * seed). The folder, its files and `--resume` are the local study's (openStudy).
 */
import { randomBytes } from 'node:crypto';
import type { Msg } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { ConfigError } from '../../config/errors.ts';
import { RESOLVED_CONFIG_VERSION } from '../../config/resolved-schema.ts';
import type { Experiment } from '../../experiment/load.ts';
import type { RunRecord } from '../../experiment/records.ts';
import {
  openStudy,
  type HostActivity,
  type OpenStudy,
  type PlannedRun,
  type StudyOptions,
  type StudyOutcome,
} from '../../experiment/runner.ts';
import { checkStudyFolder, runKey } from '../../experiment/store.ts';
import { connectBus, connectionState, leaveBus, Subjects } from '../bus/connection.ts';
import { checkPrefix, type NatsAuth } from '../../config/nats-url.ts';
import { busAddress } from '../bus/credentials.ts';
import { DEFAULT_ACK_WAIT_MS, DEFAULT_PREFIX, DEFAULT_WAIT_SECONDS } from '../defaults.ts';
import { BusCodec } from '../bus/codec.ts';
import { BusEndpoint } from '../bus/endpoint.ts';
import type { BusMessage } from '../bus/messages.ts';
import { clusterKeyOf, UNSIGNED_WARNING, type ClusterKeySource } from '../bus/key.ts';
import { HostDirectory, type HostDirectoryEvents } from '../leases/host-directory.ts';
import { safeName, safeText } from '../bus/text.ts';
import { holderName, HostLeases, openLeaseBucket } from '../leases/host-lease.ts';
import { recordProblem } from '../result-checks.ts';
import { openStudyQueue, QUEUE_CHECK_MS, QueueWatch } from './queue-watch.ts';
import { checkStudyStreams } from '../leases/shared-state.ts';
import { Unserved } from './unserved.ts';
import { RunFeeds } from './run-feeds.ts';

const CONSUMER = 'hosts';

export interface ClusterOptions extends ClusterKeySource {
  /** nats://[user:password@|token@]host[:port] */
  nats: string;
  /** Credentials and TLS files beside the URL (credentials.ts); NQI_NATS_PASSWORD / NQI_NATS_TOKEN are read too. */
  auth?: NatsAuth;
  /** Hosts to wait for before starting. */
  hosts: number;
  prefix?: string;
  /** How long to wait for the hosts at start, and for any host when none is left (ms). */
  waitMs?: number;
  ackWaitMs?: number;
  heartbeatMs?: number;
  /** One line per notable thing: a host joined, left, was refused. */
  log?: (line: string) => void;
}

export interface ClusterStudyOutcome extends StudyOutcome {
  /**
   * Why an unfinished study stopped: interrupted (signal), the broker was lost, no host was
   * left, its queue was deleted on the broker, or the hosts there do not serve it (unserved.ts).
   */
  stoppedBy: 'signal' | 'broker-lost' | 'no-hosts' | 'queue-lost' | 'unserved' | null;
  /** Why hosts that are there do not serve it (`unserved`, unserved.ts), in words; '' otherwise. */
  unserved: string;
  /** Bus messages dropped: malformed, foreign, unauthenticated, or results that failed their checks. */
  dropped: number;
  /** The same, by reason, as one line ('' when none was). */
  droppedText: string;
  /** The broker's URL as shown to people (no password). */
  broker: string;
}

/** `--hosts`: a positive integer. */
export function checkHostCount(hosts: unknown, flag = '--hosts'): number {
  if (typeof hosts !== 'number' || !Number.isInteger(hosts) || hosts < 1)
    throw new ConfigError(`${flag}: expected a positive integer number of hosts, got ${JSON.stringify(hosts)}`);
  return hosts;
}

type StoppedBy = ClusterStudyOutcome['stoppedBy'];

/**
 * Runs the study on the hosts of a NATS broker.
 * @throws ConfigError (exit 2, nothing written) for a bad URL, prefix or folder, an unreachable broker, or too few hosts within the wait.
 */
export async function runStudyOnCluster(experiment: Experiment, options: StudyOptions & ClusterOptions): Promise<ClusterStudyOutcome> {
  const address = busAddress(options.nats, options.auth);
  const subjects = new Subjects(checkPrefix(options.prefix ?? DEFAULT_PREFIX));
  const wanted = checkHostCount(options.hosts);
  const log = options.log ?? (() => {});
  const key = clusterKeyOf(options);
  const nc = await connectBus(address, { name: `nqueens-islands experiment ${experiment.name}` });
  const coordinator = new StudyCoordinator(new BusEndpoint(nc, new BusCodec(randomBytes(6).toString('hex'), key), log), subjects, options);
  try {
    return await coordinator.run(experiment, options, wanted, address.display, key !== null);
  } finally {
    await coordinator.close();
  }
}

/** One cluster study on the coordinator's side: its hosts, its queue and what they send. */
class StudyCoordinator {
  private readonly session = randomBytes(8).toString('hex');
  private readonly stream: string;
  private readonly waitMs: number;
  private readonly ackWaitMs: number;
  private readonly log: (line: string) => void;
  private readonly hooks: NonNullable<StudyOptions['hooks']>;
  private readonly feeds: RunFeeds; // runs going on at hosts, for `onRunEvents`
  private readonly activity = new Map<string, HostActivity>();
  /** The hosts this study invited: only they may say they started or finished one of its runs. */
  private readonly invited = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly directory: HostDirectory;
  /** Hosts are invited once the study's queue holds its runs. */
  private inviting = false;
  private jsm: Awaited<ReturnType<typeof jetstreamManager>> | null = null;
  private js: ReturnType<typeof jetstream> | null = null;
  private release: (() => void) | null = null;
  private leases: HostLeases | null = null;
  private readonly byId = new Map<string, PlannedRun>();
  private readonly attempts = new Map<string, number>();
  private remaining = new Set<string>();
  private finish: (by: StoppedBy) => void = () => {};
  /** Set once the study has stopped: a result that lands after it is not recorded (the outcome was read; a resumed study runs it again). */
  private ended = false;
  /** Whether the hosts there serve the study, and those that cannot (not invited again). */
  private readonly hearing = new Unserved();
  private unserved = '';

  constructor(
    private readonly bus: BusEndpoint,
    private readonly subjects: Subjects,
    options: ClusterOptions & StudyOptions,
  ) {
    this.waitMs = options.waitMs ?? DEFAULT_WAIT_SECONDS * 1000;
    this.ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    this.log = options.log ?? (() => {});
    this.hooks = options.hooks ?? {};
    this.feeds = new RunFeeds(this.hooks);
    this.stream = subjects.studyStream(this.session);
    const { log, activity } = this;
    const events: HostDirectoryEvents = {
      onRefused: log,
      onHost: (host, isNew) => {
        if (isNew) log(`host ${host.name} (${host.islands} island${host.islands === 1 ? '' : 's'}) is here`);
        if (!host.busy) this.invite(host.id);
      },
    };
    this.directory = new HostDirectory(bus, subjects, events, options.heartbeatMs);
    this.directory.onGone((host, how) => {
      const current = activity.get(host.name)?.current;
      // A host that left gave its run back itself; a lost one's goes back when its ack deadline passes.
      log(`host ${host.name} ${how}${current && how === 'left' ? `; its run ${current} went back to the queue` : ''}`);
      if (current && how === 'lost') this.backToQueue(current, host.lastSeen);
      activity.delete(host.name);
      this.feeds.hostGone(host.id);
      this.showHosts();
    });
  }

  async run(
    experiment: Experiment,
    options: StudyOptions & ClusterOptions,
    wanted: number,
    broker: string,
    signed: boolean,
  ): Promise<ClusterStudyOutcome> {
    const { nc, dropped } = this.bus;
    const open = () => openLeaseBucket(nc, this.subjects);
    // The broker's shared state is checked before any work: the lease bucket (openLeaseBucket) and the queues' subjects.
    await checkStudyStreams(await jetstreamManager(nc), this.subjects);
    const leases = new HostLeases(await open(), holderName(`experiment ${experiment.name}`), this.log, open, connectionState(nc));
    this.leases = leases;
    // --out is checked before the wait for hosts, writing nothing (the folder is made by openStudy, under its lock).
    checkStudyFolder(options.outDir, options.resume, false);
    await leases.reserve(this.directory, wanted, this.waitMs, broker);
    const study = openStudy(experiment, options);
    this.release = study.close;
    // Said once the study is going to happen (a refusal above stays one line).
    if (!signed) this.log(UNSIGNED_WARNING);
    const { outcome } = study;
    const result: ClusterStudyOutcome = { ...outcome, stoppedBy: null, dropped: 0, droppedText: '', broker, unserved: '' };
    if (study.todo.length === 0) return { ...result, ...outcome };

    const jsm = await this.openQueue(leases);
    this.js = jetstream(nc);
    for (const planned of study.todo) await this.publishRun(planned, study.events);
    const finished = new Promise<StoppedBy>((resolve) => {
      this.finish = (by) => {
        this.ended = true;
        resolve(by);
      };
    });
    this.remaining = new Set(this.byId.keys());
    this.listen(study);
    this.inviting = true;
    for (const host of this.directory.hosts.values()) if (!host.busy) this.invite(host.id);
    result.stoppedBy = await this.watch(finished, jsm, study.events, options.signal);
    const { unserved } = this;
    return { ...result, ...outcome, stoppedBy: result.stoppedBy, dropped: dropped.total, droppedText: dropped.describe(), unserved };
  }

  async close(): Promise<void> {
    const { nc } = this.bus;
    for (const timer of this.timers) clearTimeout(timer);
    this.feeds.close();
    this.release?.();
    this.directory.close();
    if (!nc.isClosed()) {
      // Hosts stop this study's runs; the stream goes (a resumed study publishes what is left again).
      this.bus.publish(this.subjects.study(this.session, 'end'), { type: 'end', session: this.session });
      await this.jsm?.streams.delete(this.stream).catch(() => {});
    }
    // Without the broker they cannot be released: they expire (and the next study removes the stream).
    await this.leases?.close(!nc.isClosed());
    await leaveBus(nc);
  }

  private showHosts(): void {
    this.hooks.onHosts?.([...this.activity.values()]);
  }

  /** The line about a lost host's run, said when the broker gives the run back (the host kept it alive until about `lastSeen`). */
  private backToQueue(run: string, lastSeen: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.log(`run ${run} of a lost host went back to the queue (its ack deadline passed)`);
      },
      Math.max(0, lastSeen + this.ackWaitMs - Date.now()),
    );
    this.timers.add(timer);
  }

  /** Only a host leased to this study is invited (also one that turns up later and is free). */
  private invite(hostId: string): void {
    if (!this.inviting || !this.hearing.invitable(hostId)) return;
    const { session, stream, ackWaitMs } = this;
    void this.leases?.take(hostId).then((ours) => {
      if (!ours) return;
      this.invited.add(hostId);
      this.bus.publish(this.subjects.invite(hostId), { type: 'invite', session, stream, consumer: CONSUMER, ackWaitMs });
    });
  }

  /** The study's stream and its consumer, after its lease (queue-watch.ts). */
  private async openQueue(leases: HostLeases): Promise<JetStreamManager> {
    const { session, stream, subjects, ackWaitMs } = this;
    this.jsm = await openStudyQueue(this.bus.nc, leases, { session, stream, subjects, consumer: CONSUMER, ackWaitMs });
    return this.jsm;
  }

  private async publishRun(planned: PlannedRun, events: OpenStudy['events']): Promise<void> {
    const { session } = this;
    const runId = runKey(planned.cell.id, planned.seed).replace('\u0000', '#');
    this.byId.set(runId, planned);
    const attempt = (this.attempts.get(runId) ?? 0) + 1;
    this.attempts.set(runId, attempt);
    const subject = this.subjects.study(session, 'runs');
    // The resolved config itself, seed decided: the host runs it as it is.
    const message = this.bus.codec.encode(subject, {
      type: 'run',
      session,
      runId,
      cell: { id: planned.cell.id, values: planned.cell.values },
      configVersion: RESOLVED_CONFIG_VERSION,
      config: { ...planned.cell.config, seed: planned.seed },
      events,
    });
    await this.js?.publish(subject, message, { msgID: `${session}:${runId}:${attempt}` });
  }

  private listen(study: OpenStudy): void {
    const { bus, subjects, session } = this;
    bus.listen(subjects.study(session, 'started'), ['run-started'], ({ runId, host: sent, session: s }, from) => {
      if (!this.invited.has(from)) return void bus.dropped.unauthenticated++;
      this.hearing.started();
      const host = safeName(sent);
      const planned = this.byId.get(runId);
      if (s !== session || !planned) return void bus.dropped.malformed++;
      const entry = this.activity.get(host) ?? { name: host, runs: 0, current: null };
      entry.current = `${planned.cell.id} seed ${planned.seed}`;
      this.activity.set(host, entry);
      this.hooks.onRunStart?.(planned, study.outcome.skipped + study.outcome.completed);
      this.feeds.started(runId, planned, from);
      this.showHosts();
    });
    this.feeds.listen(bus, subjects.study(session, 'progress'), session);
    bus.listen(subjects.study(session, 'result'), ['run-done'], (sent, from, msg) => this.done(study, sent, from, msg));
    bus.listen(subjects.study(session, 'refused'), ['run-refused'], ({ runId, host, reason }, from) => {
      if (!this.invited.has(from)) return void bus.dropped.unauthenticated++;
      const line = `host ${safeName(host)} cannot run ${safeText(runId, 100)}: ${safeText(reason, 300)}`;
      this.hearing.refused(from, line);
      this.log(`${line}; it is not invited again`);
    });
  }

  /**
   * A host's result. Results are checked where they land: a record that fails is dropped and
   * counted, never written; its host gets no confirmation, so the run stays in the queue.
   */
  private done(study: OpenStudy, sent: BusMessage<'run-done'>, from: string, msg: Msg): void {
    const { bus, session, remaining } = this;
    // A key-holder this study did not invite writes none of its records.
    if (!this.invited.has(from)) return void bus.dropped.unauthenticated++;
    // The host's name as it may be shown and recorded.
    const done = { ...sent, host: safeName(sent.host) };
    const planned = this.byId.get(done.runId);
    if (done.session !== session || !planned) return void bus.dropped.malformed++;
    if (this.ended) return; // unconfirmed: the run stays the resumed study's to do
    const problem = recordProblem(done.record, done.events, {
      cell: planned.cell.id,
      seed: planned.seed,
      n: planned.cell.config.n,
      islands: planned.cell.config.islands,
    });
    if (problem) {
      bus.dropped.invalid++;
      this.log(`dropped the result of ${planned.cell.id} seed ${planned.seed} from host ${done.host}: ${problem}`);
      return;
    }
    const duplicate = !remaining.has(done.runId);
    if (!duplicate) {
      const record = { ...(done.record as unknown as RunRecord), host: done.host };
      // A failed worker says nothing about the GA: run it once more before recording the failure.
      if (record.error && this.attempts.get(done.runId) === 1) {
        this.hooks.onRetry?.(planned, record.error);
        void this.publishRun(planned, study.events);
      } else {
        remaining.delete(done.runId);
        study.save(planned, { record, events: done.events });
      }
    }
    this.feeds.end(done.runId);
    const entry = this.activity.get(done.host);
    if (entry) {
      entry.current = null;
      if (!duplicate) entry.runs++;
      this.showHosts();
    }
    bus.respond(msg, { type: 'recorded', session, runId: done.runId, duplicate });
    if (remaining.size === 0) this.finish(null);
  }

  /** Waits for the study's end: all recorded, a signal, the broker lost, no host for the whole wait, or its queue gone. */
  private async watch(
    finished: Promise<StoppedBy>,
    jsm: JetStreamManager,
    events: OpenStudy['events'],
    signal: AbortSignal | undefined,
  ): Promise<StoppedBy> {
    const { directory, remaining, waitMs } = this;
    const onAbort = () => this.finish('signal');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) this.finish('signal');
    void this.bus.nc.closed().then(() => this.finish('broker-lost'));
    // With no host left for the whole wait, the study cannot go on: stop it (it can be resumed).
    let orphanSince = Date.now();
    const orphanCheck = setInterval(
      () => {
        if (directory.hosts.size > 0) orphanSince = Date.now();
        else if (Date.now() - orphanSince > waitMs) this.finish('no-hosts');
      },
      Math.min(1000, waitMs),
    );
    // Hosts that are there and do not serve the study (unserved.ts): say why instead of waiting for ever.
    const unservedCheck = setInterval(() => {
      this.unserved = this.hearing.check(this.directory.hosts.keys(), this.bus.keyHint()) ?? '';
      if (this.unserved) this.finish('unserved');
    }, 1000);
    const queue = new QueueWatch(jsm, this.stream, CONSUMER, this.log);
    const queueCheck = setInterval(() => {
      void queue.check(remaining.size).then((state) => {
        if (state === 'gone') this.finish('queue-lost');
        else if (state === 'short')
          for (const runId of remaining) if (!this.running(runId)) void this.publishRun(this.byId.get(runId)!, events);
      });
    }, QUEUE_CHECK_MS);
    try {
      return await finished;
    } finally {
      clearInterval(queueCheck);
      clearInterval(orphanCheck);
      clearInterval(unservedCheck);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Whether a host of this study says it is running `runId` now. */
  private running(runId: string): boolean {
    const planned = this.byId.get(runId)!;
    return [...this.activity.values()].some((a) => a.current === `${planned.cell.id} seed ${planned.seed}`);
  }
}
