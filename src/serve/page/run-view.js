// The run view: header, topology with migration, per-island series, the archipelago's
// observables, the winner and the stop. State is merged from the server's views (a view with
// a header is a snapshot and starts afresh); drawing happens at most once per animation frame.
import { acceptanceColour, extent, formatNumber, maxOf, html, islandColour, lineChart, svg, text } from './draw.js';
import { colourBar, heatCanvas, heatSvg } from './heat.js';
import { lineageChart } from './lineage.js';
import { cutAt, withLast } from './timeline.js';

/** Above this many islands the heat map is drawn on a canvas, a pixel per pair (an SVG rect each would be too many). */
const SVG_HEAT_LIMIT = 64;
/** Run seconds over which an edge's migrants per second are measured. */
const RATE_WINDOW = 5;

export class RunView {
  constructor(root, key) {
    this.root = root;
    this.key = key;
    this.state = null;
    /** The replay's cursor (an iteration), or null: the whole run. */
    this.cursor = null;
    this.playing = null;
  }

  merge(view) {
    if (view.header)
      this.state = { header: view.header, series: {}, last: {}, edges: new Map(), betweenSeries: [], betweenLast: null, between: null };
    const s = this.state;
    if (s === null) return;
    s.seconds = view.seconds;
    s.islands = view.islands;
    for (const [island, part] of Object.entries(view.series)) {
      s.series[island] = part.reset ? part.points : (s.series[island] ?? []).concat(part.points);
      s.last[island] = part.last;
    }
    for (const flow of view.edges) {
      const key = `${flow[0]}>${flow[1]}`;
      const edge = s.edges.get(key) ?? { samples: [] };
      edge.flow = flow;
      edge.samples.push([flow[5], flow[2]]);
      while (edge.samples.length > 2 && edge.samples[1][0] < flow[5] - RATE_WINDOW) edge.samples.shift();
      s.edges.set(key, edge);
    }
    if (view.between) s.between = view.between;
    if (view.betweenSeries) {
      s.betweenSeries = view.betweenSeries.reset ? view.betweenSeries.points : s.betweenSeries.concat(view.betweenSeries.points);
      s.betweenLast = view.betweenSeries.last;
    }
    if (view.frames) s.frames = view.frames.reset ? view.frames.points : (s.frames ?? []).concat(view.frames.points);
    if (view.lineages) {
      s.lineages = view.lineages.reset ? view.lineages.points : (s.lineages ?? []).concat(view.lineages.points);
      s.lineagesLast = view.lineages.last;
    }
    s.started = view.started;
    s.solution = view.solution;
    s.done = view.done;
  }

  render() {
    const all = this.state;
    if (all === null) return;
    if (!this.parts) this.build(all.header);
    this.timeline(all);
    // Replay: every chart is drawn from the state cut at the timeline's cursor.
    const s = this.cursor === null ? all : cutAt(all, this.cursor);
    this.status(s);
    this.topology(s);
    const series = (column) =>
      Object.entries(s.series).map(([i, points]) => ({
        name: `island ${i}`,
        colour: islandColour(Number(i)),
        points: withLast(points, s.last[i]).map((p) => [p[0], p[column]]),
      }));
    lineChart(this.parts.best, { lines: series(2), xTitle: 'iteration (generations)', yTitle: 'best fitness (fewer is better)' });
    lineChart(this.parts.mean, { lines: series(3), xTitle: 'iteration (generations)', yTitle: 'mean fitness (fewer is better)' });
    lineChart(this.parts.diversity, {
      lines: series(4),
      xTitle: 'iteration (generations)',
      yTitle: 'diversity (share, 0–1)',
      yDomain: [0, 1],
    });
    this.heatMap(s);
    // Lineage: the latest sample, or in a replay the last one at or before the cursor.
    const mix =
      this.cursor === null
        ? s.between && [s.between.iteration, s.between.lineage]
        : withLast(all.lineages ?? [], all.lineagesLast)
            .filter((f) => f[0] <= this.cursor)
            .at(-1);
    lineageChart(this.parts.lineage, mix?.[1], mix?.[0]);
    const b = withLast(s.betweenSeries, s.betweenLast);
    lineChart(this.parts.distinct, {
      lines: [
        { name: 'distinct / sampled', colour: '#4c78a8', points: b.map((p) => [p[0], p[3] > 0 ? p[2] / p[3] : NaN]) },
        { name: 'mean distance', colour: '#f58518', points: b.map((p) => [p[0], p[1]]) },
      ],
      xTitle: 'iteration (generations)',
      yTitle: 'share (0–1)',
      yDomain: [0, 1],
    });
    this.islandTable(s);
  }

