// Each view, read back from its canvas in Chromium: sampled pixels invert
// through the colour map (web/draw/colormap.js) to the values of the formulas,
// evaluated here in JS doubles (or by posenc in Node for the other layouts),
// within the colour map's resolution. One page load: each test sets the
// controls it needs, as a user would (the URL round trip is state.test.js's). The notebook panel's text must equal
// the PyTorch notebook's printed numbers.
import { readFileSync } from 'node:fs';
import { invert, SIZE } from '../../web/draw/colormap.js';
import { posenc, vaswani } from '../helpers.js';
import { launch, openPage, readPixels, cellSpan, setControls, frames } from './chromium.js';

const nb = JSON.parse(readFileSync(new URL('../fixtures/notebook-outputs.json', import.meta.url)));

let env;
let page;
beforeAll(async () => {
  await posenc.init();
  env = await launch();
  ({ page } = await openPage(env.browser, env.url));
});
afterAll(() => env?.close());


/** A grid of sample pixels over a plot, `n` per axis, avoiding the very edges. */
const grid = (w, h, n) => {
  const pts = [];
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) pts.push([Math.floor(((a + 0.5) * w) / n), Math.floor(((b + 0.5) * h) / n)]);
  return pts;
};

/**
 * Reads `n` x `n` pixels of a heatmap view and compares each inverted colour
 * with expected(rows [r0, r1), cols [c0, c1)) (the mean over the cells the
 * pixel covers). Returns the worst error in colour-map steps.
 */
async function worstHeatmapError(view, expected, n = 9) {
  const probe = await readPixels(page, view, []);
  const pts = grid(probe.plot.w, probe.plot.h, n);
  const r = await readPixels(page, view, pts);
  const step = (r.max - r.min) / (SIZE - 1);
  let worst = 0;
  pts.forEach(([x, y], i) => {
    const [R, G, B, A] = r.pixels[i];
    expect(A).toBe(255);
    const inv = invert(R, G, B, r.min, r.max);
    expect(inv.distance).toBe(0); // an exact table colour: no smoothing, no colour management
    const e = expected(cellSpan(y, r.rows, r.plot.h), cellSpan(x, r.cols, r.plot.w));
    worst = Math.max(worst, Math.abs(inv.value - e) / step);
  });
  return { worst, r };
}

const mean = ([r0, r1], [c0, c1], f) => {
  let s = 0;
  for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) s += f(r, c);
  return s / ((r1 - r0) * (c1 - c0));
};

describe('the table heatmap', () => {
  test('default (JAX figure: 50 positions x 64 dims): every sampled cell is Vaswani to half a colour step', async () => {
    const { worst, r } = await worstHeatmapError('table', (rows, cols) => mean(rows, cols, (p, k) => vaswani(p, k, 64)), 12);
    expect([r.rows, r.cols, r.min, r.max]).toEqual([50, 64, -1, 1]);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-4);
  });

  test('largest (8192 x 2048): each pixel is the mean of the cells it covers', async () => {
    await setControls(page, 'table', { d: 2048, len: 8192, base: 10000, layout: 'interleaved' });
    const { worst, r } = await worstHeatmapError('table', (rows, cols) => mean(rows, cols, (p, k) => vaswani(p, k, 2048)), 7);
    expect([r.rows, r.cols]).toEqual([8192, 2048]);
    expect(r.plot.w).toBeLessThan(2048); // really downsampled
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-3);
  });

  test('tensor2tensor layout, odd dModel, base 500: the values posenc computes in Node', async () => {
    await setControls(page, 'table', { d: 37, len: 90, base: 500, layout: 'tensor2tensor' });
    const t = posenc.sinusoidal({ length: 90, dModel: 37, base: 500, layout: 'tensor2tensor' });
    const { worst } = await worstHeatmapError('table', (rows, cols) => mean(rows, cols, (p, k) => t[p * 37 + k]), 10);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-4);
  });
});

