// rope-config.js: the RoPE options of a Hugging Face config.json, read as
// transformers reads it.
import { describe, fail, isPlainObject } from '../core/describe.js';
import { oneOf, readOptions } from '../core/options.js';
import { sectionList } from '../rope-axes.js';
import { ROPE_TYPES, SCALING, readScaling } from '../rope-scaling.js';

// Where each option comes from in a config.json, for messages.
const CONFIG_KEYS = {
  factor: 'factor', attentionFactor: 'attention_factor', betaFast: 'beta_fast', betaSlow: 'beta_slow',
  mscale: 'mscale', mscaleAllDim: 'mscale_all_dim', truncate: 'truncate', lowFreqFactor: 'low_freq_factor',
  highFreqFactor: 'high_freq_factor', shortFactor: 'short_factor', longFactor: 'long_factor', type: 'rope_type',
};

function configNumber(fn, config, key) {
  const v = config[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') throw fail(TypeError, fn, `config.${key}`, 'a number', v);
  return v;
}

/**
 * The RoPE options of a Hugging Face config.json object: { rotaryDim, base,
 * scaling? }, ready to spread into ropeFrequencies, ropeCache and applyRope
 * (which also need heads and headDim: config.head_dim, or hidden_size /
 * num_attention_heads). Reads rope_theta, rope_scaling (rope_type or the older
 * type) or rope_parameters (transformers v5, rope_theta and
 * partial_rotary_factor inside it), partial_rotary_factor, head_dim,
 * hidden_size, num_attention_heads, max_position_embeddings,
 * original_max_position_embeddings (top level first, as HF's
 * standardize_rope_params), GPT-NeoX's rotary_pct / rotary_emb_base, GPT-J's
 * rotary_dim (n_embd, n_head), DeepSeek-V2/V3's qk_rope_head_dim (the rotated
 * part of a head under multi-head latent attention, before head_dim), and
 * ChatGLM's kv_channels and rope_ratio (model_type 'chatglm': half a head
 * rotates, base 10000 * rope_ratio). rotaryDim = int(headDim *
 * partialRotaryFactor) as in HF.
 * Per-layer-type rope_parameters (e.g. Gemma 3) need options.layerType.
 * @param {object} config the parsed config.json
 * @param {{ layerType?: string }} [options]
 * @returns {{ rotaryDim: number, base: number, scaling?: object }}
 */
export function ropeFromConfig(config, options = {}) {
  const fn = 'ropeFromConfig';
  if (!isPlainObject(config)) {
    throw new TypeError(`posenc.${fn}: config must be a Hugging Face config object (the parsed config.json), got ${describe(config)}`);
  }
  const { layerType } = readOptions(fn, options, {
    layerType: {
      optional: true,
      check(f, name, v) {
        if (typeof v !== 'string') throw fail(TypeError, f, name, 'a string', v);
        return v;
      },
    },
  });
  const dictName = config.rope_parameters != null ? 'rope_parameters' : 'rope_scaling';
  let dict = config[dictName] ?? null;
  let where = `config.${dictName}`;
  if (dict !== null && !isPlainObject(dict)) throw fail(TypeError, fn, where, 'an object or null', dict);
  const nested = dict !== null && dict.rope_type === undefined && dict.type === undefined &&
    Object.keys(dict).length > 0 && Object.values(dict).every((v) => v === null || isPlainObject(v));
  if (nested) {
    if (layerType === undefined || !Object.hasOwn(dict, layerType)) {
      throw new RangeError(
        `posenc.${fn}: ${where} is per layer type: options.layerType must be one of ${Object.keys(dict).map((k) => `'${k}'`).join(', ')}, got ${describe(layerType)}`,
      );
    }
    dict = dict[layerType];
    where = `${where}.${layerType}`;
  } else if (layerType !== undefined) {
    throw new RangeError(`posenc.${fn}: options.layerType is only for per-layer-type rope_parameters, got ${describe(layerType)}`);
  }
  dict ??= {};
  const inDict = (key) => (dict[key] === undefined || dict[key] === null ? undefined : dict[key]);
  const fromDict = (key) => {
    const v = inDict(key);
    if (v !== undefined && typeof v !== 'number') throw fail(TypeError, fn, `${where}.${key}`, 'a number', v);
    return v;
  };

  // ChatGLM2/3 and GLM-4 (THUDM modeling_chatglm.py) rotate half of each head,
  // RotaryEmbedding(rotary_dim // 2) with rotary_dim = kv_channels, at base 10000 * rope_ratio
  const chatglm = config.model_type === 'chatglm';
  const ratio = configNumber(fn, config, 'rope_ratio') ?? 1;
  if (!(ratio > 0) || !Number.isFinite(ratio)) throw fail(RangeError, fn, 'config.rope_ratio', 'a finite number > 0', ratio);
  const theta = fromDict('rope_theta') ?? configNumber(fn, config, 'rope_theta') ?? configNumber(fn, config, 'rotary_emb_base') ?? 10000;
  const base = theta * ratio;
  if (!(base > 1) || !Number.isFinite(base)) {
    throw fail(RangeError, fn, ratio === 1 ? 'config.rope_theta' : 'config.rope_theta * config.rope_ratio', 'a finite number > 1', base);
  }
  const partial = fromDict('partial_rotary_factor') ?? configNumber(fn, config, 'partial_rotary_factor') ??
    configNumber(fn, config, 'rotary_pct') ?? (chatglm ? 0.5 : 1);
  if (!(partial > 0 && partial <= 1)) throw fail(RangeError, fn, 'config.partial_rotary_factor', 'a number in (0, 1]', partial);

  const explicitDim = configNumber(fn, config, 'rotary_dim'); // GPT-J, CodeGen
  let headDim;
  let headKey = 'config.head_dim';
  if (explicitDim === undefined) {
    // DeepSeek-V2/V3 (multi-head latent attention) rotate only the qk_rope_head_dim
    // features of each head: configuration_deepseek_v3.py sets head_dim = qk_rope_head_dim.
    // Otherwise HF: getattr(config, "head_dim", None) or hidden_size // num_attention_heads
    // (GPT-J and CodeGen name these n_embd and n_head; ChatGLM's head is kv_channels).
    for (const key of ['qk_rope_head_dim', 'head_dim', ...(chatglm ? ['kv_channels'] : [])]) {
      headDim = configNumber(fn, config, key) || undefined;
      headKey = `config.${key}`;
      if (headDim !== undefined) break;
    }
    if (headDim === undefined) {
      const hidden = configNumber(fn, config, 'hidden_size') ?? configNumber(fn, config, 'n_embd');
      const heads = configNumber(fn, config, 'num_attention_heads') ?? configNumber(fn, config, 'n_head');
      if (hidden === undefined || heads === undefined) {
        throw new TypeError(
          `posenc.${fn}: config.head_dim (or config.qk_rope_head_dim), or config.hidden_size and config.num_attention_heads, are required`,
        );
      }
      if (!Number.isInteger(hidden) || !Number.isInteger(heads) || hidden < 1 || heads < 1) {
        throw new RangeError(`posenc.${fn}: config.hidden_size and config.num_attention_heads must be positive integers, got ${hidden} and ${heads}`);
      }
      headDim = Math.floor(hidden / heads);
      headKey = 'config.head_dim';
    }
    if (!Number.isInteger(headDim) || headDim < 1) throw fail(RangeError, fn, headKey, 'a positive integer', headDim);
  }
  const rotaryDim = explicitDim ?? Math.trunc(headDim * partial); // Python int(head_dim * partial_rotary_factor)
  if (!Number.isInteger(rotaryDim) || rotaryDim < 2 || rotaryDim % 2) {
    throw new RangeError(
      `posenc.${fn}: the rotary dimension ${explicitDim !== undefined ? 'config.rotary_dim' : `int(head_dim * partial_rotary_factor) = int(${headDim} * ${partial})`} must be an even integer >= 2, got ${rotaryDim} (for an odd value Hugging Face rotates ${2 * Math.ceil(rotaryDim / 2)} features with frequencies base^(-2k/${rotaryDim}); posenc does not)`,
    );
  }

  // Qwen2-VL's rope_scaling { type: 'mrope', mrope_section }: HF's Qwen2VLConfig reads it as 'default'
  const named = inDict('rope_type') ?? inDict('type') ?? 'default';
  const type = named === 'mrope' ? 'default' : named;
  const maxPos = configNumber(fn, config, 'max_position_embeddings');
  const originalMax = configNumber(fn, config, 'original_max_position_embeddings') ?? fromDict('original_max_position_embeddings');
  const truthy = (key) => inDict(key) || undefined; // Python `x or default`: 0 and None fall back
  const candidate = {
    type,
    factor: inDict('factor'),
    attentionFactor: inDict('attention_factor'),
    betaFast: truthy('beta_fast'),
    betaSlow: truthy('beta_slow'),
    mscale: truthy('mscale'),
    mscaleAllDim: truthy('mscale_all_dim'),
    truncate: Object.hasOwn(dict, 'truncate') ? Boolean(dict.truncate) : undefined,
    lowFreqFactor: inDict('low_freq_factor'),
    highFreqFactor: inDict('high_freq_factor'),
    shortFactor: inDict('short_factor'),
    longFactor: inDict('long_factor'),
    maxPositionEmbeddings: maxPos,
    originalMaxPositionEmbeddings: type === 'llama3' ? originalMax ?? maxPos : originalMax,
  };
  oneOf(ROPE_TYPES).check(fn, `${where}.rope_type`, type);
  const scaling = { type };
  for (const key of Object.keys(SCALING[type])) {
    if (candidate[key] !== undefined && key !== 'seqLength') scaling[key] = candidate[key];
  }
  if (type === 'llama3') delete scaling.maxPositionEmbeddings;
  const label = (key) => {
    if (key === 'maxPositionEmbeddings') return 'config.max_position_embeddings';
    if (key === 'originalMaxPositionEmbeddings') return `config.original_max_position_embeddings (or ${where}.original_max_position_embeddings)`;
    return `${where}.${CONFIG_KEYS[key] ?? key}`;
  };
  readScaling(fn, scaling, rotaryDim, label); // validates, with the config's names
  const rope = type === 'default' ? { rotaryDim, base } : { rotaryDim, base, scaling };
  const mropeSection = configMropeSection(fn, dict, where, named, rotaryDim);
  return mropeSection ? { ...rope, mropeSection } : rope;
}

/** M-RoPE's sections from a rope_scaling / rope_parameters dict (Qwen2-VL, Qwen2.5-VL), or undefined. */
function configMropeSection(fn, dict, where, type, rotaryDim) {
  const v = dict.mrope_section ?? undefined;
  if (v === undefined) {
    if (type === 'mrope') throw new TypeError(`posenc.${fn}: ${where}.mrope_section is required with rope_type 'mrope'`);
    return undefined;
  }
  if (dict.mrope_interleaved) {
    throw new RangeError(
      `posenc.${fn}: ${where}.mrope_interleaved (Qwen3-VL's interleaved M-RoPE) is not supported: posenc implements the sectioned M-RoPE of Qwen2-VL and Qwen2.5-VL`,
    );
  }
  const sections = sectionList().check(fn, `${where}.mrope_section`, v);
  const sum = sections.reduce((a, b) => a + b, 0);
  if (sum !== rotaryDim / 2) {
    throw new RangeError(`posenc.${fn}: ${where}.mrope_section must add up to the rotary dimension / 2 = ${rotaryDim / 2}, got [${sections.join(', ')}] (sum ${sum})`);
  }
  return sections;
}
