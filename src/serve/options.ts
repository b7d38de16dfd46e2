/** Where the live view is served. */
export interface ServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1; any other address needs the token the URL carries (docs/live-view.md, Security). */
  host?: string;
  /**
   * A page whose connection takes no byte for this long while a view waits for it has stopped
   * reading and is dropped (default 30); a page that reads, however slowly, is kept.
   */
  stallSeconds?: number;
}

export const DEFAULT_STALL_SECONDS = 30;

export const DEFAULT_HOST = '127.0.0.1';

/** Why the view could not listen at `at` (a port taken, not allowed, ...), or null for any other failure. */
export function cannotListen(error: unknown, at: ServeOptions): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? `cannot listen on ${at.host ?? DEFAULT_HOST} port ${at.port} (${code})` : null;
}

/** A stream of views for one page: `next()` is what changed since its last call (null: nothing). Kept here, free of node types, for the library's declarations. */
export interface ViewStream {
  next(): object | null;
  /** Nothing more will come (a finished run or study): the page has it all. */
  readonly ended: boolean;
}
