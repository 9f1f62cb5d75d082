// Property-based tests (fast-check, with shrinking) through the JS API, across
// every encoding: identities the formulas guarantee, checked on random
// parameters instead of a few chosen ones. A failure prints the shrunk
// counterexample and the seed (rerun with FC_SEED=<seed>).
import fc from 'fast-check';
import { posenc, ropeOracle } from '../helpers.js';

const I32 = 2 ** 31 - 1;
const I32_MIN = -(2 ** 31);
const EPS23 = 2 ** -23;
const LAYOUTS = ['interleaved', 'concatenated', 'tensor2tensor', 'fairseq'];

beforeAll(() => posenc.init());

let cases = 0;
const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
// Runs per property: the counts below times FC_SCALE (default 10: ~37,000 cases in a few seconds).
const scale = Number(process.env.FC_SCALE ?? 10);
/** fc.assert with a run count, counting every case that ran. */
function check(runs, arbitraries, predicate) {
  fc.assert(
    fc.property(...arbitraries, (...args) => {
      cases++;
      return predicate(...args);
    }),
    { numRuns: Math.max(1, Math.round(runs * scale)), seed },
  );
}
afterAll(() => console.log(`property tests: ${cases} cases`));

// ------------------------------------------------------------------ arbitraries

/** A start position: near 0 mostly, anywhere in int32 sometimes (room for `room` rows). */
const start = (room = 64) => fc.oneof(fc.integer({ min: -3000, max: 3000 }), fc.integer({ min: I32_MIN, max: I32 - room }));
const base = fc.oneof(fc.constant(10000), fc.double({ min: 1.5, max: 1e6, noNaN: true }), fc.constant(500000));
const values = (n, bound = 2) => fc.float32Array({ minLength: n, maxLength: n, min: -bound, max: bound, noNaN: true, noDefaultInfinity: true });
/** A RoPE scaling whose attention factor is 1 (default, linear, llama3, yarn with A = 1). */
const unitScaling = fc.constantFrom(
  undefined,
  { type: 'linear', factor: 4 },
  { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 64 },
  { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64, attentionFactor: 1 },
);
/** Any scaling type; dynamic and longrope with an explicit seqLength so positions do not move it. */
const anyScaling = fc.oneof(
  unitScaling,
  fc.constant({ type: 'yarn', factor: 16, originalMaxPositionEmbeddings: 256 }),
  fc.constant({ type: 'dynamic', factor: 2, maxPositionEmbeddings: 32, seqLength: 100 }),
  fc.constant({ type: 'longrope', shortFactor: [1, 1.5, 2, 4], longFactor: [2, 3, 4, 8], originalMaxPositionEmbeddings: 64, maxPositionEmbeddings: 256, seqLength: 300 }),
);
/** The rotary dimension for `half` pairs under a scaling (LongRoPE's lists have 4 factors; dynamic needs >= 4). */
const dimFor = (scaling, half) => (scaling?.type === 'longrope' ? 8 : scaling?.type === 'dynamic' ? Math.max(4, 2 * half) : 2 * half);

/** Largest |f(i) - g(i)| over n entries. */
function maxDiff(n, f) {
  let worst = 0;
  for (let i = 0; i < n; i++) {
    const e = Math.abs(f(i));
    if (!(e <= worst)) worst = Number.isNaN(e) ? Infinity : e;
  }
  return worst;
}
const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
const dot = (a, b) => a.reduce((s, v, i) => s + v * b[i], 0);

/** The sine/cosine column pairs of a sinusoidal layout. */
function sinCosPairs(layout, d) {
  const h = Math.floor(d / 2);
  if (layout === 'interleaved') return Array.from({ length: h }, (_, i) => [2 * i, 2 * i + 1]);
  if (layout === 'concatenated') return Array.from({ length: h }, (_, i) => [i, d - h + i]);
  return Array.from({ length: h }, (_, i) => [i, h + i]);
}

// ------------------------------------------------------------------ sin^2 + cos^2 = 1

