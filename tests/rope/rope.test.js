// RoPE: reference vectors (tests/fixtures/reference.json, double-precision
// evaluations of HF modeling_rope_utils.py), config parsing, API behaviour.
import { readFileSync } from 'node:fs';
import { posenc, thrown } from '../helpers.js';

const ref = JSON.parse(readFileSync(new URL('../fixtures/reference.json', import.meta.url)));
const EPS22 = 2 ** -22;
const EPS23 = 2 ** -23;

beforeAll(() => posenc.init());

/** Fixture params { rotaryDim, base, ...scaling } -> ropeFrequencies options. */
function options(ropeType, params) {
  const { rotaryDim, base, ...scaling } = params;
  return { rotaryDim, base, scaling: { type: ropeType, ...scaling } };
}

const maxRel = (got, want) => Math.max(...Array.from(got, (v, i) => Math.abs(v - want[i]) / Math.abs(want[i])));

describe('ropeFrequencies: every HF rope type against the reference', () => {
  test.each(ref.ropeFrequencies.map((c) => [c.name, c]))('%s', (name, c) => {
    const { invFreq, attentionFactor } = posenc.ropeFrequencies(options(c.ropeType, c.params));
    expect(invFreq).toBeInstanceOf(Float64Array);
    expect(invFreq.length).toBe(c.invFreq.length);
    expect(maxRel(invFreq, c.invFreq)).toBeLessThanOrEqual(1e-15); // a few double ulps (pow differs by an ulp)
    expect(Math.abs(attentionFactor - c.attentionFactor)).toBeLessThanOrEqual(1e-15);
  });

  test("'default' type, no scaling and scaling: null are the same", () => {
    const a = posenc.ropeFrequencies({ rotaryDim: 64 });
    const b = posenc.ropeFrequencies({ rotaryDim: 64, base: 10000, scaling: { type: 'default' } });
    const c = posenc.ropeFrequencies({ rotaryDim: 64, scaling: null });
    expect(Array.from(b.invFreq)).toEqual(Array.from(a.invFreq));
    expect(Array.from(c.invFreq)).toEqual(Array.from(a.invFreq));
    expect(a.attentionFactor).toBe(1);
  });

  test('YaRN: factor defaults to maxPositionEmbeddings / originalMaxPositionEmbeddings; an explicit factor wins (HF #40320)', () => {
    const c = ref.ropeFrequencies.find((x) => x.name === 'yarn-f4');
    const { factor, ...rest } = c.params;
    const derived = posenc.ropeFrequencies(options('yarn', rest)); // 16384 / 4096 = 4
    expect(maxRel(derived.invFreq, c.invFreq)).toBeLessThanOrEqual(1e-15);
    expect(derived.attentionFactor).toBeCloseTo(c.attentionFactor, 15);
    // Qwen2.5's published recipe: factor 4 with max == original (implicit ratio 1): the factor still applies
    const qwen = posenc.ropeFrequencies({
      rotaryDim: 64, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, maxPositionEmbeddings: 4096 },
    });
    expect(maxRel(qwen.invFreq, c.invFreq)).toBeLessThanOrEqual(1e-15);
  });

  test('LongRoPE: short factors up to originalMaxPositionEmbeddings, long ones beyond; factors as Float64Array', () => {
    const c = ref.ropeFrequencies.find((x) => x.name === 'longrope-seq8192');
    const short = ref.ropeFrequencies.find((x) => x.name === 'longrope-seq2048');
    const o = options('longrope', { ...c.params, shortFactor: Float64Array.from(c.params.shortFactor) });
    expect(maxRel(posenc.ropeFrequencies(o).invFreq, c.invFreq)).toBeLessThanOrEqual(1e-15);
    o.scaling.seqLength = 4096; // not > original: short
    expect(maxRel(posenc.ropeFrequencies(o).invFreq, short.invFreq)).toBeLessThanOrEqual(1e-15);
    delete o.scaling.seqLength; // HF's seq_len=None: short
    expect(maxRel(posenc.ropeFrequencies(o).invFreq, short.invFreq)).toBeLessThanOrEqual(1e-15);
  });
});

