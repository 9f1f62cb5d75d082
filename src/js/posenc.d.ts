// Type declarations for posenc. Layouts, formulas and errors: README.md.

// URL, Response and WebAssembly are globals of the DOM lib or @types/node, not of plain
// ES libs: read off globalThis (never when absent), so these declarations type-check
// under any `lib` setting without skipLibCheck.
type GlobalInstance<K extends string> = typeof globalThis extends { [key in K]: { prototype: infer T } } ? T : never;
type WasmModule = typeof globalThis extends { WebAssembly: { Module: { prototype: infer T } } } ? T : never;

/** Where init() loads the wasm from; by default the bytes inlined in the package. */
export type WasmSource =
  | string
  | GlobalInstance<'URL'>
  | GlobalInstance<'Response'>
  | Promise<GlobalInstance<'Response'>>
  | ArrayBuffer
  | ArrayBufferView
  | WasmModule;

/** Loads the WebAssembly module; await once before any compute call (idempotent). */
export function init(options?: {
  wasm?: WasmSource;
  /** false forces the baseline (non-SIMD) build of the inline wasm; results are bit-identical */
  simd?: boolean;
}): Promise<void>;
/** True when this engine runs WASM SIMD. */
export function simdSupported(): boolean;
/** Which wasm init() loaded: the inline 'simd' or 'baseline' build, or 'custom' (options.wasm); null before. */
export function wasmBuild(): 'simd' | 'baseline' | 'custom' | null;
/** True once init() has resolved. */
export function isReady(): boolean;

export type WasmArrayType = 'float32' | 'int32' | 'float64';
type ArrayOf<T extends WasmArrayType> = T extends 'float32' ? Float32Array : T extends 'int32' ? Int32Array : Float64Array;

/**
 * An array that lives in wasm memory (the zero-copy path). `.array` is a view
 * re-derived whenever memory grows: read it when needed, do not keep it across
 * posenc calls. free() it once.
 */
export class WasmArray<T extends WasmArrayType = WasmArrayType> {
  private constructor();
  readonly type: T;
  readonly length: number;
  readonly array: ArrayOf<T>;
  readonly freed: boolean;
  free(): void;
}
/** Allocates a zero-filled array in wasm memory. */
export function allocate<T extends WasmArrayType>(type: T, length: number): WasmArray<T>;

/** What posenc holds in wasm memory now (for leak checks). */
export function memoryStats(): { memoryBytes: number; allocatedBytes: number; liveArrays: number };

/** A caller array: a typed array in JS memory or a WasmArray of the same element type. */
export type Float32Target = Float32Array | WasmArray<'float32'>;
export type Int32Target = Int32Array | WasmArray<'int32'>;

/**
 * 'interleaved'   [s0 c0 s1 c1 ...], w_i = base^(-2i/d) (Vaswani; the default)
 * 'concatenated'  [s0 s1 ... | c0 c1 ...], w_i = base^(-2i/d) (Transformer-XL, GPT-J)
 * 'tensor2tensor' [sines | cosines], w_i = base^(-i/max(d/2-1, 1)); odd d: zero last column
 * 'fairseq'       as 'tensor2tensor', dModel >= 4 (fairseq's formula divides by zero below)
 */
export type SinusoidalLayout = 'interleaved' | 'concatenated' | 'tensor2tensor' | 'fairseq';
export const LAYOUTS: readonly SinusoidalLayout[];

export interface TableOptions {
  /** frequency base, > 1; default 10000 */
  base?: number;
  /** position of the first row, an int32; default 0 */
  offset?: number;
  /** default 'interleaved' */
  layout?: SinusoidalLayout;
}

export interface SinusoidalOptions<Out extends Float32Target = Float32Array> extends TableOptions {
  /** rows (positions), 0 .. 2^31-1 */
  length: number;
  /** columns (features), >= 1 */
  dModel: number;
  /** filled and returned when given; length * dModel elements */
  out?: Out;
}
/** The table [length][dModel], row r = position offset + r. */
export function sinusoidal(options: SinusoidalOptions<Float32Array>): Float32Array;
export function sinusoidal<Out extends Float32Target>(options: SinusoidalOptions<Out> & { out: Out }): Out;

