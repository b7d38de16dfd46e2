/**
 * Every message on the bus: one TypeScript type each (inferred from one zod schema each),
 * its body msgpack (msgpackr with the thread codec's options), packed once, in a frame
 * [header | body | mac]: the header names the bus format, the tool version, the sender, its
 * sequence number and the message's scope; the mac, with a cluster key, is a GMAC (AES-256-GCM)
 * over the subject and exactly the frame's bytes before it (bus-key.ts, docs/distributed.md,
 * "Security model").
 *
 * Whatever arrives from the network is untrusted: a message larger than its type's bound is
 * refused before it is decoded; one that does not decode, fit its schema, carry a valid
 * signature or is a replay is dropped and counted, never a crash; one from another tool
 * version or bus format is told apart so it can be refused by name. The thread messages a
 * bus message carries (an island's task, its control messages, its report, migrants) are
 * checked here too, against the same shapes the islands send (`carried`).
 */
import { createCipheriv, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { Packr } from 'msgpackr';
import { z } from 'zod';
import { decode } from '../archipelago/codec.ts';
import type { ControlMessage, IslandReport, IslandTask, MigrantsMessage, SnapshotMessage, StopReason } from '../archipelago/messages.ts';
import { RESOLVED_CONFIG_VERSION, seededRunConfigSchema } from '../config/resolved-schema.ts';
import { toolInfo } from '../package-info.ts';
import { macKeyOf, type ClusterKey } from './bus-key.ts';

/**
 * Bumped whenever a bus message changes shape or meaning. 2: signed envelope (sender,
 * sequence, scope, MAC). 3: a binary frame around the packed body, the MAC over the frame.
 * 4: the MAC a GMAC under each sender's own key, its sequence number the nonce.
 */
export const BUS_FORMAT = 4;

const bodyPackr = new Packr({ moreTypes: true });

const id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const session = id;
const island = z.number().int().min(0).max(1_000_000);
const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array);
const text = z.string().max(10_000);

