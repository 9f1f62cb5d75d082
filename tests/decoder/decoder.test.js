// Incremental decoding with a KV cache: encoder.decoder() and
// encoder.generate() (include/posenc.h, posenc_decoder_feed).
//
// - With fixed frequencies the logits after each feed equal the row of the
//   full logits(tokens, { causal: true }) at the last token fed, to 1e-5 of
//   the row's largest logit, at every position, for every positional scheme,
//   the RoPE scalings and the query scales.
// - Frequencies that follow the length (dynamic NTK, LongRoPE) follow
//   transformers' KV-cache generation: each feed's new queries and keys are
//   rotated with the frequencies of the length after the feed, cached keys
//   keep theirs. Expected values: the float64 encoder of
//   tests/encoder/reference.js with each row rotated at its own frequencies,
//   the frequencies transcribed here from transformers' modeling_rope_utils.py.
// - Query scales: the multipliers posenc.queryScalesFromConfig gives for a
//   Llama 4 / Ministral 3 config.json, transcribed here in double too.
// - Greedy generation, errors (nothing changes), memory (bounded, returned).
// - The copy-task models of web/models/, whichever are committed; and torch's
//   own KV-cache generation (tests/fixtures/models/decode-*.safetensors,
//   tools/train/decode_fixtures.py) when those fixtures exist.
import fs from 'node:fs';
import { posencEncoder as posenc } from '../helpers.js';
import { randomTensors, reference, uniform } from '../encoder/reference.js';
import { copySequence, evalSymbols } from '../../web/models/copy-task.js';

beforeAll(() => posenc.init());

const BASE = { vocabSize: 29, dModel: 24, heads: 3, dFF: 40, layers: 2, lmHead: true, keepAttention: false };
const SEQ = 40;
const errors = {}; // case -> largest relative difference, printed at the end (the report's table)
afterAll(() => console.log(`largest |incremental - full| / max |full row|, per case:\n${Object.entries(errors).map(([k, v]) => `  ${k}: ${v.toExponential(2)}`).join('\n')}`));

/** max |got - want| / max |want| over one row. */
function rowError(got, want) {
  let err = 0;
  let scale = 0;
  for (let v = 0; v < want.length; v++) {
    const e = Math.abs(got[v] - want[v]);
    err = Number.isNaN(e) ? Infinity : Math.max(err, e);
    scale = Math.max(scale, Math.abs(want[v]));
  }
  return err / scale;
}

const tokensOf = (n, seed, vocab = BASE.vocabSize) => {
  const r = uniform(seed);
  return Array.from({ length: n }, () => Math.floor(((r(1) + 1) / 2) * vocab));
};

/** Feeds tokens in chunks; returns { position: logits } for the last token of each chunk. */
function feedAll(d, tokens, chunks) {
  const rows = new Map();
  let at = 0;
  for (const n of chunks) {
    rows.set(at + n - 1, d.feed(tokens.slice(at, at + n)));
    at += n;
  }
  expect(at).toBe(tokens.length);
  expect(d.length).toBe(tokens.length);
  return rows;
}

const ones = (n) => new Array(n).fill(1);
// a prompt, then one token at a time, a chunk of 5, one at a time
const PATTERNS = { 'one at a time': ones(SEQ), 'prompt of 7, then tokens': [7, ...ones(20), 5, ...ones(SEQ - 32)] };

/** The largest error of the decoder's rows against `want(position)` over both patterns. */
function worstAgainst(enc, tokens, want, patterns = PATTERNS) {
  let worst = 0;
  for (const chunks of Object.values(patterns)) {
    const d = enc.decoder();
    for (const [p, row] of feedAll(d, tokens, chunks)) worst = Math.max(worst, rowError(row, want(p)));
    d.dispose();
  }
  return worst;
}

/** Against the full causal pass of the whole sequence, row by row. */
function worstAgainstFull(enc, tokens, patterns) {
  const V = enc.config.vocabSize;
  const full = enc.logits(tokens, { causal: true });
  return worstAgainst(enc, tokens, (p) => full.subarray(p * V, (p + 1) * V), patterns);
}

const SCHEMES = [
  ['none', { positional: { type: 'none' } }],
  ['sinusoidal, post-norm, GELU', { positional: { type: 'sinusoidal' }, norm: 'post', activation: 'gelu' }],
  ['learned, final norm', { positional: { type: 'learned', maxLength: 48 }, finalNorm: true }],
  ['RoPE', { positional: { type: 'rope' } }],
  ['RoPE interleaved, rotaryDim 4, float32 angles', { positional: { type: 'rope', layout: 'interleaved', rotaryDim: 4, precision: 'float32' } }],
  ['ALiBi', { positional: { type: 'alibi' } }],
  ['ALiBi maxBias 4, 4 heads, post-norm', { positional: { type: 'alibi', maxBias: 4 }, heads: 4, norm: 'post' }],
  ['T5', { positional: { type: 't5' } }],
  ['T5 unidirectional, 8 buckets', { positional: { type: 't5', bidirectional: false, numBuckets: 8, maxDistance: 20 } }],
  ['none, tied head, a language', { positional: { type: 'none' }, tieEmbeddings: true, lmHead: undefined, languages: 2 }, { language: 1 }],
];
const SCALINGS = [
  ['linear x2', { type: 'linear', factor: 2 }],
  ['YaRN x4', { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 16 }],
  ['llama3 x8', { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 16 }],
  // never past M = 64: the frequencies never move
  ['dynamic NTK x4, M = 64', { type: 'dynamic', factor: 4, maxPositionEmbeddings: 64 }],
];
const SHORT = [1, 1.5, 2, 3];
const LONG = [1, 2, 4, 8];
const LONGROPE = { type: 'longrope', shortFactor: SHORT, longFactor: LONG, originalMaxPositionEmbeddings: 16, maxPositionEmbeddings: 64 };