  build(header) {
    this.root.replaceChildren();
    const head = html('header', '', {}, this.root);
    if (this.key !== null) html('a', '← the study', { href: './' }, head);
    const m = header.migration;
    html(
      'h1',
      `N = ${header.n} · ${header.islands} island${header.islands === 1 ? '' : 's'} · seed ${header.seed ?? '?'} · ${String(m.mode ?? '?')} migration` +
        ` every ${String(m.interval ?? '?')}, ${String(m.migrants ?? '?')} migrants · topology ${header.topology}${this.key === null ? '' : ` · run ${this.key}`}`,
      { id: 'title' },
      head,
    );
    const p = header.provenance ?? {};
    const tool = header.tool ?? {};
    html(
      'p',
      `${String(tool.name ?? 'nqueens-islands')} ${String(tool.version ?? '')} · commit ${String(p.commit ?? '?').slice(0, 12)}${p.dirty ? ' (dirty)' : ''} · node ${String(p.node ?? '?')} · config ${String(p.configHash ?? '?').slice(0, 12)}`,
      { id: 'tool', 'data-version': String(tool.version ?? '') },
      head,
    );
    const details = html('details', '', {}, head);
    html('summary', 'config and provenance', {}, details);
    html('pre', JSON.stringify({ config: header.config, provenance: header.provenance }, null, 2), {}, details);
    const status = html('p', '', { id: 'status' }, head);
    this.buildTimeline(head);
    const grid = html('div', '', { class: 'grid' }, this.root);
    const section = (title, id) => {
      const box = html('section', '', { id }, grid);
      html('h2', title, {}, box);
      return html('div', '', {}, box);
    };
    this.parts = {
      status,
      topology: section('topology and migration (width: migrants/s, colour: accepted share)', 'topology'),
      best: section('best fitness per island (diagonal collisions: fewer is better, 0 solves)', 'best'),
      mean: section('mean fitness per island (fewer is better)', 'mean'),
      diversity: section('diversity per island', 'diversity'),
      heat: section('distance between islands (latest sample)', 'heat'),
      lineage: section('lineage: each island by island of origin', 'lineage'),
      distinct: section('distinct genotypes and mean distance', 'distinct'),
      islands: section('islands', 'islands'),
    };
  }

  /** The replay's controls (shown once the run is over): play, pause, and a slider over its iterations. */
  buildTimeline(head) {
    const box = html('div', '', { id: 'timeline', hidden: '' }, head);
    this.play = html('button', 'play', { type: 'button', id: 'play' }, box);
    this.scrub = html('input', '', { type: 'range', id: 'scrub', min: 0, max: 0, step: 1, 'aria-label': 'iteration' }, box);
    this.at = html('span', '', { id: 'at' }, box);
    this.scrub.addEventListener('input', () => this.seek(Number(this.scrub.value)));
    this.play.addEventListener('click', () => (this.playing ? this.pause() : this.start()));
  }

  timeline(s) {
    if (!s.done) return;
    this.end = maxOf(
      s.islands.map((i) => i.iteration),
      0,
    );
    const box = this.scrub.parentElement;
    if (box.hasAttribute('hidden')) {
      box.removeAttribute('hidden');
      this.scrub.max = String(this.end);
      this.scrub.value = String(this.end);
    }
    this.at.textContent = `iteration ${this.cursor ?? this.end} of ${this.end}`;
  }

  /** Moves the replay's cursor to iteration `t` (the end: the whole run). */
  seek(t) {
    this.cursor = t >= this.end ? null : Math.max(0, t);
    this.scrub.value = String(this.cursor ?? this.end);
    this.render();
  }

  start() {
    if (this.cursor === null) this.seek(0);
    this.play.textContent = 'pause';
    const step = Math.max(1, Math.round(this.end / 200));
    this.playing = globalThis.setInterval(() => {
      this.seek((this.cursor ?? this.end) + step);
      if (this.cursor === null) this.pause();
    }, 50);
  }

  pause() {
    globalThis.clearInterval(this.playing);
    this.playing = null;
    this.play.textContent = 'play';
  }