describe('sin^2 + cos^2 = 1 for every pair', () => {
  test('sinusoidal, every layout, any base and offset', () => {
    check(300, [fc.integer({ min: 0, max: 24 }), fc.integer({ min: 4, max: 40 }), start(), base, fc.constantFrom(...LAYOUTS)], (length, d, offset, b, layout) => {
      const t = posenc.sinusoidal({ length, dModel: d, offset, base: b, layout });
      const pairs = sinCosPairs(layout, d);
      let worst = 0;
      for (let r = 0; r < length; r++) {
        for (const [s, c] of pairs) worst = Math.max(worst, Math.abs(t[r * d + s] ** 2 + t[r * d + c] ** 2 - 1));
      }
      return worst <= 2 ** -21;
    });
  });

  test('ropeCache: cos^2 + sin^2 = A^2, every scaling type and both precisions', () => {
    check(200, [fc.integer({ min: 1, max: 16 }), anyScaling, fc.constantFrom('float64', 'float32'), fc.array(fc.integer({ min: I32_MIN, max: I32 }), { minLength: 1, maxLength: 12 })], (half, scaling, precision, list) => {
      const rotaryDim = dimFor(scaling, half);
      const { attentionFactor: a } = ropeOracle({ rotaryDim, scaling });
      const { cos, sin } = posenc.ropeCache({ positions: Int32Array.from(list), rotaryDim, scaling, precision });
      return maxDiff(cos.length, (i) => cos[i] ** 2 + sin[i] ** 2 - a * a) <= 2 ** -20 * Math.max(1, a * a);
    });
  });

  test('sinusoidal2d: both axes, any grid, base, cls row and diffusers scaling', () => {
    check(200, [fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 10 }), base, fc.boolean(), fc.option(fc.double({ min: 0.5, max: 64, noNaN: true })), fc.double({ min: 0.1, max: 8, noNaN: true })], (height, width, quarter, b, clsToken, baseSize, interpolationScale) => {
      const d = 4 * quarter;
      const t = posenc.sinusoidal2d({ height, width, dModel: d, base: b, clsToken, baseSize: baseSize ?? undefined, interpolationScale });
      const first = clsToken ? d : 0;
      if (clsToken && t.subarray(0, d).some((v) => v !== 0)) return false;
      return maxDiff(height * width * 2 * quarter, (i) => {
        const r = Math.floor(i / (2 * quarter)), j = i % (2 * quarter), axis = Math.floor(j / quarter), k = j % quarter;
        const at = first + r * d + axis * 2 * quarter + k;
        return t[at] ** 2 + t[at + quarter] ** 2 - 1;
      }) <= 2 ** -21;
    });
  });

  test('timestepEmbedding: real timesteps, every option', () => {
    const timestep = fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.double({ min: -2000, max: 2000, noNaN: true }));
    check(200, [fc.array(timestep, { maxLength: 10 }), fc.integer({ min: 1, max: 40 }), fc.boolean(), fc.constantFrom(0, 1, 0.5, -3), fc.double({ min: -1000, max: 1000, noNaN: true })], (timesteps, dim, flipSinToCos, downscaleFreqShift, scale) => {
      const half = Math.floor(dim / 2);
      if (half > 0 && half === downscaleFreqShift) return true;
      const e = posenc.timestepEmbedding({ timesteps, dim, flipSinToCos, downscaleFreqShift, scale });
      return maxDiff(timesteps.length * half, (i) => {
        const r = Math.floor(i / half), k = i % half;
        return e[r * dim + k] ** 2 + e[r * dim + half + k] ** 2 - 1;
      }) <= 2 ** -21 && (dim % 2 === 0 || timesteps.every((_, r) => e[r * dim + dim - 1] === 0));
    });
  });

  test('transformerXLEmbedding: [sin | cos] pairs, with and without clamping', () => {
    check(150, [fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 24 }), fc.integer({ min: 0, max: 50 })], (keyLength, half, clampLength) => {
      const d = 2 * half;
      const t = posenc.transformerXLEmbedding({ keyLength, dModel: d, clampLength });
      return maxDiff(keyLength * half, (i) => {
        const r = Math.floor(i / half), k = i % half;
        return t[r * d + k] ** 2 + t[r * d + half + k] ** 2 - 1;
      }) <= 2 ** -21;
    });
  });
});

// ------------------------------------------------------------------ shifting = slicing

