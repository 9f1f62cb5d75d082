// Type declarations for posenc/encoder: the tiny encoder, .safetensors files,
// and every declaration of 'posenc' (the entry exports the same functions,
// run by its own wasm). Layouts, formulas and errors: the docs.
import type { Float32Target, RopeConfigOptions, RopeLayout, RopePrecision, RopeScaling, SinusoidalLayout, WasmSource } from './posenc.js';

export * from './posenc.js';

/**
 * Loads the encoder's wasm (inline in this module; it also runs every positional
 * encoding). Call once and await it before any other function of this entry.
 */
export function init(options?: {
  /** Where to load the wasm from; default: the SIMD (or baseline) build inline. */
  wasm?: WasmSource;
  /** false forces the baseline build (bit-identical results); ignored with wasm. */
  simd?: boolean;
}): Promise<void>;
/** Which wasm init() loaded: 'simd', 'baseline' (inline) or 'custom' (options.wasm); null before. */
export function wasmBuild(): 'simd' | 'baseline' | 'custom' | null;

// ---------------------------------------------------------------- tiny encoder
// Formulas, parameter layout and accuracy: include/posenc.h (posenc_encoder_forward).

export type PositionalType = 'none' | 'sinusoidal' | 'rope' | 'alibi' | 't5' | 'learned';
export const POSITIONAL_TYPES: readonly PositionalType[];
export type Positional =
  | { type: 'none' }
  /** x = E[t] * embedScale + PE; base: {{BASE}}; layout default 'interleaved' */
  | { type: 'sinusoidal'; base?: number; layout?: SinusoidalLayout }
  /** q and k rotated in every layer; base: {{BASE}}; rotaryDim default headDim, layout default 'half', precision default 'float64' */
  | { type: 'rope'; base?: number; scaling?: RopeScaling | null; rotaryDim?: number; layout?: RopeLayout; precision?: RopePrecision; mropeSection?: readonly [number, number, number]; mropeInterleaved?: boolean }
  /** -m_h |i - j| added to the scores; maxBias: {{MAX_BIAS}} */
  | { type: 'alibi'; maxBias?: number }
  /** a learned bucket bias (tensor relative_attention_bias.weight [numBuckets][heads]), shared by all layers */
  | { type: 't5'; /** {{NUM_BUCKETS}} */ numBuckets?: number; /** {{MAX_DISTANCE}} */ maxDistance?: number; /** default true */ bidirectional?: boolean }
  /** x = E[t] * embedScale + pos_embed[s] (tensor pos_embed.weight [maxLength][dModel]); at most maxLength tokens */
  | { type: 'learned'; maxLength: number };

/**
 * The multiplier of each query at absolute position p, after RoPE, in every layer (include/posenc.h,
 * posenc_query_scale): Llama 4's temperature tuning, log(floor((p + 1) / floorScale) + 1) * attnScale + 1
 * (transformers' Llama4TextConfig defaults); Ministral 3's 1 + beta log(1 + floor(p / originalMaxPositionEmbeddings)).
 */
export type QueryScale =
  | { type: 'none' }
  | { type: 'llama4'; /** {{FLOOR_SCALE}} */ floorScale?: number; /** {{ATTN_SCALE}} (0: no scale) */ attnScale?: number }
  | { type: 'ministral3'; beta: number; originalMaxPositionEmbeddings: number };

export const SAFETENSORS_DTYPES: readonly ('F32' | 'F16' | 'BF16' | 'F64')[];
export interface Tensor {
  shape: number[];
  data: Float32Array | Float64Array | number[];
  /** 'F32' (default when writing), 'F16', 'BF16' ('F64' when read) */
  dtype?: 'F32' | 'F16' | 'BF16' | 'F64';
}
/** A tensor as readSafetensors and encoder.tensors() return it. */
export interface Float32Tensor {
  dtype: 'F32' | 'F16' | 'BF16' | 'F64';
  shape: number[];
  data: Float32Array;
}
/**
 * Reads a .safetensors file: every floating tensor converted to Float32Array; validated as the reference parser does.
 * Every tensor name is an own key of `tensors`, '__proto__' included (the object keeps Object.prototype).
 */
