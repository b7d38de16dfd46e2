/**
 * A study's manifest: made for a new study, and checked on resume (and by each shard) against
 * the study and the build at hand, so one folder never mixes two studies' runs, or two builds'
 * unless asked to (--mixed-builds, recorded in the manifest's `mixedBuilds`).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { isRepeatable } from '../archipelago/modes/registry.ts';
import { ConfigError } from '../config/errors.ts';
import { valueAt } from '../config/overrides.ts';
import { isPlainObject } from '../io/json-text.ts';
import { packageRoot, toolInfo } from '../package-info.ts';
import { canonicalJson, machineProvenance, type MachineProvenance } from '../provenance.ts';
import type { Experiment } from './load.ts';
import { cellConfig, environment, MANIFEST_FORMAT, type Manifest } from './records.ts';
import { MANIFEST_FILE } from './store.ts';

/** A new study's manifest; `shards` for a study run in shards (shard.ts). */
export function newManifest(experiment: Experiment, events: boolean, shards?: number): Manifest {
  return {
    format: MANIFEST_FORMAT,
    name: experiment.name,
    description: experiment.description,
    experiment: {
      file: path.resolve(experiment.file),
      sha256: experiment.sha256,
      text: experiment.text,
      inputs: experiment.inputs,
      studySha256: experiment.studySha256,
    },
    keys: experiment.keys,
    seeds: experiment.seeds,
    baseline: experiment.baseline,
    cells: experiment.cells.map(({ id, values, baseline, config }) => ({
      id,
      values,
      baseline,
      repeatable: isRepeatable(config.migration.mode),
      config: cellConfig(config),
    })),
    repeatable: experiment.cells.every((cell) => isRepeatable(cell.config.migration.mode)),
    events,
    tool: toolInfo(),
    provenance: machineProvenance(),
    environment: environment(),
    startedAt: new Date().toISOString(),
    resumedAt: [],
    ...(machineProvenance().dirty === true ? { buildStamp: buildStamp() } : {}),
    ...(shards === undefined ? {} : { shards, shardDealing: 'seeds' as const }),
  };
}

/**
 * When this build was made (the time of its dist/build-info.json, which every build writes),
 * or null when run from source: tells apart two builds of one commit with uncommitted changes.
 */
export function buildStamp(): string | null {
  try {
    return statSync(path.join(packageRoot(), 'dist', 'build-info.json')).mtime.toISOString();
  } catch {
    return null;
  }
}

/**
 * How this build differs from the one that started the study (commit, uncommitted changes,
 * Node version), as one phrase, or null when it is the same. A build with uncommitted changes
 * is the same only as itself (the same commit and build time, `buildStamp`).
 */
export function buildDifference(manifest: Manifest, build: MachineProvenance = machineProvenance(), stamp = buildStamp()): string | null {
  const was = manifest.provenance;
  if (was === undefined) return 'the manifest names no build (no provenance), so this one cannot be compared with it';
  const short = (commit: string) => (commit === 'unknown' ? 'an unknown commit' : `commit ${commit.slice(0, 12)}`);
  const bundle = (hash: string | undefined) => (hash === undefined ? 'no bundle hash' : `bundle sha256 ${hash.slice(0, 12)}...`);
  const differs: string[] = [];
  if (was.commit !== build.commit) differs.push(`the study was made at ${short(was.commit)}, this build is ${short(build.commit)}`);
  // Two builds without git are told apart by their bundles (run from source, neither has one).
  else if (was.commit === 'unknown' && was.bundleSha256 !== build.bundleSha256)
    differs.push(
      `the study was made by a build without git (${bundle(was.bundleSha256)}), this is another (${bundle(build.bundleSha256)})`,
    );
  else if (was.dirty === true && !(build.dirty === true && manifest.buildStamp === stamp))
    differs.push(
      `the study was made by a build with uncommitted changes (built ${manifest.buildStamp ?? 'at an unknown time'}), this is another build`,
    );
  else if (build.dirty === true && was.dirty !== true)
    differs.push('this build has uncommitted changes, the study was made by a clean one');
  if (was.node !== build.node) differs.push(`the study ran on Node ${was.node}, this is ${build.node}`);
  return differs.length === 0 ? null : differs.join('; ');
}

/**
 * On resume: the folder must hold this very study, made by this version, else its runs would
 * be mixed with another's. One line says which of the three differs. The build (commit,
 * uncommitted changes, Node version) must be the study's too, unless `mixedBuilds`: the
 * difference is then returned, for the manifest to record.
 */
export function checkSameStudy(manifest: Manifest, experiment: Experiment, outDir: string, mixedBuilds = false): string | null {
  const where = path.join(outDir, MANIFEST_FILE);
  const short = (hash: string | undefined) => (hash === undefined ? 'none' : `${hash.slice(0, 12)}...`);
  const { name, version } = toolInfo();
  const madeBy = manifest.provenance?.version ?? manifest.tool.version;
  if (madeBy !== version) {
    throw new ConfigError(
      `${where}: the study in this folder was made by ${name} ${madeBy}, this is ${version}; resume it with ${madeBy} or choose another --out`,
    );
  }
  const build = buildDifference(manifest);
  if (build !== null && !mixedBuilds)
    throw new ConfigError(
      `${where}: ${build}; resume with the study's build, or add --mixed-builds to mix them knowingly (the manifest records it)`,
    );
  const before = manifest.experiment.studySha256 ?? manifest.experiment.sha256;
  if (before !== experiment.studySha256) {
    const changed = experiment.inputs.find((input, i) => manifest.experiment.inputs?.[i]?.sha256 !== input.sha256) ?? experiment.inputs[0];
    throw new ConfigError(
      `${where}: the study in this folder was made from other files (study sha256 ${short(before)}, now ${short(experiment.studySha256)}: ${changed.file} differs); resume with the same files or choose another --out`,
    );
  }
  for (const cell of experiment.cells) {
    const saved = manifest.cells.find((c) => c.id === cell.id);
    const now = cellConfig(cell.config);
    const key = saved === undefined ? null : firstDifference(saved.config, now);
    if (saved === undefined || key !== null) {
      const what =
        saved === undefined
          ? 'is not in it'
          : `now resolves ${key} to ${JSON.stringify(valueAt(now, key!))} instead of ${JSON.stringify(valueAt(saved.config, key!))}`;
      throw new ConfigError(
        `${where}: cell ${cell.id} ${what} (a changed default, or this machine's core count when islands is null); choose another --out`,
      );
    }
  }
  return build;
}

/** The first dotted key (in canonical order) at which two JSON values differ, or null when they are equal. */
function firstDifference(a: unknown, b: unknown, prefix = ''): string | null {
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const found = firstDifference(a[key], b[key], prefix === '' ? key : `${prefix}.${key}`);
      if (found !== null) return found;
    }
    return null;
  }
  return canonicalJson(a) === canonicalJson(b) ? null : prefix;
}
