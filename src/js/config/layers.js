// layers.js: which kind of layer layer i of a model is, and whether its
// attention applies RoPE, computed for that one layer only (no per-layer array
// is built: a config may claim 2^16 layers). Each rule is its configuration
// class's construction of layer_types (or the model's of its layers) when the
// file leaves it out, and its attention's test for RoPE.
import { fail } from '../core/describe.js';
import { MAX_LAYERS, arrayAt, entry, firstCount, numberAt, own, quote, value } from './read.js';

const FULL = 'full_attention';
const SLIDING = 'sliding_attention';

/** num_hidden_layers (or its alias), else the class default. */
export function layerCount(fn, m) {
  const keys = ['num_hidden_layers', ...(m.family.aliases?.num_hidden_layers ?? []), 'n_layer', 'num_layers'];
  const { value: n } = firstCount(fn, m.c, m.where, keys, MAX_LAYERS);
  return n ?? m.family.layers;
}

/** A list under key (or its aliases) of exactly n entries, or undefined. */
function listOf(fn, m, key, n) {
  for (const k of [key, ...(m.family.aliases?.[key] ?? [])]) {
    const list = arrayAt(fn, m.c, m.where, k, MAX_LAYERS);
    if (list === undefined) continue;
    if (n !== undefined && list.length !== n) {
      throw new RangeError(`posenc.${fn}: ${m.where}.${k} has ${list.length} entries for num_hidden_layers = ${n}`);
    }
    return { list, key: k };
  }
  return undefined;
}

/** Entry i of layer_types as given, a string. */
function givenType(fn, m, given, i) {
  const t = entry(fn, given.list, m.where, given.key, i);
  if (typeof t !== 'string') throw fail(TypeError, fn, `${m.where}.${given.key}[${i}]`, 'a layer type (a string)', t);
  return t;
}

/** An integer >= 1 under key, or fallback. */
function every(fn, m, key, fallback) {
  const v = numberAt(fn, m.c, m.where, key) ?? fallback;
  if (!(Number.isInteger(v) && v >= 1)) throw fail(RangeError, fn, `${m.where}.${key}`, 'an integer >= 1', v);
  return v;
}

/** no_rope_layers[i] (1: the layer uses RoPE), or every no_rope_layer_interval-th layer without (default 4). */
function usesRope(fn, m, i, n) {
  const given = listOf(fn, m, 'no_rope_layers', undefined);
  if (given && given.list.length > 0) {
    if (given.list.length !== n) throw new RangeError(`posenc.${fn}: ${m.where}.no_rope_layers has ${given.list.length} entries for num_hidden_layers = ${n}`);
    const v = entry(fn, given.list, m.where, 'no_rope_layers', i);
    if (v !== 0 && v !== 1 && v !== true && v !== false) throw fail(RangeError, fn, `${m.where}.no_rope_layers[${i}]`, '0 or 1 (1: the layer uses RoPE)', v);
    return Boolean(v);
  }
  return (i + 1) % every(fn, m, 'no_rope_layer_interval', 4) !== 0;
}

const ZAMBA2_BLOCKS = 'mmmmmmhmmmmmhmmmmmhmmmmmhmmmmmhmmmmmhmmmmmhmmmmhmmmhmm'; // Zamba2Config's default layers_block_type (54 layers)

/**
 * Each rule: (fn, m, i, n, given) -> { type, rope } for layer i of n, given
 * the file's layer_types (or undefined); and the layer types it knows.
 */