/**
 * The angular frequencies w_i (radians per position), one per sine column:
 * ceil(dModel/2) values ('interleaved', 'concatenated'), floor(dModel/2)
 * ('tensor2tensor', 'fairseq'). The notebook's denominators are 1 / w_i.
 */
export function sinusoidalFrequencies(options: { dModel: number; base?: number; layout?: SinusoidalLayout }): Float64Array;

export interface AddSinusoidalOptions extends TableOptions {
  dModel: number;
  /** default 1; seq = x.length / (batch * dModel) */
  batch?: number;
  /** 'bsd' = [batch][seq][dModel] (default), 'sbd' = [seq][batch][dModel] */
  order?: 'bsd' | 'sbd';
  /** x = x * scale + PE; default 1 (the seed article uses sqrt(dModel)) */
  scale?: number;
}
/** Adds the table to x in place and returns x. */
export function addSinusoidal<X extends Float32Target>(x: X, options: AddSinusoidalOptions): X;

export interface RelativePositionsOptions<Out extends Int32Target = Int32Array> {
  queryLength: number;
  /** default queryLength */
  keyLength?: number;
  /** added to every entry; default 0 */
  shift?: number;
  out?: Out;
}
/** rpe[i][j] = j - i + shift, [queryLength][keyLength] as int32. */
export function relativePositions(options: RelativePositionsOptions<Int32Array>): Int32Array;
export function relativePositions<Out extends Int32Target>(options: RelativePositionsOptions<Out> & { out: Out }): Out;

// ---------------------------------------------------------------- RoPE
// Formulas (Hugging Face modeling_rope_utils.py), layouts and accuracy: include/posenc.h.

export type RopeType = 'default' | 'linear' | 'dynamic' | 'yarn' | 'llama3' | 'longrope';
export const ROPE_TYPES: readonly RopeType[];
/** 'half' pairs (k, k + rotaryDim/2) (GPT-NeoX, LLaMA, HF rotate_half); 'interleaved' pairs (2k, 2k+1) (GPT-J, RoFormer, Meta). */
export type RopeLayout = 'half' | 'interleaved';
export const ROPE_LAYOUTS: readonly RopeLayout[];
/** 'float64': angles in double (default); 'float32': the float32 recipe float32(p) * float32(f), for parity with models trained with it. */
export type RopePrecision = 'float64' | 'float32';

/** Hugging Face's rope_scaling parameters in camelCase, by type. */
export type RopeScaling =
  | { type: 'default' }
  /** position interpolation: f / factor */
  | { type: 'linear'; factor: number }
  /** NTK-aware dynamic base at seqLength (default maxPositionEmbeddings; applyRope/ropeCache: largest position + 1) */
  | { type: 'dynamic'; factor: number; maxPositionEmbeddings: number; seqLength?: number }
  /** YaRN (Peng et al. 2023). factor defaults to maxPositionEmbeddings / originalMaxPositionEmbeddings,
   *  originalMaxPositionEmbeddings to maxPositionEmbeddings. */
  | {
      type: 'yarn';
      factor?: number;
      originalMaxPositionEmbeddings?: number;
      maxPositionEmbeddings?: number;
      /** default 32 */ betaFast?: number;
      /** default 1 */ betaSlow?: number;
      mscale?: number;
      mscaleAllDim?: number;
      attentionFactor?: number;
      /** default true */ truncate?: boolean;
    }
  /** Llama 3.1: highFreqFactor > lowFreqFactor (maxPositionEmbeddings is accepted and unused) */
  | {
      type: 'llama3';
      factor: number;
      lowFreqFactor: number;
      highFreqFactor: number;
      originalMaxPositionEmbeddings: number;
      maxPositionEmbeddings?: number;
    }
  /** LongRoPE (Phi-3): longFactor when seqLength > originalMaxPositionEmbeddings, else shortFactor;
   *  each rotaryDim / 2 numbers. factor defaults to maxPositionEmbeddings / originalMaxPositionEmbeddings. */
  | {
      type: 'longrope';
      shortFactor: ArrayLike<number>;
      longFactor: ArrayLike<number>;
      originalMaxPositionEmbeddings?: number;
      maxPositionEmbeddings?: number;
      factor?: number;
      attentionFactor?: number;
      seqLength?: number;
    };

