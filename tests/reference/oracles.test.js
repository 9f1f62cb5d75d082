// The two witnesses agree: the JS oracle (tests/fixtures/generate-reference.mjs,
// a double-precision re-implementation read off the same sources) against the
// reference implementations run in torch (tests/fixtures/reference-torch/,
// tools/reference/), on every case the two share. Neither side is posenc: a
// misreading of a source by the oracle's authors shows here, not in posenc's tests.
import { readFileSync } from 'node:fs';
import { ROPE_FUNCTIONS, ropeCache, rotateHeadVector } from '../fixtures/oracle-rope.mjs';

const read = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url)));
const oracle = read('../fixtures/reference.json');
const torch = (name) => read(`../fixtures/reference-torch/${name}.json`);
const u = 2 ** -24;
const fromJson = (v) => (v === '-Infinity' ? -Infinity : v);

describe('T5 buckets', () => {
  const t5 = torch('t5');
  const key = (c) => `${c.bidirectional}/${c.numBuckets}/${c.maxDistance}`;

  test('the same six configurations', () => {
    expect(oracle.t5Buckets.map(key)).toEqual(t5.configs.map(key));
  });

  test.each(oracle.t5Buckets.map((c) => [key(c), c]))('%s: the -1000 .. 1000 table and the matrices, bucket for bucket', (k, o) => {
    const t = t5.configs.find((c) => key(c) === k);
    expect([o.relativePositionStart, o.table.length]).toEqual([t.relativePositionStart, t.table.length]);
    expect(o.table).toEqual(t.table);
    o.matrices.forEach((m, i) => {
      expect([m.queryLength, m.keyLength, m.queryOffset]).toEqual([t.matrices[i].queryLength, t.matrices[i].keyLength, t.matrices[i].queryOffset]);
      expect(m.buckets.flat()).toEqual(t.matrices[i].buckets);
    });
  });
});

describe('DeBERTa-v2 buckets', () => {
  const deberta = torch('deberta');

  test.each(oracle.debertaBuckets.configs.map((c) => [c.bucketSize, c.maxPosition, c]))('%i / %i: the -2000 .. 2000 table and the matrices', (bucketSize, maxPosition, o) => {
    const t = deberta.configs.find((c) => c.bucketSize === bucketSize && c.maxPosition === maxPosition);
    expect(o.relativePositionStart).toBe(t.relativePositionStart);
    expect(o.table).toEqual(t.table);
    o.matrices.forEach((m, i) => expect(m.relativePositions.flat()).toEqual(t.matrices[i].relativePositions));
  });

  test('unbucketed: query - key', () => {
    expect(oracle.debertaBuckets.unbucketed.relativePositions.flat()).toEqual(deberta.unbucketed.relativePositions);
  });
});

describe('ALiBi', () => {
  const alibi = torch('alibi');

  // MPT's float32 slopes are within 3u of exact (tests/reference/torch.test.js); the oracle's
  // double slopes within a few double ulps
  test('the oracle\'s slopes (the paper\'s rule) against MPT\'s gen_slopes, every shared case', () => {
    let shared = 0;
    for (const o of oracle.alibiSlopes) {
      const t = alibi.mptSlopes.find((c) => c.heads === o.heads && c.maxBias === o.maxBias);
      if (!t) continue;
      shared++;
      o.slopes.forEach((s, h) => expect(Math.abs(Math.fround(t.slopes[h]) / s - 1)).toBeLessThanOrEqual(3 * u));
    }
    expect(shared).toBe(oracle.alibiSlopes.length); // every one of the oracle's cases
  });

  test('and against BLOOM\'s build_alibi_tensor (maxBias 8): within (k + 2) u, k the power', () => {
    for (const o of oracle.alibiSlopes.filter((c) => c.maxBias === 8)) {
      const t = alibi.bloom.find((c) => c.heads === o.heads);
      const p = 2 ** Math.floor(Math.log2(o.heads));
      o.slopes.forEach((s, h) => {
        const k = h < p ? h + 1 : 2 * (h - p) + 1;
        expect(Math.abs(Math.fround(t.alibi[h * t.seqLength + 1]) / s - 1)).toBeLessThanOrEqual((k + 2) * u);
      });
    }
  });

  // the oracle's 3 heads, 4 queries at offset 2, 6 keys; MPT's square 3 x 6 x 6 bias holds its rows
  // 2 .. 5 (full), and the key-only causal row minus its diagonal is the causal form
  test.each(oracle.alibiBias.map((c) => [c.causal, c]))('the oracle\'s bias, causal %s, against MPT\'s build_alibi_bias', (causal, o) => {
    const t = alibi.mptBias.find((c) => c.heads === o.heads && c.seqLength === o.keyLength && c.full === !causal && c.maxBias === o.maxBias);
    const L = t.seqLength;
    const m = oracle.alibiSlopes.find((c) => c.heads === o.heads && c.maxBias === o.maxBias).slopes;
    o.bias.forEach((rows, h) => rows.forEach((row, r) => row.forEach((v, j) => {
      const i = o.queryOffset + r;
      const want = fromJson(v);
      if (causal && j > i) {
        expect(want).toBe(-Infinity);
        return;
      }
      const got = causal ? Math.fround(t.bias[h * L + j]) - Math.fround(t.bias[h * L + i]) : Math.fround(t.bias[(h * L + i) * L + j]);
      const bound = causal ? 4 * u * m[h] * (2 * (L - 1) - i - j) : 4 * u * m[h] * Math.abs(i - j);
      expect(Math.abs(got - want)).toBeLessThanOrEqual(bound);
    })));
  });
});

