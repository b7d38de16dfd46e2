/**
 * A study's work queue as its coordinator sees it: the stream that holds the runs not yet
 * confirmed. Anyone who may use the broker's JetStream API can delete the stream, or take a
 * run from its consumer and ack it (no cluster key guards JetStream's own acks), and the
 * study would wait for ever. Every run the coordinator has not recorded is in the queue,
 * waiting or held by a host (a host acks only after the coordinator recorded its result), so
 * fewer there than it still waits for means some were taken.
 */
import { AckPolicy, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Subjects } from '../bus/connection.ts';
import { removeAbandonedStudies, type HostLeases } from '../leases/host-lease.ts';

/** What names a study's queue. */
export interface StudyQueue {
  session: string;
  stream: string;
  subjects: Subjects;
  consumer: string;
  ackWaitMs: number;
}

/**
 * Makes the study's stream and its consumer, after the study's lease: a stream without a
 * live lease is a dead study's, removed here first.
 */
export async function openStudyQueue(nc: NatsConnection, leases: HostLeases, queue: StudyQueue): Promise<JetStreamManager> {
  const { session, stream, subjects, consumer, ackWaitMs } = queue;
  const jsm = await jetstreamManager(nc);
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
    durable_name: consumer,
    ack_policy: AckPolicy.Explicit,
    ack_wait: ackWaitMs * 1e6,
    max_deliver: -1,
    max_ack_pending: -1,
  });
  return jsm;
}

/** How often the coordinator looks at its queue. */
export const QUEUE_CHECK_MS = 2000;

export type QueueState = 'ok' | 'gone' | 'short';

export class QueueWatch {
  private shortBefore = false;
  private checking = false;

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly consumer: string,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * 'gone' (said in one line) when the stream or its consumer was deleted; 'short' (said in
   * one line) when fewer runs are in it than `waitingFor` at two looks in a row (one look
   * could fall between a result recorded and its ack); else 'ok'. A look that fails for any
   * other reason (the broker is away) says nothing.
   */
  async check(waitingFor: number): Promise<QueueState> {
    if (this.checking) return 'ok';
    this.checking = true;
    try {
      const info = await this.jsm.consumers.info(this.stream, this.consumer);
      const held = info.num_pending + info.num_ack_pending;
      const short = held < waitingFor;
      const confirmed = short && this.shortBefore;
      this.shortBefore = short && !confirmed;
      if (!confirmed) return 'ok';
      this.log(
        `${waitingFor - held} of the ${waitingFor} runs still to do are missing from the study's queue (taken and acked by a party that is not a host of this study?): publishing them again`,
      );
      return 'short';
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (!/not found/i.test(text)) return 'ok';
      this.log(`the study's queue (stream ${this.stream}) was deleted on the broker: stopping the study`);
      return 'gone';
    } finally {
      this.checking = false;
    }
  }
}
