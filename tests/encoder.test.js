// The tiny encoder against a float64 reference written here from the maths
// (Vaswani et al. 2017 3.1-3.5, torch's LayerNorm and GELU, RoFormer's
// rotation, the ALiBi paper's get_slopes, Hugging Face T5's bucket code),
// independently of src/encoder.c and src/js/encoder.js. Weights are drawn by
// the test, written with writeSafetensors and loaded from the bytes.
import { execFileSync } from 'node:child_process';
import { posencEncoder as posenc } from './helpers.js';

beforeAll(() => posenc.init());

// ---------------------------------------------------------------- test data

/** A small LCG, uniform in [-a, a). */
function uniform(seed) {
  let s = seed >>> 0;
  return (a) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32 * 2 - 1) * a;
  };
}

/** Random tensors for a config, by the documented naming scheme (docs/encoder.md). */
function randomTensors(cfg, seed) {
  const r = uniform(seed);
  const d = cfg.dModel;
  const T = {};
  const put = (name, shape, f) => {
    const n = shape.reduce((a, b) => a * b, 1);
    T[name] = { shape, data: Float32Array.from({ length: n }, f) };
  };
  const lin = (name, out, inp) => {
    put(`${name}.weight`, [out, inp], () => r(1 / Math.sqrt(inp)));
    put(`${name}.bias`, [out], () => r(0.3));
  };
  const norm = (name) => {
    put(`${name}.weight`, [d], () => 1 + r(0.5));
    put(`${name}.bias`, [d], () => r(0.5));
  };
  put('embed.weight', [cfg.vocabSize, d], () => r(Math.sqrt(3 / d)));
  if (cfg.positional?.type === 'learned') put('pos_embed.weight', [cfg.positional.maxLength, d], () => r(1));
  if (cfg.languages) put('language_embed.weight', [cfg.languages, d], () => r(1));
  if (cfg.positional?.type === 't5') put('relative_attention_bias.weight', [cfg.positional.numBuckets ?? 32, cfg.heads], () => r(2));
  for (let l = 0; l < cfg.layers; l++) {
    for (const p of ['q_proj', 'k_proj', 'v_proj', 'out_proj']) lin(`layers.${l}.self_attn.${p}`, d, d);
    norm(`layers.${l}.norm1`);
    lin(`layers.${l}.linear1`, cfg.dFF, d);
    lin(`layers.${l}.linear2`, d, cfg.dFF);
    norm(`layers.${l}.norm2`);
  }
  if (cfg.finalNorm) norm('norm');
  if (cfg.lmHead && !cfg.tieEmbeddings) put('lm_head.weight', [cfg.vocabSize, d], () => r(1 / Math.sqrt(d)));
  if (cfg.classes) lin('head', cfg.classes, d);
  return T;
}

// ---------------------------------------------------------------- the reference

function linear(x, W, b, inp, out) {
  return x.map((row) => {
    const y = new Float64Array(out);
    for (let o = 0; o < out; o++) {
      let s = b ? b[o] : 0;
      for (let i = 0; i < inp; i++) s += row[i] * W[o * inp + i];
      y[o] = s;
    }
    return y;
  });
}

function layerNorm(x, g, b, eps = 1e-5) {
  return x.map((row) => {
    const mean = row.reduce((a, v) => a + v, 0) / row.length;
    const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / row.length; // biased, as torch
    return row.map((v, k) => ((v - mean) / Math.sqrt(variance + eps)) * g[k] + b[k]);
  });
}

/** erf by its everywhere-convergent series 2/sqrt(pi) e^(-x^2) sum 2^n x^(2n+1) / (1 3 ... (2n+1)). */
function erf(x) {
  if (Math.abs(x) > 6) return Math.sign(x);
  let term = x;
  let sum = x;
  for (let n = 1; Math.abs(term) > 1e-17 * Math.abs(sum); n++) {
    term *= (2 * x * x) / (2 * n + 1);
    sum += term;
  }
  return (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum;
}

const ACTIVATE = {
  relu: (v) => Math.max(v, 0),
  gelu: (v) => 0.5 * v * (1 + erf(v / Math.SQRT2)),
  gelu_tanh: (v) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3))),
};

/** The ALiBi paper's get_slopes (ofirpress/attention_with_linear_biases), 8 generalised to maxBias. */
function alibiSlopes(n, maxBias = 8) {
  const powerOf2 = (m) => {
    const start = 2 ** (-maxBias / m);
    return Array.from({ length: m }, (_, i) => start * start ** i);
  };
  if (Number.isInteger(Math.log2(n))) return powerOf2(n);
  const p = 2 ** Math.floor(Math.log2(n));
  return [...powerOf2(p), ...alibiSlopes(2 * p, maxBias).filter((_, i) => i % 2 === 0).slice(0, n - p)];
}

