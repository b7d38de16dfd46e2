/** Where the live view is served. */
export interface ServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1; any other address needs the token the URL carries (docs/live-view.md, Security). */
  host?: string;
}

export const DEFAULT_HOST = '127.0.0.1';
