/**
 * A command as another machine or a restarted container runs it, for tests of a study's lock
 * (test/study-lock.test.ts, test/hpc-recipes.test.ts): in new pid namespaces (`unshare --pid`:
 * Node is PID 1, as in a container) and, with a host name, a new UTS namespace (`hostname`),
 * as on another node. Needs root; `canUnshare` says whether this machine allows it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

export const canUnshare = process.getuid?.() === 0 && spawnSync('unshare', ['--pid', '--fork', 'true']).status === 0;

/** `command` boxed: in new pid (and, with `host`, UTS) namespaces; as it is without a box. */
export function boxed(command: readonly string[], box?: { host?: string }): string[] {
  if (box === undefined) return [...command];
  const rename = box.host ? `hostname ${box.host} && ` : '';
  return [
    'unshare',
    ...(box.host ? ['--uts'] : []),
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
    'sh',
    '-c',
    `${rename}exec "$0" "$@"`,
    ...command,
  ];
}

/** Polls until `test` holds (the test fails after 20 s): a file a process writes, not a time. */
export async function until(test: () => boolean, what: string): Promise<void> {
  for (const end = Date.now() + 20_000; !test();) {
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