export interface RopeFrequencyOptions {
  /** even, >= 2 (>= 4 for 'dynamic') */
  rotaryDim: number;
  /** rope_theta, > 1; default 10000 */
  base?: number;
  /** default: no scaling */
  scaling?: RopeScaling | null;
}
/** Inverse frequencies (rotaryDim / 2 values, radians per position) and the attention factor folded into cos/sin. */
export function ropeFrequencies(options: RopeFrequencyOptions): { invFreq: Float64Array; attentionFactor: number };

/** The options of a Hugging Face config.json: spread them into ropeFrequencies, ropeCache or applyRope. */
export function ropeFromConfig(config: Record<string, unknown>, options?: { layerType?: string }): RopeFrequencyOptions;

export interface RopeCacheOptions extends RopeFrequencyOptions {
  /** rows; default positions.length */
  length?: number;
  /** position of row 0 (int32), default 0; excludes positions */
  offset?: number;
  /** one absolute position per row */
  positions?: Int32Array | WasmArray<'int32'>;
  precision?: RopePrecision;
  /** filled and returned: two disjoint arrays of length * rotaryDim / 2 floats */
  out?: { cos: Float32Target; sin: Float32Target };
}
/** cos/sin caches [length][rotaryDim / 2], attention factor folded in (HF's caches repeat these columns twice). */
export function ropeCache(options: RopeCacheOptions & { out?: undefined }): { cos: Float32Array; sin: Float32Array };
export function ropeCache<O extends { cos: Float32Target; sin: Float32Target }>(options: RopeCacheOptions & { out: O }): O;

export interface ApplyRopeOptions {
  heads: number;
  headDim: number;
  /** even, <= headDim; default headDim. Features >= rotaryDim are untouched. */
  rotaryDim?: number;
  /** default 'half' */
  layout?: RopeLayout;
  base?: number;
  /** position of row 0 (int32), default 0; excludes positions */
  offset?: number;
  /** seq entries (one per row) or batch * seq (one per batch and row) */
  positions?: Int32Array | WasmArray<'int32'>;
  scaling?: RopeScaling | null;
  /** default 1; seq = x.length / (batch * heads * headDim) */
  batch?: number;
  precision?: RopePrecision;
}
/** Rotates x, [batch][seq][heads][headDim], in place and returns it. */
export function applyRope<X extends Float32Target>(x: X, options: ApplyRopeOptions): X;

export interface RopePermuteOptions<Out extends Float32Target = Float32Array> {
  heads: number;
  headDim: number;
  /** default headDim */
  rotaryDim?: number;
  from: RopeLayout;
  to: RopeLayout;
  /** filled and returned; w.length floats, must not overlap w */
  out?: Out;
}
/**
 * Permutes the rows of a [heads * headDim][inFeatures] q/k projection (or a bias, inFeatures = 1) between layouts;
 * 'interleaved' -> 'half' is HF's convert_llama_weights_to_hf permute().
 */
export function ropePermuteWeights(w: Float32Target, options: RopePermuteOptions<Float32Array>): Float32Array;
export function ropePermuteWeights<Out extends Float32Target>(w: Float32Target, options: RopePermuteOptions<Out> & { out: Out }): Out;


/**
 * ALiBi slopes (Press et al. 2022, the paper's get_slopes): n a power of two:
 * m_h = 2^(-maxBias * (h + 1) / n); otherwise the slopes of the largest power
 * of two p < n, then the odd-numbered slopes of 2p, unsorted (3 heads: [1/16, 1/256, 1/4]).
 * @param heads >= 1
 */
export function alibiSlopes(heads: number, options?: { /** > 0; default 8 */ maxBias?: number }): Float64Array;

export interface AlibiBiasOptions<Out extends Float32Target = Float32Array> {
  /** attention heads, >= 1 */
  heads: number;
  queryLength: number;
  /** default queryLength */
  keyLength?: number;
  /** default true: -m*(i-j) for j <= i and -Infinity for j > i; false: -m*|i-j| */
  causal?: boolean;
  /** position of query row 0 (cached keys before it), >= 0; default 0 */
  queryOffset?: number;
  /** > 0; default 8 */
  maxBias?: number;
  /** filled and returned when given; heads * queryLength * keyLength elements */
  out?: Out;
}
/** The ALiBi bias [heads][queryLength][keyLength]; query row r is position queryOffset + r. */
export function alibiBias(options: AlibiBiasOptions<Float32Array>): Float32Array;
export function alibiBias<Out extends Float32Target>(options: AlibiBiasOptions<Out> & { out: Out }): Out;

