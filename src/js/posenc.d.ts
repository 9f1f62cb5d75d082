// Type declarations for posenc. Layouts, formulas and errors: docs/api.md and include/posenc.h.

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

/**
 * Loads the WebAssembly module; await once before any compute call. Later calls
 * join the same load when they ask for nothing else (no options, or the same
 * wasm, or a simd that gives the build chosen); asking for another build or
 * wasm rejects with an Error naming what is loaded. Unknown options are a TypeError.
 */
export function init(options?: {
  wasm?: WasmSource;
  /** false forces the baseline (non-SIMD) build of the inline wasm; results are bit-identical. No effect with wasm. */
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
/**
 * Allocates a zero-filled array in wasm memory: at most 2 GiB (2^29 float32 or
 * int32, 2^28 float64 elements). Wasm memory grows to at most 4 GiB, shared by
 * the live WasmArrays and each call's staged copies of JS arrays: a block that
 * does not fit is a RangeError naming the function and the bytes, and nothing
 * stays allocated.
 */
export function allocate<T extends WasmArrayType>(type: T, length: number): WasmArray<T>;

/** What posenc holds in wasm memory now (for leak checks); memoryBytes is at most 2^32. */
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
  /** frequency base: {{BASE}} */
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
export function sinusoidalFrequencies(options: {
  dModel: number;
  /** frequency base: {{BASE}} */
  base?: number;
  /** default 'interleaved' */
  layout?: SinusoidalLayout;
}): Float64Array;

export interface AddSinusoidalOptions extends TableOptions {
  dModel: number;
  /** default 1; seq = x.length / (batch * dModel) */
  batch?: number;
  /** 'bsd' = [batch][seq][dModel], 'sbd' = [seq][batch][dModel]; default 'bsd' */
  order?: 'bsd' | 'sbd';
  /** x = x * scale + PE; default 1 ("Transformer Encoder Explained" uses sqrt(dModel)) */
  scale?: number;
}
/** Adds the table to x in place and returns x. */
export function addSinusoidal<X extends Float32Target>(x: X, options: AddSinusoidalOptions): X;

// ---------------------------------------------------------------- images and diffusion
// Formulas, sources and layouts: include/posenc.h (posenc_sinusoidal_2d, posenc_timestep_embedding).

export interface Sinusoidal2dOptions<Out extends Float32Target = Float32Array> {
  /** patch rows of the grid, 0 .. 2^31-1 */
  height: number;
  /** patch columns of the grid, 0 .. 2^31-1 */
  width: number;
  /** a multiple of 4: [sin x | cos x | sin y | cos y], dModel/4 frequencies base^(-k/(dModel/4)) */
  dModel: number;
  /** frequency base: {{BASE}} */
  base?: number;
  /** a first row of zeros for the cls token (MAE); default false */
  clsToken?: boolean;
  /** diffusers' base_size: coordinates x / (width / baseSize) / interpolationScale; default none (integer coordinates) */
  baseSize?: number;
  /** diffusers' interpolation_scale, > 0; default 1 */
  interpolationScale?: number;
  /** (clsToken ? 1 : 0) + height * width rows of dModel elements */
  out?: Out;
}
/**
 * MAE's get_2d_sincos_pos_embed (also DiT's and diffusers'): [(clsToken ? 1 : 0) + height * width][dModel].
 * Patch (y, x) is row (clsToken ? 1 : 0) + y * width + x; NOTE the first half holds x, the column.
 */
export function sinusoidal2d(options: Sinusoidal2dOptions<Float32Array>): Float32Array;
export function sinusoidal2d<Out extends Float32Target>(options: Sinusoidal2dOptions<Out> & { out: Out }): Out;

export interface TimestepEmbeddingOptions<Out extends Float32Target = Float32Array> {
  /** real timesteps (fractional ones too), finite */
  timesteps: Float32Array | Float64Array | readonly number[];
  /** >= 1; half = floor(dim / 2) sines and cosines, a zero column when odd */
  dim: number;
  /** [cos | sin] instead of [sin | cos]; default false (Stable Diffusion's UNets and DiT: true) */
  flipSinToCos?: boolean;
  /** w_k = exp(-ln(maxPeriod) k / (half - downscaleFreqShift)); default 1 (SD's UNets and DiT: 0) */
  downscaleFreqShift?: number;
  /** angles scale * t * w_k; default 1 */
  scale?: number;
  /** {{MAX_PERIOD}} */
  maxPeriod?: number;
  /** timesteps.length * dim elements */
  out?: Out;
}
/** diffusers' get_timestep_embedding: [timesteps.length][dim]. */
export function timestepEmbedding(options: TimestepEmbeddingOptions<Float32Array>): Float32Array;
export function timestepEmbedding<Out extends Float32Target>(options: TimestepEmbeddingOptions<Out> & { out: Out }): Out;

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
  /** position interpolation: f / factor (maxPositionEmbeddings is accepted and unused) */
  | { type: 'linear'; factor: number; maxPositionEmbeddings?: number }
  /** NTK-aware dynamic base at seqLength (default maxPositionEmbeddings; applyRope/ropeCache: largest position + 1) */
  | { type: 'dynamic'; factor: number; maxPositionEmbeddings: number; seqLength?: number }
  /** YaRN (Peng et al. 2023). factor defaults to maxPositionEmbeddings / originalMaxPositionEmbeddings,
   *  originalMaxPositionEmbeddings to maxPositionEmbeddings. */
  | {
      type: 'yarn';
      factor?: number;
      originalMaxPositionEmbeddings?: number;
      maxPositionEmbeddings?: number;
      /** {{BETA_FAST}} */ betaFast?: number;
      /** {{BETA_SLOW}} */ betaSlow?: number;
      mscale?: number;
      mscaleAllDim?: number;
      attentionFactor?: number;
      /** default true */ truncate?: boolean;
    }
  /** Llama 3.1, Llama 4: highFreqFactor >= lowFreqFactor (maxPositionEmbeddings is accepted and unused) */
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

/**
 * 2-D RoPE of vision encoders (patch row y on the first rotaryDim / 4 pairs, column x on the rest):
 * 'pixtral'  HF PixtralRotaryEmbedding: the even frequencies rotate by the row, the odd ones by the column
 * 'axial'    the Qwen2-VL / Qwen2.5-VL vision encoder (VisionRotaryEmbedding): both axes base^(-4k/rotaryDim)
 */
export type Rope2d = 'pixtral' | 'axial';
export const ROPE_2D: readonly Rope2d[];

export interface RopeFrequencyOptions {
  /** even, >= 2 (>= 4 for 'dynamic') */
  rotaryDim: number;
  /** rope_theta: {{BASE}} */
  base?: number;
  /** default: no scaling */
  scaling?: RopeScaling | null;
  /**
   * How the model pairs features; it does not change the frequencies or the caches (applyRope's layout,
   * accepted here so that ropeFromConfig's options spread as they are)
   */
  layout?: RopeLayout;
  /**
   * M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): [temporal, height, width] pairs, adding up to rotaryDim / 2;
   * ropeCache and applyRope then take positions [3][seq] (mropePositions), or none for text (plain RoPE)
   */
  mropeSection?: readonly [number, number, number];
  /**
   * Qwen3-VL's arrangement (apply_interleaved_mrope): pair k on axis k % 3 when that axis's section
   * reaches it, else temporal; default false: contiguous sections (Qwen2-VL)
   */
  mropeInterleaved?: boolean;
}
/**
 * Inverse frequencies (rotaryDim / 2 values, radians per position) and the attention factor folded into cos/sin;
 * with rope2d, in the order its pairs use them ([row | column]).
 */
export function ropeFrequencies(options: RopeFrequencyOptions & { rope2d?: Rope2d }): { invFreq: Float64Array; attentionFactor: number };

/** ropeFromConfig's result: the RoPE options of one layer, to spread as they are. */
export interface RopeConfigOptions extends RopeFrequencyOptions {
  /** how the model's modeling code pairs features */
  layout: RopeLayout;
}
/**
 * The RoPE options of one layer of a Hugging Face model from its config.json (the whole file, text_config,
 * rope_scaling or rope_parameters, class defaults per model_type): spread them into ropeFrequencies, ropeCache,
 * applyRope or posenc/encoder's positional { type: 'rope' }. null for a layer without RoPE (NoPE); without
 * layer or layerType, the model's default rotary layer (a config whose flags turn RoPE off in every layer is a
 * TypeError). A model without RoPE is a TypeError naming what it uses (docs/configs.md lists every model_type).
 */
export function ropeFromConfig(config: Record<string, unknown>, options?: { layer?: undefined; layerType?: undefined }): RopeConfigOptions;
export function ropeFromConfig(config: Record<string, unknown>, options: { layer?: number; layerType?: string }): RopeConfigOptions | null;

/** The options of alibiSlopes / alibiBias for an ALiBi model's config.json (BLOOM, MPT, Falcon alibi, Baichuan-13B). */
export function alibiFromConfig(config: Record<string, unknown>): { heads: number; maxBias: number };

/**
 * Per-position query multipliers of one layer (Llama 4's NoPE-layer temperature tuning, Ministral 3's
 * llama_4_scaling_beta); ones where the model scales nothing. Reads the rope dict ropeFromConfig reads; a layerType
 * the config does not have, a layer past num_hidden_layers, a multiplier that is not finite and > 0 in float32 and
 * more than 2^29 values are RangeErrors.
 */
export function queryScalesFromConfig(
  config: Record<string, unknown>,
  options: { layer?: number; layerType?: string } & ({ length: number; offset?: number; positions?: undefined } | { positions: Int32Array | WasmArray<'int32'>; length?: undefined; offset?: undefined }),
): Float32Array;

/** The patch grid of 2-D RoPE: patches in row-major order (Pixtral's position_ids_in_meshgrid). */
export interface PatchGrid {
  height: number;
  width: number;
}
/** Several position axes: M-RoPE (mropeSection, positions [3][rows]) or 2-D RoPE (rope2d, grid or positions [2][rows]). */
export interface RopeAxesOptions {
  /** 2-D RoPE: 'pixtral' or 'axial'; needs grid or positions [2][patches] (rows, then columns), no scaling, rotaryDim % 4 = 0 */
  rope2d?: Rope2d;
  /** with rope2d: the positions of row-major patches */
  grid?: PatchGrid;
}

/** One span of mropePositions: text tokens, or an image / video grid (image_grid_thw, before the 2 x 2 merger). */
export type MropeSpan =
  | { text: number }
  | { image: { t: number; h: number; w: number } | readonly [number, number, number] }
  | { video: { t: number; h: number; w: number; secondsPerGrid?: number } | readonly [number, number, number] };
export interface MropePositionsOptions<Out extends Int32Target = Int32Array> {
  /** e.g. [{ text: 12 }, { image: { t: 1, h: 28, w: 42 } }, { text: 5 }]; text spans count the vision start/end tokens */
  spans: readonly MropeSpan[];
  /** the merger's m (grids shrink by m x m); default 2 */
  spatialMergeSize?: number;
  /** Qwen2.5-VL's vision_config.tokens_per_second (temporal spacing of video frames); default 0: Qwen2-VL */
  tokensPerSecond?: number;
  /** 3 * seq elements */
  out?: Out;
}
/** HF get_rope_index's M-RoPE positions [3][seq] (temporal, height, width) of text and image / video spans. */
export function mropePositions(options: MropePositionsOptions<Int32Array>): Int32Array;
export function mropePositions<Out extends Int32Target>(options: MropePositionsOptions<Out> & { out: Out }): Out;

export interface RopeCacheOptions extends RopeFrequencyOptions, RopeAxesOptions {
  /** rows; default positions.length (divided by the axes) */
  length?: number;
  /** position of row 0 (int32), default 0; excludes positions */
  offset?: number;
  /** one absolute position per row; [3][length] with mropeSection, [2][length] with rope2d */
  positions?: Int32Array | WasmArray<'int32'>;
  /** default 'float64' */
  precision?: RopePrecision;
  /**
   * a model's own inverse frequencies (rotaryDim / 2), used instead of computing them (the attention factor still
   * comes from scaling): with precision 'float32' and transformers' float32 inv_freq buffer, its float32 pipeline
   */
  invFreq?: ArrayLike<number>;
  /** filled and returned: two disjoint arrays of length * rotaryDim / 2 floats */
  out?: { cos: Float32Target; sin: Float32Target };
}
/** cos/sin caches [length][rotaryDim / 2], attention factor folded in (HF's caches repeat these columns twice). */
export function ropeCache(options: RopeCacheOptions & { out?: undefined }): { cos: Float32Array; sin: Float32Array };
export function ropeCache<O extends { cos: Float32Target; sin: Float32Target }>(options: RopeCacheOptions & { out: O }): O;

export interface ApplyRopeOptions extends RopeAxesOptions {
  heads: number;
  headDim: number;
  /** even, <= headDim; default headDim. Features >= rotaryDim are untouched. */
  rotaryDim?: number;
  /** default 'half' */
  layout?: RopeLayout;
  /** rope_theta: {{BASE}} */
  base?: number;
  /** position of row 0 (int32), default 0; excludes positions */
  offset?: number;
  /** seq entries (one per row) or batch * seq (one per batch and row); times 3 ([3][seq] or [3][batch][seq]) with mropeSection, 2 with rope2d */
  positions?: Int32Array | WasmArray<'int32'>;
  scaling?: RopeScaling | null;
  /** M-RoPE: [temporal, height, width] pairs, adding up to rotaryDim / 2 */
  mropeSection?: readonly [number, number, number];
  /** M-RoPE's arrangement: true for Qwen3-VL's interleaving (see RopeFrequencyOptions) */
  mropeInterleaved?: boolean;
  /** a model's own inverse frequencies (see RopeCacheOptions.invFreq) */
  invFreq?: ArrayLike<number>;
  /** default 1; seq = x.length / (batch * heads * headDim) */
  batch?: number;
  /**
   * the axes of x: 'bshd' [batch][seq][heads][headDim], a projection viewed per head;
   * 'bhsd' [batch][heads][seq][headDim], what Hugging Face's apply_rotary_pos_emb receives; default 'bshd'
   */
  order?: 'bshd' | 'bhsd';
  /** default 'float64' */
  precision?: RopePrecision;
}
/** Rotates x, [batch][seq][heads][headDim] or (order 'bhsd') [batch][heads][seq][headDim], in place and returns it. */
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
 */
export function alibiSlopes(options: {
  /** attention heads, >= 1 */
  heads: number;
  /** {{MAX_BIAS}} */
  maxBias?: number;
}): Float64Array;
/** The shorthand alibiSlopes(heads, { maxBias? }): the same as alibiSlopes({ heads, maxBias }). */
export function alibiSlopes(heads: number, options?: { /** {{MAX_BIAS}} */ maxBias?: number }): Float64Array;

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
  /** {{MAX_BIAS}} */
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
  /** {{NUM_BUCKETS}}; even and >= 4 when bidirectional */
  numBuckets?: number;
  /** {{MAX_DISTANCE}}; > numBuckets/4 (bidirectional) or numBuckets/2 */
  maxDistance?: number;
  /** position of query row 0, >= 0; default 0 */
  queryOffset?: number;
}
export interface T5BucketsOptions<Out extends Int32Target = Int32Array> extends T5BucketOptions {
  /** queryLength * keyLength elements */
  out?: Out;
}
/** T5's buckets of key - query, Int32Array [queryLength][keyLength], each in [0, numBuckets); keyLength defaults to queryLength. */
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
/** T5's relative bias [heads][queryLength][keyLength] = weights[bucket][head]; keyLength defaults to queryLength. */
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
/** DeBERTa-v2's log buckets of query - key (T5's opposite sign), Int32Array [queryLength][keyLength]; keyLength defaults to queryLength. */
export function debertaBuckets(options: DebertaBucketsOptions<Int32Array>): Int32Array;
export function debertaBuckets<Out extends Int32Target>(options: DebertaBucketsOptions<Out> & { out: Out }): Out;

export interface TransformerXLEmbeddingOptions<Out extends Float32Target = Float32Array> {
  /** rows; row r is position keyLength - 1 - r */
  keyLength: number;
  /** even, >= 2: [sin | cos], dModel/2 frequencies 10000^(-2k/dModel) */
  dModel: number;
  /** positions above it are clamped to it; 0: no clamping; default 0 */
  clampLength?: number;
  /** keyLength * dModel elements */
  out?: Out;
}
/** Transformer-XL's relative sinusoid, [keyLength][dModel], positions descending. */
export function transformerXLEmbedding(options: TransformerXLEmbeddingOptions<Float32Array>): Float32Array;
export function transformerXLEmbedding<Out extends Float32Target>(
  options: TransformerXLEmbeddingOptions<Out> & { out: Out },
): Out;

/**
 * Every export of 'posenc' as one object (import posenc from 'posenc'). The names of
 * 'posenc/encoder' (createEncoder, readSafetensors, ...) are not on it: reading one throws a
 * TypeError naming 'posenc/encoder'.
 */
declare const posenc: Omit<typeof import('./posenc.js'), 'default'>;
export default posenc;