const RULES = {
  // Gemma2Config, VaultGemmaConfig: sliding, full, sliding, full, ... (the same RoPE on both)
  // Gemma3TextConfig / T5Gemma2: every sliding_window_pattern-th layer (default 6) is full
  gemma3: { types: [SLIDING, FULL], kind: (fn, m, i) => ((i + 1) % every(fn, m, own(fn, m.c, m.where, 'sliding_window_pattern') !== undefined ? 'sliding_window_pattern' : '_sliding_window_pattern', 6) ? SLIDING : FULL) },
  // Gemma3nTextConfig: every 5th layer full
  gemma3n: { types: [SLIDING, FULL], kind: (fn, m, i) => ((i + 1) % 5 ? SLIDING : FULL) },
  // ModernBertConfig: layer i full when i % global_attn_every_n_layers == 0 (default 3)
  modernbert: { types: [FULL, SLIDING], kind: (fn, m, i) => (i % every(fn, m, 'global_attn_every_n_layers', 3) ? SLIDING : FULL) },
  // Cohere2Config: every sliding_window_pattern-th (default 4) full; RoPE on the sliding layers only
  cohere2: { types: [SLIDING, FULL], ropeOn: SLIDING, kind: (fn, m, i) => ((i + 1) % every(fn, m, 'sliding_window_pattern', 4) ? SLIDING : FULL) },
  // AfmoeConfig: every global_attn_every_n_layers-th (default 4) full; RoPE on the local (sliding) layers only
  afmoe: { types: [SLIDING, FULL], ropeOn: SLIDING, kind: (fn, m, i) => ((i + 1) % every(fn, m, 'global_attn_every_n_layers', 4) ? SLIDING : FULL) },
  // Exaone4Config: every sliding_window_pattern-th (default 4) full; with a sliding_window, RoPE on the sliding layers only
  exaone4: {
    types: [SLIDING, FULL],
    ropeOn: (fn, m) => (slidingWindow(fn, m) === null ? null : SLIDING),
    offMeansAll: true,
    kind(fn, m, i) {
      if (slidingWindow(fn, m) === null) {
        throw new TypeError(`posenc.${fn}: ${m.where}.sliding_window is null and ${m.where}.layer_types is not given: transformers' Exaone4Config then builds its layer types with a pattern of 0 and fails`);
      }
      const pattern = own(fn, m.c, m.where, 'sliding_window_pattern');
      if (typeof pattern === 'string') throw new TypeError(`posenc.${fn}: ${m.where}.sliding_window_pattern ${quote(pattern)} without ${m.where}.layer_types: transformers reads it as a number and fails; give layer_types`);
      return (i + 1) % every(fn, m, 'sliding_window_pattern', 4) ? SLIDING : FULL;
    },
  },
  // Llama4TextConfig: chunked attention with RoPE, full attention on the NoPE layers
  // (no_rope_layers); SmolLM3Config: no_rope_layers on its own
  noRopeLayers: { types: ['chunked_attention', FULL, SLIDING], kind: () => null, rope: usesRope },
  // MllamaTextConfig: cross_attention_layers (default [3, 8, ..., 38]) attend to the image, without RoPE
  mllama: {
    types: [],
    kind: () => null,
    rope(fn, m, i) {
      const given = listOf(fn, m, 'cross_attention_layers', undefined);
      if (!given) return ![3, 8, 13, 18, 23, 28, 33, 38].includes(i);
      for (let k = 0; k < given.list.length; k++) if (entry(fn, given.list, m.where, given.key, k) === i) return false;
      return true;
    },
  },
  // Lfm2Config: full attention at full_attn_idxs (default: every layer), short convolutions elsewhere
  lfm2: {
    types: [FULL, 'conv'],
    ropeOn: FULL,
    kind(fn, m, i) {
      const idx = listOf(fn, m, 'full_attn_idxs', undefined);
      if (!idx) return FULL;
      for (let k = 0; k < idx.list.length; k++) if (entry(fn, idx.list, m.where, idx.key, k) === i) return FULL;
      return 'conv';
    },
  },
  // Qwen3NextConfig: full attention every full_attention_interval-th layer (default 4), linear attention elsewhere
  qwen3_next: { types: ['linear_attention', FULL], ropeOn: FULL, kind: (fn, m, i) => ((i + 1) % every(fn, m, 'full_attention_interval', 4) ? 'linear_attention' : FULL) },
  // MiniMaxConfig: full attention on even layers, lightning (linear) attention on odd ones
  minimax: { types: [FULL, 'linear_attention'], ropeOn: FULL, kind: (fn, m, i) => ((i + 1) % 2 ? FULL : 'linear_attention') },
  // GraniteMoeHybridConfig: 'attention' or 'mamba' layers (default: all mamba); RoPE only with position_embedding_type 'rope'
  granitemoehybrid: {
    types: ['attention', 'mamba'],
    ropeOn: (fn, m) => (value(fn, m.c, m.where, 'position_embedding_type') === 'rope' ? 'attention' : null),
    off: "its position_embedding_type is not 'rope' (the default): its attention layers have no positions",
    kind: () => 'mamba',
  },
  // BambaConfig: attention at attn_layer_indices, Mamba elsewhere
  bamba: {
    types: ['attention', 'mamba'],
    ropeOn: 'attention',
    kind(fn, m, i) {
      const idx = listOf(fn, m, 'attn_layer_indices', undefined);
      if (idx) for (let k = 0; k < idx.list.length; k++) if (entry(fn, idx.list, m.where, idx.key, k) === i) return 'attention';
      return 'mamba';
    },
  },
  // RecurrentGemmaConfig: block_types repeated (default recurrent, recurrent, attention)
  recurrent_gemma: {
    types: ['recurrent', 'attention'],
    ropeOn: 'attention',
    kind(fn, m, i) {
      const given = listOf(fn, m, 'block_types', undefined);
      if (!given) return ['recurrent', 'recurrent', 'attention'][i % 3];
      if (given.list.length === 0 || i >= 100 * given.list.length) return 'recurrent'; // (block_types * 100)[:n]
      return givenType(fn, m, given, i % given.list.length);
    },
  },
  // Zamba2Config: its shared attention blocks sit in the 'hybrid' layers (layers_block_type); RoPE with use_mem_rope
  zamba2: {
    types: ['mamba', 'hybrid'],
    ropeOn: (fn, m) => (value(fn, m.c, m.where, 'use_mem_rope') === true ? 'hybrid' : null),
    off: 'its use_mem_rope is not true (the default): its shared attention blocks have no positions',
    kind(fn, m, i) {
      const given = listOf(fn, m, 'layers_block_type', undefined);
      if (given) return givenType(fn, m, given, i);
      if (i >= ZAMBA2_BLOCKS.length) throw new RangeError(`posenc.${fn}: ${m.where}.layers_block_type is required past the default's ${ZAMBA2_BLOCKS.length} layers`);
      return ZAMBA2_BLOCKS[i] === 'h' ? 'hybrid' : 'mamba';
    },
  },
};

