/** `cut()` while no island holds a solution (coordination.ts), and the budget ledger's cut while none is set (budget-ledger.ts). */
export const NO_CUT = 0x7fffffff;
