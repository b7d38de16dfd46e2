/**
 * The broker's shared state is checked before use, not taken as found: the prefix's lease
 * bucket (made by another party, or by hand) must let a dead coordinator's leases expire and
 * hold a lease's value, and no stream other than a study's own may take the subjects its work
 * queue uses (JetStream refuses a second stream on them, which would fail the study once its
 * folder is written). Each is refused in one line naming what to remove.
 */
import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { ConfigError } from '../../config/errors.ts';
import { LEASE_TTL_MS } from '../defaults.ts';
import type { Subjects } from '../bus/connection.ts';
import { safeText } from '../bus/text.ts';

/** The fewest bytes a lease's value needs (holder and since, as JSON). */
export const MIN_LEASE_VALUE_BYTES = 1024;

/** Refuses a lease bucket whose entries never expire (or outlive LEASE_TTL_MS), or too small for a lease. */
export async function checkLeaseBucket(kv: KV, bucket: string): Promise<void> {
  const status = await kv.status();
  const fix = `remove it (nats kv del ${bucket}) and this tool makes it again, or use another --nats-prefix`;
  if (!(status.ttl > 0) || status.ttl > LEASE_TTL_MS)
    throw new ConfigError(
      `the broker's KV bucket ${bucket} keeps entries ${status.ttl > 0 ? `${status.ttl} ms` : 'for ever'}; leases need a max age of at most ${LEASE_TTL_MS} ms, or a dead coordinator's hosts stay held: ${fix}`,
    );
  if (status.maxValueSize >= 0 && status.maxValueSize < MIN_LEASE_VALUE_BYTES)
    throw new ConfigError(
      `the broker's KV bucket ${bucket} takes values of at most ${status.maxValueSize} bytes; a lease needs ${MIN_LEASE_VALUE_BYTES}: ${fix}`,
    );
}

/** Whether some subject matches both NATS subject patterns (`*` one token, `>` the rest). */
export function subjectsOverlap(a: string, b: string): boolean {
  const [x, y] = [a.split('.'), b.split('.')];
  for (let k = 0; k < Math.min(x.length, y.length); k++) {
    if (x[k] === '>' || y[k] === '>') return true;
    if (x[k] !== '*' && y[k] !== '*' && x[k] !== y[k]) return false;
  }
  return x.length === y.length;
}

/** Refuses, before a study starts, any stream not of a study of this prefix that takes its work queues' subjects. */
export async function checkStudyStreams(jsm: JetStreamManager, subjects: Subjects): Promise<void> {
  const queues = subjects.study('*', 'runs');
  const own = new RegExp(`^${subjects.studyStream('').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[0-9a-f]{16}$`);
  for await (const info of jsm.streams.list()) {
    const { name, subjects: taken = [] } = info.config;
    if (own.test(name)) continue;
    const clash = taken.find((subject) => subjectsOverlap(subject, queues));
    if (clash !== undefined)
      throw new ConfigError(
        `the broker's stream ${safeText(name, 100)} takes ${safeText(clash, 200)}, which a study's work queue (${queues}) needs: remove it (nats stream rm ${safeText(name, 100)}) or use another --nats-prefix`,
      );
  }
}
