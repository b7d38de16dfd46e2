/**
 * Where a client's credentials and TLS files come from, read once at start: the URL
 * (`user:password@`, `token@`: visible in `ps`, so for trying things only), the environment
 * (NQI_NATS_PASSWORD for the URL's user, NQI_NATS_TOKEN) or a file (`--nats-creds`: a NATS
 * credentials file, an nkey seed, or a plain file holding the password or token). Every
 * problem is one line naming the flag or variable; no message shows a secret.
 */
import { credsAuthenticator, nkeyAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';
import { ConfigError } from '../../config/errors.ts';
import { InputError } from '../../io/errors.ts';
import { statSync } from 'node:fs';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readRegularFile, type ReadBounds } from '../../io/read-file.ts';
import { displayNatsUrl, parseNatsUrl, type NatsAuth } from '../../config/nats-url.ts';
import { PASSWORD_ENV, TOKEN_ENV } from '../defaults.ts';

export interface BusAddress {
  /** Connection options: the server without credentials, plus the authentication and TLS options. */
  options: ConnectionOptions;
  /** The URL as shown to people: the password or token replaced by ***. */
  display: string;
  /** Every secret, so a message from elsewhere (the client's errors) can be cleaned of them. */
  secrets: string[];
}

const SMALL_FILE = 64 * 1024;

/** A small file a flag names; `secret` (a password, creds, a private key) must be its owner's alone. */
function readSmall(file: string, flag: string, expected: string, secret = false): Buffer {
  try {
    const bounds = { name: `${flag} ${file}`, expected, maxBytes: SMALL_FILE };
    return secret ? readSecretFile(file, bounds) : readRegularFile(file, bounds);
  } catch (error) {
    throw error instanceof InputError ? new ConfigError(error.message) : error;
  }
}

/**
 * A file holding a secret (the cluster key, a password, creds): refused, as ssh refuses a
 * private key, when its permissions let anyone but its owner at it; another user who can
 * read it can sign as a host or log in as this client. POSIX only (Windows has no such bits).
 * @throws InputError naming the file and the fix.
 */
export function readSecretFile(file: string, bounds: ReadBounds): Buffer {
  const bytes = readRegularFile(file, bounds);
  const mode = process.platform === 'win32' ? 0 : statSync(file).mode & 0o777;
  if (mode & 0o077)
    throw new InputError(
      `${bounds.name}: other users may read it (mode 0${mode.toString(8)}); a secret's file must be its owner's alone: chmod 600 ${file}`,
    );
  return bytes;
}

/** A variable that is set must hold something. */
function fromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  if (value === '') throw new ConfigError(`${name}: expected a value, got an empty string (unset it, or set it)`);
  return value;
}

/**
 * The URL with its credentials from wherever they are given; at most one source of a secret.
 * @throws ConfigError naming the flag or variable.
 */
