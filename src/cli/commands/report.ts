import type { Argv, CommandModule } from 'yargs';
import { lastValue } from '../../schema/flag-value.ts';
import { X_AXES } from '../../report/figures/x-axis.ts';
import { SERVE_OPTIONS } from '../../serve/flags.ts';
import type { ReportArgs } from './report-run.ts';

export const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report [dir]',
  describe: 'Summarise a study folder: per-cell table, paired tests against the baseline, CSV, markdown and an HTML page with plots',
  builder: (y: Argv) =>
    y
      .positional('dir', { type: 'string', describe: 'result folder of `experiment` (not with --run FILE)' })
      .option('baseline', {
        type: 'string',
        array: true,
        requiresArg: true,
        describe: "compare with this cell instead of the file's baseline: KEY=VALUE (repeatable)",
      })
      .option('html', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        describe: 'write a self-contained HTML report with plots to FILE',
      })
      .option('csv', { type: 'string', requiresArg: true, coerce: lastValue, describe: 'write the summary table as CSV to FILE' })
      .option('quiet', {
        alias: 'q',
        type: 'boolean',
        default: false,
        describe: 'the summary (stdout) and errors only: no notes or "wrote FILE" lines on stderr',
      })
      .option('markdown', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        describe: 'write the report (headline, tables, notes) as GitHub markdown to FILE',
      })
      .option('ioh', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        describe: 'export the runs for IOHanalyzer to the missing or empty folder DIR (IOHprofiler .info/.dat, two-column)',
      })
      .option('figures', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        describe: 'write every study figure as SVG with its data as CSV to the missing or empty folder DIR',
      })
      .option('json', { type: 'boolean', default: false, describe: 'print the summary as JSON instead of a table' })
      .option('run', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        describe:
          "with a study folder: the run for the fitness plot, CELL@SEED (needs --events data); alone: a file from solve --trace FILE (or a study's events/*.jsonl), reported by itself",
      })
      .options(SERVE_OPTIONS)
      .option('x-axis', {
        type: 'string',
        requiresArg: true,
        coerce: lastValue,
        default: 'iterations',
        describe: `x axis of the progress plots: ${X_AXES.join(' | ')}`,
      })
      .option('paper-table1', {
        type: 'boolean',
        default: false,
        describe: "also print our iterations beside the paper's Table 1 (for paper-table1.yaml studies)",
      })
      .example('$0 report results/topology --html report.html --csv summary.csv', 'table, CSV and page')
      .example('$0 report results/migration-interval --baseline migration.interval=100', 'another baseline')
      .example('$0 report results/topology --ioh results/topology-ioh', 'the runs for IOHanalyzer')
      .example(
        '$0 report --run trace.jsonl --html run.html',
        'one run, from solve -n 64 --trace trace.jsonl',
      ) as unknown as Argv<ReportArgs>,
  handler: async (args) => (await import('./report-run.ts')).report(args),
};
