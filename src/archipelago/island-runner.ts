import { BuildStopped } from '../ga/build-stopped.ts';
import { createEvolver, evolverSpecOf } from '../ga/create-evolver.ts';
import type { Evolver } from '../ga/evolver.ts';
import type { EmigrantSelection, ReplacementPolicy } from '../ga/migration-policy.ts';
import { Rng } from '../ga/rng.ts';
import { sampleDiversity } from './diversity.ts';
import { observe } from './observables/sample.ts';
import { ImmigrantTracker } from './observables/survival.ts';
import type { IslandReport, IslandTask, MigrantsMessage, StopReason } from './messages.ts';
import { MigrationLog } from './migration-log.ts';
import type { IslandRegistries } from './extension.ts';
import { ISLAND_REGISTRIES } from './island-registries.ts';
import { emigrantSelectionFor, replacementFor } from '../migration-policy/lookup.ts';
import { DEPARTED, HALTED, RUNNING, type IslandCoordination } from './coordination.ts';
import { HISTORY, LagHistory, type IslandCounters } from './lag-history.ts';
import type { TestFault } from './test-fault.ts';
import type { IslandTransport } from './transport.ts';

/** Wall-clock ms comparable across threads. */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/** What the worker's glue gives the loop besides the task: test hooks stay out of the task (test-fault.ts). */
export interface RunnerHooks {
  /** How the `exit` test fault leaves the thread (the worker passes process.exit). */
  exit(code: number): never;
  /** The test fault the worker read from its environment, if any (it acts only on its own island). */
  fault?: TestFault;
}

/**
 * Island `island`'s share of an evaluation budget: `budget` split evenly, the first
 * `budget mod islands` islands one more, so the shares add up to the budget exactly. Each
 * island stops at its share whatever the others do, so a run that does not solve has
 * evaluated exactly `budget` chromosomes (unless an island failed).
 */
export function evaluationShare(budget: number, islands: number, island: number): number {
  return Math.floor(budget / islands) + (island < budget % islands ? 1 : 0);
}

/** The test fault's exit code, so a test can recognise it. */
export const TEST_FAULT_EXIT_CODE = 70;

/**
 * One island's whole run, inside its worker: build the evolver, loop `step()`, migrate
 * every `interval` iterations, report progress, stop when told. Returns its report; on a
 * throw it still marks itself departed so no sync barrier waits for it. `registries` are
 * what its GA mode and migration spec name (the built-in ones and the task's extensions).
 */
export function runIsland(
  task: IslandTask,
  transport: IslandTransport,
  shared: IslandCoordination,
  hooks: RunnerHooks,
  registries: IslandRegistries = ISLAND_REGISTRIES,
): IslandReport {
  let run: IslandRun | null = null;
  const startedAt = wallClock();
  try {
    run = new IslandRun(task, transport, shared, hooks, registries);
    return run.run();
  } catch (error) {
    // A stop during the population's build (start-up) is a stop, not a failure.
    if (error instanceof BuildStopped) return stoppedInBuild(task.island, error, startedAt);
    run?.reportBest(true);
    throw error;
  } finally {
    shared.depart(task.island);
  }
}

/** The report of an island stopped while it built its population: no iteration, the best member built so far or none. */
function stoppedInBuild(island: number, stopped: BuildStopped, startedAt: number): IslandReport {
  const stoppedAt = wallClock();
  return {
    type: 'report',
    island,
    iterations: 0,
    evaluations: stopped.evaluations,
    bestFitness: stopped.best ? stopped.best.fitness : -1,
    best: stopped.best ? stopped.best.genes : null,
    solution: null,
    foundAtIteration: -1,
    foundAt: 0,
    claimed: false,
    migrantsSent: 0,
    migrantsAccepted: 0,
    startedAt,
    stoppedAt,
    stopReason: 'stopped',
    migrations: new Int32Array(0),
    evaluationsFrom: 0,
    evaluationsAt: new Float64Array(0),
    survivals: new Int32Array(0),
    migrantsReceived: 0,
    immigrantsChecked: 0,
    immigrantsSurvived: 0,
  };
}

/**
 * Progress is sampled by iteration as well as every `progressIntervalMs`: at iterations
 * 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, ... (powers of two and 1.5 times them), so a run of a
 * tenth of a second still draws a curve of several points, while a long run adds only about
 * 2·log2(iterations) samples to the timed ones. The first iteration of that sequence after `i`.
 */
