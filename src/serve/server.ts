/**
 * The live view's HTTP server (node:http): the page and its assets, and one server-sent
 * event stream per open page. A page's stream starts with the whole state (the snapshot),
 * then carries what changed, four times a second. The run never waits for a page: views are
 * made on a timer from state the run's events already updated; a page that reads slowly gets
 * fewer, coalesced views (src/serve/pages.ts) and only one that stopped reading is dropped.
 * Only GET is served and nothing served changes the run.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pageAsset, type PageAsset } from './assets.ts';
import { DEFAULT_HOST, DEFAULT_STALL_SECONDS, type ServeOptions, type ViewStream } from './options.ts';
import { Pages } from './pages.ts';

export type { ViewStream } from './options.ts';

/** What the server shows: a stream per page, by the `run` the page asks for (null: the main view). */
export type ViewSource = (run: string | null) => ViewStream | null | Promise<ViewStream | null>;

/** Data a page fetches once (JSON), by path: the answer to its query, or null (404). */
export type ViewData = Record<string, (query: URLSearchParams) => object | null>;

export interface ViewServer {
  /** The page's address, with the token when one is needed. */
  readonly url: string;
  /** Sends every page what it has not seen, then ends their streams and stops listening. */
  close(): Promise<void>;
  /** Resolves once a page has had the whole (finished) view and every page is closed. */
  pagesClosed(): Promise<void>;
}

/** How long close() waits for pages to take their last view before it cuts their connections. */
const CLOSE_GRACE_MS = 2000;
/** Pages at once: each holds a cursor and a socket; more get 503. */
const MAX_CLIENTS = 16;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const COMMON_HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  // The token is in the URL: no page it links to may learn it.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** Starts serving `source` (and `data`, e.g. a study cell's runs); resolves once it listens. */
export async function startViewServer(source: ViewSource, options: ServeOptions, data: ViewData = {}): Promise<ViewServer> {
  const host = options.host ?? DEFAULT_HOST;
  const token = host === DEFAULT_HOST ? null : randomBytes(16).toString('hex');
  const pages = new Pages((options.stallSeconds ?? DEFAULT_STALL_SECONDS) * 1000);

  const server: Server = createServer(guarded((req, res, url) => handle(req, res, url)));
  const handle = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const port = (server.address() as AddressInfo).port;
    const refusal = refuse(req, url, { token, host, port });
    if (refusal !== null) return plain(res, refusal.status, refusal.text);
    if (url.pathname === '/events') {
      if (pages.size >= MAX_CLIENTS) return plain(res, 503, 'too many pages open');
      const stream = await source(url.searchParams.get('run'));
      if (stream === null) return plain(res, 404, 'no such run');
      res.writeHead(200, { ...COMMON_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
      res.socket?.setNoDelay(true);
      return pages.add(res, stream);
    }
    const answer = Object.hasOwn(data, url.pathname) ? data[url.pathname](url.searchParams) : undefined;
    if (answer === null) return plain(res, 404, 'not found');
    if (answer !== undefined) return json(res, answer);
    // Browsers ask for an icon; there is none (an answer, not a 404 in the page's console).
    if (url.pathname === '/favicon.ico') return void res.writeHead(204, COMMON_HEADERS).end();
    const asset = pageAsset(url.pathname);
    if (asset === null) return plain(res, 404, 'not found');
    serveAsset(res, asset, token, port);
  };
  // A request the HTTP parser refuses gets its 400 too (when the socket can still take it).
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  await listening(server, options.port, host);
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/${token === null ? '' : `?token=${token}`}`,
    pagesClosed: () => pages.idle(),
    close: async () => {
      await pages.closeAll(CLOSE_GRACE_MS);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Connections a browser keeps alive would hold the close (and the command's exit) back.
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * One guard round every request: whatever a request holds (a target no URL parser takes,
 * `//[`), it gets an answer (400, or 500 if making its answer failed) and the server goes on.
 */
function guarded(
  handle: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const failed = (res: ServerResponse) => {
    if (!res.headersSent) plain(res, 500, 'the view could not be made');
    else res.destroy();
  };
  return (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${DEFAULT_HOST}`);
    } catch {
      return plain(res, 400, 'bad request: the target is not a URL path');
    }
    handle(req, res, url).catch(() => failed(res));
  };
}

function listening(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Why a request is refused, or null: a method other than GET (405), a missing or wrong token
 * (403), or, on the default address, a Host header that is not this address (403: a page of
 * another site reaching the port through a rebound DNS name).
 */
function refuse(
  req: IncomingMessage,
  url: URL,
  where: { token: string | null; host: string; port: number },
): { status: number; text: string } | null {
  if (req.method !== 'GET' && req.method !== 'HEAD') return { status: 405, text: 'only GET' };
  if (where.token !== null && url.searchParams.get('token') !== where.token && cookieToken(req, where.port) !== where.token)
    return { status: 403, text: 'forbidden: the URL needs its token' };
  if (where.token === null) {
    const allowed = [`${where.host}:${where.port}`, `localhost:${where.port}`];
    if (!allowed.includes(req.headers.host ?? '')) return { status: 403, text: 'forbidden: unexpected Host header' };
  }
  return null;
}

/**
 * The token the page was loaded with, which its own requests (modules, the event stream) send
 * back as a cookie. Browsers keep cookies per host, not per port: the cookie's name carries the
 * port, so two servers on one host each get their own.
 */
function cookieToken(req: IncomingMessage, port: number): string | null {
  const match = new RegExp(`(?:^|;\\s*)${cookieName(port)}=([0-9a-f]+)`).exec(req.headers.cookie ?? '');
  return match ? match[1] : null;
}

function cookieName(port: number): string {
  return `nqi-token-${port}`;
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...COMMON_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${text}\n`);
}

function json(res: ServerResponse, value: object): void {
  res.writeHead(200, { ...COMMON_HEADERS, 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(value));
}

function serveAsset(res: ServerResponse, asset: PageAsset, token: string | null, port: number): void {
  // The page's own requests (its modules, its event stream) carry the token as a cookie named for this server's port.
  const cookie = token === null ? {} : { 'Set-Cookie': `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict` };
  res.writeHead(200, { ...COMMON_HEADERS, ...cookie, 'Content-Type': asset.type });
  res.end(asset.body);
}
