// posenc against the reference implementations themselves, run in torch 1.13 and
// numpy: tests/fixtures/reference-torch/*.json, written by
// tools/reference/make_fixtures.py from transcriptions of Hugging Face
// transformers' T5, DeBERTa-v2, BLOOM and Qwen2-VL code, MosaicML's MPT ALiBi,
// diffusers' timestep and 2-D tables, and MAE's 2-D table (file and commit in
// each tools/reference/*.py and in each fixture's meta.source).
//
// Integers (buckets, positions) must match exactly. Where the reference
// computes in float32 and posenc in double, each test derives the largest
// difference the two roundings allow (u = 2^-24, the float32 unit roundoff;
// "1 ulp" of a float32 result is at most 2u relative; posenc's contract is
// 2^-23 absolute on tables, and slopes in double).
import { readFileSync } from 'node:fs';
import { posenc, ULP1 } from '../helpers.js';

const load = (name) => JSON.parse(readFileSync(new URL(`../fixtures/reference-torch/${name}.json`, import.meta.url)));
const u = 2 ** -24;
const f32 = (list) => Float32Array.from(list);

beforeAll(() => posenc.init());

// ------------------------------------------------------------------ T5

describe("T5: transformers' _relative_position_bucket and compute_bias", () => {
  const t5 = load('t5');
  const cfgOf = (c) => ({ bidirectional: c.bidirectional, numBuckets: c.numBuckets, maxDistance: c.maxDistance });
  // posenc refuses an odd count when bidirectional (HF leaves a bucket per side unused)
  const valid = t5.configs.filter((c) => !(c.bidirectional && c.numBuckets % 2));

  test('the fixture holds every configuration, the odd bidirectional one included', () => {
    expect(t5.configs.map((c) => [c.bidirectional, c.numBuckets, c.maxDistance])).toEqual([
      [true, 32, 128], [false, 32, 128], [true, 16, 64], [false, 16, 64], [false, 15, 64], [true, 31, 128],
    ]);
    expect(valid).toHaveLength(5);
  });

  test.each(valid.map((c) => [c.bidirectional, c.numBuckets, c.maxDistance, c]))(
    'bidirectional %s, %i buckets, maxDistance %i: key - query = -1000 .. 1000 and the matrices, bit for bit',
    (_b, _n, _m, c) => {
      // one query at position 1000, keys 0 .. 2000
      const table = posenc.t5Buckets({ ...cfgOf(c), queryLength: 1, keyLength: c.table.length, queryOffset: -c.relativePositionStart });
      expect(Array.from(table)).toEqual(c.table);
      for (const m of c.matrices) {
        const got = posenc.t5Buckets({ ...cfgOf(c), queryLength: m.queryLength, keyLength: m.keyLength, queryOffset: m.queryOffset });
        expect(Array.from(got)).toEqual(m.buckets);
      }
    },
  );

  test.each(valid.map((c) => [c.bidirectional, c.numBuckets, c.maxDistance, c]))(
    'bidirectional %s, %i buckets, maxDistance %i: distances to 2^31 - 1 before the query and 2^20 after it',
    (_b, _n, _m, c) => {
      const { relativePositions: rel, buckets } = c.sweep;
      const after = Math.max(...rel);
      const row = posenc.t5Buckets({ ...cfgOf(c), queryLength: 1, keyLength: after + 1 }); // key - query = j
      const got = rel.map((r) => (r >= 0 ? row[r] : posenc.t5Buckets({ ...cfgOf(c), queryLength: 1, keyLength: 1, queryOffset: -r })[0]));
      expect(got).toEqual(buckets);
      expect(Math.min(...rel)).toBe(-(2 ** 31 - 1));
    },
  );

  test('the odd bidirectional count: HF never uses buckets 15 and 30, posenc refuses it', () => {
    const c = t5.configs.find((x) => x.bidirectional && x.numBuckets === 31);
    const used = new Set([...c.table, ...c.sweep.buckets]);
    expect([...Array(31).keys()].filter((b) => !used.has(b))).toEqual([15, 30]);
    expect(() => posenc.t5Buckets({ queryLength: 2, numBuckets: 31 })).toThrow(/numBuckets must be an even integer/);
  });

  test.each(t5.bias.map((c) => [c.bidirectional, c.heads, c]))('compute_bias, bidirectional %s, %i heads: the gathered table, bit for bit', (_b, _h, c) => {
    const bias = posenc.t5Bias({
      ...cfgOf(c), heads: c.heads, weights: f32(c.weights), queryLength: c.queryLength, keyLength: c.keyLength, queryOffset: c.queryOffset,
    });
    expect(Array.from(bias)).toEqual(Array.from(f32(c.bias)));
  });
});

