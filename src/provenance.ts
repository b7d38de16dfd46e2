/**
 * Provenance: what made an output. Every result the tool writes (solve --json and --out,
 * traces, checkpoints, a study's manifest and run records, the report pages) carries it, so
 * a reader can tell which version, commit, config and machine a number came from.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot, toolInfo } from './package-info.ts';

/** The machine and build part: the same for every output of one process. */
export interface MachineProvenance {
  tool: string;
  version: string;
  /** The git commit the build was made from (40 hex digits), or "unknown" (no git at build time, or run from source). */
  commit: string;
  /** The build's work tree had uncommitted changes; null when the commit is unknown. */
  dirty: boolean | null;
  /**
   * A build made without git (commit "unknown"): sha256 of its command bundle, which tells
   * two such builds apart. Absent with a known commit, and run from source.
   */
  bundleSha256?: string;
  /** `process.version`, e.g. v20.19.0. */
  node: string;
  os: { platform: string; release: string; arch: string };
  cpu: { model: string; cores: number };
}

/** Provenance of one run's output: the machine part and the hash of the resolved config it ran. */
export interface Provenance extends MachineProvenance {
  /** sha256 (hex) of the canonical JSON of the resolved config (see configHash). */
  configHash: string;
}

/** What scripts/build-info.mjs wrote into dist at build time. */
interface BuildInfo {
  commit: string;
  dirty: boolean | null;
  bundleSha256?: string;
}

let machine: MachineProvenance | null = null;

/**
 * The build's commit. Only code running from the build (dist/) has one: the same modules run
 * from src/ (tsx) may differ from any build, so there it is unknown.
 */
function buildInfo(): BuildInfo {
  const unknown: BuildInfo = { commit: 'unknown', dirty: null };
  const root = packageRoot();
  const here = path.relative(root, path.dirname(fileURLToPath(import.meta.url)));
  if (here.split(path.sep)[0] !== 'dist') return unknown;
  const file = path.join(root, 'dist', 'build-info.json');
  if (!existsSync(file)) return unknown;
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as Partial<BuildInfo>;
    const commit = typeof info.commit === 'string' && /^[0-9a-f]{40}$/.test(info.commit) ? info.commit : null;
    return commit ? { commit, dirty: info.dirty === true } : withBundleHash(unknown, root);
  } catch {
    return withBundleHash(unknown, root);
  }
}

/** A build without git, identified by its bundle's bytes (read once per process, only then). */
function withBundleHash(info: BuildInfo, root: string): BuildInfo {
  try {
    return { ...info, bundleSha256: sha256(readFileSync(path.join(root, 'dist', 'bundle', 'nqueens-islands.cjs'))) };
  } catch {
    return info; // no bundle (a library-only build): nothing to tell it by
  }
}

/** This process's build and machine (read once). */
export function machineProvenance(): MachineProvenance {
  if (machine !== null) return machine;
  const { name, version } = toolInfo();
  const { commit, dirty, bundleSha256 } = buildInfo();
  return (machine = {
    tool: name,
    version,
    commit,
    dirty,
    ...(bundleSha256 === undefined ? {} : { bundleSha256 }),
    node: process.version,
    os: { platform: os.platform(), release: os.release(), arch: os.arch() },
    cpu: { model: os.cpus()[0]?.model.trim() ?? 'unknown', cores: os.availableParallelism() },
  });
}

/** The provenance of an output made from `config` (already in its file shape, secrets hidden). */
export function provenance(config: unknown): Provenance {
  return { ...machineProvenance(), configHash: configHash(config) };
}

/**
 * JSON with every object's keys sorted, no spaces: the same data gives the same text
 * whatever order its keys were built in.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * sha256 of the canonical JSON of a resolved config in its file shape, without `output`
 * (where a result is written does not change it) and `threads` (placement: how many worker
 * threads the islands share does not change a sync or lagged run): `solve` with a study cell's config and
 * seed gives the hash that cell's run record has.
 */
export function configHash(config: unknown): string {
  const { output: _output, threads: _threads, ...rest } = (config ?? {}) as Record<string, unknown>;
  return sha256(canonicalJson(rest));
}
