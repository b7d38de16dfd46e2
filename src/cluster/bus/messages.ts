/**
 * Every message on the bus, one entry each: its zod schema (its TypeScript type is inferred
 * from it), the key that signs it (`scope`), who may send it (`sender`, enforced by the
 * handler that receives it) and the bytes it may take on the wire (`limit`, checked before
 * anything is decoded). docs/ARCHITECTURE.md, "Adding a bus message type", says what a new
 * one needs.
 */
import { z } from 'zod';
import { RESOLVED_CONFIG_VERSION, seededRunConfigSchema } from '../../config/resolved-schema.ts';

/**
 * Bumped whenever a bus message changes shape or meaning. 2: signed envelope (sender,
 * sequence, scope, MAC). 3: a binary frame around the packed body, the MAC over the frame.
 * 4: the MAC a GMAC under each sender's own key, its sequence number the nonce.
 * 5: `read`, what a host of a run has read of another's migrants.
 * 6: `state` carries the run's evaluation ledger (`ledger`, `ledgerFound`).
 */
export const BUS_FORMAT = 6;

/** Bytes on the wire one small control message may take. */
const SMALL = 64 * 1024;
/** Bytes a large one may take: NATS's own hard limit on a payload (the broker's `max_payload` is usually far less). */
export const MAX_BUS_BYTES = 64 * 1024 * 1024;
/** Bytes a study's run result may take, its event lines included (it travels in parts: parts.ts). */
export const MAX_RESULT_BYTES = 256 * 1024 * 1024;

/**
 * Which key signs a message: the cluster's own ('' on the wire: who is there, orders and
 * their answers), its study's (derived with `session`) or its run's (derived with `runId`).
 * A message signed for one study or run cannot be passed off as another's.
 */
export type Scope = 'cluster' | 'study' | 'run';

/** Who may send a message; the receiving handler checks the sender's id against it. */
export type Sender =
  /** Any host of the cluster (its own id). */
  | 'host'
  /** Any coordinator of the cluster. */
  | 'coordinator'
  /** The study's coordinator: the one that invited the host. */
  | 'study coordinator'
  /** A host the study's coordinator invited. */
  | 'study host'
  /** The host an order went to. */
  | 'ordered host'
  /** The run's coordinator (the order names it). */
  | 'run coordinator'
  /** A host of the run, about its own islands only. */
  | 'run host'
  /** The sender of the whole a part belongs to: checked on the whole, as its type says. */
  | 'sender of the whole';

interface MessageSpec<S extends z.ZodType> {
  schema: S;
  scope: Scope;
  sender: Sender;
  limit: number;
}
const spec = <S extends z.ZodType>(scope: Scope, sender: Sender, limit: number, schema: S): MessageSpec<S> => ({
  schema,
  scope,
  sender,
  limit,
});

const id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const session = id;
const island = z.number().int().min(0).max(1_000_000);
const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array);
const text = z.string().max(10_000);
const hostName = z.string().min(1).max(200);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const amount = z.number().min(0).max(Number.MAX_SAFE_INTEGER);
/** Islands one `run-progress` carries: with 9 numbers each, well within SMALL. */
export const MAX_PROGRESS_ISLANDS = 256;
/** [island, iteration, evaluations, best fitness, mean fitness, diversity (0..1), migrants sent, accepted, seconds] */
const progressSample = z.tuple([island, count, count, amount, amount, z.number().min(0).max(1), count, count, amount]);
export type ProgressSample = z.infer<typeof progressSample>;

