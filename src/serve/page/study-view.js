// The study view: per cell the runs done of planned, the run-length ECDF and ERT with its
// interval as runs finish, the runs going on now and the finished runs whose events are kept.
import { CellOverlay } from './cell-overlay.js';
import { extent, formatNumber, html, islandColour, legend, lineChart, scales, svg, text, ticks } from './draw.js';

export class StudyView {
  constructor(root) {
    this.root = root;
    this.state = null;
  }

  merge(view) {
    this.state = view;
  }

  render() {
    const s = this.state;
    if (!this.parts) this.build();
    this.parts.title.textContent = `study ${s.name}`;
    this.parts.status.textContent = `${s.done} of ${s.planned} runs done${s.finished ? '' : `; ${s.running.length} going on`}`;
    this.parts.status.dataset.done = String(s.done);
    this.table(s);
    // The static report's colour-blind-safe palette (past eight cells, golden-angle hues).
    const colour = islandColour;
    lineChart(this.parts.ecdf, {
      lines: s.cells.map((c, i) => ({ name: c.id, colour: colour(i), step: true, points: c.ecdf })),
      xTitle: 'evaluations to a solution (log scale)',
      yTitle: 'share of runs solved',
      xLog: true,
      yDomain: [0, 1],
    });
    this.ert(s, colour);
    this.overlay.update(s);
    this.runs(s);
  }

  build() {
    this.root.replaceChildren();
    const head = html('header', '', {}, this.root);
    const title = html('h1', '', { id: 'title' }, head);
    const status = html('p', '', { id: 'status' }, head);
    const grid = html('div', '', { class: 'grid' }, this.root);
    const section = (name, id) => {
      const box = html('section', '', { id }, grid);
      html('h2', name, {}, box);
      return html('div', '', {}, box);
    };
    this.parts = {
      title,
      status,
      cells: section('cells', 'cells'),
      ecdf: section('run-length ECDF (evaluations to solution)', 'ecdf'),
      ert: section('ERT with 95% bootstrap interval', 'ert'),
      overlay: section('runs of one cell: best fitness against evaluations', 'overlay'),
      runs: section('runs', 'runs'),
    };
    this.overlay = new CellOverlay(this.parts.overlay);
    // A click on a cell's name in the table overlays its runs.
    this.parts.cells.addEventListener('click', (event) => {
      const row = event.target.closest('tr[data-cell]');
      if (row) this.overlay.pick(row.dataset.cell);
    });
  }

  table(s) {
    const box = this.parts.cells;
    box.replaceChildren();
    const table = html('table', '', {}, html('div', '', { class: 'scroll' }, box));
    const head = html('tr', '', {}, table);
    for (const h of ['cell', 'done', 'solved', 'failed', 'ERT', '95% interval']) html('th', h, {}, head);
    for (const c of s.cells) {
      const row = html('tr', '', { 'data-cell': c.id }, table);
      html('td', c.id, { class: 'name', title: c.id }, row);
      const done = html('td', '', { 'data-done': c.done }, row);
      // The width through the DOM, not a style attribute: the page's CSP allows no inline styles.
      html('span', '', { class: 'bar' }, html('span', '', { class: 'barbox' }, done)).style.width =
        `${Math.round((100 * c.done) / c.planned)}%`;
      done.append(`${c.done}/${c.planned}`);
      html('td', String(c.solved), {}, row);
      html('td', String(c.failed), {}, row);
      html('td', ertText(c, c.ert), {}, row);
      html('td', c.done === 0 ? '–' : `[${ertText(c, c.ertLower)}, ${ertText(c, c.ertUpper)}]`, {}, row);
    }
  }

  ert(s, colour) {
    const box = this.parts.ert;
    box.replaceChildren();
    const rows = s.cells.map((c, i) => ({ c, i })).filter(({ c }) => c.ert !== null);
    if (rows.length === 0) {
      html('p', 'no cell has solved a run yet', { class: 'legend' }, box);
      return;
    }
    const values = rows.flatMap(({ c }) => [c.ert, c.ertLower, c.ertUpper]).filter((v) => v !== null && v > 0);
    const [low, high] = extent(values);
    const [x0, x1] = [low / 1.5, high * 1.5];
    const frame = { width: 420, height: 30 + 18 * rows.length, m: { left: 110, right: 10, top: 6, bottom: 24 } };
    const { sx } = scales(frame, [x0, x1], [0, 1], true);
    const root = svg('svg', { viewBox: `0 0 ${frame.width} ${frame.height}`, role: 'img' }, box);
    for (const t of ticks(x0, x1, 5, true)) text(root, sx(t), frame.height - 8, formatNumber(t), { 'text-anchor': 'middle' });
    rows.forEach(({ c, i }, k) => {
      const y = frame.m.top + 10 + k * 18;
      // The end of a long name (where sweep values differ: ring-1, ring-10), the whole of it in the tooltip.
      const label = text(root, frame.m.left - 4, y + 4, c.id.length > 17 ? `…${c.id.slice(-16)}` : c.id, {
        'text-anchor': 'end',
        'data-cell': c.id,
      });
      svg('title', {}, label).textContent = c.id;
      const high = c.ertUpper === null ? frame.width - frame.m.right : sx(c.ertUpper);
      if (c.ertLower !== null) svg('line', { x1: sx(c.ertLower), x2: high, y1: y, y2: y, stroke: colour(i), 'stroke-width': 2 }, root);
      svg('circle', { cx: sx(c.ert), cy: y, r: 4, fill: colour(i), 'data-cell': c.id }, root);
    });
    legend(
      box,
      rows.map(({ c, i }) => ({ name: c.id, colour: colour(i) })),
      'one row per cell (hover a label for its whole name)',
    );
    html(
      'p',
      'evaluations (log scale); a dot is the ERT, a line its interval; an interval running off the right end has no upper bound (a resample without success)',
      { class: 'legend' },
      box,
    );
  }

  runs(s) {
    const box = this.parts.runs;
    box.replaceChildren();
    html('p', s.running.length === 0 ? 'no run going on' : 'going on now:', { class: 'legend' }, box);
    list(box, s.running, 'running');
    if (s.openable.length > 0) {
      html(
        'p',
        `finished, with events kept (latest ${Math.min(50, s.openable.length)} of ${s.openable.length}):`,
        { class: 'legend' },
        box,
      );
      list(box, s.openable.slice(-50).reverse(), 'finished');
    }
  }
}

function list(box, keys, kind) {
  const ul = html('ul', '', { class: 'runs', 'data-kind': kind }, box);
  for (const key of keys) html('a', key, { href: `?${new URLSearchParams({ run: key })}` }, html('li', '', {}, ul));
}

/** ERT as text: infinite when runs finished and none solved (the server sends no infinity). */
function ertText(cell, value) {
  if (cell.done === 0) return '–';
  return value === null ? '∞' : formatNumber(value);
}