describe('shifting the first position equals slicing a longer table', () => {
  test('sinusoidal: offset o + k, length L is rows k.. of offset o, length L + k', () => {
    check(250, [fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 32 }), start(128), base, fc.constantFrom(...LAYOUTS)], (length, k, d, o, b, layout) => {
      const dModel = layout === 'fairseq' ? Math.max(d, 4) : d;
      const shifted = posenc.sinusoidal({ length, dModel, offset: o + k, base: b, layout });
      const long = posenc.sinusoidal({ length: length + k, dModel, offset: o, base: b, layout }).subarray(k * dModel);
      return maxDiff(shifted.length, (i) => shifted[i] - long[i]) <= 2 * EPS23;
    });
  });

  test('ropeCache: offset, positions and slices agree (float64 within 2^-22 A; float32 bit for bit)', () => {
    check(150, [fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 8 }), start(64), anyScaling, fc.constantFrom('float64', 'float32')], (length, k, half, o, scaling, precision) => {
      const rotaryDim = dimFor(scaling, half);
      const opts = { rotaryDim, scaling, precision };
      const shifted = posenc.ropeCache({ ...opts, length, offset: o + k });
      const long = posenc.ropeCache({ ...opts, length: length + k, offset: o });
      const listed = posenc.ropeCache({ ...opts, positions: Int32Array.from({ length }, (_, r) => o + k + r) });
      const n = shifted.cos.length, skip = k * (rotaryDim / 2);
      if (precision === 'float32') {
        return same(shifted.cos, long.cos.subarray(skip)) && same(shifted.sin, long.sin.subarray(skip)) && same(shifted.cos, listed.cos);
      }
      const { attentionFactor: a } = ropeOracle({ rotaryDim, scaling });
      const tol = 2 * EPS23 * Math.max(1, a);
      return (
        maxDiff(n, (i) => shifted.cos[i] - long.cos[skip + i]) <= tol && maxDiff(n, (i) => shifted.sin[i] - long.sin[skip + i]) <= tol &&
        maxDiff(n, (i) => shifted.cos[i] - listed.cos[i]) <= tol && maxDiff(n, (i) => shifted.sin[i] - listed.sin[i]) <= tol
      );
    });
  });

  test('alibiBias and t5Buckets: queryOffset o + k is rows k.. of queryOffset o, bit for bit', () => {
    check(250, [fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 5 }), fc.boolean()], (q, k, keyLength, o, heads, flag) => {
      const a = posenc.alibiBias({ heads, queryLength: q, keyLength, queryOffset: o + k, causal: flag });
      const b = posenc.alibiBias({ heads, queryLength: q + k, keyLength, queryOffset: o, causal: flag });
      const t = posenc.t5Buckets({ queryLength: q, keyLength, queryOffset: o + k, bidirectional: flag });
      const u = posenc.t5Buckets({ queryLength: q + k, keyLength, queryOffset: o, bidirectional: flag });
      const plane = q * keyLength, longPlane = (q + k) * keyLength;
      for (let h = 0; h < heads; h++) {
        if (!same(a.subarray(h * plane, (h + 1) * plane), b.subarray(h * longPlane + k * keyLength, (h + 1) * longPlane))) return false;
      }
      return same(t, u.subarray(k * keyLength));
    });
  });

  test('sinusoidal2d: a patch does not depend on the grid around it (no baseSize); the cls row only shifts rows', () => {
    check(150, [fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 8 }), base], (height, width, dh, dw, quarter, b) => {
      const d = 4 * quarter;
      const small = posenc.sinusoidal2d({ height, width, dModel: d, base: b });
      const large = posenc.sinusoidal2d({ height: height + dh, width: width + dw, dModel: d, base: b, clsToken: true });
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const a = small.subarray((y * width + x) * d, (y * width + x + 1) * d);
          const at = (1 + y * (width + dw) + x) * d;
          if (maxDiff(d, (k) => a[k] - large[at + k]) > 2 * EPS23) return false;
        }
      }
      return true;
    });
  });

  test('timestepEmbedding: rows are independent (a list is its timesteps one by one, a run of integers included)', () => {
    check(150, [fc.array(fc.oneof(fc.integer({ min: -500, max: 1500 }), fc.double({ min: -10, max: 1000, noNaN: true })), { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 2, max: 48 }), fc.boolean()], (list, run, dim, flipSinToCos) => {
      const timesteps = [...list, ...Array.from({ length: run }, (_, i) => 100 + i)];
      const options = { dim, flipSinToCos, downscaleFreqShift: 0 };
      const all = posenc.timestepEmbedding({ ...options, timesteps });
      return timesteps.every((t, r) => {
        const one = posenc.timestepEmbedding({ ...options, timesteps: [t] });
        return maxDiff(dim, (k) => one[k] - all[r * dim + k]) <= 2 * EPS23;
      });
    });
  });

  test('relativePositions: shift s + t is shift s plus t; transformerXL: keyLength K + k, rows k.. is keyLength K', () => {
    check(250, [fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 0, max: 20 })], (q, keyLength, s, t, half, k) => {
      const a = posenc.relativePositions({ queryLength: q, keyLength, shift: s + t });
      const b = posenc.relativePositions({ queryLength: q, keyLength, shift: s });
      const d = 2 * half;
      const x = posenc.transformerXLEmbedding({ keyLength, dModel: d });
      const y = posenc.transformerXLEmbedding({ keyLength: keyLength + k, dModel: d }).subarray(k * d);
      return a.every((v, i) => v === b[i] + t) && maxDiff(x.length, (i) => x[i] - y[i]) <= 2 * EPS23;
    });
  });
});

