/**
 * From an experiment file to its resolved cells: parse and validate the file, read the base
 * run config, apply each cell's sweep values and resolve every cell's config before any run
 * starts, so a bad cell is an error at the door, not after an hour of runs.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { ConfigError } from '../config/errors.ts';
import { setPath, type ConfigOverrides } from '../config/overrides.ts';
import { displayName, readText } from '../config/config-file.ts';
import { configFromText, parseConfigText } from '../config/load.ts';
import { canonicalJson, sha256 } from '../provenance.ts';
import { applyOverrides } from '../config/overrides.ts';
import { resolveRunConfig, systemEnv, type ResolveEnv } from '../config/resolve.ts';
import type { RunConfig } from '../config/run-config.ts';
import { isFolderName, parseExperiment, type ExperimentFile } from './schema.ts';
import { bundleText, editStudy, hasEdits, type StudyEdits } from './study-edits.ts';
import { baselineOf, expandSweep, studySeeds, type Cell, type SweepValue } from './sweep.ts';

export interface ResolvedCell extends Cell {
  /** Id of the cell this one is compared with (itself for a baseline cell); null without a baseline. */
  baseline: string | null;
  /** The cell's run config; its seed is replaced by each study seed in turn. */
  config: RunConfig;
}

export interface Experiment {
  /** The file as the user named it. */
  file: string;
  name: string;
  description: string | null;
  /** The file's exact text and its sha256, so a result folder says what made it. */
  text: string;
  sha256: string;
  /** Every file the study read (the experiment file, then its base run-config file if any), each with its sha256. */
  inputs: StudyInput[];
  /** The study hash: sha256 over the inputs' hashes in order, so a changed base file changes it too. */
  studySha256: string;
  /** Sweep keys in file order (the columns of the report). */
  keys: string[];
  seeds: number[];
  baseline: Record<string, SweepValue> | null;
  cells: ResolvedCell[];
}

/** A file a study read: its path (the experiment file as named; a base file as the experiment file names it) and content hash. */
export interface StudyInput {
  file: string;
  sha256: string;
}

/** The study hash of its inputs: sha256 of their hashes, one a line, in order. */
export function studyHash(inputs: readonly StudyInput[]): string {
  return sha256(inputs.map((i) => `${i.sha256}\n`).join(''));
}

/** The base run config as input (not yet resolved): the file's content with the inline overrides on top; `read` records the file's text. */
function baseInput(spec: ExperimentFile['base'], experimentFile: string, read: (file: string, text: string) => void): unknown {
  const base = typeof spec === 'string' ? { file: spec } : (spec ?? {});
  let fromFile: unknown = {};
  if (base.file !== undefined) {
    const folder = path.resolve(path.dirname(experimentFile));
    const file = path.resolve(folder, base.file);
    const name = displayName(file);
    if (!existsSync(file))
      throw new ConfigError(
        `${experimentFile}: base.file: ${base.file}: no such file in ${displayName(path.dirname(file))} (a relative base.file is found from the experiment file's folder, ${displayName(folder)}); a copied study needs its base beside it, or write one self-contained file with: experiment ${experimentFile} --bundle OUT`,
      );
    const text = readText(file, name);
    read(base.file, text);
    fromFile = configFromText(text, file, name);
  }
  return applyOverrides(fromFile, base.overrides ?? {});
}

/**
 * The base input with one cell's values set at their paths, merged as flags are: a new
 * topology kind or GA mode drops the base's options for it, which belong to the old one.
 */
function cellInput(base: unknown, values: Readonly<Record<string, SweepValue>>): unknown {
  const overrides: ConfigOverrides = {};
  for (const [key, value] of Object.entries(values)) setPath(overrides, key, value);
  return applyOverrides(base, overrides);
}

/** The file's name without its extension (`topology` for topology.yaml), or with it when nothing else is left (`.yaml`). */
function defaultName(file: string): string {
  const base = path.basename(file);
  const stem = base.replace(/\.(ya?ml|json)$/i, '');
  return isFolderName(stem) ? stem : base;
}

/**
 * Reads, validates and resolves an experiment file.
 * @throws ConfigError with one line naming the file (or the base run-config file) and the key path.
 */
export function loadExperiment(file: string, env: ResolveEnv = systemEnv(), edits?: StudyEdits): Experiment {
  const { raw, text } = readStudy(file, edits);
  return resolveExperiment(raw, text, file, env);
}

/** The experiment file's content, parsed, with `edits` applied; `text` is the file's, or the edited study's YAML. */
function readStudy(file: string, edits: StudyEdits | undefined): { raw: unknown; text: string } {
  const text = readText(file, file, 'an experiment file (YAML or JSON)');
  const raw = parseConfigText(text, file, file);
  if (raw === null || raw === undefined)
    throw new ConfigError(`${file}: empty file; expected a mapping with base, sweep, repeats and baseline`);
  // An edited study is another study: its text (hashed into the manifest) is the edited one.
  return hasEdits(edits) ? { raw: editStudy(raw, edits), text: YAML.stringify(editStudy(raw, edits)) } : { raw, text };
}

