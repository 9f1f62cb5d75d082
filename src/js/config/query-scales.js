// query-scales.js: the per-position multipliers some models put on their
// queries, read from a Hugging Face config.json:
// - Llama 4's attention temperature tuning on its NoPE layers
//   (modeling_llama4.py Llama4TextAttention: with attn_temperature_tuning,
//   q *= log(floor((p + 1) / floor_scale) + 1) * attn_scale + 1, p the cache
//   position, floor_scale 8192 and attn_scale 0.1 by default);
// - Ministral 3's llama_4_scaling_beta on every layer
//   (modeling_ministral3.py: q *= 1 + beta log(1 + floor(p / original)),
//   original = rope_parameters.original_max_position_embeddings).
// Computed in double and rounded once to float32 (transformers computes them
// in float32: within an ulp or two of these).
import { fail, isPlainObject } from '../core/describe.js';
import { INT32_MAX, checkLength, integer, readOptions, typedArray } from '../core/options.js';
import { countOf, WasmArray } from '../core/heap.js';
import { FAMILIES, NOT_ROPE } from './families.js';
import { ropeLayers } from './layers.js';
import { firstCount, numberAt, textModel } from './read.js';

export const spec = {
  layer: integer(0, INT32_MAX, { optional: true }),
  layerType: {
    optional: true,
    check(fn, name, v) {
      if (typeof v !== 'string') throw fail(TypeError, fn, name, 'a layer type of the config', v);
      return v;
    },
  },
  length: integer(0, INT32_MAX, { optional: true }),
  offset: integer(0, INT32_MAX, { optional: true }),
  positions: typedArray('int32', { optional: true }),
};

/** The query multiplier of position p, or null where none applies, for one layer of a model. */
function scaleOf(fn, c, where, type, o) {
  const family = FAMILIES[type];
  if (family?.queryScale === 'llama4') {
    if (c.attn_temperature_tuning === false || c.attn_temperature_tuning === 0) return null;
    const { value: layers } = firstCount(fn, c, where, ['num_hidden_layers']);
    const noRope = o.layer !== undefined
      ? (() => {
        if (layers === undefined) throw new TypeError(`posenc.${fn}: ${where}.num_hidden_layers is required with options.layer`);
        if (o.layer >= layers) throw new RangeError(`posenc.${fn}: options.layer must be an integer from 0 to ${layers - 1} (${where}.num_hidden_layers = ${layers}), got ${o.layer}`);
        return !ropeLayers(fn, c, where, layers)[o.layer];
      })()
      : o.layerType === 'full_attention'; // Llama4TextConfig: full_attention marks the NoPE layers
    if (!noRope) return null;
    const floorScale = numberAt(fn, c, where, 'floor_scale') ?? 8192;
    const attnScale = numberAt(fn, c, where, 'attn_scale') ?? 0.1;
    if (!(floorScale > 0)) throw fail(RangeError, fn, `${where}.floor_scale`, 'a finite number > 0', floorScale);
    return (p) => Math.log(Math.floor((p + 1) / floorScale) + 1) * attnScale + 1;
  }
  if (family?.queryScale === 'ministral3') {
    const dict = [c.rope_parameters, c.rope_scaling].find(isPlainObject) ?? {};
    const dictWhere = isPlainObject(c.rope_parameters) ? `${where}.rope_parameters` : `${where}.rope_scaling`;
    const beta = numberAt(fn, dict, dictWhere, 'llama_4_scaling_beta');
    if (beta === undefined) return null;
    const original = numberAt(fn, dict, dictWhere, 'original_max_position_embeddings');
    if (!(original >= 1)) throw fail(RangeError, fn, `${dictWhere}.original_max_position_embeddings`, 'a number >= 1 (llama_4_scaling_beta divides positions by it)', original);
    return (p) => 1 + beta * Math.log(1 + Math.floor(p / original));
  }
  if (type !== undefined && !family && !Object.hasOwn(NOT_ROPE, type) && !['bloom', 'mpt', 'falcon', 'baichuan'].includes(type)) {
    throw new TypeError(`posenc.${fn}: ${where}.model_type '${type}' is not a model posenc knows: it cannot tell whether its queries are scaled`);
  }
  return null;
}

/**
 * The per-position query multipliers of one layer of a Hugging Face model:
 * a Float32Array with one value per position, ones where the model scales
 * nothing (Llama 4's RoPE layers, every other model). Positions are
 * options.positions (Int32Array, >= 0: the tokens' absolute positions) or
 * offset, offset + 1, ... (length of them). options.layer / layerType pick
 * the layer as in ropeFromConfig; with neither, the default rotary layer.
 * @param {object} config the parsed config.json
 * @param {{ layer?: number, layerType?: string, length?: number, offset?: number, positions?: Int32Array }} options
 * @returns {Float32Array}
 */
export function queryScalesFromConfig(config, options) {
  const fn = 'queryScalesFromConfig';
  const o = readOptions(fn, options, spec);
  const { c, where, type } = textModel(fn, config);
  if (o.layer !== undefined && o.layerType !== undefined) throw new TypeError(`posenc.${fn}: give options.layer or options.layerType, not both`);
  if ((o.positions === undefined) === (o.length === undefined)) {
    throw new TypeError(`posenc.${fn}: options.length (with offset, default 0) or options.positions is required, exactly one of them`);
  }
  if (o.positions !== undefined && o.offset !== undefined) throw new TypeError(`posenc.${fn}: offset goes with length, not positions (positions are absolute)`);
  const n = o.positions !== undefined ? countOf(o.positions) : o.length;
  if (o.positions !== undefined) checkLength(fn, 'positions', o.positions, n);
  const offset = o.offset ?? 0;
  if (n > 0 && offset + n - 1 > INT32_MAX) throw new RangeError(`posenc.${fn}: offset + length - 1 must be at most ${INT32_MAX}, got ${offset + n - 1}`);
  const positions = o.positions === undefined ? null : WasmArray.isBranded(o.positions) ? o.positions.array : o.positions;
  const scale = scaleOf(fn, c, where, type, o);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const p = positions ? positions[i] : offset + i;
    if (positions && p < 0) throw fail(RangeError, fn, `positions[${i}]`, `a position from 0 to ${INT32_MAX}`, p);
    out[i] = scale ? scale(p) : 1;
  }
  return out;
}

