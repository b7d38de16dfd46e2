/**
 * A real nats-server per test file, found (or skipped with one line) the way every system
 * program of the tests is: see system-tools.ts (NQI_NATS_SERVER, NQI_REQUIRE_NATS_SERVER).
 * Start the server itself with startLocalBroker (src/cluster/local-broker.ts).
 */
import { systemTool, type SystemToolSpec } from './system-tools.ts';

export const NATS_SERVER: SystemToolSpec = {
  name: 'nats-server',
  commands: ['nats-server'],
  paths: ['/usr/sbin/nats-server', '/usr/bin/nats-server'],
  install: 'apt-get install nats-server',
};

/** For describe(..., { skip: nats.skip }) and, in before(), nats.path(). */
export const nats = systemTool(NATS_SERVER);
