// decoder.js: generation over C's decoder state (include/posenc_encoder.h,
// posenc_decoder_*). The state owns the cache, its growth, the bias by
// distance and the frequencies, and checks every value; this shell passes
// tokens in and logits out, and names C's parameters as the options do.
import { sampling as SAMPLING } from '../../../build/abi.js';
import { fail } from '../core/describe.js';
import { cError, clearError } from '../core/errors.js';
import { WasmArray, allocateFor, countOf, holdNative } from '../core/heap.js';
import { wasm } from '../core/instance.js';
import { INT32_MAX, integer, later, readOptions, typedArray } from '../core/options.js';
import { param } from './rows.js';
import { writeStruct } from '../core/struct.js';
import { setInto } from '../core/typed.js';
import { readPositions, readTokens } from './options.js';

const SEED_MAX = 2n ** 64n - 1n;

/** How the decoder's errors name C's parameters: the call's options, else the config's. */
function decoderContext(config, given = {}) {
  const names = {
    max_length: 'maxLength',
    count: 'tokens.length',
    tokens: 'tokens',
    prompt_len: 'prompt.length',
    out_len: 'maxNewTokens',
    temperature: 'temperature',
    top_k: 'topK',
    top_p: 'topP',
    language: 'language',
    positions: 'positions',
  };
  return {
    label: (cName) => names[cName] ?? config.label(cName),
    given: (name) => (Object.hasOwn(given, name) ? given[name] : config.given(name)),
  };
}

/** A seed for the sampler's SplitMix64 state: an integer from 0 to 2^53 - 1, or a bigint from 0 to 2^64 - 1. */
const seedSpec = {
  kind: 'number or bigint',
  check(fn, name, v) {
    const allowed = 'an integer from 0 to 2^53 - 1, or a bigint from 0n to 2n ** 64n - 1n';
    if (typeof v !== 'number' && typeof v !== 'bigint') throw fail(TypeError, fn, name, allowed, v);
    if (typeof v === 'number' ? !Number.isSafeInteger(v) || v < 0 : v < 0n || v > SEED_MAX) throw fail(RangeError, fn, name, allowed, v);
    return v;
  },
};

/** How the next token is chosen (posenc_sampling): greedy unless temperature > 0. */
export const samplingSpec = {
  temperature: param('TEMPERATURE', 'double', { default: 0, zeroAllowed: true }),
  topK: param('TOP_K', 'size', { default: 0 }),
  topP: param('TOP_P', 'double', { default: 0 }),
  seed: { ...seedSpec, default: 0 },
};

/** generate() and stream()'s options. */
export const generateSpec = {
  maxNewTokens: integer(0, INT32_MAX),
  stopTokens: later({ optional: true }),
  ...samplingSpec,
};

/**
 * A sequence being decoded, held by C's posenc_decoder: the tokens fed so far
 * (`length`), their keys and values, and the next-token logits after each
 * feed. Made by encoder.decoder().
 */
export class Decoder {
  #model; // { config, configBuffer, context, paramsLength, params(fn), forget(decoder) }: what the encoder lends
  #state = 0; // posenc_decoder *
  #scratch = {}; // name -> WasmArray: word (out pointers, rng), tokens (in and out), sampling
  #language;
  #disposed = false;
  #release = () => {};

  /** @internal use encoder.decoder() */
  constructor(model, { maxLength, language }, fn = 'encoder.decoder') {
    this.#model = model;
    this.#language = language;
    try {
      this.#scratch.word = allocateFor(fn, 'float64', 2); // [0]: a size_t or pointer written back; [1]: the rng state
      this.#scratch.sampling = allocateFor(fn, 'float64', Math.ceil(SAMPLING.bytes / 8));
      const { exports } = wasm(fn);
      const word = this.#scratch.word.pointer(fn);
      clearError(wasm(fn));
      const status = exports.posenc_decoder_create(
        word, model.configBuffer.pointer(fn), model.params(fn).pointer(fn), model.paramsLength, maxLength ?? 0, language ?? -1,
      );
      if (status !== 0) throw cError(fn, wasm(fn), status, decoderContext(model.context, { maxLength, language }));
      this.#state = new Uint32Array(wasm(fn).memory.buffer, word, 1)[0];
      this.#release = holdNative(() => exports.posenc_decoder_memory(this.#state) >>> 0);
    } catch (error) {
      this.#free();
      throw error;
    }
  }

  /** Tokens in the sequence: every token fed since the decoder was made or reset. */
  get length() {
    return this.#disposed ? 0 : wasm('decoder.length').exports.posenc_decoder_length(this.#state) >>> 0;
  }

  /** The most tokens the sequence may hold. */
  get maxLength() {
    return this.#disposed ? 0 : wasm('decoder.maxLength').exports.posenc_decoder_max_length(this.#state) >>> 0;
  }

  /** Bytes of wasm memory the decoder holds now (its cache grows with the sequence). */
  get memoryBytes() {
    return this.#disposed ? 0 : wasm('decoder.memoryBytes').exports.posenc_decoder_memory(this.#state) >>> 0;
  }

