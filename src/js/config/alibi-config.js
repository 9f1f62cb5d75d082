// alibi-config.js: the ALiBi options of a Hugging Face config.json, read as
// each model's modeling code reads them (Press et al. 2022).
import { fail, isPlainObject } from '../core/describe.js';
import { FAMILIES, NOT_ROPE, alibiKind } from './families.js';
import { firstCount, numberAt, textModel } from './read.js';

// Where each family's head count lives, and its modeling code.
const HEADS = {
  bloom: ['n_head', 'num_attention_heads'], // BloomConfig (n_head); modeling_bloom.py build_alibi_tensor
  mpt: ['n_heads'], // MptConfig; llm-foundry / modeling_mpt.py build_mpt_alibi_tensor
  falcon: ['num_attention_heads', 'n_head'], // FalconConfig with alibi: true; modeling_falcon.py build_alibi_tensor
  baichuan: ['num_attention_heads'], // remote-code Baichuan-13B: _get_interleave (the paper's get_slopes)
};

/**
 * The options of alibiSlopes and alibiBias for a Hugging Face model with
 * ALiBi: { heads, maxBias }. BLOOM, Falcon with alibi: true and Baichuan-13B
 * use the paper's slopes (maximum bias 8); MPT reads
 * attn_config.alibi_bias_max (default 8; MosaicML's modeling code passes it,
 * transformers' port uses 8). The slope order of every one is the paper's
 * (for a head count that is no power of two too). alibiSlopes(alibiFromConfig(config))
 * gives the model's slopes; Falcon's modeling code then rounds them to
 * bfloat16, posenc keeps them exact.
 * A model without ALiBi is a TypeError naming what it uses and the function that serves it.
 * @param {object} config the parsed config.json
 * @returns {{ heads: number, maxBias: number }}
 */
export function alibiFromConfig(config) {
  const fn = 'alibiFromConfig';
  const { c, where, type } = textModel(fn, config);
  const kind = alibiKind(c, type);
  if (!kind) {
    if (type === undefined || Object.hasOwn(FAMILIES, type)) {
      throw new TypeError(`posenc.${fn}: model_type '${type ?? '(none)'}' has no ALiBi: it uses RoPE (ropeFromConfig reads its options)`);
    }
    if (Object.hasOwn(NOT_ROPE, type)) throw new TypeError(`posenc.${fn}: model_type '${type}' has no ALiBi: it uses ${NOT_ROPE[type]}`);
    throw new TypeError(`posenc.${fn}: ${where}.model_type '${type}' is not an ALiBi model posenc knows (bloom, mpt, falcon with alibi: true, baichuan 13B)`);
  }
  const { value: heads, key } = firstCount(fn, c, where, HEADS[kind]);
  if (heads === undefined) throw new TypeError(`posenc.${fn}: ${where}.${key} is required (the number of heads, one slope each)`);
  let maxBias = 8;
  if (kind === 'mpt' && c.attn_config !== undefined) {
    if (!isPlainObject(c.attn_config)) throw fail(TypeError, fn, `${where}.attn_config`, 'an object', c.attn_config);
    maxBias = numberAt(fn, c.attn_config, `${where}.attn_config`, 'alibi_bias_max') ?? 8;
    if (!(maxBias > 0)) throw fail(RangeError, fn, `${where}.attn_config.alibi_bias_max`, 'a finite number > 0', maxBias);
  }
  return { heads, maxBias };
}
