/**
 * A URL as people may see it (records, `config print`, messages): the password or token in its
 * user info replaced by `***`, the user name kept. Cut at the last `@`, so a password holding an
 * unencoded `/`, `#` or `@` is hidden whole; a URL without user info is returned as it is.
 */
export function maskUrlCredentials(url: string): string {
  const scheme = url.indexOf('://');
  const start = scheme < 0 ? 0 : scheme + 3;
  const at = url.lastIndexOf('@');
  if (at < start) return url;
  const info = url.slice(start, at);
  const colon = info.indexOf(':');
  return `${url.slice(0, start)}${colon < 0 ? '***' : `${info.slice(0, colon)}:***`}${url.slice(at)}`;
}