  status(s) {
    const most = maxOf(
      s.islands.map((i) => i.iteration),
      0,
    );
    let line = s.started === undefined ? 'starting' : `running: iteration ${most}, ${formatNumber(s.seconds)} s`;
    if (s.replayAt !== undefined) line = `replay: iteration ${s.replayAt} of ${this.end}`;
    const takenOver = s.islands.filter((i) => i.takenOverAt !== null).length;
    if (isTakeover(s) && !s.done) line += `; ${takenOver} of ${s.islands.length} islands taken over`;
    if (s.solution)
      line = `solved by island ${s.solution.island} at iteration ${s.solution.iteration} (${formatNumber(s.solution.seconds)} s)`;
    else if (s.done?.takeover)
      line =
        s.done.takeover.iteration === null
          ? `takeover: not every island was taken over (${takenOver} of ${s.islands.length})`
          : `takeover: the archipelago was taken over at iteration ${s.done.takeover.iteration}`;
    else if (s.done) line = `not solved: best fitness ${s.done.fitness} (fitness: fewer is better, 0 is a solution)`;
    if (s.done) line += `; done after ${formatNumber(s.done.seconds)} s, ${s.done.evaluations} evaluations`;
    this.parts.status.textContent = line;
    this.parts.status.dataset.iteration = String(most);
    this.parts.status.dataset.done = s.done ? 'true' : 'false';
  }

  topology(s) {
    const { islands: count, edges, topology: kind, config } = s.header;
    const size = 360;
    const at = positions(kind, count, config?.topology?.rows, size);
    const root = svg('svg', { viewBox: `0 0 ${size} ${size}`, role: 'img' });
    const rates = new Map([...s.edges].map(([key, e]) => [key, edgeRate(e, s.seconds)]));
    const top = maxOf(rates.values(), 1e-9);
    // Arrowheads show each edge's direction (the line ends at the receiving island's rim).
    const marker = svg(
      'marker',
      {
        id: 'arrow',
        viewBox: '0 0 10 10',
        refX: 10,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        markerUnits: 'userSpaceOnUse',
        orient: 'auto',
      },
      svg('defs', {}, root),
    );
    svg('path', { d: 'M0,0L10,5L0,10z', fill: '#444' }, marker);
    const r = count > 16 ? Math.max(3, 120 / count) : 14;
    const flowing = svg('g', {}, root);
    for (const [from, to] of edges) {
      const key = `${from}>${to}`;
      const edge = s.edges.get(key);
      const [a, b] = [at[from], at[to]];
      if (!a || !b) continue;
      // Each direction drawn beside the other: offset to the left of its travel.
      const [dx, dy] = [b[1] - a[1], a[0] - b[0]];
      const len = Math.hypot(dx, dy) || 1;
      const off = count > 16 ? 1.5 : 3;
      const [ox, oy] = [(dx / len) * off, (dy / len) * off];
      const rate = rates.get(key) ?? 0;
      svg(
        'line',
        {
          x1: a[0] + ox,
          y1: a[1] + oy,
          x2: b[0] + ox - ((b[0] - a[0]) / len) * (r + 1),
          y2: b[1] + oy - ((b[1] - a[1]) / len) * (r + 1),
          'marker-end': count <= 64 ? 'url(#arrow)' : '',
          stroke: edge ? acceptanceColour(edge.flow[3] / Math.max(1, edge.flow[2])) : '#ccc',
          'stroke-width': (0.5 + (rate / top) * (count > 16 ? 2.5 : 6)).toFixed(2),
          'stroke-opacity': 0.8,
          class: 'edge',
          'data-edge': key,
        },
        flowing,
      );
    }
    // Coloured against where the islands started (their first sample's best), so progress shows.
    const firsts = Object.values(s.series).map((points) => points[0]?.[2] ?? NaN);
    const worst = Math.max(
      maxOf(firsts, 1),
      maxOf(
        s.islands.map((i) => i.best),
        1,
      ),
    );
    s.islands.forEach((island, i) => {
      const [x, y] = at[i];
      const g = svg('g', { class: 'node', 'data-island': i }, root);
      const shade = Number.isFinite(island.best) ? island.best / worst : 1;
      const winner = s.solution?.island === i;
      svg(
        'circle',
        {
          cx: x,
          cy: y,
          r,
          fill: island.error ? '#999' : `hsl(${Math.round(120 - shade * 120)}, 60%, 55%)`,
          stroke: winner ? '#000' : '#555',
          'stroke-width': winner ? 3 : 1,
        },
        g,
      );
      const title = svg('title', {}, g);
      title.textContent = `island ${i}: iteration ${island.iteration}, best ${formatNumber(island.best)}, diversity ${formatNumber(island.diversity)}${island.error ? `, failed: ${island.error}` : ''}`;
      if (count <= 32) text(g, x, y + 4, String(i), { 'text-anchor': 'middle' });
    });
    this.parts.topology.replaceChildren(root);
    html(
      'p',
      `node colour: best fitness (green 0 … red ${worst}); ${edges.length} edges; winner ringed in black`,
      { class: 'legend' },
      this.parts.topology,
    );
  }