/** HF T5Attention._relative_position_bucket for rel = key - query, torch's float32 steps. */
function t5Bucket(rel, bidirectional, numBuckets, maxDistance) {
  const f = Math.fround;
  let bucket = 0;
  let n = numBuckets;
  let r;
  if (bidirectional) {
    n = Math.floor(n / 2);
    if (rel > 0) bucket += n;
    r = Math.abs(rel);
  } else {
    r = -Math.min(rel, 0);
  }
  const maxExact = Math.floor(n / 2);
  if (r < maxExact) return bucket + r;
  const large = maxExact + Math.trunc(f(f(f(Math.log(f(f(r) / maxExact))) / f(Math.log(maxDistance / maxExact))) * (n - maxExact)));
  return bucket + Math.min(large, n - 1);
}

/** The encoder in float64: { out: rows of dModel, attention: [layer][head][i][j] }. */
function reference(cfg, T, tokens, { mask, causal = false, language } = {}) {
  const d = cfg.dModel;
  const H = cfg.heads;
  const hd = d / H;
  const S = tokens.length;
  const t = (name) => T[name].data;
  const pos = cfg.positional ?? { type: 'sinusoidal' };
  const scale = cfg.embedScale ?? Math.sqrt(d);
  let x = tokens.map((tok, s) => {
    const row = new Float64Array(d);
    for (let k = 0; k < d; k++) {
      row[k] = t('embed.weight')[tok * d + k] * scale;
      if (pos.type === 'sinusoidal') {
        const w = (pos.base ?? 10000) ** (-(k - (k % 2)) / d);
        row[k] += k % 2 ? Math.cos(s * w) : Math.sin(s * w);
      }
      if (pos.type === 'learned') row[k] += t('pos_embed.weight')[s * d + k];
      if (language !== undefined) row[k] += t('language_embed.weight')[language * d + k];
    }
    return row;
  });
  // an additive bias[h][i][j]
  let bias = null;
  if (pos.type === 'alibi') {
    const m = alibiSlopes(H, pos.maxBias ?? 8);
    // the paper's causal form -m (i - j) for j <= i (masked above); |i - j| without the mask
    bias = causal ? (h, i, j) => -m[h] * (i - j) : (h, i, j) => -m[h] * Math.abs(i - j);
  } else if (pos.type === 't5') {
    const nb = pos.numBuckets ?? 32;
    bias = (h, i, j) => t('relative_attention_bias.weight')[t5Bucket(j - i, pos.bidirectional ?? true, nb, pos.maxDistance ?? 128) * H + h];
  }
  const rope = (v) => {
    if (pos.type !== 'rope') return v;
    const r = pos.rotaryDim ?? hd;
    const factor = pos.scaling?.type === 'linear' ? pos.scaling.factor : 1;
    return v.map((row, s) => {
      const y = Float64Array.from(row);
      for (let h = 0; h < H; h++) {
        for (let k = 0; k < r / 2; k++) {
          const angle = (s * (pos.base ?? 10000) ** ((-2 * k) / r)) / factor;
          const [i, j] = (pos.layout ?? 'half') === 'half' ? [k, k + r / 2] : [2 * k, 2 * k + 1];
          const a = row[h * hd + i];
          const b = row[h * hd + j];
          y[h * hd + i] = a * Math.cos(angle) - b * Math.sin(angle);
          y[h * hd + j] = b * Math.cos(angle) + a * Math.sin(angle);
        }
      }
      return y;
    });
  };
  const attention = [];
  const mha = (l, input) => {
    const p = `layers.${l}.self_attn.`;
    const q = rope(linear(input, t(`${p}q_proj.weight`), t(`${p}q_proj.bias`), d, d));
    const k = rope(linear(input, t(`${p}k_proj.weight`), t(`${p}k_proj.bias`), d, d));
    const v = linear(input, t(`${p}v_proj.weight`), t(`${p}v_proj.bias`), d, d);
    const ctx = Array.from({ length: S }, () => new Float64Array(d));
    const probs = [];
    for (let h = 0; h < H; h++) {
      const P = [];
      for (let i = 0; i < S; i++) {
        const allowed = (j) => (!mask || mask[j]) && !(causal && j > i);
        const scores = Array.from({ length: S }, (_, j) => {
          let dot = 0;
          for (let e = 0; e < hd; e++) dot += q[i][h * hd + e] * k[j][h * hd + e];
          return dot / Math.sqrt(hd) + (bias ? bias(h, i, j) : 0);
        });
        const max = Math.max(...scores.filter((_, j) => allowed(j)));
        const e = scores.map((s, j) => (allowed(j) ? Math.exp(s - max) : 0));
        const sum = e.reduce((a, b) => a + b, 0);
        const row = e.map((v2) => (sum > 0 ? v2 / sum : 0));
        P.push(row);
        for (let c = 0; c < hd; c++) ctx[i][h * hd + c] = row.reduce((a, pj, j) => a + pj * v[j][h * hd + c], 0);
      }
      probs.push(P);
    }
    attention.push(probs);
    return linear(ctx, t(`${p}out_proj.weight`), t(`${p}out_proj.bias`), d, d);
  };
  const ff = (l, input) => {
    const p = `layers.${l}.`;
    const hidden = linear(input, t(`${p}linear1.weight`), t(`${p}linear1.bias`), d, cfg.dFF).map((row) => row.map(ACTIVATE[cfg.activation ?? 'relu']));
    return linear(hidden, t(`${p}linear2.weight`), t(`${p}linear2.bias`), cfg.dFF, d);
  };
  const add = (a, b) => a.map((row, i) => row.map((v, k) => v + b[i][k]));
  for (let l = 0; l < cfg.layers; l++) {
    const [n1, n2] = [1, 2].map((n) => [t(`layers.${l}.norm${n}.weight`), t(`layers.${l}.norm${n}.bias`)]);
    if ((cfg.norm ?? 'pre') === 'pre') {
      x = add(x, mha(l, layerNorm(x, ...n1)));
      x = add(x, ff(l, layerNorm(x, ...n2)));
    } else {
      x = layerNorm(add(x, mha(l, x)), ...n1);
      x = layerNorm(add(x, ff(l, x)), ...n2);
    }
  }
  if (cfg.finalNorm) x = layerNorm(x, t('norm.weight'), t('norm.bias'));
  // next-token logits: x W^T, no bias (GPT-2's lm_head), W tied to the embeddings or its own
  const W = cfg.tieEmbeddings ? t('embed.weight') : cfg.lmHead ? t('lm_head.weight') : null;
  const logits = W && linear(x, W, null, d, cfg.vocabSize);
  return { out: x, attention, logits };
}

