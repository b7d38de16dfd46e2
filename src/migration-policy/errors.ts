/** A bad or unknown migration policy: one line naming it and what was expected. */
export class MigrationPolicyError extends Error {
  override name = 'MigrationPolicyError';
}
