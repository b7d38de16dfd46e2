import type { Argv } from 'yargs';

/**
 * `--config` and every run flag, for the commands that take a run config (`solve`,
 * `config print`). The flags are built from the registries (GA modes, policies,
 * topologies), so they load when such a command runs: the others start without them.
 */
export async function withRunConfigFlags<T>(y: Argv<T>) {
  const { CONFIG_FILE_OPTION, RUN_FLAG_OPTIONS } = await import('../config/flags.ts');
  return y.options(CONFIG_FILE_OPTION).options(RUN_FLAG_OPTIONS);
}
