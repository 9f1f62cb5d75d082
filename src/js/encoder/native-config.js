// native-config.js: the C side of an encoder: its posenc_encoder_config
// (laid out by build/abi.js, read off include/posenc_encoder.h), the arrays
// its RoPE points at, the sizes the C works out for it, and how messages
// name the config's C fields.
import {
  activation, attention_bias, encoder_config as CONFIG, lm_head, mlp_kind, norm_kind, norm_placement, positional, query_scale, status as STATUS,
  weight_format,
} from '../../../build/abi.js';
import { cError, camel } from '../core/errors.js';
import { allocateFor, heapCall } from '../core/heap.js';
import { elementCount } from '../core/options.js';
import { wasm } from '../core/instance.js';
import { writeStruct } from '../core/struct.js';
import { ropeFields, readScaling } from '../rope-scaling.js';
import { LAYOUTS } from '../sinusoidal.js';

/** The struct's size in 8-byte words: the encoder keeps it in a float64 WasmArray. */
export const CONFIG_WORDS = Math.ceil(CONFIG.bytes / 8);

/** The read scaling of a RoPE scheme (its lists as Float64Arrays), or null. */
export const scalingOf = (p) => (p.type === 'rope' ? readScaling('createEncoder', p.scaling, p.rotaryDim, (key) => `positional.scaling.${key}`) : null);

/**
 * The arrays the config points at, which must live in wasm memory as long as
 * the config: LongRoPE's factor lists. Returns { pointers, free() }.
 */
export function configArrays(fn, c) {
  const sc = scalingOf(c.positional);
  const arrays = [];
  try {
    if (sc?.type === 'longrope') {
      for (const list of [sc.shortFactor, sc.longFactor]) {
        const a = allocateFor(fn, 'float64', Math.max(list.length, 1));
        arrays.push(a);
        a.array.set(list);
      }
    }
  } catch (error) {
    arrays.forEach((a) => a.free());
    throw error;
  }
  return { sc, arrays, pointers: (at) => arrays.map((a) => a.pointer(at)) };
}

/**
 * posenc_encoder_config's fields for a resolved config `c` (its RoPE's lists
 * at `pointers`), its matrices held in `format` ('f32', 'f16', 'bf16').
 */
function configFields(c, sc, pointers, format) {
  const p = c.positional;
  const fields = {
    vocab_size: c.vocabSize,
    d_model: c.dModel,
    heads: c.heads,
    d_ff: c.dFF,
    layers: c.layers,
    languages: c.languages,
    norm: norm_placement.indexOf(c.norm),
    activation: activation.indexOf(c.activation),
    final_norm: c.finalNorm ? 1 : 0,
    lm_head: lm_head.indexOf(c.tieEmbeddings ? 'tied' : c.lmHead ? 'own' : 'none'),
    embed_scale: c.embedScale ?? 0,
    norm_eps: c.normEps,
    positional: positional.indexOf(p.type),
    norm_kind: norm_kind.indexOf(c.normKind ?? 'layer'),
    mlp: mlp_kind.indexOf(c.mlp ?? 'plain'),
    kv_heads: c.kvHeads ?? 0,
    head_dim: c.headDim ?? 0,
    attention_bias: attention_bias.indexOf(c.attentionBias ?? 'all'),
    qk_norm: c.qkNorm ? 1 : 0,
    window: c.window ?? 0,
    weight_format: weight_format.indexOf(format),
  };
  if (p.type === 'sinusoidal') fields.sinusoidal = { base: p.base, layout: LAYOUTS.indexOf(p.layout) };
  if (p.type === 'rope') fields.rope = ropeFields(p, sc, pointers);
  if (p.type === 'alibi') fields.alibi = { max_bias: p.maxBias };
  if (p.type === 't5') fields.t5 = { num_buckets: p.numBuckets, max_distance: p.maxDistance, unidirectional: p.bidirectional ? 0 : 1 };
  if (p.type === 'learned') fields.learned = { max_length: p.maxLength };
  const q = c.queryScale;
  // attnScale 0 multiplies by 1 everywhere: no scale (C reads a zero attn_scale as its default, 0.1)
  if (q && q.type !== 'none' && !(q.type === 'llama4' && q.attnScale === 0)) {
    fields.query_scale = { type: query_scale.indexOf(q.type), floor_scale: q.floorScale ?? 0, attn_scale: q.attnScale ?? 0, beta: q.beta ?? 0, original_max_position: q.originalMaxPositionEmbeddings ?? 0 };
  }
  return fields;
}