describe("diffusers' timestep embedding", () => {
  const timestep = torch('timestep');

  // torch's float32 evaluation is within |A| u (3|E| + 4) + 2u of sin, cos of its float32 timestep
  // t32 (tests/reference/torch.test.js); the oracle evaluates in double at t itself, so the
  // timestep's own rounding adds |t - t32| scale W.
  test.each(oracle.timestepEmbedding.map((c) => [c.name, c]))('%s', (name, o) => {
    const t = timestep.cases.find((c) => c.name === name);
    expect([t.dim, t.timesteps]).toEqual([o.dim, o.timesteps]);
    const shift = o.downscaleFreqShift ?? 1;
    const maxPeriod = o.maxPeriod ?? 10000;
    const scale = o.scale ?? 1;
    const half = Math.floor(o.dim / 2);
    o.embedding.forEach((row, r) => row.forEach((want, j) => {
      const got = Math.fround(t.embedding[r * o.dim + j]);
      if (j >= 2 * half) {
        expect([got, want]).toEqual([0, 0]);
        return;
      }
      const E = (-Math.log(maxPeriod) * (j % half)) / (half - shift);
      const W = Math.exp(E);
      const t32 = Math.fround(t.timesteps32[r]);
      const bound = Math.abs(scale * t32 * W) * u * (3 * Math.abs(E) + 4) + 2 * u + Math.abs(o.timesteps[r] - t32) * Math.abs(scale) * W;
      expect(Math.abs(got - want)).toBeLessThanOrEqual(bound);
    }));
  });
});

describe('2-D sine-cosine tables', () => {
  const sincos = torch('sincos2d');
  // the oracle's cases and the torch case computing the same table (MAE's function for the
  // oracle's DiT case: DiT copies it; the rectangular MAE case through get_2d_sincos_pos_embed_from_grid)
  const pairs = [
    [{ source: 'mae', height: 4, width: 4 }, { source: 'mae', height: 4, width: 4 }],
    [{ source: 'dit', height: 3, width: 3 }, { source: 'mae', height: 3, width: 3 }],
    [{ source: 'mae', height: 3, width: 5 }, { source: 'mae-from-grid', height: 3, width: 5 }],
    [{ source: 'diffusers', height: 3, width: 6 }, { source: 'diffusers', height: 3, width: 6 }],
    [{ source: 'diffusers', height: 5, width: 2 }, { source: 'diffusers', height: 5, width: 2 }],
  ];
  const find = (list, p) => list.find((c) => c.source === p.source && c.height === p.height && c.width === p.width);

  // both in double: within 2^-45 where the coordinates are integers; diffusers' float32
  // coordinates move each angle by up to 2u |X| w_k (tests/reference/torch.test.js)
  test.each(pairs.map(([o, t]) => [`${o.source} ${o.height} x ${o.width}`, o, t]))('%s', (_name, op, tp) => {
    const o = find(oracle.sinusoidal2d, op);
    const t = find(sincos.cases, tp);
    expect([o.dModel, o.clsToken ?? false, o.baseSize, o.interpolationScale ?? 1]).toEqual([t.dModel, t.clsToken, t.baseSize, t.interpolationScale ?? 1]);
    const d = o.dModel;
    const q = d / 4;
    const first = o.clsToken ? 1 : 0;
    const coordinate = (i, n) => (o.baseSize === undefined ? i : i / (n / o.baseSize) / (o.interpolationScale ?? 1));
    o.table.flat().forEach((want, at) => {
      const row = Math.floor(at / d) - first;
      const col = at % d;
      const X = row < 0 ? 0 : col < 2 * q ? coordinate(row % o.width, o.width) : coordinate(Math.floor(row / o.width), o.height);
      const bound = 2 ** -45 + (o.source === 'diffusers' ? 2 * u * Math.abs(X) * 10000 ** (-(col % q) / q) : 0);
      expect(Math.abs(t.table[at] - want)).toBeLessThanOrEqual(bound);
    });
  });
});

