// T5 and DeBERTa-v2 relative buckets: bit for bit against tests/fixtures/reference.json
// (cross-checked against torch's float32 run) and against float32 oracles written here.
import { readFileSync } from 'node:fs';
import { posenc, thrown } from '../helpers.js';

const ref = JSON.parse(readFileSync(new URL('../fixtures/reference.json', import.meta.url)));
const f32 = Math.fround;
const I32 = 2 ** 31 - 1;

beforeAll(() => posenc.init());

// HF T5Attention._relative_position_bucket in torch's float32 (relative_position.float() first).
function t5Oracle(rel, bidirectional, numBuckets, maxDistance) {
  let base = 0;
  let nb = numBuckets;
  let n;
  if (bidirectional) {
    nb = Math.floor(nb / 2);
    if (rel > 0) base = nb;
    n = Math.abs(rel);
  } else {
    n = Math.max(-rel, 0);
  }
  const e = Math.floor(nb / 2);
  if (n < e) return base + n;
  const lg = f32(Math.log(f32(f32(n) / e)));
  const v = f32(f32(lg / f32(Math.log(maxDistance / e))) * (nb - e));
  return base + Math.min(e + Math.trunc(v), nb - 1);
}

// HF make_log_bucket_position in torch's float32.
function debertaOracle(rel, bucketSize, maxPosition) {
  const mid = Math.floor(bucketSize / 2);
  const a = rel < mid && rel > -mid ? mid - 1 : Math.abs(rel);
  if (a <= mid) return rel;
  const num = f32(Math.log(f32(f32(a) / mid)));
  const den = f32(Math.log(f32((maxPosition - 1) / mid)));
  return Math.sign(rel) * (Math.ceil(f32(f32(num / den) * (mid - 1))) + mid);
}

const row = (m, r, k) => Array.from(m.subarray(r * k, (r + 1) * k));
// 0 .. 2^16 - 1, then steps of 1% up to limit, then limit itself
const sweep = (limit) => {
  const out = [];
  for (let n = 0; n < limit; n = n < 2 ** 16 ? n + 1 : Math.floor(n * 1.01)) out.push(n);
  return [...out, limit];
};