describe('ropeCache against the reference', () => {
  test.each(ref.ropeCache.map((c) => [c.name, c]))('%s', (name, c) => {
    const o = options(c.ropeType, c.params);
    const rows = c.positions ? { positions: Int32Array.from(c.positions) } : { offset: c.offset, length: c.length };
    const { cos, sin } = posenc.ropeCache({ ...o, ...rows });
    const half = c.cos[0].length;
    expect(cos.length).toBe(c.cos.length * half);
    let worst = 0;
    c.cos.forEach((row, r) =>
      row.forEach((v, k) => {
        worst = Math.max(worst, Math.abs(cos[r * half + k] - v), Math.abs(sin[r * half + k] - c.sin[r][k]));
      }),
    );
    expect(worst).toBeLessThanOrEqual(EPS23);
  });

  test('out { cos, sin } is filled and returned; WasmArrays work in place', () => {
    const out = { cos: new Float32Array(6), sin: new Float32Array(6) };
    expect(posenc.ropeCache({ length: 2, rotaryDim: 6, out })).toBe(out);
    expect(out.cos[0]).toBe(1);
    expect(Math.abs(out.sin[4] - Math.sin(1 / 10000 ** (2 / 6)))).toBeLessThanOrEqual(EPS23); // row 1, pair 1
    const wc = posenc.allocate('float32', 6);
    const ws = posenc.allocate('float32', 6);
    const wout = { cos: wc, sin: ws };
    expect(posenc.ropeCache({ length: 2, rotaryDim: 6, out: wout })).toBe(wout);
    expect(Array.from(wc.array)).toEqual(Array.from(out.cos));
    expect(Array.from(ws.array)).toEqual(Array.from(out.sin));
    wc.free();
    ws.free();
  });

  test('length 0 gives empty tables', () => {
    const { cos, sin } = posenc.ropeCache({ length: 0, rotaryDim: 8 });
    expect(cos.length + sin.length).toBe(0);
  });
});

describe('applyRope against the reference', () => {
  const { shape, x, cases } = ref.applyRope;
  const flat = x.flat(3);
  test.each(cases.map((c) => [`${c.layout} rotaryDim ${c.rotaryDim} offset ${c.offset}`, c]))('%s', (name, c) => {
    const input = Float32Array.from(flat);
    const out = posenc.applyRope(input, {
      heads: shape.heads, headDim: c.headDim, rotaryDim: c.rotaryDim, layout: c.layout, base: c.base,
      offset: c.offset, batch: shape.batch,
    });
    expect(out).toBe(input);
    const want = c.out.flat(3);
    const d = c.headDim;
    const pair = (i) => {
      const j = i % d;
      if (j >= c.rotaryDim) return i;
      const half = c.rotaryDim / 2;
      const mate = c.layout === 'half' ? (j < half ? j + half : j - half) : j ^ 1;
      return i - j + mate;
    };
    want.forEach((v, i) => {
      const bound = i % d >= c.rotaryDim ? 0 : EPS22 * (Math.abs(flat[i]) + Math.abs(flat[pair(i)]));
      expect(Math.abs(out[i] - v)).toBeLessThanOrEqual(bound);
    });
  });
});

// [batch][seq][heads][headDim] <-> [batch][heads][seq][headDim]: the vector of (b, s, h) moves whole.
function toBhsd(x, batch, heads, headDim) {
  const seq = x.length / (batch * heads * headDim);
  const out = new Float32Array(x.length);
  for (let b = 0; b < batch; b++) {
    for (let s = 0; s < seq; s++) {
      for (let h = 0; h < heads; h++) {
        const from = ((b * seq + s) * heads + h) * headDim;
        out.set(x.subarray(from, from + headDim), ((b * heads + h) * seq + s) * headDim);
      }
    }
  }
  return out;
}