// ------------------------------------------------------------------ DeBERTa-v2

describe("DeBERTa-v2: transformers' make_log_bucket_position and build_relative_position", () => {
  const deberta = load('deberta');
  const cfgOf = (c) => ({ bucketSize: c.bucketSize, maxPosition: c.maxPosition });

  test.each(deberta.configs.map((c) => [c.bucketSize, c.maxPosition, c]))(
    'bucketSize %i, maxPosition %i: query - key = -2000 .. 2000 and the matrices, bit for bit',
    (_s, _m, c) => {
      const n = -c.relativePositionStart;
      const before = posenc.debertaBuckets({ ...cfgOf(c), queryLength: 1, keyLength: n + 1 }); // query - key = -k
      const after = posenc.debertaBuckets({ ...cfgOf(c), queryLength: n + 1, keyLength: 1 }); // = q
      expect([...Array.from(before).reverse(), ...Array.from(after).slice(1)]).toEqual(c.table);
      for (const m of c.matrices) {
        expect(Array.from(posenc.debertaBuckets({ ...cfgOf(c), queryLength: m.queryLength, keyLength: m.keyLength }))).toEqual(m.relativePositions);
      }
    },
  );

  test.each(deberta.configs.map((c) => [c.bucketSize, c.maxPosition, c]))(
    'bucketSize %i, maxPosition %i: distances to 2^20 on both sides',
    (_s, _m, c) => {
      const { relativePositions: rel, buckets } = c.sweep;
      const far = Math.max(...rel.map(Math.abs));
      const before = posenc.debertaBuckets({ ...cfgOf(c), queryLength: 1, keyLength: far + 1 });
      const after = posenc.debertaBuckets({ ...cfgOf(c), queryLength: far + 1, keyLength: 1 });
      expect(rel.map((r) => (r < 0 ? before[-r] : after[r]))).toEqual(buckets);
    },
  );

  test('without buckets, query - key: the negated relativePositions', () => {
    const c = deberta.unbucketed;
    const rpe = posenc.relativePositions({ queryLength: c.queryLength, keyLength: c.keyLength });
    expect(Array.from(rpe, (v) => -v || 0)).toEqual(c.relativePositions); // (-0 || 0: plain 0)
  });
});

// ------------------------------------------------------------------ ALiBi

