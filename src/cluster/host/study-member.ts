/**
 * A host's side of one cluster study (study/study.ts is the coordinator's): it pulls the
 * study's runs from its work queue, runs them one at a time, and acks each once the study's
 * coordinator confirmed its result.
 */
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/transport-node';
import type { ArchipelagoEvent } from '../../archipelago/events.ts';
import { RecordEvents } from '../../archipelago/record-cut.ts';
import type { LocalHost } from '../../archipelago/local-host.ts';
import { readMemoryLimits, runMemoryAdvice } from '../../config/memory.ts';
import { toRunRecord } from '../../experiment/records.ts';
import type { SweepValue } from '../../experiment/sweep.ts';
import { runPipeline, type PipelineRun } from '../../run/pipeline.ts';
import type { SeededRunConfig } from '../../run/start-run.ts';
import type { BoundedSet } from '../bus/bounded.ts';
import type { Subjects } from '../bus/connection.ts';
import type { BusEndpoint } from '../bus/endpoint.ts';
import { MAX_RESULT_BYTES, type BusMessage } from '../bus/messages.ts';
import { safeText } from '../bus/text.ts';
import { ProgressFeed } from './run-progress.ts';

/** How long a host waits for the coordinator to confirm a result before it gives the run back. */
const RESULT_TIMEOUT_MS = 30_000;
/** One attempt of it: the result is sent again after this (a reply lost while the broker restarted). */
const RESULT_ATTEMPT_MS = 2000;

/** Event lines a result may carry: its bound less room for the record (a test may lower it: defaults.ts `maxEventBytes`). */
export const MAX_EVENT_BYTES = MAX_RESULT_BYTES - 16 * 1024 * 1024;

/** What a study member needs of its host (host.ts). */
export interface MemberHost {
  readonly bus: BusEndpoint;
  readonly subjects: Subjects;
  readonly js: JetStreamClient;
  readonly name: string;
  readonly pool: LocalHost;
  readonly log: (line: string) => void;
  /** The bound on a run's event lines: MAX_EVENT_BYTES, lower only in a test. */
  readonly maxEventBytes: number;
  /** Studies whose queue was found gone: not joined again. */
  readonly left: BoundedSet;
  /** Whether the host is leaving. */
  stopping(): boolean;
  /** A run's result was confirmed. */
  runDone(): void;
  /** The member stopped serving its study (`session`). */
  leave(session: string): void;
}

/** What the host is doing for one study. */
export class StudyMember {
  readonly session: string;
  /** The study's coordinator ended it. */
  ended = false;
  current: { run: PipelineRun; msg: JsMsg } | null = null;
  private readonly endSub: Subscription;

  constructor(
    private readonly host: MemberHost,
    private readonly invite: BusMessage<'invite'>,
    /** The study's coordinator: only it may end the study or confirm a result. */
    readonly coordinator: string,
  ) {
    const { bus } = host;
    this.session = invite.session;
    this.endSub = bus.listen(host.subjects.study(invite.session, 'end'), ['end'], (end, from) => {
      if (end.session !== invite.session || from !== coordinator) return void bus.dropped.unauthenticated++;
      this.ended = true;
      this.current?.run.stop();
    });
  }

  /** Serves the study's runs until it ends, the host leaves, or its queue is gone. */
  async serve(): Promise<void> {
    const { host, invite } = this;
    const { nc } = host.bus;
    try {
      const consumer = await host.js.consumers.get(invite.stream, invite.consumer);
      while (!this.ended && !host.stopping() && !nc.isClosed()) {
        const msg = await consumer.next({ expires: 1000 });
        // Nothing came: the queue may be gone (the pull says nothing of it); info() throws then.
        if (!msg) await consumer.info();
        else if (!(await this.serveRun(msg, invite.ackWaitMs))) break;
      }
    } catch (error) {
      // The study's stream is gone (the study ended) or the broker is: either way, leave it, and
      // never join it again (an invitation to it would only find it gone once more).
      if (!this.ended && !host.stopping() && !nc.isClosed()) {
        host.left.add(invite.session);
        host.log(`left study ${invite.session}: ${safeText(error instanceof Error ? error.message : String(error), 200)}`);
      }
    } finally {
      this.endSub.unsubscribe();
      host.leave(invite.session);
    }
  }

  /**
   * Sends a run's result until its study's coordinator confirms it: null once it did, else why
   * not. Each attempt is short and the result is sent again (recorded once: the coordinator
   * answers a repeat as a duplicate), so a broker that restarts costs a few seconds, not the
   * whole RESULT_TIMEOUT_MS; a reply from anyone but the coordinator is dropped. A study its
   * coordinator ended (`end`, heard while sending) confirms nothing more: the host stops
   * asking at once instead of staying busy for the rest of RESULT_TIMEOUT_MS.
   */
  private async confirm(done: BusMessage<'run-done'>): Promise<string | null> {
    const { bus, subjects } = this.host;
    const deadline = Date.now() + RESULT_TIMEOUT_MS;
    let why = 'timeout';
    while (Date.now() < deadline && !this.host.stopping() && !bus.nc.isClosed()) {
      if (this.ended) return 'the study ended';
      const answer = await bus.requestFrom(
        subjects.study(this.session, 'result'),
        done,
        ['recorded'],
        (message, from) => from === this.coordinator && message.runId === done.runId,
        Math.min(RESULT_ATTEMPT_MS, Math.max(1, deadline - Date.now())),
      );
      if (answer.kind === 'answer') return null;
      why = answer.kind === 'no-responders' ? 'the coordinator is not listening' : 'timeout';
      // Nobody listening (the coordinator's client renews its subscriptions after a reconnect): not at once again.
      if (answer.kind === 'no-responders') await new Promise((resolve) => setTimeout(resolve, RESULT_ATTEMPT_MS / 4));
    }
    return why;
  }

