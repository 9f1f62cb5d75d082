// families.js: what transformers fills in for the position keys a hub
// config.json leaves out, and how each model family's modeling code uses
// them, per model_type. Every default is its configuration class's (HF
// transformers models/<family>/configuration_<family>.py, main in 2026; the
// 4.57 defaults where they differ are noted) and every layout its modeling
// file's (models/<family>/modeling_<family>.py).
//
// A family entry:
//   theta     the class default of rope_theta (10000 when absent)
//   layout    how the modeling code pairs features: 'half' (rotate_half, pairs
//             (k, k + r/2)) or 'interleaved' (pairs (2k, 2k + 1))
//   headDim   the class default of head_dim, when the config leaves it out
//             (else hidden_size / num_attention_heads)
//   partial   the class default of partial_rotary_factor
//   maxPos    the class default of max_position_embeddings
//   read      a function for keys of the family's own (see families below)

/** Text model types inside a composite config, when its text_config names none. */
export const TEXT_MODEL_TYPE = {
  llama4: 'llama4_text', // Llama4Config.text_config: Llama4TextConfig
  gemma3: 'gemma3_text', // Gemma3Config.text_config: Gemma3TextConfig
  qwen2_vl: 'qwen2_vl_text', // Qwen2VLConfig: Qwen2VLTextConfig
  qwen2_5_vl: 'qwen2_5_vl_text',
  qwen3_vl: 'qwen3_vl_text',
  qwen3_vl_moe: 'qwen3_vl_moe_text',
  mistral3: 'mistral', // Mistral3Config: CONFIG_MAPPING[text_config.model_type or 'mistral']
  llava: 'llama', // LlavaConfig: CONFIG_MAPPING[text_config.model_type or 'llama']
};

// Qwen2-VL and Qwen2.5-VL configs of the older layout keep the text keys at
// the top level (Qwen2VLConfig.__post_init__ moves them into its text config).
export const TOP_LEVEL_TEXT = { qwen2_vl: 'qwen2_vl_text', qwen2_5_vl: 'qwen2_5_vl_text' };

const half = (extra = {}) => ({ layout: 'half', ...extra });
const interleaved = (extra = {}) => ({ layout: 'interleaved', ...extra });

