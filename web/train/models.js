// train/models.js: the trained models of web/models/ as the page and its
// workers use them: per task the six schemes read at positions 0, 1, 2, ...
// and the learned and RoPE models trained at randomized positions; names,
// colours' order, files, RoPE scaling merged into a
// model's own options, and the manifest (torch's figures over the training
// seeds). No posenc import: the caller passes its posenc (the page's, or the worker's).
import { MAX_POSITION, argmax, evalPositions } from '../models/tasks.js';

export const SCHEMES = Object.freeze(['none', 'learned', 'sinusoidal', 'rope', 'alibi', 't5']);
/** The models of a task, by key: the six schemes, then the two trained at randomized positions. */
export const MODELS = Object.freeze([...SCHEMES, 'learned-randomized', 'rope-randomized']);
export const NAMES = Object.freeze({
  none: 'NoPE', learned: 'learned', sinusoidal: 'sinusoidal', rope: 'RoPE', alibi: 'ALiBi', t5: 'T5 bias',
  'learned-randomized': 'learned, randomized', 'rope-randomized': 'RoPE, randomized',
});
/** Each model's index in draw/lines.js's PALETTE: the schemes first, then two colours no scheme uses. */
export const COLOR_INDEX = Object.freeze({ none: 0, learned: 1, sinusoidal: 2, rope: 3, alibi: 4, t5: 5, 'learned-randomized': 6, 'rope-randomized': 9 });
export const TASK_NAMES = Object.freeze({ copy: 'copy', reverse: 'reversal' });
/** Training drew n from 1 to 32 (manifest.json trainN). */
export const TRAIN_MAX_N = 32;
/** Tokens in the longest training sequence (2n + 2): the "original" context RoPE scaling stretches. */
export const TRAIN_TOKENS = 2 * TRAIN_MAX_N + 2;
export const SCALINGS = Object.freeze(['none', 'linear', 'dynamic', 'yarn']);

/** The scheme of a model key ('rope-randomized' -> 'rope'). */
export const schemeOf = (key) => key.replace(/-randomized$/, '');
/** Whether a model reads randomized position ids (Ruoss et al. 2023). */
export const isRandomized = (key) => key.endsWith('-randomized');

/** The URL of a model file, relative to this module (the page's and the worker's alike). */
export const modelURL = (task, key) => new URL(`../models/${task}-${key}.safetensors`, import.meta.url);

/**
 * The position ids a model reads evaluation sequence `index` at length n
 * with: the seeded randomized ids (models/tasks.js evalPositions) for a
 * randomized-positions model, null (0, 1, 2, ...) for the others.
 */
export const positionsOf = (key) => (isRandomized(key) ? (n, index) => evalPositions(n, index, 2 * n + 2, MAX_POSITION) : () => null);

/**
 * posenc's scaling object for the RoPE model, or null: the factor stretches
 * the training context of TRAIN_TOKENS tokens (dynamic NTK grows the base
 * only past it, with the sequence's own length, as Hugging Face does).
 */
export function ropeScaling(type, factor) {
  if (type === 'none') return null;
  if (type === 'linear') return { type, factor };
  if (type === 'dynamic') return { type, factor, maxPositionEmbeddings: TRAIN_TOKENS };
  if (type === 'yarn') return { type, factor, originalMaxPositionEmbeddings: TRAIN_TOKENS };
  throw new RangeError(`unknown RoPE scaling '${type}'`);
}

/**
 * createEncoder options for a model file, with `scaling` (or none) merged
 * into the file's own positional options (metadata 'posenc.config'): a
 * caller's `positional` replaces the file's whole, so base and layout are
 * carried over.
 */
export function modelOptions(posenc, bytes, scaling = null, extra = {}) {
  if (!scaling) return { weights: bytes, ...extra };
  const config = JSON.parse(posenc.readSafetensors(bytes).metadata['posenc.config']);
  return { weights: bytes, ...extra, positional: { ...config.positional, scaling } };
}

/**
 * The n greedy tokens an encoder generates after `prompt`: encoder.generate
 * (the KV cache) at positions 0, 1, 2, ..., or, with `positions` (the ids of
 * the whole sequence), a decoder fed the prompt at its ids and each token at
 * the next id.
 */
export function generateWith(encoder, prompt, n, positions = null) {
  if (!positions) return encoder.generate(prompt, { maxNewTokens: n });
  const decoder = encoder.decoder({ maxLength: prompt.length + n - 1 });
  try {
    const out = new Int32Array(n);
    let logits = decoder.feed(prompt, { positions: positions.subarray(0, prompt.length) });
    for (let i = 0; i < n; i++) {
      const best = argmax(logits);
      out[i] = best;
      if (i + 1 < n) logits = decoder.feed(Int32Array.of(best), { positions: positions.subarray(prompt.length + i, prompt.length + i + 1), out: logits });
    }
    return out;
  } finally {
    decoder.dispose();
  }
}

const fetches = new Map();
/**
 * fetch(url) once per page or worker, its response turned into the value by
 * `read`; a failed fetch is forgotten, so it may be retried.
 */
function fetchOnce(url, read) {
  if (!fetches.has(url.href)) {
    const p = fetch(url).then(async (r) => {
      if (!r.ok) throw new Error(`could not load ${url.pathname}: HTTP ${r.status}`);
      return read(r);
    });
    p.catch(() => fetches.delete(url.href));
    fetches.set(url.href, p);
  }
  return fetches.get(url.href);
}

/** The bytes of a model file (fetched once per page or worker). */
export const loadModel = (task, key) => fetchOnce(modelURL(task, key), async (r) => new Uint8Array(await r.arrayBuffer()));

/**
 * web/models/manifest.json (fetched once), as task -> key -> { seeds: [1, 2, 3],
 * overSeeds: { [n]: { [measure]: { mean, min, max }, perPosition } }, records:
 * the seeds' own figures }: torch's figures on every evaluation sequence of the manifest.
 */
export const loadSpread = () => fetchOnce(new URL('../models/manifest.json', import.meta.url), async (r) => {
  const { models } = await r.json();
  const out = {};
  for (const m of models) {
    const key = m.positions === 'randomized' ? `${m.scheme}-randomized` : m.scheme;
    (out[m.task] ??= {})[key] = { seeds: m.seeds.map((x) => x.seed), overSeeds: m.overSeeds, records: m.seeds };
  }
  return out;
});
