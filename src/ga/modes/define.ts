/**
 * The GA-mode family of plug-ins (src/schema/plug-in.ts, the one contract): an island
 * algorithm (`Evolver`) with its parameters, one module in this folder listed on one line in
 * `registry.ts`. Its implementation is `create`, with `memory`, `initialEvaluations` and an
 * optional coordinator hook (docs/ARCHITECTURE.md, "How to add a plug-in"). The GA core never
 * loads zod or the config layer: options are built from the `Fields` kit a mode is handed.
 */
import type { z } from 'zod';
import type { Fields } from '../../schema/fields.ts';
import type { Genes } from '../../problem/genes.ts';
import type { PlugIn } from '../../schema/plug-in.ts';
import type { Evolver, IslandPlace } from '../evolver.ts';
import type { Rng } from '../rng.ts';
import type { IslandState } from '../snapshot.ts';
import type { GaCoordinatorContext, GaCoordinatorHook } from './coordinator-hook.ts';

/** What a mode's `resolve` may ask about the run, and how it refuses. */
export interface GaModeContext {
  /** Board size N. */
  n: number;
  /** Islands of the run. */
  islands: number;
  /** Refuses the config, naming a key under `ga`; `related` are other keys involved. */
  fail: (key: string, message: string, related?: readonly string[]) => never;
}

/**
 * A GA mode: `kind` is its `ga.mode` name; `resolve` turns the parsed options into the
 * parameters (`O`, without `n`) that the resolved config holds and islands receive.
 */
export interface GaModeDefinition<
  K extends string = string,
  S extends z.ZodRawShape = z.ZodRawShape,
  O extends object = object,
> extends PlugIn<K, S, O, GaModeContext> {
  resolve(options: z.output<z.ZodObject<S>>, ctx: GaModeContext): O;
  /**
   * The fields of the parameters `resolve` returns, as the `Fields` kit builds them: how a
   * resolved config that arrived from outside (a checkpoint, a bus order) is checked
   * without being resolved again (src/config/resolved-schema.ts). Default: `options`, for a
   * mode whose `resolve` returns its options with their nulls filled.
   */
  params?(f: Fields): z.ZodRawShape;
  /** The parameters written back as `ga` keys (a printed config reproduces the run). Default: those that are options. */
  fileShape?(params: O): Record<string, unknown>;
  /** The iteration limit of a run of this mode whose config leaves `limits.maxIterations` null (a mode whose runs need not end by themselves). */
  defaultMaxIterations?: number;
  /**
   * Bytes of chromosomes one island allocates, and those parts as a message lists them;
   * `released`: what of them a solved island gives back before it reports (Evolver.release).
   */
  memory(params: O, n: number): { bytes: number; parts: string; released?: number };
  /** Evaluations an island spends building its first population (a `limits.maxEvaluations` share must cover them). */
  initialEvaluations(params: O): number;
  /** The island algorithm; with `snapshot`, continues a checkpointed one; `place` says which island of which run it is. Trusts its parameters. */
  create(params: O & { n: number }, rng: Rng, shouldStop?: () => boolean, snapshot?: IslandState, place?: IslandPlace): Evolver;
  /**
   * How a member's fitness is recomputed outside its island (a checkpoint's members are checked
   * against it before a worker trusts them), for a mode whose fitness is not the paper's count of
   * attacking pairs. Default: that count (src/problem/fitness.ts).
   */
  fitnessOf?(params: O & { n: number }, seed: number): (genes: Genes, offset: number) => number;
  /** The mode's part of the coordinator, made once per run (coordinator-hook.ts); none: NO_HOOK. */
  coordinator?(ctx: GaCoordinatorContext): GaCoordinatorHook;
}

/** Types a definition (the options' types flow from `options` into `resolve`, the parameters' into the rest). */
export function defineGaMode<K extends string, S extends z.ZodRawShape, O extends object>(
  definition: GaModeDefinition<K, S, O>,
): GaModeDefinition<K, S, O> {
  return definition;
}