const schemas = {
  /** A host's heartbeat, also its answer to `discover`. */
  host: z.object({
    type: z.literal('host'),
    id,
    name: z.string().min(1).max(200),
    islands: z.number().int().min(1).max(100_000),
    busy: z.boolean(),
  }),
  /** A host leaves (Ctrl-C, SIGTERM): whatever it was running is gone. */
  leave: z.object({ type: z.literal('leave'), id }),
  /** A coordinator looks for hosts: each answers with its heartbeat at once. */
  discover: z.object({ type: z.literal('discover') }),
  /** Join a study: pull its runs from `stream`'s durable consumer `consumer`. */
  invite: z.object({
    type: z.literal('invite'),
    session,
    stream: z.string().regex(/^[A-Za-z0-9_-]{1,200}$/),
    consumer: id,
    ackWaitMs: z.number().int().min(100).max(3_600_000),
  }),
  /**
   * One run of a study, as a work-queue message. `config` is the resolved run config itself
   * (seed decided), of schema version `configVersion`, checked here against the resolved
   * config's schema: the host runs it as it is, never resolving it again.
   */
  run: z.object({
    type: z.literal('run'),
    session,
    runId: text.min(1),
    cell: z.object({ id: text, values: z.record(z.string(), z.unknown()) }),
    configVersion: z.literal(RESOLVED_CONFIG_VERSION),
    config: seededRunConfigSchema(),
    events: z.boolean(),
  }),
  /** A host started a run (for the progress display). */
  'run-started': z.object({ type: z.literal('run-started'), session, runId: text, host: z.string().min(1).max(200) }),
  /** A host's finished run: its record (and event lines when the study keeps them). */
  'run-done': z.object({
    type: z.literal('run-done'),
    session,
    runId: text,
    host: z.string().min(1).max(200),
    // A run record (records.ts) as the host built it, key order kept; the coordinator checks it (study-checks.ts).
    record: z.record(z.string(), z.unknown()),
    events: z.array(z.string()),
  }),
  /** The coordinator's answer to `run-done`: the host may ack the work message now. */
  recorded: z.object({ type: z.literal('recorded'), session, runId: text, duplicate: z.boolean() }),
  /** The study is over (done or interrupted): hosts stop its runs and leave it. */
  end: z.object({ type: z.literal('end'), session }),

  // One run's islands spread over hosts (cluster-launcher.ts, island-relay.ts). Island
  // tasks, reports, control messages and migrants travel as the thread codec encoded them,
  // checked with `carried` where they land.
  /**
   * Coordinator → host: run these islands (`tasks`, encoded IslandTasks) of a run of `islands`;
   * `hostOf[i]` is island i's host id, `coordinator` the id the coordinator signs with.
   */
  islands: z
    .object({
      type: z.literal('islands'),
      runId: session,
      coordinator: id,
      islands: z.number().int().min(1).max(100_000),
      hostOf: z.array(id),
      tasks: z.array(bytes).min(1),
    })
    .refine((o) => o.hostOf.length === o.islands),
  /** Host → coordinator: the islands are starting. */
  accepted: z.object({ type: z.literal('accepted'), runId: session }),
  /** Host → coordinator: the host will not run these islands, and why (one line). */
  refused: z.object({ type: z.literal('refused'), runId: session, reason: z.string().min(1).max(500) }),
  /** Between hosts: migrants along the edge from → to. */
  migrants: z.object({ type: z.literal('migrants'), runId: session, from: island, to: island, bytes }),
  /** Host → the run's other hosts: barrier arrivals of its islands (flat island, epoch pairs), the found-epoch, the stop and its claimer. */
  state: z.object({
    type: z.literal('state'),
    runId: session,
    reached: z.array(z.number().int()).max(200_000),
    foundEpoch: z.number().int(),
    stop: z.number().int().min(0).max(2),
    winner: z.number().int().min(-1),
  }),
  /** Host → coordinator: an island's message to the coordinator. */
  control: z.object({ type: z.literal('control'), runId: session, bytes }),
  /** Host → coordinator: an island's end: its encoded report, or why it failed. */
  report: z.object({ type: z.literal('report'), runId: session, island, bytes: bytes.nullable(), error: text.nullable() }),
  /** Coordinator → hosts, every heartbeat period: the run's coordinator is still there. */
  alive: z.object({ type: z.literal('alive'), runId: session }),
  /** Coordinator → hosts: stop every island. */
  halt: z.object({ type: z.literal('halt'), runId: session }),
  /** Coordinator → hosts: end islands that did not stop within the grace period. */
  terminate: z.object({ type: z.literal('terminate'), runId: session }),
  /** Coordinator → hosts: these islands are gone (their host was lost): nobody waits for them. */
  depart: z.object({ type: z.literal('depart'), runId: session, islands: z.array(island).max(100_000) }),
} as const;

export type BusMessageType = keyof typeof schemas;
export type BusMessage<T extends BusMessageType = BusMessageType> = z.infer<(typeof schemas)[T]>;

/** Bytes on the wire one small control message may take. */
const SMALL = 64 * 1024;
/** Bytes a large one may take: NATS's own hard limit on a payload (the broker's `max_payload` is usually far less). */
export const MAX_BUS_BYTES = 64 * 1024 * 1024;
/** The bound of each type, checked on the raw bytes before anything is decoded. */
const LIMITS: Record<BusMessageType, number> = {
  host: SMALL,
  leave: SMALL,
  discover: SMALL,
  invite: SMALL,
  'run-started': SMALL,
  recorded: SMALL,
  end: SMALL,
  accepted: SMALL,
  refused: SMALL,
  alive: SMALL,
  halt: SMALL,
  terminate: SMALL,
  run: MAX_BUS_BYTES,
  'run-done': MAX_BUS_BYTES,
  islands: MAX_BUS_BYTES,
  migrants: MAX_BUS_BYTES,
  state: MAX_BUS_BYTES,
  control: MAX_BUS_BYTES,
  report: MAX_BUS_BYTES,
  depart: MAX_BUS_BYTES,
};

/** Which key signs a type: the cluster's (who is there, orders), a study's or a run's (derived with its id). */
function scopeOf(message: BusMessage): string {
  if ('session' in message) return message.session;
  if ('runId' in message && message.type !== 'islands' && message.type !== 'accepted' && message.type !== 'refused') return message.runId;
  return '';
}

