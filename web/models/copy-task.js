// copy-task.js: the copy task of the trained models (tools/train/copy_task.py
// is its Python twin): token layout, the seeded evaluation sequences, and
// scoring. A plain ES module with no imports, for tests, the page and workers.
//
// Vocabulary of 18: 0 = BOS, 1 = SEP, 2..17 are the symbols. For n symbols
// the sequence is [0, s_1..s_n, 1, s_1..s_n] (length 2n + 2). A causal model
// is scored on the n copied symbols, each predicted by argmax at the position
// before it (teacher-forced).

export const BOS = 0;
export const SEP = 1;
export const VOCAB_SIZE = 18;
export const EVAL_NS = Object.freeze([8, 16, 32, 48, 64, 96, 128, 192, 256]);
export const EVAL_SEED = 0x5eed0c0b;

/**
 * lowbias32 (Chris Wellons, "Prospecting for Hash Functions", hash-prospector):
 * x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16,
 * mod 2^32, as an unsigned 32-bit integer.
 */
export function lowbias32(x) {
  x >>>= 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The n symbols of evaluation sequence `index` at length n: symbol j is
 * 2 + (lowbias32(lowbias32(lowbias32(EVAL_SEED ^ n) ^ index) ^ j) >> 28). */
export function evalSymbols(n, index) {
  const key = lowbias32(lowbias32(EVAL_SEED ^ n) ^ index);
  return Array.from({ length: n }, (_, j) => 2 + (lowbias32(key ^ j) >>> 28));
}

/** [BOS, s_1..s_n, SEP, s_1..s_n] as an Int32Array. */
export function copySequence(symbols) {
  return Int32Array.from([BOS, ...symbols, SEP, ...symbols]);
}

/**
 * Which copied symbols the logits get right: logits [2n + 2][vocab] of a
 * causal model on copySequence(s_1..s_n). The copy of s_{i+1} sits at
 * position n + 2 + i and is predicted at position n + 1 + i, the one before it
 * (teacher-forced): position n + 1 holds SEP and predicts s_1, position 2n
 * predicts s_n. Returns n booleans.
 */
export function copyCorrect(tokens, logits, vocab = VOCAB_SIZE) {
  const n = (tokens.length - 2) / 2;
  const correct = [];
  for (let p = n + 1; p <= 2 * n; p++) {
    let best = 0;
    for (let v = 1; v < vocab; v++) if (logits[p * vocab + v] > logits[p * vocab + best]) best = v;
    correct.push(best === tokens[p + 1]);
  }
  return correct;
}

/**
 * Token accuracy and exact match of `logitsOf(tokens) -> Float32Array` on
 * evaluation sequences 0 .. count - 1 at length n.
 * @returns {{ tokenAccuracy: number, exactMatch: number }}
 */
export function copyAccuracy(logitsOf, n, count) {
  let right = 0;
  let exact = 0;
  for (let i = 0; i < count; i++) {
    const tokens = copySequence(evalSymbols(n, i));
    const correct = copyCorrect(tokens, logitsOf(tokens));
    const r = correct.filter(Boolean).length;
    right += r;
    if (r === n) exact++;
  }
  return { tokenAccuracy: right / (n * count), exactMatch: exact / count };
}

/** [BOS, s_1..s_n, SEP]: what a greedy copy starts from, as an Int32Array. */
export function copyPrompt(symbols) {
  return Int32Array.from([BOS, ...symbols, SEP]);
}

/**
 * Greedy exact match, the measure of Kazemnejad et al. 2023 ("The Impact of
 * Positional Encoding on Length Generalization in Transformers"): the model
 * reads [BOS, s_1..s_n, SEP] and generates n tokens, each the argmax after
 * the tokens before it, its own tokens fed back as input; a sequence counts
 * when they are s_1..s_n. `generate(prompt, n) -> Int32Array` generates
 * (encoder.generate(prompt, { maxNewTokens: n }), with a KV cache). On the
 * evaluation sequences 0 .. count - 1 at length n.
 * @returns {{ greedyExactMatch: number }}
 */
export function copyGreedy(generate, n, count) {
  let exact = 0;
  for (let i = 0; i < count; i++) {
    const symbols = evalSymbols(n, i);
    const out = generate(copyPrompt(symbols), n);
    if (symbols.every((s, j) => out[j] === s)) exact++;
  }
  return { greedyExactMatch: exact / count };
}
