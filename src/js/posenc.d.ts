// Type declarations for posenc. Layouts, formulas and errors: README.md.

/** Where init() loads the wasm from; by default the bytes inlined in the package. */
export type WasmSource = string | URL | Response | Promise<Response> | ArrayBuffer | ArrayBufferView | WebAssembly.Module;

/** Loads the WebAssembly module; await once before any compute call (idempotent). */
export function init(options?: { wasm?: WasmSource }): Promise<void>;
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

// @@ rope declarations @@

// @@ biases declarations @@