  /** The run a work message orders, if it is this study's and from its coordinator; else the message is ended. */
  private order(msg: JsMsg): BusMessage<'run'> | null {
    // A work message may be redelivered (its host died): out of its sender's order on purpose.
    const decoded = this.host.bus.decode(msg, ['run'], { unordered: true });
    const order =
      decoded.kind === 'ok' && decoded.message.session === this.session && decoded.from === this.coordinator ? decoded.message : null;
    if (!order) {
      if (decoded.kind === 'ok') this.host.bus.dropped.unauthenticated++;
      msg.term(); // no host could do better with it
    }
    return order;
  }

  /** Runs one work message; false when the host should leave the study. */
  private async serveRun(msg: JsMsg, ackWaitMs: number): Promise<boolean> {
    const { bus, subjects, name, log } = this.host;
    const order = this.order(msg);
    if (!order) return true;
    let run: PipelineRun;
    // The resolved config as the coordinator resolved it (the codec checked its shape): not resolved again here.
    const config: SeededRunConfig = order.config;
    try {
      const tooBig = runMemoryAdvice(config, readMemoryLimits());
      if (tooBig) throw new Error(`n: ${tooBig}`);
      run = runPipeline(config, { launcher: this.host.pool });
    } catch (error) {
      // This machine cannot run it (too little memory, ...): give it back for another host.
      const reason = safeText(error instanceof Error ? error.message : String(error), 500) || 'failed';
      log(`cannot run ${order.runId}: ${reason}; leaving the study`);
      msg.nak();
      // The coordinator invites this host no more for the study: the run goes to a host that can.
      bus.publish(subjects.study(this.session, 'refused'), {
        type: 'run-refused',
        session: this.session,
        runId: order.runId,
        host: name,
        reason,
      });
      return false;
    }
    this.current = { run, msg };
    bus.publish(subjects.study(this.session, 'started'), { type: 'run-started', session: this.session, runId: order.runId, host: name });
    // Tell the broker the run is alive, well within its ack deadline.
    const keepAlive = setInterval(() => msg.working(), Math.max(100, ackWaitMs / 3));
    const events = new RecordEvents();
    const progress = new ProgressFeed((islands) =>
      bus.publish(subjects.study(this.session, 'progress'), { type: 'run-progress', session: this.session, runId: order.runId, islands }),
    );
    const subscription = run.events$.subscribe((e: ArchipelagoEvent) => {
      progress.add(e);
      if (order.events) events.add(e);
    });
    try {
      return await this.finishRun(order, run, msg, events);
    } finally {
      progress.close();
      clearInterval(keepAlive);
      subscription.unsubscribe();
      this.current = null;
    }
  }

  /** Sends a finished run's result and acks its work message once confirmed; false when the host should leave the study. */
  private async finishRun(order: BusMessage<'run'>, run: PipelineRun, msg: JsMsg, recorded: RecordEvents): Promise<boolean> {
    const { name, maxEventBytes } = this.host;
    // A failed island (onIslandError: fail) is in the outcome's record too: recorded like any failed run.
    const { record: solved, result } = await run.outcome;
    if (this.ended || this.host.stopping()) {
      msg.nak();
      return false;
    }
    const made = toRunRecord({ id: order.cell.id, values: order.cell.values as Record<string, SweepValue> }, solved);
    const lines = recorded.lines(result);
    // Event lines past the bound cannot be carried: the run is recorded as failed, saying so (never re-run without end).
    const over = lines.reduce((bytes, line) => bytes + line.length * 3 + 5, 0) > maxEventBytes; // at most, in UTF-8 and msgpack
    const bound = maxEventBytes % 2 ** 20 === 0 ? `${maxEventBytes / 2 ** 20} MiB` : `${maxEventBytes} bytes`;
    const tooMany = `its event lines exceed the ${bound} a cluster study's result may carry (run it without --events, or without --cluster)`;
    const record = { ...made, host: name, ...(over ? { error: tooMany } : {}) };
    const events = over ? [] : lines;
    const done: BusMessage<'run-done'> = { type: 'run-done', session: this.session, runId: order.runId, host: name, record, events };
    const confirmed = await this.confirm(done);
    if (confirmed !== null) {
      // No coordinator (it was stopped or died): the run stays in the queue for a resumed study.
      msg.nak();
      this.host.log(`result of ${order.runId} not confirmed (${confirmed})`);
      return false;
    }
    msg.ack();
    this.host.runDone();
    return true;
  }
}