/** max |got - want| / max |want| over a tensor (want: rows of numbers, flattened). */
function relError(got, wantRows) {
  const want = wantRows.flatMap((r) => Array.from(r));
  expect(got.length).toBe(want.length);
  let err = 0;
  let scale = 0;
  want.forEach((w, i) => {
    const e = Math.abs(got[i] - w);
    err = Number.isNaN(e) ? Infinity : Math.max(err, e);
    scale = Math.max(scale, Math.abs(w));
  });
  return err / scale;
}

// ---------------------------------------------------------------- configurations

const CASES = [
  { name: 'no positions, pre-norm, ReLU', cfg: { positional: { type: 'none' } } },
  { name: 'sinusoidal, post-norm, GELU, padding mask', cfg: { positional: { type: 'sinusoidal' }, norm: 'post', activation: 'gelu' }, mask: true },
  { name: 'sinusoidal base 100, language embedding, embedScale 1', cfg: { positional: { type: 'sinusoidal', base: 100 }, languages: 2, embedScale: 1 }, language: 1 },
  { name: 'RoPE half, GELU tanh, final norm, causal', cfg: { positional: { type: 'rope' }, activation: 'gelu_tanh', finalNorm: true }, causal: true },
  {
    name: 'RoPE interleaved, partial rotary, linear scaling, base 500, mask',
    cfg: { positional: { type: 'rope', layout: 'interleaved', rotaryDim: 4, base: 500, scaling: { type: 'linear', factor: 2 } } },
    mask: true,
  },
  { name: 'ALiBi, 3 heads (non-power-of-two slopes), mask', cfg: { positional: { type: 'alibi' }, heads: 3, dModel: 18 }, mask: true },
  { name: 'ALiBi maxBias 4, post-norm, causal', cfg: { positional: { type: 'alibi', maxBias: 4 }, norm: 'post' }, causal: true },
  { name: 'T5, 8 buckets, maxDistance 20, log buckets, post-norm', cfg: { positional: { type: 't5', numBuckets: 8, maxDistance: 20 }, norm: 'post' }, seq: 24 },
  { name: 'T5 default buckets, GELU, mask', cfg: { positional: { type: 't5' }, activation: 'gelu' }, mask: true },
];

const BASE = { vocabSize: 37, dModel: 16, heads: 2, dFF: 24, layers: 2 };

