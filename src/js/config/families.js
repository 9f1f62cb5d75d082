// families.js: every model_type of Hugging Face transformers (commit ace7c37014,
// models/auto/configuration_auto.py CONFIG_MAPPING) and what its model uses for
// positions. For a RoPE model: its configuration class's defaults of the keys a
// config.json may leave out, and how its modeling file computes and applies RoPE.
// Tables are prototype-free objects: a model_type such as 'constructor' or
// '__proto__' is no entry (read.js's own() reads them).
//
// A RoPE text family (FAMILIES), keyed by the model_type of its text config:
//   hidden, heads, headDim  class defaults of hidden_size, num_attention_heads and
//                           head_dim (no headDim: hidden_size // num_attention_heads)
//   maxPos, layers          of max_position_embeddings and num_hidden_layers
//   theta                   the class's default rope_theta (default_theta; 10000)
//   rope                    the class's default rope dict, when the file has none
//   aliases                 config keys the class maps onto these (attribute_map)
//   layout                  how its apply function pairs features: 'half' (rotate_half,
//                           pairs (k, k + r/2); the default) or 'interleaved' ((2k, 2k+1))
//   partial                 the partial_rotary_factor its __init__ sets when the file
//                           has none (kwargs.setdefault, "for BC")
//   partialRead             its rotary class's default rope_type honours
//                           partial_rotary_factor, and its attention rotates that share
//                           (GLM, GPT-NeoX, Phi, ...); without it the default type uses
//                           the whole head and the other types fail in transformers
//                           when the factor is below 1 (the attention rotates the whole
//                           head with cos/sin of the smaller size)
//   partialApply            its default rope_type ignores partial_rotary_factor, but its
//                           attention rotates the first cos-width features of a head, so
//                           the other types rotate that share (Bamba)
//   dict                    how its configuration class builds the rope dict when it
//                           differs from RotaryEmbeddingConfigMixin's: 'gptneox',
//                           'phi3', 'mrope', 'gemma3', 'modernbert'
//   layerRule               how the class (or model) decides each layer's kind, and
//                           which kinds apply RoPE (layers.js)
//   layerTypes              the layer types its class builds (sliding and full attention)
//                           when they share one rotary embedding: options.layerType names
//   thetaByType             per layer type: [the config key of its rope_theta, its default]
//   mrope, mropeSection     M-RoPE: 'sectioned' (Qwen2-VL) or 'interleaved' (Qwen3-VL), and
//                           the class's default mrope_section
//   interleaveKey           rope_interleave (default true) picks the pairing (DeepSeek V3)
//   partialForced           a partial_rotary_factor its class sets whatever the file says
//   partialKeyDefault       GPT-NeoX Japanese: rotary_pct's default
//   originalMax             the original_max_position_embeddings attribute its class always has
//   thetaIgnored            its rotary embedding does not read rope_theta (AfMoE)
//   noRopeDict              no rope dict: base 10000 in its modeling code (GPT-J, CodeGen)
//   queryScale              the per-position query scale its attention applies
//   remote                  a remote-code model (its modeling file on the hub)
//   special                 a family read by code of its own in rope-config.js
//   refuse                  RoPE that posenc does not implement: the reason

const GEMMA3_THETA = { full_attention: ['rope_theta', 1e6], sliding_attention: ['rope_local_base_freq', 1e4] };
const MODERNBERT_THETA = { full_attention: ['global_rope_theta', 160000], sliding_attention: ['local_rope_theta', 1e4] };
// configuration classes that build layer_types of sliding and full attention, one rotary embedding for both

