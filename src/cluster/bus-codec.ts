/**
 * Every message on the bus: one TypeScript type each (inferred from one zod schema each),
 * msgpack on the wire (msgpackr with the thread codec's options), and an envelope naming
 * the bus format and the tool version. Whatever arrives from the network is untrusted: a
 * message that does not decode or fit its schema is dropped and counted, never a crash;
 * one from another tool version or bus format is told apart so it can be refused by name.
 */
import { Packr } from 'msgpackr';
import { z } from 'zod';
import { toolInfo } from '../package-info.ts';

/** Bumped whenever a bus message changes shape or meaning. */
export const BUS_FORMAT = 1;

const packr = new Packr({ moreTypes: true });

const id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const session = id;
const island = z.number().int().min(0);
const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array);

const schemas = {
  /** A host's heartbeat, also its answer to `discover`. */
  host: z.object({ type: z.literal('host'), id, name: z.string().min(1).max(200), islands: z.number().int().min(1), busy: z.boolean() }),
  /** A host leaves (Ctrl-C, SIGTERM): whatever it was running is gone. */
  leave: z.object({ type: z.literal('leave'), id }),
  /** A coordinator looks for hosts: each answers with its heartbeat at once. */
  discover: z.object({ type: z.literal('discover') }),
  /** Join a study: pull its runs from `stream`'s durable consumer `consumer`. */
  invite: z.object({ type: z.literal('invite'), session, stream: z.string().min(1), consumer: z.string().min(1), ackWaitMs: z.number().positive() }),
  /** One run of a study, as a work-queue message. `config` is the resolved run config in the file shape. */
  run: z.object({
    type: z.literal('run'),
    session,
    runId: z.string().min(1),
    cell: z.object({ id: z.string(), values: z.record(z.string(), z.unknown()) }),
    seed: z.number().int().min(0),
    config: z.record(z.string(), z.unknown()),
    events: z.boolean(),
  }),
  /** A host started a run (for the progress display). */
  'run-started': z.object({ type: z.literal('run-started'), session, runId: z.string(), host: z.string() }),
  /** A host's finished run: its record (and event lines when the study keeps them). */
  'run-done': z.object({
    type: z.literal('run-done'),
    session,
    runId: z.string(),
    host: z.string(),
    // A run record (records.ts) as the host built it, key order kept; the coordinator checks it names the run it was given.
    record: z.record(z.string(), z.unknown()).refine((r) => typeof r.cell === 'string' && typeof r.seed === 'number' && (r.error === null || typeof r.error === 'string')),
    events: z.array(z.string()),
  }),
  /** The coordinator's answer to `run-done`: the host may ack the work message now. */
  recorded: z.object({ type: z.literal('recorded'), runId: z.string(), duplicate: z.boolean() }),
  /** The study is over (done or interrupted): hosts stop its runs and leave it. */
  end: z.object({ type: z.literal('end'), session }),

  // One run's islands spread over hosts (cluster-launcher.ts, island-relay.ts). Island
  // tasks, reports, control messages and migrants travel as the thread codec encoded them.
  /** Coordinator → host: run these islands (`tasks`, encoded IslandTasks) of a run of `islands`; `hostOf[i]` is island i's host id. */
  islands: z.object({ type: z.literal('islands'), runId: session, islands: z.number().int().min(1), hostOf: z.array(id), tasks: z.array(bytes) }),
  /** Host → coordinator: the islands are starting. */
  accepted: z.object({ type: z.literal('accepted'), runId: session }),
  /** Host → coordinator: refused, it is serving another run or study (`doing`, for the coordinator's message). */
  busy: z.object({ type: z.literal('busy'), runId: session, doing: z.string().max(200) }),
  /** Between hosts: migrants along the edge from → to. */
  migrants: z.object({ type: z.literal('migrants'), runId: session, from: island, to: island, bytes }),
  /** Host → hosts and coordinator: barrier arrivals of its islands (flat island, epoch pairs), the found-epoch, the stop and its claimer. */
  state: z.object({ type: z.literal('state'), runId: session, reached: z.array(z.number().int()), foundEpoch: z.number().int(), stop: z.number().int().min(0).max(2), winner: z.number().int().min(-1) }),
  /** Host → coordinator: an island's message to the coordinator. */
  control: z.object({ type: z.literal('control'), runId: session, bytes }),
  /** Host → coordinator: an island's end: its encoded report, or why it failed. */
  report: z.object({ type: z.literal('report'), runId: session, island, bytes: bytes.nullable(), error: z.string().nullable() }),
  /** Coordinator → hosts, every heartbeat period: the run's coordinator is still there. */
  alive: z.object({ type: z.literal('alive'), runId: session }),
  /** Coordinator → hosts: stop every island. */
  halt: z.object({ type: z.literal('halt'), runId: session }),
  /** Coordinator → hosts: end islands that did not stop within the grace period. */
  terminate: z.object({ type: z.literal('terminate'), runId: session }),
  /** Coordinator → hosts: these islands are gone (their host was lost): nobody waits for them. */
  depart: z.object({ type: z.literal('depart'), runId: session, islands: z.array(island) }),
} as const;

export type BusMessageType = keyof typeof schemas;
export type BusMessage<T extends BusMessageType = BusMessageType> = z.infer<(typeof schemas)[T]>;

interface Envelope {
  format: number;
  tool: string;
  body: unknown;
}

export function encodeBus(message: BusMessage): Uint8Array {
  const envelope: Envelope = { format: BUS_FORMAT, tool: toolInfo().version, body: message };
  return new Uint8Array(packr.pack(envelope));
}

export type Decoded<T extends BusMessageType> =
  | { kind: 'ok'; message: BusMessage<T> }
  /** From another tool version or bus format: `from` says which, for a one-line refusal. */
  | { kind: 'incompatible'; from: string; body: unknown }
  | { kind: 'malformed' };

/** Decodes a message expected to be one of `types`; never throws. */
export function decodeBus<T extends BusMessageType>(bytes: Uint8Array, ...types: T[]): Decoded<T> {
  let envelope: Partial<Envelope>;
  try {
    envelope = packr.unpack(bytes) as Partial<Envelope>;
  } catch {
    return { kind: 'malformed' };
  }
  if (envelope === null || typeof envelope !== 'object' || typeof envelope.format !== 'number' || typeof envelope.tool !== 'string') return { kind: 'malformed' };
  if (envelope.format !== BUS_FORMAT || envelope.tool !== toolInfo().version) {
    return { kind: 'incompatible', from: `${toolInfo().name} ${envelope.tool} (bus format ${envelope.format})`, body: envelope.body };
  }
  const type = (envelope.body as { type?: unknown } | null)?.type;
  if (!types.includes(type as T)) return { kind: 'malformed' };
  const parsed = schemas[type as T].safeParse(envelope.body);
  return parsed.success ? { kind: 'ok', message: parsed.data as BusMessage<T> } : { kind: 'malformed' };
}

/** This side's version, as a refusal names it. */
export function ownVersion(): string {
  return `${toolInfo().name} ${toolInfo().version} (bus format ${BUS_FORMAT})`;
}

/** Messages dropped since start, by reason; shown by `host` on exit and in a study's summary. */
export class DropCounter {
  malformed = 0;
  incompatible = 0;
  count(decoded: Decoded<BusMessageType>): void {
    if (decoded.kind === 'malformed') this.malformed++;
    else if (decoded.kind === 'incompatible') this.incompatible++;
  }
  get total(): number {
    return this.malformed + this.incompatible;
  }
}