/**
 * The study in `file` (with `edits`) as one self-contained file: its base run-config file
 * inlined as `base.overrides`, its name kept. Checked to resolve to the same cells as the
 * original before it is returned.
 * @throws ConfigError as loadExperiment.
 */
export function bundleStudy(file: string, edits?: StudyEdits, env: ResolveEnv = systemEnv()): string {
  const { raw, text } = readStudy(file, edits);
  const original = resolveExperiment(raw, text, file, env);
  const spec = parseExperiment(raw, file);
  const bundle = bundleText(
    raw as Record<string, unknown>,
    baseInput(spec.base, file, () => {}),
    { file, name: original.name, edits },
  );
  const again = experimentFromObject(YAML.parse(bundle), `${file} (bundled)`, env);
  if (canonicalJson(again.cells) !== canonicalJson(original.cells) || canonicalJson(again.seeds) !== canonicalJson(original.seeds))
    throw new Error(`${file}: the bundled study does not resolve to the original's cells (a bug; please report it)`);
  return bundle;
}

/**
 * An experiment given as an object (the library's `runExperiment`): validated and resolved
 * as a file with this content would be; `name` stands for the file in messages, and a
 * `base.file` is found relative to the working directory.
 * @throws ConfigError
 */
export function experimentFromObject(spec: unknown, name = 'experiment', env: ResolveEnv = systemEnv()): Experiment {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
    throw new ConfigError(`${name}: expected a mapping with base, sweep, repeats and baseline`);
  return resolveExperiment(spec, YAML.stringify(spec), name, env);
}

/**
 * Refuses two cells whose resolved configs are equal: a value spelled two ways (`0.02` and
 * `"2%"`, `ring` and `{ kind: ring }`) would run the same thing twice under two names.
 * @throws ConfigError naming both cells and the values that differ only in spelling.
 */
function refuseSameConfigs(cells: readonly ResolvedCell[], resolved: readonly string[], file: string): void {
  const seen = new Map<string, ResolvedCell>();
  for (const [i, cell] of cells.entries()) {
    const key = resolved[i];
    const earlier = seen.get(key);
    if (earlier === undefined) {
      seen.set(key, cell);
      continue;
    }
    const spellings = Object.keys(cell.values)
      .filter((k) => canonicalJson(cell.values[k]) !== canonicalJson(earlier.values[k]))
      .map((k) => `${k}: ${JSON.stringify(earlier.values[k])} and ${JSON.stringify(cell.values[k])}`);
    throw new ConfigError(
      `${file}: sweep: cells ${earlier.id} and ${cell.id} resolve to the same run config (${spellings.join('; ')}: the same setting, spelled two ways); list each value once, in one spelling`,
    );
  }
}

/** Top-level keys of a run config that no experiment file has: a study with one (and no sweep or base) is a run config given by mistake. */
const RUN_CONFIG_ONLY_KEYS = [
  'n',
  'ga',
  'islands',
  'topology',
  'migration',
  'limits',
  'onIslandError',
  'lineage',
  'output',
  'cluster',
  'islandGroups',
];

function resolveExperiment(raw: unknown, text: string, file: string, env: ResolveEnv): Experiment {
  if (raw !== null && typeof raw === 'object' && !('sweep' in raw) && !('base' in raw) && RUN_CONFIG_ONLY_KEYS.some((key) => key in raw))
    throw new ConfigError(`${file} is a run config, not a study: use \`solve -c ${file}\``);
  const spec = parseExperiment(raw, file);
  const inputs: StudyInput[] = [{ file, sha256: sha256(text) }];
  const base = baseInput(spec.base, file, (name, content) => inputs.push({ file: name, sha256: sha256(content) }));
  const seeds = studySeeds(spec);
  /** Each cell's resolved config as the file asked for it (before the study sets seed and output), as canonical JSON. */
  const resolved: string[] = [];
  const cells = expandSweep(spec.sweep).map((cell): ResolvedCell => {
    let config: RunConfig;
    try {
      config = resolveRunConfig(cellInput(base, cell.values), `${file}: cell ${cell.id}`, {}, env);
    } catch (error) {
      if (error instanceof ConfigError && Object.keys(cell.values).length === 0) {
        throw new ConfigError(error.message.replace(`${file}: cell base`, `${file}: base`));
      }
      throw error;
    }
    if (config.n === 2 || config.n === 3) {
      throw new ConfigError(
        `${file}: cell ${cell.id}: n: ${config.n} has no solution, so there is no time to solution to study; expected n = 1 or n >= 4`,
      );
    }
    resolved.push(canonicalJson(config));
    // The study owns the seeds and the result files, and where runs go (experiment --nats);
    // each run is one run on one host.
    config = { ...config, seed: seeds[0], output: { ...config.output, file: null }, cluster: null };
    return { ...cell, baseline: baselineOf(cell, spec.baseline), config };
  });
  refuseSameConfigs(cells, resolved, file);
  return {
    file,
    name: spec.name ?? defaultName(file),
    description: spec.description ?? null,
    text,
    sha256: inputs[0].sha256,
    inputs,
    studySha256: studyHash(inputs),
    keys: Object.keys(spec.sweep),
    seeds,
    baseline: spec.baseline ?? null,
    cells,
  };
}