/** A frame's fields. Its layout: format (u8), then tool, from and scope (each a u8 length and its UTF-8 bytes), seq (f64, big-endian), flags (u8: 1 signed), body, mac (MAC_BYTES, 16, when signed). */
export interface Frame {
  format: number;
  tool: string;
  /** The sender's id (a host's id, a coordinator's). */
  from: string;
  /** The sender's message count, 1, 2, ...: a receiver takes each sender's messages in increasing order only. */
  seq: number;
  /** '' (the cluster's key), or the study or run whose key signs it. */
  scope: string;
  /** The packed message: a view into the frame. */
  body: Uint8Array;
  /** The GMAC over the subject and the frame up to it (`macOf`; a view into the frame), or null unsigned. */
  mac: Uint8Array | null;
}

const MAC_BYTES = 16;
const SIGNED = 1;

/**
 * The frame of `body` (its one copy), unsigned when `sign` is not given, else with the MAC
 * `sign` computes over the frame's bytes before it (a tool or scope over 255 bytes is cut: a
 * receiver then refuses it).
 */
export function writeFrame(
  fields: Omit<Frame, 'mac' | 'format' | 'tool'> & { format?: number; tool?: string },
  sign?: (signed: Uint8Array) => Uint8Array,
): Buffer {
  const tool = Buffer.from(fields.tool ?? toolInfo().version, 'utf8').subarray(0, 255);
  const from = Buffer.from(fields.from, 'utf8').subarray(0, 255);
  const scope = Buffer.from(fields.scope, 'utf8').subarray(0, 255);
  const head = 1 + 1 + tool.length + 1 + from.length + 1 + scope.length + 8 + 1;
  const frame = Buffer.allocUnsafe(head + fields.body.length + (sign ? MAC_BYTES : 0));
  let at = frame.writeUInt8(fields.format ?? BUS_FORMAT, 0);
  for (const part of [tool, from, scope]) {
    at = frame.writeUInt8(part.length, at);
    at += part.copy(frame, at);
  }
  at = frame.writeDoubleBE(fields.seq, at);
  at = frame.writeUInt8(sign ? SIGNED : 0, at);
  frame.set(fields.body, at);
  if (sign) frame.set(sign(frame.subarray(0, head + fields.body.length)), head + fields.body.length);
  return frame;
}

/** A frame's fields (views into `data`, no copy), or null when it is not a whole frame of this layout. */
export function readFrame(data: Uint8Array): Frame | null {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  const need = (n: number) => at + n <= bytes.length;
  if (!need(1)) return null;
  const format = bytes[at++];
  const strings: string[] = [];
  for (let k = 0; k < 3; k++) {
    if (!need(1)) return null;
    const length = bytes[at++];
    if (!need(length)) return null;
    strings.push(bytes.toString('utf8', at, at + length));
    at += length;
  }
  if (!need(9)) return null;
  const seq = bytes.readDoubleBE(at);
  const flags = bytes[at + 8];
  at += 9;
  if (flags & ~SIGNED) return null;
  const macAt = flags & SIGNED ? bytes.length - MAC_BYTES : bytes.length;
  if (macAt < at) return null;
  return {
    format,
    tool: strings[0],
    from: strings[1],
    scope: strings[2],
    seq,
    body: bytes.subarray(at, macAt),
    mac: flags & SIGNED ? bytes.subarray(macAt) : null,
  };
}

/**
 * The MAC of a frame's signed bytes, for `subject` (NATS subjects hold no NUL): a GMAC, the
 * AES-256-GCM tag of no plaintext with the subject and the bytes as associated data, under
 * the sender's key (bus-key.ts `macKeyOf`) with its sequence number as the nonce. A sender
 * never uses a sequence number twice, so no key meets a nonce twice, as GCM requires.
 * AES-GCM runs in hardware: 40 kB in about 7 µs, where HMAC-SHA256 took about 40.
 */
