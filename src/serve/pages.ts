/**
 * The open pages' event streams (server-sent events), and the rule that keeps a healthy page
 * however large the views: a page whose socket does not take a view at once (write() returned
 * false) is sent nothing more until the socket drains; then it gets one view of everything
 * since its last (its cursor did not move: the latest state, coalesced). So a page holds at
 * most one view in flight, a slow page gets fewer, larger views, and the run never waits.
 * A page is dropped only when its socket has taken no byte for `stallMs` (it stopped reading).
 */
import type { ServerResponse } from 'node:http';

import type { ViewStream } from './options.ts';

interface Page {
  res: ServerResponse;
  stream: ViewStream;
  /** When the socket last took a byte while a view waited in it (null: nothing waits). */
  blockedSince: number | null;
  /** The bytes waiting in the socket's buffer at the last check: fewer means the page reads. */
  waiting: number;
}

const FLUSH_MS = 250;

export class Pages {
  private readonly open = new Set<Page>();
  private timer: NodeJS.Timeout | null = null;
  /** Some page got the last view of a stream that ended. */
  private endSeen = false;
  private readonly whenIdle: (() => void)[] = [];

  constructor(private readonly stallMs: number) {}

  get size(): number {
    return this.open.size;
  }

  /** Starts streaming `stream` to `res` (its headers are sent already). */
  add(res: ServerResponse, stream: ViewStream): void {
    const page: Page = { res, stream, blockedSince: null, waiting: 0 };
    this.open.add(page);
    res.on('drain', () => {
      page.blockedSince = null;
      this.send(page);
    });
    res.on('close', () => {
      this.open.delete(page);
      this.checkIdle();
    });
    this.send(page);
    this.timer ??= setInterval(() => this.flush(), FLUSH_MS).unref();
  }

  /**
   * Resolves once a page has had the end of its stream and no page is open any more (the
   * reader closed it): what a finished run waits for before it stops serving.
   */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.whenIdle.push(resolve);
      this.checkIdle();
    });
  }

  /** Sends each page what it has not seen and ends its stream; resolves when they took it or after `graceMs`. */
  async closeAll(graceMs: number): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    const closing = [...this.open].map((page) => {
      const view = page.stream.next();
      page.res.end(view === null ? undefined : frame(view));
      return new Promise<void>((resolve) => page.res.once('close', resolve).once('finish', resolve));
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closing), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }

  private flush(): void {
    for (const page of this.open) this.send(page);
    if (this.open.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private send(page: Page): void {
    if (page.blockedSince !== null) return this.checkStall(page);
    const view = page.stream.next();
    if (view === null) return;
    if (!page.res.write(frame(view))) {
      page.blockedSince = Date.now();
      page.waiting = page.res.writableLength;
    }
    if (page.stream.ended && !this.endSeen) {
      this.endSeen = true;
      this.checkIdle();
    }
  }

  /** A page with a view waiting: it still reads while its buffer shrinks; one that took no byte for stallMs is dropped. */
  private checkStall(page: Page): void {
    const now = Date.now();
    const waiting = page.res.writableLength;
    if (waiting < page.waiting) {
      page.waiting = waiting;
      page.blockedSince = now;
    } else if (now - page.blockedSince! > this.stallMs) {
      page.res.destroy();
    }
  }

  private checkIdle(): void {
    if (!this.endSeen || this.open.size > 0) return;
    for (const resolve of this.whenIdle.splice(0)) resolve();
  }
}

function frame(view: object): string {
  return `data: ${JSON.stringify(view)}\n\n`;
}