describe('forward pass against the float64 reference (weights from a .safetensors file written here)', () => {
  test.each(CASES.map((c, i) => [c.name, c, i]))('%s', (name, c, i) => {
    const cfg = { ...BASE, ...c.cfg };
    const seq = c.seq ?? 11;
    const T = randomTensors(cfg, 1000 + i);
    const bytes = posenc.writeSafetensors(T);
    const rand = uniform(77 + i);
    const tokens = Array.from({ length: seq }, () => Math.floor((rand(1) + 1) / 2 * cfg.vocabSize));
    const mask = c.mask ? tokens.map((_, s) => (s >= seq - 3 || s === 2 ? 0 : 1)) : undefined;
    const opts = { mask, causal: c.causal ?? false, language: c.language };
    const encoder = posenc.createEncoder({ ...cfg, weights: bytes });
    try {
      const out = encoder.forward(tokens, opts);
      const want = reference(cfg, T, tokens, opts);
      expect(relError(out, want.out)).toBeLessThan(1e-5);
      for (let l = 0; l < cfg.layers; l++) {
        const probs = encoder.attention(l);
        expect(relError(probs, want.attention[l].flat())).toBeLessThan(1e-5);
      }
      if (mask) {
        // padding is never attended to
        const probs = encoder.attention(0);
        let masked = 0;
        for (let r = 0; r < probs.length / seq; r++) for (let j = 0; j < seq; j++) if (!mask[j]) masked += probs[r * seq + j];
        expect(masked).toBe(0);
      }
    } finally {
      encoder.dispose();
    }
  });

  test('pooling and the classifier head against the reference, padding excluded', () => {
    const cfg = { ...BASE, positional: { type: 'rope' }, classes: 3 };
    const T = randomTensors(cfg, 5);
    const encoder = posenc.createEncoder({ ...cfg, weights: T });
    const tokens = [1, 5, 9, 2, 0, 0];
    const mask = [1, 1, 1, 1, 0, 0];
    const { out } = reference(cfg, T, tokens, { mask });
    const pooled = Array.from({ length: cfg.dModel }, (_, k) => (out[0][k] + out[1][k] + out[2][k] + out[3][k]) / 4);
    expect(relError(encoder.pool(tokens, { mask }), [pooled])).toBeLessThan(1e-5);
    const logits = Array.from({ length: 3 }, (_, o) =>
      pooled.reduce((a, v, k) => a + v * T['head.weight'].data[o * cfg.dModel + k], T['head.bias'].data[o]),
    );
    expect(relError(encoder.classify(tokens, { mask }), [logits])).toBeLessThan(1e-5);
    encoder.dispose();
  });

  test("RoPE with HF's dynamic NTK scaling: the base follows the sequence length, call after call", () => {
    const cfg = { ...BASE, positional: { type: 'rope', scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 8 } } };
    const T = randomTensors(cfg, 31);
    const encoder = posenc.createEncoder({ ...cfg, weights: T });
    const r = cfg.dModel / cfg.heads;
    for (const seq of [12, 6, 20, 12]) {
      // HF _compute_dynamic_ntk_parameters: base * (factor * L / M - (factor - 1)) ** (r / (r - 2)), L = max(seq, M)
      const L = Math.max(seq, 8);
      const base = 10000 * (2 * L / 8 - 1) ** (r / (r - 2));
      const tokens = Array.from({ length: seq }, (_, i) => (i * 5 + 3) % cfg.vocabSize);
      const want = reference({ ...cfg, positional: { type: 'rope', base } }, T, tokens);
      expect(relError(encoder.forward(tokens), want.out)).toBeLessThan(1e-5);
    }
    encoder.dispose();
  });

  test("PyTorch's packed in_proj_weight / in_proj_bias load like separate q, k, v", () => {
    const cfg = { ...BASE, layers: 1, positional: { type: 'sinusoidal' } };
    const T = randomTensors(cfg, 9);
    const packed = { ...T };
    const p = 'layers.0.self_attn.';
    const cat = (kind) => {
      const parts = ['q_proj', 'k_proj', 'v_proj'].map((n) => T[`${p}${n}.${kind}`].data);
      const all = new Float32Array(parts.reduce((a, b) => a + b.length, 0));
      parts.forEach((part, i) => all.set(part, i * part.length));
      for (const n of ['q_proj', 'k_proj', 'v_proj']) delete packed[`${p}${n}.${kind}`];
      return all;
    };
    packed[`${p}in_proj_weight`] = { shape: [3 * cfg.dModel, cfg.dModel], data: cat('weight') };
    packed[`${p}in_proj_bias`] = { shape: [3 * cfg.dModel], data: cat('bias') };
    const a = posenc.createEncoder({ ...cfg, weights: T });
    const b = posenc.createEncoder({ ...cfg, weights: posenc.writeSafetensors(packed) });
    expect(Array.from(b.forward([1, 2, 3]))).toEqual(Array.from(a.forward([1, 2, 3])));
    a.dispose();
    b.dispose();
  });
});