/** Writes the config struct of `c` at the byte address ptr (format: the layout's, layout.js). */
export function writeConfig(fn, ptr, c, sc, pointers = [], format = 'f32') {
  writeStruct(wasm(fn).memory, ptr, CONFIG, configFields(c, sc, pointers, format));
}

// The options a C field of the config stands for ('d_ff' -> 'dFF', 'base' ->
// 'positional.base'): the positional scheme's settings are positional's.
const TOP = { d_ff: 'dFF', lm_head: 'lmHead', seq: 'tokens.length', max_length: 'maxLength' };
const POSITIONAL_FIELDS = ['base', 'layout', 'rotary_dim', 'precision', 'max_bias', 'num_buckets', 'max_distance', 'd_model_layout'];

/** How errors name a config's C fields, and what the caller gave (context of heapCall and cError). */
export function configContext(c) {
  const label = (cName) => {
    const name = cName.replace(/^\w+->/, '').replace(/^rope\./, '');
    if (Object.hasOwn(TOP, name)) return TOP[name];
    if (name === 'head_dim') return c.headDim === undefined ? 'headDim = dModel / heads' : 'headDim';
    if (name.startsWith('scaling')) return `positional.${camel(name)}`;
    if (name.startsWith('learned.') || name.startsWith('t5.')) return `positional.${camel(name.split('.')[1])}`;
    if (name === 'query_scale.original_max_position') return 'queryScale.originalMaxPositionEmbeddings';
    if (name.startsWith('query_scale')) return camel(name).replace(/^queryScale\.type$/, 'queryScale');
    if (POSITIONAL_FIELDS.includes(name)) return `positional.${camel(name)}`;
    return camel(name);
  };
  const given = (name) => {
    const path = name.split('.');
    let v = c;
    for (const key of path) v = v !== null && typeof v === 'object' && Object.hasOwn(v, key) ? v[key] : undefined;
    return typeof v === 'number' ? v : undefined;
  };
  return { label, given };
}

/**
 * Checks the config in C (posenc_encoder_sizes: every rule of
 * posenc_encoder_config) and returns { params } floats; errors name the options.
 */
export function checkConfig(fn, c) {
  const { exports } = wasm(fn);
  const { sc, arrays, pointers } = configArrays(fn, c);
  const sizes = new Uint32Array(2);
  try {
    heapCall(fn, [
      { array: new Float64Array(CONFIG_WORDS), type: 'float64', length: CONFIG_WORDS },
      { array: sizes, type: 'int32', length: 2, copyOut: true },
    ], (pConfig, pSizes) => {
      writeConfig(fn, pConfig, c, sc, pointers(fn));
      return exports.posenc_encoder_sizes(pConfig, 0, pSizes, pSizes + 4);
    }, { ...configContext(c), tolerate: STATUS.ERR_SIZE_OVERFLOW }); // past size_t: layout.js names the tensor
  } finally {
    arrays.forEach((a) => a.free());
  }
  return { params: sizes[0] };
}

/**
 * posenc_encoder_sizes for the config at configPtr and seq tokens:
 * { params, work } floats, with `sizes` two words of scratch at sizesPtr;
 * errors named by `context` (configContext's).
 */
export function nativeSizes(fn, configPtr, sizesPtr, seq, context) {
  const instance = wasm(fn);
  const { exports, memory } = instance;
  const status = exports.posenc_encoder_sizes(configPtr, seq, sizesPtr, sizesPtr + 4);
  if (status === STATUS.ERR_SIZE_OVERFLOW) {
    throw new RangeError(`posenc.${fn}: the workspace for tokens.length = ${seq} does not fit in wasm32's size_t (it grows as seq * seq * heads)`);
  }
  if (status !== STATUS.OK) throw cError(fn, instance, status, context);
  const [params, work] = new Uint32Array(memory.buffer, sizesPtr, 2);
  return { params, work: elementCount(fn, { workspace: work }) };
}