  heatMap(s) {
    const box = this.parts.heat;
    box.replaceChildren();
    if (!s.between) {
      html('p', 'no sample yet', { class: 'legend' }, box);
      return;
    }
    const m = s.between.distance;
    // The scale runs over the distances observed (off the diagonal), so distances of 0.01 still show.
    const [low, high] = extent(m.flatMap((row, i) => row.filter((_, j) => j !== i)));
    const range = Number.isFinite(low) ? [low, high > low ? high : low + 1e-9] : [0, 1];
    const scale = (d) => (d - range[0]) / (range[1] - range[0]);
    if (m.length > SVG_HEAT_LIMIT) heatCanvas(box, m, scale);
    else heatSvg(box, m, scale);
    colourBar(box, range);
    html(
      'p',
      `${s.between.final ? `the islands' final states (they stopped at different iterations, the last at ${s.between.iteration})` : `iteration ${s.between.iteration} (the latest between-island sample: iterations 0–4, 6, 8, 12, 16, … and the last)`}: mean distance ${formatNumber(s.between.meanDistance)}, ${s.between.distinct} distinct of ${s.between.sampled} sampled; rows and columns are islands`,
      { class: 'legend' },
      box,
    );
  }

  islandTable(s) {
    const box = this.parts.islands;
    box.replaceChildren();
    const scroll = html('div', '', { class: 'scroll' }, box);
    const table = html('table', '', {}, scroll);
    const head = html('tr', '', {}, table);
    const takeover = isTakeover(s);
    const titles = ['island', 'iteration', 'best', 'mean', 'diversity', 'sent', 'accepted', 'immigrants survived'];
    for (const h of takeover ? [...titles, 'taken over at'] : titles) html('th', h, {}, head);
    for (const i of s.islands) {
      const row = html('tr', '', { 'data-island': i.id }, table);
      const survival = i.checked > 0 ? `${i.survived}/${i.checked} (${Math.round((100 * i.survived) / i.checked)}%)` : '–';
      const cells = [
        i.id,
        i.iteration,
        formatNumber(i.best),
        formatNumber(i.mean),
        formatNumber(i.diversity),
        i.migrantsSent,
        i.migrantsAccepted,
        survival,
        ...(takeover ? [i.takenOverAt === null ? '–' : `iteration ${i.takenOverAt}`] : []),
      ];
      for (const c of cells) html('td', String(c), {}, row);
      if (i.error) html('td', `failed: ${i.error}`, {}, row);
    }
  }
}

/** Migrants per second along an edge over the last RATE_WINDOW run seconds (0 once it went quiet). */
function edgeRate(edge, now) {
  const first = edge.samples[0];
  const last = edge.samples[edge.samples.length - 1];
  if (last[0] < now - RATE_WINDOW) return 0;
  if (edge.samples.length < 2 || last[0] <= first[0]) return now > 0 ? last[1] / now : 0;
  return (last[1] - first[1]) / (last[0] - first[0]);
}

/** Where each island goes: a hub in the middle for a star, rows and columns for a grid, else a circle. */
function positions(kind, count, rows, size) {
  const c = size / 2;
  const radius = size / 2 - 24;
  const circle = (i, n, start = 0) => {
    const angle = -Math.PI / 2 + ((i - start) * 2 * Math.PI) / Math.max(1, n);
    return [c + radius * Math.cos(angle), c + radius * Math.sin(angle)];
  };
  if (count === 1) return [[c, c]];
  if (kind === 'star') return Array.from({ length: count }, (_, i) => (i === 0 ? [c, c] : circle(i, count - 1, 1)));
  if (kind === 'grid') {
    let r = Number.isInteger(rows) && rows > 0 && count % rows === 0 ? rows : Math.floor(Math.sqrt(count));
    while (count % r !== 0) r--;
    const cols = count / r;
    const step = (size - 48) / Math.max(cols - 1, r - 1, 1);
    return Array.from({ length: count }, (_, i) => [24 + (i % cols) * step, 24 + Math.floor(i / cols) * step]);
  }
  return Array.from({ length: count }, (_, i) => circle(i, count));
}

/** Whether the run is in takeover mode (its config says so, or an island reported a takeover). */
function isTakeover(s) {
  return s.header.config?.ga?.mode === 'takeover' || s.done?.takeover !== undefined || s.islands.some((i) => i.takenOverAt !== null);
}
