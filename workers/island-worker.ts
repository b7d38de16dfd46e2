/**
 * Thin glue between piscina and one island: decode the task, wrap the ports and the shared
 * memory, run the island to its end, return its encoded report. One long-running task per worker.
 */
import { decode, encode } from '../src/archipelago/codec.ts';
import { kernelModuleForThread } from '../src/ga/kernel.ts';
import { extendRegistries, loadExtensions } from '../src/archipelago/extension.ts';
import { runIsland } from '../src/archipelago/island-runner.ts';
import { lowerThreadPriority } from '../src/archipelago/thread-priority.ts';
import type { IslandTask } from '../src/archipelago/messages.ts';
import { ISLAND_REGISTRIES } from '../src/archipelago/island-registries.ts';
import { installTestFault, parseTestFault, TEST_FAULT_ENV } from '../src/archipelago/test-fault.ts';
import { SharedMemoryCoordination } from '../src/archipelago/shared-memory-coordination.ts';
import { MessagePortTransport, type IslandEnvelope } from '../src/archipelago/transport.ts';

// Test-only: the fault this thread's environment asks for (src/archipelago/test-fault.ts), wrapped around its island's evolver; never from a task.
const fault = parseTestFault(process.env[TEST_FAULT_ENV]);
const hooks = fault ? { wrap: installTestFault(fault, (code) => process.exit(code)) } : {};

export default function islandWorker(envelope: IslandEnvelope): Uint8Array | Promise<Uint8Array> {
  if (envelope.kernel) kernelModuleForThread(envelope.kernel);
  if (envelope.nice) lowerThreadPriority(envelope.nice);
  const task = decode<IslandTask>(envelope.task);
  const transport = new MessagePortTransport(task.sources, task.targets, envelope.ports);
  const shared = new SharedMemoryCoordination(envelope.shared, task.run.islands);
  const run = (registries = ISLAND_REGISTRIES) => encode(runIsland(task, transport, shared, hooks, registries));
  // Only a task that names extension modules waits for an import.
  if (!task.extensions?.length) return run();
  return loadExtensions(task.extensions).then((extensions) => run(extendRegistries(ISLAND_REGISTRIES, extensions)));
}