export interface T5BucketOptions {
  queryLength: number;
  /** default queryLength */
  keyLength?: number;
  /** default true (the encoder); false: the decoder's causal buckets */
  bidirectional?: boolean;
  /** default 32; even and >= 4 when bidirectional, >= 2 otherwise */
  numBuckets?: number;
  /** default 128; > numBuckets/4 (bidirectional) or numBuckets/2 */
  maxDistance?: number;
  /** position of query row 0, >= 0; default 0 */
  queryOffset?: number;
}
export interface T5BucketsOptions<Out extends Int32Target = Int32Array> extends T5BucketOptions {
  /** queryLength * keyLength elements */
  out?: Out;
}
/** T5's buckets of key - query, Int32Array [queryLength][keyLength], each in [0, numBuckets). */
export function t5Buckets(options: T5BucketsOptions<Int32Array>): Int32Array;
export function t5Buckets<Out extends Int32Target>(options: T5BucketsOptions<Out> & { out: Out }): Out;

export interface T5BiasOptions<Out extends Float32Target = Float32Array> extends T5BucketOptions {
  /** >= 1 */
  heads: number;
  /** the learned table [numBuckets][heads], row-major (nn.Embedding(num_buckets, n_heads).weight) */
  weights: Float32Target;
  /** heads * queryLength * keyLength elements; must not overlap weights */
  out?: Out;
}
/** T5's relative bias [heads][queryLength][keyLength] = weights[bucket][head]. */
export function t5Bias(options: T5BiasOptions<Float32Array>): Float32Array;
export function t5Bias<Out extends Float32Target>(options: T5BiasOptions<Out> & { out: Out }): Out;

export interface DebertaBucketsOptions<Out extends Int32Target = Int32Array> {
  queryLength: number;
  /** default queryLength */
  keyLength?: number;
  /** default 256, >= 2 */
  bucketSize?: number;
  /** default 512, > bucketSize / 2 + 1 */
  maxPosition?: number;
  /** queryLength * keyLength elements */
  out?: Out;
}
/** DeBERTa-v2's log buckets of query - key (T5's opposite sign), Int32Array [queryLength][keyLength]. */
export function debertaBuckets(options: DebertaBucketsOptions<Int32Array>): Int32Array;
export function debertaBuckets<Out extends Int32Target>(options: DebertaBucketsOptions<Out> & { out: Out }): Out;

export interface TransformerXLEmbeddingOptions<Out extends Float32Target = Float32Array> {
  /** rows; row r is position keyLength - 1 - r */
  keyLength: number;
  /** even, >= 2: [sin | cos], dModel/2 frequencies 10000^(-2k/dModel) */
  dModel: number;
  /** positions above it are clamped to it; 0 (default): no clamping */
  clampLength?: number;
  /** keyLength * dModel elements */
  out?: Out;
}
/** Transformer-XL's relative sinusoid, [keyLength][dModel], positions descending. */
export function transformerXLEmbedding(options: TransformerXLEmbeddingOptions<Float32Array>): Float32Array;
export function transformerXLEmbedding<Out extends Float32Target>(
  options: TransformerXLEmbeddingOptions<Out> & { out: Out },
): Out;

// ---------------------------------------------------------------- tiny encoder
// Formulas, parameter layout and accuracy: include/posenc.h (posenc_encoder_forward).

