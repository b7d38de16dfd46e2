import { BudgetLedger, ledgerBytes } from './budget-ledger.ts';
import { DEPARTED, HALTED, NO_CUT, RUNNING, SOLVED, type Coordination, type IslandCoordination, type StopState } from './coordination.ts';

/**
 * Coordination in shared memory: one Int32Array over a SharedArrayBuffer that every island
 * of a host and its main thread map. The stop is here (a busy loop checks it with a cheap
 * Atomics.load and never has to yield), and so is the sync epoch barrier.
 *
 * Layout: [STOP, WINNER, CUT, SEQ, CKPT_REQUEST, CKPT_EPOCH, reached[0..I), iterations[0..I)].
 * `reached[i]` is the last barrier island i arrived at: -1 before it is built, 0 at the
 * start gate (every island starts iterating together), then sync epochs 1, 2, ...
 * A run launched on one host may carry an evaluation ledger after these (budget-ledger.ts).
 */
const STOP = 0;
const WINNER = 1;
const CUT = 2;
const SEQ = 3;
/** The coordinator's latest checkpoint request (a generation number, 0 = none yet). */
const CKPT_REQUEST = 4;
/** Sync: the epoch barrier at which the current request is served, agreed by the first island to see it. */
const CKPT_EPOCH = 5;
const HEADER = 6;

/** The checkpoint epoch while none is agreed. */
const NO_EPOCH = 0x7fffffff;

type WaitAsync = (a: Int32Array, index: number, value: number) => { async: false; value: string } | { async: true; value: Promise<string> };

export class SharedMemoryCoordination implements Coordination, IslandCoordination {
  private readonly a: Int32Array;
  /** The evaluation ledger, if this memory has one (`create` with `ledger`: every island of the run maps it). */
  readonly ledger: BudgetLedger | null;

  /** Maps `sab` (made by `create`, shared with the islands' threads). */
  constructor(
    readonly sab: SharedArrayBuffer,
    readonly islands: number,
  ) {
    const words = HEADER + 2 * islands;
    this.a = new Int32Array(sab, 0, words);
    this.ledger =
      sab.byteLength >= words * 4 + ledgerBytes(islands)
        ? new BudgetLedger(
            sab,
            words * 4,
            islands,
            (k) => this.reached(k) === DEPARTED,
            () => this.wake(),
          )
        : null;
  }

  /**
   * Fresh memory for one run of `islands` islands; with `ledger` (all of them map this
   * memory: one host) room for the evaluation ledger a budget in a repeatable mode uses.
   */
  static create(islands: number, ledger = false): SharedMemoryCoordination {
    const words = HEADER + 2 * islands;
    const sab = new SharedArrayBuffer(words * 4 + (ledger ? ledgerBytes(islands) : 0));
    const a = new Int32Array(sab, 0, words);
    a[WINNER] = -1;
    a[CUT] = NO_CUT;
    a[CKPT_EPOCH] = NO_EPOCH;
    a.fill(-1, HEADER, HEADER + islands); // below the start gate (epoch 0)
    const made = new SharedMemoryCoordination(sab, islands);
    made.ledger?.clear();
    return made;
  }

  /** The run's islands all see this memory (Coordination.keepsLedger). */
  get keepsLedger(): boolean {
    return this.ledger !== null;
  }

  stopState(): StopState {
    return Atomics.load(this.a, STOP) as StopState;
  }

  /** Async: the one island that moves WINNER from -1 to its id wins; it then raises the stop. */
  claim(island: number): boolean {
    if (Atomics.compareExchange(this.a, WINNER, -1, island) !== -1) return false;
    Atomics.compareExchange(this.a, STOP, RUNNING, SOLVED);
    this.wake();
    return true;
  }

  /** Coordinator's stop; returns false if the run was already stopping. */
  halt(): boolean {
    const was = Atomics.compareExchange(this.a, STOP, RUNNING, HALTED);
    this.wake();
    return was === RUNNING;
  }