export function nextSampleIteration(i: number): number {
  if (i < 4) return i + 1;
  const power = 2 ** Math.floor(Math.log2(i));
  return i < power * 1.5 ? power * 1.5 : power * 2;
}

/** Whether iteration `i` is one of the progress schedule (0, 1, 2, 3, 4, 6, 8, 12, ...): where islands sample the between-island observables. */
export function isScheduledIteration(i: number): boolean {
  return i <= 4 || nextSampleIteration(i - 1) === i;
}

class IslandRun {
  private readonly id: number;
  private readonly evolver: Evolver;
  /** The run's limits as loop bounds: Infinity for none; evaluations are this island's share. */
  private readonly maxIterations: number;
  private readonly maxEvaluations: number;
  private readonly select: EmigrantSelection;
  private readonly replace: ReplacementPolicy;
  private readonly log = new MigrationLog();
  private readonly immigrants: ImmigrantTracker;
  private migrantsReceived = 0;
  /** The last iteration whose observation was sent (-1: none yet). */
  private observed = -1;
  /** Modes that report a takeover: the takeover iteration last sent (-1: not yet). */
  private takeoverSent = -1;
  /** Sync: messages of later epochs that arrived while an earlier barrier was served, per source. */
  private readonly pending: MigrantsMessage[][];
  private readonly startedAt = wallClock();
  private migrantsSent = 0;
  private migrantsAccepted = 0;
  private foundAt = 0;
  private foundAtIteration = -1;
  private claimed = false;
  private nextProgress: number;
  /** The iteration of the next progress sample (see nextSampleIteration). */
  private nextSample = 0;
  /** The fitness of the last best chromosome sent to the coordinator (see reportBest). */
  private bestSent = -1;
  /** The last checkpoint request this island answered (or found already past). */
  private served: number;
  /** Lagged mode: counters of the last iterations (null in the other modes). */
  private readonly history: LagHistory | null;
  /** Lagged: the iteration this island's solution counts in (its step's, or the next for a solving immigrant); -1 if none. */
  private foundCut = -1;
  /** Lagged: a lower bound of every island's completed iterations (see awaitWindow). */
  private slowest = 0;
  /** Lagged: what the report counts (the island's state at the run's cut), once decided. */
  private atCut: IslandCounters | null = null;
  private readonly sleeper = new Int32Array(new SharedArrayBuffer(4));
  /**
   * Sync: the island's evaluations after each iteration since the last barrier it passed
   * (`epochStart`), the migration after it included: entry j - epochStart is the count once
   * iteration j and its migration were done. The coordinator reads the entry of the winning
   * iteration, so what an island did after it, running on to the barrier, is counted apart.
   * Grown on demand (at most one epoch long).
   */
  private evaluationsAt = new Float64Array(16);
  private epochStart: number;

  constructor(
    private readonly task: IslandTask,
    private readonly transport: IslandTransport,
    private readonly shared: IslandCoordination,
    private readonly hooks: RunnerHooks,
    registries: IslandRegistries,
  ) {
    this.id = task.island;
    this.select = emigrantSelectionFor(task.run.migration.emigrantSelection, registries.emigrantSelections);
    this.replace = replacementFor(task.run.migration.replacement, registries.replacements);
    this.pending = transport.sources.map(() => []);
    this.immigrants = new ImmigrantTracker(task.island);
    // Async islands stop on any stop; sync and lagged islands only on the coordinator's (a
    // solution elsewhere is seen at a barrier or at the cut, so every island's iterations stay whole and repeatable).
    const shouldStop = task.run.migration.mode !== 'async' ? () => shared.stopState() === HALTED : () => shared.stopState() !== RUNNING;
    const snapshot = task.snapshot;
    const rng = snapshot ? new Rng(snapshot.state.rng) : Rng.forStream(task.run.seed, task.island);
    this.evolver = createEvolver(evolverSpecOf(task.run), rng, shouldStop, snapshot?.state, registries.gaModes, {
      island: task.island,
      seed: task.run.seed,
    });
    // The one place "no limit" (null) becomes a bound the loop compares with.
    const { maxIterations, maxEvaluations } = task.run.limits;
    this.maxIterations = maxIterations ?? Infinity;
    this.maxEvaluations = maxEvaluations === null ? Infinity : evaluationShare(maxEvaluations, task.run.islands, task.island);
    this.evolver.evaluationBudget = this.maxEvaluations;
    if (snapshot) {
      this.migrantsSent = snapshot.migrantsSent;
      this.migrantsAccepted = snapshot.migrantsAccepted;
    }
    this.nextProgress = performance.now() + task.progressIntervalMs;
    // A request made while this island was being built is answered at its first chance.
    this.served = 0;
    this.history = task.run.migration.mode === 'lagged' ? new LagHistory() : null;
    this.epochStart = this.evolver.iterations;
  }