/** The RoPE model types posenc knows. */
export const FAMILIES = {
  llama: half({ maxPos: 2048 }),
  mistral: half({ maxPos: 131072 }), // MistralConfig: sliding_window is a mask only
  ministral: half({ maxPos: 32768 }),
  // Ministral3Config: rope_parameters default yarn (factor 16, original 16384,
  // mscale = mscale_all_dim = 1) with llama_4_scaling_beta 0.1 (query scales)
  ministral3: half({ theta: 1e6, headDim: 128, maxPos: 262144, queryScale: 'ministral3' }),
  mixtral: half({ theta: 1e6, maxPos: 131072 }),
  qwen2: half({ maxPos: 32768 }),
  qwen2_moe: half({ maxPos: 32768 }),
  qwen3: half({ headDim: 128, maxPos: 32768 }),
  qwen3_moe: half({ headDim: 128, maxPos: 32768 }),
  // Qwen2VLTextConfig: rope_scaling { type: 'mrope', mrope_section } reads as 'default'
  qwen2_vl_text: half({ theta: 1e6, maxPos: 32768, mrope: 'sectioned' }),
  qwen2_5_vl_text: half({ theta: 1e6, maxPos: 32768, mrope: 'sectioned' }),
  // Qwen3VLTextConfig (theta 5e5; 5e6 in 4.57): Qwen3VLTextRotaryEmbedding always
  // interleaves (apply_interleaved_mrope), mrope_section default [24, 20, 20]
  qwen3_vl_text: half({ theta: 5e5, headDim: 128, maxPos: 128000, mrope: 'interleaved', mropeSection: [24, 20, 20] }),
  qwen3_vl_moe_text: half({ theta: 5e5, headDim: 128, maxPos: 128000, mrope: 'interleaved', mropeSection: [24, 20, 20] }),
  gemma: half({ headDim: 256, maxPos: 8192 }),
  gemma2: half({ headDim: 256, maxPos: 8192, layerTypes: 'gemma2' }), // one rotary embedding for every layer
  // Gemma3TextConfig: global (full_attention) layers at rope_theta (default 1e6),
  // local (sliding_attention) layers at rope_local_base_freq (default 1e4)
  gemma3_text: half({ headDim: 256, maxPos: 131072, layerTypes: 'gemma3', bases: { full_attention: ['rope_theta', 1e6], sliding_attention: ['rope_local_base_freq', 1e4] } }),
  // Phi3Config: partial_rotary_factor 1, original_max_position_embeddings 4096
  // (always an attribute: it overrides the rope dict's), 'su' and 'yarn' read as 'longrope'
  phi3: half({ maxPos: 4096, originalMax: 4096, aliases: { su: 'longrope', yarn: 'longrope' } }),
  phimoe: half({ maxPos: 131072, aliases: { su: 'longrope', yarn: 'longrope' } }),
  phi: half({ partial: 0.5, maxPos: 2048 }),
  persimmon: half({ partial: 0.5, maxPos: 16384 }),
  stablelm: half({ partial: 0.25, maxPos: 4096 }),
  // GPTNeoXConfig: the base is rotary_emb_base and the share rotary_pct (default 0.25)
  gpt_neox: half({ partial: 0.25, maxPos: 2048, thetaKey: 'rotary_emb_base', partialKey: 'rotary_pct' }),
  falcon: half({ maxPos: 2048 }), // FalconConfig: RoPE unless alibi
  starcoder2: half({ maxPos: 4096 }),
  olmo: half({ maxPos: 2048 }),
  olmo2: half({ theta: 1e4, maxPos: 2048 }),
  olmoe: half({ maxPos: 4096 }),
  granite: half({ maxPos: 2048 }),
  granitemoe: half({ maxPos: 2048 }),
  nemotron: half({ partial: 0.5, maxPos: 4096 }),
  internlm2: half({ maxPos: 2048 }), // remote code; rotate_half
  baichuan: half({ maxPos: 4096 }), // the 7B models (the 13B use ALiBi: see noRope)
  minicpm: half({ maxPos: 2048 }),
  smollm3: half({ theta: 2e6, maxPos: 32768, noRopeLayers: true }), // SmolLM3Config: no_rope_layers, interval 4
  // GptOssConfig: rope_parameters default yarn (factor 32, original 4096, truncate false)
  gpt_oss: half({ theta: 150000, headDim: 64, maxPos: 131072 }),
  // ModernBertConfig: global layers at global_rope_theta (160000), local at
  // local_rope_theta (10000); layer i is global when i % global_attn_every_n_layers == 0
  modernbert: half({ maxPos: 8192, layerTypes: 'modernbert', bases: { full_attention: ['global_rope_theta', 160000], sliding_attention: ['local_rope_theta', 1e4] }, scalingEveryType: true }),
  // GPTJConfig: rotary_dim (default 64) of each head, base 10000 in the code (rotate_every_two)
  gptj: interleaved({ maxPos: 2048, fixedTheta: 1e4, rotaryDimKey: 'rotary_dim', rotaryDimDefault: 64 }),
  codegen: interleaved({ maxPos: 2048, fixedTheta: 1e4, rotaryDimKey: 'rotary_dim', rotaryDimDefault: 64 }),
  // CohereConfig (theta 5e5; 1e4 in 4.57): repeat_interleave(freqs, 2) with rotate_half on ::2
  cohere: interleaved({ theta: 5e5, maxPos: 8192 }),
  // Cohere2Config: head_dim = hidden_size / heads; RoPE only on sliding layers (pattern 4)
  cohere2: interleaved({ theta: 5e5, maxPos: 8192, layerTypes: 'cohere2', ropeOn: 'sliding_attention', headDimFromWidth: true }),
  // GlmConfig / Glm4Config: partial 0.5, rotate_half on ::2 with repeat_interleave(cos)
  glm: interleaved({ headDim: 128, partial: 0.5, maxPos: 131072 }),
  glm4: interleaved({ headDim: 128, partial: 0.5, maxPos: 131072 }),
  // remote-code ChatGLM2/3, GLM-4: RotaryEmbedding(kv_channels // 2), base 10000 * rope_ratio
  chatglm: interleaved({ maxPos: 8192, chatglm: true }),
  // DeepseekV2Config / V3: RoPE on the qk_rope_head_dim (64) features of each head;
  // V2 rotates complex pairs, V3 (rope_interleave) reads pairs (2k, 2k + 1) too
  deepseek_v2: interleaved({ maxPos: 2048, ropeHeadDim: 'qk_rope_head_dim' }),
  deepseek_v3: interleaved({ maxPos: 4096, ropeHeadDim: 'qk_rope_head_dim' }),
  // Llama4TextConfig: complex-pair rotation; no_rope_layers (1 = RoPE) with NoPE
  // every 4th layer by default, attention temperature tuning on those
  llama4_text: interleaved({ theta: 5e5, headDim: 128, maxPos: 131072, layerTypes: 'llama4', ropeOn: 'chunked_attention', noRopeLayers: true, queryScale: 'llama4' }),
};