  /** The run's cut: the earliest point (sync: epoch; lagged: iteration) at which some island holds a solution (lowers, never raises). */
  reportCut(at: number): void {
    let current = Atomics.load(this.a, CUT);
    while (at < current) {
      const seen = Atomics.compareExchange(this.a, CUT, current, at);
      if (seen === current) break;
      current = seen;
    }
  }

  cut(): number {
    return Atomics.load(this.a, CUT);
  }

  /** Coordinator: asks every island for a snapshot; returns the request's generation. */
  requestCheckpoint(): number {
    // Reset the previous generation's agreed epoch first: an island seeing the new generation
    // must find it free. The first is free from creation, and islands whose tasks have it out
    // from their start (checkpointFrom) may already have agreed on its epoch, even passed it,
    // before the coordinator gets here: a reset then split the islands over two epochs.
    if (Atomics.load(this.a, CKPT_REQUEST) > 0) Atomics.store(this.a, CKPT_EPOCH, NO_EPOCH);
    return Atomics.add(this.a, CKPT_REQUEST, 1) + 1;
  }

  checkpointRequest(): number {
    return Atomics.load(this.a, CKPT_REQUEST);
  }

  /**
   * Sync: an island about to arrive at `epoch` with a request pending proposes to serve it
   * there. The first proposal wins; since nobody passes a barrier before all have arrived,
   * every island sees the same answer once past it.
   */
  proposeCheckpointEpoch(epoch: number): void {
    Atomics.compareExchange(this.a, CKPT_EPOCH, NO_EPOCH, epoch);
  }

  checkpointEpoch(): number {
    return Atomics.load(this.a, CKPT_EPOCH);
  }

  setIterations(island: number, iterations: number): void {
    Atomics.store(this.a, HEADER + this.islands + island, iterations);
  }

  iterations(island: number): number {
    return Atomics.load(this.a, HEADER + this.islands + island);
  }

  /** Island `island` has sent its migrants of `epoch` and waits at that barrier. */
  arrive(island: number, epoch: number): void {
    Atomics.store(this.a, HEADER + island, epoch);
    this.wake();
  }

  /** Island `island` stopped: nobody waits for it any more. Idempotent (also done by the coordinator for a dead worker). */
  depart(island: number): void {
    Atomics.store(this.a, HEADER + island, DEPARTED);
    this.wake();
  }

  reached(island: number): number {
    return Atomics.load(this.a, HEADER + island);
  }

  /**
   * Whether every island has reached `epoch` or departed (true), the coordinator halted the
   * run (false), or neither yet (null). Every change to the state a waiter looks at bumps
   * SEQ and notifies, so a thread that sleeps on `awaitChange` never misses one.
   */
  barrier(epoch: number): boolean | null {
    if (Atomics.load(this.a, STOP) === HALTED) return false;
    return this.allReached(epoch) ? true : null;
  }

  /** The change counter: read it before checking a condition, then `awaitChange(seq, ...)`. */
  seq(): number {
    return Atomics.load(this.a, SEQ);
  }

  /** Async: the island that claimed the run, or -1. */
  winner(): number {
    return Atomics.load(this.a, WINNER);
  }

  /** Wakes every waiter, as any change does (a relay that posted migrants into a port calls it). */
  notify(): void {
    this.wake();
  }

  /** Resolves once the shared state changed since `seq` was read (for a main thread, which must not block). */
  async changed(seq: number): Promise<void> {
    // Atomics.waitAsync is in Node 20 but not in the ES2022 lib the project compiles against.
    const waited = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(this.a, SEQ, seq);
    if (waited.async) await waited.value;
  }

  /** Waits until shared state changed since `seq` was read, or `timeoutMs` passed. */
  awaitChange(seq: number, timeoutMs: number): void {
    Atomics.wait(this.a, SEQ, seq, timeoutMs);
  }

  private allReached(epoch: number): boolean {
    for (let i = 0; i < this.islands; i++) if (Atomics.load(this.a, HEADER + i) < epoch) return false;
    return true;
  }

  private wake(): void {
    Atomics.add(this.a, SEQ, 1);
    Atomics.notify(this.a, SEQ);
  }
}
