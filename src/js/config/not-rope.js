// not-rope.js: the model_types of transformers (commit ace7c37014) that
// ropeFromConfig does not serve, grouped by what their modeling files use for
// positions, and the TypeError that names it. A composite whose text model is
// not a RoPE one (BLIP-2's OPT, ...) is listed under its text model's scheme.
import { COMPOSITES } from './families.js';
import { own, quote } from './read.js';

const list = (s) => s.trim().split(/\s+/);
// Plain literals, the lookup built when first read: a bundle that never calls
// ropeFromConfig drops them (a call at the top level would keep them)

/** Each scheme: the model types that use it, and what ropeFromConfig's error says. */
export const SCHEMES = [
  ['learned', 'learned absolute position embeddings (a table of the checkpoint; posenc/encoder: positional { type: \'learned\' })', (`
    aimv2 aimv2_vision_model albert align altclip audio-spectrogram-transformer audioflamingo3_encoder bark bart bert
    bert-generation big_bird bigbird_pegasus biogpt blenderbot blenderbot-small blip blip-2 blip_2_qformer bridgetower
    bros camembert canine chinese_clip chinese_clip_vision_model clip clip_text_model clip_vision_model clipseg
    conditional_detr convbert data2vec-text decision_transformer deformable_detr deit detr dinov2
    dinov2_with_registers distilbert dpr dpt electra eomt ernie flaubert flava florence2 fnet git gpt-sw3 gpt2
    gpt_bigcode gpt_neo grounding-dino groupvit hiera ibert idefics3_vision ijepa imagegpt instructblip
    instructblipvideo internvl_vision kosmos-2 layoutlm layoutlmv2 layoutlmv3 layoutxlm led lilt longformer luke lw_detr
    lw_detr_vit lxmert markuplm mbart megatron-bert metaclip_2 mgp-str mm-grounding-dino mobilebert mra mvp
    nystromformer omdet-turbo openai-gpt opt owlv2 owlvit perceiver pixio plbart pvt qwen2_audio_encoder reformer
    rembert roberta roberta-prelayernorm roc_bert sam sam2 sam2_hiera_det_model sam2_vision_model sam3 sam_hq
    sam_hq_vision_model sam_vision_model seggpt siglip siglip2 siglip2_vision_model siglip_vision_model smolvlm_vision
    splinter squeezebert table-transformer tapas timesformer trocr tvp vilt visual_bert vit vit_mae vit_msn vitdet
    vitpose_backbone vivit voxtral_encoder xclip xlm xlm-roberta xlm-roberta-xl xmod yolos yoso`)],
  ['sinusoidal', 'fixed sinusoidal absolute position embeddings (sinusoidal)', (`
    autoformer ctrl d_fine dab-detr edgetam edgetam_vision_model fsmt informer kosmos-2.5 m2m_100 marian mask2former
    maskformer musicgen musicgen_melody nllb-moe oneformer patchtsmixer patchtst pegasus pegasus_x pp_doclayout_v3
    roformer rt_detr rt_detr_v2 speech_to_text speecht5 time_series_transformer timesfm videomae whisper xglm`)],
  ['t5-buckets', "T5's relative position buckets: t5Buckets and t5Bias", (`
    cpmant longt5 mpnet mt5 pix2struct pop2piano prophetnet switch_transformers t5 udop umt5`)],
  ['deberta-buckets', "DeBERTa's log buckets of relative positions: debertaBuckets", ('deberta deberta-v2 sew-d')],
  ['relative', 'relative positions of its own kind (Transformer-XL and XLNet relative attention: transformerXLEmbedding; Swin window biases; conformer relative encodings), not RoPE', (`
    beit clap data2vec-vision donut-swin fastspeech2_conformer fastspeech2_conformer_with_hifigan funnel gemma3n_audio
    gemma3n_vision maskformer-swin parakeet_ctc parakeet_encoder seamless_m4t_v2 swin swin2sr swinv2 vits wavlm xlnet`)],
  ['convolutional', 'a convolution over the sequence as its position signal (wav2vec 2.0 style), no position table', (`
    data2vec-audio hubert sew unispeech unispeech-sat wav2vec2`)],
  ['none', 'no positions at all (a state-space, recurrent or convolutional model: order comes from its recurrence or convolutions)', (`
    bit convnext convnextv2 cvt dac depth_anything depth_pro dinat dinov3_convnext efficientnet encodec falcon_mamba
    focalnet glpn hgnet_v2 jamba levit mamba mamba2 mobilenet_v1 mobilenet_v2 mobilevit mobilevitv2 poolformer
    prompt_depth_anything pvt_v2 regnet resnet rt_detr_resnet rwkv segformer superglue superpoint swiftformer textnet
    timm_backbone timm_wrapper univnet upernet vitmatte vitpose xcodec xlstm zamba zoedepth`)],
  ['rope-vision', "rotary embeddings over image patch coordinates (2-D), not token positions (ropeCache's rope2d serves Pixtral's and the Qwen2-VL vision encoder's forms; ropeFromConfig reads text models)", (`
    dinov3_vit edgetam_video efficientloftr eomt_dinov3 glm4v_moe_vision glm4v_vision glm_image_vision glm_image_vqmodel glm_ocr_vision
    lightglue mlcd pixtral sam2_video sam3_tracker sam3_tracker_video sam3_video sam3_vision_model sam3_vit_model
    video_llama_3_vision vjepa2`)],
  ['rope-audio', "rotary embeddings of a speech encoder (conformer layers over audio frames), which ropeFromConfig does not read", (`
    clvp seamless_m4t wav2vec2-bert wav2vec2-conformer lasr_ctc moonshine_streaming_encoder pe_audio_video
    pe_audio_video_encoder pe_video pe_video_encoder`)],
  ['alibi', 'ALiBi: alibiFromConfig gives the options of alibiSlopes and alibiBias', ('bloom mpt')],
  ['composite', 'any encoder and decoder it is given: pass the config of its text decoder (config.decoder) instead', (`
    encoder-decoder rag speech-encoder-decoder vision-encoder-decoder vision-text-dual-encoder nougat`)],
];

