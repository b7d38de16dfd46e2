/**
 * The live view's flags, one table for `solve`, `experiment` and `report` (docs/live-view.md),
 * and their reading. Light: the server itself is imported only when a command serves.
 */
import { ConfigError } from '../config/errors.ts';
import { lastValue, type FlagOptions } from '../schema/flag-value.ts';
import { DEFAULT_HOST, type ServeOptions } from './options.ts';

const GROUP = 'Live view:';

export const SERVE_OPTIONS = {
  serve: {
    type: 'string',
    coerce: lastValue,
    group: GROUP,
    describe: 'serve a live view in the browser on PORT (none or 0: a free one); the URL is the first line on stderr',
  },
  'serve-host': {
    type: 'string',
    requiresArg: true,
    coerce: lastValue,
    group: GROUP,
    describe: `the address to serve on (default ${DEFAULT_HOST}); any other needs the random token the URL carries`,
  },
} as const satisfies Record<string, FlagOptions>;

export interface ServeArgs {
  serve?: string;
  serveHost?: string;
}

/** Where to serve, or null without `--serve`. @throws ConfigError for a port that is not 0..65535, or --serve-host alone. */
export function serveFromArgs(args: ServeArgs): ServeOptions | null {
  if (args.serve === undefined) {
    if (args.serveHost !== undefined) throw new ConfigError('--serve-host: only with --serve [PORT]');
    return null;
  }
  const text = String(args.serve).trim();
  const port = text === '' ? 0 : Number(text);
  if (!/^\d*$/.test(text) || !Number.isInteger(port) || port > 65535)
    throw new ConfigError(`--serve: expected a port number 0..65535 (0 or none: a free port), got ${JSON.stringify(text)}`);
  const host = args.serveHost === undefined ? undefined : String(args.serveHost).trim();
  if (host === '') throw new ConfigError('--serve-host: expected an address to listen on, got an empty string');
  return { port, ...(host === undefined ? {} : { host }) };
}