describe('the dimension curves', () => {
  test("labml's figure: at sampled positions each dimension's line passes through its value", async () => {
    const probe = await readPixels(page, 'curves', []);
    const { plot, xMin, xMax, yMin, yMax, colors } = probe;
    const legend = (await page.$eval('[data-view="curves"] canvas.plot', (c) => c.dataset.legend)).split(',').map(Number);
    expect([xMin, xMax, colors.length]).toEqual([0, 99, 4]);
    const dims = [4, 5, 6, 7];
    const hex = (c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
    let checked = 0;
    const ps = [];
    for (let p = 3; p < 99; p += 8) ps.push(p);
    const xOf = (p) => Math.round(((p - xMin) / (xMax - xMin)) * plot.w);
    const { pixels: all } = await readPixels(page, 'curves', ps.flatMap((p) => Array.from({ length: plot.h }, (_, y) => [xOf(p), y])));
    ps.forEach((p, n) => {
      const x = xOf(p);
      const ys = dims.map((k) => (1 - (vaswani(p, k, 20) - yMin) / (yMax - yMin)) * plot.h);
      const pixels = all.slice(n * plot.h, (n + 1) * plot.h);
      dims.forEach((k, j) => {
        // skip a point another line crosses: the later line may cover it
        if (ys.some((y, o) => o !== j && Math.abs(y - ys[j]) < 6)) return;
        // and a point under the legend box
        const [lx, ly, lw, lh] = legend;
        if (plot.x + x >= lx && plot.x + x < lx + lw && plot.y + ys[j] >= ly - 3 && plot.y + ys[j] < ly + lh + 3) return;
        const want = hex(colors[j]);
        const near = pixels
          .map((px, y) => ({ y, d: Math.hypot(px[0] - want[0], px[1] - want[1], px[2] - want[2]) }))
          .filter((c) => c.d < 60)
          .map((c) => Math.abs(c.y - ys[j]));
        expect(Math.min(...near)).toBeLessThanOrEqual(2);
        checked++;
      });
    });
    expect(checked).toBeGreaterThan(30);
  });
});

describe('the notebook, live', () => {
  const numbers = (text) => (text.match(/-?\d+\.\d*/g) ?? []).map(Number);
  const tensorText = (name) => page.$eval(`[data-tensor="${name}"] pre`, (el) => el.textContent);

  test("every tensor equals the PyTorch notebook's printed numbers (4 decimals)", async () => {
    expect(numbers(await tensorText('even_i'))).toEqual(nb.even_i);
    expect(numbers(await tensorText('position'))).toEqual(nb.position);
    const evenText = await tensorText('even_PE');
    expect(numbers(evenText.split('\n').slice(0, -1).join('\n'))).toEqual(nb.even_PE);
    expect(evenText).toContain(`torch.Size([${nb.even_PE_shape.join(', ')}])`);
    expect(numbers((await tensorText('odd_PE')).split('\n').slice(0, -1).join('\n'))).toEqual(nb.odd_PE);
    expect(numbers(await tensorText('PE'))).toEqual(nb.PE);
    // 464.1590 in the notebook is torch's float32 arithmetic; posenc prints the exact 10000^(2/3)
    const den = numbers(await tensorText('denominator'));
    expect(den.slice(0, 2)).toEqual(nb.denominator.slice(0, 2));
    expect(den[2]).toBe(464.1589);
    expect(Math.pow(10000, 2 / 3).toFixed(4)).toBe('464.1589');
  });

  test('printed character for character as torch prints it', async () => {
    expect(await tensorText('even_i')).toBe('tensor([0., 2., 4.])');
    const pe = (await tensorText('PE')).split('\n');
    expect(pe[0]).toBe('tensor([[ 0.0000,  1.0000,  0.0000,  1.0000,  0.0000,  1.0000],');
    expect(pe[1]).toBe('        [ 0.8415,  0.5403,  0.0464,  0.9989,  0.0022,  1.0000],');
    expect(pe[9]).toBe('        [ 0.4121, -0.9111,  0.4057,  0.9140,  0.0194,  0.9998]])');
    expect((await tensorText('position')).split('\n')[1]).toBe('        [1.],');
  });

  test('other sizes follow the formula, and switch to scientific notation as torch does', async () => {
    await setControls(page, 'notebook', { d: 16, len: 4 });
    const pe = await tensorText('PE');
    expect(pe).toContain('e+00');
    const values = numbers(pe.replace(/(\d)e([+-]\d+)/g, '$1E$2')); // keep mantissas only for the count
    expect(values.length).toBe(4 * 16);
    const parsed = pe.match(/-?\d\.\d{4}e[+-]\d\d/g).map(Number);
    parsed.forEach((v, i) => expect(Math.abs(v - vaswani(Math.floor(i / 16), i % 16, 16))).toBeLessThanOrEqual(0.5e-4 * Math.max(1, Math.abs(v))));
  });
});

describe('relative positions', () => {
  test('the JAX matrix j - i + length: every sampled cell inverts to its exact integer', async () => {
    const { worst, r } = await worstHeatmapError('relative', ([i0], [j0]) => j0 - i0 + 50, 12);
    expect([r.rows, r.cols, r.min, r.max]).toEqual([50, 50, 1, 99]);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-9);
  });

  test('a given shift moves the whole scale', async () => {
    await setControls(page, 'relative', { len: 30, shift: -5 });
    const { worst, r } = await worstHeatmapError('relative', ([i0], [j0]) => j0 - i0 - 5, 10);
    expect([r.min, r.max]).toEqual([-34, 24]);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-9);
  });
});