describe('the logits after each feed are the full causal pass at that position', () => {
  test.each(SCHEMES)('%s', (name, options, extra = {}) => {
    const cfg = { ...BASE, ...options };
    const enc = posenc.createEncoder({ ...cfg, weights: randomTensors(cfg, 11) });
    const tokens = tokensOf(SEQ, 5);
    const full = enc.logits(tokens, { causal: true, ...extra });
    const V = cfg.vocabSize;
    let worst = 0;
    for (const chunks of Object.values(PATTERNS)) {
      const d = enc.decoder(extra);
      for (const [p, row] of feedAll(d, tokens, chunks)) worst = Math.max(worst, rowError(row, full.subarray(p * V, (p + 1) * V)));
      d.dispose();
    }
    errors[name] = worst;
    expect(worst).toBeLessThanOrEqual(1e-5);
    enc.dispose();
  });

  test.each(SCALINGS)('RoPE scaled: %s', (name, scaling) => {
    const cfg = { ...BASE, positional: { type: 'rope', scaling } };
    const enc = posenc.createEncoder({ ...cfg, weights: randomTensors(cfg, 12) });
    const worst = worstAgainstFull(enc, tokensOf(SEQ, 6));
    errors[`RoPE ${name}`] = worst;
    expect(worst).toBeLessThanOrEqual(1e-5);
    enc.dispose();
  });

  test('RoPE scaled: LongRoPE, every feed past O = 16 (the long factors throughout)', () => {
    const cfg = { ...BASE, positional: { type: 'rope', scaling: LONGROPE } };
    const enc = posenc.createEncoder({ ...cfg, weights: randomTensors(cfg, 13) });
    const worst = worstAgainstFull(enc, tokensOf(SEQ, 7), { 'prompt of 20, then tokens': [20, ...ones(SEQ - 20)] });
    errors['RoPE LongRoPE past O'] = worst;
    expect(worst).toBeLessThanOrEqual(1e-5);
    enc.dispose();
  });

  test.each([
    ['Llama 4 temperature tuning (NoPE)', { positional: { type: 'none' }, queryScale: { type: 'llama4', floorScale: 4, attnScale: 0.5 } }],
    ['Ministral 3 beta (RoPE)', { positional: { type: 'rope' }, queryScale: { type: 'ministral3', beta: 0.3, originalMaxPositionEmbeddings: 4 } }],
  ])('query scale: %s', (name, options) => {
    const cfg = { ...BASE, ...options };
    const enc = posenc.createEncoder({ ...cfg, weights: randomTensors(cfg, 14) });
    const worst = worstAgainstFull(enc, tokensOf(SEQ, 8));
    errors[`query scale ${name}`] = worst;
    expect(worst).toBeLessThanOrEqual(1e-5);
    enc.dispose();
  });
});

// The cache starts at 64 rows and doubles: rows already cached move to the
// new stride, including in a feed of several tokens that crosses the
// capacity (63 + 5 crosses 64, 120 + 10 crosses 128)
describe('the cache grows past 256 and 512 rows keeping every row', () => {
  const LONG_SEQ = 530;
  const chunks = [255, 5, ...ones(244), 10, ...ones(LONG_SEQ - 514)];
  test.each([
    ['RoPE', { positional: { type: 'rope' } }],
    ['ALiBi', { positional: { type: 'alibi' } }],
    ['learned', { positional: { type: 'learned', maxLength: LONG_SEQ } }],
  ])('%s: 530 tokens fed as 255, 5 (across 256), ones, 10 (across 512), ones: every feed is the full pass', (name, options) => {
    const cfg = { ...BASE, ...options };
    const enc = posenc.createEncoder({ ...cfg, weights: randomTensors(cfg, 21) });
    const tokens = tokensOf(LONG_SEQ, 12);
    const worst = worstAgainstFull(enc, tokens, { growing: chunks });
    errors[`${name}, the cache grown twice`] = worst;
    expect(worst).toBeLessThanOrEqual(1e-5);
    enc.dispose();
  });
});

// ---------------------------------------------------------------- frequencies that follow the length

/**
 * transformers' frequencies for a sequence of seqLen tokens, in double
 * (modeling_rope_utils.py, _compute_dynamic_ntk_parameters and
 * _compute_longrope_parameters): { invFreq, attentionFactor }.
 */
function hfFrequencies(scaling, r, seqLen, base = 10000) {
  const k = Array.from({ length: r / 2 }, (_, i) => i);
  if (scaling.type === 'dynamic') {
    const M = scaling.maxPositionEmbeddings;
    const L = Math.max(seqLen, M);
    const scaled = base * ((scaling.factor * L) / M - (scaling.factor - 1)) ** (r / (r - 2));
    return { invFreq: k.map((i) => scaled ** ((-2 * i) / r)), attentionFactor: 1 };
  }
  // longrope: the long factors once the sequence passes O; A = sqrt(1 + ln(M / O) / ln(O))
  const O = scaling.originalMaxPositionEmbeddings;
  const ext = seqLen > O ? scaling.longFactor : scaling.shortFactor;
  const factor = scaling.maxPositionEmbeddings / O;
  return { invFreq: k.map((i) => base ** ((-2 * i) / r) / ext[i]), attentionFactor: Math.sqrt(1 + Math.log(factor) / Math.log(O)) };
}