describe("applyRope order 'bhsd' ([batch][heads][seq][headDim], HF apply_rotary_pos_emb's q and k)", () => {
  test('the reference cases, permuted', () => {
    const { shape, x, cases } = ref.applyRope;
    for (const c of cases) {
      const input = toBhsd(Float32Array.from(x.flat(3)), shape.batch, shape.heads, c.headDim);
      const bhsd = posenc.applyRope(Float32Array.from(input), {
        heads: shape.heads, headDim: c.headDim, rotaryDim: c.rotaryDim, layout: c.layout, base: c.base,
        offset: c.offset, batch: shape.batch, order: 'bhsd',
      });
      const bshd = posenc.applyRope(Float32Array.from(x.flat(3)), {
        heads: shape.heads, headDim: c.headDim, rotaryDim: c.rotaryDim, layout: c.layout, base: c.base,
        offset: c.offset, batch: shape.batch,
      });
      const want = toBhsd(Float32Array.from(c.out.flat(3)), shape.batch, shape.heads, c.headDim);
      const scale = Math.max(...input.map(Math.abs));
      expect(Math.max(...bhsd.map((v, i) => Math.abs(v - want[i])))).toBeLessThanOrEqual(2 * EPS22 * scale);
      expect(bhsd).toEqual(toBhsd(bshd, shape.batch, shape.heads, c.headDim));
    }
  });

  test.each(['half', 'interleaved'])("%s: equals 'bshd' on the permuted copy, bit for bit, for every kind of positions", (layout) => {
    const [batch, seq, heads, headDim] = [3, 41, 4, 12];
    const x = Float32Array.from({ length: batch * seq * heads * headDim }, (_, i) => Math.sin(i * 0.37) * 2);
    const perRow = Int32Array.from({ length: seq }, (_, s) => (s * 7) % 23 - 4);
    const perBatch = Int32Array.from({ length: batch * seq }, (_, i) => (i * 11) % 53 + 1000);
    for (const precision of ['float64', 'float32']) {
      for (const where of [{ offset: -9 }, { positions: perRow }, { positions: perBatch }]) {
        const options = { heads, headDim, rotaryDim: 8, layout, batch, precision, scaling: { type: 'linear', factor: 2 }, ...where };
        const bshd = posenc.applyRope(Float32Array.from(x), options);
        const bhsd = posenc.applyRope(toBhsd(x, batch, heads, headDim), { ...options, order: 'bhsd' });
        expect(bhsd).toEqual(toBhsd(bshd, batch, heads, headDim));
      }
    }
  });

  test("in place in a WasmArray; order 'bshd' is the default", () => {
    const [batch, seq, heads, headDim] = [2, 5, 3, 4];
    const x = Float32Array.from({ length: batch * seq * heads * headDim }, (_, i) => i / 7);
    const wa = posenc.allocate('float32', x.length);
    wa.array.set(toBhsd(x, batch, heads, headDim));
    expect(posenc.applyRope(wa, { heads, headDim, batch, order: 'bhsd', offset: 3 })).toBe(wa);
    const bshd = posenc.applyRope(Float32Array.from(x), { heads, headDim, batch, offset: 3 });
    expect(wa.array).toEqual(toBhsd(bshd, batch, heads, headDim));
    expect(posenc.applyRope(Float32Array.from(x), { heads, headDim, batch, offset: 3, order: 'bshd' })).toEqual(bshd);
    wa.free();
  });
});

