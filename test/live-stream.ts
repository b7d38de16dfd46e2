/**
 * Reading a served live view from outside, as a page would: the URL a `--serve` process prints
 * as its first stderr line, and its event stream read to the end. Shared by the live-view test
 * and the bench's live section.
 */
import type { ChildProcess } from 'node:child_process';

/** The first line `child` writes on stderr: a `--serve` process's URL. */
export function servedUrl(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('\n')) resolve(stderr.slice(0, stderr.indexOf('\n')));
    });
  });
}

/** Reads the view's event stream at `url` until the server ends it; the views (SSE `data:` lines) it sent. */
export async function countViews(url: string): Promise<number> {
  let count = 0;
  const res = await fetch(`${url}events`);
  for await (const chunk of res.body!)
    count += (
      Buffer.from(chunk as Uint8Array)
        .toString()
        .match(/^data: /gm) ?? []
    ).length;
  return count;
}
