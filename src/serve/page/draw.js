// SVG drawing for the live view: plain DOM calls, no framework. Every text from the run
// (config values, cell names) goes in as a text node or an attribute value, never as markup.
const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes (set one by one: values are never parsed as markup). */
export function svg(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

/** An HTML element with text content and attributes. */
export function html(name, text = '', attributes = {}, parent = null) {
  const node = document.createElement(name);
  if (text !== '') node.textContent = text;
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

export function text(parent, x, y, content, attributes = {}) {
  const node = svg('text', { x, y, ...attributes }, parent);
  node.textContent = content;
  return node;
}

/** Scales for a chart of `width` x `height` with margins `m`: x maps [x0, x1] (log10 when `log`), y maps [y0, y1] upwards. */
export function scales({ width, height, m }, [x0, x1], [y0, y1], log = false) {
  const fx = log ? (x) => Math.log10(x) : (x) => x;
  return {
    sx: (x) => m.left + ((fx(x) - fx(x0)) / (fx(x1) - fx(x0) || 1)) * (width - m.left - m.right),
    sy: (y) => height - m.bottom - ((y - y0) / (y1 - y0 || 1)) * (height - m.top - m.bottom),
  };
}

/** Okabe & Ito's colour-blind-safe palette, as the static report uses it (src/report/figures/palette.ts). */
export const OKABE_ITO = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7', '#000000'];

/**
 * Island (or cell) `i`'s colour: the report's palette, line for line (src/report/figures/palette.ts;
 * test/palette.test.ts holds them equal): Okabe & Ito's eight, then golden-angle hues.
 */
export function islandColour(i) {
  if (i < OKABE_ITO.length) return OKABE_ITO[i];
  return `hsl(${Math.round((i * 137.508) % 360)}, 65%, ${i % 2 === 0 ? 36 : 56}%)`;
}

/** Lineage: "other islands" and an unknown origin (palette.ts). */
export const OTHER_ORIGINS_COLOUR = '#c8c8c8';
export const UNKNOWN_ORIGIN_COLOUR = '#7f7f7f';

/** From red (0) through amber to green (1): a migration's acceptance. */
export function acceptanceColour(share) {
  const s = Number.isFinite(share) ? Math.min(1, Math.max(0, share)) : 0;
  return `hsl(${Math.round(s * 120)}, 70%, 42%)`;
}

/** From white (0) to dark blue (1): a distance in the heat map. */
export function heatColour(value) {
  const v = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
  return `hsl(215, 60%, ${Math.round(97 - v * 62)}%)`;
}

/**
 * The least and greatest finite values of `values` ([Infinity, -Infinity] when none), by a
 * loop: spreading a large array into Math.min/Math.max overflows the call stack (a 1024-island
 * run's chart holds half a million points).
 */
export function extent(values) {
  let low = Infinity;
  let high = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < low) low = v;
    if (v > high) high = v;
  }
  return [low, high];
}

/** The greatest finite value of `values`, and at least `floor`. */
export function maxOf(values, floor) {
  return Math.max(floor, extent(values)[1]);
}

/** heatColour's colour as [r, g, b] 0..255, for pixels. */
export function heatRgb(value) {
  const v = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
  return hslToRgb(215, 0.6, (97 - v * 62) / 100);
}

function hslToRgb(h, s, l) {
  const a = s * Math.min(l, 1 - l);
  const f = (n) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

export function formatNumber(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  if (!Number.isFinite(value)) return '∞';
  const a = Math.abs(value);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return value.toExponential(2);
  return Number.isInteger(value) ? String(value) : value.toPrecision(4).replace(/\.?0+$/, '');
}

export function ticks(low, high, count, log) {
  if (log) {
    const out = [];
    for (let e = Math.floor(Math.log10(low)); e <= Math.ceil(Math.log10(high)); e++) out.push(10 ** e);
    return out.filter((t) => t >= low && t <= high);
  }
  if (high === low) return [low];
  const step = 10 ** Math.floor(Math.log10((high - low) / count));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => (high - low) / s <= count) ?? step * 10;
  const out = [];
  for (let t = Math.ceil(low / nice) * nice; t <= high + nice * 1e-9; t += nice) out.push(Number(t.toPrecision(12)));
  return out;
}

/**
 * A line chart into `parent` (replaced): `lines` are { points: [[x, y], ...], colour, name?,
 * step?, dash? (an SVG dash array), end? ('dot' or 'cross': a mark at the last point) }; axes
 * from the data unless given. Each line's path says where it ends (data-end: its last x).
 */