// ------------------------------------------------------------------ RoPE

/** Applies RoPE to one batch of vectors, one position each. */
const rope = (x, positions, o) => posenc.applyRope(Float32Array.from(x), { heads: 1, headDim: x.length / positions.length, positions: Int32Array.from(positions), ...o });

describe('RoPE', () => {
  const headDim = fc.integer({ min: 1, max: 12 }).map((h) => 2 * h);
  const position = fc.integer({ min: I32_MIN + 1, max: I32 });

  test('preserves the norm of each rotated pair (A = 1) and leaves dims >= rotaryDim untouched', () => {
    check(250, [headDim, fc.integer({ min: 1, max: 6 }), fc.array(position, { minLength: 1, maxLength: 4 }), fc.constantFrom('half', 'interleaved'), fc.constantFrom('float64', 'float32'), unitScaling, fc.nat()], (hd, cut, ps, layout, precision, scaling, seedValue) => {
      const rotaryDim = Math.max(2, hd - 2 * (cut % (hd / 2)));
      const x = Float32Array.from({ length: hd * ps.length }, (_, i) => Math.sin(seedValue + 7 * i) * 2);
      const y = posenc.applyRope(Float32Array.from(x), { heads: 1, headDim: hd, rotaryDim, positions: Int32Array.from(ps), layout, precision, scaling });
      for (let v = 0; v < ps.length; v++) {
        for (let k = 0; k < rotaryDim / 2; k++) {
          const [i, j] = (layout === 'half' ? [k, k + rotaryDim / 2] : [2 * k, 2 * k + 1]).map((c) => v * hd + c);
          const before = Math.hypot(x[i], x[j]), after = Math.hypot(y[i], y[j]);
          if (!(Math.abs(after - before) <= 2 ** -20 * (Math.abs(x[i]) + Math.abs(x[j])) + 1e-30)) return false;
        }
        for (let c = rotaryDim; c < hd; c++) if (!Object.is(y[v * hd + c], x[v * hd + c])) return false;
      }
      return true;
    });
  });

  test('<R(m) q, R(n) k> depends only on m - n (double angles, any int32 positions)', () => {
    check(200, [headDim, position, fc.integer({ min: -5000, max: 5000 }), fc.constantFrom('half', 'interleaved'), unitScaling, values(24), values(24)], (hd, m, delta, layout, scaling, qv, kv) => {
      const n = m - delta;
      if (n < I32_MIN + 1 || n > I32 || Math.abs(delta) > I32) return true;
      const q = qv.subarray(0, hd), k = kv.subarray(0, hd);
      const far = dot(rope(q, [m], { layout, scaling }), rope(k, [n], { layout, scaling }));
      const near = dot(rope(q, [delta], { layout, scaling }), k);
      const scale = q.reduce((s, v) => s + Math.abs(v), 0) * k.reduce((s, v) => Math.max(s, Math.abs(v)), 0);
      return Math.abs(far - near) <= 2 ** -18 * scale + 1e-12;
    });
  });

  test("'half' on permuted weights equals 'interleaved' on the originals, permuted: bit for bit", () => {
    check(200, [fc.integer({ min: 1, max: 3 }), headDim, fc.integer({ min: 0, max: 5 }), fc.array(position, { minLength: 1, maxLength: 3 }), fc.constantFrom('float64', 'float32'), anyScaling, fc.nat()], (heads, hd, cut, ps, precision, scaling, seedValue) => {
      const rotaryDim = scaling?.type === 'longrope' ? 8 : Math.max(scaling?.type === 'dynamic' ? 4 : 2, hd - 2 * (cut % (hd / 2)));
      if (rotaryDim > hd) return true;
      const seq = ps.length;
      // q as the "weights" of a projection with one input feature: [seq][heads * headDim]
      const q = Float32Array.from({ length: seq * heads * hd }, (_, i) => Math.cos(seedValue + 3 * i));
      const opts = { heads, headDim: hd, rotaryDim, positions: Int32Array.from(ps), precision, scaling };
      const perm = (v) => {
        const out = new Float32Array(v.length);
        for (let s = 0; s < seq; s++) {
          out.set(posenc.ropePermuteWeights(v.subarray(s * heads * hd, (s + 1) * heads * hd), { heads, headDim: hd, rotaryDim, from: 'interleaved', to: 'half' }), s * heads * hd);
        }
        return out;
      };
      const viaHalf = posenc.applyRope(perm(q), { ...opts, layout: 'half' });
      const viaInterleaved = perm(posenc.applyRope(Float32Array.from(q), { ...opts, layout: 'interleaved' }));
      return same(viaHalf, viaInterleaved);
    });
  });

  test('rotating by +p then by -p restores the input (A = 1)', () => {
    check(250, [headDim, fc.array(position, { minLength: 1, maxLength: 4 }), fc.constantFrom('half', 'interleaved'), fc.constantFrom('float64', 'float32'), unitScaling, fc.nat()], (hd, ps, layout, precision, scaling, seedValue) => {
      const x = Float32Array.from({ length: hd * ps.length }, (_, i) => Math.sin(seedValue * 0.37 + i) * 3);
      const o = { heads: 1, headDim: hd, layout, precision, scaling };
      const y = posenc.applyRope(Float32Array.from(x), { ...o, positions: Int32Array.from(ps) });
      posenc.applyRope(y, { ...o, positions: Int32Array.from(ps, (p) => -p) });
      return x.every((v, i) => {
        const pair = layout === 'half' ? (i % hd) % (hd / 2) : Math.floor((i % hd) / 2);
        const [a, b] = layout === 'half' ? [pair, pair + hd / 2] : [2 * pair, 2 * pair + 1];
        const row = i - (i % hd);
        return Math.abs(y[i] - v) <= 2 ** -20 * (Math.abs(x[row + a]) + Math.abs(x[row + b])) + 1e-30;
      });
    });
  });
});

