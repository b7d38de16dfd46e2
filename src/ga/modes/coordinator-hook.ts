/**
 * A GA mode's part of the coordinator (src/archipelago/archipelago.ts), as a migration mode's
 * `CoordinatorRules` are: what its islands tell the coordinator beyond the common counters,
 * when that ends the run, and what it adds to the run's result. The coordinator names no GA
 * mode: it calls the hook of the run's mode (`GaModeDefinition.coordinator`), or NO_HOOK.
 * A mode with such fields declares them in the three interfaces below (the messages, the
 * message shapes and the result carry them under these names).
 */
/** What an island of a mode with a hook adds to its progress samples and its report (numbers only). */
export interface GaModeSampleFields {
  takenOverAt?: number;
}

/** What such a mode adds to each island's result. */
export interface GaModeIslandFields {
  takenOverAt?: number | null;
}

/** Takeover mode: when each island, and the whole archipelago, held only copies of the best. */
export interface TakeoverResult {
  /** The archipelago's takeover time: the iteration at which the last island was taken over; null if one never was. */
  iteration: number | null;
  islands: (number | null)[];
}

/** What such a mode adds to the run's result. */
export interface GaModeRunFields {
  takeover?: TakeoverResult;
}

/** The keys of GaModeSampleFields (each an integer), for the shapes of messages from outside. */
export const GA_MODE_SAMPLE_KEYS = ['takenOverAt'] as const satisfies readonly (keyof GaModeSampleFields)[];

/** The keys of GaModeIslandFields, which an island's summary in a record keeps. */
export const GA_MODE_ISLAND_KEYS = ['takenOverAt'] as const satisfies readonly (keyof GaModeIslandFields)[];

/** What the coordinator tells a hook about the run. */
export interface GaCoordinatorContext {
  islands: number;
  /** The last iteration of the progress schedule at or before `t` (where islands sample the between-island observables). */
  scheduledAtOrBefore(t: number): number;
}

/** One run's hook: told of every sample and end, asked after each whether the run has its answer. */
export interface GaCoordinatorHook {
  /** Island `island` sent its progress sample of `iteration`, with its mode's fields (an island's samples arrive in order). */
  sampled(island: number, iteration: number, fields: GaModeSampleFields): void;
  /** Island `island` ended (its report, or its failure): nothing more comes from it. */
  ended(island: number): void;
  /** The run has its answer: the coordinator halts it. */
  readonly halts: boolean;
  /** The mode's fields of the result, from each island's report (null: none). Pure. */
  result(reports: readonly (GaModeSampleFields | null)[]): { run: GaModeRunFields; islands: GaModeIslandFields[] };
  /** The first iteration whose between-island samples an unsolved run's record leaves out (Infinity: none). Pure. */
  recordCut(run: GaModeRunFields): number;
}

/** The hook of a mode without one: it adds nothing and never halts a run. */
export const NO_HOOK: GaCoordinatorHook = {
  sampled: () => {},
  ended: () => {},
  halts: false,
  result: (reports) => ({ run: {}, islands: reports.map(() => ({})) }),
  recordCut: () => Infinity,
};
