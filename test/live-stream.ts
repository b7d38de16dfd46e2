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

/**
 * Every view of a page's stream at `url` (`run`: one run of a study) until the one that ends it
 * (a run's `done`, a study's `finished`) or the server ends the stream; then the page is closed,
 * as a reader closes its tab (a finished run's server waits for that).
 */
export async function readViews(url: string, run?: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${url}events${run === undefined ? '' : `?${new URLSearchParams({ run }).toString()}`}`);
  const views: Record<string, unknown>[] = [];
  let text = '';
  for await (const chunk of res.body!) {
    text += Buffer.from(chunk as Uint8Array).toString();
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const frame = text.slice(0, end);
      text = text.slice(end + 2);
      if (!frame.startsWith('data: ')) continue;
      const view = JSON.parse(frame.slice(6)) as Record<string, unknown>;
      views.push(view);
      // Leaving the loop cancels the body: the connection closes.
      if (view.kind === 'run' ? view.done !== undefined : view.finished === true) return views;
    }
  }
  return views;
}

/** How many views a page's stream at `url` sent until the run's end. */
export async function countViews(url: string): Promise<number> {
  return (await readViews(url)).length;
}