/**
 * transformers' KV-cache generation (modeling_rope_utils.py
 * dynamic_rope_update: at each forward call, seq_len = max(position_ids) + 1,
 * the length after the call's tokens; the call's queries and keys rotated
 * with its frequencies, the cached keys as they were stored): the length
 * each row was fed at, for chunks fed in order.
 */
function feedLengths(chunks) {
  const out = [];
  let at = 0;
  for (const n of chunks) {
    at += n;
    for (let i = 0; i < n; i++) out.push(at);
  }
  return out;
}

/**
 * A float64-checked encoder with RoPE under `scaling`, its tokens, and the
 * last row of the float64 full causal pass of each prefix tokens[0..p], every
 * key at the frequencies of length p + 1 (computed once per p).
 */
function scaledSetup(scaling) {
  const cfg = { ...BASE, positional: { type: 'rope', scaling } };
  const T = randomTensors(cfg, 15);
  const enc = posenc.createEncoder({ ...cfg, weights: T });
  const tokens = tokensOf(SEQ, 9);
  const r = cfg.dModel / cfg.heads;
  const rows = new Map();
  const prefixRow = (p) => {
    if (!rows.has(p)) rows.set(p, reference(cfg, T, tokens.slice(0, p + 1), { causal: true, ropeRows: () => hfFrequencies(scaling, r, p + 1) }).logits[p]);
    return rows.get(p);
  };
  return { cfg, T, enc, tokens, r, prefixRow };
}

describe('dynamic NTK and LongRoPE as transformers generates with a cache', () => {
  const cases = [
    ['dynamic NTK x4, M = 16', { type: 'dynamic', factor: 4, maxPositionEmbeddings: 16 }],
  ];
  // dynamic NTK: cached keys keep their rotation
  test.each(cases)('%s: every feed against the float64 encoder with each row at the frequencies of its feed', (name, scaling) => {
    const { cfg, T, enc, tokens, r, prefixRow } = scaledSetup(scaling);
    let worst = 0;
    let apart = 0; // from the full pass, which rotates every key at the final length
    for (const chunks of [...Object.values(PATTERNS), [SEQ]]) {
      const lengths = feedLengths(chunks);
      const want = reference(cfg, T, tokens, { causal: true, ropeRows: (s) => hfFrequencies(scaling, r, lengths[s]) }).logits;
      const d = enc.decoder();
      for (const [p, row] of feedAll(d, tokens, chunks)) {
        worst = Math.max(worst, rowError(row, want[p]));
        apart = Math.max(apart, rowError(row, prefixRow(p)));
      }
      d.dispose();
    }
    errors[`RoPE ${name}, KV-cache semantics`] = worst;
    expect(worst).toBeLessThanOrEqual(1e-5);
    // the semantics matter here: the full pass of each prefix is another function
    expect(apart).toBeGreaterThan(1e-3);
    enc.dispose();
  });

  // LongRoPE (Phi-3's generation): short factors up to O; the feed that first
  // passes O drops the cache and feeds the whole sequence again (Phi3ForCausalLM
  // prepare_inputs_for_generation), so every key carries the long factors: each
  // feed is the full pass of its prefix, whatever the chunks
  test('LongRoPE, O = 16: every feed is the full pass of its prefix, the switch crossed with rows cached', () => {
    const scaling = LONGROPE;
    const { cfg, T, enc, tokens, r, prefixRow } = scaledSetup(scaling);
    let worst = 0;
    let mixed = 0; // from rows kept at the short factors across the switch (no feeding again)
    const patterns = { ...PATTERNS, 'a prompt of 15, then 3 across O': [15, 3, ...ones(SEQ - 18)], whole: [SEQ] };
    for (const chunks of Object.values(patterns)) {
      const lengths = feedLengths(chunks);
      const d = enc.decoder();
      for (const [p, row] of feedAll(d, tokens, chunks)) {
        worst = Math.max(worst, rowError(row, prefixRow(p)));
        if (p + 1 > 16) {
          const kept = reference(cfg, T, tokens.slice(0, p + 1), { causal: true, ropeRows: (s) => hfFrequencies(scaling, r, lengths[s]) }).logits[p];
          mixed = Math.max(mixed, rowError(row, kept));
        }
      }
      d.dispose();
    }
    errors['RoPE LongRoPE, fed again at the switch'] = worst;
    expect(worst).toBeLessThanOrEqual(1e-5);
    expect(mixed).toBeGreaterThan(1e-3); // keeping the short-factor rows would be another function
    enc.dispose();
  });

  test('the whole sequence in one feed is the full pass (the frequencies of its length); after reset() a sequence is decoded as by a new decoder', () => {
    const scaling = { type: 'dynamic', factor: 4, maxPositionEmbeddings: 16 };
    const cfg = { ...BASE, positional: { type: 'rope', scaling } };
    const enc = posenc.createEncoder({ ...cfg, weights: randomTensors(cfg, 16) });
    const tokens = tokensOf(30, 10);
    const V = cfg.vocabSize;
    const d = enc.decoder();
    for (const n of [30, 12, 25]) {
      d.reset();
      const row = d.feed(tokens.slice(0, n));
      const full = enc.logits(tokens.slice(0, n), { causal: true });
      expect(rowError(row, full.subarray((n - 1) * V, n * V))).toBeLessThanOrEqual(1e-5);
    }
    // after reset, a short sequence fed token by token is the full pass again (never past M)
    d.reset();
    const full = enc.logits(tokens.slice(0, 16), { causal: true });
    for (let p = 0; p < 16; p++) expect(rowError(d.feed(tokens[p]), full.subarray(p * V, (p + 1) * V))).toBeLessThanOrEqual(1e-5);
    d.dispose();
    enc.dispose();
  });
});

// ---------------------------------------------------------------- query scales