// ---------------------------------------------------------------- a causal language model

const LM_CASES = [
  {
    name: 'GPT-2 style: learned positions, pre-norm, GELU tanh, final norm, tied head, embedScale 1',
    cfg: { positional: { type: 'learned', maxLength: 12 }, activation: 'gelu_tanh', finalNorm: true, embedScale: 1, tieEmbeddings: true },
    seq: 12,
  },
  { name: 'learned positions, post-norm, own head, padding mask', cfg: { positional: { type: 'learned', maxLength: 20 }, norm: 'post', lmHead: true }, mask: true },
  { name: 'RoPE, own head, final norm', cfg: { positional: { type: 'rope' }, finalNorm: true, lmHead: true } },
  { name: 'ALiBi (the causal -m (i - j) form), tied head', cfg: { positional: { type: 'alibi' }, tieEmbeddings: true } },
  { name: "T5 decoder buckets (bidirectional: false), own head", cfg: { positional: { type: 't5', numBuckets: 8, maxDistance: 16, bidirectional: false }, lmHead: true }, seq: 20 },
  { name: 'sinusoidal, own head, language embedding', cfg: { positional: { type: 'sinusoidal' }, languages: 2, lmHead: true }, language: 1 },
];

describe('logits against the float64 reference (causal language models)', () => {
  test.each(LM_CASES.map((c, i) => [c.name, c, i]))('%s', (name, c, i) => {
    const cfg = { ...BASE, ...c.cfg };
    const seq = c.seq ?? 11;
    const T = randomTensors(cfg, 3000 + i);
    const rand = uniform(300 + i);
    const tokens = Array.from({ length: seq }, () => Math.floor((rand(1) + 1) / 2 * cfg.vocabSize));
    const mask = c.mask ? tokens.map((_, s) => (s >= seq - 2 ? 0 : 1)) : undefined;
    const opts = { mask, causal: true, language: c.language };
    const encoder = posenc.createEncoder({ ...cfg, weights: posenc.writeSafetensors(T) });
    try {
      const want = reference(cfg, T, tokens, opts);
      const logits = encoder.logits(tokens, opts);
      expect(logits).toBeInstanceOf(Float32Array);
      expect(relError(logits, want.logits)).toBeLessThan(1e-5);
      expect(relError(encoder.forward(tokens, opts), want.out)).toBeLessThan(1e-5);
      for (let l = 0; l < cfg.layers; l++) expect(relError(encoder.attention(l), want.attention[l].flat())).toBeLessThan(1e-5);
      // causal: the logits at position s do not depend on the tokens after s
      const changed = [...tokens.slice(0, 4), ...tokens.slice(4).map((v) => (v + 1) % cfg.vocabSize)];
      const other = encoder.logits(changed, opts);
      expect(Array.from(other.subarray(0, 4 * cfg.vocabSize))).toEqual(Array.from(logits.subarray(0, 4 * cfg.vocabSize)));
    } finally {
      encoder.dispose();
    }
  });

  test('a tied head reads embed.weight: the same logits as an own head holding a copy of it', () => {
    const cfg = { ...BASE, positional: { type: 'learned', maxLength: 8 } };
    const T = randomTensors({ ...cfg, tieEmbeddings: true }, 41);
    const tied = posenc.createEncoder({ ...cfg, tieEmbeddings: true, weights: T });
    const own = posenc.createEncoder({ ...cfg, lmHead: true, weights: { ...T, 'lm_head.weight': T['embed.weight'] } });
    const tokens = [3, 1, 4, 1, 5, 9, 2, 6];
    expect(Array.from(tied.logits(tokens, { causal: true }))).toEqual(Array.from(own.logits(tokens, { causal: true })));
    expect(Object.keys(tied.tensors())).not.toContain('lm_head.weight');
    expect(tied.parameterCount).toBe(own.parameterCount - cfg.vocabSize * cfg.dModel);
    tied.dispose();
    own.dispose();
  });

  test('learned positions: row s of pos_embed.weight is added at position s (no layers: x = E[t] * embedScale + P[s])', () => {
    const cfg = { vocabSize: 5, dModel: 4, heads: 1, dFF: 4, layers: 0, positional: { type: 'learned', maxLength: 3 }, embedScale: 2 };
    const E = Float32Array.from({ length: 20 }, (_, i) => i / 8);
    const P = Float32Array.from({ length: 12 }, (_, i) => 100 + i);
    const encoder = posenc.createEncoder({ ...cfg, weights: { 'embed.weight': { shape: [5, 4], data: E }, 'pos_embed.weight': { shape: [3, 4], data: P } } });
    const out = encoder.forward([4, 0, 2]);
    const want = [4, 0, 2].flatMap((tok, s) => [0, 1, 2, 3].map((k) => Math.fround(Math.fround(E[tok * 4 + k] * 2) + P[s * 4 + k])));
    expect(Array.from(out)).toEqual(want);
    expect(encoder.forward([1, 1]).length).toBe(8); // fewer tokens than maxLength: the first rows
    encoder.dispose();
  });

  test('logits fills out and a WasmArray; its length is seq * vocabSize', () => {
    const encoder = posenc.createEncoder({ ...BASE, tieEmbeddings: true, weights: { seed: 5 } });
    const out = new Float32Array(3 * BASE.vocabSize);
    expect(encoder.logits([1, 2, 3], { causal: true, out })).toBe(out);
    const wa = posenc.allocate('float32', 3 * BASE.vocabSize);
    expect(encoder.logits([1, 2, 3], { causal: true, out: wa })).toBe(wa);
    expect(Array.from(wa.array)).toEqual(Array.from(out));
    wa.free();
    encoder.dispose();
  });
});

