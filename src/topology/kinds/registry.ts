/**
 * The one table of topology kinds. Adding a kind is one module in this folder (see
 * `define.ts`) and one line here; the config schema, the JSON Schema, the CLI flags and
 * `--help` read this list. The default kind is TOPOLOGY_DEFAULTS.kind (defaults.ts).
 */
import { registry } from '../../schema/plug-in.ts';
import { edgesTopology } from './edges.ts';
import { fullyConnectedTopology } from './fully-connected.ts';
import { gridTopology } from './grid.ts';
import { hypercubeTopology } from './hypercube.ts';
import { noneTopology } from './none.ts';
import { randomTopology } from './random.ts';
import { ringBiTopology } from './ring-bi.ts';
import { ringTopology } from './ring.ts';
import { starTopology } from './star.ts';

export const TOPOLOGY_REGISTRY = registry('topology', [
  ringTopology,
  ringBiTopology,
  fullyConnectedTopology,
  starTopology,
  gridTopology,
  hypercubeTopology,
  randomTopology,
  noneTopology,
  edgesTopology,
] as const);