function macOf(key: KeyObject, seq: number, subject: string, signed: Uint8Array): Buffer {
  const nonce = Buffer.alloc(12);
  nonce.writeUInt32BE(Math.floor(seq / 2 ** 32), 4);
  nonce.writeUInt32BE(seq >>> 0, 8);
  const gmac = createCipheriv('aes-256-gcm', key, nonce);
  gmac.setAAD(Buffer.from(`${subject}\u0000`, 'utf8'));
  gmac.setAAD(signed);
  gmac.final();
  return gmac.getAuthTag();
}

/** Why a message was dropped; `host` prints the counts when it leaves, `solve` and `experiment` at the end. */
export type DropReason = 'malformed' | 'incompatible' | 'unauthenticated' | 'invalid';

/** Messages dropped since start, by reason. */
export class DropCounter {
  /** Did not decode, fit its schema, or broke its handler. */
  malformed = 0;
  /** From another tool version or bus format. */
  incompatible = 0;
  /** No valid signature under a cluster key, a replay, or from a party not of its run. */
  unauthenticated = 0;
  /** A claimed result (solution, best, report, study record) that fails the independent checks. */
  invalid = 0;
  count(decoded: { kind: string }): void {
    if (decoded.kind === 'malformed' || decoded.kind === 'incompatible' || decoded.kind === 'unauthenticated' || decoded.kind === 'invalid')
      this[decoded.kind]++;
  }
  get total(): number {
    return this.malformed + this.incompatible + this.unauthenticated + this.invalid;
  }
  /** `3 bus messages dropped (2 malformed, 1 unauthenticated)`, or '' when none was. */
  describe(): string {
    if (this.total === 0) return '';
    const parts = (['malformed', 'incompatible', 'unauthenticated', 'invalid'] as const).flatMap((k) =>
      this[k] ? [`${this[k]} ${k === 'incompatible' ? 'foreign' : k}`] : [],
    );
    return `${this.total} bus message${this.total === 1 ? '' : 's'} dropped (${parts.join(', ')})`;
  }
}

export type Decoded<T extends BusMessageType> =
  /** `from`: the sender's id (authenticated when a cluster key is set). */
  | { kind: 'ok'; message: BusMessage<T>; from: string }
  /** From another tool version or bus format: `from` says which, for a one-line refusal. */
  | { kind: 'incompatible'; from: string; body: unknown }
  | { kind: 'malformed' }
  | { kind: 'unauthenticated' };

export interface DecodeOptions {
  /**
   * Skip the sequence check, for a message whose order against its sender's others is not
   * kept: a work message JetStream redelivers on purpose, or a request's reply, which the
   * client hands over through a promise (after messages behind it in the same read were
   * already dispatched). Such a message is still signed for its subject: a reply for the
   * request's own one-time inbox (a replay can reach no other request), a work message for
   * its study's queue (a replayed one only repeats a run, recorded once).
   */
  unordered?: boolean;
}

/**
 * One process's end of the bus: it signs what it sends (with its id and a sequence number)
 * and checks what it receives. One per connection: sequence numbers are checked per sender,
 * which NATS delivers in order on one connection.
 */
export class BusCodec {
  private seq = 0;
  /** Each sender's last sequence number taken (only with a key: without one anybody may claim any). */
  private readonly last = new Map<string, number>();
  /** Each sender's derived key in a run or study, by scope and sender; a few hundred at a time. */
  private readonly keys = new Map<string, KeyObject>();

  constructor(
    /** This process's id on the bus. */
    readonly self: string,
    private readonly key: ClusterKey | null,
    readonly dropped = new DropCounter(),
  ) {}

  get signed(): boolean {
    return this.key !== null;
  }

  /** A codec under the same key for another sender (its own sequence numbers and drop counts). */
  sibling(self: string): BusCodec {
    return new BusCodec(self, this.key);
  }

  private keyOf(scope: string, sender: string): KeyObject {
    const name = `${scope}\u0000${sender}`;
    let key = this.keys.get(name);
    if (!key) {
      if (this.keys.size >= 256) this.keys.clear();
      key = createSecretKey(macKeyOf(this.key!, scope, sender));
      this.keys.set(name, key);
    }
    return key;
  }

