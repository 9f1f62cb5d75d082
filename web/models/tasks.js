// tasks.js: the two tasks of the trained models, copy and reversal
// (tools/train/tasks.py and evaluate.py are its Python twins): token layout,
// the seeded evaluation sequences, the evaluation position ids of the
// randomized-positions models, and every measure of the manifest, computed as
// docs/models.md defines it. A plain ES module with no imports, for tests, the
// page and workers.
//
// Vocabulary of 18: 0 = BOS, 1 = SEP, 2..17 are the symbols. For n symbols
// s_1..s_n and the target t_1..t_n the sequence is [0, s_1..s_n, 1, t_1..t_n]
// (2n + 2 tokens): copy t_i = s_i, reverse t_i = s_{n+1-i} (Kazemnejad et al.
// 2023's "Reverse"). A causal model is scored on the n target tokens, t_i (at
// index n + 1 + i) predicted by row n + i of the logits (teacher-forced).

export const BOS = 0;
export const SEP = 1;
export const VOCAB_SIZE = 18;
export const TASKS = Object.freeze(['copy', 'reverse']);
export const EVAL_NS = Object.freeze([8, 16, 32, 48, 64, 96, 128, 192, 256]);
export const EVAL_SEED = 0x5eed0c0b;
/** The randomized-positions models draw their ids from [0, MAX_POSITION) (Ruoss et al. 2023). */
export const MAX_POSITION = 1024;
export const POSITION_SEED = 0x5eed9051;

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
 * 2 + (lowbias32(lowbias32(lowbias32(EVAL_SEED ^ n) ^ index) ^ j) >> 28). Both tasks use them. */
export function evalSymbols(n, index) {
  const key = lowbias32(lowbias32(EVAL_SEED ^ n) ^ index);
  return Array.from({ length: n }, (_, j) => 2 + (lowbias32(key ^ j) >>> 28));
}

/** t_1..t_n of `task` for the symbols s_1..s_n. */
export function targetOf(task, symbols) {
  if (task === 'copy') return [...symbols];
  if (task === 'reverse') return [...symbols].reverse();
  throw new RangeError(`unknown task '${task}' (known: ${TASKS.join(', ')})`);
}

/** [BOS, s_1..s_n, SEP]: what a model generates its answer from, as an Int32Array. */
export function taskPrompt(symbols) {
  return Int32Array.from([BOS, ...symbols, SEP]);
}

/** [BOS, s_1..s_n, SEP, t_1..t_n] as an Int32Array. */
export function taskSequence(task, symbols) {
  return Int32Array.from([BOS, ...symbols, SEP, ...targetOf(task, symbols)]);
}

/**
 * The position ids of evaluation sequence `index` at length n for a
 * randomized-positions model: `length` (default 2n + 2) ids of
 * [0, maxPosition), those with the smallest (key(c), c) for key(c) =
 * lowbias32(lowbias32(lowbias32(POSITION_SEED ^ n) ^ index) ^ c), sorted
 * ascending (a uniformly drawn ordered subset, as the models were trained on).
 */
export function evalPositions(n, index, length = 2 * n + 2, maxPosition = MAX_POSITION) {
  const key = lowbias32(lowbias32(POSITION_SEED ^ n) ^ index);
  const keys = new Float64Array(maxPosition);
  for (let c = 0; c < maxPosition; c++) keys[c] = lowbias32(key ^ c) * maxPosition + c; // exact below 2^53: ties by c
  const order = Int32Array.from({ length: maxPosition }, (_, c) => c).sort((a, b) => keys[a] - keys[b]);
  return order.subarray(0, length).sort();
}

/** The index of the largest logit, the first of equal ones; a NaN counts as the largest (torch.argmax). */
export function argmax(row) {
  let best = 0;
  for (let v = 0; v < row.length; v++) {
    if (Number.isNaN(row[v])) return v;
    if (row[v] > row[best]) best = v;
  }
  return best;
}

/**
 * Teacher-forced results of one sequence: `logits` [2n + 2][vocab] of a
 * causal model on `tokens` = taskSequence(task, s). Target t_i, at index
 * n + 1 + i, is predicted by row n + i. Returns { right: boolean[n],
 * loss: number[n] }: right[i - 1] when argmax(row n + i) is t_i; loss[i - 1]
 * = logsumexp(row) - row[t_i] in nats, in double from the float32 logits.
 */
export function teacherForced(tokens, logits, vocab = VOCAB_SIZE) {
  const n = (tokens.length - 2) / 2;
  const right = [];
  const loss = [];
  for (let p = n + 1; p <= 2 * n; p++) {
    const row = logits.subarray(p * vocab, (p + 1) * vocab);
    const target = tokens[p + 1];
    right.push(argmax(row) === target);
    let max = -Infinity;
    for (const v of row) max = Math.max(max, v);
    let sum = 0;
    for (const v of row) sum += Math.exp(v - max);
    loss.push(Math.log(sum) + max - row[target]);
  }
  return { right, loss };
}

/**
 * Greedy decoding of one sequence: from [BOS, s_1..s_n, SEP] the model
 * generates n tokens, each the argmax after the tokens before it, fed back.
 * `generate(prompt, n, positions)` returns them (positions: the 2n + 2 ids of
 * the whole sequence, or null for 0, 1, 2, ...). Returns right: boolean[n],
 * g_i === t_i.
 */
export function greedyRight(task, symbols, generate, positions = null) {
  const target = targetOf(task, symbols);
  const out = generate(taskPrompt(symbols), symbols.length, positions);
  return target.map((t, i) => out[i] === t);
}

/**
 * Every measure of one model at length n on evaluation sequences 0 .. count - 1
 * (docs/models.md defines them):
 *   logitsOf(tokens, positions) -> Float32Array, the causal logits;
 *   generate(prompt, n, positions) -> the n greedy tokens;
 *   positionsOf(n, index) -> the sequence's position ids, or null (0, 1, 2, ...).
 * @returns {{ sequences, tokenAccuracy, exactMatch, greedyTokenAccuracy, correctPrefix, loss, perPosition: number[] }}
 */
export function scoreTask(task, n, count, { logitsOf, generate, positionsOf = () => null }) {
  let right = 0;
  let exact = 0;
  let greedy = 0;
  let prefix = 0;
  let loss = 0;
  const perPosition = new Array(n).fill(0);
  for (let b = 0; b < count; b++) {
    const symbols = evalSymbols(n, b);
    const tokens = taskSequence(task, symbols);
    const positions = positionsOf(n, b);
    const tf = teacherForced(tokens, logitsOf(tokens, positions));
    tf.right.forEach((r, i) => {
      if (r) {
        right++;
        perPosition[i]++;
      }
    });
    for (const l of tf.loss) loss += l;
    const first = tf.right.indexOf(false);
    prefix += first < 0 ? n : first;
    if (first < 0) exact++;
    greedy += greedyRight(task, symbols, generate, positions).filter(Boolean).length;
  }
  return {
    sequences: count,
    tokenAccuracy: right / (n * count),
    exactMatch: exact / count,
    greedyTokenAccuracy: greedy / (n * count),
    correctPrefix: prefix / count,
    loss: loss / (n * count),
    perPosition: perPosition.map((k) => k / count),
  };
}