export function readSafetensors(bytes: Uint8Array | ArrayBuffer): {
  tensors: Record<string, Float32Tensor>;
  metadata: Record<string, string>;
};
/** Writes tensors (in key order, own keys, '__proto__' included) as a .safetensors file; a bare Float32Array is a 1-D tensor. */
export function writeSafetensors(
  tensors: Record<string, Tensor | Float32Array>,
  options?: { metadata?: Record<string, string> },
): Uint8Array;

export interface EncoderShapeOptions {
  vocabSize: number;
  dModel: number;
  /** dModel must be a multiple of heads */
  heads: number;
  dFF: number;
  /** >= 0 */
  layers: number;
  /** default { type: 'sinusoidal' } */
  positional?: Positional;
  /** 'pre': x + f(LN(x)); 'post': LN(x + f(x)); default 'pre' */
  norm?: 'pre' | 'post';
  /** default 'relu'; 'gelu' = erf form (torch nn.GELU()); 'gelu_tanh' = tanh form (HF gelu_new) */
  activation?: 'relu' | 'gelu' | 'gelu_tanh' | 'silu';
  /** a layer norm after the last layer (tensors norm.weight, norm.bias); default false */
  finalNorm?: boolean;
  /** default (and 0) sqrt(dModel) */
  embedScale?: number;
  /** {{NORM_EPS}} */
  normEps?: number;
  /** rows of language_embed.weight, added to every token by forward({ language }); default 0 */
  languages?: number;
  /** a linear head head.weight [classes][dModel], head.bias on the pooled output; default 0 */
  classes?: number;
  /** an LM head lm_head.weight [vocabSize][dModel], no bias, for logits(); default false */
  lmHead?: boolean;
  /** the LM head is embed.weight (no lm_head.weight tensor); implies lmHead; default false */
  tieEmbeddings?: boolean;
  /** keep every layer's attention probabilities for attention(layer) (layers * heads * seq^2 floats a pass); default false */
  keepAttention?: boolean;
  /** a per-position multiplier of every query; default none */
  queryScale?: QueryScale;
  /** every norm LayerNorm ('layer', weight and bias) or RMSNorm ('rms', weight only); default 'layer' */
  normKind?: 'layer' | 'rms';
  /** 'plain': linear1, linear2 with biases; 'gated': mlp.{gate,up,down}_proj, down(act(gate(x)) * up(x)), no biases; default 'plain' */
  mlp?: 'plain' | 'gated';
  /** {{KV_HEADS}}; key and value heads (grouped-query attention), heads a multiple of it; default heads */
  kvHeads?: number;
  /** {{BLOCK_HEAD_DIM}}; features per head, apart from dModel / heads (the default) */
  headDim?: number;
  /** which projections have a bias: 'all' (q, k, v, out), 'none', 'qkv'; default 'all' */
  attentionBias?: 'all' | 'none' | 'qkv';
  /** each head's q and k RMS-normalised (self_attn.q_norm.weight, k_norm.weight [headDim]) before RoPE; default false */
  qkNorm?: boolean;
  /** {{WINDOW}}; a sliding window: query i attends to keys j with i - j < window (0: none); default 0 */
  window?: number;
}
/** The metadata key under which encoder.toSafetensors() writes the options as JSON: 'posenc.config'. */
export const CONFIG_METADATA_KEY: 'posenc.config';
export interface EncoderOptions extends Partial<EncoderShapeOptions> {
  /**
   * { seed } (deterministic initialisation), the bytes of a .safetensors file, or tensors by name
   * ({ name: { shape, data } }, readSafetensors' result or its .tensors). Names: encoderTensorShapes(),
   * PyTorch's layers.{i}.self_attn.in_proj_weight / in_proj_bias accepted for q, k, v.
   * A file whose metadata holds 'posenc.config' (encoder.toSafetensors()) brings its options:
   * vocabSize etc. may then be left out; options given here win over the file's, key by key.
   */
  weights: { seed: number } | Uint8Array | ArrayBuffer | Record<string, Tensor | Float32Array> | { tensors: Record<string, Tensor>; metadata?: Record<string, string> };
}
export interface ForwardOptions<Out> {
  /**
   * explicit position ids, one per token (default 0 .. seq - 1): randomized positions (Ruoss et al. 2023),
   * packed or padded sequences. Each {{TOKEN_POSITIONS}} (below positional.maxLength for 'learned'); every
   * positional term reads them, the causal mask stays by token order
   */
  positions?: Int32Array | number[];
  /** 1 = token, 0 = padding (never attended to, excluded from pooling); length tokens.length */
  mask?: ArrayLike<number | boolean>;
  /** token i attends to keys j <= i only; default false */
  causal?: boolean;
  /** a row of language_embed added to every token (encoders with languages > 0) */
  language?: number;
  out?: Out;
}
export type Tokens = Int32Array | Uint8Array | Uint16Array | Uint32Array | Int16Array | Int8Array | number[];
/**
 * How generate() and stream() choose tokens. Greedy by default: the largest logit (the first of equal
 * ones; NaN the largest, as torch.argmax). temperature > 0 samples from softmax(logits / temperature),
 * within topK and topP, from a SplitMix64 stream seeded by seed: the same seed gives the same tokens
 * in every build.
 */
