/**
 * Why a study's hosts do not serve it although they are there: hosts with a cluster key this
 * coordinator lacks drop its invitations (no invited host ever starts a run), or every host
 * here has said it cannot run a run of it (too little memory for N). Either way the study
 * would wait for ever; it stops instead, saying why. A host that cannot run a run is not
 * invited again: the run goes to a host that can.
 */

/** How long a coordinator without a key, among signed hosts, waits for an invited host to start a run (as `solve` waits for its hosts to accept). */
export const UNHEARD_MS = 10_000;

export class Unserved {
  private heard = false;
  /** Host id: why it cannot run a run of the study. */
  private readonly cannot = new Map<string, string>();
  private readonly since: number;

  constructor(private readonly now: () => number = Date.now) {
    this.since = now();
  }

  /** An invited host started a run: it hears this coordinator. */
  started(): void {
    this.heard = true;
  }

  /** Host `id` cannot run a run of the study (`why`, one line): it is not invited again. */
  refused(id: string, why: string): void {
    this.cannot.set(id, why);
  }

  invitable(id: string): boolean {
    return !this.cannot.has(id);
  }

  /** Why the study cannot go on with the hosts here (their ids), or null; `keyHint` is the endpoint's. */
  check(hosts: Iterable<string>, keyHint: string): string | null {
    if (!this.heard && this.now() - this.since > UNHEARD_MS && keyHint !== '')
      return `no invited host started a run within ${UNHEARD_MS / 1000} s${keyHint}`;
    const here = [...hosts];
    if (this.cannot.size > 0 && here.length > 0 && here.every((id) => this.cannot.has(id)))
      return `no host here can run the study's runs (${[...new Set(this.cannot.values())].join('; ')})`;
    return null;
  }
}
