/**
 * The takeover mode's part of the coordinator (coordinator-hook.ts). Once every island is
 * taken over the run has its answer and stops, at a point of the schedule rather than
 * wherever the halt finds the islands: it halts when every island still going has sent its
 * sample of the last scheduled iteration at or before the takeover, so the record's
 * `between` series is complete to the takeover (the record's cut drops what comes after)
 * and the same on every rerun.
 */
import type { GaCoordinatorContext, GaCoordinatorHook, GaModeRunFields, GaModeSampleFields } from './coordinator-hook.ts';

class TakeoverCoordinator implements GaCoordinatorHook {
  /** Each island's takeover iteration as last reported (-1: not yet). */
  private readonly takenOver: number[];
  /** Each island's iteration at its last progress sample (-1: none yet). */
  private readonly sampledTo: number[];
  /** Islands that ended (reported or failed). */
  private readonly ends: boolean[];
  /** Every island taken over: the run halts once every island still going has sampled this iteration. */
  private haltAfterSample: number | null = null;
  halts = false;

  constructor(private readonly ctx: GaCoordinatorContext) {
    this.takenOver = new Array<number>(ctx.islands).fill(-1);
    this.sampledTo = new Array<number>(ctx.islands).fill(-1);
    this.ends = new Array<boolean>(ctx.islands).fill(false);
  }

  sampled(island: number, iteration: number, fields: GaModeSampleFields): void {
    this.sampledTo[island] = iteration;
    if (fields.takenOverAt !== undefined) this.takenOver[island] = fields.takenOverAt;
    if (this.haltAfterSample === null && this.takenOver.every((t) => t >= 0))
      this.haltAfterSample = this.ctx.scheduledAtOrBefore(Math.max(...this.takenOver));
    this.check();
  }

  ended(island: number): void {
    this.ends[island] = true;
    this.check();
  }

  private check(): void {
    const at = this.haltAfterSample;
    if (at === null) return;
    for (let k = 0; k < this.ctx.islands; k++) if (!this.ends[k] && this.sampledTo[k] < at) return;
    this.halts = true;
  }

  /** Each island's takeover iteration from its report (null: never, or no report) and the archipelago's (the last island's). */
  result(reports: readonly (GaModeSampleFields | null)[]) {
    const islands = reports.map((r) => (r?.takenOverAt !== undefined && r.takenOverAt >= 0 ? r.takenOverAt : null));
    const takeover = { iteration: islands.every((t) => t !== null) ? Math.max(...islands) : null, islands };
    return {
      run: reports.some((r) => r?.takenOverAt !== undefined) ? { takeover } : {},
      islands: reports.map((r, i) => (r?.takenOverAt !== undefined ? { takenOverAt: islands[i] } : {})),
    };
  }

  /** The takeover iteration + 1: the run halts once every island has sampled every scheduled iteration up to it. */
  recordCut(run: GaModeRunFields): number {
    return run.takeover?.iteration != null ? run.takeover.iteration + 1 : Infinity;
  }
}

export function takeoverCoordinator(ctx: GaCoordinatorContext): GaCoordinatorHook {
  return new TakeoverCoordinator(ctx);
}