export type PositionalType = 'none' | 'sinusoidal' | 'rope' | 'alibi' | 't5' | 'learned';
export const POSITIONAL_TYPES: readonly PositionalType[];
export type Positional =
  | { type: 'none' }
  /** x = E[t] * embedScale + PE; base default 10000, layout default 'interleaved' */
  | { type: 'sinusoidal'; base?: number; layout?: SinusoidalLayout }
  /** q and k rotated in every layer; rotaryDim default headDim, layout default 'half' */
  | { type: 'rope'; base?: number; scaling?: RopeScaling | null; rotaryDim?: number; layout?: RopeLayout; precision?: RopePrecision }
  /** -m_h |i - j| added to the scores; maxBias default 8 */
  | { type: 'alibi'; maxBias?: number }
  /** a learned bucket bias (tensor relative_attention_bias.weight [numBuckets][heads]), shared by all layers */
  | { type: 't5'; numBuckets?: number; maxDistance?: number; bidirectional?: boolean }
  /** x = E[t] * embedScale + pos_embed[s] (tensor pos_embed.weight [maxLength][dModel]); at most maxLength tokens */
  | { type: 'learned'; maxLength: number };

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
/** Reads a .safetensors file: every floating tensor converted to Float32Array; validated as the reference parser does. */
export function readSafetensors(bytes: Uint8Array | ArrayBuffer): {
  tensors: Record<string, Float32Tensor>;
  metadata: Record<string, string>;
};
/** Writes tensors (in key order) as a .safetensors file; a bare Float32Array is a 1-D tensor. */
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
  /** 'pre' (default): x + f(LN(x)); 'post': LN(x + f(x)) */
  norm?: 'pre' | 'post';
  /** default 'relu'; 'gelu' = erf form (torch nn.GELU()); 'gelu_tanh' = tanh form (HF gelu_new) */
  activation?: 'relu' | 'gelu' | 'gelu_tanh';
  /** a layer norm after the last layer (tensors norm.weight, norm.bias); default false */
  finalNorm?: boolean;
  /** default (and 0) sqrt(dModel) */
  embedScale?: number;
  /** default 1e-5 */
  normEps?: number;
  /** rows of language_embed.weight, added to every token by forward({ language }); default 0 */
  languages?: number;
  /** a linear head head.weight [classes][dModel], head.bias on the pooled output; default 0 */
  classes?: number;
  /** an LM head lm_head.weight [vocabSize][dModel], no bias, for logits(); default false */
  lmHead?: boolean;
  /** the LM head is embed.weight (no lm_head.weight tensor); implies lmHead; default false */
  tieEmbeddings?: boolean;
  /** keep every layer's attention probabilities for attention(layer); default true */
  keepAttention?: boolean;
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
  /** 1 = token, 0 = padding (never attended to, excluded from pooling); length tokens.length */
  mask?: ArrayLike<number | boolean>;
  /** token i attends to keys j <= i only; default false */
  causal?: boolean;
  /** a row of language_embed added to every token (encoders with languages > 0) */
  language?: number;
  out?: Out;
}
export type Tokens = Int32Array | Uint8Array | Uint16Array | Uint32Array | Int16Array | Int8Array | number[];
export interface Encoder {
  /** the resolved options, defaults filled in */
  readonly config: Readonly<Required<Omit<EncoderShapeOptions, 'positional'>> & { positional: Positional }>;
  readonly parameterCount: number;
  /** the output [seq][dModel] */
  forward<Out extends Float32Target = Float32Array>(tokens: Tokens, options?: ForwardOptions<Out>): Out;
  /** mean over the unmasked tokens of the output, [dModel] */
  pool<Out extends Float32Target = Float32Array>(tokens: Tokens, options?: ForwardOptions<Out>): Out;
  /** next-token logits [seq][vocabSize] (lmHead or tieEmbeddings); pass causal: true for a language model */
  logits<Out extends Float32Target = Float32Array>(tokens: Tokens, options?: ForwardOptions<Out>): Out;
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
/** The tensor names and shapes createEncoder expects, in parameter order. */
export function encoderTensorShapes(options: EncoderShapeOptions): Record<string, number[]>;
/** Stable softmax of each row (cols wide, default one row), in place; -Infinity = masked. */
export function softmax<X extends Float32Target>(x: X, options?: { cols?: number }): X;
/**
 * A new tensors object in which head `head` of layer `layer` attends to the previous token from RoPE alone
 * (q and k are constant biases, the key rotated by -f_k per pair); the logit of j = i - 1 beats every other
 * key within maxLength (default 512) by margin (default 10).
 */
export function previousTokenHead(
  tensors: Record<string, Float32Tensor | Tensor>,
  options: { heads: number; positional?: Positional; layer?: number; head?: number; margin?: number; maxLength?: number },
): Record<string, Float32Tensor>;