  /** Sync: notes the evaluations done once the current iteration and its migration are (see evaluationsAt). */
  private noteEvaluations(): void {
    const at = this.evolver.iterations - this.epochStart;
    if (at >= this.evaluationsAt.length) {
      const grown = new Float64Array(Math.max(at + 1, this.evaluationsAt.length * 2));
      grown.set(this.evaluationsAt);
      this.evaluationsAt = grown;
    }
    this.evaluationsAt[at] = this.evolver.evaluations;
  }

  run(): IslandReport {
    const { task, evolver, shared, id } = this;
    const sync = task.run.migration.mode === 'sync';
    const lagged = task.run.migration.mode === 'lagged';
    const migrating = task.run.migration.migrants > 0 && task.run.migration.interval > 0;
    const fault = this.hooks.fault?.island === id ? this.hooks.fault : null;
    let reason: StopReason;
    // The start gate: workers come up one by one; nobody iterates until all are built, so
    // an early island cannot solve before the others exist (and stop latency means stopping).
    shared.arrive(id, 0);
    if (!shared.awaitBarrier(0)) return this.report('stopped');
    // Its best before 'started' (one port, in order): once the run is reported started, the coordinator holds every island's best.
    this.reportBest();
    this.transport.report({ type: 'started', island: id, time: wallClock() });
    this.progress(); // the start of every island's curve
    // Sync islands take checkpoints only at a barrier (every island at the same epoch, no
    // migrants in flight); without barriers, or in async mode, between any two iterations.
    const anytimeCheckpoints = !(sync && migrating);
    if (lagged) this.remember();
    for (;;) {
      const stop = shared.stopState();
      if (stop !== RUNNING && (task.run.migration.mode === 'async' || stop === HALTED)) {
        reason = stop === HALTED ? 'stopped' : 'other-solved';
        break;
      }
      if (evolver.iterations >= this.maxIterations) {
        reason = lagged ? this.finishLagged('max-iterations') : 'max-iterations';
        break;
      }
      if (evolver.evaluations >= this.maxEvaluations) {
        reason = lagged ? this.finishLagged('max-evaluations') : 'max-evaluations';
        break;
      }
      if (lagged && !this.awaitWindow()) continue; // halted: the loop head sees it
      if (fault && fault.kind === 'slow' && evolver.iterations >= fault.atIteration) Atomics.wait(this.sleeper, 0, 0, fault.delayMs ?? 1);
      else if (fault && fault.kind !== 'slow' && evolver.iterations === fault.atIteration) this.fault(fault.kind);
      if (sync) this.noteEvaluations();
      const before = evolver.iterations;
      const solved = evolver.step();
      shared.setIterations(id, evolver.iterations);
      if (lagged && evolver.iterations !== before) this.remember();
      if (solved) {
        // Lagged: the solving iteration is the cut. Sync: the solving generation belongs to
        // the epoch it ends in (the initial population to epoch 1).
        reason = lagged
          ? this.foundLagged(evolver.iterations)
          : this.found(Math.floor(Math.max(0, evolver.iterations - 1) / task.run.migration.interval) + 1);
        break;
      }
      if (evolver.iterations === before) continue; // abandoned for a stop: the loop head sees it
      this.immigrants.check(evolver.population, evolver.iterations);
      if (lagged) {
        const outcome = this.iterateLagged(migrating);
        if (outcome) {
          reason = outcome;
          break;
        }
      } else if (migrating && evolver.iterations % task.run.migration.interval === 0) {
        const outcome = sync ? this.migrateSync(evolver.iterations / task.run.migration.interval) : this.migrateAsync();
        if (outcome) {
          reason = outcome;
          break;
        }
      }
      // A takeover is reported at once (the coordinator ends the run when every island is taken over).
      const takeover = evolver.takeoverIteration?.() ?? -1;
      if (evolver.iterations >= this.nextSample || performance.now() >= this.nextProgress || takeover !== this.takeoverSent)
        this.progress();
      if (anytimeCheckpoints && shared.checkpointRequest() !== this.served) this.snapshot(0);
    }
    // The loop has stopped: that is the moment stop latency measures. Posting the solution
    // (its first encoding is cold code) comes after, as the other islands already saw the claim.
    const stoppedAt = wallClock();
    if (this.claimed) {
      this.transport.report({
        type: 'solution',
        island: id,
        iteration: evolver.iterations,
        genes: evolver.solution!,
        foundAt: this.foundAt,
      });
    }
    this.progress(); // the end of its curve
    return this.report(reason, stoppedAt);
  }

