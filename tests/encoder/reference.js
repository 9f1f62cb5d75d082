// encoder-reference.js: the tiny encoder in float64, written from the maths
// (Vaswani et al. 2017 3.1-3.5, torch's LayerNorm and GELU, RoFormer's
// rotation, the ALiBi paper's get_slopes, Hugging Face T5's bucket code),
// independently of src/ and src/js/: the reference of tests/encoder/encoder.test.js
// and tests/decoder/decoder.test.js, with the random tensors they draw.

/** A small LCG, uniform in [-a, a). */
export function uniform(seed) {
  let s = seed >>> 0;
  return (a) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32 * 2 - 1) * a;
  };
}

/** Random tensors for a config, by the documented naming scheme (docs/encoder.md). */
export function randomTensors(cfg, seed) {
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

export function linear(x, W, b, inp, out) {
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

export function layerNorm(x, g, b, eps = 1e-5) {
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

/**
 * The encoder in float64: { out: rows of dModel, attention: [layer][head][i][j], logits }.
 * ropeRows(s) -> { invFreq, attentionFactor }: the RoPE frequencies row s is
 * rotated with (default: base^(-2k/r), divided by a linear scaling's factor),
 * so that rows may differ (a KV cache fed as the length grows under dynamic
 * NTK); queryScale(s): the multiplier of row s's query after RoPE (default 1).
 */
export function reference(cfg, T, tokens, { mask, causal = false, language, ropeRows, queryScale } = {}) {
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
  const r = pos.rotaryDim ?? hd;
  const factor = pos.scaling?.type === 'linear' ? pos.scaling.factor : 1;
  const plainRope = () => ({ invFreq: Array.from({ length: r / 2 }, (_, k) => (pos.base ?? 10000) ** ((-2 * k) / r) / factor), attentionFactor: 1 });
  const rope = (v) => {
    if (pos.type !== 'rope') return v;
    return v.map((row, s) => {
      const { invFreq, attentionFactor: A } = (ropeRows ?? plainRope)(s);
      const y = Float64Array.from(row);
      for (let h = 0; h < H; h++) {
        for (let k = 0; k < r / 2; k++) {
          const angle = s * invFreq[k];
          const [i, j] = (pos.layout ?? 'half') === 'half' ? [k, k + r / 2] : [2 * k, 2 * k + 1];
          const a = row[h * hd + i];
          const b = row[h * hd + j];
          y[h * hd + i] = A * (a * Math.cos(angle) - b * Math.sin(angle));
          y[h * hd + j] = A * (b * Math.cos(angle) + a * Math.sin(angle));
        }
      }
      return y;
    });
  };
  const scaled = (q) => (queryScale ? q.map((row, s) => row.map((v) => v * queryScale(s))) : q);
  const attention = [];
  const mha = (l, input) => {
    const p = `layers.${l}.self_attn.`;
    const q = scaled(rope(linear(input, t(`${p}q_proj.weight`), t(`${p}q_proj.bias`), d, d)));
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
export function relError(got, wantRows) {
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