describe('query scales (issue 19): the multipliers of posenc.queryScalesFromConfig, in the full pass and the decoder', () => {
  // the formulas, transcribed from transformers (modeling_llama4.py
  // Llama4TextAttention; modeling_ministral3.py), in double
  const llama4 = (floorScale, attnScale) => (p) => Math.log(Math.floor((p + 1) / floorScale) + 1) * attnScale + 1;
  const ministral3 = (beta, original) => (p) => 1 + beta * Math.log(1 + Math.floor(p / original));
  const CONFIGS = [
    ['Llama 4, NoPE layer', { model_type: 'llama4_text', num_hidden_layers: 4, floor_scale: 4, attn_scale: 0.5, attn_temperature_tuning: true },
      { layerType: 'full_attention' }, { positional: { type: 'none' }, queryScale: { type: 'llama4', floorScale: 4, attnScale: 0.5 } }, llama4(4, 0.5)],
    ['Ministral 3', { model_type: 'ministral3', rope_parameters: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 4, llama_4_scaling_beta: 0.3, rope_theta: 10000 } },
      {}, { positional: { type: 'rope' }, queryScale: { type: 'ministral3', beta: 0.3, originalMaxPositionEmbeddings: 4 } }, ministral3(0.3, 4)],
  ];
  test.each(CONFIGS)('%s', (name, config, select, options, formula) => {
    const scales = posenc.queryScalesFromConfig(config, { ...select, length: SEQ });
    expect(Array.from(scales)).toEqual(Array.from({ length: SEQ }, (_, p) => Math.fround(formula(p))));
    expect(new Set(scales).size).toBeGreaterThan(3); // the scale moves within the sequence
    const cfg = { ...BASE, ...options };
    const T = randomTensors(cfg, 17);
    const enc = posenc.createEncoder({ ...cfg, weights: T });
    const tokens = tokensOf(SEQ, 11);
    const want = reference(cfg, T, tokens, { causal: true, queryScale: (s) => scales[s] }).logits;
    const V = cfg.vocabSize;
    const full = enc.logits(tokens, { causal: true });
    const fullError = Math.max(...want.map((row, p) => rowError(full.subarray(p * V, (p + 1) * V), row)));
    expect(fullError).toBeLessThanOrEqual(1e-5);
    expect(worstAgainst(enc, tokens, (p) => want[p])).toBeLessThanOrEqual(1e-5);
    // a multiplier one position off is far from it: the test tells positions apart
    const shifted = reference(cfg, T, tokens, { causal: true, queryScale: (s) => scales[Math.max(s - 1, 0)] }).logits;
    expect(Math.max(...shifted.map((row, p) => rowError(full.subarray(p * V, (p + 1) * V), row)))).toBeGreaterThan(1e-4);
    enc.dispose();
  });

  test('defaults (floorScale 8192, attnScale 0.1), the option in the config and the model file, and bad values', () => {
    const cfg = { ...BASE, queryScale: { type: 'llama4' } };
    const enc = posenc.createEncoder({ ...cfg, weights: { seed: 1 } });
    expect(enc.config.queryScale).toEqual({ type: 'llama4', floorScale: 8192, attnScale: 0.1 });
    const again = posenc.createEncoder({ weights: enc.toSafetensors() });
    expect(again.config.queryScale).toEqual(enc.config.queryScale);
    // s(p) = 1 below position 8191: the same logits as without
    const plain = posenc.createEncoder({ ...BASE, weights: enc.tensors() });
    expect(enc.logits([1, 2, 3], { causal: true })).toEqual(plain.logits([1, 2, 3], { causal: true }));
    for (const e of [enc, again, plain]) e.dispose();
    const bad = (queryScale) => () => posenc.createEncoder({ ...BASE, queryScale, weights: { seed: 1 } });
    expect(bad({ type: 'llama4', floorScale: 0 })).toThrow(/^posenc\.createEncoder: queryScale\.floorScale must be a finite number > 0, got 0$/);
    expect(bad({ type: 'ministral3', beta: 0.1 })).toThrow(/^posenc\.createEncoder: queryScale\.originalMaxPositionEmbeddings is required for type 'ministral3'$/);
    expect(bad({ type: 'ministral3', beta: 1e38, originalMaxPositionEmbeddings: 1 })).toThrow(/^posenc\.createEncoder: queryScale gives a multiplier beyond float32's range/);
    expect(bad({ type: 'llama5' })).toThrow(/^posenc\.createEncoder: queryScale\.type must be one of 'none', 'llama4', 'ministral3', got "llama5"$/);
    expect(bad('llama4')).toThrow(TypeError);
  });
});

// ---------------------------------------------------------------- generation

describe('greedy generation', () => {
  /** The plain loop: the argmax of the full pass's last row, appended, n times. */
  function naive(enc, prompt, n) {
    const V = enc.config.vocabSize;
    const seq = [...prompt];
    for (let i = 0; i < n; i++) {
      const logits = enc.logits(seq, { causal: true });
      let best = 0;
      for (let v = 1; v < V; v++) if (logits[(seq.length - 1) * V + v] > logits[(seq.length - 1) * V + best]) best = v;
      seq.push(best);
    }
    return seq.slice(prompt.length);
  }

  test.each(SCHEMES.slice(0, 9))('%s: generate() is the plain loop over the full pass', (name, options) => {
    const cfg = { ...BASE, ...options };
    // larger weights: outputs that depend on the tokens, not one token again and again
    const enc = posenc.createEncoder({ ...cfg, weights: randomTensors(cfg, 18) });
    const prompt = tokensOf(9, 12);
    const out = enc.generate(prompt, { maxNewTokens: 20 });
    expect(out).toBeInstanceOf(Int32Array);
    expect(Array.from(out)).toEqual(naive(enc, prompt, 20));
    enc.dispose();
  });

  test('maxNewTokens 0 is an empty Int32Array; one token is the argmax after the prompt; a language is passed on', () => {
    const cfg = { ...BASE, languages: 2 };
    const enc = posenc.createEncoder({ ...cfg, weights: randomTensors(cfg, 19) });
    expect(enc.generate([1, 2], { maxNewTokens: 0 })).toEqual(new Int32Array(0));
    expect(Array.from(enc.generate([1, 2], { maxNewTokens: 1 }))).toEqual(naive(enc, [1, 2], 1));
    const V = cfg.vocabSize;
    const row = enc.logits([1, 2, 3], { causal: true, language: 1 }).subarray(2 * V);
    const [first] = enc.generate([1, 2, 3], { maxNewTokens: 1, language: 1 });
    expect(row[first]).toBe(Math.max(...row));
    enc.dispose();
  });
});