describe('self-contained model files: the options travel in the metadata', () => {
  const cfg = { ...BASE, positional: { type: 'learned', maxLength: 16 }, activation: 'gelu_tanh', finalNorm: true, embedScale: 1, tieEmbeddings: true };

  test("toSafetensors writes 'posenc.config'; createEncoder({ weights }) alone rebuilds the same model", () => {
    const a = posenc.createEncoder({ ...cfg, weights: { seed: 8 } });
    const bytes = a.toSafetensors({ metadata: { note: 'tiny' } });
    const file = posenc.readSafetensors(bytes);
    expect(file.metadata.note).toBe('tiny');
    expect(JSON.parse(file.metadata[posenc.CONFIG_METADATA_KEY])).toEqual(JSON.parse(JSON.stringify(a.config)));
    const tokens = [1, 2, 3, 4, 5];
    for (const weights of [bytes, file, bytes.buffer]) {
      const b = posenc.createEncoder({ weights });
      expect(b.config).toEqual(a.config);
      expect(Array.from(b.logits(tokens, { causal: true }))).toEqual(Array.from(a.logits(tokens, { causal: true })));
      b.dispose();
    }
    a.dispose();
  });

  test("a file written elsewhere (a training script) with some keys: the rest take their defaults", () => {
    const small = { vocabSize: 9, dModel: 8, heads: 2, dFF: 8, layers: 1, positional: { type: 'learned', maxLength: 4 }, lmHead: true };
    const T = randomTensors(small, 12);
    const bytes = posenc.writeSafetensors(T, { metadata: { 'posenc.config': JSON.stringify(small) } });
    const e = posenc.createEncoder({ weights: bytes });
    expect(e.config.embedScale).toBe(Math.sqrt(8));
    expect(e.config.norm).toBe('pre');
    const want = reference(small, T, [8, 0, 3], { causal: true });
    expect(relError(e.logits([8, 0, 3], { causal: true }), want.logits)).toBeLessThan(1e-5);
    e.dispose();
  });

  test("options given beside the file win, key by key", () => {
    const a = posenc.createEncoder({ ...cfg, weights: { seed: 8 } });
    const b = posenc.createEncoder({ weights: a.toSafetensors(), keepAttention: false, normEps: 1e-3 });
    expect([b.config.keepAttention, b.config.normEps, b.config.finalNorm]).toEqual([false, 1e-3, true]);
    a.dispose();
    b.dispose();
  });
});

// ---------------------------------------------------------------- the article

