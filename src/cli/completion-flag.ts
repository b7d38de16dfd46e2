/** The word yargs' completion script passes first (its own module: every start reads it, only completion loads the rest). */
export const COMPLETION_FLAG = '--get-yargs-completions';