// ---------------------------------------------------------------- generation options

const MASK64 = 2n ** 64n - 1n;
/** SplitMix64 (Steele, Lea and Flood 2014): [next state, 64 output bits]. */
function splitmix64(state) {
  const next = (state + 0x9e3779b97f4a7c15n) & MASK64;
  let z = next;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return [next, z ^ (z >> 31n)];
}

/**
 * The documented choice, in double (include/posenc_encoder.h,
 * posenc_sampling; HF's TemperatureLogitsWarper, TopKLogitsWarper,
 * TopPLogitsWarper): the top-k largest logits (lower id first among equal),
 * then the fewest most probable reaching top-p of softmax(logits / T), then
 * u = (next >> 11) 2^-53 times their total, walked in id order.
 */
function chooseReference(logits, { temperature, topK = 0, topP = 0 }, state) {
  const V = logits.length;
  const top = Math.max(...logits);
  const w = (id) => Math.exp((logits[id] - top) / temperature);
  let kept = [...logits.keys()].sort((a, b) => logits[b] - logits[a] || a - b);
  if (topK > 0 && topK < V) kept = kept.slice(0, topK);
  if (topP > 0 && topP < 1) {
    const total = kept.reduce((t, id) => t + w(id), 0);
    let sum = 0;
    let i = 0;
    while (i < kept.length && sum < topP * total) sum += w(kept[i++]);
    kept = kept.slice(0, i);
  }
  kept.sort((a, b) => a - b);
  const total = kept.reduce((t, id) => t + w(id), 0);
  const [next, bits] = splitmix64(state);
  const u = Number(bits >> 11n) * 2 ** -53 * total;
  let cum = 0;
  for (const id of kept) {
    cum += w(id);
    if (u < cum) return [id, next];
  }
  return [kept[kept.length - 1], next];
}

