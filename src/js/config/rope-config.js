// rope-config.js: the RoPE options of a Hugging Face config.json, read as
// transformers reads it: the text model of a composite config, rope_scaling
// (v4) or rope_parameters (v5, per layer type too), the class defaults of each
// model_type (families.js), the type of each layer (layers.js), and the
// pairing layout of each modeling file. Sources: transformers'
// modeling_rope_utils.py (RotaryEmbeddingConfigMixin.standardize_rope_params
// and the _compute_*_parameters functions) and each model's configuration and
// modeling files.
import { fail, isPlainObject } from '../core/describe.js';
import { INT32_MAX, integer, readOptions } from '../core/options.js';
import { camel } from '../core/errors.js';
import { ropeFrequenciesOf } from '../rope.js';
import { sectionList } from '../rope-axes.js';
import { ROPE_TYPES, readScaling } from '../rope-scaling.js';
import { FAMILIES, FAMILY_KEYS, GENERIC, NOT_ROPE, alibiKind } from './families.js';
import { layerTypes, ropeLayers } from './layers.js';
import { countAt, firstCount, numberAt, textModel } from './read.js';

// The config key of each scaling option, for messages.
const KEYS = {
  factor: 'factor', attentionFactor: 'attention_factor', betaFast: 'beta_fast', betaSlow: 'beta_slow', mscale: 'mscale',
  mscaleAllDim: 'mscale_all_dim', truncate: 'truncate', lowFreqFactor: 'low_freq_factor', highFreqFactor: 'high_freq_factor',
  shortFactor: 'short_factor', longFactor: 'long_factor', type: 'rope_type',
};

const ALIBI_SOURCES = {
  bloom: "BLOOM's build_alibi_tensor", mpt: "MPT's build_mpt_alibi_tensor", falcon: 'Falcon with alibi: true', baichuan: "Baichuan-13B's _get_interleave",
};

const layerTypeOption = {
  optional: true,
  check(fn, name, v) {
    if (typeof v !== 'string') throw fail(TypeError, fn, name, "a layer type of the config (e.g. 'sliding_attention')", v);
    return v;
  },
};

/** ropeFromConfig's options: which layer. */
export const configSpec = { layer: integer(0, INT32_MAX, { optional: true }), layerType: layerTypeOption };

/**
 * The model's rope dict: rope_scaling (v4) wins over rope_parameters (v5)
 * when both are set, as in convert_rope_params_to_dict (`rope_scaling or
 * rope_parameters`). { dict, where, perType } where perType is true for
 * rope_parameters keyed by layer type (Gemma 3, ModernBERT in v5).
 */
function ropeDict(fn, c, where) {
  const pick = [['rope_scaling', c.rope_scaling], ['rope_parameters', c.rope_parameters]]
    .find(([, v]) => isPlainObject(v) && Object.keys(v).length > 0);
  for (const key of ['rope_scaling', 'rope_parameters']) {
    const v = c[key];
    if (v !== undefined && v !== null && !isPlainObject(v)) throw fail(TypeError, fn, `${where}.${key}`, 'an object or null', v);
  }
  if (!pick) return { dict: {}, where: `${where}.rope_scaling`, perType: false };
  const [key, dict] = pick;
  const values = Object.values(dict);
  const perType = values.length > 0 && values.every((v) => v === null || isPlainObject(v)) &&
    !['rope_type', 'type', 'rope_theta', 'factor'].some((k) => Object.hasOwn(dict, k));
  return { dict, where: `${where}.${key}`, perType };
}

