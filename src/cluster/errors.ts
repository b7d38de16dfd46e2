import { ConfigError } from '../config/errors.ts';

/** The broker could not be reached or refused us; a one-line message naming the URL (exit 2). */
export class BrokerUnreachableError extends ConfigError {}