  /** The bytes to publish `message` on `subject` (a message is signed for one subject): its body packed once, copied once into its frame. */
  encode(subject: string, message: BusMessage): Uint8Array {
    const seq = ++this.seq;
    const scope = scopeOf(message);
    const key = this.key ? this.keyOf(scope, this.self) : null;
    return writeFrame(
      { from: this.self, seq, scope, body: bodyPackr.pack(message) },
      key ? (signed) => macOf(key, seq, subject, signed) : undefined,
    );
  }

  /**
   * Decodes a message that arrived on `subject`, expected to be one of `types`; never throws.
   * Counts what it drops (an incompatible message too; the caller may name its sender).
   */
  decode<T extends BusMessageType>(subject: string, data: Uint8Array, types: readonly T[], options: DecodeOptions = {}): Decoded<T> {
    const decoded = this.check(subject, data, types, options);
    if (decoded.kind !== 'ok') this.dropped.count(decoded);
    return decoded;
  }

  private check<T extends BusMessageType>(subject: string, data: Uint8Array, types: readonly T[], options: DecodeOptions): Decoded<T> {
    if (!(data instanceof Uint8Array) || data.length === 0) return { kind: 'malformed' };
    let limit = 0;
    for (const t of types) limit = Math.max(limit, LIMITS[t]);
    if (data.length > limit) return { kind: 'malformed' };
    if (data[0] !== BUS_FORMAT) return foreign(data);
    const frame = readFrame(data);
    if (!frame) return { kind: 'malformed' };
    if (frame.tool !== toolInfo().version)
      return {
        kind: 'incompatible',
        from: `${toolInfo().name} ${frame.tool.slice(0, 40)} (bus format ${frame.format})`,
        body: unpackQuietly(frame.body),
      };
    const { from, seq, scope, mac, body } = frame;
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(from) || !Number.isSafeInteger(seq) || seq < 1 || scope.length > 64) return { kind: 'malformed' };
    if (this.key) {
      // Checked before anything in the body is decoded: the MAC covers every byte sent but itself.
      if (mac === null) return { kind: 'unauthenticated' };
      if (!timingSafeEqual(mac, macOf(this.keyOf(scope, from), seq, subject, data.subarray(0, data.length - MAC_BYTES))))
        return { kind: 'unauthenticated' };
      if (!options.unordered) {
        if (seq <= (this.last.get(from) ?? 0)) return { kind: 'unauthenticated' };
        this.last.set(from, seq);
      }
    }
    const message = unpackQuietly(body) as { type?: unknown } | null;
    const type = message?.type;
    if (!types.includes(type as T)) return { kind: 'malformed' };
    const parsed = schemas[type as T].safeParse(message);
    if (!parsed.success) return { kind: 'malformed' };
    // Signed for this scope: a run's message cannot be passed off as another run's.
    if (scopeOf(parsed.data) !== scope) return { kind: 'unauthenticated' };
    return { kind: 'ok', message: parsed.data as BusMessage<T>, from };
  }
}

/**
 * A message not in this format: a frame of another format (its header keeps format and tool
 * first) or a msgpack envelope of formats 1 and 2 names its sender's version; anything else
 * is malformed.
 */
function foreign(data: Uint8Array): Decoded<never> {
  const frame = data[0] < 0x80 ? readFrame(data) : null;
  if (frame)
    return { kind: 'incompatible', from: `${toolInfo().name} ${frame.tool.slice(0, 40)} (bus format ${frame.format})`, body: undefined };
  const envelope = unpackQuietly(data) as { format?: unknown; tool?: unknown; body?: unknown } | null;
  if (
    envelope === null ||
    typeof envelope !== 'object' ||
    typeof envelope.format !== 'number' ||
    envelope.format === BUS_FORMAT ||
    typeof envelope.tool !== 'string'
  )
    return { kind: 'malformed' };
  // Format 1 carried the body as an object, 2 as packed bytes: either way a sender that says it is a host can be named.
  const body = envelope.body instanceof Uint8Array ? unpackQuietly(envelope.body) : envelope.body;
  return { kind: 'incompatible', from: `${toolInfo().name} ${envelope.tool.slice(0, 40)} (bus format ${envelope.format})`, body };
}

function unpackQuietly(bytes: Uint8Array): unknown {
  try {
    return bodyPackr.unpack(bytes) as unknown;
  } catch {
    return undefined;
  }
}

