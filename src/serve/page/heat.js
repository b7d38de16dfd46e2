// The heat map of distances between islands: SVG cells with island labels (up to 64 islands),
// a canvas of pixels above that, and its colour bar over the range observed.
import { formatNumber, heatColour, heatRgb, html, svg, text } from './draw.js';

/** The distance matrix as SVG cells with island numbers along both sides (up to 32 islands; a tooltip per cell). */
export function heatSvg(box, m, scale) {
  const size = 300;
  const pad = 18;
  const cell = (size - pad) / m.length;
  const root = svg('svg', { viewBox: `0 0 ${size} ${size}`, role: 'img' }, box);
  m.forEach((row, i) => {
    if (m.length <= 32) {
      text(root, pad - 3, pad + (i + 0.5) * cell + 4, String(i), { 'text-anchor': 'end', class: 'island-label' });
      text(root, pad + (i + 0.5) * cell, pad - 4, String(i), { 'text-anchor': 'middle', class: 'island-label' });
    }
    row.forEach((d, j) => {
      const at = { x: pad + j * cell, y: pad + i * cell, width: cell + 0.2, height: cell + 0.2 };
      const rect = svg('rect', { ...at, class: 'cell', fill: heatColour(scale(d)) }, root);
      svg('title', {}, rect).textContent = `islands ${i} and ${j}: ${formatNumber(d)}`;
    });
  });
}

/** The distance matrix as pixels on a canvas (large archipelagos): one pixel per pair, scaled up by CSS. */
export function heatCanvas(box, m, scale) {
  const n = m.length;
  const canvas = html('canvas', '', { width: n, height: n, class: 'heat', 'data-size': n }, box);
  const context = canvas.getContext('2d');
  const image = context.createImageData(n, n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const [r, g, b] = heatRgb(scale(m[i][j]));
      const at = 4 * (i * n + j);
      image.data[at] = r;
      image.data[at + 1] = g;
      image.data[at + 2] = b;
      image.data[at + 3] = 255;
    }
  context.putImageData(image, 0, 0);
}

/** The heat map's colour bar: its scale from the least to the greatest distance observed. */
export function colourBar(box, [low, high]) {
  const root = svg('svg', { viewBox: '0 0 300 44', role: 'img', class: 'colour-bar' }, box);
  const steps = 20;
  for (let k = 0; k < steps; k++) svg('rect', { x: 30 + k * 12, y: 2, width: 12.2, height: 10, fill: heatColour(k / (steps - 1)) }, root);
  text(root, 30, 25, formatNumber(low), { 'text-anchor': 'start' });
  text(root, 270, 25, formatNumber(high), { 'text-anchor': 'end' });
  text(root, 150, 40, 'distance (share of genes that differ)', { 'text-anchor': 'middle' });
}