/** Which layer the options pick: { kind, noRope } (kind: its layer type, or null). */
function pickLayer(fn, c, where, type, family, o, dictTypes) {
  const { value: layers } = firstCount(fn, c, where, ['num_hidden_layers', 'n_layer', 'num_layers']);
  const types = layerTypes(fn, c, where, family, layers);
  if (o.layer !== undefined && o.layerType !== undefined) {
    throw new TypeError(`posenc.${fn}: give options.layer or options.layerType, not both (layer picks its own type), got layer ${o.layer} and layerType '${o.layerType}'`);
  }
  if (o.layer !== undefined) {
    if (layers === undefined) throw new TypeError(`posenc.${fn}: ${where}.num_hidden_layers is required with options.layer`);
    if (o.layer >= layers) {
      throw new RangeError(`posenc.${fn}: options.layer must be an integer from 0 to ${layers - 1} (${where}.num_hidden_layers = ${layers}), got ${o.layer}`);
    }
    if (family.noRopeLayers && !ropeLayers(fn, c, where, layers)[o.layer]) return { kind: null, noRope: true };
    return { kind: types ? types[o.layer] : null, noRope: false };
  }
  if (o.layerType !== undefined) {
    const known = [...new Set([...(types ?? []), ...dictTypes, ...Object.keys(family.bases ?? {}), ...(family.ropeOn ? [family.ropeOn] : [])])];
    if (!known.includes(o.layerType)) {
      throw new RangeError(
        known.length
          ? `posenc.${fn}: options.layerType must be one of ${known.map((k) => `'${k}'`).join(', ')} (the layer types of this ${type ?? 'model'} config), got '${o.layerType}'`
          : `posenc.${fn}: options.layerType: this ${type ?? 'model'} config has no layer types (every layer shares one rotary embedding): omit it, got '${o.layerType}'`,
      );
    }
    return { kind: o.layerType, noRope: false };
  }
  return { kind: null, noRope: false };
}

/** The named scaling type, aliases resolved, or an error naming the key and the model type. */
function scalingType(fn, dict, dictWhere, type, family) {
  const named = dict.rope_type ?? dict.type;
  if (dict.rope_type != null && dict.type != null && dict.rope_type !== dict.type) {
    throw new RangeError(`posenc.${fn}: ${dictWhere}.rope_type '${dict.rope_type}' and ${dictWhere}.type '${dict.type}' disagree (transformers reads rope_type): give one`);
  }
  if (named === undefined || named === null) return 'default';
  if (typeof named !== 'string') throw fail(TypeError, fn, `${dictWhere}.rope_type`, 'a string', named);
  const t = family.aliases?.[named] ?? (named === 'mrope' && family.mrope ? 'default' : named);
  if (!ROPE_TYPES.includes(t)) {
    throw new RangeError(
      `posenc.${fn}: ${dictWhere}.rope_type '${named}' of model_type '${type ?? '(none)'}' is not one posenc implements (${ROPE_TYPES.map((x) => `'${x}'`).join(', ')}): its positions would be wrong`,
    );
  }
  return t;
}

/**
 * The scaling object of a non-default type, in posenc's names, read from
 * the layer's rope dict as the _compute_*_parameters functions read it.
 */
function scalingOf(fn, t, dict, dictWhere, top, c, where, family, perType, maxPos) {
  const at = (key) => (dict[key] === null ? undefined : dict[key]);
  const truthy = (key) => at(key) || undefined; // Python `x or default`: 0 and None take the default
  const sc = { type: t, maxPositionEmbeddings: maxPos };
  // factor = max_position_embeddings / original_max_position_embeddings, as HF derives it when the file has none
  const derived = () => (maxPos !== undefined && sc.originalMaxPositionEmbeddings > 0 ? maxPos / sc.originalMaxPositionEmbeddings : undefined);
  if (t === 'yarn' || t === 'llama3' || t === 'longrope') {
    // standardize_rope_params: a config attribute original_max_position_embeddings
    // (Phi3Config always has one, 4096) overrides the dict's; per layer type, the dict's or max_position_embeddings
    const attribute = perType ? undefined : numberAt(fn, c, where, 'original_max_position_embeddings') ?? family.originalMax;
    sc.originalMaxPositionEmbeddings = attribute ?? at('original_max_position_embeddings') ?? maxPos;
  }
  if (t === 'yarn') {
    if (!Object.hasOwn(dict, 'factor')) throw new TypeError(`posenc.${fn}: ${dictWhere}.factor is required for rope_type 'yarn' (null: max_position_embeddings / original_max_position_embeddings)`);
    Object.assign(sc, {
      factor: at('factor') ?? derived(), attentionFactor: at('attention_factor'), betaFast: truthy('beta_fast') ?? 32, betaSlow: truthy('beta_slow') ?? 1,
      mscale: truthy('mscale'), mscaleAllDim: truthy('mscale_all_dim'),
      // _compute_yarn_parameters reads truncate from the model's whole rope_parameters, even per layer type
      truncate: top.truncate === undefined || top.truncate === null ? true : Boolean(top.truncate),
    });
  } else if (t === 'llama3') {
    Object.assign(sc, { factor: at('factor'), lowFreqFactor: at('low_freq_factor'), highFreqFactor: at('high_freq_factor') });
  } else if (t === 'longrope') {
    // _compute_longrope_parameters: rope.get("factor") or max_position_embeddings / original
    Object.assign(sc, { factor: truthy('factor') ?? derived(), attentionFactor: at('attention_factor'), shortFactor: at('short_factor'), longFactor: at('long_factor') });
  } else {
    sc.factor = at('factor'); // linear, dynamic
  }
  if (sc.maxPositionEmbeddings === undefined) delete sc.maxPositionEmbeddings;
  for (const key of Object.keys(sc)) if (sc[key] === undefined) delete sc[key];
  return sc;
}

