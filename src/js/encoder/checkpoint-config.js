// checkpoint-config.js: a Hugging Face config.json of a Llama-style causal LM
// (llama, mistral, qwen2, qwen3, and their text_config when nested) read into
// the encoder's options: the block's parts from the model type's keys and
// class defaults (transformers' configuration_<type>.py), the positions from
// ropeFromConfig. A key this engine does not serve is an error naming it.
import { fail, isPlainObject } from '../core/describe.js';
import { ropeFromConfig } from '../config/rope-config.js';

/**
 * The model types served, with their configuration classes' defaults for the
 * keys a hub file may leave out (transformers configuration_<type>.py):
 *   bias     which projections carry a bias ('attention' reads attention_bias)
 *   headDim  head_dim's default (null: hidden_size / num_attention_heads)
 *   window   how the sliding window is read
 */
const SERVED = {
  llama: { bias: 'attention', headDim: null, window: 'none', eps: 1e-6, tie: false },
  mistral: { bias: 'none', headDim: null, window: 'sliding_window', eps: 1e-6, tie: false },
  qwen2: { bias: 'qkv', headDim: null, window: 'use_sliding_window', eps: 1e-6, tie: false },
  qwen3: { bias: 'attention', headDim: 128, window: 'use_sliding_window', eps: 1e-6, tie: false },
};
/** Composite configs whose text_config may leave model_type out (their CONFIG_MAPPING defaults). */
const NESTED_DEFAULT = { llava: 'llama', mistral3: 'mistral' };

/** The served model types. */
export const CHECKPOINT_TYPES = Object.keys(SERVED);

/** Activations of hidden_act (transformers' ACT2FN names) the block runs. */
const ACTIVATIONS = { silu: 'silu', swish: 'silu', gelu: 'gelu', gelu_pytorch_tanh: 'gelu_tanh', gelu_new: 'gelu_tanh', relu: 'relu' };

const count = (fn, c, where, key, fallback) => {
  const v = c[key] ?? fallback;
  if (v === undefined) throw new TypeError(`posenc.${fn}: ${where}.${key} is required`);
  if (!Number.isInteger(v) || v < 1) throw fail(RangeError, fn, `${where}.${key}`, 'a positive integer', v);
  return v;
};

/**
 * The text model of a config.json: { c, where, type } (c the object that
 * holds its keys, where its path for messages, type its model_type).
 */
export function checkpointText(fn, config) {
  if (!isPlainObject(config)) throw fail(TypeError, fn, 'config', 'the config.json object (JSON.parse of the file)', config);
  if (isPlainObject(config.text_config)) {
    const type = config.text_config.model_type ?? NESTED_DEFAULT[config.model_type];
    return { c: config.text_config, where: 'config.text_config', type };
  }
  return { c: config, where: 'config', type: config.model_type };
}

/**
 * The encoder options of a checkpoint's config (createEncoder's, without
 * weights) and what was read: { options, rope, tied, type }.
 */