// ------------------------------------------------------------------ biases

describe('biases and buckets', () => {
  test('ALiBi: every row is 0 at the diagonal and never increases with the distance |i - j|', () => {
    check(250, [fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 1e6 }), fc.boolean(), fc.double({ min: 0.01, max: 64, noNaN: true })], (heads, q, keyLength, o, causal, maxBias) => {
      const b = posenc.alibiBias({ heads, queryLength: q, keyLength, queryOffset: o, causal, maxBias });
      for (let h = 0; h < heads; h++) {
        for (let r = 0; r < q; r++) {
          const i = o + r, row = b.subarray((h * q + r) * keyLength, (h * q + r + 1) * keyLength);
          for (let j = 0; j < keyLength; j++) {
            if (j === i && !Object.is(row[j], 0)) return false;
            if (causal && j > i) {
              if (row[j] !== -Infinity) return false;
            } else if (!(row[j] <= 0) || (j < i && j + 1 < keyLength && !(row[j] <= row[j + 1])) || (j > i && !(row[j] <= row[j - 1]))) {
              return false;
            }
          }
        }
      }
      return true;
    });
  });

  const t5 = fc.record({
    bidirectional: fc.boolean(),
    numBuckets: fc.integer({ min: 2, max: 64 }).map((n) => 2 * n),
    maxDistance: fc.integer({ min: 1, max: 4000 }),
  }).filter(({ bidirectional, numBuckets, maxDistance }) => maxDistance > Math.floor((bidirectional ? numBuckets / 2 : numBuckets) / 2));

  test('T5: buckets in [0, numBuckets), monotone in the distance on each side; the bias gathers them exactly', () => {
    check(200, [t5, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 1, max: 3 })], (p, q, keyLength, queryOffset, heads) => {
      const buckets = posenc.t5Buckets({ ...p, queryLength: q, keyLength, queryOffset });
      if (!buckets.every((v) => v >= 0 && v < p.numBuckets)) return false;
      // along row 0: rel = j - queryOffset; |rel| grows away from the query on each side
      const row = buckets.subarray(0, keyLength);
      for (let j = 1; j < keyLength; j++) {
        const rel = j - queryOffset;
        if (rel <= 0 && !(row[j] <= row[j - 1])) return false; // before the query: closer, smaller
        if (rel > 1 && !(row[j] >= row[j - 1])) return false; // after it: farther, larger
      }
      const weights = Float32Array.from({ length: p.numBuckets * heads }, (_, i) => i * 0.5 - 7);
      const bias = posenc.t5Bias({ ...p, heads, queryLength: q, keyLength, queryOffset, weights });
      const plane = q * keyLength;
      return bias.every((v, i) => v === weights[buckets[i % plane] * heads + Math.floor(i / plane)]);
    });
  });

  test('DeBERTa: the bucket has the sign of q - k, equals it up to bucketSize / 2, and grows with |q - k|', () => {
    check(200, [fc.integer({ min: 2, max: 600 }), fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 1500 })], (bucketSize, extra, q, keyLength) => {
      const mid = Math.floor(bucketSize / 2);
      const maxPosition = mid + 2 + extra;
      const b = posenc.debertaBuckets({ queryLength: q, keyLength, bucketSize, maxPosition });
      const col0 = Array.from({ length: keyLength }, (_, k) => b[k]); // q = 0: rel = -k
      for (let k = 0; k < keyLength; k++) {
        const rel = -k, v = col0[k];
        if (Math.sign(v) !== Math.sign(rel) || (Math.abs(rel) <= mid && v !== rel) || (k > 0 && !(v <= col0[k - 1]))) return false;
      }
      for (let r = 0; r < q; r++) if (Math.sign(b[r * keyLength]) !== Math.sign(r)) return false;
      return true;
    });
  });
});

