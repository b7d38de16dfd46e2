// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
/**
 * One palette of islands and cells (src/report/figures/palette.ts): the live page's copy
 * (src/serve/page/draw.js) gives every island the same colour; neighbouring islands are apart
 * by a stated CIE76 distance in CIELAB (ΔE*ab), for normal sight and, for Okabe & Ito's eight,
 * for simulated protanopia, deuteranopia and tritanopia; the lineage greys are apart from
 * every island's colour; the report's figures draw islands and origins in it.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { islandColour, OKABE_ITO, OTHER_ORIGINS_COLOUR, UNKNOWN_ORIGIN_COLOUR } from '../src/report/figures/palette.ts';
import { lineageSpec, type LineageRow } from '../src/report/figures/lineage-figure.ts';
import { fitnessSpec } from '../src/report/figures/charts.ts';
import { ROOT } from './paths.ts';

type Rgb = [number, number, number];

// The page's plain browser module, as the browser gets it (no types: imported by URL).
const page = (await import(pathToFileURL(path.join(ROOT, 'src', 'serve', 'page', 'draw.js')).href)) as {
  OKABE_ITO: string[];
  OTHER_ORIGINS_COLOUR: string;
  UNKNOWN_ORIGIN_COLOUR: string;
  islandColour(i: number): string;
};

/** '#rrggbb' or 'hsl(h, s%, l%)' as sRGB in 0..1. */
function rgb(colour: string): Rgb {
  const hex = /^#([0-9a-f]{6})$/i.exec(colour);
  if (hex) return [0, 2, 4].map((k) => parseInt(hex[1].slice(k, k + 2), 16) / 255) as Rgb;
  const m = /^hsl\((\d+), (\d+)%, (\d+)%\)$/.exec(colour);
  assert.ok(m, `a colour the test reads: ${colour}`);
  const [h, s, l] = [Number(m[1]), Number(m[2]) / 100, Number(m[3]) / 100];
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [f(0), f(8), f(4)];
}

const linear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

/** Linear RGB to CIELAB (D65). */
function lab([r, g, b]: Rgb): Rgb {
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/** Machado, Oliveira & Fernandes (2009) full-severity simulation matrices, on linear RGB. */
const VISION: Record<string, number[][] | null> = {
  normal: null,
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};

/** ΔE*ab (CIE76) between two colours as seen with `vision`. */
function distance(a: string, b: string, vision = 'normal'): number {
  const seen = (c: string): Rgb => {
    const lin = rgb(c).map(linear) as Rgb;
    const m = VISION[vision];
    if (!m) return lab(lin);
    return lab(m.map((row) => Math.min(1, Math.max(0, row[0] * lin[0] + row[1] * lin[1] + row[2] * lin[2]))) as Rgb);
  };
  const [p, q] = [seen(a), seen(b)];
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

/** The least distance over `pairs` as seen with `vision`. */
function least(pairs: [string, string][], vision = 'normal'): number {
  return Math.min(...pairs.map(([a, b]) => distance(a, b, vision)));
}

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);
const neighbours = (n: number): [string, string][] => upTo(n - 1).map((i) => [islandColour(i), islandColour(i + 1)]);

describe('the islands palette', () => {
  it('the live page gives every island (and cell) the colour the report gives it', () => {
    assert.deepEqual(page.OKABE_ITO, OKABE_ITO);
    for (let i = 0; i < 1024; i++) assert.equal(page.islandColour(i), islandColour(i), `island ${i}`);
    assert.equal(page.OTHER_ORIGINS_COLOUR, OTHER_ORIGINS_COLOUR);
    assert.equal(page.UNKNOWN_ORIGIN_COLOUR, UNKNOWN_ORIGIN_COLOUR);
  });

  it('neighbouring islands are at least ΔE*ab 40 apart, of the first 64 (the hue wheel of 0.10 gave islands 2 and 3 of 8 two greens 20.9 apart)', () => {
    assert.ok(least(neighbours(64)) >= 40, `least ${least(neighbours(64)).toFixed(1)}`);
  });

  it("Okabe & Ito's eight (islands 0-7): neighbours >= 40 apart for protanopia and deuteranopia (simulated), >= 15 for tritanopia; any two >= 25 (>= 15 simulated red-green blind)", () => {
    const pairs = upTo(8).flatMap((i) =>
      upTo(8)
        .filter((j) => j > i)
        .map((j): [string, string] => [islandColour(i), islandColour(j)]),
    );
    for (const vision of ['protanopia', 'deuteranopia']) {
      assert.ok(least(neighbours(8), vision) >= 40, `${vision}: ${least(neighbours(8), vision).toFixed(1)}`);
      assert.ok(least(pairs, vision) >= 15, `${vision}, any two: ${least(pairs, vision).toFixed(1)}`);
    }
    assert.ok(least(neighbours(8), 'tritanopia') >= 15);
    assert.ok(least(pairs) >= 25, `any two: ${least(pairs).toFixed(1)}`);
  });

  it("lineage's greys (other islands, unknown) are >= 25 from each other and from each of the first 64 islands", () => {
    assert.ok(distance(OTHER_ORIGINS_COLOUR, UNKNOWN_ORIGIN_COLOUR) >= 25);
    for (const i of upTo(64))
      for (const grey of [OTHER_ORIGINS_COLOUR, UNKNOWN_ORIGIN_COLOUR])
        assert.ok(distance(islandColour(i), grey) >= 25, `island ${i} and ${grey}`);
  });

  it("the report's figures draw islands and origins in it: per-island lines and the lineage figure", () => {
    const rows: LineageRow[] = [
      { iteration: 0, island: 0, origin: 'island 10', share: 0.5 },
      { iteration: 0, island: 0, origin: 'island 2', share: 0.25 },
      { iteration: 0, island: 0, origin: 'other islands', share: 0.125 },
      { iteration: 0, island: 0, origin: 'unknown', share: 0.125 },
    ];
    type Scaled = { spec: { encoding: { color: { scale: { domain: string[]; range: string[] } } } } };
    assert.deepEqual((lineageSpec(rows) as unknown as Scaled).spec.encoding.color.scale, {
      domain: ['island 2', 'island 10', 'other islands', 'unknown'],
      range: [islandColour(2), islandColour(10), OTHER_ORIGINS_COLOUR, UNKNOWN_ORIGIN_COLOUR],
    });
    const points = [3, 0, 9].map((island) => ({ island, x: 1, bestFitness: 4, diversity: null }));
    const lines = fitnessSpec(points, 'iterations', 'best') as unknown as {
      encoding: { color: { scale: { domain: number[]; range: string[] } } };
    };
    assert.deepEqual(lines.encoding.color.scale, { domain: [0, 3, 9], range: [islandColour(0), islandColour(3), islandColour(9)] });
  });
});
