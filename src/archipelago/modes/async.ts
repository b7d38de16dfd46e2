import { NO_OPTIONS } from '../../schema/plug-in.ts';
import { defineMigrationMode } from './define.ts';

/** Islands send and take in whatever has arrived, never waiting; the first to claim a solution ends the run. */
export const asyncMode = defineMigrationMode({
  kind: 'async',
  help: 'islands send and take in whatever has arrived, never waiting; not repeatable (thread timing decides)',
  options: NO_OPTIONS,
  repeatable: false,
  stopsOnClaim: true,
  waitsForMigrants: false,
  coordinator: { winner: 'claim', checkpoints: 'anytime', numbersMigrations: false, countsThroughWinner: false },
  create: (loop) => ({
    anytimeCheckpoints: true,
    solved: () => loop.found(loop.shared.claim(loop.id)),
    migrate: () => {
      const { evolver, migration, transport } = loop;
      if (!loop.migrating || evolver.iterations % migration.interval !== 0) return null;
      loop.sendEmigrants(0);
      for (let s = 0; s < transport.sources.length; s++) {
        for (let m = transport.receive(s); m; m = transport.receive(s)) loop.immigrate(m);
      }
      return evolver.solution ? loop.found(loop.shared.claim(loop.id)) : null;
    },
  }),
});
