/**
 * The one table of emigrant selections. Adding one is a module in this folder (see
 * `../define.ts`) and one line here; the config schema, the JSON Schema, the CLI flags and
 * `--help` read this list. The default is POLICY_DEFAULTS.emigrantSelection (../defaults.ts).
 */
import { registry } from '../../schema/plug-in.ts';
import { bestSelection } from './best.ts';
import { randomSelection } from './random.ts';
import { tournamentSelection } from './tournament.ts';

export const EMIGRANT_SELECTION_REGISTRY = registry('emigrant selection', [bestSelection, randomSelection, tournamentSelection] as const);