export const BUS_MESSAGES = {
  /** A host's heartbeat, also its answer to `discover`. */
  host: spec(
    'cluster',
    'host',
    SMALL,
    z.object({ type: z.literal('host'), id, name: hostName, islands: z.number().int().min(1).max(100_000), busy: z.boolean() }),
  ),
  /** A host leaves (Ctrl-C, SIGTERM): whatever it was running is gone. */
  leave: spec('cluster', 'host', SMALL, z.object({ type: z.literal('leave'), id })),
  /** A coordinator looks for hosts: each answers with its heartbeat at once. */
  discover: spec('cluster', 'coordinator', SMALL, z.object({ type: z.literal('discover') })),
  /** Join a study: pull its runs from `stream`'s durable consumer `consumer`. */
  invite: spec(
    'study',
    'study coordinator',
    SMALL,
    z.object({
      type: z.literal('invite'),
      session,
      stream: z.string().regex(/^[A-Za-z0-9_-]{1,200}$/),
      consumer: id,
      ackWaitMs: z.number().int().min(100).max(3_600_000),
    }),
  ),
  /**
   * One run of a study, as a work-queue message. `config` is the resolved run config itself
   * (seed decided), of schema version `configVersion`, checked here against the resolved
   * config's schema: the host runs it as it is, never resolving it again.
   */
  run: spec(
    'study',
    'study coordinator',
    MAX_BUS_BYTES,
    z.object({
      type: z.literal('run'),
      session,
      runId: text.min(1),
      cell: z.object({ id: text, values: z.record(z.string(), z.unknown()) }),
      configVersion: z.literal(RESOLVED_CONFIG_VERSION),
      config: seededRunConfigSchema(),
      events: z.boolean(),
    }),
  ),
  /** A host started a run (for the progress display). */
  'run-started': spec('study', 'study host', SMALL, z.object({ type: z.literal('run-started'), session, runId: text, host: hostName })),
  /**
   * A host's run as it goes (for the live view, `experiment --nats --serve`): the latest
   * progress sample of each island that changed since its last, at most once a second.
   */
  'run-progress': spec(
    'study',
    'study host',
    SMALL,
    z.object({
      type: z.literal('run-progress'),
      session,
      runId: text,
      islands: z.array(progressSample).min(1).max(MAX_PROGRESS_ISLANDS),
    }),
  ),
  /** A host cannot run a run of the study (too little memory for N, ...): it gave the run back; the coordinator invites it no more. */
  'run-refused': spec(
    'study',
    'study host',
    SMALL,
    z.object({ type: z.literal('run-refused'), session, runId: text, host: hostName, reason: z.string().min(1).max(500) }),
  ),
  /** A host's finished run: its record (and event lines when the study keeps them). */
  'run-done': spec(
    'study',
    'study host',
    MAX_RESULT_BYTES,
    z.object({
      type: z.literal('run-done'),
      session,
      runId: text,
      host: hostName,
      // A run record (records.ts) as the host built it, key order kept; the coordinator checks it (result-checks.ts).
      record: z.record(z.string(), z.unknown()),
      events: z.array(z.string()),
    }),
  ),
  /** One piece of a message larger than the broker takes whole (parts.ts); the whole is checked as its own type once put together. */
  part: spec(
    'cluster',
    'sender of the whole',
    MAX_BUS_BYTES,
    z
      .object({ type: z.literal('part'), batch: id, index: z.number().int().min(0), count: z.number().int().min(2).max(1_000_000), bytes })
      .refine((p) => p.index < p.count),
  ),
  /** The coordinator's answer to `run-done`: the host may ack the work message now. */
  recorded: spec(
    'study',
    'study coordinator',
    SMALL,
    z.object({ type: z.literal('recorded'), session, runId: text, duplicate: z.boolean() }),
  ),
  /** The study is over (done or interrupted): hosts stop its runs and leave it. */
  end: spec('study', 'study coordinator', SMALL, z.object({ type: z.literal('end'), session })),

  // One run's islands spread over hosts (launcher/). Island tasks, reports, control messages
  // and migrants travel as the thread codec encoded them, checked with `carried` where they land.
  /**
   * Coordinator → host: run these islands (`tasks`, encoded IslandTasks) of a run of `islands`;
   * `hostOf[i]` is island i's host id, `coordinator` the id the coordinator signs with.
   */
  islands: spec(
    'cluster',
    'coordinator',
    MAX_BUS_BYTES,
    z
      .object({
        type: z.literal('islands'),
        runId: session,
        coordinator: id,
        islands: z.number().int().min(1).max(100_000),
        hostOf: z.array(id),
        tasks: z.array(bytes).min(1),
      })
      .refine((o) => o.hostOf.length === o.islands),
  ),
  /** Host → coordinator: the islands are starting. */
  accepted: spec('cluster', 'ordered host', SMALL, z.object({ type: z.literal('accepted'), runId: session })),
  /** Host → coordinator: the host will not run these islands, and why (one line). */
  refused: spec(
    'cluster',
    'ordered host',
    SMALL,
    z.object({ type: z.literal('refused'), runId: session, reason: z.string().min(1).max(500) }),
  ),
  /** Between hosts: migrants along the edge from → to. */
  migrants: spec(
    'run',
    'run host',
    MAX_BUS_BYTES,
    z.object({ type: z.literal('migrants'), runId: session, from: island, to: island, bytes }),
  ),
  /** Host → a host of the run: bytes of migrants read from it so far (launcher/migrant-flow.ts bounds what is unread). */
  read: spec(
    'run',
    'run host',
    SMALL,
    z.object({ type: z.literal('read'), runId: session, bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }),
  ),
  /**
   * Host → the run's other hosts: barrier arrivals of its islands (flat island, epoch pairs), the found-epoch, the stop and its
   * claimer; and its islands' evaluation ledger counts (flat island, iteration, evaluations triples) with the ledger's found iteration.
   */
  state: spec(
    'run',
    'run host',
    MAX_BUS_BYTES,
    z.object({
      type: z.literal('state'),
      runId: session,
      reached: z.array(z.number().int()).max(200_000),
      foundEpoch: z.number().int(),
      stop: z.number().int().min(0).max(2),
      winner: z.number().int().min(-1),
      ledger: z.array(count).max(300_000),
      ledgerFound: count,
    }),
  ),
  /** Host → coordinator: an island's message to the coordinator. */
  control: spec('run', 'run host', MAX_BUS_BYTES, z.object({ type: z.literal('control'), runId: session, bytes })),
  /** Host → coordinator: an island's end: its encoded report, or why it failed. */
  report: spec(
    'run',
    'run host',
    MAX_BUS_BYTES,
    z.object({ type: z.literal('report'), runId: session, island, bytes: bytes.nullable(), error: text.nullable() }),
  ),
  /** Coordinator → hosts, every heartbeat period: the run's coordinator is still there. */
  alive: spec('run', 'run coordinator', SMALL, z.object({ type: z.literal('alive'), runId: session })),
  /** Coordinator → hosts: stop every island. */
  halt: spec('run', 'run coordinator', SMALL, z.object({ type: z.literal('halt'), runId: session })),
  /** Coordinator → hosts: end islands that did not stop within the grace period. */
  terminate: spec('run', 'run coordinator', SMALL, z.object({ type: z.literal('terminate'), runId: session })),
  /** Coordinator → hosts: these islands are gone (their host was lost): nobody waits for them. */
  depart: spec(
    'run',
    'run coordinator',
    MAX_BUS_BYTES,
    z.object({ type: z.literal('depart'), runId: session, islands: z.array(island).max(100_000) }),
  ),
} as const;

export type BusMessageType = keyof typeof BUS_MESSAGES;
export type BusMessage<T extends BusMessageType = BusMessageType> = z.infer<(typeof BUS_MESSAGES)[T]['schema']>;

/** The scope a message is signed in, as the frame names it: '' (the cluster's key), or the id of its study or run. */
export function scopeOf(message: BusMessage): string {
  const { scope } = BUS_MESSAGES[message.type];
  if (scope === 'study' && 'session' in message) return message.session;
  if (scope === 'run' && 'runId' in message) return message.runId;
  return '';
}