export function checkpointOptions(fn, config) {
  const { c, where, type } = checkpointText(fn, config);
  if (!Object.hasOwn(SERVED, type ?? '')) {
    throw new TypeError(
      `posenc.${fn}: ${where}.model_type ${type === undefined ? 'is missing' : `'${type}' is not served`}: createModel runs ${CHECKPOINT_TYPES.map((t) => `'${t}'`).join(', ')} (the Llama-style decoder block)`,
    );
  }
  const family = SERVED[type];
  const hidden = count(fn, c, where, 'hidden_size');
  const heads = count(fn, c, where, 'num_attention_heads');
  const kvHeads = count(fn, c, where, 'num_key_value_heads', heads);
  const headDim = count(fn, c, where, 'head_dim', family.headDim ?? Math.floor(hidden / heads));
  if (heads % kvHeads) throw new RangeError(`posenc.${fn}: ${where}.num_attention_heads (${heads}) must be a multiple of num_key_value_heads (${kvHeads})`);
  const act = c.hidden_act ?? 'silu';
  if (!Object.hasOwn(ACTIVATIONS, act)) {
    throw fail(RangeError, fn, `${where}.hidden_act`, `one of ${Object.keys(ACTIVATIONS).map((a) => `'${a}'`).join(', ')}`, act);
  }
  if (c.mlp_bias === true) throw new RangeError(`posenc.${fn}: ${where}.mlp_bias: true is not served (the gated MLP here has no biases)`);
  for (const key of ['pretraining_tp']) {
    if (c[key] !== undefined && c[key] !== null && c[key] !== 1) throw fail(RangeError, fn, `${where}.${key}`, '1 (or absent)', c[key]);
  }
  let attentionBias = family.bias;
  if (attentionBias === 'attention') {
    if (c.attention_bias !== undefined && typeof c.attention_bias !== 'boolean') throw fail(TypeError, fn, `${where}.attention_bias`, 'a boolean', c.attention_bias);
    attentionBias = c.attention_bias ? 'all' : 'none';
  }
  let window = 0;
  if (family.window === 'sliding_window' && c.sliding_window !== undefined && c.sliding_window !== null) {
    window = count(fn, c, where, 'sliding_window');
  } else if (family.window === 'use_sliding_window' && c.use_sliding_window === true) {
    // Qwen2 and Qwen3 window only the layers from max_window_layers on: one window for every layer is all this block has
    throw new RangeError(`posenc.${fn}: ${where}.use_sliding_window: true is not served (Qwen's per-layer sliding windows; the block has one window for every layer)`);
  }
  const eps = c.rms_norm_eps ?? family.eps;
  if (!(typeof eps === 'number' && eps > 0 && Number.isFinite(eps))) throw fail(RangeError, fn, `${where}.rms_norm_eps`, 'a finite number > 0', eps);
  const tied = c.tie_word_embeddings ?? config.tie_word_embeddings ?? family.tie;
  if (typeof tied !== 'boolean') throw fail(TypeError, fn, `${where}.tie_word_embeddings`, 'a boolean', tied);
  const rope = ropeFromConfig(config);
  if (rope === null) throw new RangeError(`posenc.${fn}: ${where} has no RoPE on its layers, which this block needs`);
  if (rope.mropeSection) throw new RangeError(`posenc.${fn}: ${where}: M-RoPE (mrope_section) is not served by createModel`);
  const { mropeSection: _s, mropeInterleaved: _i, ...positional } = rope;
  const options = {
    vocabSize: count(fn, c, where, 'vocab_size'),
    dModel: hidden,
    heads,
    dFF: count(fn, c, where, 'intermediate_size'),
    layers: count(fn, c, where, 'num_hidden_layers'),
    positional: { type: 'rope', ...positional },
    norm: 'pre',
    activation: ACTIVATIONS[act],
    finalNorm: true,
    embedScale: 1,
    normEps: eps,
    // a tied head is embed.weight (no lm_head.weight), else its own
    ...(tied ? { tieEmbeddings: true } : { lmHead: true }),
    normKind: 'rms',
    mlp: 'gated',
    kvHeads,
    headDim,
    attentionBias,
    qkNorm: type === 'qwen3',
    window,
  };
  return { options, rope, tied, type };
}

/**
 * The checkpoint's tensor name of an encoder tensor (layout.js names):
 * Hugging Face's model.* names.
 */
export function hfName(name) {
  const m = /^layers\.(\d+)\.(.+)$/.exec(name);
  if (m) {
    const part = m[2]
      .replace(/^norm1\./, 'input_layernorm.')
      .replace(/^norm2\./, 'post_attention_layernorm.')
      .replace(/^self_attn\.out_proj\./, 'self_attn.o_proj.');
    return `model.layers.${m[1]}.${part}`;
  }
  if (name === 'embed.weight') return 'model.embed_tokens.weight';
  if (name === 'norm.weight') return 'model.norm.weight';
  return name; // lm_head.weight
}
