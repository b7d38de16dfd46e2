import type { StudyData } from '../data/study-data.ts';

/**
 * Wall times of a study run in shards compare runs of different machines (or loads) unless
 * both runs of every pair ran on one shard: shards deal whole seeds since 0.9 when there are
 * at least as many seeds as shards (shard.ts). Otherwise the wall-time verdicts say so.
 */
export function placementNote(manifest: StudyData['manifest']): string | null {
  const shards = manifest.shards ?? 1;
  if (shards < 2 || (manifest.shardDealing === 'seeds' && manifest.seeds.length >= shards)) return null;
  if (manifest.shardDealing === 'seeds')
    return `this study's ${manifest.seeds.length} seeds ran on ${shards} shards, so a pair's two runs may have run on different shards: wall-time verdicts are confounded by placement`;
  return `this study ran in ${shards} shards dealt run by run (before 0.9), so a pair's two runs may have run on different shards, and a cell may have run on one shard alone: wall-time verdicts are confounded by placement`;
}