// ------------------------------------------------------------------ M-RoPE and 2-D RoPE

describe('RoPE over several position axes', () => {
  const position = fc.integer({ min: -3000, max: 100000 });
  /** Sections of half pairs among 3 axes. */
  const sectionsOf = (half, a, b) => {
    const s0 = a % (half + 1), s1 = b % (half - s0 + 1);
    return [s0, s1, half - s0 - s1];
  };

  test('M-RoPE with all three axes at the same positions is plain RoPE bit for bit', () => {
    check(150, [fc.integer({ min: 1, max: 12 }), fc.nat(), fc.nat(), fc.array(position, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 3 }), fc.constantFrom('half', 'interleaved'), fc.constantFrom('float64', 'float32'), unitScaling], (half, a, b, list, heads, layout, precision, scaling) => {
      const rotaryDim = dimFor(scaling, half);
      const mropeSection = sectionsOf(rotaryDim / 2, a, b);
      const positions = Int32Array.from(list);
      const three = Int32Array.from([...list, ...list, ...list]);
      const x = Float32Array.from({ length: list.length * heads * rotaryDim }, (_, i) => Math.sin(a + 0.7 * i));
      const opts = { heads, headDim: rotaryDim, layout, precision, scaling };
      const plain = posenc.applyRope(x.slice(), { ...opts, positions });
      const multi = posenc.applyRope(x.slice(), { ...opts, positions: three, mropeSection });
      const c1 = posenc.ropeCache({ rotaryDim, positions, precision, scaling });
      const c2 = posenc.ropeCache({ rotaryDim, positions: three, mropeSection, precision, scaling });
      return same(plain, multi) && same(c1.cos, c2.cos) && same(c1.sin, c2.sin);
    });
  });

  test('each pair of an M-RoPE cache is the plain cache of its own axis', () => {
    check(150, [fc.integer({ min: 1, max: 10 }), fc.nat(), fc.nat(), fc.array(fc.tuple(position, position, position), { minLength: 1, maxLength: 10 })], (half, a, b, rows) => {
      const rotaryDim = 2 * half;
      const mropeSection = sectionsOf(half, a, b);
      const axes = [0, 1, 2].map((i) => Int32Array.from(rows, (r) => r[i]));
      const m = posenc.ropeCache({ rotaryDim, mropeSection, positions: Int32Array.from([...axes[0], ...axes[1], ...axes[2]]) });
      const plain = axes.map((positions) => posenc.ropeCache({ rotaryDim, positions }));
      const axisOf = (k) => (k < mropeSection[0] ? 0 : k < mropeSection[0] + mropeSection[1] ? 1 : 2);
      return maxDiff(m.cos.length, (i) => m.cos[i] - plain[axisOf(i % half)].cos[i]) <= 2 * EPS23 &&
        maxDiff(m.sin.length, (i) => m.sin[i] - plain[axisOf(i % half)].sin[i]) <= 2 * EPS23;
    });
  });

  test('2-D RoPE: <R(y, x) q, R(y\', x\') k> depends only on (y - y\', x - x\'), both forms', () => {
    const coord = fc.integer({ min: 0, max: 5000 });
    check(150, [fc.integer({ min: 1, max: 6 }).map((q) => 4 * q), coord, coord, fc.integer({ min: -40, max: 40 }), fc.integer({ min: -40, max: 40 }), fc.constantFrom('pixtral', 'axial'), values(24), values(24)], (headDim, y, x, dy, dx, rope2d, qv, kv) => {
      if (y - dy < 0 || x - dx < 0) return true;
      const q = qv.subarray(0, headDim), k = kv.subarray(0, headDim);
      const at = (v, py, px) => posenc.applyRope(Float32Array.from(v), { heads: 1, headDim, rope2d, positions: Int32Array.from([py, px]) });
      const far = dot(at(q, y, x), at(k, y - dy, x - dx));
      const near = dot(at(q, dy, dx), k);
      return Math.abs(far - near) <= 2 ** -18 * headDim * 4;
    });
  });
});

