/**
 * What `report`'s worker thread posts to the main thread (workers/report-worker.ts): that it
 * started, then its outputs or the error that refused them. An error crosses as plain data and
 * is made again on the main thread as the same class with the same message, so the CLI answers
 * it as if it had been thrown there: bad input is one line and exit 2, anything else an
 * internal error (with the fields its one line reads: an errno code, a path, a permission).
 */
import { ConfigError } from '../config/errors.ts';
import { InputError } from '../io/errors.ts';
import { TupleSyntaxError } from '../problem/errors.ts';
import { TopologyError } from '../topology/errors.ts';
import type { ReportOutputs } from './report-outputs.ts';

/** An error as data: its class's name, its message, whether it is bad input, and the fields the CLI's last resort reads. */
export interface ErrorData {
  name: string;
  message: string;
  input: boolean;
  code?: string;
  path?: string;
  permission?: string;
  resource?: string;
}

export type ReportWorkerMessage = { started: true } | { outputs: ReportOutputs } | { error: ErrorData };

/** The InputError classes the report's work can throw, by name; another InputError comes back as an InputError with its message. */
const INPUT_ERRORS: Record<string, new (message: string) => InputError> = { InputError, ConfigError, TopologyError, TupleSyntaxError };

const FIELDS = ['code', 'path', 'permission', 'resource'] as const;

export function describeError(error: unknown): ErrorData {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), input: false };
  const data: ErrorData = { name: error.name, message: error.message, input: error instanceof InputError };
  const fields = error as Partial<Record<(typeof FIELDS)[number], unknown>>;
  for (const field of FIELDS) if (typeof fields[field] === 'string') data[field] = fields[field];
  return data;
}

/** The error `describeError` described, made again. */
export function rebuiltError(data: ErrorData): Error {
  if (data.input) return new (INPUT_ERRORS[data.name] ?? InputError)(data.message);
  const error = new Error(data.message) as Error & Partial<Record<(typeof FIELDS)[number], string>>;
  error.name = data.name;
  for (const field of FIELDS) if (data[field] !== undefined) error[field] = data[field];
  return error;
}
