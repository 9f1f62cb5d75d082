// read.js: the text model of a Hugging Face config.json, and its keys read
// with messages that name them as the file spells them.
import { fail, isPlainObject } from '../core/describe.js';
import { TEXT_MODEL_TYPE, TOP_LEVEL_TEXT } from './families.js';

/**
 * The part of a config.json that describes the text model, as transformers'
 * get_text_config finds it: { c, where, type }. c is config.text_config when
 * there is one (Llama 4, Gemma 3, Qwen2/2.5/3-VL, Mistral 3), else the whole
 * config; where is how messages name it; type its model_type (the text
 * model's own, or its composite class's default; undefined when the file
 * names none).
 */
export function textModel(fn, config) {
  if (!isPlainObject(config)) {
    throw new TypeError(`posenc.${fn}: config must be a Hugging Face config object (the parsed config.json), got ${describeConfig(config)}`);
  }
  const top = modelType(fn, config, 'config');
  if (config.text_config !== undefined && config.text_config !== null) {
    if (!isPlainObject(config.text_config)) throw fail(TypeError, fn, 'config.text_config', 'an object', config.text_config);
    const c = config.text_config;
    const own = modelType(fn, c, 'config.text_config');
    return { c, where: 'config.text_config', type: own ?? TEXT_MODEL_TYPE[top] ?? top };
  }
  return { c: config, where: 'config', type: TOP_LEVEL_TEXT[top] ?? top };
}

function modelType(fn, c, where) {
  const t = c.model_type;
  if (t === undefined || t === null) return undefined;
  if (typeof t !== 'string') throw fail(TypeError, fn, `${where}.model_type`, 'a string', t);
  return t;
}

const describeConfig = (v) => (typeof v === 'string' ? 'a string (parse the JSON first: JSON.parse(text))' : v === null ? 'null' : Array.isArray(v) ? 'an Array' : typeof v);

/** A number under `key`, or undefined when absent or null (JSON's None); anything else is a TypeError. */
export function numberAt(fn, c, where, key) {
  const v = c[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') throw fail(TypeError, fn, `${where}.${key}`, 'a finite number', v);
  if (!Number.isFinite(v)) throw fail(RangeError, fn, `${where}.${key}`, 'a finite number', v);
  return v;
}

/** A positive integer under `key`, or undefined. */
export function countAt(fn, c, where, key) {
  const v = numberAt(fn, c, where, key);
  if (v !== undefined && !(Number.isInteger(v) && v >= 1)) throw fail(RangeError, fn, `${where}.${key}`, 'a positive integer', v);
  return v;
}

/** The first of several keys that is set (aliases such as num_attention_heads / n_head). */
export function firstCount(fn, c, where, keys) {
  for (const key of keys) {
    const v = countAt(fn, c, where, key);
    if (v !== undefined) return { value: v, key };
  }
  return { value: undefined, key: keys[0] };
}
