/**
 * Errors for bad archipelago options: one class per family, each message one line naming
 * the option and what was expected, so a config layer can show it as is.
 */
export class ArchipelagoOptionError extends Error {
  override name = 'ArchipelagoOptionError';
}

export class TopologyError extends Error {
  override name = 'TopologyError';
}

export class MigrationPolicyError extends Error {
  override name = 'MigrationPolicyError';
}
