// alibi-config.js: the ALiBi options of a Hugging Face config.json, read as
// each model's modeling code reads them (Press et al. 2022).
import { fail } from '../core/describe.js';
import { familyOf, textModel } from './model.js';
import { notRope } from './not-rope.js';
import { checkConfig, firstCount, numberAt, objectAt, quote, value } from './read.js';

// Where each family's head count lives, and its modeling code.
const HEADS = {
  bloom: ['n_head', 'num_attention_heads'], // BloomConfig (n_head); modeling_bloom.py build_alibi_tensor
  mpt: ['n_heads'], // MptConfig; llm-foundry / modeling_mpt.py build_mpt_alibi_tensor
  falcon: ['num_attention_heads', 'n_head'], // FalconConfig with alibi: true; modeling_falcon.py build_alibi_tensor
  baichuan: ['num_attention_heads'], // remote-code Baichuan-13B: _get_interleave (the paper's get_slopes)
};

const SOURCES = {
  bloom: "BLOOM's build_alibi_tensor", mpt: "MPT's build_mpt_alibi_tensor", falcon: 'Falcon with alibi: true', baichuan: "Baichuan-13B's _get_interleave",
};

/**
 * Which ALiBi a model uses, named by its source ("BLOOM's build_alibi_tensor"),
 * or null: the family-specific flags.
 */
export function alibiKind(fn, m) {
  return alibiFamily(fn, m) ? SOURCES[alibiFamily(fn, m)] : null;
}

function alibiFamily(fn, m) {
  const { c, where, type } = m;
  if (type === 'bloom') return type;
  // MptConfig.attn_config.alibi (default true); without it MPT learns absolute positions
  if (type === 'mpt') return value(fn, objectAt(fn, c, where, 'attn_config') ?? {}, `${where}.attn_config`, 'alibi') === false ? null : type;
  if (type === 'falcon' && value(fn, c, where, 'alibi') === true) return type; // FalconConfig.alibi: rotary = not alibi
  // remote-code Baichuan: the 13B models use ALiBi, the 7B ones RoPE; nothing in the
  // config says which but the width (the 7B models are 4096 wide), as vLLM and MLC read it
  if (type === 'baichuan' && value(fn, c, where, 'hidden_size') !== 4096) return type;
  return null;
}

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
  checkConfig(fn, config);
  const m = textModel(fn, config);
  const kind = alibiFamily(fn, m);
  if (!kind) {
    if (m.type === undefined || familyOf(m.type)) {
      throw new TypeError(`posenc.${fn}: model_type ${quote(m.type ?? '(none)')} has no ALiBi: it uses RoPE (ropeFromConfig reads its options)`);
    }
    throw new TypeError(notRope(fn, m).message.replace('has no RoPE posenc reads', 'has no ALiBi'));
  }
  const { value: heads, key } = firstCount(fn, m.c, m.where, HEADS[kind]);
  if (heads === undefined) throw new TypeError(`posenc.${fn}: ${m.where}.${key} is required (the number of heads, one slope each)`);
  let maxBias = 8;
  if (kind === 'mpt') {
    const attn = objectAt(fn, m.c, m.where, 'attn_config');
    maxBias = (attn && numberAt(fn, attn, `${m.where}.attn_config`, 'alibi_bias_max')) ?? 8;
    if (!(maxBias > 0)) throw fail(RangeError, fn, `${m.where}.attn_config.alibi_bias_max`, 'a finite number > 0', maxBias);
  }
  return { heads, maxBias };
}