/**
 * The RoPE options of one layer of a Hugging Face model, read from its
 * config.json as transformers reads it, ready to spread into ropeFrequencies,
 * ropeCache and applyRope (which also take heads and headDim, the shape of x)
 * and into posenc/encoder's positional { type: 'rope' }:
 *   { rotaryDim, base, layout, scaling?, mropeSection?, mropeInterleaved? }
 * or null for a layer without RoPE (Llama 4's and SmolLM3's NoPE layers,
 * Cohere2's global layers). Reads the whole file as downloaded: a nested
 * text_config, rope_scaling (v4) or rope_parameters (v5, per layer type too),
 * and, for the keys a hub file leaves out, the defaults of the model_type's
 * configuration class. options.layer picks layer i's type (layer_types,
 * sliding_window_pattern, global_attn_every_n_layers, no_rope_layers);
 * options.layerType names a type; with neither, the model's default rotary
 * embedding (self.rotary_emb; Gemma 3's and ModernBERT's global one).
 * A model without RoPE is a TypeError naming what it uses and the posenc
 * function that serves it; a rope key posenc does not implement is an error
 * naming the key and the model type.
 * @param {object} config the parsed config.json
 * @param {{ layer?: number, layerType?: string }} [options]
 * @returns {{ rotaryDim: number, base: number, layout: 'half' | 'interleaved', scaling?: object, mropeSection?: number[], mropeInterleaved?: boolean } | null}
 */
