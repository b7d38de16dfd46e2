/**
 * What a host runs, checked: its registries (the built-in ones and its own extension
 * modules', `hostRegistries`) and a coordinator's order (`checkOrder`), refused in one line
 * when the host cannot run it as sent.
 */
import { extendRegistries, loadExtensions, missingEntry, type IslandRegistries } from '../../archipelago/extension.ts';
import { ISLAND_REGISTRIES } from '../../archipelago/island-registries.ts';
import type { IslandTask } from '../../archipelago/messages.ts';
import type { ForeignMessages } from '../../archipelago/message-shapes.ts';
import { ConfigError } from '../../config/errors.ts';
import type { Registries } from '../../config/registries.ts';
import { checkResolved } from '../../config/resolved-schema.ts';
import type { DropCounter } from '../bus/codec.ts';
import { carried } from '../bus/carried.ts';
import { type BusMessage } from '../bus/messages.ts';
import { safeText } from '../bus/text.ts';

/** The registries this host's islands build from: the built-in ones and its own extension modules'. */
export async function hostRegistries(urls: readonly string[]): Promise<IslandRegistries> {
  if (urls.length === 0) return ISLAND_REGISTRIES;
  const loaded = await Promise.all(
    urls.map(async (url) => {
      try {
        const [extension] = await loadExtensions([url]);
        if (extension === null || typeof extension !== 'object')
          throw new Error('its default export is not an extension (gaModes, emigrantSelections, replacements)');
        return extension;
      } catch (error) {
        throw new ConfigError(
          `--extension ${url}: cannot load it (${(error instanceof Error ? error.message : String(error)).split('\n')[0]})`,
        );
      }
    }),
  );
  return extendRegistries(ISLAND_REGISTRIES, loaded);
}

/**
 * This host's islands of an order, checked: each task an island task of this version, the
 * ones `hostOf` gives this host, in range, and runnable with this host's registries. Returns
 * them, or the one line why the host refuses the order (the coordinator shows it).
 */
export function checkOrder(
  order: BusMessage<'islands'>,
  id: string,
  name: string,
  registries: IslandRegistries,
  configRegistries: Registries,
  dropped: DropCounter,
): IslandTask[] | string {
  const ids = order.hostOf.flatMap((host, island) => (host === id ? [island] : []));
  const arrived = order.tasks.map((bytes) => carried('task', bytes));
  const fits = (task: ForeignMessages['task'] | null, k: number): task is ForeignMessages['task'] =>
    task !== null &&
    task.island === ids[k] &&
    task.run.islands === order.islands &&
    [...task.sources, ...task.targets].every((i) => i < order.islands);
  const tasks = arrived.filter(fits);
  if (tasks.length !== ids.length || tasks.length !== arrived.length) {
    dropped.malformed++;
    return `host ${name} got island tasks it cannot read or that do not match the order (another tool version?)`;
  }
  const checkedTasks: IslandTask[] = [];
  for (const task of tasks) {
    const named = task.extensions ?? [];
    if (named.length > 0) {
      return `host ${name} loads no code named by a message (the order names extension module ${JSON.stringify(safeText(named[0], 100))}); start the host with --extension FILE instead`;
    }
    const { ga, migration } = task.run;
    const replacement = typeof migration.replacement === 'string' ? migration.replacement : migration.replacement.kind;
    const missing = missingEntry({ mode: ga.mode, emigrantSelection: migration.emigrantSelection.kind, replacement }, registries);
    if (missing) return `host ${name} has no ${safeText(missing, 140)}: it is not built in and no --extension of this host provides it`;
    // The resolved run as it arrived, checked against this host's registries: never resolved again.
    const checked = checkResolved('run', task.run, configRegistries);
    if ('problem' in checked) {
      dropped.malformed++;
      return `host ${name} got island ${task.island} with a run that is not a resolved run config (${safeText(checked.problem, 200)})`;
    }
    checkedTasks.push({ ...task, run: checked.config });
  }
  return checkedTasks;
}
