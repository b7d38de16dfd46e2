/**
 * A study as given, changed without copying its file: `--set KEY=VALUE` (a dotted path of the
 * experiment file: `repeats=3`, `sweep.n=[8, 12]`, `base.overrides.limits.maxIterations=500`;
 * the value read as YAML) and `--repeats K` (the first K seeds). A copy would break the
 * file's relative `base.file`; an edit keeps the file where it is. And the study bundled:
 * its base run-config file inlined, so one file holds all of it (a Kubernetes ConfigMap).
 */
import YAML from 'yaml';
import { ConfigError } from '../config/errors.ts';
import { setPath } from '../config/overrides.ts';
import { machineProvenance } from '../provenance.ts';

export interface StudyEdits {
  /** `KEY=VALUE` each, applied in order. */
  set?: readonly string[];
  /** Runs per cell: the first K seeds of the study's list, or K seeds from its base seed. */
  repeats?: number;
}

/** The experiment file's top-level keys (schema.ts). */
const STUDY_KEYS = ['name', 'description', 'base', 'sweep', 'baseline', 'repeats', 'seed', 'seeds'];
/** Keys whose entries are dotted run-config paths themselves: `sweep.migration.mode` sets the sweep key `migration.mode`. */
const PATH_KEYED = new Set(['sweep', 'baseline']);

/** Whether `edits` change anything. */
export function hasEdits(edits: StudyEdits | undefined): edits is StudyEdits {
  return edits !== undefined && ((edits.set?.length ?? 0) > 0 || edits.repeats !== undefined);
}

function parseValue(text: string, flag: string): unknown {
  try {
    return YAML.parse(text) as unknown;
  } catch (error) {
    throw new ConfigError(`${flag}: the value is not YAML (${(error as Error).message.split('\n')[0]})`);
  }
}

/** A `KEY=VALUE` flag's key and value text (both trimmed), or null when it has no key before an `=`. */
export function keyAndValue(assignment: string): { key: string; text: string } | null {
  const at = assignment.indexOf('=');
  return at <= 0 ? null : { key: assignment.slice(0, at).trim(), text: assignment.slice(at + 1).trim() };
}

/** One `--set KEY=VALUE` on `study` (a mapping, changed in place). @throws ConfigError naming the flag. */
function applySet(study: Record<string, unknown>, assignment: string): void {
  const flag = `--set ${assignment}`;
  const pair = keyAndValue(assignment);
  if (pair === null) throw new ConfigError(`${flag}: expected KEY=VALUE, such as repeats=3 or sweep.n=[8, 12]`);
  const { key } = pair;
  const value = parseValue(pair.text, flag);
  const top = key.split('.')[0];
  if (!STUDY_KEYS.includes(top))
    throw new ConfigError(`${flag}: ${top} is not a key of an experiment file; expected one of ${STUDY_KEYS.join(', ')}`);
  if (PATH_KEYED.has(top) && key !== top) {
    const entries = study[top];
    const mapping = entries !== null && typeof entries === 'object' && !Array.isArray(entries) ? { ...entries } : {};
    study[top] = Object.assign(mapping, { [key.slice(top.length + 1)]: value });
    return;
  }
  // `base: ../default.yaml` is short for `base: { file: ../default.yaml }`: a key under base edits the long form.
  if (top === 'base' && key !== top && typeof study.base === 'string') study.base = { file: study.base };
  setPath(study, key, value);
}

/** One key set twice to other values would say two things, and the last would win without a word: refused, as `report --baseline` is. */
function checkOnce(assignments: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const assignment of assignments) {
    const pair = keyAndValue(assignment);
    if (pair === null) continue;
    const before = seen.get(pair.key);
    if (before !== undefined && before !== pair.text)
      throw new ConfigError(`--set ${assignment}: ${pair.key} is set twice (also --set ${pair.key}=${before}); give each key once`);
    seen.set(pair.key, pair.text);
  }
}

/**
 * The parsed experiment file `raw` with `edits` applied (a new object; `raw` is left as it is).
 * @throws ConfigError naming the flag for a malformed edit (the study's own checks come after).
 */
export function editStudy(raw: unknown, edits: StudyEdits): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const study = structuredClone(raw) as Record<string, unknown>;
  checkOnce(edits.set ?? []);
  for (const assignment of edits.set ?? []) applySet(study, assignment);
  if (edits.repeats !== undefined) {
    const k = edits.repeats;
    if (!Number.isInteger(k) || k < 1 || k > 10_000) throw new ConfigError(`--repeats: expected an integer from 1 to 10000, got ${k}`);
    if (Array.isArray(study.seeds)) {
      study.seeds = study.seeds.slice(0, k);
      delete study.repeats;
    } else study.repeats = k;
  }
  return study;
}

/** The command-line words of `edits` (`--set`, `KEY=VALUE`, `--repeats`, `K`), for a resume hint and the bundle's header. */
export function editsArgs(edits: StudyEdits | undefined): string[] {
  if (!hasEdits(edits)) return [];
  const sets = (edits.set ?? []).flatMap((s) => ['--set', s]);
  return edits.repeats === undefined ? sets : [...sets, '--repeats', String(edits.repeats)];
}

/**
 * The bundle's text: `study` (edited) with `base` replaced by `base`, the base input (the
 * base file's content with the overrides on top), and the study's name kept, under a header
 * naming what made it.
 */
export function bundleText(
  study: Record<string, unknown>,
  base: unknown,
  source: { file: string; name: string; edits?: StudyEdits },
): string {
  const { version, commit } = machineProvenance();
  const bundled: Record<string, unknown> = { name: source.name };
  for (const [key, value] of Object.entries(study)) if (key !== 'name') bundled[key] = key === 'base' ? undefined : value;
  bundled.base = { overrides: base };
  const header = [
    `# ${[source.file, ...editsArgs(source.edits)].map((w) => (/\s/.test(w) ? JSON.stringify(w) : w)).join(' ')}, its base run config inlined (one file: a Kubernetes ConfigMap, docs/hpc.md).`,
    `# Written by nqueens-islands ${version} (commit ${commit}) with \`experiment FILE --bundle OUT\`. Run it as the original.`,
  ];
  return `${header.join('\n')}\n${YAML.stringify(bundled, { lineWidth: 0 })}`;
}
