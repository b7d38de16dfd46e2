/** A cut at no iteration: `cut()` while no island holds a solution, and a ledger's cut while the budget lasts. */
export const NO_CUT = 0x7fffffff;