/**
 * A config.json without model_type (written by hand): read as a Llama-style
 * model (half layout, rope_theta default 10000, head_dim or hidden_size /
 * num_attention_heads, partial_rotary_factor), with no class default beyond
 * those. A key only some families read is an error there (FAMILY_KEYS): the
 * file must say which model it is.
 */
export const GENERIC = half({ theta: 1e4 });

/** Keys only some families read, and which. */
export const FAMILY_KEYS = {
  qk_rope_head_dim: "'deepseek_v2' or 'deepseek_v3'",
  rotary_dim: "'gptj' or 'codegen'",
  rotary_pct: "'gpt_neox'",
  rotary_emb_base: "'gpt_neox'",
  kv_channels: "'chatglm'",
  rope_ratio: "'chatglm'",
  rope_local_base_freq: "'gemma3_text'",
  global_rope_theta: "'modernbert'",
  local_rope_theta: "'modernbert'",
  no_rope_layers: "'llama4_text' or 'smollm3'",
  attn_temperature_tuning: "'llama4_text'",
};

/**
 * Model types whose positions are not RoPE: what they use, and the posenc
 * function that serves it.
 */
export const NOT_ROPE = {
  mpt: "learned absolute position embeddings (its attn_config.alibi is false; posenc/encoder: positional { type: 'learned' })",
  t5: "T5's relative position buckets: t5Buckets and t5Bias (relative_attention_num_buckets, relative_attention_max_distance)",
  mt5: "T5's relative position buckets: t5Buckets and t5Bias",
  umt5: "T5's relative position buckets: t5Buckets and t5Bias",
  longt5: "T5's relative position buckets: t5Buckets and t5Bias",
  switch_transformers: "T5's relative position buckets: t5Buckets and t5Bias",
  'deberta-v2': "DeBERTa's log buckets of relative positions: debertaBuckets",
  deberta: "DeBERTa's relative positions: relativePositions",
  'transfo-xl': "Transformer-XL's sinusoidal relative embedding: transformerXLEmbedding",
  bert: 'learned absolute position embeddings, weights of the checkpoint (posenc/encoder: positional { type: \'learned\' })',
  roberta: 'learned absolute position embeddings (posenc/encoder: positional { type: \'learned\' })',
  'xlm-roberta': 'learned absolute position embeddings (posenc/encoder: positional { type: \'learned\' })',
  distilbert: 'learned absolute position embeddings (posenc/encoder: positional { type: \'learned\' })',
  electra: 'learned absolute position embeddings (posenc/encoder: positional { type: \'learned\' })',
  gpt2: 'learned absolute position embeddings, wpe (posenc/encoder: positional { type: \'learned\' })',
  gpt_bigcode: 'learned absolute position embeddings, wpe (posenc/encoder: positional { type: \'learned\' })',
  opt: 'learned absolute position embeddings (posenc/encoder: positional { type: \'learned\' })',
  bart: 'learned absolute position embeddings (posenc/encoder: positional { type: \'learned\' })',
  vit: 'learned absolute position embeddings of the patches (a fixed table: sinusoidal2d for MAE and DiT)',
  whisper: 'sinusoidal encoder positions and learned decoder positions (sinusoidal, concatenated layout)',
  marian: "sinusoidal positions (sinusoidal, layout 'concatenated')",
  mamba: 'no positions (a state-space model)',
};

/** Which ALiBi a model uses ('bloom', 'mpt', 'falcon', 'baichuan'), or null: the family-specific flags. */
export function alibiKind(c, type) {
  if (type === 'bloom') return type;
  // MptConfig.attn_config.alibi (default true); without it MPT learns absolute positions
  if (type === 'mpt') return c.attn_config?.alibi === false ? null : type;
  if (type === 'falcon' && c.alibi === true) return 'falcon'; // FalconConfig.alibi: rotary = not alibi
  // remote-code Baichuan: the 13B models use ALiBi, the 7B ones RoPE; nothing in the
  // config says which but the width (the 7B models are 4096 wide), as vLLM and MLC read it
  if (type === 'baichuan' && c.hidden_size !== 4096) return 'baichuan';
  return null;
}
