// The tiny encoder against a float64 reference written from the maths
// (tests/encoder/reference.js: Vaswani et al. 2017 3.1-3.5, torch's LayerNorm
// and GELU, RoFormer's rotation, the ALiBi paper's get_slopes, Hugging Face
// T5's bucket code), independently of src/encoder.c and src/js/encoder.js.
// Weights are drawn by the test, written with writeSafetensors and loaded from
// the bytes.
import { execFileSync } from 'node:child_process';
import { posencEncoder as posenc } from '../helpers.js';
import { previousTokenHead } from '../../web/previous-token-head.js';
import { layerNorm, linear, randomTensors, reference, relError, uniform } from './reference.js';

beforeAll(() => posenc.init());

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

const BASE = { vocabSize: 37, dModel: 16, heads: 2, dFF: 24, layers: 2, keepAttention: true };

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
    expect(e.config.embedScale).toBeUndefined(); // unset: C's default, sqrt(dModel), applies
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
      vocabSize: 10000, dModel: 512, heads: 8, dFF: 2048, layers: 1, languages: 2, keepAttention: true, weights: { seed: 3 },
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
  test('the demo\'s previous-token head (web/previous-token-head.js): from RoPE alone, every query attends to the token before it', () => {
    const cfg = { vocabSize: 64, dModel: 32, heads: 4, dFF: 64, layers: 1, positional: { type: 'rope' }, keepAttention: true };
    const seeded = posenc.createEncoder({ ...cfg, weights: { seed: 7 } });
    const tensors = previousTokenHead(posenc, seeded.tensors(), { heads: 4, head: 1 });
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
    const dist = new URL('../../dist/encoder.mjs', import.meta.url).href;
    const script = (simd) => `
      const p = await import(${JSON.stringify(dist)});
      await p.init({ simd: ${simd} });
      const out = [];
      for (const type of ['none', 'sinusoidal', 'rope', 'alibi', 't5']) {
        const e = p.createEncoder({ vocabSize: 50, dModel: 30, heads: 3, dFF: 37, layers: 2, positional: { type }, activation: 'gelu', keepAttention: true, weights: { seed: 9 } });
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
