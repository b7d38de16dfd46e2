/** A bad archipelago option: one line naming the option and what was expected, so a config layer can show it as is. */
export class ArchipelagoOptionError extends Error {
  override name = 'ArchipelagoOptionError';
}
