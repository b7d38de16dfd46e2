// The runs of one study cell overlaid (as Optuna Dashboard and TensorBoard overlay trials):
// best fitness against evaluations, one curve per run from the exact trajectory its record
// keeps, each ending at its own last evaluation (its budget). An unsolved run is censored (it
// says only that a solution needed more): its curve is dashed and ends in a cross.
import { formatNumber, html, islandColour, lineChart, maxOf } from './draw.js';

/** How often the runs going on in the chosen cell are asked for again. */
const REFRESH_MS = 2000;

export class CellOverlay {
  constructor(box) {
    const label = html('label', 'cell ', {}, box);
    this.select = html('select', '', { id: 'cell-pick' }, label);
    this.chart = html('div', '', { class: 'overlay-chart' }, box);
    this.note = html('p', 'choose a cell (or click its name in the table) to overlay its runs', { class: 'legend' }, box);
    this.select.addEventListener('change', () => this.pick(this.select.value));
    this.cells = '';
    this.id = '';
    this.asked = '';
    this.timer = null;
  }

  /** Shows cell `id`'s runs (from the cells table or the list). */
  pick(id) {
    this.id = id;
    this.select.value = id;
    this.asked = '';
    if (this.study) this.update(this.study);
  }

  /** A new study view: the list of cells, and the chosen cell's runs again when they changed. */
  update(study) {
    this.study = study;
    const ids = study.cells.map((c) => c.id);
    if (ids.join('\n') !== this.cells) {
      this.cells = ids.join('\n');
      this.select.replaceChildren(html('option', '— choose a cell —', { value: '' }));
      for (const id of ids) html('option', id, { value: id }, this.select);
      // A study of one cell has nothing to choose.
      if (this.id === '' && ids.length === 1) this.id = ids[0];
      this.select.value = this.id;
    }
    const cell = study.cells.find((c) => c.id === this.id);
    if (!cell) return;
    const going = study.running.filter((key) => key.slice(0, key.lastIndexOf('@')) === this.id).length;
    const asked = `${this.id}\n${cell.done}\n${going}`;
    if (asked !== this.asked) this.fetch(asked);
    // Runs going on move without a new study view: ask again while there are any.
    clearTimeout(this.timer);
    if (going > 0 && !study.finished) this.timer = setTimeout(() => this.fetch(`${asked}\n${Date.now()}`), REFRESH_MS);
  }

  async fetch(asked) {
    this.asked = asked;
    const id = this.id;
    try {
      const response = await fetch(`cell?${new URLSearchParams({ id })}`);
      if (response.ok && id === this.id) this.draw(await response.json());
    } catch {
      // The server stopped: the page keeps what it drew (as its stream does).
    }
  }

  draw(data) {
    const colour = islandColour;
    const lines = data.runs.map((r, i) => ({
      name: `seed ${r.seed}: ${r.censored ? `censored (${r.ended}), best ${r.fitness} at` : 'solved at'} ${formatNumber(r.evaluations)} evaluations`,
      colour: colour(i),
      step: true,
      points: r.curve,
      dash: r.censored ? '5 3' : undefined,
      end: r.censored ? 'cross' : 'dot',
    }));
    data.running.forEach((r, k) => {
      if (r.best === null) return;
      const name = `seed ${r.seed}: going on, best ${r.best} at ${formatNumber(r.evaluations)} evaluations`;
      lines.push({ name, colour: colour(data.runs.length + k), points: [[r.evaluations, r.best]], end: 'dot' });
    });
    const ys = lines.flatMap((l) => l.points.map((p) => p[1]));
    lineChart(this.chart, {
      lines,
      xTitle: 'evaluations (log scale)',
      yTitle: 'best fitness (fewer is better)',
      xLog: true,
      yDomain: [0, maxOf(ys, 1)],
      many: 'one curve per run, coloured round the hue wheel by seed (hover a curve for its seed)',
    });
    this.chart.dataset.cell = data.cell;
    this.chart.dataset.runs = String(data.runs.length);
    const failed = data.failed.length === 0 ? '' : ` ${data.failed.length} failed run(s) (seed ${data.failed.join(', ')}) not drawn.`;
    this.note.textContent =
      `${data.runs.length} of ${data.planned} runs finished. Each curve is one run's best fitness at each improvement, from its record's exact trajectory, ending at its own last evaluation; a dot: solved there; dashed, ending in a cross: censored (not solved within its budget).` +
      `${data.running.length > 0 ? ' A lone dot: a run going on, where it is now.' : ''}${failed}`;
  }
}
