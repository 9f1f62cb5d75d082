// sinusoidal2d: MAE / DiT / diffusers tables (tests/fixtures/reference.json,
// written from facebookresearch/mae util/pos_embed.py and diffusers
// embeddings.py get_2d_sincos_pos_embed) and the formula in double on large grids.
import { readFileSync } from 'node:fs';
import { posenc, maxError, thrown, ULP1 } from '../helpers.js';

const ref = JSON.parse(readFileSync(new URL('../fixtures/reference.json', import.meta.url)));

beforeAll(() => posenc.init());

/** The formula of posenc.h in double: row (cls) + y * width + x = [sin x w | cos x w | sin y w | cos y w]. */
function formula({ height, width, dModel, base = 10000, clsToken = false, baseSize, interpolationScale = 1 }) {
  const q = dModel / 4;
  const coordinate = (i, n) => (baseSize === undefined ? i : i / (n / baseSize)) / interpolationScale;
  return (idx) => {
    let row = Math.floor(idx / dModel);
    const k = idx % dModel;
    if (clsToken) {
      if (row === 0) return 0;
      row -= 1;
    }
    const part = Math.floor(k / q); // 0 sin x, 1 cos x, 2 sin y, 3 cos y
    const p = part < 2 ? coordinate(row % width, width) : coordinate(Math.floor(row / width), height);
    const w = Math.pow(base, -(k % q) / q);
    return part % 2 ? Math.cos(p * w) : Math.sin(p * w);
  };
}

describe('the reference tables', () => {
  test.each(ref.sinusoidal2d.map((c) => [`${c.source} ${c.height}x${c.width} dModel ${c.dModel}${c.clsToken ? ' cls' : ''}${c.baseSize ? ` baseSize ${c.baseSize}` : ''}`, c]))(
    '%s',
    (_name, { source, table, ...options }) => {
      const t = posenc.sinusoidal2d(options);
      expect(t.length).toBe(table.length * options.dModel);
      const flat = table.flat();
      expect(maxError(t, (i) => flat[i])).toBeLessThanOrEqual(ULP1);
    },
  );

  test('the first half of a row holds x, the column (MAE meshgrid(grid_w, grid_h))', () => {
    const t = posenc.sinusoidal2d({ height: 2, width: 3, dModel: 8 });
    const row = (y, x) => Array.from(t.subarray((y * 3 + x) * 8, (y * 3 + x + 1) * 8));
    // patch (y = 0, x = 1): sin(1) first; patch (y = 1, x = 0): sin(1) in the second half
    expect(row(0, 1)[0]).toBe(Math.fround(Math.sin(1)));
    expect(row(0, 1)[4]).toBe(0);
    expect(row(1, 0)[0]).toBe(0);
    expect(row(1, 0)[4]).toBe(Math.fround(Math.sin(1)));
  });
});

test('within 2^-23 of the formula on large grids, scaled coordinates and other bases', () => {
  for (const options of [
    { height: 64, width: 48, dModel: 64 },
    { height: 14, width: 14, dModel: 768, clsToken: true }, // ViT-B/16 at 224 px
    { height: 3, width: 2100, dModel: 20, base: 500000 }, // past two recurrence anchors per row
    { height: 40, width: 24, dModel: 32, baseSize: 32, interpolationScale: 2 }, // PixArt-style
    { height: 7, width: 9, dModel: 8, interpolationScale: 0.25 },
  ]) {
    const t = posenc.sinusoidal2d(options);
    expect(maxError(t, formula(options))).toBeLessThanOrEqual(ULP1);
  }
});

test('large coordinates: the last patches of a 1 x 2^20 strip and of a 2^20 x 1 column', () => {
  for (const options of [{ height: 1, width: 2 ** 20, dModel: 4 }, { height: 2 ** 20, width: 1, dModel: 8, base: 100 }]) {
    const t = posenc.sinusoidal2d(options);
    const from = (2 ** 20 - 4096) * options.dModel; // the last 4096 patches: after 1023 recurrence anchors
    const f = formula(options);
    expect(maxError(t.subarray(from), (i) => f(from + i))).toBeLessThanOrEqual(ULP1);
  }
});

test('each half is the 1-D concatenated table of its coordinate (dModel / 2 wide, base^(-2k/(dModel/2)))', () => {
  const [height, width, d] = [5, 7, 24];
  const t = posenc.sinusoidal2d({ height, width, dModel: d });
  const xs = posenc.sinusoidal({ length: width, dModel: d / 2, layout: 'concatenated' });
  const ys = posenc.sinusoidal({ length: height, dModel: d / 2, layout: 'concatenated' });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const row = t.subarray((y * width + x) * d, (y * width + x + 1) * d);
      expect(Array.from(row.subarray(0, d / 2))).toEqual(Array.from(xs.subarray(x * (d / 2), (x + 1) * (d / 2))));
      expect(Array.from(row.subarray(d / 2))).toEqual(Array.from(ys.subarray(y * (d / 2), (y + 1) * (d / 2))));
    }
  }
});

test('clsToken prepends a row of zeros; the other rows are unchanged; empty grids', () => {
  const a = posenc.sinusoidal2d({ height: 3, width: 4, dModel: 8 });
  const b = posenc.sinusoidal2d({ height: 3, width: 4, dModel: 8, clsToken: true });
  expect(Array.from(b.subarray(0, 8))).toEqual(Array(8).fill(0));
  expect(Array.from(b.subarray(8))).toEqual(Array.from(a));
  expect(posenc.sinusoidal2d({ height: 0, width: 5, dModel: 8 }).length).toBe(0);
  expect(Array.from(posenc.sinusoidal2d({ height: 5, width: 0, dModel: 8, clsToken: true }))).toEqual(Array(8).fill(0));
});

test('baseSize equal to the grid and interpolationScale 1 are the integer coordinates', () => {
  const plain = posenc.sinusoidal2d({ height: 6, width: 6, dModel: 16 });
  expect(posenc.sinusoidal2d({ height: 6, width: 6, dModel: 16, baseSize: 6, interpolationScale: 1 })).toEqual(plain);
});

test('out: filled and returned, a WasmArray too', () => {
  const out = new Float32Array(13 * 8);
  expect(posenc.sinusoidal2d({ height: 3, width: 4, dModel: 8, clsToken: true, out })).toBe(out);
  const wa = posenc.allocate('float32', 13 * 8);
  expect(posenc.sinusoidal2d({ height: 3, width: 4, dModel: 8, clsToken: true, out: wa })).toBe(wa);
  expect(Array.from(wa.array)).toEqual(Array.from(out));
  wa.free();
});

test('dModel not a multiple of 4 and overflowing coordinates are RangeErrors naming the parameter', () => {
  const e = thrown(() => posenc.sinusoidal2d({ height: 2, width: 2, dModel: 6 }));
  expect(e).toBeInstanceOf(RangeError);
  expect(e.message).toContain('posenc.sinusoidal2d: dModel must be a positive multiple of 4 (a sine and a cosine for each of the two axes), got 6');
  const o = thrown(() => posenc.sinusoidal2d({ height: 2, width: 2, dModel: 4, interpolationScale: 5e-324 }));
  expect(o).toBeInstanceOf(RangeError);
  expect(o.message).toContain('interpolationScale');
});