describe('t5Buckets', () => {
  const valid = ref.t5Buckets.filter((c) => !(c.bidirectional && c.numBuckets % 2));
  const cfgOf = (c) => ({ bidirectional: c.bidirectional, numBuckets: c.numBuckets, maxDistance: c.maxDistance });

  test.each(valid.map((c) => [c.bidirectional, c.numBuckets, c.maxDistance, c]))(
    'bidirectional %s, %i buckets, maxDistance %i: the reference table and matrices, bit for bit',
    (_, __, ___, c) => {
      const width = c.relativePositionEnd - c.relativePositionStart + 1;
      // one query at -start against keys 0 .. width-1: key - query = start .. end
      const table = posenc.t5Buckets({ ...cfgOf(c), queryLength: 1, keyLength: width, queryOffset: -c.relativePositionStart });
      expect(Array.from(table)).toEqual(c.table);
      const used = new Set(table);
      expect(Array.from({ length: c.numBuckets }, (_, b) => b).filter((b) => !used.has(b))).toEqual(c.unusedBuckets);
      for (const m of c.matrices) {
        const got = posenc.t5Buckets({ ...cfgOf(c), queryLength: m.queryLength, keyLength: m.keyLength, queryOffset: m.queryOffset });
        expect(Array.from(got)).toEqual(m.buckets.flat());
      }
    },
  );

  test('odd numBuckets when bidirectional: HF leaves buckets unused, posenc rejects it', () => {
    const c = ref.t5Buckets.find((x) => x.bidirectional && x.numBuckets === 31);
    expect(c.unusedBuckets).toEqual([15, 30]);
    const e = thrown(() => posenc.t5Buckets({ queryLength: 4, numBuckets: 31 }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/posenc\.t5Buckets: numBuckets must be an even integer from 4 .*when bidirectional.*got 31/);
    // unidirectional, an odd count is fine (the fixture's 15/64 case above)
    expect(posenc.t5Buckets({ queryLength: 2, bidirectional: false, numBuckets: 15, maxDistance: 64 }).length).toBe(4);
  });

  test('the exact-integer log points |rel| = 16, 32, 64 (32/128) and 8, 16, 32 (16/64)', () => {
    const at = (rel, cfg) => posenc.t5Buckets({ ...cfg, queryLength: 1, keyLength: Math.max(rel, 0) + 1, queryOffset: Math.max(-rel, 0) })[Math.max(rel, 0)];
    // where a float32 log one ulp low would drop the bucket (reference.json precisionAudit)
    const audit = ref.precisionAudit.t5.find((a) => a.bidirectional && a.numBuckets === 32);
    expect(audit.differences.logDown.map((d) => d.relativePosition)).toEqual([-64, -32, -16, 16, 32, 64]);
    for (const d of audit.differences.logDown) expect(at(d.relativePosition, {})).toBe(d.float32);
    expect([16, 32, 64].map((r) => at(r, {}))).toEqual([26, 28, 30]);
    expect([-16, -32, -64].map((r) => at(r, {}))).toEqual([10, 12, 14]);
    // 16/64: the log term is an integer at 8, 16, 32 (reference table values)
    const small = { numBuckets: 16, maxDistance: 64 };
    expect([8, 16, 32, -8, -16, -32].map((r) => at(r, small))).toEqual([13, 14, 15, 5, 6, 7]);
    expect([-8, -16, -32].map((r) => at(r, { ...small, bidirectional: false }))).toEqual([8, 10, 13]);
  });

  test('long-distance sweep to 2^31 - 1: the float32 oracle, in range, monotone, saturating', () => {
    for (const cfg of [
      { bidirectional: true, numBuckets: 32, maxDistance: 128 },
      { bidirectional: false, numBuckets: 32, maxDistance: 128 },
      { bidirectional: true, numBuckets: 64, maxDistance: 1000 },
      { bidirectional: false, numBuckets: 7, maxDistance: 9 },
    ]) {
      // key 0 against queries at n: rel = -n; one column for n < 2^16, then single queries
      const column = posenc.t5Buckets({ ...cfg, queryLength: 2 ** 16, keyLength: 1 });
      let prev = -1;
      for (const n of sweep(I32)) {
        const b = n < 2 ** 16 ? column[n] : posenc.t5Buckets({ ...cfg, queryLength: 1, keyLength: 1, queryOffset: n })[0];
        if (b !== t5Oracle(-n, cfg.bidirectional, cfg.numBuckets, cfg.maxDistance) || b < prev || b >= cfg.numBuckets) {
          throw new Error(`rel -${n}: ${b} (previous ${prev}) ${JSON.stringify(cfg)}`);
        }
        prev = b;
      }
      expect(prev).toBe(cfg.bidirectional ? cfg.numBuckets / 2 - 1 : cfg.numBuckets - 1);
      // rel = +j up to 2^18 (one row of keys)
      const keys = posenc.t5Buckets({ ...cfg, queryLength: 1, keyLength: 2 ** 18 });
      let bad = 0;
      for (let j = 0; j < keys.length; j++) {
        const b = keys[j];
        if (b !== t5Oracle(j, cfg.bidirectional, cfg.numBuckets, cfg.maxDistance) || (j > 0 && b < keys[j - 1]) || b >= cfg.numBuckets) bad++;
      }
      expect(bad).toBe(0);
      expect(keys[2 ** 18 - 1]).toBe(cfg.bidirectional ? cfg.numBuckets - 1 : 0);
    }
    // the last int32 positions
    const last = posenc.t5Buckets({ queryLength: 2, keyLength: 3, queryOffset: I32 - 1 });
    expect(Array.from(last)).toEqual([15, 15, 15, 15, 15, 15]);
  });

  test('queryOffset: decoding rows are the rows of the full matrix; the matrix depends on key - query only', () => {
    for (const bidirectional of [true, false]) {
      const [Q, K] = [40, 300];
      const full = posenc.t5Buckets({ queryLength: Q, keyLength: K, bidirectional });
      for (let r = 0; r < Q; r++) {
        const one = posenc.t5Buckets({ queryLength: 1, keyLength: K, queryOffset: r, bidirectional });
        expect(Array.from(one)).toEqual(row(full, r, K));
        row(full, r, K).forEach((b, j) => {
          if (b !== t5Oracle(j - r, bidirectional, 32, 128)) throw new Error(`(${r}, ${j})`);
        });
      }
      const out = new Int32Array(3 * K);
      expect(posenc.t5Buckets({ queryLength: 3, keyLength: K, queryOffset: 37, bidirectional, out })).toBe(out);
      expect(Array.from(out)).toEqual(Array.from(full.subarray(37 * K, 40 * K)));
    }
  });

  test('smallest configurations; keyLength defaults to queryLength; empty matrices', () => {
    expect(Array.from(posenc.t5Buckets({ queryLength: 1, keyLength: 4, queryOffset: 1, numBuckets: 4, maxDistance: 2 }))).toEqual([1, 0, 3, 3]);
    expect(Array.from(posenc.t5Buckets({ queryLength: 3, keyLength: 1, bidirectional: false, numBuckets: 2, maxDistance: 2 }))).toEqual([0, 1, 1]);
    expect(posenc.t5Buckets({ queryLength: 5 }).length).toBe(25);
    expect(posenc.t5Buckets({ queryLength: 0, keyLength: 9 }).length).toBe(0);
  });
});

describe('t5Bias', () => {
  const lcg = (n, seed = 12345) => {
    let s = seed;
    return Float32Array.from({ length: n }, () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1);
  };

  test('gathers weights[bucket][head] into [heads][query][key] (the reference buckets)', () => {
    for (const c of ref.t5Buckets.filter((x) => !(x.bidirectional && x.numBuckets % 2))) {
      const heads = 3;
      const weights = lcg(c.numBuckets * heads);
      const copy = weights.slice();
      for (const m of c.matrices) {
        const opts = { bidirectional: c.bidirectional, numBuckets: c.numBuckets, maxDistance: c.maxDistance, queryLength: m.queryLength, keyLength: m.keyLength, queryOffset: m.queryOffset };
        const bias = posenc.t5Bias({ ...opts, heads, weights });
        const buckets = m.buckets.flat();
        const plane = buckets.length;
        expect(bias.length).toBe(heads * plane);
        let bad = 0;
        bias.forEach((v, x) => {
          if (!Object.is(v, weights[buckets[x % plane] * heads + Math.floor(x / plane)])) bad++;
        });
        expect(bad).toBe(0);
      }
      expect(weights).toEqual(copy);
    }
  });

  test('monotone in distance with a table that decreases with the bucket on each side', () => {
    const heads = 2;
    // per direction: bucket b (mod 16) has weight -(h + 1) * (b mod 16)
    const weights = Float32Array.from({ length: 32 * heads }, (_, x) => -(x % heads + 1) * (Math.floor(x / heads) % 16) + 0);
    const [Q, K] = [30, 200];
    const bias = posenc.t5Bias({ queryLength: Q, keyLength: K, heads, weights });
    let bad = 0;
    for (let h = 0; h < heads; h++) {
      for (let r = 0; r < Q; r++) {
        const b = bias.subarray((h * Q + r) * K, (h * Q + r + 1) * K);
        for (let j = 1; j < K; j++) {
          if (j <= r && !(b[j] >= b[j - 1])) bad++; // key approaching from before
          if (j > r + 1 && !(b[j] <= b[j - 1])) bad++; // key moving away after
        }
      }
    }
    expect(bad).toBe(0);
    expect(bias[0]).toBe(0); // query 0, key 0: bucket 0
    expect(bias[K - 1]).toBe(-1 * 15); // the farthest key after: bucket 31
  });

  test('zero-copy: weights and out as WasmArrays; decoding rows of the full bias', () => {
    const heads = 4;
    const w = posenc.allocate('float32', 32 * heads);
    const out = posenc.allocate('float32', heads * 1 * 50);
    try {
      w.array.set(lcg(32 * heads, 7));
      const full = posenc.t5Bias({ queryLength: 50, heads, weights: w.array.slice() });
      for (const n of [0, 9, 49]) {
        expect(posenc.t5Bias({ queryLength: 1, keyLength: 50, queryOffset: n, heads, weights: w, out })).toBe(out);
        for (let h = 0; h < heads; h++) {
          expect(Array.from(out.array.subarray(h * 50, (h + 1) * 50))).toEqual(Array.from(full.subarray((h * 50 + n) * 50, (h * 50 + n + 1) * 50)));
        }
      }
    } finally {
      w.free();
      out.free();
    }
  });
});

describe('debertaBuckets', () => {
  test.each(ref.debertaBuckets.configs.map((c) => [c.bucketSize, c.maxPosition, c]))(
    'bucketSize %i, maxPosition %i: the reference table and matrices, bit for bit',
    (bucketSize, maxPosition, c) => {
      // [N][1] gives bucket(q) for q = 0..N-1; [1][N] gives bucket(-k)
      const N = c.relativePositionEnd + 1;
      const pos = posenc.debertaBuckets({ queryLength: N, keyLength: 1, bucketSize, maxPosition });
      const neg = posenc.debertaBuckets({ queryLength: 1, keyLength: -c.relativePositionStart + 1, bucketSize, maxPosition });
      const table = c.table.map((_, i) => {
        const rel = c.relativePositionStart + i;
        return rel >= 0 ? pos[rel] : neg[-rel];
      });
      expect(table).toEqual(c.table);
      for (const m of c.matrices) {
        expect(Array.from(posenc.debertaBuckets({ queryLength: m.queryLength, keyLength: m.keyLength, bucketSize, maxPosition }))).toEqual(m.relativePositions.flat());
      }
    },
  );

  test('query - key: the opposite sign of T5 and relativePositions', () => {
    const d = posenc.debertaBuckets({ queryLength: 6, keyLength: 9 });
    const rp = posenc.relativePositions({ queryLength: 6, keyLength: 9 }); // key - query
    expect(Array.from(d)).toEqual(Array.from(rp, (v) => -v || 0));
    expect(d[1 * 9 + 0]).toBe(1); // query 1, key 0: +1 (T5 would place it on the "before" side)
  });

  test("HF's unbucketed form (position_buckets <= 0) is not this function: rejected with a pointer", () => {
    const u = ref.debertaBuckets.unbucketed;
    const e = thrown(() => posenc.debertaBuckets({ queryLength: u.queryLength, keyLength: u.keyLength, bucketSize: u.bucketSize }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/posenc\.debertaBuckets: bucketSize .*got -1.*no bucketing/);
    const rp = posenc.relativePositions({ queryLength: u.queryLength, keyLength: u.keyLength });
    expect(Array.from(rp, (v) => -v || 0)).toEqual(u.relativePositions.flat());
  });

  test('float32 semantics at the audit points; long distances against the float32 oracle', () => {
    const audit = ref.precisionAudit.deberta.find((a) => a.bucketSize === 256);
    const at = (rel) => (rel >= 0
      ? posenc.debertaBuckets({ queryLength: rel + 1, keyLength: 1 })[rel]
      : posenc.debertaBuckets({ queryLength: 1, keyLength: 1 - rel })[-rel]);
    for (const d of audit.differences.logUp) expect(at(d.relativePosition)).toBe(d.float32);
    const first = audit.firstFloat64DisagreementUpTo1e5; // where float64 evaluation would differ
    expect(at(first.relativePosition)).toBe(first.float32);
    for (const [bucketSize, maxPosition, N] of [[256, 512, 2 ** 20], [8, 16, 2 ** 17], [2, 3, 2 ** 17], [1000, 1003, 2 ** 17]]) {
      const col = posenc.debertaBuckets({ queryLength: N, keyLength: 1, bucketSize, maxPosition });
      const rowNeg = posenc.debertaBuckets({ queryLength: 1, keyLength: N, bucketSize, maxPosition });
      let bad = 0;
      for (let q = 0; q < N; q++) {
        if (col[q] !== debertaOracle(q, bucketSize, maxPosition) || (q > 0 && col[q] < col[q - 1])) bad++;
        if (rowNeg[q] !== -col[q]) bad++;
      }
      expect(bad).toBe(0);
    }
  });

  test('antisymmetric, monotone, keyLength defaults to queryLength, out filled and returned', () => {
    const [Q, K] = [50, 800];
    const out = new Int32Array(Q * K);
    expect(posenc.debertaBuckets({ queryLength: Q, keyLength: K, out })).toBe(out);
    for (let q = 0; q < Q; q++) {
      for (let k = 0; k < K; k++) {
        const v = out[q * K + k];
        if (v !== debertaOracle(q - k, 256, 512) || (k > 0 && v > out[q * K + k - 1])) throw new Error(`(${q}, ${k})`);
        if (k < Q && v !== -out[k * K + q]) throw new Error(`antisymmetry at (${q}, ${k})`);
      }
    }
    expect(posenc.debertaBuckets({ queryLength: 7 }).length).toBe(49);
  });

  describe('the limits are the C routine\'s, never a JS re-evaluation', () => {
    // posenc's own module, instantiated raw: posenc_deberta_bucket and posenc_deberta_buckets
    let e;
    beforeAll(async () => {
      const bytes = readFileSync(new URL('../../dist/posenc.wasm', import.meta.url));
      e = (await WebAssembly.instantiate(bytes, {})).instance.exports;
      e._initialize();
    });
    const cBucket = (rel, bucketSize, maxPosition) => {
      const ptr = e.malloc(4) >>> 0;
      const status = e.posenc_deberta_bucket(ptr, rel, bucketSize, maxPosition);
      const v = new Float32Array(e.memory.buffer, ptr, 1)[0];
      e.free(ptr);
      return status === 0 ? v : null;
    };

    test('the bucket a refusal reports is posenc_deberta_bucket\'s', () => {
      for (const [bucketSize, maxPosition, queryLength] of [[2 ** 23, 2 ** 22 + 2, 2 ** 23 + 1], [I32, I32, I32], [2 ** 20, 2 ** 19 + 2, 2 ** 24]]) {
        const error = thrown(() => posenc.debertaBuckets({ queryLength, keyLength: 0, bucketSize, maxPosition }));
        expect(error).toBeInstanceOf(RangeError);
        expect(error.message).toContain(`the bucket of rel = queryLength - 1 is ${cBucket(queryLength - 1, bucketSize, maxPosition)}, got ${queryLength}`);
      }
    });

    test('debertaBuckets refuses exactly what posenc_deberta_buckets refuses (random parameters near the limits)', () => {
      let seed = 7;
      const random = (n) => { // an integer in [0, n), from the generator's high bits
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return Math.floor((seed / 2 ** 31) * n);
      };
      const INVALID = -2;
      let refused = 0;
      for (let i = 0; i < 2000; i++) {
        const mid = 2 ** random(31);
        const bucketSize = Math.min(I32, 2 * mid + random(2));
        // denominators from log(1) = 0 (refused) through tiny (buckets past int32) to ordinary
        const maxPosition = Math.min(I32, mid + 1 + random(4) * 2 ** random(24));
        const length = Math.min(I32, mid * 2 ** random(12) + random(1000));
        const [queryLength, keyLength] = random(2) ? [length, 0] : [0, length];
        // an empty matrix (one length 0): the C routine validates, then has nothing to write
        const ptr = e.malloc(4) >>> 0;
        const status = e.posenc_deberta_buckets(ptr, 0, queryLength, keyLength, bucketSize, maxPosition);
        e.free(ptr);
        let error = null;
        try {
          posenc.debertaBuckets({ queryLength, keyLength, bucketSize, maxPosition });
        } catch (err) {
          error = err;
        }
        if (error) expect(error).toBeInstanceOf(RangeError);
        if (status === INVALID) refused++;
        const params = [queryLength, keyLength, bucketSize, maxPosition];
        expect([...params, error !== null]).toEqual([...params, status === INVALID]);
      }
      expect(refused).toBeGreaterThan(100); // both verdicts are common
      expect(refused).toBeLessThan(1900);
    });
  });
});

// keyLength is optional for t5Buckets, t5Bias and debertaBuckets: it defaults to
// queryLength (a square self-attention matrix), and the documentation says so
// where users look (the API table of docs/api.md, the declarations' JSDoc).
describe('keyLength defaults to queryLength', () => {
  test('the values: the square matrix', () => {
    expect(posenc.t5Buckets({ queryLength: 9 })).toEqual(posenc.t5Buckets({ queryLength: 9, keyLength: 9 }));
    expect(posenc.debertaBuckets({ queryLength: 150 })).toEqual(posenc.debertaBuckets({ queryLength: 150, keyLength: 150 }));
    const weights = Float32Array.from({ length: 32 * 2 }, (_, i) => i);
    expect(posenc.t5Bias({ heads: 2, weights, queryLength: 7 })).toEqual(posenc.t5Bias({ heads: 2, weights, queryLength: 7, keyLength: 7 }));
  });

  test('the documentation: docs/api.md rows and .d.ts JSDoc', () => {
    const api = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    for (const fn of ['t5Buckets', 'debertaBuckets']) {
      const row = api.split('\n').find((line) => line.startsWith(`| \`${fn}(opts)\``));
      expect(row).toContain('`keyLength` (= queryLength)');
    }
    const dts = readFileSync(new URL('../../dist/posenc.d.ts', import.meta.url), 'utf8');
    for (const fn of ['t5Buckets', 'debertaBuckets']) {
      const doc = dts.slice(0, dts.indexOf(`export function ${fn}(`)).split('/**').pop();
      expect(doc).toContain('keyLength defaults to queryLength');
    }
  });
});
