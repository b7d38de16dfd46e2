/**
 * The study runner's hooks that feed a study's view: light (types only), so a command that
 * does not serve loads no server.
 */
import type { StudyHooks } from '../experiment/runner.ts';
import type { StudyServer } from './serve.ts';

/** The study runner's hooks with the view's added: the folder opened, each run's events, each run's end. */
export function withStudyView(hooks: StudyHooks, view: StudyServer | null): StudyHooks {
  if (view === null) return hooks;
  return {
    ...hooks,
    onPlan: (total, done) => {
      hooks.onPlan?.(total, done);
      view.opened();
    },
    onRunEvents: (run, events$) => {
      hooks.onRunEvents?.(run, events$);
      view.runEvents(run.cell.id, run.seed, events$);
    },
    onRunEnd: (record, index) => {
      hooks.onRunEnd?.(record, index);
      view.runEnded(record);
    },
  };
}
