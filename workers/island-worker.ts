/**
 * Thin glue between piscina and one worker thread's islands: decode their tasks, wrap their
 * ports and the shared memory, run them on this thread to their ends (island-thread.ts),
 * post each island's encoded report as it ends. One long-running task per worker.
 */
import { decode, encode } from '../src/archipelago/codec.ts';
import { kernelModuleForThread } from '../src/ga/kernel.ts';
import { extendRegistries, loadExtensions } from '../src/archipelago/extension.ts';
import { runIsland } from '../src/archipelago/island-runner.ts';
import { runIslandThread } from '../src/archipelago/island-thread.ts';
import { lowerThreadPriority } from '../src/archipelago/thread-priority.ts';
import type { IslandTask } from '../src/archipelago/messages.ts';
import { ISLAND_REGISTRIES } from '../src/archipelago/island-registries.ts';
import { installTestFault, parseTestFault, TEST_FAULT_ENV } from '../src/archipelago/test-fault.ts';
import { SharedMemoryCoordination } from '../src/archipelago/shared-memory-coordination.ts';
import { MessagePortTransport, type IslandEnd, type ThreadEnvelope } from '../src/archipelago/transport.ts';

// Test-only: the fault this thread's environment asks for (src/archipelago/test-fault.ts), wrapped around its island's evolver; never from a task.
const fault = parseTestFault(process.env[TEST_FAULT_ENV]);
const hooks = fault ? { wrap: installTestFault(fault, (code) => process.exit(code)) } : {};

export default function islandWorker(envelope: ThreadEnvelope): void | Promise<void> {
  if (envelope.kernel) kernelModuleForThread(envelope.kernel);
  if (envelope.nice) lowerThreadPriority(envelope.nice);
  const tasks = envelope.islands.map(({ task }) => decode<IslandTask>(task));
  const shared = new SharedMemoryCoordination(envelope.shared, tasks[0].run.islands);
  const post = (end: IslandEnd) => envelope.results.postMessage(end, 'report' in end ? [end.report.buffer as ArrayBuffer] : []);
  const run = (registries = ISLAND_REGISTRIES) => {
    const islands = tasks.map((task, k) => {
      const transport = new MessagePortTransport(task.sources, task.targets, envelope.islands[k].ports);
      return runIsland(task, transport, shared, hooks, registries);
    });
    runIslandThread(islands, shared, (at, outcome) =>
      post(outcome.ok ? { at, report: encode(outcome.value) } : { at, error: messageOf(outcome.error) }),
    );
  };
  // Only tasks that name extension modules wait for an import (a run's islands name the same ones).
  if (!tasks[0].extensions?.length) return run();
  return loadExtensions(tasks[0].extensions).then((extensions) => run(extendRegistries(ISLAND_REGISTRIES, extensions)));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