describe('generation options: stopTokens, maxNewTokens, stream, sampling', () => {
  const cfg = { ...BASE, positional: { type: 'rope' } };
  let enc;
  beforeAll(() => {
    enc = posenc.createEncoder({ ...cfg, weights: randomTensors(cfg, 18) });
  });
  afterAll(() => enc.dispose());
  const prompt = tokensOf(6, 30);

  test.each([
    ['temperature 1', { temperature: 1, seed: 1234 }],
    ['temperature 0.7, topK 5', { temperature: 0.7, topK: 5, seed: 99n }],
    ['temperature 1.3, topP 0.8', { temperature: 1.3, topP: 0.8, seed: 2 ** 53 - 1 }],
    ['temperature 0.9, topK 7, topP 0.9, a 64-bit seed', { temperature: 0.9, topK: 7, topP: 0.9, seed: 0xfedcba9876543210n }],
  ])('%s: each token is the documented choice from the logits of its step, from the seed', (name, sampling) => {
    const n = 24;
    const got = enc.generate(prompt, { maxNewTokens: n, ...sampling });
    // the reference: feed, choose in double from the logits fed back, repeat
    const d = enc.decoder();
    let logits = d.feed(prompt);
    let state = BigInt(sampling.seed);
    const want = [];
    for (let i = 0; i < n; i++) {
      let token;
      [token, state] = chooseReference(Array.from(logits), sampling, state);
      want.push(token);
      if (i + 1 < n) logits = d.feed(token);
    }
    d.dispose();
    expect(Array.from(got)).toEqual(want);
    // the same seed, the same tokens; the stream, the same tokens
    expect(enc.generate(prompt, { maxNewTokens: n, ...sampling })).toEqual(got);
    expect([...enc.stream(prompt, { maxNewTokens: n, ...sampling })]).toEqual(want);
  });

  test('greedy by default: temperature 0, and topK 1 whatever the temperature, are the argmax', () => {
    const greedy = enc.generate(prompt, { maxNewTokens: 15 });
    expect(enc.generate(prompt, { maxNewTokens: 15, temperature: 0, seed: 5 })).toEqual(greedy);
    expect(enc.generate(prompt, { maxNewTokens: 15, temperature: 2, topK: 1, seed: 5 })).toEqual(greedy);
    expect(enc.generate(prompt, { maxNewTokens: 15, seed: 12345n })).toEqual(greedy);
  });

  test('stopTokens: the first stop token ends the generation, returned and not fed', () => {
    const free = Array.from(enc.generate(prompt, { maxNewTokens: 20 }));
    const stop = free[7];
    const first = free.indexOf(stop);
    const d = enc.decoder();
    const out = d.generate(prompt, { maxNewTokens: 20, stopTokens: [stop] });
    expect(Array.from(out)).toEqual(free.slice(0, first + 1));
    expect(d.length).toBe(prompt.length + first); // the stop token is not fed
    // the sequence goes on from there: the next generation continues it
    const more = d.generate([stop], { maxNewTokens: 3 });
    expect(Array.from(more)).toEqual(free.slice(first + 1, first + 4));
    d.dispose();
    expect([...enc.stream(prompt, { maxNewTokens: 20, stopTokens: new Int32Array([stop]) })]).toEqual(free.slice(0, first + 1));
    expect(enc.generate(prompt, { maxNewTokens: 20, stopTokens: [] })).toEqual(Int32Array.from(free));
  });

  test('maxNewTokens must fit the cache: nothing is fed when it does not', () => {
    const d = enc.decoder({ maxLength: 10 });
    d.feed([1]);
    expect(() => d.generate([1, 2, 3, 4], { maxNewTokens: 7 })).toThrow(
      /^posenc\.decoder\.generate: maxNewTokens and prompt\.length must fit the sequence: prompt\.length \+ maxNewTokens - 1 <= maxLength - length = 9, got 7$/,
    );
    expect(() => d.stream([1, 2, 3, 4], { maxNewTokens: 7 }).next()).toThrow(
      /^posenc\.decoder\.stream: maxNewTokens and prompt\.length must fit the sequence: prompt\.length \+ maxNewTokens - 1 <= maxLength - length = 9, got 7$/,
    );
    expect(d.length).toBe(1);
    expect(d.generate([1, 2, 3, 4], { maxNewTokens: 6 })).toHaveLength(6);
    expect(d.length).toBe(10);
    d.dispose();
  });

  test('stream: one token at a time, the sequence growing as they come; a loop left early keeps what was fed', () => {
    const all = Array.from(enc.generate(prompt, { maxNewTokens: 12 }));
    const d = enc.decoder();
    const seen = [];
    for (const token of d.stream(prompt, { maxNewTokens: 12 })) {
      seen.push(token);
      expect(d.length).toBe(prompt.length + seen.length - 1);
      if (seen.length === 5) break;
    }
    expect(seen).toEqual(all.slice(0, 5));
    expect(d.length).toBe(prompt.length + 4);
    d.dispose();
    // a stream on the encoder holds a decoder only while it runs
    const start = posenc.memoryStats().allocatedBytes;
    const it = enc.stream(prompt, { maxNewTokens: 12 });
    expect(posenc.memoryStats().allocatedBytes).toBe(start);
    expect(it.next().value).toBe(all[0]);
    expect(posenc.memoryStats().allocatedBytes).toBeGreaterThan(start);
    it.return();
    expect(posenc.memoryStats().allocatedBytes).toBe(start);
    // a decoder disposed while its stream runs: the next token throws
    const e = enc.decoder();
    const run = e.stream(prompt, { maxNewTokens: 4 });
    run.next();
    e.dispose();
    expect(() => run.next()).toThrow(/^posenc\.decoder\.stream: the decoder was disposed$/);
  });

  test('bad options are named errors, checked before anything is fed', () => {
    const before = posenc.memoryStats().allocatedBytes;
    const d = enc.decoder();
    const g = (o) => () => d.generate(prompt, { maxNewTokens: 3, ...o });
    expect(g({ temperature: -1 })).toThrow(/^posenc\.decoder\.generate: temperature must be a finite number >= 0.*, got -1$/);
    expect(g({ temperature: NaN })).toThrow(/^posenc\.decoder\.generate: temperature must be .*got NaN$/);
    expect(g({ topP: 1.5 })).toThrow(/^posenc\.decoder\.generate: topP must be a finite number >= 0 and <= 1, got 1\.5$/);
    expect(g({ topK: 2.5 })).toThrow(/^posenc\.decoder\.generate: topK must be an integer from 0 to \d+, got 2\.5$/);
    expect(g({ seed: -1 })).toThrow(/^posenc\.decoder\.generate: seed must be an integer from 0 to 2\^53 - 1, or a bigint from 0n to 2n \*\* 64n - 1n, got -1$/);
    expect(g({ seed: 2 ** 64 })).toThrow(RangeError);
    expect(g({ seed: 2n ** 64n })).toThrow(RangeError);
    expect(g({ seed: '1' })).toThrow(TypeError);
    expect(g({ stopTokens: [99] })).toThrow(/^posenc\.decoder\.generate: stopTokens\[0\] must be an integer from 0 to 28, got 99$/);
    expect(g({ stopTokens: 3 })).toThrow(TypeError);
    expect(g({ topk: 3 })).toThrow(/^posenc\.decoder\.generate: unknown option 'topk'/);
    expect(() => d.generate(prompt)).toThrow(/^posenc\.decoder\.generate: expects an options object, got undefined$/);
    // a stream's checks run at its first next(), as any generator's
    const hot = enc.stream(prompt, { maxNewTokens: 3, temperature: -1 });
    expect(() => hot.next()).toThrow(/^posenc\.encoder\.stream: temperature must be/);
    expect(() => d.stream(prompt, { maxNewTokens: 3, topP: 2 }).next()).toThrow(/^posenc\.decoder\.stream: topP must be/);
    expect(d.length).toBe(0);
    d.dispose();
    expect(posenc.memoryStats().allocatedBytes).toBe(before);
  });
});

// ---------------------------------------------------------------- errors and memory

