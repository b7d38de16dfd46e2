/**
 * The one table of GA modes. Adding one is a module in this folder (see `define.ts`) and
 * one line here; the config's `ga` section, the JSON Schema, `--mode` and `--help` read this
 * list. The default (a file without `ga.mode`) is GA_MODE_DEFAULTS.mode (defaults.ts).
 */
import { registry } from '../../schema/plug-in.ts';
import { hybridMode } from './hybrid.ts';
import { paperMode } from './paper.ts';
import { takeoverMode } from './takeover.ts';

export const GA_MODE_REGISTRY = registry('GA mode', [paperMode, hybridMode, takeoverMode] as const);
