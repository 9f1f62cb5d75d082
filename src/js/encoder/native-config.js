// native-config.js: the C side of an encoder: its posenc_encoder_config
// (laid out by build/abi.js, read off include/posenc.h) and the sizes the C
// works out for it.
import {
  activation, encoder_config as CONFIG, lm_head, norm_placement, positional, query_scale, rope_layout, rope_precision, status as STATUS,
} from '../../../build/abi.js';
import { elementCount } from '../core/options.js';
import { wasm } from '../core/instance.js';
import { writeStruct } from '../core/struct.js';
import { LAYOUTS } from '../sinusoidal.js';

/** The struct's size in 8-byte words: the encoder keeps it in a float64 WasmArray. */
export const CONFIG_WORDS = Math.ceil(CONFIG.bytes / 8);

/**
 * posenc_encoder_config's fields for a resolved config `c` and its RoPE
 * frequencies `rope` ({ pointer, attentionFactor } or null); fields of the
 * other schemes stay zero.
 */
function configFields(c, rope) {
  const p = c.positional;
  const fields = {
    vocab_size: c.vocabSize,
    d_model: c.dModel,
    heads: c.heads,
    d_ff: c.dFF,
    layers: c.layers,
    languages: c.languages,
    positional: positional.indexOf(p.type),
    norm: norm_placement.indexOf(c.norm),
    activation: activation.indexOf(c.activation),
    final_norm: c.finalNorm ? 1 : 0,
    embed_scale: c.embedScale,
    norm_eps: c.normEps,
    lm_head: lm_head.indexOf(c.tieEmbeddings ? 'tied' : c.lmHead ? 'own' : 'none'),
  };
  if (p.type === 'sinusoidal') Object.assign(fields, { sinusoidal_base: p.base, sinusoidal_layout: LAYOUTS.indexOf(p.layout) });
  if (p.type === 'rope') {
    Object.assign(fields, {
      rope_layout: rope_layout.indexOf(p.layout),
      rotary_dim: p.rotaryDim,
      rope_precision: rope_precision.indexOf(p.precision),
      rope_inv_freq: rope.pointer,
      rope_attention_factor: rope.attentionFactor,
    });
  }
  if (p.type === 'alibi') fields.alibi_max_bias = p.maxBias;
  if (p.type === 't5') Object.assign(fields, { t5_num_buckets: p.numBuckets, t5_max_distance: p.maxDistance, t5_unidirectional: p.bidirectional ? 0 : 1 });
  if (p.type === 'learned') fields.max_length = p.maxLength;
  const q = c.queryScale;
  // attnScale 0 multiplies by 1 everywhere: no scale (the C reads a zero attn_scale as its default, 0.1)
  if (q?.type === 'llama4' && q.attnScale !== 0) Object.assign(fields, { query_scale: query_scale.indexOf('llama4'), query_floor_scale: q.floorScale, query_attn_scale: q.attnScale });
  if (q?.type === 'ministral3') {
    Object.assign(fields, { query_scale: query_scale.indexOf('ministral3'), query_beta: q.beta, query_original_max_position: q.originalMaxPositionEmbeddings });
  }
  return fields;
}

/** Writes the config struct of `c` at the byte address ptr. */
export function writeConfig(fn, ptr, c, rope) {
  writeStruct(wasm(fn).memory, ptr, CONFIG, configFields(c, rope));
}

/**
 * posenc_encoder_sizes for the config at configPtr and seq tokens:
 * { params, work } floats, with `sizes` two words of scratch at sizesPtr.
 */
export function nativeSizes(fn, configPtr, sizesPtr, seq) {
  const { exports, memory } = wasm(fn);
  const status = exports.posenc_encoder_sizes(configPtr, seq, sizesPtr, sizesPtr + 4);
  if (status === STATUS.ERR_SIZE_OVERFLOW) {
    throw new RangeError(`posenc.${fn}: the workspace for tokens.length = ${seq} does not fit in wasm32's size_t (it grows as seq * seq * heads)`);
  }
  if (status !== STATUS.OK) throw new Error(`posenc.${fn}: internal error ${status} from posenc_encoder_sizes`);
  const [params, work] = new Uint32Array(memory.buffer, sizesPtr, 2);
  return { params, work: elementCount(fn, { workspace: work }) };
}