  /**
   * The island holds a solution: claim the run (async) or post `epoch`, the epoch it was
   * found in (sync): every island stops at that epoch's barrier.
   */
  private found(epoch: number): StopReason {
    const { task, evolver, shared, id } = this;
    this.foundAt = wallClock();
    this.foundAtIteration = evolver.iterations;
    if (task.run.migration.mode === 'sync') {
      shared.reportFoundEpoch(epoch);
    } else {
      this.claimed = shared.claim(id);
    }
    return 'solved';
  }

  /** Lagged: keeps this iteration's counters (after its step, before its migration). */
  private remember(): void {
    const { evolver } = this;
    this.history!.record(
      evolver.iterations,
      evolver.evaluations,
      this.migrantsSent,
      this.migrantsAccepted,
      evolver.solution ? 0 : evolver.bestFitness(),
      this.migrantsReceived,
      this.immigrants.checked,
      this.immigrants.survived,
    );
  }

  /**
   * Lagged, before a step: an island may not get HISTORY - 1 iterations ahead of the slowest
   * island (which may still find the first solution, whose iteration this island must then
   * still hold in its history). With neighbours to wait for this never binds; it bounds
   * islands that take in nothing. False if the run was halted.
   */
  private awaitWindow(): boolean {
    const { shared, evolver } = this;
    const next = evolver.iterations + 1;
    while (next - this.slowest >= HISTORY) {
      const seq = shared.seq();
      if (shared.stopState() === HALTED) return false;
      let slowest = DEPARTED;
      for (let k = 0; k < shared.islands; k++) slowest = Math.min(slowest, shared.reached(k));
      this.slowest = slowest;
      if (next - slowest < HISTORY) break;
      shared.awaitChange(seq, 100);
    }
    return true;
  }

  /**
   * Lagged, after iteration u's step (no solution in it): stop if a solution at u or earlier
   * is known; else send this iteration's emigrants (every interval), publish u, and take in
   * the migrants each source sent at iteration u - lag, in ascending source order, waiting
   * for a source that has not sent them yet. What enters at u is fixed by the seed alone.
   */
  private iterateLagged(migrating: boolean): StopReason | null {
    const { shared, evolver, task, transport } = this;
    const u = evolver.iterations;
    if (shared.foundEpoch() <= u) return this.finishLagged('other-solved');
    const { interval, lag } = task.run.migration;
    if (migrating && u % interval === 0) this.sendEmigrants(u / interval);
    shared.arrive(this.id, u); // after sending: a receiver woken by this finds the migrants in its port
    const sent = u - lag;
    if (!migrating || sent <= 0 || sent % interval !== 0) return null;
    const messages: (MigrantsMessage | null)[] = [];
    for (let s = 0; s < transport.sources.length; s++) messages.push(this.takeFrom(s, 'iteration', sent, u));
    if (shared.stopState() === HALTED) return null; // the loop head sees it
    if (shared.foundEpoch() <= u) return this.finishLagged('other-solved');
    for (const message of messages) if (message) this.immigrate(message);
    // A solving immigrant counts in the next iteration, as in sync mode (the others may still solve in this one).
    return evolver.solution ? this.foundLagged(u + 1) : null;
  }

  /** Lagged: this island's step at `iteration` solved (or an immigrant did, counted at `iteration`). */
  private foundLagged(iteration: number): StopReason {
    const { evolver, shared } = this;
    this.foundAt = wallClock();
    this.foundAtIteration = evolver.iterations;
    this.foundCut = iteration;
    shared.reportFoundEpoch(iteration);
    return this.finishLagged('solved');
  }

  /**
   * Lagged: this island stops. It leaves (nobody waits for it: every migrant another island
   * can still need was sent), then waits until every island has stopped, so that the first
   * solution's iteration (the cut) is final, and reports its counters at the cut.
   */
  private finishLagged(reason: StopReason): StopReason {
    const { shared, evolver, id } = this;
    shared.depart(id);
    for (;;) {
      const seq = shared.seq();
      if (shared.stopState() === HALTED) return 'stopped';
      let all = true;
      for (let k = 0; k < shared.islands && all; k++) all = shared.reached(k) === DEPARTED;
      if (all) break;
      shared.awaitChange(seq, 100);
    }
    const cut = shared.foundEpoch();
    if (this.foundCut >= 0 && this.foundCut <= cut) return 'solved';
    if (cut > evolver.iterations) return reason; // no solution up to here: max-iterations
    // It reached the cut or ran past it (perhaps to a later solution of its own): what counts
    // is its state after the cut's step, before that iteration's migration.
    this.atCut = this.history!.at(cut);
    return 'other-solved';
  }

