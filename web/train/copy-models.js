// train/copy-models.js: the six trained copy-task models of web/models/ as the
// page and its worker use them: names, the files, the sequence counts per n,
// RoPE scaling merged into a model's own options, and the manifest's figures
// over the training seeds. No posenc import: the
// caller passes its posenc (the page's, or the worker's).

export const SCHEMES = Object.freeze(['none', 'learned', 'sinusoidal', 'rope', 'alibi', 't5']);
export const NAMES = Object.freeze({ none: 'NoPE', learned: 'learned', sinusoidal: 'sinusoidal', rope: 'RoPE', alibi: 'ALiBi', t5: 'T5 bias' });
/** Training drew n from 1 to 32 (manifest.json trainN). */
export const TRAIN_MAX_N = 32;
/** Tokens in the longest training sequence (2n + 2): the "original" context RoPE scaling stretches. */
export const TRAIN_TOKENS = 2 * TRAIN_MAX_N + 2;
export const SCALINGS = Object.freeze(['none', 'linear', 'dynamic', 'yarn']);

/** The URL of a model file, relative to this module (the page's and the worker's alike). */
export const modelURL = (scheme) => new URL(`../models/copy-${scheme}.safetensors`, import.meta.url);

/**
 * Evaluation sequences at length n for `perN` chosen by the reader: all of
 * them up to n = 64, half at 96 and 128, a third beyond (a sequence of 2n + 2
 * tokens costs ~n^2, so the long ones would otherwise take most of the time).
 */
export function sequencesAt(n, perN) {
  if (n <= 64) return perN;
  return Math.ceil(perN / (n <= 128 ? 2 : 3));
}

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
export const loadModel = (scheme) => fetchOnce(modelURL(scheme), async (r) => new Uint8Array(await r.arrayBuffer()));

/**
 * The spread over training seeds, from web/models/manifest.json (fetched once):
 * scheme -> { seeds: [1, 2, 3], overSeeds: { [n]: { [score]: { mean, min, max } } } },
 * torch's figures on every evaluation sequence of the manifest.
 */
export const loadSpread = () => fetchOnce(new URL('../models/manifest.json', import.meta.url), async (r) => {
  const { models } = await r.json();
  return Object.fromEntries(models.map((m) => [m.scheme, { seeds: m.seeds.map((x) => x.seed), overSeeds: m.overSeeds }]));
});