const slidingWindow = (fn, m) => {
  const v = own(fn, m.c, m.where, 'sliding_window');
  return v === undefined ? 4096 : v; // Exaone4Config's default
};

/** The layer types a family's rule or configuration class names (for options.layerType). */
export const ruleTypes = (f) => [...(f.layerRule ? RULES[f.layerRule].types : []), ...(f.layerTypes ?? [])];

/**
 * The layer type that gets RoPE in a family whose other types have none; null
 * where a flag of the config turned RoPE off (or, offMeansAll, on for every
 * layer); undefined where every layer type has RoPE.
 */
export function ropeType(fn, m) {
  const rule = m.family.layerRule ? RULES[m.family.layerRule] : undefined;
  if (!rule || rule.ropeOn === undefined) return undefined;
  return typeof rule.ropeOn === 'function' ? rule.ropeOn(fn, m) : rule.ropeOn;
}

/** Why no layer of this config has RoPE (a flag of the config turned it off), or null. */
export function ropeOff(fn, m) {
  const rule = m.family.layerRule ? RULES[m.family.layerRule] : undefined;
  return rule?.off && ropeType(fn, m) === null ? rule.off : null;
}

/** Whether a layer of a given type applies RoPE (for options.layerType: no layer index). */
export function typeHasRope(fn, m, type) {
  const rule = m.family.layerRule ? RULES[m.family.layerRule] : undefined;
  // Llama 4: its NoPE layers are its full-attention ones (Llama4TextConfig builds layer_types from no_rope_layers)
  if (rule?.rope) return m.type !== 'llama4_text' || type !== FULL;
  const on = ropeType(fn, m);
  if (on === undefined) return true;
  // a flag turned RoPE off (Zamba2's use_mem_rope, Granite hybrid's position_embedding_type): no layer has it;
  // Exaone 4 without a sliding window: every layer has it
  if (on === null) return Boolean(rule.offMeansAll);
  return type === on;
}

/**
 * Layer i's { type, rope }: its layer type (from layer_types when the file
 * gives it, else the family's rule; null where the family has none) and
 * whether its attention applies RoPE.
 */
export function layerKind(fn, m, i, n) {
  const rule = m.family.layerRule ? RULES[m.family.layerRule] : undefined;
  const given = listOf(fn, m, 'layer_types', n);
  const type = given ? givenType(fn, m, given, i) : rule ? rule.kind(fn, m, i, n) : null;
  if (rule?.rope) return { type, rope: rule.rope(fn, m, i, n) };
  return { type, rope: typeHasRope(fn, m, type) };
}