export function lineChart(parent, { lines, xTitle, yTitle, xLog = false, yDomain = null, width = 420, height = 200, many = undefined }) {
  parent.replaceChildren();
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img' }, parent);
  const m = { left: 48, right: 16, top: 8, bottom: 32 };
  const xs = lines.flatMap((l) => l.points.map((p) => p[0])).filter((x) => Number.isFinite(x) && (!xLog || x > 0));
  const ys = lines.flatMap((l) => l.points.map((p) => p[1])).filter(Number.isFinite);
  if (xs.length === 0) {
    text(root, width / 2, height / 2, 'no data yet', { 'text-anchor': 'middle' });
    return root;
  }
  let [x0, x1] = extent(xs);
  if (x0 === x1) [x0, x1] = xLog ? [x0 / 2, x1 * 2] : [x0 - 1, x1 + 1];
  let [y0, y1] = yDomain ?? extent(ys);
  if (y0 === y1) [y0, y1] = [y0 - 1, y1 + 1];
  const { sx, sy } = scales({ width, height, m }, [x0, x1], [y0, y1], xLog);
  const axes = svg('g', { stroke: '#999', 'stroke-width': 1 }, root);
  svg('line', { x1: m.left, y1: height - m.bottom, x2: width - m.right, y2: height - m.bottom }, axes);
  svg('line', { x1: m.left, y1: m.top, x2: m.left, y2: height - m.bottom }, axes);
  for (const t of ticks(x0, x1, 5, xLog)) text(root, sx(t), height - m.bottom + 12, formatNumber(t), { 'text-anchor': 'middle' });
  for (const t of ticks(y0, y1, 4, false)) text(root, m.left - 4, sy(t) + 4, formatNumber(t), { 'text-anchor': 'end' });
  text(root, (m.left + width) / 2, height - 4, xTitle, { 'text-anchor': 'middle' });
  text(root, 10, m.top + (height - m.bottom) / 2, yTitle, {
    'text-anchor': 'middle',
    transform: `rotate(-90 10 ${m.top + (height - m.bottom) / 2})`,
  });
  const thin = lines.length > 16 ? 0.8 : 1.6;
  for (const line of lines) {
    const pts = line.points.filter((p) => Number.isFinite(p[1]) && (!xLog || p[0] > 0));
    if (pts.length === 0) continue;
    const d = pts
      .map((p, i) => {
        const [x, y] = [sx(p[0]).toFixed(1), sy(p[1]).toFixed(1)];
        return i === 0 ? `M${x},${y}` : line.step ? `H${x}V${y}` : `L${x},${y}`;
      })
      .join('');
    const [ex, ey] = pts[pts.length - 1];
    const path = svg(
      'path',
      {
        d,
        fill: 'none',
        stroke: line.colour,
        'stroke-width': line.width ?? thin,
        'data-series': line.name ?? '',
        'data-end': ex,
        ...(line.dash ? { 'stroke-dasharray': line.dash } : {}),
      },
      root,
    );
    svg('title', {}, path).textContent = line.name ?? '';
    if (line.end) endMark(root, line.end, sx(ex), sy(ey), line.colour);
  }
  legend(parent, lines, many);
  return root;
}

/** A mark at a line's end: a dot (it got there) or a cross (it was cut there: censored). */
function endMark(root, kind, x, y, colour) {
  if (kind === 'dot') return svg('circle', { cx: x, cy: y, r: 3, fill: colour, class: 'end-dot' }, root);
  const d = `M${x - 4},${y - 4}L${x + 4},${y + 4}M${x - 4},${y + 4}L${x + 4},${y - 4}`;
  return svg('path', { d, stroke: colour, 'stroke-width': 2, fill: 'none', class: 'end-cross' }, root);
}

/** Most keys a legend lists one by one; more lines get one line of words (each line's name is its tooltip). */
const LEGEND_KEYS = 16;

/** A chart's legend under it: a swatch and the name of each line, or for many lines what their colours mean. */
export function legend(
  parent,
  lines,
  many = 'one line per island, coloured round the hue wheel by island number (hover a line for its island)',
) {
  const box = html('div', '', { class: 'keys legend' }, parent);
  if (lines.length > LEGEND_KEYS) {
    box.textContent = many;
    return box;
  }
  for (const line of lines) {
    const key = html('span', '', { class: 'key' }, box);
    const mark = svg('svg', { width: 14, height: 10, viewBox: '0 0 14 10', class: 'swatch' }, key);
    if (line.dash) svg('line', { x1: 0, x2: 14, y1: 5, y2: 5, stroke: line.colour, 'stroke-width': 3, 'stroke-dasharray': '4 2' }, mark);
    else svg('rect', { x: 0, y: 3, width: 14, height: 4, fill: line.colour }, mark);
    key.append(line.name ?? '');
  }
  return box;
}
