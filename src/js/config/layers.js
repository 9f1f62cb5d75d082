// layers.js: which kind of layer layer i of a model is, as its configuration
// class builds config.layer_types when the file leaves it out, and which
// layers have no RoPE at all (NoPE).
import { fail } from '../core/describe.js';

/**
 * Llama4TextConfig and SmolLM3Config: no_rope_layers[i] is 1 where layer i
 * USES RoPE; absent (or empty) it is 0 on every no_rope_layer_interval-th
 * layer (default 4): layers 3, 7, 11, ... have no positions.
 */
export function ropeLayers(fn, c, where, layers) {
  const given = c.no_rope_layers;
  if (Array.isArray(given) && given.length > 0) {
    if (given.length !== layers || !given.every((v) => v === 0 || v === 1)) {
      throw fail(RangeError, fn, `${where}.no_rope_layers`, `num_hidden_layers = ${layers} values 0 or 1 (1: the layer uses RoPE)`, given);
    }
    return given.map((v) => v === 1);
  }
  const interval = c.no_rope_layer_interval ?? 4;
  if (!Number.isInteger(interval) || interval < 1) throw fail(RangeError, fn, `${where}.no_rope_layer_interval`, 'an integer >= 1', interval);
  return Array.from({ length: layers }, (_, i) => (i + 1) % interval !== 0);
}

/**
 * The type of every layer, or null for a model whose layers all share one
 * rotary embedding and that names no types: config.layer_types as given,
 * else what each configuration class builds.
 */
export function layerTypes(fn, c, where, family, layers) {
  if (Array.isArray(c.layer_types) && c.layer_types.length > 0) {
    if (layers !== undefined && c.layer_types.length !== layers) {
      throw new RangeError(`posenc.${fn}: ${where}.layer_types has ${c.layer_types.length} entries for num_hidden_layers = ${layers}`);
    }
    return c.layer_types;
  }
  if (layers === undefined) return null;
  const every = (key, fallback, globalAt) => {
    const n = c[key] ?? fallback;
    if (!Number.isInteger(n) || n < 1) throw fail(RangeError, fn, `${where}.${key}`, 'an integer >= 1', n);
    return Array.from({ length: layers }, (_, i) => (globalAt(i, n) ? 'full_attention' : 'sliding_attention'));
  };
  switch (family.layerTypes) {
    case 'gemma2': // Gemma2Config: sliding, full, sliding, full, ... (fixed, no key)
      return Array.from({ length: layers }, (_, i) => ((i + 1) % 2 ? 'sliding_attention' : 'full_attention'));
    case 'gemma3': // Gemma3TextConfig: every sliding_window_pattern-th layer (default 6) is global
      return every(c._sliding_window_pattern !== undefined ? '_sliding_window_pattern' : 'sliding_window_pattern', 6, (i, n) => (i + 1) % n === 0);
    case 'cohere2': // Cohere2Config: every 4th layer full
      return every('sliding_window_pattern', 4, (i, n) => (i + 1) % n === 0);
    case 'modernbert': // ModernBertConfig: layer i global when i % global_attn_every_n_layers == 0 (layer 0 is)
      return every('global_attn_every_n_layers', 3, (i, n) => i % n === 0);
    case 'llama4': // Llama4TextConfig: chunked attention where RoPE is used, full attention on the NoPE layers
      return ropeLayers(fn, c, where, layers).map((rope) => (rope ? 'chunked_attention' : 'full_attention'));
    default:
      return null;
  }
}
