// rope-dict.js: the rope dict transformers' configuration class builds for one
// layer of a text model (modeling_rope_utils.py RotaryEmbeddingConfigMixin:
// convert_rope_params_to_dict and standardize_rope_params, and the families'
// own versions of convert_rope_params_to_dict), and the check that every key of
// the file's dict is one transformers reads for its rope_type.
import { fail, isPlainObject } from '../core/describe.js';
import { finite, keysOf, numberAt, objectAt, own, quote, value } from './read.js';

const LAYER_TYPES = new Set(['full_attention', 'sliding_attention', 'chunked_attention', 'linear_attention']);

// The keys transformers reads in a rope dict, by rope_type (the _compute_*_parameters
// functions and validate_rope), besides rope_type / type, rope_theta and partial_rotary_factor.
const READ = {
  default: [],
  linear: ['factor'],
  dynamic: ['factor'],
  yarn: ['factor', 'original_max_position_embeddings', 'attention_factor', 'beta_fast', 'beta_slow', 'mscale', 'mscale_all_dim', 'truncate'],
  longrope: ['short_factor', 'long_factor', 'factor', 'attention_factor', 'original_max_position_embeddings'],
  llama3: ['factor', 'low_freq_factor', 'high_freq_factor', 'original_max_position_embeddings'],
};

// Keys that transformers reads or keeps without any effect on the frequencies of that
// rope_type, listed in docs/configs.md: posenc accepts them and they change nothing.
const WITHOUT_EFFECT = {
  default: ['original_max_position_embeddings', 'factor'],
  linear: ['original_max_position_embeddings'],
  dynamic: ['original_max_position_embeddings'],
  yarn: ['max_position_embeddings'], // Ministral3Config's default dict carries it; nothing reads it
};

/** An own copy of a dict, prototype-free (values read once, as data). */
function copyOf(fn, d, where) {
  const out = Object.create(null);
  for (const k of keysOf(fn, d, where)) out[k] = own(fn, d, where, k);
  return out;
}

const nonEmpty = (fn, d, where) => d !== undefined && keysOf(fn, d, where).length > 0;

/** A rope_type as the family's configuration class reads it. */
function alias(f, type) {
  if (f.dict === 'phi3' && (type === 'su' || type === 'yarn')) return 'longrope'; // Phi3Config reads both as LongRoPE
  if (f.dict === 'mrope' && type === 'mrope') return 'default'; // Qwen2VLTextConfig: 'mrope' is the default frequencies
  return type;
}

/** A v5 rope_parameters keyed by layer type ({ full_attention: {...}, sliding_attention: {...} }). */
export function perLayerType(fn, d, where) {
  const keys = keysOf(fn, d, where);
  return keys.length > 0 && keys.every((k) => LAYER_TYPES.has(k) && (own(fn, d, where, k) === null || isPlainObject(own(fn, d, where, k))));
}

/**
 * The layer's rope dict: { d, where, file, top, type } with d standardized
 * (rope_type, rope_theta, partial_rotary_factor, original_max_position_embeddings
 * set as transformers sets them), where its name in messages, file the dict as the
 * file gives it (for the key check; null for a class default), top the model's
 * whole rope dict (YaRN reads truncate there), type the rope_type; name(key)
 * the key a value of d came from, as messages name it (config.rope_theta for a
 * theta standardize_rope_params moved into the dict); num(key) a number of d,
 * named so in its error.
 */