describe("ALiBi: MPT's gen_slopes and build_alibi_bias, BLOOM's build_alibi_tensor", () => {
  const alibi = load('alibi');
  const causalBias = (heads, L, maxBias) => posenc.alibiBias({ heads, queryLength: L, causal: true, maxBias });

  // MPT: 1 / powf(2, k maxBias / n) in float32. The exponent is exact (maxBias / n is a power of
  // two for maxBias 4, 8, 16); powf is within 1 ulp (2u relative), the reciprocal within u: the
  // float32 slope is within 3u of the exact one, posenc's double within 2^-52.
  test.each(alibi.mptSlopes.map((c) => [c.heads, c.maxBias, c]))('gen_slopes(%i, %i): within 3u of posenc', (_h, _m, c) => {
    const s = posenc.alibiSlopes({ heads: c.heads, maxBias: c.maxBias });
    const torch = f32(c.slopes);
    expect(s.length).toBe(torch.length);
    torch.forEach((t, h) => expect(Math.abs(t / s[h] - 1)).toBeLessThanOrEqual(3 * u));
    // observed: every one of them is the float32 rounding of posenc's slope
    expect(Array.from(torch)).toEqual(Array.from(s, Math.fround));
  });

  // full: float32(-|i - j| * m32) against posenc's float32(-m |i - j|) in double: |m32 - m| <= 3u m,
  // and each product rounds once (u): within (3u + 2u) m |i - j|. Query rows past the first are
  // MPT's slice of the square bias with a KV cache: posenc's queryOffset.
  test.each(alibi.mptBias.filter((c) => c.full).map((c) => [c.heads, c.seqLength, c.maxBias, c]))(
    'build_alibi_bias(%i, %i, full, max %i): -m |i - j|, every query offset',
    (heads, L, maxBias, c) => {
      const torch = f32(c.bias);
      for (const offset of [0, 1, L - 1]) {
        const got = posenc.alibiBias({ heads, queryLength: L - offset, keyLength: L, queryOffset: offset, causal: false, maxBias });
        const s = posenc.alibiSlopes({ heads, maxBias });
        for (let h = 0; h < heads; h++) {
          for (let r = 0; r < L - offset; r++) {
            for (let j = 0; j < L; j++) {
              const want = torch[(h * L + offset + r) * L + j];
              const bound = 5 * u * s[h] * Math.abs(offset + r - j);
              expect(Math.abs(got[(h * (L - offset) + r) * L + j] - want)).toBeLessThanOrEqual(bound);
            }
          }
        }
      }
    },
  );

  // not full: one row m (j - (L - 1)) for every query; the scores only see it up to a constant per
  // row, so row i minus its diagonal is posenc's causal -m (i - j): two products, each within
  // (3u + u) m |.| of exact, and posenc's rounding u m (i - j).
  test.each(alibi.mptBias.filter((c) => !c.full).map((c) => [c.heads, c.seqLength, c]))(
    'build_alibi_bias(%i, %i) causal: the key-only row, shifted by its diagonal, is the causal bias',
    (heads, L, c) => {
      const row = f32(c.bias);
      const got = causalBias(heads, L, c.maxBias);
      const s = posenc.alibiSlopes({ heads, maxBias: c.maxBias });
      for (let h = 0; h < heads; h++) {
        for (let i = 0; i < L; i++) {
          for (let j = 0; j < L; j++) {
            const at = (h * L + i) * L + j;
            if (j > i) {
              expect(got[at]).toBe(-Infinity);
              continue;
            }
            const want = row[h * L + j] - row[h * L + i];
            const bound = 4 * u * s[h] * ((L - 1 - j) + (L - 1 - i)) + u * s[h] * (i - j);
            expect(Math.abs(got[at] - want)).toBeLessThanOrEqual(bound);
          }
        }
      }
    },
  );

  // BLOOM: powf(float32(2^(-8/p)), k). The base rounds within u, which the power multiplies by k;
  // powf adds 1 ulp (2u): within (k + 2) u of the exact slope, k the power (h + 1, or the odd
  // power 2 (h - p) + 1 of the extra heads).
  test.each(alibi.bloom.map((c) => [c.heads, c]))('build_alibi_tensor, %i heads: the slopes within (k + 2) u', (heads, c) => {
    const L = c.seqLength;
    const torch = f32(c.alibi);
    const s = posenc.alibiSlopes(heads);
    const p = 2 ** Math.floor(Math.log2(heads));
    for (let h = 0; h < heads; h++) {
      const k = h < p ? h + 1 : 2 * (h - p) + 1;
      expect(torch[h * L]).toBe(0);
      expect(Math.abs(torch[h * L + 1] / s[h] - 1)).toBeLessThanOrEqual((k + 2) * u);
    }
  });

  // BLOOM's row m32 j for every query: minus its diagonal it is posenc's causal -m (i - j). Each
  // product float32(m32 j) is within (k + 3) u m j of m j; posenc's within u m (i - j).
  test.each(alibi.bloom.filter((c) => [3, 12, 16, 20].includes(c.heads)).map((c) => [c.heads, c]))(
    'build_alibi_tensor, %i heads: the key-only row, shifted by its diagonal, is the causal bias',
    (heads, c) => {
      const L = c.seqLength;
      const row = f32(c.alibi);
      const got = causalBias(heads, L, 8);
      const s = posenc.alibiSlopes(heads);
      const p = 2 ** Math.floor(Math.log2(heads));
      for (let h = 0; h < heads; h++) {
        const k = h < p ? h + 1 : 2 * (h - p) + 1;
        for (let i = 0; i < L; i++) {
          for (let j = 0; j <= i; j++) {
            const want = row[h * L + j] - row[h * L + i];
            const bound = (k + 3) * u * s[h] * (i + j) + u * s[h] * (i - j);
            expect(Math.abs(got[(h * L + i) * L + j] - want)).toBeLessThanOrEqual(bound);
          }
        }
      }
    },
  );
});

// ------------------------------------------------------------------ timestep embeddings