// ------------------------------------------------------------------ out, zero-copy, copying

describe('identical results with and without out, through zero-copy and copying paths', () => {
  // [name, arbitrary of options, call(options, out), element type, length(options)]
  const calls = [
    ['sinusoidal', fc.record({ length: fc.integer({ min: 0, max: 20 }), dModel: fc.integer({ min: 4, max: 24 }), offset: start(), layout: fc.constantFrom(...LAYOUTS) }), (o, out) => posenc.sinusoidal({ ...o, out }), 'float32', (o) => o.length * o.dModel],
    ['sinusoidal2d', fc.record({ height: fc.integer({ min: 0, max: 8 }), width: fc.integer({ min: 0, max: 8 }), dModel: fc.integer({ min: 1, max: 6 }).map((q) => 4 * q), clsToken: fc.boolean() }), (o, out) => posenc.sinusoidal2d({ ...o, out }), 'float32', (o) => ((o.clsToken ? 1 : 0) + o.height * o.width) * o.dModel],
    ['timestepEmbedding', fc.record({ timesteps: fc.array(fc.double({ min: -1000, max: 1000, noNaN: true }), { maxLength: 8 }), dim: fc.integer({ min: 4, max: 24 }), flipSinToCos: fc.boolean() }), (o, out) => posenc.timestepEmbedding({ ...o, out }), 'float32', (o) => o.timesteps.length * o.dim],
    ['relativePositions', fc.record({ queryLength: fc.integer({ min: 0, max: 12 }), keyLength: fc.integer({ min: 0, max: 12 }), shift: fc.integer({ min: -1e6, max: 1e6 }) }), (o, out) => posenc.relativePositions({ ...o, out }), 'int32', (o) => o.queryLength * o.keyLength],
    ['alibiBias', fc.record({ heads: fc.integer({ min: 1, max: 6 }), queryLength: fc.integer({ min: 0, max: 10 }), keyLength: fc.integer({ min: 0, max: 10 }), causal: fc.boolean() }), (o, out) => posenc.alibiBias({ ...o, out }), 'float32', (o) => o.heads * o.queryLength * o.keyLength],
    ['t5Buckets', fc.record({ queryLength: fc.integer({ min: 0, max: 10 }), keyLength: fc.integer({ min: 0, max: 200 }), queryOffset: fc.integer({ min: 0, max: 500 }) }), (o, out) => posenc.t5Buckets({ ...o, out }), 'int32', (o) => o.queryLength * o.keyLength],
    ['t5Bias', fc.record({ heads: fc.integer({ min: 1, max: 4 }), queryLength: fc.integer({ min: 0, max: 10 }), keyLength: fc.integer({ min: 0, max: 60 }) }), (o, out) => posenc.t5Bias({ ...o, weights: Float32Array.from({ length: 32 * o.heads }, (_, i) => i), out }), 'float32', (o) => o.heads * o.queryLength * o.keyLength],
    ['debertaBuckets', fc.record({ queryLength: fc.integer({ min: 0, max: 10 }), keyLength: fc.integer({ min: 0, max: 400 }) }), (o, out) => posenc.debertaBuckets({ ...o, out }), 'int32', (o) => o.queryLength * o.keyLength],
    ['transformerXLEmbedding', fc.record({ keyLength: fc.integer({ min: 0, max: 20 }), dModel: fc.integer({ min: 1, max: 12 }).map((h) => 2 * h), clampLength: fc.integer({ min: 0, max: 30 }) }), (o, out) => posenc.transformerXLEmbedding({ ...o, out }), 'float32', (o) => o.keyLength * o.dModel],
    ['ropePermuteWeights', fc.record({ heads: fc.integer({ min: 1, max: 3 }), headDim: fc.integer({ min: 1, max: 6 }).map((h) => 2 * h), inFeatures: fc.integer({ min: 1, max: 4 }), to: fc.constantFrom('half', 'interleaved') }), (o, out) => posenc.ropePermuteWeights(Float32Array.from({ length: o.heads * o.headDim * o.inFeatures }, (_, i) => i), { heads: o.heads, headDim: o.headDim, from: o.to === 'half' ? 'interleaved' : 'half', to: o.to, out }), 'float32', (o) => o.heads * o.headDim * o.inFeatures],
  ];
  const Ctor = { float32: Float32Array, int32: Int32Array };

  test.each(calls)('%s: new array, out and WasmArray out agree; a view of a WasmArray as out is refused', (_name, options, call, type, lengthOf) => {
    check(60, [options], (o) => {
      const before = posenc.memoryStats().allocatedBytes;
      const fresh = call(o, undefined);
      const out = new Ctor[type](lengthOf(o));
      if (call(o, out) !== out) return false;
      const n = Math.max(1, lengthOf(o));
      const wa = posenc.allocate(type, n);
      try {
        const target = lengthOf(o) === n ? wa : new Ctor[type](0); // an empty result: an empty array
        if (call(o, target) !== target) return false;
        const viaWasm = lengthOf(o) === n ? Array.from(wa.array) : [];
        let refused = false;
        try {
          call(o, wa.array.subarray(0, lengthOf(o)));
        } catch (error) {
          refused = error instanceof TypeError && /view of posenc's wasm memory/.test(error.message);
        }
        return refused && same(fresh, out) && same(Array.from(fresh), viaWasm);
      } finally {
        wa.free();
        if (posenc.memoryStats().allocatedBytes !== before) return false; // eslint-disable-line no-unsafe-finally
      }
    });
  });

  test('ropeCache and the in-place functions (addSinusoidal, applyRope): copying and zero-copy agree bit for bit', () => {
    check(120, [fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 8 }), start(), anyScaling, fc.constantFrom('float64', 'float32'), fc.constantFrom('half', 'interleaved'), fc.nat()], (seq, half, offset, scaling, precision, layout, seedValue) => {
      const rotaryDim = dimFor(scaling, half);
      const n = seq * (rotaryDim / 2);
      const before = posenc.memoryStats().allocatedBytes;
      const fresh = posenc.ropeCache({ length: seq, offset, rotaryDim, scaling, precision });
      const c = posenc.allocate('float32', n), s = posenc.allocate('float32', n), x = posenc.allocate('float32', seq * 2 * rotaryDim);
      try {
        posenc.ropeCache({ length: seq, offset, rotaryDim, scaling, precision, out: { cos: c, sin: s } });
        const cacheOk = same(fresh.cos, c.array) && same(fresh.sin, s.array);
        const x0 = Float32Array.from({ length: seq * 2 * rotaryDim }, (_, i) => Math.sin(seedValue + i));
        const rope = { heads: 2, headDim: rotaryDim, offset, scaling, precision, layout };
        const copied = posenc.applyRope(Float32Array.from(x0), rope);
        x.array.set(x0);
        posenc.applyRope(x, rope); // a WasmArray, in place
        const ropeWasm = same(copied, x.array);
        const added = posenc.addSinusoidal(Float32Array.from(x0), { dModel: rotaryDim, offset, scale: 1.5 });
        x.array.set(x0);
        posenc.addSinusoidal(x, { dModel: rotaryDim, offset, scale: 1.5 });
        return cacheOk && ropeWasm && same(added, x.array);
      } finally {
        c.free();
        s.free();
        x.free();
        if (posenc.memoryStats().allocatedBytes !== before) return false; // eslint-disable-line no-unsafe-finally
      }
    });
  });
});