describe('bad input is a named error, and the sequence goes on as if it had not happened', () => {
  const cfg = { ...BASE, positional: { type: 'learned', maxLength: 12 } };
  let enc;
  beforeAll(() => {
    enc = posenc.createEncoder({ ...cfg, weights: randomTensors(cfg, 20) });
  });
  afterAll(() => enc.dispose());

  test('a token out of range, past maxLength (learned), a wrong out', () => {
    const tokens = tokensOf(12, 13);
    const full = enc.logits(tokens, { causal: true });
    const V = cfg.vocabSize;
    const d = enc.decoder();
    expect(d.maxLength).toBe(12);
    d.feed(tokens.slice(0, 5));
    expect(() => d.feed([3, 29])).toThrow(/^posenc\.decoder\.feed: tokens\[1\] must be an integer from 0 to 28, got 29$/);
    expect(() => d.feed(-1)).toThrow(/^posenc\.decoder\.feed: tokens\[0\] must be an integer from 0 to 28, got -1$/);
    expect(() => d.feed([])).toThrow(/^posenc\.decoder\.feed: tokens must be .* at least one/);
    expect(() => d.feed(tokens.slice(5, 8), { out: new Float32Array(3) })).toThrow(/^posenc\.decoder\.feed: out must have length vocabSize = 29, got 3$/);
    expect(() => d.feed(tokens.slice(5, 8), { other: 1 })).toThrow(/^posenc\.decoder\.feed: unknown option 'other'/);
    expect(d.length).toBe(5);
    d.feed(tokens.slice(5, 11));
    expect(() => d.feed([1, 2])).toThrow(/^posenc\.decoder\.feed: tokens\.length must fit in the sequence: at most maxLength - length = 1 more, got 2$/);
    expect(d.length).toBe(11);
    const out = new Float32Array(V);
    expect(d.feed(tokens[11], { out })).toBe(out);
    expect(rowError(out, full.subarray(11 * V))).toBeLessThanOrEqual(1e-5);
    expect(() => d.feed(0)).toThrow(/at most maxLength - length = 0 more, got 1$/);
    d.dispose();
  });

  test('options of decoder() and generate()', () => {
    expect(() => enc.decoder({ maxLength: 13 })).toThrow(/^posenc\.encoder\.decoder: maxLength must be an integer from 1 to positional\.maxLength = 12 \(learned positions stop there\), got 13$/);
    expect(() => enc.decoder({ maxLength: 0 })).toThrow(/^posenc\.encoder\.decoder: maxLength must be an integer from 1 to 2147483648, got 0$/);
    expect(() => enc.decoder({ maxLength: 2.5 })).toThrow(RangeError);
    expect(() => enc.decoder({ language: 0 })).toThrow(/^posenc\.encoder\.decoder: language needs a config with languages > 0, got 0$/);
    expect(() => enc.decoder({ maxlength: 3 })).toThrow(/^posenc\.encoder\.decoder: unknown option 'maxlength'/);
    expect(() => enc.generate([1], {})).toThrow(/^posenc\.encoder\.generate: maxNewTokens is required$/);
    expect(() => enc.generate([1], { maxNewTokens: -1 })).toThrow(/^posenc\.encoder\.generate: maxNewTokens must be an integer from 0 to 2147483647, got -1$/);
    expect(() => enc.generate([1, 2, 3], { maxNewTokens: 11 })).toThrow(
      /^posenc\.encoder\.generate: maxNewTokens and prompt\.length must fit the sequence: prompt\.length \+ maxNewTokens - 1 <= maxLength - length = 12, got 11$/,
    );
    expect(enc.generate([1, 2, 3], { maxNewTokens: 10 })).toHaveLength(10);
    expect(() => enc.generate([30], { maxNewTokens: 1 })).toThrow(/^posenc\.encoder\.generate: tokens\[0\] must be an integer from 0 to 28, got 30$/);
    const noHead = posenc.createEncoder({ ...BASE, lmHead: false, weights: { seed: 1 } });
    expect(() => noHead.decoder()).toThrow(/^posenc\.encoder\.decoder: the encoder has no LM head/);
    expect(() => noHead.generate([1], { maxNewTokens: 1 })).toThrow(/^posenc\.encoder\.generate: the encoder has no LM head/);
    noHead.dispose();
  });

  test('a decoder with maxLength: the cache is full; use after dispose; the encoder disposed takes its decoders', () => {
    const other = posenc.createEncoder({ ...BASE, weights: { seed: 2 } });
    const d = other.decoder({ maxLength: 3 });
    d.feed([1, 2, 3]);
    expect(() => d.feed(4)).toThrow(/^posenc\.decoder\.feed: tokens\.length must fit in the sequence: at most maxLength - length = 0 more, got 1$/);
    d.reset();
    expect(d.length).toBe(0);
    d.feed([1]);
    d.dispose();
    d.dispose(); // again: nothing
    expect(() => d.feed(1)).toThrow(/^posenc\.decoder\.feed: the decoder was disposed$/);
    expect(() => d.reset()).toThrow(/^posenc\.decoder\.reset: the decoder was disposed$/);
    const e = other.decoder();
    e.feed([1, 2]);
    other.dispose();
    expect(() => e.feed(1)).toThrow(/^posenc\.decoder\.feed: the encoder was disposed \(its decoders with it\)$/);
    expect(() => other.decoder()).toThrow(/^posenc\.encoder\.decoder: the encoder was disposed$/);
    expect(() => other.generate([1], { maxNewTokens: 1 })).toThrow(/^posenc\.encoder\.generate: the encoder was disposed$/);
  });
});

