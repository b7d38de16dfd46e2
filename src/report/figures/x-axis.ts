/** What a progress chart's x axis counts (`report --x-axis`); apart from the charts, so `--help` loads no vega. */
export const X_AXES = ['iterations', 'evaluations', 'seconds'] as const;
export type XAxis = (typeof X_AXES)[number];
