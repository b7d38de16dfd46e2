/**
 * Memory of what peers said, bounded: anyone on the broker can send a new name in every
 * message, so nothing remembered per name may grow without end, nor a log line per name.
 */

/** A set of at most `max` entries; the oldest goes when a new one comes. */
export class BoundedSet {
  private readonly entries = new Set<string>();
  constructor(private readonly max: number) {}
  has(entry: string): boolean {
    return this.entries.has(entry);
  }
  add(entry: string): void {
    if (this.entries.has(entry)) return;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.values().next().value!);
    this.entries.add(entry);
  }
}

/** Says one line per name, for the first `max` names; then one line that further ones are only counted, then nothing. */
export class SayOnce {
  private readonly said = new Set<string>();
  private full = false;
  constructor(
    private readonly max: number,
    private readonly log: (line: string) => void,
  ) {}
  say(name: string, line: string): void {
    if (this.full || this.said.has(name)) return;
    if (this.said.size >= this.max) {
      this.full = true;
      this.log(`more than ${this.max} such senders; further ones are only counted`);
      return;
    }
    this.said.add(name);
    this.log(line);
  }
}