describe('why it works', () => {
  test('PE(p) . PE(q) from the formula, to half a colour step; the scale tops at d/2', async () => {
    const dot = (p, q) => {
      let s = 0;
      for (let k = 0; k < 64; k++) s += vaswani(p, k, 64) * vaswani(q, k, 64);
      return s;
    };
    const { worst, r } = await worstHeatmapError('similarity', ([p], [q]) => dot(p, q), 12);
    expect(Math.abs(r.max - 32)).toBeLessThan(1e-4);
    expect(r.min).toBe(-r.max);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-3);
  });
});

describe('images: positions in two dimensions', () => {
  // MAE's 2-D table (posenc.h): [sin x w | cos x w | sin y w | cos y w], w_k = base^(-k / (d / 4))
  const sincos = (d, base) => (p, q) => {
    let s = 0;
    for (let k = 0; k < d / 4; k++) {
      const w = base ** (-k / (d / 4));
      s += Math.cos((p[1] - q[1]) * w) + Math.cos((p[0] - q[0]) * w); // sin a sin b + cos a cos b per axis
    }
    return s;
  };
  // 2-D RoPE: sum over pairs of cos(theta(p) - theta(q)); the row takes f_{2k} (both forms), the column
  // f_{2k+1} (Pixtral) or f_{2k} (axial), f_i = base^(-2i/d)
  const rope2d = (d, base, form) => (p, q) => {
    let s = 0;
    for (let k = 0; k < d / 4; k++) {
      const row = base ** (-(2 * (2 * k)) / d);
      const col = base ** (-(2 * (form === 'pixtral' ? 2 * k + 1 : 2 * k)) / d);
      s += Math.cos((p[0] - q[0]) * row) + Math.cos((p[1] - q[1]) * col);
    }
    return s;
  };

  test('2-D sin-cos (default: 14 x 14 patches, d 64, p = row 4, column 9): PE(p) . PE(q) to half a colour step', async () => {
    const score = sincos(64, 10000);
    const { worst, r } = await worstHeatmapError('grid2d', (rows, cols) => mean(rows, cols, (y, x) => score([4, 9], [y, x])), 12);
    expect([r.rows, r.cols, r.min, r.max]).toEqual([14, 14, -32, 32]);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-3);
  });

  test.each(['pixtral', 'axial'])('2-D RoPE (%s), 20 x 30 patches, d 32: the relative score of every patch', async (form) => {
    await setControls(page, 'grid2d', { scheme: form, h: 20, w: 30, d: 32, y: 11, x: 3 });
    const score = rope2d(32, 10000, form);
    const { worst, r } = await worstHeatmapError('grid2d', (rows, cols) => mean(rows, cols, (y, x) => score([11, 3], [y, x])), 12);
    expect([r.rows, r.cols, r.min, r.max]).toEqual([20, 30, -16, 16]);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-3);
  });

  test('hovering a patch makes it p: the controls follow and the picture is the scores around it', async () => {
    await setControls(page, 'grid2d', { scheme: 'sincos', h: 10, w: 16, d: 32, y: 0, x: 0 });
    const { plot } = await readPixels(page, 'grid2d', []);
    const dpr = await page.$eval('[data-view="grid2d"] canvas.plot', (c) => c.width / c.getBoundingClientRect().width);
    // the centre of the cell (row 7, column 12), in CSS pixels of the canvas
    const at = (i, n, len) => ((i + 0.5) * len) / n;
    await page.hover('[data-view="grid2d"] canvas.plot', { position: { x: (plot.x + at(12, 16, plot.w)) / dpr, y: (plot.y + at(7, 10, plot.h)) / dpr } });
    await page.waitForFunction(() => document.querySelector('[data-view="grid2d"] [name="y"]').value === '7');
    await frames(page);
    expect(await page.$eval('[data-view="grid2d"] [name="x"]', (e) => e.value)).toBe('12');
    expect(await page.evaluate(() => new URLSearchParams(location.search).get('grid2d.y'))).toBe('7');
    const score = sincos(32, 10000);
    const { worst } = await worstHeatmapError('grid2d', (rows, cols) => mean(rows, cols, (y, x) => score([7, 12], [y, x])), 10);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-3);
    expect(await page.$eval('#grid2d-readout', (e) => e.textContent)).toMatch(/^p = \(row 7, column 12\) · q = \(row 7, column 12\) · score 16\.0000/);
    await page.mouse.move(0, 0);
  });

  test('M-RoPE: the positions of text, an image and text, three rows', async () => {
    // get_rope_index for [text a] [image t x (h/2) x (w/2)] [text b], written out for this case
    const expected = ({ before, t, gh, gw, after }) => {
      const [h, w] = [gh / 2, gw / 2];
      const rows = [[], [], []];
      for (let i = 0; i < before; i++) rows.forEach((r) => r.push(i));
      for (let f = 0; f < t; f++) for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) [f, y, x].forEach((v, a) => rows[a].push(before + v));
      const next = before + Math.max(t, h, w);
      for (let i = 0; i < after; i++) rows.forEach((r) => r.push(next + i));
      return rows;
    };
    for (const c of [{ before: 6, t: 1, gh: 8, gw: 12, after: 5 }, { before: 3, t: 2, gh: 4, gw: 6, after: 7 }]) {
      await setControls(page, 'mrope', c);
      const rows = expected(c);
      const { worst, r } = await worstHeatmapError('mrope', ([a0, a1], cols) => mean([a0, a1], cols, (a, i) => rows[a][i]), 14);
      expect([r.rows, r.cols, r.min, r.max]).toEqual([3, rows[0].length, 0, Math.max(...rows.flat())]);
      expect(worst).toBeLessThanOrEqual(0.5 + 1e-9);
    }
  });
});

