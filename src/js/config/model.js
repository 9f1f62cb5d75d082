// model.js: the text model of a Hugging Face config.json, as transformers'
// configuration classes find it (get_text_config): a composite config's text
// config (text_config, decoder_config, decoder, ...), the model_type it is read
// as, and that model's family record (families.js).
import { fail } from '../core/describe.js';
import { COMPOSITES, FAMILIES, FLAT_DECODERS } from './families.js';
import { keysOf, objectAt, own, quote, stringAt } from './read.js';

/** The text config as transformers builds it: the composite's defaults under the file's own keys. */
function overlay(fn, defaults, given, where) {
  const out = Object.assign(Object.create(null), defaults);
  if (given) for (const k of keysOf(fn, given, where)) out[k] = own(fn, given, where, k);
  return out;
}

/** Composites that, with no text config, read their text model from the top-level keys (older hub files). */
const FLAT_WHEN_ABSENT = new Set(['qwen2_vl', 'qwen2_5_vl', 'paddleocr_vl', 'glm4v', 'glm4v_moe', 'glm_image', 'glm_ocr', 'ernie4_5_vl_moe']);

/** The family record of a model_type, or undefined (own entries only). */
export const familyOf = (type) => (typeof type === 'string' && Object.hasOwn(FAMILIES, type) ? FAMILIES[type] : undefined);

/**
 * { c, where, type, top } for a config: c the object holding the text model's
 * keys (a prototype-free empty object where the file leaves the text config
 * out: every key then takes its class default), where how messages name it,
 * type the model_type it is read as (undefined when the file names none), top
 * the file's own model_type.
 */
export function textModel(fn, config) {
  const top = stringAt(fn, config, 'config', 'model_type');
  const composite = top !== undefined && Object.hasOwn(COMPOSITES, top) ? COMPOSITES[top] : undefined;
  if (composite) {
    if (composite.key === '') return { c: config, where: 'config', type: composite.text, top };
    let node = config;
    let where = 'config';
    for (const part of composite.key.split('.')) {
      const next = objectAt(fn, node, where, part);
      if (next === undefined) {
        const flat = FLAT_WHEN_ABSENT.has(top) && node === config;
        const defaults = { ...composite.absent, ...composite.merged };
        return { c: flat ? config : overlay(fn, defaults), where: flat ? 'config' : `${where}.${part}`, type: composite.text, top };
      }
      node = next;
      where = `${where}.${part}`;
    }
    const named = stringAt(fn, node, where, 'model_type');
    const c = composite.merged ? overlay(fn, composite.merged, node, where) : node;
    return { c, where, type: composite.fixed ? composite.text : named ?? composite.text, top };
  }
  if (top !== undefined && Object.hasOwn(FLAT_DECODERS, top)) return { c: config, where: 'config', type: FLAT_DECODERS[top], top };
  // a config transformers does not know (remote code) that nests a text_config
  if (!familyOf(top)) {
    const text = objectAt(fn, config, 'config', 'text_config');
    if (text !== undefined) {
      const named = stringAt(fn, text, 'config.text_config', 'model_type');
      return { c: text, where: 'config.text_config', type: named ?? top, top };
    }
  }
  return { c: config, where: 'config', type: top, top };
}

/** The keys a config sets (for messages about keys only some families read). */
export const setKeys = (fn, c, where) => keysOf(fn, c, where).filter((k) => own(fn, c, where, k) !== null);

/** A model_type value for a message. */
export const typeName = (type) => (type === undefined ? '(none)' : quote(type));

export { fail };
