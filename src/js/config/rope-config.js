// rope-config.js: the RoPE options of one layer of a Hugging Face model, read
// from its config.json as transformers (commit ace7c37014) reads it: the text
// model of a composite config (model.js), the class defaults of its model_type
// (families.js), the rope dict its configuration class builds (rope-dict.js),
// the kind of the layer (layers.js), and what its modeling file computes: the
// rotary dimension (head_dim, partial_rotary_factor where that model reads it),
// the pairing layout of its apply function, its own keys (DeepSeek's
// qk_rope_head_dim and rope_interleave, GPT-J's rotary_dim, PhiMoE's mscales, ...).
import { fail, isPlainObject } from '../core/describe.js';
import { INT32_MAX, integer, readOptions } from '../core/options.js';
import { camel } from '../core/errors.js';
import { ropeFrequenciesOf } from '../rope.js';
import { sectionList } from '../rope-axes.js';
import { ROPE_TYPES, readScaling } from '../rope-scaling.js';
import { alibiKind } from './alibi-config.js';
import { familyOf, textModel } from './model.js';
import { layerCount, layerKind, ropeOff, ropeType, ruleTypes, typeHasRope } from './layers.js';
import { notRope } from './not-rope.js';
import { arrayAt, checkConfig, countAt, entry, firstCount, keysOf, MAX_LAYERS, numberAt, objectAt, own, quote, value } from './read.js';
import { FAMILY_KEYS } from './families.js';
import { checkDictKeys, perLayerType, ropeDict } from './rope-dict.js';

