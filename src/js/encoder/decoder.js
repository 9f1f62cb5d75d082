// decoder.js: incremental decoding with a KV cache in wasm memory
// (include/posenc.h, posenc_decoder_sizes and posenc_decoder_feed), and the
// greedy generation built on it. An encoder's decoder() makes one; it reads
// the encoder's parameters and holds its own cache, workspace and config.
import { status as STATUS } from '../../../build/abi.js';
import { describe } from '../core/describe.js';
import { WasmArray, allocateFor, countOf, growFloat32, heapCall } from '../core/heap.js';
import { wasm } from '../core/instance.js';
import { INT32_MAX, elementCount, integer, later, readOptions, typedArray } from '../core/options.js';
import { setInto } from '../core/typed.js';
import { CONFIG_WORDS } from './native-config.js';
import { readTokens } from './options.js';

/** Rows a cache starts with when maxLength leaves room (it doubles as the sequence grows). */
const FIRST_CAPACITY = 64;

/**
 * LongRoPE's switch, O: the long factors take over once the sequence passes it
 * (originalMaxPositionEmbeddings, else maxPositionEmbeddings, as the
 * frequencies read it); undefined for every other scheme.
 */
function longRopeSwitch(p) {
  if (p.type !== 'rope' || p.scaling?.type !== 'longrope' || p.scaling.seqLength !== undefined) return undefined;
  return p.scaling.originalMaxPositionEmbeddings ?? p.scaling.maxPositionEmbeddings;
}

/**
 * posenc_decoder_sizes for the config at configPtr: { cache, work } floats
 * for a cache of `rows` rows fed `count` tokens at a time.
 */
function decoderSizes(fn, configPtr, sizesPtr, rows, count) {
  const { exports, memory } = wasm(fn);
  const status = exports.posenc_decoder_sizes(configPtr, rows, count, sizesPtr, sizesPtr + 4);
  if (status === STATUS.ERR_SIZE_OVERFLOW) {
    throw new RangeError(`posenc.${fn}: a cache of ${rows} tokens does not fit in wasm32's size_t (it holds layers * 2 * length * dModel floats)`);
  }
  if (status !== STATUS.OK) throw new Error(`posenc.${fn}: internal error ${status} from posenc_decoder_sizes`);
  const [cache, work] = new Uint32Array(memory.buffer, sizesPtr, 2);
  return { cache: elementCount(fn, { cache }), work: elementCount(fn, { workspace: work }) };
}

/** The index of the largest logit, the first of equal ones; a NaN counts as the largest (torch.argmax). */
export function argmax(logits) {
  let best = 0;
  for (let v = 0; v < logits.length; v++) {
    if (Number.isNaN(logits[v])) return v;
    if (logits[v] > logits[best]) best = v;
  }
  return best;
}

/**
 * A sequence being decoded: its KV cache, the tokens fed so far (`length`),
 * and the next-token logits after each feed. Made by encoder.decoder().
 */
export class Decoder {
  #model; // { config, configBuffer, context, paramsLength, params(fn), forget(decoder) }: what the encoder lends
  #maxLength;
  #language;
  #length = 0;
  #capacity = 0; // the cache's rows per layer now (it grows up to maxLength)
  #buffers = {}; // name -> WasmArray: sizes, cache, work, logits
  #ids = new Int32Array(0); // the tokens fed so far (LongRoPE feeds them again at its switch)
  #disposed = false;

  /** @internal use encoder.decoder() */
  constructor(model, { maxLength, language }) {
    const fn = 'encoder.decoder';
    this.#model = model;
    this.#maxLength = maxLength;
    this.#language = language;
    try {
      this.#buffers.sizes = allocateFor(fn, 'int32', 2);
      this.#buffers.logits = allocateFor(fn, 'float32', model.config.vocabSize);
    } catch (error) {
      this.#free();
      throw error;
    }
  }

  /** Tokens in the cache: every token fed since the decoder was made or reset. */
  get length() {
    return this.#length;
  }

  /** The most tokens the sequence may hold. */
  get maxLength() {
    return this.#maxLength;
  }

  #alive(fn) {
    if (!this.#disposed) return;
    this.#model.params(fn); // throws first when the encoder went, taking its decoders with it
    throw new Error(`posenc.${fn}: the decoder was disposed`);
  }