describe('memory', () => {
  test('bounded by the sequence (the cache doubles from 256 rows, up to maxLength), and returned by dispose()', () => {
    const cfg = { ...BASE, positional: { type: 'rope' } };
    const enc = posenc.createEncoder({ ...cfg, weights: { seed: 3 } });
    const start = posenc.memoryStats().allocatedBytes;
    const rowBytes = cfg.layers * 2 * cfg.dModel * 4; // one token's keys and values
    const d = enc.decoder();
    const tokens = tokensOf(300, 14);
    d.feed(tokens.slice(0, 10));
    const early = posenc.memoryStats().allocatedBytes - start;
    expect(d.memoryBytes).toBeLessThanOrEqual(early);
    for (const t of tokens.slice(10)) d.feed(t);
    const late = posenc.memoryStats().allocatedBytes - start;
    expect(early).toBeGreaterThanOrEqual(256 * rowBytes);
    expect(early).toBeLessThan(256 * rowBytes + 32768);
    expect(late).toBeGreaterThanOrEqual(512 * rowBytes);
    expect(late).toBeLessThan(512 * rowBytes + 65536);
    d.reset(); // keeps the memory for the next sequence
    expect(posenc.memoryStats().allocatedBytes - start).toBe(late);
    d.dispose();
    expect(posenc.memoryStats().allocatedBytes).toBe(start);
    // generate() disposes its decoder
    enc.generate(tokens.slice(0, 5), { maxNewTokens: 30 });
    expect(posenc.memoryStats().allocatedBytes).toBe(start);
    const e = enc.decoder({ maxLength: 100 });
    for (const t of tokens.slice(0, 100)) e.feed(t);
    expect(posenc.memoryStats().allocatedBytes - start).toBeLessThan(100 * rowBytes + 32768); // never past maxLength
    enc.dispose(); // takes e with it
    expect(posenc.memoryStats().allocatedBytes).toBeLessThan(start);
  });
});

// ---------------------------------------------------------------- the copy-task models

const root = new URL('../../', import.meta.url);
const read = (file) => fs.readFileSync(new URL(file, root));
const manifest = JSON.parse(read('web/models/manifest.json'));

describe("the copy-task models of web/models/ (whichever are committed): n = 48, past training", () => {
  test.each(manifest.models.map((m) => [m.scheme, m]))('%s: every position of the copy is the full pass; generate() copies as the full pass does', (scheme, m) => {
    const enc = posenc.createEncoder({ weights: read(`web/models/${m.file}`), keepAttention: false });
    const n = 48;
    const tokens = Array.from(copySequence(evalSymbols(n, 0)));
    const worst = worstAgainstFull(enc, tokens, { 'prompt, then the copy one token at a time': [n + 2, ...ones(n)] });
    errors[`copy-${scheme}, n = 48`] = worst;
    expect(worst).toBeLessThanOrEqual(1e-5);
    // greedy: the argmax of the full pass's last row, appended, as the plain loop does it
    const V = enc.config.vocabSize;
    const seq = tokens.slice(0, n + 2);
    const generated = enc.generate(seq, { maxNewTokens: n });
    for (let i = 0; i < n; i++) {
      const logits = enc.logits(seq, { causal: true }).subarray((seq.length - 1) * V);
      expect([i, generated[i]]).toEqual([i, logits.indexOf(Math.max(...logits))]);
      seq.push(generated[i]);
    }
    enc.dispose();
  });
});

// ---------------------------------------------------------------- against torch

// tools/train/decode_fixtures.py writes torch's own KV-cache generation on the
// committed models: per case the prompt, the tokens generated greedily and
// the logits each was chosen from; dynamic NTK in transformers' semantics
// ('cache') and recomputed from scratch at each step ('recompute').
const FIXTURES = fs.readdirSync(new URL('tests/fixtures/models/', root)).filter((f) => /^decode-.*\.safetensors$/.test(f));

describe('against torch: KV-cache greedy generation (tests/fixtures/models/decode-*.safetensors)', () => {
  test('one fixture per scheme and one of RoPE scaling are committed (tools/train/decode_fixtures.py)', () => {
    const schemes = ['none', 'learned', 'sinusoidal', 'rope', 'alibi', 't5'];
    expect([...FIXTURES].sort()).toEqual([...schemes, 'rope-scaled'].map((s) => `decode-${s}.safetensors`).sort());
  });
  const cases = FIXTURES.flatMap((file) => {
    const { tensors, metadata } = posenc.readSafetensors(read(`tests/fixtures/models/${file}`));
    return Object.entries(JSON.parse(metadata['posenc.cases'])).map(([name, about]) => [`${file} ${name}`, name, about, tensors]);
  });
  test.each(cases)('%s: logits within 1e-4 of torch\'s at every step, the same tokens', (label, name, about, tensors) => {
    const bytes = read(about.model);
    const options = { weights: bytes, keepAttention: false };
    if (about.scaling) {
      const own = JSON.parse(posenc.readSafetensors(bytes).metadata['posenc.config']);
      options.positional = { ...own.positional, scaling: about.scaling };
    }
    const enc = posenc.createEncoder(options);
    const prompt = Array.from(tensors[`prompt.${name}`].data);
    const generated = Array.from(tensors[`generated.${name}`].data);
    const torch = tensors[`logits.${name}`].data;
    const V = enc.config.vocabSize;
    const rows = [];
    if (about.dynamic === 'recompute') {
      const seq = [...prompt];
      for (const t of generated) {
        rows.push(enc.logits(seq, { causal: true }).slice((seq.length - 1) * V));
        seq.push(t);
      }
    } else {
      const d = enc.decoder();
      rows.push(d.feed(prompt));
      for (const t of generated.slice(0, -1)) rows.push(d.feed(t));
      d.dispose();
      expect(Array.from(enc.generate(prompt, { maxNewTokens: generated.length }))).toEqual(generated);
    }
    const worst = Math.max(...rows.map((row, i) => rowError(row, torch.subarray(i * V, (i + 1) * V))));
    errors[`torch ${label}`] = worst;
    expect(worst).toBeLessThanOrEqual(1e-4);
    enc.dispose();
  });
});