// The config key of each scaling option, for messages.
const KEYS = {
  factor: 'factor', attentionFactor: 'attention_factor', betaFast: 'beta_fast', betaSlow: 'beta_slow', mscale: 'mscale',
  mscaleAllDim: 'mscale_all_dim', truncate: 'truncate', lowFreqFactor: 'low_freq_factor', highFreqFactor: 'high_freq_factor',
  shortFactor: 'short_factor', longFactor: 'long_factor', type: 'rope_type',
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
 * A config.json without model_type (written by hand): read as a Llama-style
 * model: half layout, rope_theta default 10000, head_dim or hidden_size /
 * num_attention_heads, no partial rotary.
 */
const GENERIC = Object.freeze({ generic: true, partialRead: true });

/** The model's text model and its family, or the TypeError of a model posenc does not serve. */
export function servedModel(fn, config) {
  checkConfig(fn, config);
  const m = textModel(fn, config);
  const alibi = alibiKind(fn, m);
  if (alibi) throw new TypeError(`posenc.${fn}: model_type ${quote(m.type)} has no RoPE: it uses ALiBi (${alibi}): alibiFromConfig gives the options of alibiSlopes and alibiBias`);
  const family = m.type === undefined ? GENERIC : familyOf(m.type);
  if (!family) throw notRope(fn, m);
  if (family === GENERIC) checkGeneric(fn, m);
  if (family.refuse) throw new TypeError(`posenc.${fn}: model_type ${quote(m.type)} uses RoPE that posenc does not implement: ${family.refuse}`);
  m.family = family;
  return m;
}

/** A config without model_type may not set a key only some families read: it must say which model it is. */
function checkGeneric(fn, m) {
  const dicts = ['rope_scaling', 'rope_parameters'].map((k) => [k, objectAt(fn, m.c, m.where, k)]).filter(([, d]) => d !== undefined);
  const key = Object.keys(FAMILY_KEYS).find((k) => value(fn, m.c, m.where, k) !== undefined);
  const inDict = key ? undefined : dicts.find(([k, d]) => value(fn, d, `${m.where}.${k}`, 'mrope_section') !== undefined);
  if (key === undefined && inDict === undefined) return;
  const [name, who] = key ? [`${m.where}.${key}`, FAMILY_KEYS[key]] : [`${m.where}.${inDict[0]}.mrope_section`, FAMILY_KEYS.mrope_section];
  throw new TypeError(`posenc.${fn}: ${name} is read by model_type ${who} only, and this config names no model_type: add it, so that posenc reads the file as transformers does`);
}

/**
 * Which layer the options pick: { type, rope } (type: its layer type or null).
 * With neither layer nor layerType, a config whose flags leave every layer
 * without RoPE is a TypeError saying so (offIsNull: { type: null, rope: false }).
 */
export function pickLayer(fn, m, o, offIsNull = false) {
  const n = layerCount(fn, m);
  if (o.layer !== undefined && o.layerType !== undefined) {
    throw new TypeError(`posenc.${fn}: give options.layer or options.layerType, not both (layer picks its own type), got layer ${o.layer} and layerType '${o.layerType}'`);
  }
  if (o.layer !== undefined) {
    if (n === undefined) throw new TypeError(`posenc.${fn}: ${m.where}.num_hidden_layers is required with options.layer`);
    if (o.layer >= n) throw new RangeError(`posenc.${fn}: options.layer must be an integer from 0 to ${n - 1} (${m.where}.num_hidden_layers = ${n}), got ${o.layer}`);
    return layerKind(fn, m, o.layer, n);
  }
  if (o.layerType !== undefined) {
    const known = knownTypes(fn, m, n);
    if (!known.includes(o.layerType)) {
      throw new RangeError(
        known.length
          ? `posenc.${fn}: options.layerType must be one of ${known.map((k) => `'${k}'`).join(', ')} (the layer types of this ${quote(m.type ?? 'model')} config), got ${quote(o.layerType)}`
          : `posenc.${fn}: options.layerType: this ${quote(m.type ?? 'model')} config has no layer types (every layer shares one rotary embedding): omit it, got ${quote(o.layerType)}`,
      );
    }
    return { type: o.layerType, rope: typeHasRope(fn, m, o.layerType) };
  }
  // the model's default rotary embedding: the full-attention one of a model with one per
  // layer type, the RoPE layers' of a model whose other layers have none (none, where a
  // flag of the config turned RoPE off)
  const on = ropeType(fn, m);
  if (m.family.thetaByType) return { type: 'full_attention', rope: true };
  // a rope dict per layer type, in a config whose class does not say which is the default
  const perType = ropeDictTypes(fn, m);
  if (on == null && perType.length > 1) {
    throw new RangeError(`posenc.${fn}: this ${quote(m.type ?? 'model')} config has a rotary embedding per layer type (${perType.map((t) => `'${t}'`).join(', ')}): give options.layerType or options.layer`);
  }
  const off = ropeOff(fn, m);
  if (off && offIsNull) return { type: null, rope: false };
  if (off) throw new TypeError(`posenc.${fn}: model_type ${quote(m.type)} has no RoPE in any layer: ${off} (options.layer of one of its layers gives null)`);
  return { type: on ?? null, rope: on !== null || typeHasRope(fn, m, null) };
}

/** The layer types a config names (layer_types or its alias, else its family's rule and class). */
function knownTypes(fn, m, n) {
  const types = new Set(ruleTypes(m.family));
  for (const key of ['layer_types', ...(m.family.aliases?.layer_types ?? [])]) {
    const given = arrayAt(fn, m.c, m.where, key, MAX_LAYERS);
    if (!given) continue;
    if (n !== undefined && given.length !== n) throw new RangeError(`posenc.${fn}: ${m.where}.${key} has ${given.length} entries for num_hidden_layers = ${n}`);
    for (let i = 0; i < given.length; i++) {
      const t = entry(fn, given, m.where, key, i);
      if (typeof t === 'string') types.add(t);
    }
  }
  for (const t of ropeDictTypes(fn, m)) types.add(t);
  return [...types];
}

/** The layer types a v5 rope_parameters (or rope_scaling) keyed by layer type names; [] for another dict. */
function ropeDictTypes(fn, m) {
  const types = new Set();
  for (const key of ['rope_parameters', 'rope_scaling']) {
    const d = own(fn, m.c, m.where, key);
    if (isPlainObject(d) && perLayerType(fn, d, `${m.where}.${key}`)) for (const t of keysOf(fn, d, `${m.where}.${key}`)) types.add(t);
  }
  return [...types];
}

/** The head dimension and the hidden size / heads it may come from. */
function headDimOf(fn, m) {
  const { c, where, family: f } = m;
  const aliases = (key) => [key, ...(f.aliases?.[key] ?? [])];
  const explicit = firstCount(fn, c, where, aliases('head_dim')).value;
  if (explicit !== undefined) return explicit;
  const hidden = firstCount(fn, c, where, [...aliases('hidden_size'), 'n_embd', 'd_model']).value ?? f.hidden;
  const heads = firstCount(fn, c, where, [...aliases('num_attention_heads'), 'n_head', 'n_heads']).value ?? f.heads;
  if (m.type === 'zamba2') return Math.floor((2 * hidden) / heads); // Zamba2Config: attention over [hidden, input]
  if (f.headDim !== undefined) return f.headDim;
  if (hidden === undefined || heads === undefined) {
    throw new TypeError(`posenc.${fn}: ${where}.head_dim, or ${where}.hidden_size and ${where}.num_attention_heads, are required`);
  }
  return Math.floor(hidden / heads);
}

const maxPositions = (fn, m) => firstCount(fn, m.c, m.where, ['max_position_embeddings', ...(m.family.aliases?.max_position_embeddings ?? []), 'n_positions', 'max_seq_len', ...(m.family.special === 'chatglm' ? ['seq_length'] : [])]).value ?? m.family.maxPos;

/**
 * The scaling object of a non-default type, in posenc's names, read from the
 * standardized dict as the _compute_*_parameters functions read it.
 */
function scalingOf(fn, r, maxPos) {
  const { d, type: t } = r;
  const at = (key) => value(fn, d, r.at, key);
  const truthy = (key) => at(key) || undefined; // Python `x or default`: 0 and None take the default
  const need = (key) => {
    if (at(key) === undefined && !Object.hasOwn(d, key)) throw new TypeError(`posenc.${fn}: ${r.at}.${key} is required for rope_type '${t}'`);
    return at(key);
  };
  const sc = { type: t, maxPositionEmbeddings: maxPos, originalMaxPositionEmbeddings: at('original_max_position_embeddings') };
  const derived = () => (maxPos !== undefined && sc.originalMaxPositionEmbeddings > 0 ? maxPos / sc.originalMaxPositionEmbeddings : undefined);
  if (t === 'yarn') {
    const truncate = value(fn, r.top, r.at, 'truncate');
    Object.assign(sc, {
      factor: need('factor') ?? derived(), attentionFactor: at('attention_factor'), betaFast: truthy('beta_fast') ?? 32, betaSlow: truthy('beta_slow') ?? 1,
      mscale: truthy('mscale'), mscaleAllDim: truthy('mscale_all_dim'),
      // _compute_yarn_parameters reads truncate from the model's whole rope dict, even per layer type
      truncate: truncate === undefined ? true : Boolean(truncate),
    });
  } else if (t === 'llama3') {
    Object.assign(sc, { factor: need('factor'), lowFreqFactor: need('low_freq_factor'), highFreqFactor: need('high_freq_factor') });
  } else if (t === 'longrope') {
    Object.assign(sc, { factor: at('factor') ?? derived(), attentionFactor: at('attention_factor'), shortFactor: need('short_factor'), longFactor: need('long_factor') });
  } else {
    sc.factor = need('factor'); // linear, dynamic
    delete sc.originalMaxPositionEmbeddings;
  }
  for (const key of Object.keys(sc)) if (sc[key] === undefined) delete sc[key];
  return sc;
}

/**
 * The RoPE options of one layer of a Hugging Face model, read from its
 * config.json as transformers reads it, ready to spread into ropeFrequencies,
 * ropeCache and applyRope (which also take heads and headDim, the shape of x)
 * and into posenc/encoder's positional { type: 'rope' }:
 *   { rotaryDim, base, layout, scaling?, mropeSection?, mropeInterleaved? }
 * or null for a layer without RoPE. See docs/configs.md for every model_type.
 * @param {object} config the parsed config.json
 * @param {{ layer?: number, layerType?: string }} [options]
 */
export function ropeFromConfig(config, options = {}) {
  const fn = 'ropeFromConfig';
  const o = readOptions(fn, options, configSpec);
  const m = servedModel(fn, config);
  const f = m.family;
  const layer = pickLayer(fn, m, o);
  if (!layer.rope) return null;
  if (f.special === 'chatglm') return chatglm(fn, m);
  const maxPos = maxPositions(fn, m);
  // GPT-J, CodeGen, IDEFICS: no rope dict; base 10000 in their code (rope_theta, rope_scaling unread)
  const r = f.noRopeDict
    ? codeDict(fn, `${m.where} (its modeling code)`, { rope_theta: 1e4 })
    : ropeDict(fn, m, layer.type, maxPos);
  const extra = [];
  if (f.mrope) extra.push('mrope_section', ...(f.mrope === 'interleaved' ? ['mrope_interleaved'] : []));
  if (f.special === 'phimoe') extra.push('short_mscale', 'long_mscale');
  if (f.special === 'hunyuan') extra.push('alpha');
  if (f.queryScale === 'ministral3') extra.push('llama_4_scaling_beta');
  if (!ROPE_TYPES.includes(r.type)) {
    const key = value(fn, r.d, r.at, 'rope_type') === undefined ? 'type' : 'rope_type';
    throw new RangeError(`posenc.${fn}: ${r.at}.${key} ${quote(r.type)} of model_type ${quote(m.type ?? '(none)')} is not one transformers computes here, nor posenc (${ROPE_TYPES.map((x) => `'${x}'`).join(', ')})`);
  }
  checkDictKeys(fn, m, r, extra);

  // the base
  const base = r.num('rope_theta');
  if (!(base > 1)) throw fail(RangeError, fn, r.name('rope_theta'), 'a finite number > 1', base);

  // the rotary dimension, as the family's rotary class and attention compute it
  let rotaryDim;
  let what;
  const partial = r.num('partial_rotary_factor') ?? 1;
  if (f.special === 'deepseek') {
    rotaryDim = countAt(fn, m.c, m.where, 'qk_rope_head_dim') ?? 64; // the rope part of each head
    what = `${m.where}.qk_rope_head_dim`;
  } else if (f.special === 'gptj') {
    const v = value(fn, m.c, m.where, 'rotary_dim');
    if (v === undefined && Object.hasOwn(m.c, 'rotary_dim')) {
      throw new TypeError(`posenc.${fn}: ${m.where}.rotary_dim is null: transformers' ${m.type} then builds its sin/cos table over hidden_size features and fails on a head`);
    }
    rotaryDim = countAt(fn, m.c, m.where, 'rotary_dim') ?? 64;
    what = `${m.where}.rotary_dim`;
  } else {
    const headDim = headDimOf(fn, m);
    if (!(partial > 0 && partial <= 1)) throw fail(RangeError, fn, r.name('partial_rotary_factor'), 'a number in (0, 1]', partial);
    const share = r.type === 'default' && !f.partialRead ? 1 : partial;
    rotaryDim = Math.trunc(headDim * share); // Python int(head_dim * partial_rotary_factor)
    what = share === 1 ? `the head dimension ${headDim}` : `int(head_dim * partial_rotary_factor) = int(${headDim} * ${share})`;
    if (!f.partialRead && !f.partialApply && rotaryDim !== headDim && !f.generic) {
      throw new RangeError(
        `posenc.${fn}: partial_rotary_factor ${partial} with rope_type '${r.type}': transformers' ${m.type} computes cos/sin for ${rotaryDim} of the ${headDim} features of a head and then rotates the whole head with them, which fails; its default rope_type rotates the whole head`,
      );
    }
  }
  if (!(rotaryDim >= 2 && rotaryDim % 2 === 0)) {
    throw new RangeError(`posenc.${fn}: the rotary dimension (${what}) must be an even integer >= 2, got ${rotaryDim} (for an odd value Hugging Face rotates ${2 * Math.ceil(rotaryDim / 2)} features with frequencies base^(-2k/${rotaryDim}); posenc does not)`);
  }

  let layout = f.layout ?? 'half';
  if (f.interleaveKey) layout = value(fn, m.c, m.where, 'rope_interleave') === false ? 'half' : 'interleaved'; // DeepSeek V3: rope_interleave (default true)
  const result = { rotaryDim, base, layout };
  const label = (key) => {
    if (key === 'maxPositionEmbeddings') return `${m.where}.max_position_embeddings`;
    return r.name(key === 'originalMaxPositionEmbeddings' ? 'original_max_position_embeddings' : KEYS[key] ?? key);
  };
  let sc = { type: 'default' };
  if (r.type !== 'default') {
    const scaling = scalingOf(fn, r, maxPos);
    if (f.special === 'phimoe') phimoeFactor(fn, r, scaling);
    if (f.special === 'hunyuan' && value(fn, r.d, r.at, 'alpha')) {
      throw new RangeError(`posenc.${fn}: ${r.at}.alpha (HunYuan's NTK alpha): transformers uses base * alpha^(d/(d-2)) up to max_position_embeddings and switches to dynamic NTK past it; posenc has no such scaling`);
    }
    sc = readScaling(fn, scaling, rotaryDim, label); // its keys and types, with the config's names
    result.scaling = scaling;
  }
  if (f.mrope) mrope(fn, m, r, result, rotaryDim);
  // every range, in C (the frequencies and sections these options give), named as the config names them
  const baseKey = r.name('rope_theta');
  const names = { base: baseKey, rotary_dim: `the rotary dimension (${what})`, sections: `${r.at}.mrope_section` };
  ropeFrequenciesOf(fn, result, sc, {
    scaling: label,
    label: (cName) => names[cName] ?? (cName.startsWith('scaling.') ? label(camel(cName.slice('scaling.'.length))) : cName),
    given: (name) => (name === baseKey ? base : name === names.rotary_dim ? rotaryDim : undefined),
  });
  return result;
}

/** ropeDict's answer for a dict that lives in a model's code, not its config. */
function codeDict(fn, at, values) {
  const d = Object.assign(Object.create(null), values);
  return { d, at, file: null, top: null, type: 'default', name: (key) => `${at}.${key}`, num: (key) => numberAt(fn, d, at, key) };
}

/** PhiMoE's short_mscale / long_mscale replace LongRoPE's attention factor (PhimoeRotaryEmbedding.forward). */
function phimoeFactor(fn, r, scaling) {
  const short = value(fn, r.d, r.at, 'short_mscale');
  const long = value(fn, r.d, r.at, 'long_mscale');
  if (short === undefined || long === undefined) {
    throw new TypeError(`posenc.${fn}: ${r.at}.short_mscale and ${r.at}.long_mscale are required for rope_type '${r.type}' of model_type 'phimoe' (its rotary embedding reads both)`);
  }
  for (const [key, v] of [['short_mscale', short], ['long_mscale', long]]) {
    if (typeof v !== 'number' || !(Number.isFinite(v) && v > 0)) throw fail(RangeError, fn, `${r.at}.${key}`, 'a finite number > 0', v);
  }
  if (short !== long) {
    throw new RangeError(`posenc.${fn}: ${r.at}.short_mscale (${short}) and long_mscale (${long}) differ: PhiMoE multiplies cos/sin by one or the other by sequence length, and posenc's scaling has one attention factor`);
  }
  if (r.type !== 'yarn' && r.type !== 'longrope') {
    // posenc's linear and dynamic scalings have no attention factor; a factor of 1 changes nothing
    if (short === 1) return;
    throw new RangeError(`posenc.${fn}: ${r.at}.short_mscale (${short}) with rope_type '${r.type}': PhiMoE multiplies cos/sin by it, and posenc's '${r.type}' scaling has no attention factor (yarn and longrope have one)`);
  }
  scaling.attentionFactor = short;
}

/** M-RoPE: Qwen2-VL and Qwen2.5-VL in sections, Qwen3-VL interleaved (its default section [24, 20, 20]). */
function mrope(fn, m, r, result, rotaryDim) {
  const f = m.family;
  const given = value(fn, r.d, r.at, 'mrope_section');
  const section = given ?? f.mropeSection;
  if (section === undefined) {
    throw new TypeError(`posenc.${fn}: ${r.at}.mrope_section is required for model_type ${quote(m.type)} (its apply_multimodal_rotary_pos_emb reads it)`);
  }
  if (Array.isArray(section) && section.length > 3) throw fail(RangeError, fn, `${r.at}.mrope_section`, 'an array of 3 integers >= 0', section);
  result.mropeSection = sectionList().check(fn, `${r.at}.mrope_section`, section);
  result.mropeInterleaved = f.mrope === 'interleaved';
  const sum = result.mropeSection.reduce((a, b) => a + b, 0);
  if (sum !== rotaryDim / 2) {
    throw new RangeError(`posenc.${fn}: ${r.at}.mrope_section must add up to the rotary dimension / 2 = ${rotaryDim / 2}, got [${result.mropeSection.join(', ')}] (sum ${sum})`);
  }
}

/** Remote-code ChatGLM2/3 and GLM-4: RotaryEmbedding(kv_channels // 2), base 10000 * rope_ratio, interleaved. */
function chatglm(fn, m) {
  const ratio = numberAt(fn, m.c, m.where, 'rope_ratio') ?? 1;
  const base = 10000 * ratio;
  if (!(base > 1)) throw fail(RangeError, fn, `${m.where}.rope_ratio`, 'a finite number > 1e-4', ratio);
  const hidden = countAt(fn, m.c, m.where, 'hidden_size');
  const heads = countAt(fn, m.c, m.where, 'num_attention_heads');
  const kv = countAt(fn, m.c, m.where, 'kv_channels') ?? (hidden && heads ? Math.floor(hidden / heads) : undefined);
  if (kv === undefined) throw new TypeError(`posenc.${fn}: ${m.where}.kv_channels, or hidden_size and num_attention_heads, are required`);
  const rotaryDim = Math.floor(kv / 2);
  if (!(rotaryDim >= 2 && rotaryDim % 2 === 0)) throw new RangeError(`posenc.${fn}: the rotary dimension (${m.where}.kv_channels / 2) must be an even integer >= 2, got ${rotaryDim}`);
  return { rotaryDim, base, layout: 'interleaved' };
}
