/** A study record's trajectory is the run's (archipelago/trajectory.ts, combined from the islands' course logs). */
export type { Trajectory } from '../archipelago/trajectory.ts';