let byType = null;

/** The scheme posenc lists for a model_type, or undefined. */
export function schemeOf(type) {
  if (!byType) {
    byType = Object.create(null);
    for (const [scheme, what, types] of SCHEMES) for (const t of list(types)) byType[t] = { scheme, what };
  }
  return typeof type === 'string' && Object.hasOwn(byType, type) ? byType[type] : undefined;
}

/**
 * ESM (modeling_esm.py): learned absolute positions by default; with
 * position_embedding_type 'rotary', its attention's own RotaryEmbedding(head
 * size), base 10000, rotate_half pairs, over each token's index in the sequence
 * (no position ids): ropeFromConfig does not read it.
 */
function esm(fn, m) {
  const kind = own(fn, m.c, m.where, 'position_embedding_type');
  if (kind !== 'rotary') return { what: `learned absolute position embeddings (its position_embedding_type is ${kind === undefined ? "'absolute' by default" : typeof kind === 'string' ? quote(kind) : 'not a string'}; posenc/encoder: positional { type: 'learned' })` };
  return { what: "rotary embeddings that its attention builds itself over each token's index (position_embedding_type 'rotary'; ropeFromConfig does not read ESM configs): ropeCache({ rotaryDim: hidden_size / num_attention_heads, base: 10000, layout: 'half' }) computes them" };
}

/** The TypeError of a model ropeFromConfig does not serve: what it uses, or that transformers does not know it. */
export function notRope(fn, m) {
  // MPT with attn_config.alibi false learns absolute positions (with it, alibiFromConfig serves it)
  const s = m.type === 'mpt' ? { what: 'learned absolute position embeddings (its attn_config.alibi is false; posenc/encoder: positional { type: \'learned\' })' } : m.type === 'esm' ? esm(fn, m) : schemeOf(m.type);
  const name = m.type === m.top || m.top === undefined ? `model_type ${quote(m.type)}` : `model_type ${quote(m.top)} (its text model ${quote(m.type)})`;
  if (s) return new TypeError(`posenc.${fn}: ${name} has no RoPE posenc reads: it uses ${s.what}`);
  if (m.where !== 'config' && typeof m.type === 'string' && Object.hasOwn(COMPOSITES, m.type)) {
    return new TypeError(`posenc.${fn}: ${m.where}.model_type ${quote(m.type)} names a composite config, not a text model: a text config must be the text model's (a config that holds itself is refused so)`);
  }
  return new TypeError(
    `posenc.${fn}: ${m.where}.model_type ${quote(m.type)} is not a model_type transformers (ace7c37014) or a remote-code model posenc knows (ChatGLM, InternLM2, Baichuan): give ropeCache and applyRope the options yourself ({ rotaryDim, base, layout, scaling }); docs/configs.md lists every model_type`,
  );
}
