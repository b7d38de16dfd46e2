import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { decode, encode } from './codec.ts';
import type { KernelModule } from '../ga/kernel.ts';
import type { ControlMessage, MigrantsMessage } from './messages.ts';
import type { IslandTransport } from './island-transport.ts';

/** The island's ends of its channels, as handed to its worker (ports in the transfer list). */
export interface IslandPorts {
  control: MessagePort;
  inPorts: MessagePort[];
  outPorts: MessagePort[];
}

/** MessagePort transport: one MessageChannel per directed edge, plus a control channel to the coordinator. */
export class MessagePortTransport implements IslandTransport {
  constructor(
    readonly sources: readonly number[],
    readonly targets: readonly number[],
    private readonly ports: IslandPorts,
  ) {}

  send(message: MigrantsMessage): void {
    const outPorts = this.ports.outPorts;
    const bytes = encode(message);
    for (let i = 0; i < outPorts.length; i++) {
      // Each port gets its own buffer to transfer (a transferred buffer is gone from here).
      const own = i === outPorts.length - 1 ? bytes : bytes.slice();
      outPorts[i].postMessage(own, [own.buffer]);
    }
  }

  receive(index: number): MigrantsMessage | undefined {
    // A busy loop never sees 'message' events: pull straight from the port's queue.
    const got = receiveMessageOnPort(this.ports.inPorts[index]);
    return got ? decode<MigrantsMessage>(got.message as Uint8Array) : undefined;
  }

  report(message: ControlMessage): void {
    const bytes = encode(message);
    this.ports.control.postMessage(bytes, [bytes.buffer]);
  }

  close(): void {
    this.ports.control.close();
    for (const p of this.ports.inPorts) p.close();
    for (const p of this.ports.outPorts) p.close();
  }
}

/** The host's wiring of one run: per island, its ends of its channels; and the host's ends of the control channels. */
export interface PortMesh {
  islands: IslandPorts[];
  controls: MessagePort[];
}

/**
 * One MessageChannel per directed edge and one control channel per island. Port k of an
 * island's `inPorts` (`outPorts`) belongs to its k-th source (target), as the task lists them.
 */
export function createPortMesh(neighbours: readonly { sources: readonly number[]; targets: readonly number[] }[]): PortMesh {
  const mesh: PortMesh = { islands: [], controls: [] };
  for (const { sources } of neighbours) {
    const control = new MessageChannel();
    mesh.controls.push(control.port1);
    mesh.islands.push({ control: control.port2, inPorts: new Array<MessagePort>(sources.length), outPorts: [] });
  }
  neighbours.forEach(({ targets }, from) => {
    for (const to of targets) {
      const channel = new MessageChannel();
      mesh.islands[from].outPorts.push(channel.port1);
      mesh.islands[to].inPorts[neighbours[to].sources.indexOf(from)] = channel.port2;
    }
  });
  return mesh;
}

/**
 * The piscina task payload of one worker thread: its islands, in ascending island id (structured
 * clone, not the codec: ports and shared memory must be transferred or shared, not serialised).
 * Each `task` is an encoded `IslandTask`. The thread posts each island's end on `results` as
 * it ends (`IslandEnd`), so one island's report or failure does not wait for the others.
 */
export interface ThreadEnvelope {
  islands: { task: Uint8Array; ports: IslandPorts }[];
  shared: SharedArrayBuffer;
  results: MessagePort;
  /** Paper mode: the WebAssembly kernel, compiled once by the host. */
  kernel?: KernelModule;
  /** How far below its process's main thread the island thread runs (thread-priority.ts); the host's choice, never a message's. */
  nice?: number;
}

/** One island's end, posted on its thread's `results` port: `at` is its index in the envelope; its encoded report, or why it failed. */
export type IslandEnd = { at: number; report: Uint8Array } | { at: number; error: string };