describe('M-RoPE positions', () => {
  const mrope = torch('mrope-positions');

  test.each(oracle.mropePositions.map((c) => [c.name, c]))('%s: every position and the rope delta', (name, o) => {
    const t = mrope.cases.find((c) => c.name === name);
    expect(o.seq).toBe(t.seq);
    expect(o.positions.flat()).toEqual(t.positions);
    expect(o.ropeDelta).toBe(t.ropeDelta);
  });
});

// RoPE: the oracle's functions (tests/fixtures/oracle-rope.mjs) on the cases of
// the transcription of transformers' modeling_rope_utils.py and rotate_half
// (tools/reference/hf_rope.py, tests/fixtures/reference-rope/rope-types.json):
// every rope_type, both layouts, partial rotary (headDim 40, rotaryDim 32).
// The transcription's inverse frequencies are float64 as written; its cos, sin
// and rotated vectors are printed to 12 significant digits, and its angles
// reach 131071 radians, where one double ulp of the angle is 1.5e-11: 5e-11
// separates the two witnesses' libms and the printing, and a misread formula
// (a factor, a ramp, a pairing) is off by far more.
describe('RoPE', () => {
  const rope = read('../fixtures/reference-rope/rope-types.json');
  const oracleOf = (spec, seqLength) => {
    const { type = 'default', ...scaling } = spec.scaling ?? {};
    return ROPE_FUNCTIONS[type]({ rotaryDim: spec.rotaryDim, base: spec.base, ...scaling, ...(seqLength == null ? {} : { seqLength }) });
  };
  // the transcription's input rows (its fixture_x): float32(2 * ((i * 2654435761 + seed * 40503) mod 2^32) / 2^32 - 1)
  const fixtureX = (n, seed) => Array.from({ length: n }, (_, i) => Math.fround((2 * ((i * 2654435761 + seed * 40503) % 2 ** 32)) / 2 ** 32 - 1));
  const cases = rope.cases.map((c) => [`${c.name} ${c.spec.layout} rotaryDim ${c.spec.rotaryDim} headDim ${c.headDim}`, c]);

  test('every scaling type and both layouts are covered', () => {
    expect(new Set(rope.cases.map((c) => c.spec.scaling?.type ?? 'default'))).toEqual(new Set(Object.keys(ROPE_FUNCTIONS)));
    expect(new Set(rope.cases.map((c) => c.spec.layout))).toEqual(new Set(['half', 'interleaved']));
  });

  test.each(cases)('%s: inverse frequencies and attention factor', (name, c) => {
    const o = oracleOf(c.spec, c.seqLength);
    expect(o.invFreq.length).toBe(c.invFreq.length);
    o.invFreq.forEach((f, k) => expect(Math.abs(f / c.invFreq[k] - 1)).toBeLessThanOrEqual(4 * 2 ** -52));
    expect(Math.abs(o.attentionFactor / c.attentionFactor - 1)).toBeLessThanOrEqual(4 * 2 ** -52);
    if (c.short) {
      const s = oracleOf(c.spec, c.short.seqLength);
      s.invFreq.forEach((f, k) => expect(Math.abs(f / c.short.invFreq[k] - 1)).toBeLessThanOrEqual(4 * 2 ** -52));
      expect(s.attentionFactor).toBeCloseTo(c.short.attentionFactor, 14);
    }
  });

  test.each(cases)('%s: cos and sin at positions up to 131071, and x rotated', (name, c) => {
    const { invFreq, attentionFactor } = oracleOf(c.spec, c.seqLength);
    const { cos, sin } = ropeCache(invFreq, attentionFactor, c.positions);
    const at = (table) => c.positions.flatMap((_, r) => c.dims.map((d) => table[r][d]));
    const worst = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));
    expect(worst(at(cos), c.cos)).toBeLessThanOrEqual(5e-11);
    expect(worst(at(sin), c.sin)).toBeLessThanOrEqual(5e-11);

    const { positions, heads, headDim, seed, y } = c.apply;
    const x = fixtureX(positions.length * heads * headDim, seed);
    const rotated = positions.flatMap((p, r) => Array.from({ length: heads }, (_, h) => {
      const row = x.slice((r * heads + h) * headDim, (r * heads + h + 1) * headDim);
      return rotateHeadVector(row, p, invFreq, c.spec.rotaryDim, c.spec.layout, attentionFactor);
    }).flat());
    expect(worst(rotated, y)).toBeLessThanOrEqual(5e-11);
  });
});
