/** A bad topology: one line naming the option and what was expected, shown as is by the config layer. */
export class TopologyError extends Error {
  override name = 'TopologyError';
}