describe("the shapes of the article 'Transformer Encoder Explained'", () => {
  test('(1, 10, 512) through attention and feed-forward, (1, 512) pooled, (9, 512) with a language embedding', () => {
    // d_model 512, 8 heads, d_ff 2048, vocab 10000; seeded weights (the article's are random)
    const encoder = posenc.createEncoder({
      vocabSize: 10000, dModel: 512, heads: 8, dFF: 2048, layers: 1, languages: 2, weights: { seed: 3 },
    });
    const x = encoder.forward([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(x.length).toBe(10 * 512); // [1][10][512], batch 1
    expect(encoder.attention(0).length).toBe(8 * 10 * 10);
    expect(x.every(Number.isFinite)).toBe(true);
    const review = [42, 1337, 7, 42, 1337, 7, 42, 1337, 7];
    expect(encoder.pool(review).length).toBe(512); // "Encoded review shape: (1, 512)"
    const sentence = encoder.forward(review, { language: 0 });
    expect(sentence.length).toBe(9 * 512); // "Encoded sentence shape: (9, 512)"
    expect(Array.from(sentence)).not.toEqual(Array.from(encoder.forward(review, { language: 1 })));
    encoder.dispose();
  });

  test('the sentiment sketch: 4 heads, d_ff 1024, a 2-class head on the pooled output', () => {
    const encoder = posenc.createEncoder({ vocabSize: 10000, dModel: 512, heads: 4, dFF: 1024, layers: 1, classes: 2, weights: { seed: 42 } });
    const logits = encoder.classify([42, 1337, 7, 42, 1337, 7, 42, 1337, 7]);
    expect(logits.length).toBe(2);
    expect(logits.every(Number.isFinite)).toBe(true);
    encoder.dispose();
  });
});

// ---------------------------------------------------------------- softmax stability

describe("softmax: large scores that a naive exp(x) / sum(exp(x)) turns into NaN", () => {
  const naive = (row) => {
    const e = row.map(Math.exp); // the seed: np.exp(scores) / np.sum(np.exp(scores))
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / sum);
  };

  test('posenc.softmax is exact where the naive form gives NaN', () => {
    const scores = [1000, 999, 0, -1000];
    expect(naive(scores).some(Number.isNaN)).toBe(true);
    const x = posenc.softmax(Float32Array.from(scores));
    const z = 1 + Math.exp(-1) + Math.exp(-1000) + Math.exp(-2000);
    const want = [1 / z, Math.exp(-1) / z, 0, 0];
    x.forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThan(2 ** -24));
    // rows, masked entries and a fully masked row
    const rows = posenc.softmax(Float32Array.from([89, 90, -Infinity, -Infinity, -Infinity, -Infinity]), { cols: 3 });
    expect(Array.from(rows.subarray(3))).toEqual([0, 0, 0]);
    expect(rows[2]).toBe(0);
    expect(Math.abs(rows[1] - 1 / (1 + Math.exp(-1)))).toBeLessThan(2 ** -24);
  });

  test('an encoder whose attention scores reach the thousands: finite probabilities equal to the stable reference', () => {
    const cfg = { ...BASE, layers: 1, positional: { type: 'none' } };
    const T = randomTensors(cfg, 21);
    for (const n of ['q_proj', 'k_proj']) T[`layers.0.self_attn.${n}.weight`].data.forEach((v, i, a) => (a[i] = v * 60));
    const tokens = [3, 8, 8, 1, 30, 2];
    const want = reference(cfg, T, tokens);
    // the reference's raw scores, through the article's naive softmax
    const p = 'layers.0.self_attn.';
    const h = layerNorm(
      tokens.map((t) => Float64Array.from({ length: cfg.dModel }, (_, k) => T['embed.weight'].data[t * cfg.dModel + k] * 4)),
      T['layers.0.norm1.weight'].data, T['layers.0.norm1.bias'].data,
    );
    const q = linear(h, T[`${p}q_proj.weight`].data, T[`${p}q_proj.bias`].data, 16, 16);
    const k = linear(h, T[`${p}k_proj.weight`].data, T[`${p}k_proj.bias`].data, 16, 16);
    const scores = q.map((qi) => k.map((kj) => qi.slice(0, 8).reduce((a, v, e) => a + v * kj[e], 0) / Math.sqrt(8)));
    expect(Math.max(...scores.flat().map(Math.abs))).toBeGreaterThan(700);
    expect(scores.some((row) => naive(row).some(Number.isNaN))).toBe(true);
    const encoder = posenc.createEncoder({ ...cfg, weights: T });
    const out = encoder.forward(tokens);
    const probs = encoder.attention(0);
    expect(probs.every(Number.isFinite)).toBe(true);
    expect(relError(probs, want.attention[0].flat())).toBeLessThan(1e-5);
    expect(relError(out, want.out)).toBeLessThan(1e-5);
    encoder.dispose();
  });
});

// ---------------------------------------------------------------- positions and attention