  private sendEmigrants(epoch: number): void {
    const { task, evolver, transport } = this;
    if (transport.targets.length === 0) return;
    const genes = evolver.emigrants(task.run.migration.migrants, this.select);
    const count = genes.length / evolver.n;
    transport.send({ type: 'migrants', from: this.id, epoch, iteration: evolver.iterations, count, genes });
    this.migrantsSent += count * transport.targets.length;
  }

  private immigrate(message: MigrantsMessage): void {
    const { evolver } = this;
    const mark = this.immigrants.mark(evolver.population);
    const accepted = evolver.immigrate(message.genes, message.count, this.replace, this.task.run.migration.rejectDuplicates);
    this.immigrants.taken(evolver.population, mark, message.from, message.epoch, evolver.iterations, message.count, accepted);
    this.migrantsReceived += message.count;
    this.migrantsAccepted += accepted;
    this.log.add(message.from, this.id, message.epoch, message.iteration, message.count, accepted);
  }

  /** Async: send, then take in whatever has arrived; never waits. */
  private migrateAsync(): StopReason | null {
    this.sendEmigrants(0);
    const transport = this.transport;
    for (let s = 0; s < transport.sources.length; s++) {
      for (let m = transport.receive(s); m; m = transport.receive(s)) this.immigrate(m);
    }
    return this.evolver.solution ? this.found(0) : null;
  }

  /**
   * Sync, at the barrier ending `epoch`: send, wait until every island has arrived (or
   * left), stop if anyone found a solution in this epoch or earlier, else take in this
   * epoch's immigrants in ascending source order. Everything here is independent of thread
   * timing, which makes sync runs repeatable.
   */
  private migrateSync(epoch: number): StopReason | null {
    const { shared, transport } = this;
    this.sendEmigrants(epoch);
    if (shared.checkpointRequest() !== this.served) shared.proposeCheckpointEpoch(epoch);
    shared.arrive(this.id, epoch);
    if (!shared.awaitBarrier(epoch)) return 'stopped';
    if (shared.foundEpoch() <= epoch) return 'other-solved';
    for (let s = 0; s < transport.sources.length; s++) {
      const message = this.takeFrom(s, 'epoch', epoch, -1);
      if (message) this.immigrate(message);
    }
    // An immigrant that solves arrived after this epoch's barrier: the others learn of it at the next.
    if (this.evolver.solution) return this.found(epoch + 1);
    // Every island got this epoch's migrants and sent none of the next: a clean cut.
    if (shared.checkpointRequest() !== this.served && shared.checkpointEpoch() === epoch) this.snapshot(epoch);
    this.epochStart = this.evolver.iterations; // no island's solution can be earlier than this barrier now
    return null;
  }

  /** Answers the pending checkpoint request with this island's state. */
  private snapshot(epoch: number): void {
    const generation = this.shared.checkpointRequest();
    this.served = generation;
    this.transport.report({
      type: 'snapshot',
      generation,
      snapshot: {
        island: this.id,
        epoch,
        state: this.evolver.snapshot(),
        migrantsSent: this.migrantsSent,
        migrantsAccepted: this.migrantsAccepted,
      },
    });
  }

  /**
   * Source `s`'s message whose `key` is `wanted` (sync: its epoch; lagged: the iteration it
   * was sent at), waited for if needed; null if the source left or sent a later one first
   * (a resumed run), a solution at iteration `cutBy` or earlier is known (lagged: nothing
   * after it counts; -1 in sync mode, where the barrier decides), or the run was halted.
   * A source's messages come in sending order, so older ones are never needed again.
   * postMessage enqueues synchronously, so in sync mode the message is normally already
   * here once the barrier is passed; the wait is only a guard.
   */
  private takeFrom(s: number, key: 'epoch' | 'iteration', wanted: number, cutBy: number): MigrantsMessage | null {
    const { shared, transport } = this;
    const queue = this.pending[s];
    for (;;) {
      const seq = shared.seq();
      // Read "gone" before draining: a source that left had already enqueued all it sent.
      const gone = shared.reached(transport.sources[s]) === DEPARTED;
      for (let m = transport.receive(s); m; m = transport.receive(s)) queue.push(m);
      let at = 0;
      while (at < queue.length && queue[at][key] < wanted) at++;
      queue.splice(0, at);
      if (queue.length > 0) return queue[0][key] === wanted ? queue.shift()! : null;
      if (gone || shared.stopState() === HALTED || shared.foundEpoch() <= cutBy) return null;
      shared.awaitChange(seq, 100);
    }
  }