describe('ropeFromConfig: Hugging Face config.json objects', () => {
  test.each(ref.ropeConfigs.map((c) => [c.name, c]))('%s: rotary dim, base and frequencies as its own code derives them', (name, c) => {
    const o = posenc.ropeFromConfig(c.config);
    expect([o.rotaryDim, o.base, o.scaling?.type ?? 'default']).toEqual([c.rotaryDim, c.base, c.ropeType]);
    const f = posenc.ropeFrequencies(o);
    expect(maxRel(f.invFreq, c.invFreq)).toBeLessThanOrEqual(1e-15);
    expect(Math.abs(f.attentionFactor - c.attentionFactor)).toBeLessThanOrEqual(1e-15);
  });

  test.each(ref.rotaryDimFromPartialFactor.map((c) => [`${c.headDim} x ${c.partialRotaryFactor}`, c]))(
    'rotary dim int(head_dim * partial_rotary_factor): %s',
    (name, c) => {
      const config = { head_dim: c.headDim, partial_rotary_factor: c.partialRotaryFactor, num_attention_heads: 4 };
      if (c.rotaryDim % 2) {
        // HF rotates 2 * ceil(d/2) features with exponents 2k/d for odd d: posenc refuses instead
        const e = thrown(() => posenc.ropeFromConfig(config));
        expect(e).toBeInstanceOf(RangeError);
        expect(e.message).toMatch(/posenc\.ropeFromConfig: .*partial_rotary_factor.*even/);
        return;
      }
      const o = posenc.ropeFromConfig(config);
      expect(o).toEqual({ rotaryDim: c.rotaryDim, base: 10000, layout: 'half' });
      expect(posenc.ropeFrequencies(o).invFreq.length).toBe(c.numFrequencies);
    },
  );

  test('Llama 3.1 8B (rope_scaling with rope_type llama3)', () => {
    const config = {
      model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8, max_position_embeddings: 131072,
      rope_theta: 500000.0,
      rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
    };
    const o = posenc.ropeFromConfig(config);
    expect(o).toEqual({
      rotaryDim: 128, base: 500000, layout: 'half',
      scaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192, maxPositionEmbeddings: 131072 },
    });
    const c = ref.ropeFrequencies.find((x) => x.name === 'llama3-f8');
    expect(maxRel(posenc.ropeFrequencies(o).invFreq, c.invFreq)).toBeLessThanOrEqual(1e-15);
  });

  test('DeepSeek-V3-style YaRN with the older `type` key, mscale pair, qk_rope_head_dim', () => {
    const config = {
      model_type: 'deepseek_v3', qk_rope_head_dim: 64, hidden_size: 7168, num_attention_heads: 128, max_position_embeddings: 163840, rope_theta: 10000,
      rope_scaling: {
        beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0,
        original_max_position_embeddings: 4096, type: 'yarn',
      },
    };
    const o = posenc.ropeFromConfig(config);
    expect(o.scaling).toEqual({
      type: 'yarn', factor: 40, originalMaxPositionEmbeddings: 4096, maxPositionEmbeddings: 163840,
      betaFast: 32, betaSlow: 1, mscale: 1, mscaleAllDim: 1, truncate: true,
    });
    expect([o.rotaryDim, o.layout]).toEqual([64, 'interleaved']);
    expect(posenc.ropeFrequencies(o).attentionFactor).toBe(1); // g(40, 1) / g(40, 1)
  });

  test('Phi-3 LongRoPE: original_max_position_embeddings at the top level, factor from the ratio', () => {
    const half = 48;
    const config = {
      hidden_size: 3072, num_attention_heads: 32, max_position_embeddings: 131072, original_max_position_embeddings: 4096,
      rope_theta: 10000.0,
      rope_scaling: { type: 'longrope', short_factor: new Array(half).fill(1.05), long_factor: new Array(half).fill(2.5) },
    };
    const o = posenc.ropeFromConfig(config);
    expect(o.rotaryDim).toBe(96);
    expect(o.scaling.originalMaxPositionEmbeddings).toBe(4096);
    const { attentionFactor } = posenc.ropeFrequencies(o);
    expect(attentionFactor).toBeCloseTo(Math.sqrt(1 + Math.log(32) / Math.log(4096)), 15);
  });

  test('transformers v5 rope_parameters (rope_theta and partial_rotary_factor inside), per layer type', () => {
    const v5 = {
      hidden_size: 2560, num_attention_heads: 32, max_position_embeddings: 2048,
      rope_parameters: { rope_type: 'default', rope_theta: 25000, partial_rotary_factor: 0.25 },
    };
    expect(posenc.ropeFromConfig(v5)).toEqual({ rotaryDim: 20, base: 25000, layout: 'half' });
    const gemma = {
      head_dim: 256, num_attention_heads: 8,
      rope_parameters: {
        sliding_attention: { rope_type: 'default', rope_theta: 10000 },
        full_attention: { rope_type: 'linear', factor: 8, rope_theta: 1000000 },
      },
    };
    expect(posenc.ropeFromConfig(gemma, { layerType: 'full_attention' })).toEqual({
      rotaryDim: 256, base: 1000000, layout: 'half', scaling: { type: 'linear', factor: 8 },
    });
    const e = thrown(() => posenc.ropeFromConfig(gemma));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toContain("'sliding_attention', 'full_attention'");
  });

  test('GPT-NeoX (rotary_pct, rotary_emb_base), GPT-J (rotary_dim), dynamic, rope_scaling: null', () => {
    expect(posenc.ropeFromConfig({ model_type: 'gpt_neox', hidden_size: 6144, num_attention_heads: 64, rotary_pct: 0.25, rotary_emb_base: 10000 }))
      .toEqual({ rotaryDim: 24, base: 10000, layout: 'half' });
    expect(posenc.ropeFromConfig({ model_type: 'gptj', n_embd: 4096, n_head: 16, rotary_dim: 64 }))
      .toEqual({ rotaryDim: 64, base: 10000, layout: 'interleaved' });
    const dyn = posenc.ropeFromConfig({
      head_dim: 128, num_attention_heads: 32, max_position_embeddings: 4096, rope_scaling: { type: 'dynamic', factor: 2 },
    });
    expect(dyn.scaling).toEqual({ type: 'dynamic', factor: 2, maxPositionEmbeddings: 4096 });
    expect(posenc.ropeFromConfig({ head_dim: 64, num_attention_heads: 2, rope_scaling: null })).toEqual({ rotaryDim: 64, base: 10000, layout: 'half' });
  });

  test('Python truthiness as in HF: beta_fast 0 / null fall back to 32 / 1, mscale_all_dim 0 is absent', () => {
    const o = posenc.ropeFromConfig({
      head_dim: 64, num_attention_heads: 2, max_position_embeddings: 16384,
      rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 4096, beta_fast: 0, beta_slow: null, mscale: 0.707, mscale_all_dim: 0 },
    });
    const c = ref.ropeFrequencies.find((x) => x.name === 'yarn-f4-mscale0.707-mscaleAllDim0');
    const f = posenc.ropeFrequencies(o);
    expect(maxRel(f.invFreq, c.invFreq)).toBeLessThanOrEqual(1e-15);
    expect(f.attentionFactor).toBeCloseTo(c.attentionFactor, 15);
  });
});
