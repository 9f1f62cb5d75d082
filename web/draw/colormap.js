// colormap.js: the diverging "coolwarm" colour map (Moreland 2009, "Diverging
// Color Maps for Scientific Visualization"; matplotlib's and seaborn's coolwarm,
// the JAX/Flax tutorial's heatmaps), as a 256-entry table, and its inverse so that tests
// can read a value back from a pixel. No DOM: Node imports it too.
//
// Moreland interpolates between blue (59, 76, 192) and red (180, 4, 38) in his
// Msh space (polar CIELAB) through an unsaturated white of magnitude 88, which
// lands on the neutral grey (221, 221, 221) at the middle.

/** Number of table entries: values resolve to (max - min) / (SIZE - 1). */
export const SIZE = 256;

const COOL = [59, 76, 192];
const WARM = [180, 4, 38];
const WHITE_D65 = [0.95047, 1.0, 1.08883];

const toLinear = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const toGamma = (c) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
const labF = (t) => (t > 216 / 24389 ? Math.cbrt(t) : (t * 24389) / 27 / 116 + 16 / 116);
const labFInv = (t) => (t > 6 / 29 ? t ** 3 : ((116 * t - 16) * 27) / 24389);

function rgbToMsh(rgb) {
  const [r, g, b] = rgb.map((c) => toLinear(c / 255));
  const xyz = [
    0.4124564 * r + 0.3575761 * g + 0.1804375 * b,
    0.2126729 * r + 0.7151522 * g + 0.072175 * b,
    0.0193339 * r + 0.119192 * g + 0.9503041 * b,
  ].map((v, i) => labF(v / WHITE_D65[i]));
  const L = 116 * xyz[1] - 16;
  const A = 500 * (xyz[0] - xyz[1]);
  const B = 200 * (xyz[1] - xyz[2]);
  const M = Math.hypot(L, A, B);
  return [M, Math.acos(L / M), Math.atan2(B, A)];
}

function mshToRgb([M, s, h]) {
  const L = M * Math.cos(s);
  const A = M * Math.sin(s) * Math.cos(h);
  const B = M * Math.sin(s) * Math.sin(h);
  const fy = (L + 16) / 116;
  const [x, y, z] = [fy + A / 500, fy, fy - B / 200].map((f, i) => labFInv(f) * WHITE_D65[i]);
  const lin = [
    3.2404542 * x - 1.5371385 * y - 0.4985314 * z,
    -0.969266 * x + 1.8760108 * y + 0.041556 * z,
    0.0556434 * x - 0.2040259 * y + 1.0572252 * z,
  ];
  return lin.map((c) => Math.round(255 * Math.min(1, Math.max(0, toGamma(c)))));
}

// Moreland's hue spin: an unsaturated end takes the hue of the saturated one,
// turned a little so the ramp does not bend through an unrelated hue.
function adjustHue([M, s, h], mUnsat) {
  if (M >= mUnsat) return h;
  const spin = (s * Math.sqrt(mUnsat * mUnsat - M * M)) / (M * Math.sin(s));
  return h > -Math.PI / 3 ? h + spin : h - spin;
}

function interpolate(t) {
  let a = rgbToMsh(COOL);
  let b = rgbToMsh(WARM);
  const mid = Math.max(a[0], b[0], 88);
  if (t < 0.5) {
    b = [mid, 0, 0];
    t *= 2;
  } else {
    a = [mid, 0, 0];
    t = 2 * t - 1;
  }
  if (a[1] < 0.05 && b[1] > 0.05) a = [a[0], a[1], adjustHue(b, a[0])];
  else if (b[1] < 0.05 && a[1] > 0.05) b = [b[0], b[1], adjustHue(a, b[0])];
  return mshToRgb(a.map((v, i) => (1 - t) * v + t * b[i]));
}

/** The table: TABLE[3 * i .. 3 * i + 2] is the RGB colour of t = i / (SIZE - 1). */
export const TABLE = new Uint8ClampedArray(3 * SIZE);
for (let i = 0; i < SIZE; i++) TABLE.set(interpolate(i / (SIZE - 1)), 3 * i);

/** The table index of value v on the scale [min, max] (clamped; NaN maps to the middle). */
export function indexOf(v, min, max) {
  const t = max > min ? (v - min) / (max - min) : 0.5;
  if (!(t === t)) return (SIZE - 1) >> 1;
  return Math.round(Math.min(1, Math.max(0, t)) * (SIZE - 1));
}

/** The [r, g, b] colour of value v on the scale [min, max]. */
export function colorOf(v, min, max) {
  const i = 3 * indexOf(v, min, max);
  return [TABLE[i], TABLE[i + 1], TABLE[i + 2]];
}

/** A CSS colour string for value v on the scale [min, max]. */
export function cssColor(v, min, max) {
  return `rgb(${colorOf(v, min, max).join(' ')})`;
}

/**
 * The value whose colour is nearest (in RGB) to [r, g, b]: the inverse of
 * colorOf, exact to one table step, (max - min) / (SIZE - 1). Returns
 * { value, index, distance } so callers can tell a colour-map pixel from
 * something else (text, a grid line): distance is 0 for an exact table colour.
 */
export function invert(r, g, b, min, max) {
  let best = 0;
  let bestD = Infinity;
  for (let i = 0; i < SIZE; i++) {
    const dr = TABLE[3 * i] - r;
    const dg = TABLE[3 * i + 1] - g;
    const db = TABLE[3 * i + 2] - b;
    const d = dr * dr + dg * dg + db * db;
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return { value: min + (best / (SIZE - 1)) * (max - min), index: best, distance: Math.sqrt(bestD) };
}
