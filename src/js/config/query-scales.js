// query-scales.js: the per-position multipliers some models put on their
// queries, read from a Hugging Face config.json with ropeFromConfig's reading
// (the same text model, rope dict, keys in the same order, the same layer):
// - Llama 4's attention temperature tuning on its NoPE layers
//   (modeling_llama4.py Llama4TextAttention: with attn_temperature_tuning,
//   q *= log(floor((p + 1) / floor_scale) + 1) * attn_scale + 1, p the cache
//   position, floor_scale 8192 and attn_scale 0.1 by default);
// - Ministral 3's llama_4_scaling_beta on every layer
//   (modeling_ministral3.py _get_llama_4_attn_scale: q *= 1 + beta log(1 +
//   floor(p / original)), beta and original from the rope dict).
// Every other model scales nothing by position: ones. Computed in double and
// rounded once to float32.
import { fail } from '../core/describe.js';
import { INT32_MAX, checkLength, elementCount, integer, readOptions, typedArray } from '../core/options.js';
import { countOf, WasmArray } from '../core/heap.js';
import { configSpec, pickLayer, servedModel } from './rope-config.js';
import { layerCount } from './layers.js';
import { numberAt, value } from './read.js';
import { ropeDict } from './rope-dict.js';

export const spec = {
  ...configSpec,
  length: integer(0, INT32_MAX, { optional: true }),
  offset: integer(0, INT32_MAX, { optional: true }),
  positions: typedArray('int32', { optional: true }),
};

/** The query multiplier of position p, or null where none applies, for one layer of a model. */
function scaleOf(fn, m, layer) {
  const f = m.family;
  if (f.queryScale === 'llama4') {
    if (layer.rope) return null; // the temperature tuning is on the NoPE layers only
    const tuning = value(fn, m.c, m.where, 'attn_temperature_tuning');
    if (tuning === false || tuning === 0) return null;
    const floorScale = numberAt(fn, m.c, m.where, 'floor_scale') ?? 8192;
    const attnScale = numberAt(fn, m.c, m.where, 'attn_scale') ?? 0.1;
    if (!(floorScale > 0)) throw fail(RangeError, fn, `${m.where}.floor_scale`, 'a finite number > 0', floorScale);
    return (p) => Math.log(Math.floor((p + 1) / floorScale) + 1) * attnScale + 1;
  }
  if (f.queryScale === 'ministral3' && layer.rope) {
    const r = ropeDict(fn, m, layer.type, undefined);
    const beta = numberAt(fn, r.d, r.at, 'llama_4_scaling_beta');
    const original = numberAt(fn, r.d, r.at, 'original_max_position_embeddings');
    if (beta === undefined || original === undefined) {
      throw new TypeError(`posenc.${fn}: ${r.at}.${beta === undefined ? 'llama_4_scaling_beta' : 'original_max_position_embeddings'} is required: transformers' Ministral3Attention multiplies every query by 1 + beta log(1 + floor(p / original)) and fails without it`);
    }
    if (!(original > 0)) throw fail(RangeError, fn, `${r.at}.original_max_position_embeddings`, 'a number > 0 (positions are divided by it)', original);
    return (p) => 1 + beta * Math.log(1 + Math.floor(p / original));
  }
  return null;
}

/**
 * The per-position query multipliers of one layer of a Hugging Face model:
 * a Float32Array with one value per position, ones where the model scales
 * nothing. Positions are options.positions (Int32Array, >= 0: the tokens'
 * absolute positions) or offset, offset + 1, ... (length of them).
 * options.layer / layerType pick the layer as in ropeFromConfig (an unknown
 * layer type or a layer past num_hidden_layers is an error); with neither, the
 * default rotary layer. A model ropeFromConfig does not serve is its error.
 * @param {object} config the parsed config.json
 * @param {{ layer?: number, layerType?: string, length?: number, offset?: number, positions?: Int32Array }} options
 * @returns {Float32Array}
 */
export function queryScalesFromConfig(config, options) {
  const fn = 'queryScalesFromConfig';
  const o = readOptions(fn, options, spec);
  if ((o.positions === undefined) === (o.length === undefined)) {
    throw new TypeError(`posenc.${fn}: options.length (with offset, default 0) or options.positions is required, exactly one of them`);
  }
  if (o.positions !== undefined && o.offset !== undefined) throw new TypeError(`posenc.${fn}: offset goes with length, not positions (positions are absolute)`);
  const n = o.positions !== undefined ? countOf(o.positions) : o.length;
  if (o.positions !== undefined) checkLength(fn, 'positions', o.positions, n);
  elementCount(fn, { length: n });
  const offset = o.offset ?? 0;
  if (n > 0 && offset + n - 1 > INT32_MAX) throw new RangeError(`posenc.${fn}: offset + length - 1 must be at most ${INT32_MAX}, got ${offset + n - 1}`);
  const m = servedModel(fn, config);
  layerCount(fn, m);
  const layer = pickLayer(fn, m, o, true); // a model whose flags turn RoPE off scales nothing either
  const scale = scaleOf(fn, m, layer);
  const positions = o.positions === undefined ? null : WasmArray.isBranded(o.positions) ? o.positions.array : o.positions;
  if (positions) {
    for (let i = 0; i < n; i++) if (positions[i] < 0) throw fail(RangeError, fn, `positions[${i}]`, `a position from 0 to ${INT32_MAX}`, positions[i]);
  }
  const out = new Float32Array(n);
  if (!scale) return out.fill(1);
  for (let i = 0; i < n; i++) {
    const p = positions ? positions[i] : offset + i;
    const s = scale(p);
    // checked as returned, in float32: a double past 3.4e38 is Infinity there, one under 1.4e-45 is 0
    const f = Math.fround(s);
    if (!(Number.isFinite(f) && f > 0)) {
      throw new RangeError(`posenc.${fn}: the query scale at position ${p} is ${s}${f !== s ? ` (${f} in float32)` : ''}, not a finite number > 0 (the config's scale parameters give a multiplier the encoder refuses)`);
    }
    out[i] = f;
  }
  return out;
}
