/**
 * A study spread over hosts: every run not yet in runs.jsonl becomes one message on a
 * JetStream work-queue stream of its own (one per invocation), with explicit acks. Hosts
 * pull runs, run them, send the result here and ack only once this coordinator has written
 * it. A host that dies mid-run never acks: the broker redelivers its run after the ack
 * deadline, and a result that arrives twice is written once (runs are keyed by cell and
 * seed). The folder, its files and `--resume` are the local study's (openStudy).
 */
import { randomBytes } from 'node:crypto';
import { AckPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { ConfigError } from '../../config/errors.ts';
import { RESOLVED_CONFIG_VERSION } from '../../config/resolved-schema.ts';
import type { Experiment } from '../../experiment/load.ts';
import type { RunRecord } from '../../experiment/records.ts';
import { openStudy, type HostActivity, type PlannedRun, type StudyOptions, type StudyOutcome } from '../../experiment/runner.ts';
import { runKey } from '../../experiment/store.ts';
import { connectBus, connectionState, leaveBus, Subjects } from '../bus/connection.ts';
import { checkPrefix, type NatsAuth } from '../../config/nats-url.ts';
import { busAddress } from '../bus/credentials.ts';
import { DEFAULT_ACK_WAIT_MS, DEFAULT_PREFIX, DEFAULT_WAIT_SECONDS } from '../defaults.ts';
import { BusCodec } from '../bus/codec.ts';
import { BusEndpoint } from '../bus/endpoint.ts';
import { clusterKeyOf, UNSIGNED_WARNING, type ClusterKeySource } from '../bus/key.ts';
import { HostDirectory } from '../leases/host-directory.ts';
import { safeName } from '../bus/text.ts';
import { holderName, HostLeases, openLeaseBucket, removeAbandonedStudies } from '../leases/host-lease.ts';
import { recordProblem } from '../result-checks.ts';
import { QUEUE_CHECK_MS, QueueWatch } from './queue-watch.ts';

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
  /** Why an unfinished study stopped: interrupted (signal), the broker was lost, no host was left, or its queue was deleted on the broker. */
  stoppedBy: 'signal' | 'broker-lost' | 'no-hosts' | 'queue-lost' | null;
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

/**
 * Runs the study on the hosts of a NATS broker.
 * @throws ConfigError (exit 2, nothing written) for a bad URL, prefix or folder, an unreachable broker, or too few hosts within the wait.
 */
export async function runStudyOnCluster(experiment: Experiment, options: StudyOptions & ClusterOptions): Promise<ClusterStudyOutcome> {
  const address = busAddress(options.nats, options.auth);
  const subjects = new Subjects(checkPrefix(options.prefix ?? DEFAULT_PREFIX));
  const wanted = checkHostCount(options.hosts);
  const waitMs = options.waitMs ?? DEFAULT_WAIT_SECONDS * 1000;
  const ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
  const log = options.log ?? (() => {});
  const hooks = options.hooks ?? {};
  const key = clusterKeyOf(options);
  const nc = await connectBus(address, { name: `nqueens-islands experiment ${experiment.name}` });
  const bus = new BusEndpoint(nc, new BusCodec(randomBytes(6).toString('hex'), key), log);
  const { dropped } = bus;
  const session = randomBytes(8).toString('hex');
  const stream = subjects.studyStream(session);
  const activity = new Map<string, HostActivity>();
  const showHosts = () => hooks.onHosts?.([...activity.values()]);
  let invite = (_hostId: string) => {};
  /** The hosts this study invited: only they may say they started or finished one of its runs. */
  const invited = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  /** The line about a lost host's run, said when the broker gives the run back (the host kept it alive until about `lastSeen`). */
  const backToQueue = (run: string, lastSeen: number) => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        log(`run ${run} of a lost host went back to the queue (its ack deadline passed)`);
      },
      Math.max(0, lastSeen + ackWaitMs - Date.now()),
    );
    timers.add(timer);
  };
  const directory = new HostDirectory(
    bus,
    subjects,
    {
      onRefused: log,
      onHost: (host, isNew) => {
        if (isNew) log(`host ${host.name} (${host.islands} island${host.islands === 1 ? '' : 's'}) is here`);
        if (!host.busy) invite(host.id);
      },
      onGone: (host, how) => {
        const current = activity.get(host.name)?.current;
        // A host that left gave its run back itself; a lost one's goes back when its ack deadline passes.
        log(`host ${host.name} ${how}${current && how === 'left' ? `; its run ${current} went back to the queue` : ''}`);
        if (current && how === 'lost') backToQueue(current, host.lastSeen);
        activity.delete(host.name);
        showHosts();
      },
    },
    options.heartbeatMs,
  );

  let jsm: Awaited<ReturnType<typeof jetstreamManager>> | null = null;
  let release: (() => void) | null = null;
  let leases: HostLeases | null = null;
  try {
    const open = () => openLeaseBucket(nc, subjects);
    leases = new HostLeases(await open(), holderName(`experiment ${experiment.name}`), log, open, connectionState(nc));
    await leases.reserve(directory, wanted, waitMs, address.display);
    const study = openStudy(experiment, options);
    release = study.close;
    // Said once the study is going to happen (a refusal above stays one line).
    if (!key) log(UNSIGNED_WARNING);
    const { outcome } = study;
    const result: ClusterStudyOutcome = { ...outcome, stoppedBy: null, dropped: 0, droppedText: '', broker: address.display };
    if (study.todo.length === 0) return { ...result, ...outcome };

    jsm = await jetstreamManager(nc);
    // The study's lease first, then its stream: a stream without a live lease is a dead study's, removed here.
    await leases.holdStudy(session);
    await removeAbandonedStudies(jsm, leases, subjects);
    await jsm.streams.add({
      name: stream,
      subjects: [subjects.study(session, 'runs')],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      max_age: 7 * 24 * 3600 * 1e9,
    });
    await jsm.consumers.add(stream, {
      durable_name: CONSUMER,
      ack_policy: AckPolicy.Explicit,
      ack_wait: ackWaitMs * 1e6,
      max_deliver: -1,
      max_ack_pending: -1,
    });

    const byId = new Map<string, PlannedRun>();
    const attempts = new Map<string, number>();
    const js = jetstream(nc);
    const publishRun = async (planned: PlannedRun) => {
      const runId = runKey(planned.cell.id, planned.seed).replace('\u0000', '#');
      byId.set(runId, planned);
      const attempt = (attempts.get(runId) ?? 0) + 1;
      attempts.set(runId, attempt);
      const subject = subjects.study(session, 'runs');
      // The resolved config itself, seed decided: the host runs it as it is.
      const message = bus.codec.encode(subject, {
        type: 'run',
        session,
        runId,
        cell: { id: planned.cell.id, values: planned.cell.values },
        configVersion: RESOLVED_CONFIG_VERSION,
        config: { ...planned.cell.config, seed: planned.seed },
        events: study.events,
      });
      await js.publish(subject, message, { msgID: `${session}:${runId}:${attempt}` });
    };
    for (const planned of study.todo) await publishRun(planned);

    let finish: (by: ClusterStudyOutcome['stoppedBy']) => void = () => {};
    const finished = new Promise<ClusterStudyOutcome['stoppedBy']>((resolve) => (finish = resolve));
    const remaining = new Set(byId.keys());

    bus.listen(subjects.study(session, 'started'), ['run-started'], ({ runId, host: sent, session: s }, from) => {
      if (!invited.has(from)) return void dropped.unauthenticated++;
      const host = safeName(sent);
      const planned = byId.get(runId);
      if (s !== session || !planned) return void dropped.malformed++;
      const entry = activity.get(host) ?? { name: host, runs: 0, current: null };
      entry.current = `${planned.cell.id} seed ${planned.seed}`;
      activity.set(host, entry);
      hooks.onRunStart?.(planned, outcome.skipped + outcome.completed);
      showHosts();
    });
    // Results are checked where they land: a record that fails is dropped and counted, never
    // written; its host gets no confirmation, so the run stays in the queue.
    bus.listen(subjects.study(session, 'result'), ['run-done'], (sent, from, msg) => {
      // A key-holder this study did not invite writes none of its records.
      if (!invited.has(from)) return void dropped.unauthenticated++;
      // The host's name as it may be shown and recorded.
      const done = { ...sent, host: safeName(sent.host) };
      const planned = byId.get(done.runId);
      if (done.session !== session || !planned) return void dropped.malformed++;
      const problem = recordProblem(done.record, done.events, {
        cell: planned.cell.id,
        seed: planned.seed,
        n: planned.cell.config.n,
        islands: planned.cell.config.islands,
      });
      if (problem) {
        dropped.invalid++;
        log(`dropped the result of ${planned.cell.id} seed ${planned.seed} from host ${done.host}: ${problem}`);
        return;
      }
      const duplicate = !remaining.has(done.runId);
      if (!duplicate) {
        const record = { ...(done.record as unknown as RunRecord), host: done.host };
        // A failed worker says nothing about the GA: run it once more before recording the failure.
        if (record.error && attempts.get(done.runId) === 1) {
          hooks.onRetry?.(planned, record.error);
          void publishRun(planned);
        } else {
          remaining.delete(done.runId);
          study.save(planned, { record, events: done.events });
        }
      }
      const entry = activity.get(done.host);
      if (entry) {
        entry.current = null;
        if (!duplicate) entry.runs++;
        showHosts();
      }
      bus.respond(msg, { type: 'recorded', session, runId: done.runId, duplicate });
      if (remaining.size === 0) finish(null);
    });

    // Only a host leased to this study is invited (also one that turns up later and is free).
    invite = (hostId) =>
      void leases?.take(hostId).then((ours) => {
        if (!ours) return;
        invited.add(hostId);
        bus.publish(subjects.invite(hostId), { type: 'invite', session, stream, consumer: CONSUMER, ackWaitMs });
      });
    for (const host of directory.hosts.values()) if (!host.busy) invite(host.id);

    const onAbort = () => finish('signal');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) finish('signal');
    void nc.closed().then(() => finish('broker-lost'));
    // With no host left for the whole wait, the study cannot go on: stop it (it can be resumed).
    const orphanCheck = setInterval(
      () => {
        if (directory.hosts.size > 0) orphanSince = Date.now();
        else if (Date.now() - orphanSince > waitMs) finish('no-hosts');
      },
      Math.min(1000, waitMs),
    );
    let orphanSince = Date.now();
    const queue = new QueueWatch(jsm, stream, CONSUMER, log);
    const queueCheck = setInterval(() => {
      void queue.check(remaining.size).then((state) => {
        if (state === 'gone') finish('queue-lost');
        else if (state === 'short') for (const runId of remaining) if (!running(runId)) void publishRun(byId.get(runId)!);
      });
    }, QUEUE_CHECK_MS);
    /** Whether a host of this study says it is running `runId` now. */
    const running = (runId: string) => {
      const planned = byId.get(runId)!;
      return [...activity.values()].some((a) => a.current === `${planned.cell.id} seed ${planned.seed}`);
    };
    try {
      result.stoppedBy = await finished;
    } finally {
      clearInterval(queueCheck);
      clearInterval(orphanCheck);
      options.signal?.removeEventListener('abort', onAbort);
    }
    return { ...result, ...outcome, stoppedBy: result.stoppedBy, dropped: dropped.total, droppedText: dropped.describe() };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    release?.();
    directory.close();
    if (!nc.isClosed()) {
      // Hosts stop this study's runs; the stream goes (a resumed study publishes what is left again).
      bus.publish(subjects.study(session, 'end'), { type: 'end', session });
      await jsm?.streams.delete(stream).catch(() => {});
    }
    // Without the broker they cannot be released: they expire (and the next study removes the stream).
    await leases?.close(!nc.isClosed());
    await leaveBus(nc);
  }
}