  /** Keeps the tokens of a feed at [length, end) (LongRoPE's switch feeds them again); rows past length are free until a feed succeeds. */
  #keep(ids, end) {
    if (longRopeSwitch(this.#model.config.positional) === undefined) return;
    if (this.#ids.length < end) {
      const grown = new Int32Array(Math.min(this.#maxLength, Math.max(end, 2 * this.#ids.length)));
      grown.set(this.#ids.subarray(0, this.#length));
      this.#ids = grown;
    }
    this.#ids.set(ids, this.#length);
  }

  /**
   * Room for `end` tokens: the cache grows (doubling, up to maxLength) and
   * keeps its rows, each layer's keys and values moved to the new stride.
   */
  #reserve(fn, end) {
    if (end <= this.#capacity) return;
    const rows = Math.min(this.#maxLength, Math.max(end, FIRST_CAPACITY, 2 * this.#capacity));
    const c = this.#model.config;
    const { cache } = decoderSizes(fn, this.#model.configBuffer.pointer(fn), this.#buffers.sizes.pointer(fn), rows, 1);
    const grown = allocateFor(fn, 'float32', Math.max(cache, 1));
    const old = this.#buffers.cache;
    if (old && this.#length) {
      const from = old.array;
      const to = grown.array; // after the allocation: both views are current
      const plane = (r) => r * c.dModel;
      for (let k = 0; k < 2 * c.layers; k++) {
        to.set(from.subarray(k * plane(this.#capacity), k * plane(this.#capacity) + plane(this.#length)), k * plane(rows));
      }
    }
    if (old) old.free();
    this.#buffers.cache = grown;
    this.#capacity = rows;
  }

  /**
   * Appends tokens (a prompt, or one token) to the sequence and returns the
   * next-token logits after the last of them: a Float32Array [vocabSize],
   * row length - 1 of encoder.logits(all the tokens so far, { causal: true }).
   * A call that throws leaves the sequence as it was.
   * @param {number | Int32Array | number[]} tokens one id, or ids in [0, vocabSize), at least one
   * @param {{ out?: Float32Array }} [options] out: vocabSize floats to fill instead
   * @returns {Float32Array}
   */
  feed(tokens, options = {}) {
    const fn = 'decoder.feed';
    this.#alive(fn);
    const c = this.#model.config;
    const ids = readTokens(fn, typeof tokens === 'number' ? [tokens] : tokens, c.vocabSize);
    const o = readOptions(fn, options, feedSpec);
    if (o.out !== undefined && countOf(o.out) !== c.vocabSize) {
      throw new RangeError(`posenc.${fn}: out must have length vocabSize = ${c.vocabSize}, got ${countOf(o.out)}`);
    }
    const end = this.#length + ids.length;
    if (end > this.#maxLength) {
      const learned = c.positional.type === 'learned' && this.#maxLength === c.positional.maxLength ? ' (positional.maxLength: learned positions stop there)' : '';
      throw new RangeError(
        `posenc.${fn}: the sequence may hold at most maxLength = ${this.#maxLength} tokens${learned}; ${this.#length} are cached, and ${ids.length} more were given`,
      );
    }
    const params = this.#model.params(fn);
    // LongRoPE (Phi-3, Phi-3.5, Phi-4-mini, PhiMoE): when a feed first takes
    // the sequence past the switch O, transformers' generation drops the cache
    // and feeds the whole sequence again (Phi3ForCausalLM
    // prepare_inputs_for_generation: "enforce re-compute cache"), so that
    // every key carries the long factors; the logits are then the full pass's
    const O = longRopeSwitch(c.positional);
    const again = O !== undefined && this.#length > 0 && this.#length <= O && end > O;
    const first = again ? 0 : this.#length;
    const fed = again ? Int32Array.from([...this.#ids.subarray(0, this.#length), ...ids]) : ids;
    const count = fed.length;
    // every check is done: only now may the cache grow
    this.#reserve(fn, end);
    this.#keep(ids, end);
    const configPtr = this.#model.configBuffer.pointer(fn);
    const { cache, work } = decoderSizes(fn, configPtr, this.#buffers.sizes.pointer(fn), this.#capacity, count);
    const workspace = growFloat32(fn, this.#buffers, 'work', work);
    const { exports } = wasm(fn);
    heapCall(
      fn,
      [
        { array: this.#buffers.logits, type: 'float32', length: c.vocabSize },
        { array: this.#model.configBuffer, type: 'float64', length: CONFIG_WORDS },
        { array: params, type: 'float32', length: this.#model.paramsLength },
        { array: this.#buffers.cache, type: 'float32', length: cache },
        { array: workspace, type: 'float32', length: work },
        { array: fed, type: 'int32', length: count, copyIn: true },
      ],
      (pLogits, pConfig, pParams, pCache, pWork, pTokens) => exports.posenc_decoder_feed(
        pLogits, c.vocabSize, pConfig, pParams, this.#model.paramsLength, pCache, cache, this.#capacity, first, pTokens,
        count, this.#language ?? -1, pWork, work,
      ),
      this.#model.context,
    );
    this.#length = end;
    const view = this.#buffers.logits.array;
    if (o.out === undefined) return view.slice();
    if (WasmArray.isBranded(o.out)) o.out.array.set(view);
    else setInto(o.out, view);
    return o.out;
  }

  /** Starts a new sequence (length 0), keeping the memory; RoPE frequencies that follow the length start over. */
  reset() {
    const fn = 'decoder.reset';
    this.#alive(fn);
    this.#length = 0;
  }

  #free() {
    for (const [name, b] of Object.entries(this.#buffers)) {
      if (b && !b.freed) b.free();
      this.#buffers[name] = null;
    }
  }

  /** Frees the cache and the rest of the decoder's wasm memory; later calls throw. Calling it again does nothing. */
  dispose() {
    if (this.#disposed) return;
    this.#free();
    this.#disposed = true;
    this.#model.forget(this);
  }
}

/** encoder.decoder()'s options (language is checked against the encoder's languages). */
export const decoderSpec = {
  maxLength: integer(1, INT32_MAX + 1, { optional: true }),
  language: later({ optional: true }),
};

/** decoder.feed()'s options. */
export const feedSpec = { out: typedArray('float32', { optional: true }) };

/** encoder.decoder()'s options: maxLength, language. */
export function readDecoderOptions(fn, options, c) {
  const o = readOptions(fn, options, decoderSpec);
  const p = c.positional;
  if (p.type === 'learned' && o.maxLength !== undefined && o.maxLength > p.maxLength) {
    throw new RangeError(`posenc.${fn}: maxLength must be at most positional.maxLength = ${p.maxLength} (learned positions stop there), got ${o.maxLength}`);
  }
  if (o.language !== undefined) {
    if (!c.languages) throw new RangeError(`posenc.${fn}: language needs an encoder created with languages > 0, got ${describe(o.language)}`);
    integer(0, c.languages - 1).check(fn, 'language', o.language);
  }
  return { maxLength: o.maxLength ?? (p.type === 'learned' ? p.maxLength : INT32_MAX + 1), language: o.language };
}