  private progress(): void {
    const { evolver } = this;
    if (!evolver.solution) this.reportBest();
    const iteration = evolver.iterations;
    const observation = iteration !== this.observed && isScheduledIteration(iteration) ? observe(evolver.population) : undefined;
    if (observation) this.observed = iteration;
    const takeover = evolver.takeoverIteration?.();
    if (takeover !== undefined) this.takeoverSent = takeover;
    this.transport.report({
      type: 'progress',
      island: this.id,
      iteration: evolver.iterations,
      evaluations: evolver.evaluations,
      // A solution found in this step may not be in the population yet.
      bestFitness: evolver.solution ? 0 : evolver.bestFitness(),
      meanFitness: evolver.population.meanFitness(),
      diversity: sampleDiversity(evolver.population),
      migrantsSent: this.migrantsSent,
      migrantsAccepted: this.migrantsAccepted,
      time: wallClock(),
      migrations: this.log.take(),
      survivals: this.immigrants.take(),
      ...(observation ? { observation } : {}),
      ...(takeover !== undefined ? { takenOverAt: takeover } : {}),
    });
    this.nextProgress = performance.now() + this.task.progressIntervalMs;
    this.nextSample = nextSampleIteration(evolver.iterations);
  }

  /**
   * Sends the best chromosome reached so far if its fitness changed since the last one sent
   * (or always, before a failure); never throws over a failure being reported.
   */
  reportBest(failing = false): void {
    try {
      const { evolver } = this;
      const bestFitness = evolver.bestFitness();
      if (!failing && bestFitness === this.bestSent) return;
      this.bestSent = bestFitness;
      // A view of the member, not a copy: the transport encodes it at once (40 MB less garbage a message at N = 10^7).
      const { population: pop, n } = evolver;
      const at = pop.bestSlot() * n;
      this.transport.report({ type: 'best', island: this.id, bestFitness, best: pop.genes.subarray(at, at + n) });
    } catch (error) {
      if (!failing) throw error; // the island's own failure is what the coordinator must hear about
    }
  }

  private fault(kind: 'throw' | 'exit'): void {
    if (kind === 'exit') this.hooks.exit(TEST_FAULT_EXIT_CODE);
    throw new Error(`test fault: island ${this.id} throws at iteration ${this.evolver.iterations}`);
  }

  private report(stopReason: StopReason, stoppedAt = wallClock()): IslandReport {
    const { evolver, atCut } = this;
    // Lagged: an island that ran past the cut reports its state there, and no later solution.
    const solution = atCut ? null : evolver.solution;
    return {
      type: 'report',
      island: this.id,
      iterations: atCut ? atCut.iterations : evolver.iterations,
      evaluations: atCut ? atCut.evaluations : evolver.evaluations,
      bestFitness: atCut ? atCut.bestFitness : solution ? 0 : evolver.bestFitness(),
      best: solution ?? evolver.best(),
      solution,
      foundAtIteration: solution ? this.foundAtIteration : -1,
      foundAt: this.foundAt,
      claimed: this.claimed,
      migrantsSent: atCut ? atCut.migrantsSent : this.migrantsSent,
      migrantsAccepted: atCut ? atCut.migrantsAccepted : this.migrantsAccepted,
      startedAt: this.startedAt,
      stoppedAt,
      stopReason,
      migrations: this.log.take(),
      survivals: this.immigrants.take(),
      migrantsReceived: atCut ? atCut.migrantsReceived : this.migrantsReceived,
      immigrantsChecked: atCut ? atCut.immigrantsChecked : this.immigrants.checked,
      immigrantsSurvived: atCut ? atCut.immigrantsSurvived : this.immigrants.survived,
      ...(evolver.takeoverIteration ? { takenOverAt: evolver.takeoverIteration() } : {}),
      evaluationsFrom: this.epochStart,
      evaluationsAt:
        this.task.run.migration.mode === 'sync'
          ? this.evaluationsAt.slice(0, Math.max(0, evolver.iterations - this.epochStart))
          : new Float64Array(0),
    };
  }
}