export function busAddress(nats: string, auth: NatsAuth = {}, env: NodeJS.ProcessEnv = process.env): BusAddress {
  const url = parseNatsUrl(nats);
  const options: ConnectionOptions = { servers: url.server };
  const secrets: string[] = [];
  let user = url.user;
  let password = url.password;
  let token: string | undefined;
  const inUrl = user !== undefined;
  const given: string[] = [];
  const envPassword = fromEnv(env, PASSWORD_ENV);
  const envToken = fromEnv(env, TOKEN_ENV);
  if (envPassword !== undefined) given.push(PASSWORD_ENV);
  if (envToken !== undefined) given.push(TOKEN_ENV);
  if (auth.credsFile !== undefined) given.push('--nats-creds');
  if (given.length > 1) throw new ConfigError(`${given[1]}: give one of ${given.join(', ')}, not several`);
  const source = given[0];
  if (source !== undefined && password !== undefined)
    throw new ConfigError(`${source}: the --nats URL already holds a password; give it in one place (not in the URL: ps shows it)`);

  if (envToken !== undefined) {
    if (inUrl)
      throw new ConfigError(
        `${TOKEN_ENV}: the --nats URL already names a user or token; give the URL as ${url.display.replace('***@', '')}`,
      );
    token = envToken;
  } else if (envPassword !== undefined) {
    if (!inUrl) throw new ConfigError(`${PASSWORD_ENV}: needs the user in the --nats URL (${url.scheme}://USER@${url.server})`);
    password = envPassword;
  } else if (auth.credsFile !== undefined) {
    const bytes = readSmall(auth.credsFile, '--nats-creds', 'a NATS credentials, nkey seed or password file', true);
    const text = bytes.toString('utf8');
    const seed = text.trim();
    if (/-----BEGIN NATS USER JWT-----/.test(text)) {
      if (inUrl)
        throw new ConfigError(
          `--nats-creds: a NATS credentials file names its user; give the URL without one (${url.scheme}://${url.server})`,
        );
      options.authenticator = credsAuthenticator(new Uint8Array(bytes));
    } else if (/^SU[A-Z2-7]{56}$/.test(seed)) {
      if (inUrl)
        throw new ConfigError(`--nats-creds: an nkey seed names its user; give the URL without one (${url.scheme}://${url.server})`);
      options.authenticator = nkeyAuthenticator(new TextEncoder().encode(seed));
      secrets.push(seed);
    } else {
      // A plain file: its first line, for the URL's user, else the token.
      const line = text.split(/\r?\n/)[0];
      if (line === '') throw new ConfigError(`--nats-creds ${auth.credsFile}: the first line is empty; expected the password or token`);
      if (inUrl) password = line;
      else token = line;
    }
  } else if (inUrl && password === undefined) {
    token = user;
    user = undefined;
  }
  if (user !== undefined && password !== undefined) {
    Object.assign(options, { user, pass: password });
    secrets.push(password);
  } else if (token !== undefined) {
    options.token = token;
    secrets.push(token);
  }
  // What people see: the URL as given, with a password or token in it as ***.
  const display = displayNatsUrl(url, inUrl && url.password === undefined && password !== undefined);
  applyTls(options, url.scheme, auth);
  return { options, display, secrets };
}

/** `tls://` requires TLS, with the CA and the client's certificate when given; TLS files with `nats://` are a mistake worth saying. */
function applyTls(options: ConnectionOptions, scheme: 'nats' | 'tls', auth: NatsAuth): void {
  const files = (['caFile', 'certFile', 'keyFile'] as const).filter((k) => auth[k] !== undefined);
  const flag = (key: 'caFile' | 'certFile' | 'keyFile') => `--nats-${key.replace('File', '')}`;
  if (scheme === 'nats') {
    if (files.length > 0) throw new ConfigError(`${flag(files[0])}: only with a tls:// broker URL`);
    return;
  }
  if ((auth.certFile === undefined) !== (auth.keyFile === undefined)) {
    throw new ConfigError(
      auth.certFile === undefined
        ? '--nats-key: needs --nats-cert (the certificate of that key)'
        : '--nats-cert: needs --nats-key (the private key of that certificate)',
    );
  }
  const pem = (key: 'caFile' | 'certFile' | 'keyFile', what: string) => {
    const text = readSmall(auth[key]!, flag(key), what).toString('utf8');
    if (!text.includes('-----BEGIN ')) throw new ConfigError(`${flag(key)} ${auth[key]}: expected ${what} in PEM form (-----BEGIN ...)`);
    return text;
  };
  options.tls = {
    ...(auth.caFile !== undefined ? { ca: pem('caFile', 'a CA certificate') } : {}),
    ...(auth.certFile !== undefined ? { cert: pem('certFile', 'a certificate') } : {}),
    ...(auth.keyFile !== undefined ? { key: pem('keyFile', 'a private key') } : {}),
  };
  if (options.tls.cert !== undefined && options.tls.key !== undefined) checkKeyPair(options.tls.cert, options.tls.key, auth);
}

/** The client's certificate and key read, and of one pair: else one line naming the flag (the TLS layer would only say "internal error"). */
function checkKeyPair(cert: string, key: string, auth: NatsAuth): void {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new ConfigError(`--nats-cert ${auth.certFile}: not a certificate this tool can read (expected an X.509 certificate in PEM form)`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(
      `--nats-key ${auth.keyFile}: not a private key this tool can read (expected an unencrypted private key in PEM form)`,
    );
  }
  if (!certificate.checkPrivateKey(privateKey))
    throw new ConfigError(
      `--nats-key ${auth.keyFile}: does not match the certificate of --nats-cert ${auth.certFile} (the key of another certificate?)`,
    );
}

/** `text` with every secret replaced by ***: for messages that come from elsewhere (the client's errors). */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join('***');
  return out;
}