export function ropeFromConfig(config, options = {}) {
  const fn = 'ropeFromConfig';
  const o = readOptions(fn, options, configSpec);
  const { c, where, type } = textModel(fn, config);
  const alibi = alibiKind(c, type);
  if (alibi) {
    throw new TypeError(`posenc.${fn}: model_type '${type}' has no RoPE: it uses ALiBi (${ALIBI_SOURCES[alibi]}): alibiFromConfig gives the options of alibiSlopes and alibiBias`);
  }
  if (Object.hasOwn(NOT_ROPE, type ?? '')) throw new TypeError(`posenc.${fn}: model_type '${type}' has no RoPE: it uses ${NOT_ROPE[type]}`);
  const family = type === undefined ? GENERIC : FAMILIES[type];
  if (type === undefined) {
    const key = Object.keys(FAMILY_KEYS).find((k) => c[k] !== undefined && c[k] !== null);
    const mrope = [c.rope_scaling, c.rope_parameters].some((d) => isPlainObject(d) && d.mrope_section != null);
    if (key || mrope) {
      const [name, who] = key ? [`${where}.${key}`, FAMILY_KEYS[key]] : [`${where}.rope_scaling.mrope_section`, "'qwen2_vl', 'qwen2_5_vl' or 'qwen3_vl'"];
      throw new TypeError(`posenc.${fn}: ${name} is read by model_type ${who} only, and this config names no model_type: add it, so that posenc reads the file as transformers does`);
    }
  }
  if (!family) {
    throw new TypeError(
      `posenc.${fn}: ${where}.model_type '${type}' is not a model posenc knows how transformers reads (its layout and class defaults): give ropeCache and applyRope the options yourself ({ rotaryDim, base, layout, scaling }); known: ${Object.keys(FAMILIES).join(', ')}`,
    );
  }
  const rope = ropeDict(fn, c, where);
  const layer = pickLayer(fn, c, where, type, family, o, rope.perType ? Object.keys(rope.dict) : []);
  const kind = layer.kind ?? (family.bases ? 'full_attention' : family.ropeOn ?? null);
  if (layer.noRope || (family.ropeOn && kind !== family.ropeOn)) return null;

  // the layer's own rope dict: per layer type (v5), or the model's; Gemma 3's
  // v4 rope_scaling scales its global layers only (ModernBERT's, every layer)
  let dict = rope.dict;
  let dictWhere = rope.where;
  if (rope.perType) {
    const key = kind;
    if (key === null || !isPlainObject(rope.dict[key])) {
      throw new RangeError(
        `posenc.${fn}: ${rope.where} is per layer type: options.layerType must be one of ${Object.keys(rope.dict).map((k) => `'${k}'`).join(', ')} (or options.layer), got ${key === null ? 'none' : `'${key}'`}`,
      );
    }
    dict = rope.dict[key];
    dictWhere = `${rope.where}.${key}`;
  } else if (family.bases && kind !== 'full_attention' && !family.scalingEveryType) {
    dict = {};
  }

  // the base: per layer type, each family's own key, or rope_theta (the dict's first)
  let base;
  let baseKey;
  if (family.bases) {
    const [key, fallback] = family.bases[kind] ?? family.bases.full_attention;
    base = numberAt(fn, dict, dictWhere, 'rope_theta') ?? numberAt(fn, c, where, key) ?? fallback;
    baseKey = `${where}.${key}`;
  } else if (family.fixedTheta) {
    base = family.fixedTheta;
    baseKey = `${where}.model_type`;
  } else if (family.chatglm) {
    const ratio = numberAt(fn, c, where, 'rope_ratio') ?? 1;
    base = 10000 * ratio;
    baseKey = `10000 * ${where}.rope_ratio`;
  } else if (family.thetaKey) {
    base = numberAt(fn, c, where, family.thetaKey) ?? 10000;
    baseKey = `${where}.${family.thetaKey}`;
  } else {
    base = numberAt(fn, dict, dictWhere, 'rope_theta') ?? numberAt(fn, c, where, 'rope_theta') ?? family.theta ?? 10000;
    baseKey = `${where}.rope_theta`;
  }
  if (!(base > 1)) throw fail(RangeError, fn, baseKey, 'a finite number > 1', base);

  // the rotary dimension: int(head_dim * partial_rotary_factor), or each family's own
  const { value: heads } = firstCount(fn, c, where, ['num_attention_heads', 'n_head', 'n_heads']);
  const { value: hidden } = firstCount(fn, c, where, ['hidden_size', 'n_embd', 'd_model']);
  const width = () => {
    if (hidden === undefined || heads === undefined) {
      throw new TypeError(`posenc.${fn}: ${where}.head_dim, or ${where}.hidden_size and ${where}.num_attention_heads, are required`);
    }
    return Math.floor(hidden / heads);
  };
  let rotaryDim;
  let rotaryWhat;
  if (family.ropeHeadDim) { // DeepSeek: the qk_rope_head_dim features of each head
    rotaryDim = countAt(fn, c, where, family.ropeHeadDim) ?? 64;
    rotaryWhat = `${where}.${family.ropeHeadDim}`;
  } else if (family.chatglm) { // RotaryEmbedding(kv_channels // 2)
    rotaryDim = Math.floor((countAt(fn, c, where, 'kv_channels') ?? width()) / 2);
    rotaryWhat = `${where}.kv_channels / 2`;
  } else if (family.rotaryDimKey) { // GPT-J, CodeGen: rotary_dim of each head (null: the whole head)
    rotaryDim = c[family.rotaryDimKey] === null ? width() : countAt(fn, c, where, family.rotaryDimKey) ?? family.rotaryDimDefault;
    rotaryWhat = `${where}.${family.rotaryDimKey}`;
  } else {
    const headDim = family.headDimFromWidth ? width() : (countAt(fn, c, where, 'head_dim') ?? family.headDim ?? width());
    const partial = family.partialKey
      ? numberAt(fn, c, where, family.partialKey) ?? family.partial
      : numberAt(fn, dict, dictWhere, 'partial_rotary_factor') ?? numberAt(fn, c, where, 'partial_rotary_factor') ?? family.partial ?? 1;
    if (!(partial > 0 && partial <= 1)) throw fail(RangeError, fn, `${where}.${family.partialKey ?? 'partial_rotary_factor'}`, 'a number in (0, 1]', partial);
    rotaryDim = Math.trunc(headDim * partial); // Python int(head_dim * partial_rotary_factor)
    rotaryWhat = partial === 1 ? `the head dimension ${headDim}` : `int(head_dim * partial_rotary_factor) = int(${headDim} * ${partial})`;
  }
  if (!(rotaryDim >= 2 && rotaryDim % 2 === 0)) {
    throw new RangeError(`posenc.${fn}: the rotary dimension (${rotaryWhat}) must be an even integer >= 2, got ${rotaryDim} (for an odd value Hugging Face rotates ${2 * Math.ceil(rotaryDim / 2)} features with frequencies base^(-2k/${rotaryDim}); posenc does not)`);
  }

  // the scaling, checked with the config's own key names
  const t = scalingType(fn, dict, dictWhere, type, family);
  const maxPos = countAt(fn, c, where, 'max_position_embeddings') ?? countAt(fn, c, where, 'n_positions') ??
    (family.chatglm ? countAt(fn, c, where, 'seq_length') : undefined) ?? family.maxPos;
  const result = { rotaryDim, base, layout: family.layout };
  const label = (key) => {
    if (key === 'maxPositionEmbeddings') return `${where}.max_position_embeddings`;
    if (key === 'originalMaxPositionEmbeddings') return `${where}.original_max_position_embeddings (or ${dictWhere}.original_max_position_embeddings)`;
    return `${dictWhere}.${KEYS[key] ?? key}`;
  };
  let sc = { type: 'default' };
  if (t !== 'default') {
    const scaling = scalingOf(fn, t, dict, dictWhere, rope.perType ? rope.dict : dict, c, where, family, rope.perType, maxPos);
    sc = readScaling(fn, scaling, rotaryDim, label); // its keys and types, with the config's names
    result.scaling = scaling;
  }

  // M-RoPE: Qwen2-VL and Qwen2.5-VL in sections, Qwen3-VL interleaved
  const section = dict.mrope_section ?? (family.mrope ? family.mropeSection : undefined);
  if (section !== undefined && section !== null) {
    if (!family.mrope) throw new RangeError(`posenc.${fn}: ${dictWhere}.mrope_section is M-RoPE's (Qwen2-VL, Qwen2.5-VL, Qwen3-VL), not model_type '${type}'s: transformers' ${type} does not read it`);
    result.mropeSection = sectionList().check(fn, `${dictWhere}.mrope_section`, section);
    result.mropeInterleaved = family.mrope === 'interleaved';
    const sum = result.mropeSection.reduce((a, b) => a + b, 0);
    if (sum !== rotaryDim / 2) {
      throw new RangeError(`posenc.${fn}: ${dictWhere}.mrope_section must add up to the rotary dimension / 2 = ${rotaryDim / 2}, got [${result.mropeSection.join(', ')}] (sum ${sum})`);
    }
  } else if (t === 'default' && (dict.rope_type ?? dict.type) === 'mrope') {
    throw new TypeError(`posenc.${fn}: ${dictWhere}.mrope_section is required with rope_type 'mrope'`);
  }
  // every range, in C (the frequencies and sections these options give), named as the config names them
  const names = { base: baseKey, rotary_dim: `the rotary dimension (${rotaryWhat})`, sections: `${dictWhere}.mrope_section` };
  ropeFrequenciesOf(fn, result, sc, {
    scaling: label,
    label: (cName) => names[cName] ?? (cName.startsWith('scaling.') ? label(camel(cName.slice('scaling.'.length))) : cName),
    given: (name) => (name === baseKey ? base : name === names.rotary_dim ? rotaryDim : undefined),
  });
  return result;
}