export function ropeDict(fn, m, kind, maxPos) {
  const { c, where, family: f } = m;
  const scaling = objectAt(fn, c, where, 'rope_scaling');
  const params = objectAt(fn, c, where, 'rope_parameters');
  const from = Object.create(null); // key of d -> the config key its value came from
  let d;
  let at;
  let file = null;
  let top;
  if (f.dict === 'gemma3' || f.dict === 'modernbert') {
    // Gemma3TextConfig / ModernBertConfig.convert_rope_params_to_dict: a dict per layer type,
    // rope_scaling merged into the full-attention one (ModernBERT: into both)
    const layerType = kind ?? 'full_attention';
    if (!Object.hasOwn(f.thetaByType, layerType)) {
      // standardize_rope_params reads rope_parameters[layer_type] for each of layer_types: a KeyError there
      throw new RangeError(`posenc.${fn}: this layer's type ${quote(String(layerType))} (${where}.layer_types) has no rope dict in transformers' ${m.type}, which builds one for 'full_attention' and 'sliding_attention' only`);
    }
    if (params !== undefined && !perLayerType(fn, params, `${where}.rope_parameters`) && nonEmpty(fn, params, `${where}.rope_parameters`)) {
      throw new TypeError(`posenc.${fn}: ${where}.rope_parameters must be keyed by layer type ('full_attention', 'sliding_attention') for model_type ${quote(m.type)}, got keys ${keysOf(fn, params, `${where}.rope_parameters`).join(', ')}`);
    }
    const given = params !== undefined ? objectAt(fn, params, `${where}.rope_parameters`, layerType) : undefined;
    d = given ? copyOf(fn, given, `${where}.rope_parameters.${layerType}`) : Object.assign(Object.create(null), { rope_type: 'default' });
    if (!given) from.rope_type = 'class';
    at = `${where}.rope_parameters.${layerType}`;
    if (given) file = given;
    if (scaling !== undefined && (layerType === 'full_attention' || f.dict === 'modernbert')) {
      Object.assign(d, copyOf(fn, scaling, `${where}.rope_scaling`));
      if (value(fn, scaling, `${where}.rope_scaling`, 'rope_type') !== undefined) delete from.rope_type;
      at = `${where}.rope_scaling`;
      file = scaling;
    }
    const [key, fallback] = f.thetaByType[layerType];
    if (value(fn, d, at, 'rope_theta') === undefined) [d.rope_theta, from.rope_theta] = [numberAt(fn, c, where, key) ?? fallback, `${where}.${key}`];
    top = Object.create(null); // keyed by layer type: no truncate at its top level
  } else {
    // `rope_scaling or rope_parameters`, then the class's default when the file has neither
    if (nonEmpty(fn, scaling, `${where}.rope_scaling`)) [file, at] = [scaling, `${where}.rope_scaling`];
    else if (nonEmpty(fn, params, `${where}.rope_parameters`)) [file, at] = [params, `${where}.rope_parameters`];
    if (file && perLayerType(fn, file, at)) {
      const layerType = kind ?? 'full_attention';
      const sub = objectAt(fn, file, at, layerType);
      if (sub === undefined) {
        throw new RangeError(`posenc.${fn}: ${at} is per layer type (${keysOf(fn, file, at).join(', ')}) but has no '${layerType}' entry for this layer`);
      }
      top = Object.create(null);
      [file, at] = [sub, `${at}.${layerType}`];
      d = copyOf(fn, sub, at);
    } else {
      d = file ? copyOf(fn, file, at) : Object.assign(Object.create(null), f.rope ?? {});
      top = d;
      if (!file) at = `${where}.rope_parameters (the class default)`;
    }
    if (value(fn, d, at, 'rope_theta') === undefined) {
      const key = f.dict === 'gptneox' ? 'rotary_emb_base' : 'rope_theta';
      const outside = f.thetaIgnored ? undefined : numberAt(fn, c, where, key);
      d.rope_theta = outside ?? f.theta ?? 1e4;
      from.rope_theta = `${where}.${key}`;
    }
  }

  // rope_type, as standardize_rope_params sets it from the older `type`
  const [given, older] = [value(fn, d, at, 'rope_type'), value(fn, d, at, 'type')];
  const named = given ?? older ?? 'default';
  if (typeof named !== 'string') throw fail(TypeError, fn, `${at}.${given === undefined ? 'type' : 'rope_type'}`, 'a string', named);
  const type = alias(f, named);
  // both: transformers reads rope_type and drops type; one that says otherwise is refused, not dropped
  if (given !== undefined && typeof older === 'string' && alias(f, older) !== type) {
    if (from.rope_type === 'class') {
      throw new RangeError(
        `posenc.${fn}: ${at}.type ${quote(older)}: transformers' ${m.type} merges rope_scaling into its default dict, whose rope_type is 'default', and computes that; posenc will not drop the type: name it rope_type`,
      );
    }
    throw new RangeError(`posenc.${fn}: ${at}.rope_type ${quote(String(given))} and ${at}.type ${quote(older)} disagree: transformers reads rope_type and ignores type; give one of them`);
  }

  // partial_rotary_factor: the file's top-level key (or the class's "for BC" default) is put
  // in the dict when the dict has none, and wins over the dict's for every type but the
  // default one (the _compute_* functions standardize again, once it is an attribute)
  if (f.dict === 'gptneox') {
    d.partial_rotary_factor = numberAt(fn, c, where, 'rotary_pct') ?? f.partialKeyDefault ?? 0.25; // GPTNeoXConfig: rotary_pct, always
    from.partial_rotary_factor = `${where}.rotary_pct`;
  } else {
    const outside = f.partialForced ?? numberAt(fn, c, where, 'partial_rotary_factor') ?? f.partial;
    if (outside !== undefined && (type !== 'default' || value(fn, d, at, 'partial_rotary_factor') === undefined || f.partialForced !== undefined)) {
      d.partial_rotary_factor = outside;
      from.partial_rotary_factor = `${where}.partial_rotary_factor`;
    }
  }

  // original_max_position_embeddings for the types that read it: an attribute of the
  // config (Phi3Config always has one) wins over the dict's; else max_position_embeddings
  if (type === 'llama3' || type === 'yarn' || type === 'longrope') {
    // (per layer type, standardize_rope_params only fills in max_position_embeddings)
    const attribute = top !== d ? undefined : numberAt(fn, c, where, 'original_max_position_embeddings') ?? f.originalMax;
    if (attribute !== undefined) [d.original_max_position_embeddings, from.original_max_position_embeddings] = [attribute, `${where}.original_max_position_embeddings`];
    else if (value(fn, d, at, 'original_max_position_embeddings') === undefined) {
      [d.original_max_position_embeddings, from.original_max_position_embeddings] = [maxPos, `${where}.max_position_embeddings`];
    }
  }
  const name = (key) => from[key] ?? `${at}.${key}`;
  const num = (key) => finite(fn, name(key), value(fn, d, at, key));
  return { d, at, file, top, type, name, num };
}

/** Every key of the file's rope dict must be one transformers reads for its type (or listed as without effect). */
export function checkDictKeys(fn, m, r, extra = []) {
  if (!r.file) return;
  const known = new Set(['rope_type', 'type', 'rope_theta', 'partial_rotary_factor', ...(READ[r.type] ?? []), ...(WITHOUT_EFFECT[r.type] ?? []), ...extra]);
  for (const key of keysOf(fn, r.file, r.at)) {
    if (!known.has(key)) {
      throw new RangeError(
        `posenc.${fn}: ${r.at}.${key} is not a key transformers reads for rope_type '${r.type}' of model_type ${quote(m.type ?? '(none)')} (it reads ${[...known].filter((k) => k !== 'type').join(', ')}): posenc will not drop a key that may change the positions`,
      );
    }
  }
}