  #alive(fn) {
    if (!this.#disposed) return;
    this.#model.params(fn); // throws first when the encoder went, taking its decoders with it
    throw new Error(`posenc.${fn}: the decoder was disposed`);
  }

  /** ids copied into the tokens scratch, grown to at least n elements; its address. */
  #tokens(fn, ids, n = ids.length) {
    if (!this.#scratch.tokens || this.#scratch.tokens.length < n) {
      this.#scratch.tokens?.free();
      this.#scratch.tokens = null;
      this.#scratch.tokens = allocateFor(fn, 'int32', Math.max(n, 16));
    }
    this.#scratch.tokens.array.set(ids);
    return this.#scratch.tokens.pointer(fn);
  }

  /** Runs call() (a C routine's status) with the error record cleared first; a refusal throws, named as the options name it. */
  #check(fn, call, given) {
    clearError(wasm(fn));
    const status = call();
    if (status !== 0) throw cError(fn, wasm(fn), status, decoderContext(this.#model.context, given));
  }

  /**
   * Appends tokens (a prompt, or one token) to the sequence and returns the
   * next-token logits after the last of them: a Float32Array [vocabSize],
   * row length - 1 of encoder.logits(all the tokens so far, { causal: true }).
   * A call that throws leaves the sequence as it was.
   * @param {number | Int32Array | number[]} tokens one id, or ids in [0, vocabSize), at least one
   * @param {{ positions?: Int32Array | number[], out?: Float32Array }} [options]
   *   positions: the tokens' explicit position ids (default: each one past
   *   the position of the token before it, the first at 0); out: vocabSize
   *   floats to fill instead
   * @returns {Float32Array}
   */
  feed(tokens, options = {}) {
    const fn = 'decoder.feed';
    this.#alive(fn);
    const vocab = this.#model.config.vocabSize;
    const ids = readTokens(fn, typeof tokens === 'number' ? [tokens] : tokens, vocab);
    const o = readOptions(fn, options, feedSpec);
    if (o.out !== undefined && countOf(o.out) !== vocab) {
      throw new RangeError(`posenc.${fn}: out must have length vocabSize = ${vocab}, got ${countOf(o.out)}`);
    }
    const positions = o.positions === undefined ? null : readPositions(fn, o.positions, ids.length);
    // the positions after the tokens, in the same scratch
    const pTokens = this.#tokens(fn, positions ? [...ids, ...positions] : ids);
    const pPositions = positions ? pTokens + 4 * ids.length : 0;
    const { exports, memory } = wasm(fn);
    this.#check(fn, () => exports.posenc_decoder_feed(this.#state, pTokens, pPositions, ids.length, 0, 0), { 'tokens.length': ids.length });
    const view = new Float32Array(memory.buffer, exports.posenc_decoder_logits(this.#state) >>> 0, vocab);
    if (o.out === undefined) return view.slice();
    if (WasmArray.isBranded(o.out)) o.out.array.set(view);
    else setInto(o.out, view);
    return o.out;
  }

  /** Writes the sampling settings and the seed where C reads them; their addresses. */
  #sampling(fn, o) {
    const { memory } = wasm(fn);
    const pSampling = this.#scratch.sampling.pointer(fn);
    writeStruct(memory, pSampling, SAMPLING, { temperature: o.temperature, top_k: o.topK, top_p: o.topP });
    const pWord = this.#scratch.word.pointer(fn);
    new DataView(memory.buffer).setBigUint64(pWord + 8, BigInt(o.seed), true);
    return { pSampling, pRng: pWord + 8, pWord };
  }

  /**
   * Feeds the prompt, then chooses and feeds one token at a time
   * (posenc_decoder_generate, all in C), and returns the new tokens: at most
   * maxNewTokens, ending early after a token of stopTokens (returned, not
   * fed). Greedy (the largest logit, the first of equal ones; NaN the
   * largest, as torch.argmax) unless temperature > 0: then sampled from
   * softmax(logits / temperature), within topK and topP, from a SplitMix64
   * stream seeded by `seed` (the same seed gives the same tokens in every
   * build). The sequence keeps the prompt and every new token but the last:
   * prompt.length + maxNewTokens - 1 must fit in maxLength - length.
   * @param {Int32Array | number[]} prompt ids in [0, vocabSize), at least one
   * @param {import('../encoder.js').GenerateOptions} options
   * @param {string} [fn] @internal the function errors name
   * @returns {Int32Array}
   */
  generate(prompt, options, fn = 'decoder.generate') {
    this.#alive(fn);
    const { ids, o, stop } = readGenerate(fn, prompt, options, this.#model.config.vocabSize);
    const pTokens = this.#tokens(fn, [...ids, ...stop], ids.length + stop.length + o.maxNewTokens);
    const pStop = pTokens + 4 * ids.length;
    const pOut = pStop + 4 * stop.length;
    const { pSampling, pRng, pWord } = this.#sampling(fn, o);
    const { exports, memory } = wasm(fn);
    this.#check(
      fn,
      () => exports.posenc_decoder_generate(this.#state, pTokens, ids.length, pSampling, pRng, pStop, stop.length, pOut, o.maxNewTokens, pWord),
      { 'prompt.length': ids.length, maxNewTokens: o.maxNewTokens, ...pick(o) },
    );
    const written = new Uint32Array(memory.buffer, pWord, 1)[0];
    return new Int32Array(memory.buffer, pOut, written).slice();
  }

  /**
   * generate() one token at a time: a generator that yields each new token as
   * it is chosen (for a page that shows text as it comes), with the same
   * options and the same tokens. Like any generator it starts at the first
   * next(): its checks run then. Stopping the loop early (break) leaves the
   * sequence with the tokens fed so far.
   * @param {Int32Array | number[]} prompt
   * @param {import('../encoder.js').GenerateOptions} options
   * @param {string} [fn] @internal the function errors name
   * @returns {Generator<number, void, undefined>}
   */
  *stream(prompt, options, fn = 'decoder.stream') {
    this.#alive(fn);
    const { ids, o, stop } = readGenerate(fn, prompt, options, this.#model.config.vocabSize);
    // the whole generation fits, or nothing is fed (posenc_decoder_generate's rule)
    const room = this.maxLength - this.length;
    if (o.maxNewTokens > 0 && ids.length + o.maxNewTokens - 1 > room) {
      throw new RangeError(
        `posenc.${fn}: maxNewTokens and prompt.length must fit the sequence: prompt.length + maxNewTokens - 1 <= maxLength - length = ${room}, got ${o.maxNewTokens}`,
      );
    }
    yield* this.#streamRun(fn, ids, o, stop);
  }

  *#streamRun(fn, ids, o, stop) {
    const given = { 'prompt.length': ids.length, maxNewTokens: o.maxNewTokens, ...pick(o) };
    const { exports, memory } = wasm(fn);
    // the prompt fed by a generation of no tokens: C checks the settings first
    const first = this.#sampling(fn, o);
    this.#check(fn, () => exports.posenc_decoder_generate(this.#state, this.#tokens(fn, ids), ids.length, first.pSampling, first.pRng, 0, 0, 0, 0, first.pWord), given);
    let seed = o.seed;
    for (let i = 0; i < o.maxNewTokens; i++) {
      this.#alive(fn); // the caller may have disposed of it between tokens
      const { pSampling, pRng, pWord } = this.#sampling(fn, { ...o, seed });
      this.#check(fn, () => exports.posenc_decoder_sample(this.#state, pSampling, pRng, pWord), given);
      const view = new DataView(memory.buffer);
      const token = view.getInt32(pWord, true);
      seed = view.getBigUint64(pRng, true);
      yield token;
      if (stop.includes(token) || i + 1 === o.maxNewTokens) return;
      this.#alive(fn);
      this.#check(fn, () => exports.posenc_decoder_feed(this.#state, this.#tokens(fn, [token]), 0, 1, 0, 0), given);
    }
  }

  /** Starts a new sequence (length 0), keeping the memory; frequencies that follow the length start over. */
  reset() {
    const fn = 'decoder.reset';
    this.#alive(fn);
    this.#check(fn, () => wasm(fn).exports.posenc_decoder_reset(this.#state));
  }

  #free() {
    if (this.#state) wasm('decoder.dispose').exports.posenc_decoder_free(this.#state);
    this.#state = 0;
    this.#release();
    for (const [name, b] of Object.entries(this.#scratch)) {
      if (b && !b.freed) b.free();
      this.#scratch[name] = null;
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

/** generate() and stream()'s arguments, read: the prompt's ids, the options, the stop tokens' ids. */
export function readGenerate(fn, prompt, options, vocab) {
  const ids = readTokens(fn, prompt, vocab);
  const o = readOptions(fn, options, generateSpec);
  const stop = o.stopTokens === undefined ? new Int32Array(0) : readTokens(fn, o.stopTokens, vocab, 'stopTokens', 0);
  return { ids, o, stop };
}

/** The sampling options as the caller gave them, for messages. */
const pick = (o) => ({ temperature: o.temperature, topK: o.topK, topP: o.topP });

/** encoder.decoder()'s options (C checks both: maxLength against the positions, language against the languages). */
export const decoderSpec = {
  maxLength: param('DECODER_MAX_LENGTH', 'size', { optional: true }),
  language: later({ optional: true }),
};

/** decoder.feed()'s options. */
export const feedSpec = { positions: later({ optional: true }), out: typedArray('float32', { optional: true }) };

/** encoder.decoder()'s options: maxLength, language. */
export function readDecoderOptions(fn, options) {
  const o = readOptions(fn, options, decoderSpec);
  if (o.language !== undefined) integer(0, INT32_MAX).check(fn, 'language', o.language);
  return { maxLength: o.maxLength, language: o.language };
}