/** This side's version, as a refusal names it. */
export function ownVersion(): string {
  return `${toolInfo().name} ${toolInfo().version} (bus format ${BUS_FORMAT})`;
}

// The thread messages a bus message carries, checked where they land (loose: fields the
// schemas do not name are kept for the archipelago). Typed arrays arrive typed (msgpackr `moreTypes`); what the checks below cannot know (is a chromosome a
// permutation, is a fitness right) is checked by result-checks.ts with N at hand.

const int = z.number().int();
/** Every StopReason (messages.ts). */
const STOP_REASONS = [
  'solved',
  'also-solved',
  'other-solved',
  'stopped',
  'max-iterations',
  'max-evaluations',
] as const satisfies readonly StopReason[];
const count = z.number().int().min(0);
const time = z.number();
const genes = z.union([z.instanceof(Uint16Array), z.instanceof(Int32Array)]);
const records = z.instanceof(Int32Array).refine((r) => r.length % 6 === 0);

const progress = z.looseObject({
  type: z.literal('progress'),
  island,
  iteration: count,
  evaluations: count,
  bestFitness: count,
  meanFitness: z.number().min(0),
  diversity: z.number().min(0),
  migrantsSent: count,
  migrantsAccepted: count,
  time,
  migrations: records,
});
const best = z.looseObject({ type: z.literal('best'), island, bestFitness: count, best: genes });
const solution = z.looseObject({ type: z.literal('solution'), island, iteration: count, genes, foundAt: time });
const started = z.looseObject({ type: z.literal('started'), island, time });

const carriedSchemas = {
  /** Checkpoints are not taken of islands on other hosts: no `snapshot` here. */
  control: z.discriminatedUnion('type', [progress, best, solution, started]),
  report: z.looseObject({
    type: z.literal('report'),
    island,
    iterations: count,
    evaluations: count,
    bestFitness: int,
    best: genes.nullable(),
    solution: genes.nullable(),
    foundAtIteration: int,
    foundAt: time,
    claimed: z.boolean(),
    migrantsSent: count,
    migrantsAccepted: count,
    startedAt: time,
    stoppedAt: time,
    stopReason: z.enum(STOP_REASONS),
    migrations: records,
  }),
  migrants: z.looseObject({
    type: z.literal('migrants'),
    from: island,
    epoch: count,
    iteration: count,
    count: z.number().int().min(0).max(1_000_000),
    genes,
  }),
  /**
   * An island's task as a coordinator sends it: no checkpoint to resume from (refused with
   * --nats), and no extension modules (a host loads only its own). Its `run` is checked here
   * for what names what the host must have (its GA mode, its policies); the host checks the
   * whole resolved run against its own registries (host.ts `checkOrder`, resolved-schema.ts).
   */
  // Strict where it lands in a worker: a key no task has is dropped here, never handed on.
  task: z.object({
    type: z.literal('task'),
    island,
    run: z.looseObject({
      islands: z.number().int().min(1).max(100_000),
      ga: z.looseObject({ mode: z.string().min(1).max(100) }),
      migration: z.looseObject({
        emigrantSelection: z.looseObject({ kind: z.string().min(1).max(100) }),
        replacement: z.union([z.string().min(1).max(100), z.looseObject({ kind: z.string().min(1).max(100) })]),
      }),
    }),
    progressIntervalMs: z.number().min(1).max(3_600_000),
    sources: z.array(island),
    targets: z.array(island),
    snapshot: z.null(),
    extensions: z.array(z.string()).optional(),
  }),
} as const;

type Carried = { control: Exclude<ControlMessage, SnapshotMessage>; report: IslandReport; migrants: MigrantsMessage; task: IslandTask };

/** A thread message carried in a bus message, checked against its shape; null when it does not fit. */
export function carried<K extends keyof Carried>(kind: K, data: Uint8Array): Carried[K] | null {
  let value: unknown;
  try {
    value = decode(data);
  } catch {
    return null;
  }
  const parsed = carriedSchemas[kind].safeParse(value);
  return parsed.success ? (parsed.data as unknown as Carried[K]) : null;
}