/** The RoPE text families, by the model_type of the text config. */
export const FAMILIES = ({
  afmoe: { hidden: 2048, heads: 16, headDim: 128, maxPos: 16384, layers: 32, layerRule: 'afmoe', thetaIgnored: true }, // AfmoeConfig keeps rope_theta as its own attribute
  apertus: { hidden: 4096, heads: 32, maxPos: 65536, layers: 32, theta: 12e6, rope: { rope_type: 'llama3', rope_theta: 12e6, factor: 8, original_max_position_embeddings: 8192, low_freq_factor: 1, high_freq_factor: 4 } },
  arcee: { hidden: 2560, heads: 32, maxPos: 4096, layers: 32 },
  aria_text: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32 },
  // BambaConfig forces partial_rotary_factor 0.5: its default rope_type ignores it, the others rotate half of each head
  bamba: { hidden: 4096, heads: 32, maxPos: 262144, layers: 32, partialForced: 0.5, partialApply: true, layerRule: 'bamba' },
  // BltConfig: a patcher and three transformers of their own widths, each with its rotary embedding
  blt: { refuse: "BLT runs RoPE in several transformers of their own sizes (its patcher, local encoder, global transformer and local decoder: patcher_config, encoder_config, global_config, decoder_config), not one text model: give ropeCache the options of the one you run (head_dim = hidden_size / num_attention_heads of its sub-config, rope_parameters' rope_theta)" },
  bitnet: { hidden: 2560, heads: 20, maxPos: 2048, layers: 30, theta: 5e5 },
  codegen: { hidden: 4096, heads: 16, maxPos: 2048, layers: 28, layout: 'interleaved', special: 'gptj', noRopeDict: true, aliases: { hidden_size: ['n_embd'], num_attention_heads: ['n_head'], max_position_embeddings: ['n_positions'], num_hidden_layers: ['n_layer'] } },
  chameleon: { hidden: 4096, heads: 32, maxPos: 4096, layers: 32 },
  cohere: { hidden: 8192, heads: 64, maxPos: 8192, layers: 40, theta: 5e5, layout: 'interleaved' },
  cohere2: { hidden: 8192, heads: 64, maxPos: 8192, layers: 40, layout: 'interleaved', layerRule: 'cohere2' },
  csm: { hidden: 2048, heads: 32, maxPos: 2048, layers: 16, theta: 5e5 },
  cwm: { hidden: 6144, heads: 48, headDim: 128, maxPos: 131072, layers: 64, theta: 1e6, rope: { rope_type: 'llama3', rope_theta: 1e6, factor: 16, high_freq_factor: 4, low_freq_factor: 1, original_max_position_embeddings: 8192 }, layerTypes: ['full_attention', 'sliding_attention'] },
  dbrx: { hidden: 2048, heads: 16, maxPos: 2048, layers: 24, aliases: { hidden_size: ['d_model'], num_attention_heads: ['n_heads'], max_position_embeddings: ['max_seq_len'], num_hidden_layers: ['n_layers'] } },
  deepseek_v2: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32, layout: 'interleaved', special: 'deepseek' },
  deepseek_v3: { hidden: 7168, heads: 128, maxPos: 4096, layers: 61, special: 'deepseek', interleaveKey: true },
  dia_decoder: { hidden: 2048, heads: 16, headDim: 128, maxPos: 3072, layers: 18 },
  diffllama: { hidden: 2048, heads: 32, maxPos: 2048, layers: 16 },
  doge: { hidden: 1024, heads: 8, maxPos: 2048, layers: 32 },
  dots1: { hidden: 4608, heads: 32, maxPos: 2048, layers: 62, layerTypes: ['full_attention', 'sliding_attention'] },
  emu3_text_model: { hidden: 4096, heads: 32, maxPos: 9216, layers: 32, theta: 1e6 },
  ernie4_5: { hidden: 1024, heads: 16, headDim: 128, maxPos: 131072, layers: 18, theta: 5e5, layout: 'interleaved' },
  ernie4_5_moe: { hidden: 2560, heads: 20, maxPos: 131072, layers: 28, theta: 5e5, layout: 'interleaved' },
  ernie4_5_vl_moe_text: { hidden: 2560, heads: 20, maxPos: 131072, layers: 28, theta: 5e5, refuse: 'ERNIE 4.5 VL reorders its frequencies (recomposition_to_3d: height and width sections alternating, then time) before it pairs them: not a form posenc computes' },
  EvollaModel: { hidden: 4096, heads: 32, maxPos: 8192, layers: 32, theta: 5e5 },
  exaone4: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32, layerRule: 'exaone4' },
  exaone_moe: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32, layerRule: 'exaone4' },
  falcon: { hidden: 4544, heads: 71, maxPos: 2048, layers: 32, special: 'falcon' },
  falcon_h1: { hidden: 4096, heads: 32, maxPos: 8192, layers: 32 },
  flex_olmo: { hidden: 4096, heads: 32, maxPos: 4096, layers: 32, theta: 5e5 },
  gemma: { hidden: 3072, heads: 16, headDim: 256, maxPos: 8192, layers: 28 },
  gemma2: { hidden: 2304, heads: 8, headDim: 256, maxPos: 8192, layers: 26, layerTypes: ['full_attention', 'sliding_attention'] },
  gemma3_text: { hidden: 2304, heads: 8, headDim: 256, maxPos: 131072, layers: 26, dict: 'gemma3', thetaByType: GEMMA3_THETA, layerRule: 'gemma3' },
  gemma3n_text: { hidden: 2048, heads: 8, headDim: 256, maxPos: 32768, layers: 35, dict: 'gemma3', thetaByType: GEMMA3_THETA, layerRule: 'gemma3n' },
  glm: { hidden: 4096, heads: 32, headDim: 128, maxPos: 131072, layers: 40, partial: 0.5, partialRead: true, layout: 'interleaved' },
  glm4: { hidden: 4096, heads: 32, headDim: 128, maxPos: 131072, layers: 40, partial: 0.5, partialRead: true, layout: 'interleaved' },
  glm4_moe: { hidden: 4096, heads: 96, maxPos: 131072, layers: 46, partial: 0.5, partialRead: true },
  glm4_moe_lite: { hidden: 2048, heads: 20, maxPos: 202752, layers: 47, partialRead: true, special: 'deepseek', interleaveKey: true },
  // GLM-4V: M-RoPE in sections (default [8, 12, 12]) on partial, interleaved pairs (apply_rotary_pos_emb)
  glm4v_text: { hidden: 4096, heads: 32, maxPos: 32768, layers: 40, partialRead: true, layout: 'interleaved', mrope: 'sectioned', mropeSection: [8, 12, 12] },
  glm4v_moe_text: { hidden: 4096, heads: 96, maxPos: 65536, layers: 46, partial: 0.5, partialRead: true, mrope: 'sectioned', mropeSection: [8, 12, 12] },
  glm_ocr_text: { hidden: 1024, heads: 16, maxPos: 131072, layers: 16, partialRead: true, layout: 'interleaved', mrope: 'sectioned', mropeSection: [8, 12, 12] },
  glm_image_text: { hidden: 4096, heads: 32, maxPos: 131072, layers: 40, partialRead: true, mrope: 'sectioned', mropeSection: [8, 12, 12] },
  glmasr_encoder: { hidden: 1280, heads: 20, maxPos: 1500, layers: 32, partial: 0.5, partialRead: true },
  gpt_neox: { hidden: 6144, heads: 64, maxPos: 2048, layers: 44, dict: 'gptneox', partialRead: true },
  gpt_neox_japanese: { hidden: 2560, heads: 32, maxPos: 2048, layers: 32, dict: 'gptneox', partialRead: true, partialKeyDefault: 1 },
  gpt_oss: { hidden: 2880, heads: 64, headDim: 64, maxPos: 131072, layers: 36, theta: 150000, rope: { rope_type: 'yarn', rope_theta: 150000, factor: 32, beta_fast: 32, beta_slow: 1, truncate: false, original_max_position_embeddings: 4096 }, layerTypes: ['full_attention', 'sliding_attention'] },
  gptj: { hidden: 4096, heads: 16, maxPos: 2048, layers: 28, layout: 'interleaved', special: 'gptj', noRopeDict: true, aliases: { hidden_size: ['n_embd'], num_attention_heads: ['n_head'], max_position_embeddings: ['n_positions'], num_hidden_layers: ['n_layer'] } },
  granite: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32 },
  granitemoe: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32 },
  granitemoehybrid: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32, layerRule: 'granitemoehybrid', aliases: { layer_types: ['layers_block_type'] } },
  granitemoeshared: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32 },
  helium: { hidden: 2560, heads: 20, headDim: 128, maxPos: 4096, layers: 24, theta: 1e5, layout: 'interleaved' },
  hunyuan_v1_dense: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32, special: 'hunyuan' },
  hunyuan_v1_moe: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32, special: 'hunyuan' },
  idefics: { hidden: 4096, heads: 32, layers: 32, noRopeDict: true }, // IdeficsEmbedding: base 10000, no scaling
  jais2: { hidden: 3328, heads: 26, maxPos: 8192, layers: 32 },
  jetmoe: { hidden: 2048, heads: 16, maxPos: 4096, layers: 12, aliases: { head_dim: ['kv_channels'] }, headDimFrom: 'kv_channels' },
  kyutai_speech_to_text: { hidden: 2048, heads: 32, maxPos: 750, layers: 48 },
  lasr_encoder: { hidden: 512, heads: 8, maxPos: 10000, layers: 17 },
  lfm2: { hidden: 2560, heads: 32, maxPos: 128000, layers: 32, theta: 1e6, layerRule: 'lfm2' },
  lfm2_moe: { hidden: 2048, heads: 32, maxPos: 128000, layers: 32, theta: 1e6, layerRule: 'lfm2' },
  llama: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32 },
  llama4_text: { hidden: 5120, heads: 40, headDim: 128, maxPos: 131072, layers: 48, theta: 5e5, layout: 'interleaved', layerRule: 'noRopeLayers', queryScale: 'llama4' },
  mimi: { hidden: 512, heads: 8, maxPos: 8000, layers: 8 },
  minimax: { hidden: 4096, heads: 32, maxPos: 131072, layers: 32, theta: 1e6, layerRule: 'minimax' },
  minimax_m2: { hidden: 3072, heads: 48, headDim: 128, maxPos: 196608, layers: 62, theta: 5e6, partialRead: true },
  // LongcatFlashMLA always calls apply_rotary_pos_emb_interleave (its config's rope_interleave is unread)
  longcat_flash: { hidden: 6144, heads: 64, headDim: 64, maxPos: 131072, layers: 56, theta: 1e7, special: 'deepseek', layout: 'interleaved' },
  ministral: { hidden: 4096, heads: 32, maxPos: 131072, layers: 32, layerTypes: ['full_attention', 'sliding_attention'] },
  // Ministral3Config: rope_parameters default yarn x16 from 16384, with llama_4_scaling_beta (query scales)
  ministral3: { hidden: 4096, heads: 32, headDim: 128, maxPos: 262144, layers: 34, rope: { type: 'yarn', rope_theta: 1e6, factor: 16, original_max_position_embeddings: 16384, max_position_embeddings: 262144, beta_fast: 32, beta_slow: 1, mscale_all_dim: 1, mscale: 1, llama_4_scaling_beta: 0.1 }, queryScale: 'ministral3' },
  mistral: { hidden: 4096, heads: 32, maxPos: 131072, layers: 32 },
  mixtral: { hidden: 4096, heads: 32, maxPos: 131072, layers: 32, theta: 1e6 },
  mllama_text_model: { hidden: 4096, heads: 32, maxPos: 131072, layers: 40, theta: 5e5, layerRule: 'mllama' },
  modernbert: { hidden: 768, heads: 12, maxPos: 8192, layers: 22, dict: 'modernbert', thetaByType: MODERNBERT_THETA, layerRule: 'modernbert' },
  'modernbert-decoder': { hidden: 768, heads: 12, maxPos: 8192, layers: 22, dict: 'modernbert', thetaByType: MODERNBERT_THETA, layerRule: 'modernbert' },
  moonshine: { hidden: 288, heads: 8, maxPos: 512, layers: 6, partial: 0.9, partialRead: true, layout: 'interleaved', aliases: { num_attention_heads: ['decoder_num_attention_heads'], num_hidden_layers: ['decoder_num_hidden_layers'] } },
  moonshine_streaming: { hidden: 320, heads: 8, maxPos: 4096, layers: 6, partialRead: true, layout: 'interleaved', rope: { rope_type: 'default', rope_theta: 1e4, partial_rotary_factor: 0.8 } },
  moshi: { hidden: 4096, heads: 32, maxPos: 3000, layers: 32 },
  nanochat: { hidden: 768, heads: 6, maxPos: 2048, layers: 12, refuse: "NanoChat's rotate_half is cat(x2, -x1): it rotates by minus the angle, which neither of posenc's layouts does" },
  nemotron: { hidden: 6144, heads: 48, maxPos: 4096, layers: 32, partial: 0.5, partialRead: true },
  olmo: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32 },
  olmo2: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32 },
  olmo3: { hidden: 4096, heads: 32, maxPos: 2048, layers: 32, layerTypes: ['full_attention', 'sliding_attention'] },
  olmoe: { hidden: 2048, heads: 16, maxPos: 4096, layers: 16 },
  pe_audio_encoder: { hidden: 1792, heads: 14, headDim: 128, maxPos: 10000, layers: 6, layout: 'interleaved', rope: { rope_type: 'default', rope_theta: 20000 } },
  persimmon: { hidden: 4096, heads: 64, maxPos: 16384, layers: 36, partial: 0.5, partialRead: true },
  phi: { hidden: 2048, heads: 32, maxPos: 2048, layers: 24, partial: 0.5, partialRead: true },
  phi3: { hidden: 3072, heads: 32, maxPos: 4096, layers: 32, partial: 1, partialRead: true, dict: 'phi3', originalMax: 4096 },
  phi4_multimodal: { hidden: 3072, heads: 32, maxPos: 131072, layers: 32, partial: 1, partialRead: true, dict: 'phi3', originalMax: 4096 },
  phimoe: { hidden: 4096, heads: 32, maxPos: 131072, layers: 32, theta: 1e6, special: 'phimoe' },
  qwen2: { hidden: 4096, heads: 32, maxPos: 32768, layers: 32, layerTypes: ['full_attention', 'sliding_attention'] },
  qwen2_5_vl_text: { hidden: 8192, heads: 64, maxPos: 32768, layers: 80, theta: 1e6, dict: 'mrope', mrope: 'sectioned', layerTypes: ['full_attention', 'sliding_attention'] },
  paddleocr_vl_text: { hidden: 1024, heads: 16, headDim: 128, maxPos: 131072, layers: 18, theta: 5e5, dict: 'mrope', mrope: 'sectioned' },
  qwen2_5_omni_text: { hidden: 3584, heads: 28, maxPos: 32768, layers: 28, theta: 1e6, dict: 'mrope', mrope: 'sectioned', layerTypes: ['full_attention', 'sliding_attention'] },
  qwen2_moe: { hidden: 2048, heads: 16, maxPos: 32768, layers: 24, layerTypes: ['full_attention', 'sliding_attention'] },
  qwen2_vl_text: { hidden: 8192, heads: 64, maxPos: 32768, layers: 80, theta: 1e6, dict: 'mrope', mrope: 'sectioned', layerTypes: ['full_attention', 'sliding_attention'] },
  qwen3: { hidden: 4096, heads: 32, headDim: 128, maxPos: 32768, layers: 32, layerTypes: ['full_attention', 'sliding_attention'] },
  qwen3_moe: { hidden: 2048, heads: 32, maxPos: 32768, layers: 24 },
  qwen3_next: { hidden: 2048, heads: 16, headDim: 256, maxPos: 32768, layers: 48, partial: 0.25, partialRead: true, layerRule: 'qwen3_next' },
  qwen3_vl_text: { hidden: 4096, heads: 32, headDim: 128, maxPos: 128000, layers: 32, theta: 5e5, mrope: 'interleaved', mropeSection: [24, 20, 20] },
  qwen3_omni_moe_text: { hidden: 2048, heads: 28, maxPos: 32768, layers: 28, theta: 1e6, mrope: 'interleaved', mropeSection: [24, 20, 20], layerTypes: ['full_attention', 'sliding_attention'] },
  qwen3_vl_moe_text: { hidden: 2048, heads: 16, maxPos: 128000, layers: 24, theta: 5e5, mrope: 'interleaved', mropeSection: [24, 20, 20] },
  recurrent_gemma: { hidden: 2560, heads: 10, layers: 26, partial: 0.5, partialRead: true, layerRule: 'recurrent_gemma' },
  seed_oss: { hidden: 4096, heads: 80, headDim: 128, maxPos: 524288, layers: 64 },
  smollm3: { hidden: 2048, heads: 16, maxPos: 32768, layers: 36, theta: 2e6, layerRule: 'noRopeLayers', layerTypes: ['full_attention', 'sliding_attention'] },
  solar_open: { hidden: 4096, heads: 64, headDim: 128, maxPos: 131072, layers: 48, theta: 1e6, partial: 1, partialRead: true },
  stablelm: { hidden: 2560, heads: 32, maxPos: 4096, layers: 32, partial: 0.25, partialRead: true },
  starcoder2: { hidden: 3072, heads: 24, maxPos: 4096, layers: 30 },
  t5_gemma_module: { hidden: 2304, heads: 8, headDim: 256, maxPos: 8192, layers: 26, layerTypes: ['full_attention', 'sliding_attention'] },
  t5gemma2_decoder: { hidden: 2304, heads: 8, headDim: 256, maxPos: 131072, layers: 26, dict: 'gemma3', thetaByType: GEMMA3_THETA, layerRule: 'gemma3' },
  t5gemma2_text: { hidden: 2304, heads: 8, headDim: 256, maxPos: 131072, layers: 26, dict: 'gemma3', thetaByType: GEMMA3_THETA, layerRule: 'gemma3' },
  vaultgemma: { hidden: 2304, heads: 8, headDim: 256, maxPos: 8192, layers: 26, layerTypes: ['full_attention', 'sliding_attention'] },
  youtu: { hidden: 2048, heads: 16, maxPos: 131072, layers: 32, special: 'deepseek', interleaveKey: true },
  zamba2: { hidden: 2560, heads: 32, maxPos: 4096, layers: 54, layerRule: 'zamba2', aliases: { head_dim: ['attention_head_dim'] } },
  // remote-code models (trust_remote_code): their modeling files on the hub, not transformers
  chatglm: { maxPos: 8192, layout: 'interleaved', special: 'chatglm', remote: true },
  internlm2: { maxPos: 2048, remote: true },
  baichuan: { maxPos: 4096, remote: true },
});