export interface GenerateOptions {
  /** the most new tokens; the sequence must hold prompt.length + maxNewTokens - 1 */
  maxNewTokens: number;
  /** generation ends after any of these ids (it is returned, not fed); default none */
  stopTokens?: Tokens;
  /** {{TEMPERATURE}}; 0: greedy; default 0 */
  temperature?: number;
  /** {{TOP_K}}; only the topK most probable tokens (0: all); default 0 */
  topK?: number;
  /** {{TOP_P}}; the fewest most probable tokens whose probabilities reach topP (0 or 1: all); default 0 */
  topP?: number;
  /** the sampler's seed: an integer from 0 to 2^53 - 1, or a bigint below 2^64; default 0 */
  seed?: number | bigint;
}
/**
 * Incremental decoding with a KV cache, held by C's decoder state (include/posenc_encoder.h,
 * posenc_decoder_*), made by encoder.decoder(). Each feed appends tokens and returns the next-token
 * logits after the last of them: row length - 1 of encoder.logits(all tokens so far, { causal: true }),
 * at O(length) per token.
 */
export interface Decoder {
  /** tokens in the cache */
  readonly length: number;
  /** the most tokens the sequence may hold */
  readonly maxLength: number;
  /** bytes of wasm memory the decoder holds (its cache grows with the sequence) */
  readonly memoryBytes: number;
  /** appends a prompt or one token; returns the next-token logits [vocabSize]. A call that throws changes nothing. */
  feed<Out extends Float32Target = Float32Array>(tokens: number | Tokens, options?: { positions?: Int32Array | number[]; out?: Out }): Out;
  /** feeds the prompt and generates in C: the new tokens, at most maxNewTokens; the sequence keeps them but the last */
  generate(prompt: Tokens, options: GenerateOptions): Int32Array;
  /** generate() a token at a time: yields each new token as it is chosen */
  stream(prompt: Tokens, options: GenerateOptions): Generator<number, void, undefined>;
  /** a new sequence (length 0), the memory kept */
  reset(): void;
  /** frees the cache; later calls throw */
  dispose(): void;
}
export interface Encoder {
  /** the resolved options, defaults filled in */
  readonly config: Readonly<Required<Omit<EncoderShapeOptions, 'positional' | 'queryScale'>> & { positional: Positional; queryScale?: QueryScale }>;
  readonly parameterCount: number;
  /** the output [seq][dModel] */
  forward<Out extends Float32Target = Float32Array>(tokens: Tokens, options?: ForwardOptions<Out>): Out;
  /** mean over the unmasked tokens of the output, [dModel] */
  pool<Out extends Float32Target = Float32Array>(tokens: Tokens, options?: ForwardOptions<Out>): Out;
  /** next-token logits [seq][vocabSize] (lmHead or tieEmbeddings); pass causal: true for a language model */
  logits<Out extends Float32Target = Float32Array>(tokens: Tokens, options?: ForwardOptions<Out>): Out;
  /** a KV-cache decoder (lmHead or tieEmbeddings); maxLength {{DECODER_MAX_LENGTH}}, default: positional.maxLength for 'learned', else 2^31 */
  decoder(options?: { maxLength?: number; language?: number }): Decoder;
  /** generation with a KV cache on a decoder made for the call: greedy by default, the new tokens after prompt */
  generate(prompt: Tokens, options: GenerateOptions & { language?: number }): Int32Array;
  /** generate() a token at a time: yields each new token as it is chosen */
  stream(prompt: Tokens, options: GenerateOptions & { language?: number }): Generator<number, void, undefined>;
  /** the head's logits on the pooled output, [classes] */
  classify<Out extends Float32Target = Float32Array>(tokens: Tokens, options?: ForwardOptions<Out>): Out;
  /** attention probabilities of the last call in a layer, [heads][seq][seq] (query rows, key columns) */
  attention(layer: number): Float32Array;
  /** every tensor by name, copied (for writeSafetensors) */
  tensors(): Record<string, Float32Tensor>;
  /** a self-contained .safetensors file: tensors() plus config as JSON under metadata 'posenc.config' */
  toSafetensors(options?: { metadata?: Record<string, string> }): Uint8Array;
  /** frees the encoder's wasm memory; later calls throw */
  dispose(): void;
}
/** A tiny transformer encoder in wasm; every positional scheme. Call dispose() when done. */
export function createEncoder(options: EncoderOptions): Encoder;
/** A Hugging Face causal LM run by posenc's engine (createModel). Call dispose() when done. */
export interface Model {
  /** the model_type served (the text model's): 'llama', 'mistral', 'qwen2' or 'qwen3' */
  readonly modelType: string;
  /** the engine's options read from config.json (createEncoder's, resolved) */
  readonly options: Encoder['config'];
  /** RoPE as ropeFromConfig reads the config */
  readonly rope: Readonly<RopeConfigOptions>;
  /** the checkpoint's parameters (values) */
  readonly parameterCount: number;
  /** how wasm memory holds the matrices: 'F16' or 'BF16' when every matrix of the checkpoint has that dtype (kept as given), else 'F32' */
  readonly weightFormat: 'F32' | 'F16' | 'BF16';
  /** bytes of wasm memory the weights take: 4 a value, 2 a matrix value with weightFormat F16 or BF16 */
  readonly weightBytes: number;
  /** next-token logits [seq][vocabSize], causal attention (the checkpoint's forward pass) */
  logits<Out extends Float32Target = Float32Array>(tokens: Tokens, options?: { positions?: Int32Array | number[]; out?: Out }): Out;
  /** a KV-cache decoder */
  decoder(options?: { maxLength?: number }): Decoder;
  /** generation with a KV cache: greedy by default, the new tokens after prompt */
  generate(prompt: Tokens, options: GenerateOptions): Int32Array;
  /** generate() a token at a time: yields each new token as it is chosen */
  stream(prompt: Tokens, options: GenerateOptions): Generator<number, void, undefined>;
  /** frees the model's wasm memory (its decoders' too); later calls throw */
  dispose(): void;
}
/**
 * A Hugging Face Llama-style checkpoint run by posenc's engine: config is config.json parsed
 * (model_type llama, mistral, qwen2, qwen3, or one of them as text_config), weights the bytes
 * of model.safetensors or an Array of its shards (F32, F16 or BF16), index optionally
 * model.safetensors.index.json parsed. See docs/encoder.md.
 */
export function createModel(options: { config: object; weights: Uint8Array | ArrayBuffer | Array<Uint8Array | ArrayBuffer>; index?: object }): Model;
/** The tensor names and shapes createEncoder expects, in parameter order; at most 2^21 tensors (a RangeError past that). */
export function encoderTensorShapes(options: EncoderShapeOptions): Record<string, number[]>;
/** Stable softmax of each row (cols wide, default one row), in place; -Infinity = masked. */
export function softmax<X extends Float32Target>(x: X, options?: { cols?: number }): X;

