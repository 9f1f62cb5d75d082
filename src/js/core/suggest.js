// suggest.js: what to say after an unknown name, shared by the JS option
// readers (core/options.js) and the command line (src/cli/main.js, which
// imports this file as it is): the known name it is most likely a typo of,
// and, for an options object that is a whole Hugging Face config.json, the
// function that reads one. No imports: the CLI loads it without a bundler.

// a name written in another case or style: dmodel, d_model, d-model for dModel
const squash = (s) => s.replace(/[-_]/g, '').toLowerCase();

/** Edits (insert, delete, substitute, swap two neighbours) from a to b, or Infinity past `limit`. */
function distance(a, b, limit) {
  if (Math.abs(a.length - b.length) > limit) return Infinity;
  let prev2 = null;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (prev2 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j], prev2[j - 2] + 1);
    }
    if (Math.min(...row) > limit) return Infinity;
    [prev2, prev] = [prev, row];
  }
  return prev[b.length];
}

/**
 * The known name `name` most likely stands for, or undefined: the same name
 * in another case or with - and _ (d_model is dModel), else the closest within
 * one edit for names up to 4 letters and two for longer ones (heds, rotaryDm),
 * ignoring case; the first of equally close names.
 */
export function closest(name, known) {
  const target = squash(String(name));
  const same = known.find((k) => squash(k) === target);
  if (same !== undefined) return same;
  const limit = target.length <= 4 ? 1 : 2;
  let best;
  let bestDistance = limit + 1;
  for (const k of known) {
    const d = distance(target, squash(k), limit);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

// Keys of a Hugging Face config.json that no posenc options object has.
const CONFIG_KEYS = ['architectures', 'model_type', 'transformers_version', 'hidden_size', 'num_attention_heads', 'rope_theta', 'rope_scaling', 'rope_parameters', 'max_position_embeddings', 'torch_dtype'];
// The reader that turns a config into each function's options.
const READER = {
  ropeFrequencies: 'ropeFromConfig', ropeCache: 'ropeFromConfig', applyRope: 'ropeFromConfig', ropePermuteWeights: 'ropeFromConfig',
  alibiSlopes: 'alibiFromConfig', alibiBias: 'alibiFromConfig',
};

/**
 * The hint that follows "unknown option 'key' (known: ...)" in fn's error:
 * a whole config.json recognised (by keys no options object has) names its
 * reader; else a close known name is offered (as `label` names it); else ''.
 */
export function unknownOptionHint(fn, key, known, givenKeys = [], label = (k) => k) {
  if (CONFIG_KEYS.filter((k) => givenKeys.includes(k)).length >= 2 || CONFIG_KEYS.slice(0, 3).includes(key)) {
    const reader = READER[fn];
    return reader
      ? `: that is a Hugging Face config.json, which ${fn} does not read: pass { ...${reader}(config), ... } (${reader} reads it as transformers does)`
      : ': that is a Hugging Face config.json: ropeFromConfig, alibiFromConfig and queryScalesFromConfig read one into the options of the functions they name';
  }
  const close = closest(key, known);
  return close === undefined ? '' : `: did you mean '${label(close)}'?`;
}