describe("diffusers' get_timestep_embedding (float32) against posenc's (double)", () => {
  const timestep = load('timestep');

  // torch, step by step in float32 (u = 2^-24), for pair k, on the float32 timestep t it saw:
  //   exponent  fl(fl(fl(-ln P) k) / (half - shift))   = E (1 + 3 delta)      E = -ln(P) k / (half - shift)
  //   w         expf(exponent), within 1 ulp (2u)      = W (1 + 3u|E| + 2u)   W = e^E
  //   angle     fl(fl(t w) * scale)                    = A (1 + 3u|E| + 4u)   A = scale t W
  //   sin, cos  within 1 ulp (2u)
  // (half - shift and scale are exact in float32 here). posenc is within 2^-23 = 2u of sin A, cos A:
  //   |torch - posenc| <= |A| u (3|E| + 4) + 4u.
  test.each(timestep.cases.map((c) => [c.name, c]))('%s: within the float32 rounding bound, element by element', (_name, c) => {
    const { dim } = c;
    const shift = c.downscaleFreqShift ?? 1;
    const maxPeriod = c.maxPeriod ?? 10000;
    const scale = c.scale ?? 1;
    const t = f32(c.timesteps32);
    const got = posenc.timestepEmbedding({ timesteps: t, dim, flipSinToCos: c.flipSinToCos ?? false, downscaleFreqShift: shift, scale, maxPeriod });
    const torch = f32(c.embedding);
    const half = Math.floor(dim / 2);
    expect(got.length).toBe(torch.length);
    let excess = -Infinity;
    for (let r = 0; r < t.length; r++) {
      for (let j = 0; j < dim; j++) {
        const at = r * dim + j;
        if (j >= 2 * half) {
          expect([got[at], torch[at]]).toEqual([0, 0]); // the odd dim's zero column
          continue;
        }
        const k = j % half;
        const E = (-Math.log(maxPeriod) * k) / (half - shift);
        const A = Math.abs(scale * t[r] * Math.exp(E));
        const bound = A * u * (3 * Math.abs(E) + 4) + 4 * u;
        excess = Math.max(excess, Math.abs(got[at] - torch[at]) - bound);
      }
    }
    expect(excess).toBeLessThanOrEqual(0);
  });
});

// ------------------------------------------------------------------ 2-D sine-cosine tables

describe("MAE's and diffusers' get_2d_sincos_pos_embed", () => {
  const sincos = load('sincos2d');

  // MAE evaluates in float64 (numpy) on integer coordinates: posenc is within its 2^-23 contract.
  // diffusers first rounds each coordinate X to float32 twice (x / (n / baseSize), then
  // / interpolationScale; both divisors exact in float32 in these cases): |X32 - X| <= 2u |X|,
  // so the angle X w_k moves by up to 2u |X| w_k, and its sine or cosine as much.
  test.each(sincos.cases.map((c) => [c.source, `${c.height} x ${c.width}`, c.dModel, c]))('%s %s, dModel %i', (source, _g, d, c) => {
    const got = posenc.sinusoidal2d({
      height: c.height, width: c.width, dModel: d, clsToken: c.clsToken, baseSize: c.baseSize, interpolationScale: c.interpolationScale,
    });
    expect(got.length).toBe(c.table.length);
    const first = c.clsToken ? 1 : 0;
    const q = d / 4;
    const coordinate = (i, n) => (c.baseSize === undefined ? i : i / (n / c.baseSize) / (c.interpolationScale ?? 1));
    let excess = -Infinity;
    c.table.forEach((want, at) => {
      const row = Math.floor(at / d) - first;
      if (row < 0) {
        expect(got[at]).toBe(0); // the cls token's row
        return;
      }
      const col = at % d;
      const axisValue = col < 2 * q ? coordinate(row % c.width, c.width) : coordinate(Math.floor(row / c.width), c.height);
      const w = 10000 ** (-(col % q) / q);
      const bound = ULP1 + 2 ** -40 + (source === 'diffusers' ? 2 * u * Math.abs(axisValue) * w : 0);
      excess = Math.max(excess, Math.abs(got[at] - want) - bound);
    });
    expect(excess).toBeLessThanOrEqual(0);
  });
});

// ------------------------------------------------------------------ M-RoPE positions

describe("Qwen2-VL's and Qwen2.5-VL's get_rope_index", () => {
  const mrope = load('mrope-positions');

  test.each(mrope.cases.map((c) => [c.name, c.model, c]))('%s (%s): every position and the rope delta', (_name, _model, c) => {
    const got = posenc.mropePositions({ spans: c.spans, spatialMergeSize: c.spatialMergeSize, tokensPerSecond: c.tokensPerSecond });
    expect(got.length).toBe(3 * c.seq);
    expect(Array.from(got)).toEqual(c.positions);
    expect(Math.max(...got) + 1 - c.seq).toBe(c.ropeDelta);
  });
});
