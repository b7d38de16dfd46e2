/**
 * The cluster API, `import { joinCluster, startHost } from 'nqueens-islands/cluster'`
 * (docs/distributed.md): serve as a host; join hosts for a run (`startRun(config, { cluster })`
 * from the root entry). Its own entry so the root's types and start-up never reach the NATS client.
 */
export { startHost, type ClusterHost, type HostOptions } from './host/host.ts';
export { joinCluster, type JoinedCluster } from './launcher/join-cluster.ts';
export type { ClusterOptions, ClusterStudyOutcome } from './study/study.ts';
export { BrokerUnreachableError } from './errors.ts';
export { listHosts, type HostListing, type ListedHost, type ListHostsOptions } from './host/list.ts';
export type { NatsAuth } from '../config/nats-url.ts';
