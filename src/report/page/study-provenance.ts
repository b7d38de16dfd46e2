/**
 * Where a study's numbers come from, in sentences for the page and the markdown report: the
 * build and machine that started the study, the files it read (with their hashes), and the
 * builds and machines that made its runs.
 */
import type { StudyData } from '../data/study-data.ts';

/** Which build, config files and machine made the study, and the runs (a cluster's hosts may differ), one sentence each. */
export function studyProvenance(study: StudyData): string[] {
  const { manifest } = study;
  const p = manifest.provenance;
  const e = manifest.environment;
  const build = p
    ? `${p.tool} ${p.version}, commit ${p.commit}${p.dirty ? ' (with uncommitted changes)' : ''}`
    : `${manifest.tool.name} ${manifest.tool.version} (a study of a version that recorded no commit)`;
  const machine = p
    ? `Node ${p.node}, ${p.os.platform} ${p.os.release} ${p.os.arch}, ${p.cpu.model} × ${p.cpu.cores}`
    : `Node ${e.node}, ${e.platform} ${e.arch}, ${e.cpuModel} × ${e.cores}`;
  const items = [
    `Made by ${build} on ${machine}; started ${manifest.startedAt}${manifest.resumedAt.length > 0 ? `, resumed ${manifest.resumedAt.join(', ')}` : ''}.`,
  ];
  const { inputs, studySha256 } = manifest.experiment;
  items.push(
    studySha256
      ? `Study sha256 ${studySha256}, over ${(inputs ?? []).map((i) => `${i.file} (sha256 ${i.sha256})`).join(', ')}.`
      : `Experiment file sha256 ${manifest.experiment.sha256}.`,
  );
  const makers = new Map<string, number>();
  for (const run of [...study.runs, ...study.failed]) {
    const r = run.provenance;
    const key = r
      ? `${r.version}, commit ${r.commit.slice(0, 12)}, ${r.cpu.model} × ${r.cpu.cores}${run.host ? `, host ${run.host}` : ''}`
      : 'no provenance (a version before 0.2)';
    makers.set(key, (makers.get(key) ?? 0) + 1);
  }
  if (makers.size > 0)
    items.push(
      `Runs made by: ${[...makers].map(([k, n]) => `${k} (${n} run${n === 1 ? '' : 's'})`).join('; ')}. Each run record holds the sha256 of its resolved config with its seed (configHash).`,
    );
  return items;
}