describe('T5 and DeBERTa buckets', () => {
  test('T5 (32 buckets, max distance 128, bidirectional): every sampled cell is its bucket', async () => {
    const b = posenc.t5Buckets({ queryLength: 256, numBuckets: 32, maxDistance: 128, bidirectional: true });
    const { worst, r } = await worstHeatmapError('t5', (rows, cols) => mean(rows, cols, (i, j) => b[i * 256 + j]), 12);
    expect([r.rows, r.min, r.max]).toEqual([256, 0, 31]);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-9);
  });

  test('T5 decoder buckets (causal, 16 buckets): likewise', async () => {
    await setControls(page, 't5', { len: 64, buckets: 16, maxDist: 40, bidir: false });
    const b = posenc.t5Buckets({ queryLength: 64, numBuckets: 16, maxDistance: 40, bidirectional: false });
    const { worst } = await worstHeatmapError('t5', (rows, cols) => mean(rows, cols, (i, j) => b[i * 64 + j]), 12);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-9);
  });

  test('DeBERTa-v3 (256, 512) over 512 positions: each pixel is the mean bucket of its cells', async () => {
    const b = posenc.debertaBuckets({ queryLength: 512, bucketSize: 256, maxPosition: 512 });
    const { worst, r } = await worstHeatmapError('deberta', (rows, cols) => mean(rows, cols, (q, k) => b[q * 512 + k]), 12);
    let m = 0;
    for (const v of b) m = Math.max(m, Math.abs(v));
    expect([r.rows, r.min, r.max]).toEqual([512, -m, m]);
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-6);
  });
});