describe('what positions do to attention', () => {
  test('previousTokenHead: from RoPE alone, every query attends to the token before it', () => {
    const cfg = { vocabSize: 64, dModel: 32, heads: 4, dFF: 64, layers: 1, positional: { type: 'rope' } };
    const seeded = posenc.createEncoder({ ...cfg, weights: { seed: 7 } });
    const tensors = posenc.previousTokenHead(seeded.tensors(), { heads: 4, head: 1, positional: cfg.positional });
    seeded.dispose();
    const encoder = posenc.createEncoder({ ...cfg, weights: tensors });
    const rand = uniform(5);
    const tokens = Array.from({ length: 40 }, () => Math.floor((rand(1) + 1) * 32));
    encoder.forward(tokens);
    const probs = encoder.attention(0);
    const S = tokens.length;
    let worst = 1;
    for (let i = 1; i < S; i++) worst = Math.min(worst, probs[(1 * S + i) * S + i - 1]);
    expect(worst).toBeGreaterThan(0.99);
    // the other heads are untouched: not a previous-token pattern
    let other = 0;
    for (let i = 1; i < S; i++) other += probs[(0 * S + i) * S + i - 1];
    expect(other / (S - 1)).toBeLessThan(0.5);
    encoder.dispose();
  });

  test('without positions attention is blind to order; with any scheme it is not', () => {
    const tokens = [4, 9, 4, 9, 4, 9];
    for (const type of ['none', 'sinusoidal', 'rope', 'alibi', 't5']) {
      const encoder = posenc.createEncoder({ ...BASE, layers: 1, positional: { type }, weights: { seed: 11 } });
      encoder.forward(tokens);
      const probs = encoder.attention(0);
      // rows 0 and 2 hold the same token: identical rows exactly when positions are absent
      const same = Array.from(probs.subarray(0, 6)).every((v, j) => v === probs[2 * 6 + j]);
      expect([type, same]).toEqual([type, type === 'none']);
      encoder.dispose();
    }
  });

  test('seeded weights are deterministic; tensors() round-trips through a .safetensors file', () => {
    const cfg = { ...BASE, positional: { type: 't5' }, languages: 1, finalNorm: true, classes: 2 };
    const a = posenc.createEncoder({ ...cfg, weights: { seed: 1 } });
    const b = posenc.createEncoder({ ...cfg, weights: { seed: 1 } });
    const c = posenc.createEncoder({ ...cfg, weights: { seed: 2 } });
    const d = posenc.createEncoder({ ...cfg, weights: posenc.writeSafetensors(a.tensors()) });
    const tokens = [0, 36, 5, 5];
    const ya = Array.from(a.forward(tokens));
    expect(Array.from(b.forward(tokens))).toEqual(ya);
    expect(Array.from(d.forward(tokens))).toEqual(ya);
    expect(Array.from(c.forward(tokens))).not.toEqual(ya);
    expect(Object.keys(a.tensors())).toEqual(Object.keys(posenc.encoderTensorShapes(cfg)));
    expect(a.parameterCount).toBe(Object.values(posenc.encoderTensorShapes(cfg)).reduce((n, s) => n + s.reduce((x, y) => x * y, 1), 0));
    for (const e of [a, b, c, d]) e.dispose();
  });

  test('out is filled and returned; a WasmArray works as out', () => {
    const encoder = posenc.createEncoder({ ...BASE, weights: { seed: 4 } });
    const out = new Float32Array(3 * 16);
    expect(encoder.forward([1, 2, 3], { out })).toBe(out);
    const wa = posenc.allocate('float32', 16);
    expect(encoder.pool([1, 2, 3], { out: wa })).toBe(wa);
    const pooled = Array.from({ length: 16 }, (_, k) => (out[k] + out[16 + k] + out[32 + k]) / 3);
    wa.array.forEach((v, k) => expect(Math.abs(v - pooled[k])).toBeLessThan(1e-6));
    wa.free();
    encoder.dispose();
  });
});

describe('builds', () => {
  test('the SIMD and baseline wasm give the same bits for every positional scheme (fresh processes)', () => {
    const dist = new URL('../dist/encoder.mjs', import.meta.url).href;
    const script = (simd) => `
      const p = await import(${JSON.stringify(dist)});
      await p.init({ simd: ${simd} });
      const out = [];
      for (const type of ['none', 'sinusoidal', 'rope', 'alibi', 't5']) {
        const e = p.createEncoder({ vocabSize: 50, dModel: 30, heads: 3, dFF: 37, layers: 2, positional: { type }, activation: 'gelu', weights: { seed: 9 } });
        out.push(...e.forward([1, 2, 3, 4, 5, 6, 7], { mask: [1, 1, 1, 1, 1, 1, 0] }), ...e.attention(1));
        e.dispose();
      }
      console.log(JSON.stringify({ build: p.wasmBuild(), bits: Array.from(new Uint32Array(Float32Array.from(out).buffer)) }));`;
    const run = (simd) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script(simd)]).toString());
    const [a, b] = [run(true), run(false)];
    expect([a.build, b.build]).toEqual(['simd', 'baseline']);
    expect(a.bits.length).toBeGreaterThan(1000);
    expect(b.bits).toEqual(a.bits);
  });
});