/**
 * Composite configs: the key under which the text config sits, the model_type
 * it is read as when it names none, and whether a model_type it names is read
 * (CONFIG_MAPPING[text_config.model_type], as Llava does) or ignored (the
 * composite always builds one class, as Gemma 3 does: fixed). absent: the
 * keys the composite passes to its text config class when the file has no
 * text config; merged: the keys it passes under the file's text config
 * (_default_text_config_kwargs), the file's own winning.
 */
export const COMPOSITES = ({
  aria: { key: 'text_config', text: 'aria_text', fixed: true },
  audioflamingo3: { key: 'text_config', text: 'qwen2', fixed: false },
  aya_vision: { key: 'text_config', text: 'cohere2', fixed: false },
  cohere2_vision: { key: 'text_config', text: 'cohere2', fixed: false },
  colpali: { key: 'vlm_config.text_config', text: 'gemma', fixed: false },
  colqwen2: { key: 'vlm_config.text_config', text: 'qwen2_vl_text', fixed: true },
  deepseek_vl: { key: 'text_config', text: 'llama', fixed: false },
  deepseek_vl_hybrid: { key: 'text_config', text: 'llama', fixed: false },
  dia: { key: 'decoder_config', text: 'dia_decoder', fixed: true },
  emu3: { key: 'text_config', text: 'emu3_text_model', fixed: true },
  ernie4_5_vl_moe: { key: 'text_config', text: 'ernie4_5_vl_moe_text', fixed: true },
  fast_vlm: { key: 'text_config', text: 'qwen2', fixed: false, absent: { hidden_size: 3584, num_attention_heads: 28, num_hidden_layers: 28 } },
  fuyu: { key: 'text_config', text: 'persimmon', fixed: false },
  gemma3: { key: 'text_config', text: 'gemma3_text', fixed: true },
  gemma3n: { key: 'text_config', text: 'gemma3n_text', fixed: true },
  glm46v: { key: 'text_config', text: 'glm4v_text', fixed: true },
  glm4v: { key: 'text_config', text: 'glm4v_text', fixed: true },
  glm4v_moe: { key: 'text_config', text: 'glm4v_moe_text', fixed: true },
  glm_image: { key: 'text_config', text: 'glm_image_text', fixed: true },
  glm_ocr: { key: 'text_config', text: 'glm_ocr_text', fixed: true },
  glmasr: { key: 'text_config', text: 'llama', fixed: false, merged: { hidden_size: 2048, num_hidden_layers: 28, num_attention_heads: 16, max_position_embeddings: 8192, rope_parameters: { rope_theta: 10000, rope_type: 'default' } } },
  got_ocr2: { key: 'text_config', text: 'qwen2', fixed: false, absent: { hidden_size: 1024, num_hidden_layers: 24, num_attention_heads: 16, max_position_embeddings: 32768, rope_theta: 1e6 } },
  granite_speech: { key: 'text_config', text: 'granite', fixed: false },
  granitevision: { key: 'text_config', text: 'llama', fixed: false },
  idefics2: { key: 'text_config', text: 'mistral', fixed: false, absent: { max_position_embeddings: 32768 } },
  idefics3: { key: 'text_config', text: 'llama', fixed: false },
  internvl: { key: 'text_config', text: 'qwen2', fixed: false },
  janus: { key: 'text_config', text: 'llama', fixed: false },
  lfm2_vl: { key: 'text_config', text: 'lfm2', fixed: false },
  lighton_ocr: { key: 'text_config', text: 'qwen3', fixed: false, absent: { head_dim: 128, hidden_size: 1024, max_position_embeddings: 40960, num_attention_heads: 16, num_hidden_layers: 28, rope_theta: 1e6, sliding_window: null } },
  llama4: { key: 'text_config', text: 'llama4_text', fixed: true },
  llava: { key: 'text_config', text: 'llama', fixed: false },
  llava_next: { key: 'text_config', text: 'llama', fixed: false },
  llava_next_video: { key: 'text_config', text: 'llama', fixed: false },
  llava_onevision: { key: 'text_config', text: 'qwen2', fixed: false },
  mistral3: { key: 'text_config', text: 'mistral', fixed: false, absent: { head_dim: 128, hidden_size: 5120, max_position_embeddings: 131072, num_attention_heads: 32, num_hidden_layers: 40, rope_theta: 1e9, sliding_window: null } },
  mllama: { key: 'text_config', text: 'mllama_text_model', fixed: true },
  ovis2: { key: 'text_config', text: 'qwen2', fixed: true },
  paddleocr_vl: { key: 'text_config', text: 'paddleocr_vl_text', fixed: true },
  paligemma: { key: 'text_config', text: 'gemma', fixed: false, absent: { hidden_size: 2048, num_hidden_layers: 18, num_attention_heads: 8 } },
  pe_audio: { key: 'text_config', text: 'modernbert', fixed: false, merged: { hidden_size: 1024, num_hidden_layers: 22, num_attention_heads: 16 } },
  perception_lm: { key: 'text_config', text: 'llama', fixed: false },
  qwen2_5_vl: { key: 'text_config', text: 'qwen2_5_vl_text', fixed: true },
  qwen2_5_omni: { key: 'thinker_config.text_config', text: 'qwen2_5_omni_text', fixed: true },
  qwen2_audio: { key: 'text_config', text: 'qwen2', fixed: false },
  qwen2_vl: { key: 'text_config', text: 'qwen2_vl_text', fixed: true },
  qwen3_omni_moe: { key: 'thinker_config.text_config', text: 'qwen3_omni_moe_text', fixed: true },
  qwen3_vl: { key: 'text_config', text: 'qwen3_vl_text', fixed: true },
  qwen3_vl_moe: { key: 'text_config', text: 'qwen3_vl_moe_text', fixed: true },
  shieldgemma2: { key: 'text_config', text: 'gemma3_text', fixed: false },
  smolvlm: { key: 'text_config', text: 'llama', fixed: false },
  t5gemma: { key: 'decoder', text: 't5_gemma_module', fixed: true },
  t5gemma2: { key: 'decoder', text: 't5gemma2_decoder', fixed: true },
  t5gemma2_encoder: { key: 'text_config', text: 't5gemma2_text', fixed: true },
  video_llama_3: { key: 'text_config', text: 'qwen2', fixed: false },
  video_llava: { key: 'text_config', text: 'llama', fixed: false },
  vipllava: { key: 'text_config', text: 'llama', fixed: false },
  voxtral: { key: 'text_config', text: 'llama', fixed: false, merged: { hidden_size: 3072, num_hidden_layers: 30, max_position_embeddings: 131072, rope_theta: 1e8, head_dim: 128 } },
  code_llama: { key: '', text: 'llama', fixed: false }, // CodeLlama's config.json is a LlamaConfig
  evolla: { key: '', text: 'EvollaModel', fixed: false },
});

/**
 * Keys that only some families read, and which: a config that names no
 * model_type (read as a Llama-style model) and sets one of them is refused, so
 * that the file says which model reads it.
 */
export const FAMILY_KEYS = ({
  qk_rope_head_dim: "'deepseek_v2', 'deepseek_v3' and kin",
  rope_interleave: "'deepseek_v3' and kin",
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
  mrope_section: "'qwen2_vl', 'qwen2_5_vl', 'qwen3_vl' and kin",
});

/**
 * Flat encoder-decoder configs whose decoder keys sit at the top level (the
 * decoder is the text model transformers' get_text_config returns).
 */
export const FLAT_DECODERS = ({ moonshine: 'moonshine', moonshine_streaming: 'moonshine_streaming' });