describe('ALiBi', () => {
  // the paper's get_slopes for a power-of-two head count
  const slope = (h, n, maxBias = 8) => 2 ** (-(maxBias * (h + 1)) / n);

  async function checkPanels(heads, L, causal) {
    const geo = await page.$eval('[data-view="alibi"] canvas.plot', (c) => ({ panels: JSON.parse(c.dataset.panels), min: Number(c.dataset.min), max: Number(c.dataset.max) }));
    expect(geo.panels.length).toBe(heads);
    const bg = causal ? [255, 255, 255] : null; // light theme: masked cells show the plot background
    let worst = 0;
    let masked = 0;
    for (let h = 0; h < heads; h++) {
      const [px, py, pw, ph] = geo.panels[h];
      const pts = grid(pw, ph, 6).map(([x, y]) => [px + x, py + y]);
      const { pixels } = await readPixels(page, 'alibi', pts, { relative: false });
      pts.forEach(([x, y], n) => {
        const [i] = cellSpan(y - py, L, ph);
        const [j] = cellSpan(x - px, L, pw);
        const [R, G, B] = pixels[n];
        if (causal && j > i) {
          expect([R, G, B]).toEqual(bg);
          masked++;
          return;
        }
        const inv = invert(R, G, B, geo.min, geo.max);
        expect(inv.distance).toBe(0);
        const expected = -slope(h, heads) * Math.abs(i - j);
        worst = Math.max(worst, Math.abs(inv.value - expected) / ((geo.max - geo.min) / (SIZE - 1)));
      });
    }
    if (causal) expect(masked).toBeGreaterThan(0);
    expect(geo.max).toBeCloseTo(slope(0, heads) * (L - 1), 5);
    return worst;
  }

  test('8 heads, causal, 32 positions: -m (i - j) below the diagonal, masked above; slopes listed', async () => {
    expect(await checkPanels(8, 32, true)).toBeLessThanOrEqual(0.5 + 1e-6);
    const text = await page.$eval('[data-view="alibi"] .slopes', (el) => el.textContent);
    for (let h = 0; h < 8; h++) expect(text).toContain(`${h}: 2${'⁻'}`);
    expect(text).toContain('= 0.00390625'); // 2^-8, the last head
  });

  test('4 heads, not causal: -m |i - j| everywhere', async () => {
    await setControls(page, 'alibi', { heads: 4, len: 20, causal: false });
    expect(await checkPanels(4, 20, false)).toBeLessThanOrEqual(0.5 + 1e-6);
  });
});

describe('RoPE scaling variants', () => {
  test("each variant's running-mean line passes through the score of the formula", async () => {
    const d = 128;
    const N = 8192;
    const { VARIANTS } = await import('../../web/views/rope.js');
    // the formula: q = k = 1 rotated at distance D gives (2 a^2 / d) sum_i cos(D invFreq_i);
    // the bold line is its centred mean over D +- round(N / 100) (truncated at the ends)
    const h = Math.round(N / 100);
    const expected = VARIANTS.map((v) => {
      let scaling = v.scaling(2048, 4);
      if (v.id === 'dynamic') scaling = { ...scaling, seqLength: N };
      const { invFreq, attentionFactor: a } = posenc.ropeFrequencies({ rotaryDim: d, base: 10000, scaling });
      const score = (D) => {
        let s = 0;
        for (const f of invFreq) s += Math.cos(D * f);
        return (2 * a * a * s) / d;
      };
      const mean = [];
      return (D) => {
        if (mean[D] === undefined) {
          let s = 0;
          for (let e = Math.max(0, D - h); e <= Math.min(N - 1, D + h); e++) s += score(e);
          mean[D] = s / (Math.min(N - 1, D + h) - Math.max(0, D - h) + 1);
        }
        return mean[D];
      };
    });
    const probe = await readPixels(page, 'rope', []);
    const { plot, xMin, xMax, yMin, yMax, colors } = probe;
    expect([xMin, xMax]).toEqual([0, N - 1]);
    const solid = colors; // the bold running means (the faint exact lines share their colours)
    expect(solid.length).toBe(VARIANTS.length);
    const legend = (await page.$eval('[data-view="rope"] canvas.plot', (c) => c.dataset.legend)).split(',').map(Number);
    const hex = (c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
    let checked = 0;
    const xs = [];
    for (let x = 5; x < plot.w - 5; x += 23) xs.push(x);
    const { pixels: all } = await readPixels(page, 'rope', xs.flatMap((x) => Array.from({ length: plot.h }, (_, y) => [x, y])));
    xs.forEach((x, n) => {
      const D = Math.round(xMin + (x / plot.w) * (xMax - xMin));
      const ys = expected.map((e) => (1 - (e(D) - yMin) / (yMax - yMin)) * plot.h);
      const pixels = all.slice(n * plot.h, (n + 1) * plot.h);
      ys.forEach((y, j) => {
        if (ys.some((o, k) => k !== j && Math.abs(o - y) < 8)) return;
        const [lx, ly, lw, lh] = legend;
        if (plot.x + x >= lx && plot.x + x < lx + lw && plot.y + y >= ly - 3 && plot.y + y < ly + lh + 3) return;
        const want = hex(solid[j]);
        const near = pixels
          .map((px, py) => ({ py, dist: Math.hypot(px[0] - want[0], px[1] - want[1], px[2] - want[2]) }))
          .filter((c) => c.dist < 50)
          .map((c) => Math.abs(c.py - y));
        expect(Math.min(...near)).toBeLessThanOrEqual(3);
        checked++;
      });
    });
    expect(checked).toBeGreaterThan(40);
  });
});
