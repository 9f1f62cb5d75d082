// encoder.js: a tiny transformer encoder running in wasm (formulas, parameter
// layout and workspace in include/posenc.h, posenc_encoder_forward). The
// Encoder keeps its wasm buffers until dispose(); options, tensors and the C
// config are read in options.js, layout.js, weights.js and native-config.js.
import { describe, fail, isPlainObject } from '../core/describe.js';
import { WasmArray, allocateFor, countOf, growFloat32, heapCall } from '../core/heap.js';
import { wasm } from '../core/instance.js';
import { INT32_MAX, boolean, elementCount, integer, later, readOptions, typedArray } from '../core/options.js';
import { setInto } from '../core/typed.js';
import { checkListable, tensorLayout, tensorsOf } from './layout.js';
import { CONFIG_WORDS, configArrays, configContext, nativeSizes, writeConfig } from './native-config.js';
import {
  CONFIG_METADATA_KEY, checkResolved, deepFreeze, deepSnapshot, modelSpec, readCreateOptions, readMask, readPositions, readTokens,
  resolveConfig,
} from './options.js';
import { Decoder, generateSpec as decoderGenerateSpec, readDecoderOptions, readGenerate } from './decoder.js';
import { MAX_HEADER_BYTES, headerBytes, tensorValues, writeSafetensors } from './safetensors.js';
import { readWeights } from './weights.js';

/**
 * Creates a tiny transformer encoder (include/posenc.h, posenc_encoder_forward):
 * x = embed[tokens] * embedScale (+ the sinusoidal table or a learned position
 * row) (+ a language row), then `layers` pre-norm (x + MHA(LN(x)),
 * x + FF(LN(x))) or post-norm layers, each with multi-head self-attention
 * (RoPE on q and k, or an ALiBi / T5 bias on the scores, as `positional`
 * says) and a ReLU / GELU feed-forward block; with an LM head, next-token
 * logits (encoder.logits).
 * @param {object} options  EncoderOptions in encoder.d.ts: each option, its
 *   range and its default are stated there once (tests/api/declarations.test.js
 *   holds them to createSpec in options.js).
 * @returns {Encoder} call dispose() when done: the encoder holds wasm memory
 */
export function createEncoder(options) {
  const fn = 'createEncoder';
  const { o, source, fromFile } = readCreateOptions(fn, options);
  const config = resolveConfig(fn, o);
  checkResolved(fn, config);
  const layout = tensorLayout(fn, config);
  let host;
  try {
    host = readWeights(fn, config, source, layout);
  } catch (error) {
    if (!fromFile || !(error instanceof RangeError)) throw error;
    const message = error.message.replace(`posenc.${fn}: `, '');
    throw new RangeError(`posenc.${fn}: the options in weights' metadata '${CONFIG_METADATA_KEY}' (with the caller's over them) disagree with the file's tensors: ${message}`);
  }
  return new Encoder(config, layout, host);
}

/**
 * @internal createModel's encoder: options as createEncoder reads them
 * (without weights), tensors by the encoder's names, the matrices held in
 * `format` ('f32', or 'f16' / 'bf16': each matrix then parseSafetensors' raw
 * tensor of that dtype, kept as given). Returns { encoder, layout }.
 */
export function checkpointEncoder(fn, options, tensors, format) {
  const config = resolveConfig(fn, readOptions(fn, options, modelSpec));
  checkResolved(fn, config);
  const layout = tensorLayout(fn, config, format);
  return { encoder: new Encoder(config, layout, readWeights(fn, config, { tensors }, layout)), layout };
}

/** The options of forward, pool, logits and classify (language is checked against the encoder's languages). */
export const forwardSpec = {
  positions: later({ optional: true }),
  mask: later({ optional: true }),
  causal: boolean({ default: false }),
  language: later({ optional: true }),
  out: typedArray('float32', { optional: true }),
};

/** encoder.generate() and stream()'s options: the decoder's, and the language of a decoder made for the call. */
export const generateSpec = { ...decoderGenerateSpec, language: later({ optional: true }) };

/**
 * A tiny encoder created by createEncoder. Its methods are synchronous and
 * copy their results out of wasm memory. dispose() frees its wasm memory.
 */
class Encoder {
  #config;
  #layout;
  #buffers = {}; // name -> WasmArray: params, head, config, sizes, hidden, work, attention, ...
  #lists = []; // WasmArrays the config points at (LongRoPE's factors)
  #context; // how errors name the config's C fields
  #last = null; // { seq, mask } of the last forward pass
  #decoders = new Set(); // live decoders: they read params, so they go when the encoder goes
  #disposed = false;

  /** @internal use createEncoder() */
  constructor(config, layout, host) {
    const fn = 'createEncoder';
    this.#config = deepFreeze(deepSnapshot(fn, config, 'options'));
    this.#layout = layout;
    this.#context = configContext(this.#config);
    // all validation is done: only now does wasm memory get allocated
    try {
      this.#buffers.params = allocateFor(fn, 'float32', Math.max(layout.paramsLength, 1));
      this.#buffers.params.array.set(host.params);
      if (layout.headLength) {
        this.#buffers.head = allocateFor(fn, 'float32', layout.headLength);
        this.#buffers.head.array.set(host.head);
      }
      this.#buffers.config = allocateFor(fn, 'float64', CONFIG_WORDS);
      this.#buffers.sizes = allocateFor(fn, 'int32', 2); // posenc_encoder_sizes' two size_t
      const { sc, arrays, pointers } = configArrays(fn, this.#config);
      this.#lists = arrays;
      writeConfig(fn, this.#buffers.config.pointer(fn), this.#config, sc, pointers(fn), layout.format);
      // the C's parameter count is the one formula (posenc_encoder_sizes): the tensors must fill it exactly
      const { params } = this.#sizes(fn, 0);
      if (params !== layout.paramsLength) {
        throw new Error(`posenc.${fn}: internal error: the C counts ${params} parameters, the tensor layout ${layout.paramsLength}`);
      }
    } catch (error) {
      this.dispose();
      throw error;
    }
  }

  /** The resolved options (defaults filled in), frozen. */
  get config() {
    return this.#config;
  }

  /** The number of parameters (floats), the classifier head included. */
  get parameterCount() {
    return this.#layout.parameterCount;
  }

  #alive(fn) {
    if (this.#disposed) throw new Error(`posenc.${fn}: the encoder was disposed`);
  }

  /**
   * The parameter and workspace floats for seq tokens: posenc_encoder_sizes
   * decides (one formula, in include/posenc.h).
   */
  #sizes(fn, seq) {
    return nativeSizes(fn, this.#buffers.config.pointer(fn), this.#buffers.sizes.pointer(fn), seq, this.#context);
  }

  /**
   * Validates (tokens, options) and runs one pass: 'forward' into the
   * `hidden` buffer ([seq][dModel]), or 'logits' into `lmLogits` ([seq][vocabSize]).
   */
  #run(fn, tokens, options, outLength, entry = 'forward') {
    this.#alive(fn);
    this.#last = null; // until this pass completes, attention() has nothing to show
    const c = this.#config;
    const ids = readTokens(fn, tokens, c.vocabSize);
    const seq = ids.length;
    const o = readOptions(fn, options, forwardSpec);
    const mask = o.mask === undefined ? null : readMask(fn, o.mask, seq);
    const positions = o.positions === undefined ? null : readPositions(fn, o.positions, seq);
    const act = elementCount(fn, { seq, dModel: c.dModel });
    const outCount = entry === 'logits' ? elementCount(fn, { seq, vocabSize: c.vocabSize }) : act;
    const probs = c.keepAttention ? elementCount(fn, { layers: c.layers, heads: c.heads, 'seq * seq': seq * seq }) : 0;
    if (o.out !== undefined && countOf(o.out) !== outLength(seq)) {
      throw new RangeError(`posenc.${fn}: out must have length ${outLength(seq)}, got ${countOf(o.out)}`);
    }
    const { work } = this.#sizes(fn, seq);
    const target = growFloat32(fn, this.#buffers, entry === 'logits' ? 'lmLogits' : 'hidden', outCount);
    const workspace = growFloat32(fn, this.#buffers, 'work', work);
    const attention = probs ? growFloat32(fn, this.#buffers, 'attention', probs) : null;
    const { exports } = wasm(fn);
    const buffers = [
      { array: target, type: 'float32', length: outCount },
      { array: this.#buffers.config, type: 'float64', length: CONFIG_WORDS },
      { array: this.#buffers.params, type: 'float32', length: this.#layout.paramsLength },
      { array: workspace, type: 'float32', length: work },
      { array: ids, type: 'int32', length: seq, copyIn: true },
    ];
    if (attention) buffers.push({ array: attention, type: 'float32', length: probs });
    if (mask) buffers.push({ array: mask, type: 'int32', length: seq, copyIn: true });
    if (positions) buffers.push({ array: positions, type: 'int32', length: seq, copyIn: true });
    const call = entry === 'logits' ? exports.posenc_encoder_logits : exports.posenc_encoder_forward;
    heapCall(fn, buffers, (pOut, pConfig, pParams, pWork, pTokens, ...rest) => {
      const pAttention = attention ? rest.shift() : 0;
      const pMask = mask ? rest.shift() : 0;
      const pPositions = positions ? rest.shift() : 0;
      return call(
        pOut, outCount, pConfig, pParams, this.#layout.paramsLength, pTokens, seq, pPositions, pMask, o.causal ? 1 : 0,
        o.language ?? -1, pAttention, probs, pWork, work,
      );
    }, this.#callContext(o));
    this.#last = { seq, mask };
    return { o, seq, act, mask, outCount };
  }

  /**
   * The encoder's output for tokens: a Float32Array [seq][dModel] (row s is
   * token s), or `options.out` filled.
   * @param {Int32Array | number[]} tokens ids in [0, vocabSize), at least one
   * @param {{ mask?: ArrayLike<number | boolean>, causal?: boolean, language?: number, out?: Float32Array }} [options]
   *   mask: 1 = token, 0 = padding (never attended to); causal: token i sees keys j <= i;
   *   language: a row of language_embed added to every token (the translation encoder of "Transformer Encoder Explained")
   * @returns {Float32Array}
   */
  forward(tokens, options = {}) {
    const fn = 'encoder.forward';
    const { o, act } = this.#run(fn, tokens, options, (seq) => seq * this.#config.dModel);
    return this.#copyOut(fn, 'hidden', act, o.out);
  }

  /**
   * Next-token logits at every position (posenc_encoder_logits): a
   * Float32Array [seq][vocabSize], row s = forward(tokens)[s] W^T with W
   * lm_head.weight, or embed.weight when tieEmbeddings. A language model
   * passes causal: true. Needs lmHead or tieEmbeddings.
   * @param {Int32Array | number[]} tokens ids in [0, vocabSize), at least one
   * @param {{ mask?, causal?: boolean, language?: number, out?: Float32Array }} [options] as forward; out has seq * vocabSize elements
   * @returns {Float32Array}
   */
  logits(tokens, options = {}) {
    const fn = 'encoder.logits';
    this.#alive(fn);
    const c = this.#config;
    if (!c.lmHead) throw new Error(`posenc.${fn}: the encoder has no LM head (create it with lmHead: true and an lm_head.weight tensor, or tieEmbeddings: true)`);
    const { o, outCount } = this.#run(fn, tokens, options, (seq) => seq * c.vocabSize, 'logits');
    return this.#copyOut(fn, 'lmLogits', outCount, o.out);
  }

  /**
   * A decoder for incremental decoding with a KV cache (include/posenc_encoder.h,
   * posenc_decoder_*): decoder.feed(prompt), then decoder.feed(token) after
   * each new token, each returning the next-token logits at O(length) per
   * token; or decoder.generate / decoder.stream. Needs an LM head. The
   * decoder holds wasm memory until its dispose() (or the encoder's).
   * @param {{ maxLength?: number, language?: number }} [options]
   *   maxLength: the most tokens the sequence may hold (default: positional.maxLength
   *   for 'learned', else 2^31; the cache grows with the sequence, doubling);
   *   language: a row of language_embed added to every token
   * @returns {Decoder}
   */
  decoder(options = {}) {
    const fn = 'encoder.decoder';
    this.#alive(fn);
    this.#needHead(fn);
    return this.#decoder(fn, readDecoderOptions(fn, options));
  }

  #needHead(fn) {
    if (!this.#config.lmHead) throw new Error(`posenc.${fn}: the encoder has no LM head (create it with lmHead: true and an lm_head.weight tensor, or tieEmbeddings: true)`);
  }

  #decoder(fn, o) {
    const model = {
      config: this.#config,
      configBuffer: this.#buffers.config, // read once, by posenc_decoder_create (the state copies it)
      context: this.#context,
      paramsLength: this.#layout.paramsLength,
      params: (at) => {
        if (this.#disposed) throw new Error(`posenc.${at}: the encoder was disposed (its decoders with it)`);
        return this.#buffers.params;
      },
      forget: (d) => this.#decoders.delete(d),
    };
    const d = new Decoder(model, o, fn);
    this.#decoders.add(d);
    return d;
  }

  /**
   * generate() and stream()'s arguments checked (before any memory is
   * taken), and a function making the call's decoder (default maxLength: the
   * cache grows as the tokens come) and the options for it.
   */
  #callArgs(fn, prompt, options) {
    this.#alive(fn);
    this.#needHead(fn);
    const { language, ...rest } = readOptions(fn, options, generateSpec);
    readGenerate(fn, prompt, rest, this.#config.vocabSize);
    const decoderOptions = readDecoderOptions(fn, language === undefined ? {} : { language });
    return { make: () => this.#decoder(fn, decoderOptions), rest };
  }

  /**
   * Generation with a KV cache, in C (decoder.generate on a decoder made for
   * the call): feeds the prompt, then each chosen token, and returns the new
   * tokens, at most maxNewTokens, ending after a token of stopTokens. Greedy
   * by default: each token is the largest logit (the first of equal ones, as
   * torch.argmax), equal to taking the argmax of logits(tokens, { causal: true })
   * at the last position and appending it; temperature > 0 samples (topK,
   * topP, seed), reproducibly from the seed.
   * @param {Int32Array | number[]} prompt ids in [0, vocabSize), at least one
   * @param {import('../encoder.js').GenerateOptions & { language?: number }} options
   * @returns {Int32Array}
   */
  generate(prompt, options) {
    const fn = 'encoder.generate';
    const { make, rest } = this.#callArgs(fn, prompt, options);
    const d = make();
    try {
      return d.generate(prompt, rest, fn);
    } finally {
      d.dispose();
    }
  }

  /**
   * generate() one token at a time: a generator yielding each new token as it
   * is chosen, the same tokens as generate() with the same options. Its
   * checks run at the first next(), as any generator's.
   * @param {Int32Array | number[]} prompt
   * @param {import('../encoder.js').GenerateOptions & { language?: number }} options
   * @returns {Generator<number, void, undefined>}
   */
  *stream(prompt, options) {
    const fn = 'encoder.stream';
    const { make, rest } = this.#callArgs(fn, prompt, options);
    const d = make(); // at the first next(): a stream never started holds no memory
    try {
      yield* d.stream(prompt, rest, fn);
    } finally {
      d.dispose();
    }
  }

  /** How a call's errors name C's arguments: the config's fields, and the call's own options. */
  #callContext(o) {
    const { label, given } = this.#context;
    return {
      label: (cName) => (cName === 'language' || cName === 'positions' ? cName : label(cName)),
      given: (name) => (name === 'language' ? o.language : given(name)),
    };
  }

  #copyOut(fn, name, n, out) {
    const view = this.#buffers[name].array.subarray(0, n);
    if (out === undefined) return view.slice();
    if (WasmArray.isBranded(out)) out.array.set(view);
    else setInto(out, view);
    return out;
  }

  /**
   * Mean pooling of the output over the unmasked tokens (the sentiment sketch
   * of "Transformer Encoder Explained", x.mean(axis=1)): a Float32Array [dModel].
   * @param {Int32Array | number[]} tokens
   * @param {{ mask?, causal?, language?, out?: Float32Array }} [options] as forward; out has dModel elements
   * @returns {Float32Array}
   */
  pool(tokens, options = {}) {
    const fn = 'encoder.pool';
    const d = this.#config.dModel;
    const { o, seq, act, mask } = this.#run(fn, tokens, options, () => d);
    this.#pool(fn, seq, act, mask);
    return this.#copyOut(fn, 'pooled', d, o.out);
  }

  #pool(fn, seq, act, mask) {
    const d = this.#config.dModel;
    const pooled = growFloat32(fn, this.#buffers, 'pooled', d);
    const { exports } = wasm(fn);
    const buffers = [
      { array: pooled, type: 'float32', length: d },
      { array: this.#buffers.hidden, type: 'float32', length: act },
    ];
    if (mask) buffers.push({ array: mask, type: 'int32', length: seq, copyIn: true });
    heapCall(fn, buffers, (pOut, pX, pMask = 0) => exports.posenc_mean_pool(pOut, d, pX, act, seq, d, pMask));
  }

  /**
   * The classifier head on the pooled output: logits = pool(tokens) W^T + b,
   * a Float32Array [classes] (needs classes > 0 and head.weight, head.bias).
   * @returns {Float32Array}
   */
  classify(tokens, options = {}) {
    const fn = 'encoder.classify';
    this.#alive(fn);
    const c = this.#config;
    if (!c.classes) throw new Error(`posenc.${fn}: the encoder has no classifier head (create it with classes > 0)`);
    const { o, seq, act, mask } = this.#run(fn, tokens, options, () => c.classes);
    this.#pool(fn, seq, act, mask);
    const logits = growFloat32(fn, this.#buffers, 'logits', c.classes);
    const d = c.dModel;
    const { exports } = wasm(fn);
    heapCall(
      fn,
      [
        { array: logits, type: 'float32', length: c.classes },
        { array: this.#buffers.pooled, type: 'float32', length: d },
        { array: this.#buffers.head, type: 'float32', length: this.#layout.headLength },
      ],
      (pOut, pX, pHead) => exports.posenc_linear(pOut, c.classes, pX, d, 1, d, pHead, c.classes * d, c.classes, pHead + 4 * c.classes * d),
    );
    return this.#copyOut(fn, 'logits', c.classes, o.out);
  }

  /**
   * The attention probabilities of the last forward (or pool, classify) call
   * in layer `layer`: a Float32Array [heads][seq][seq], row i the query token,
   * column j the key; each row sums to 1 (0 for a query with every key masked).
   * @param {number} layer 0 .. layers - 1
   * @returns {Float32Array}
   */
  attention(layer) {
    const fn = 'encoder.attention';
    this.#alive(fn);
    const c = this.#config;
    if (!c.keepAttention) throw new Error(`posenc.${fn}: the encoder keeps no attention probabilities (create it with keepAttention: true; the default is false)`);
    if (!this.#last) throw new Error(`posenc.${fn}: no forward pass yet (call forward(tokens) first; a call that failed does not count)`);
    if (c.layers === 0) throw new RangeError(`posenc.${fn}: the encoder has no layers, got layer ${describe(layer)}`);
    integer(0, c.layers - 1).check(fn, 'layer', layer);
    const n = c.heads * this.#last.seq * this.#last.seq;
    return this.#buffers.attention.array.slice(layer * n, (layer + 1) * n);
  }

  /**
   * Every tensor of the encoder by name (the naming scheme of docs/encoder.md and
   * include/posenc.h), copied: { name: { dtype: 'F32', shape, data } }, ready
   * for writeSafetensors().
   */
  tensors() {
    this.#alive('encoder.tensors');
    checkListable('encoder.tensors', this.#layout);
    const out = {};
    const params = this.#buffers.params.array;
    const head = this.#buffers.head?.array;
    const halves = { f16: 'F16', bf16: 'BF16' }[this.#layout.format];
    for (const t of tensorsOf(this.#layout)) {
      const data = t.matrix && halves
        ? tensorValues({ dtype: halves, bytes: new Uint8Array(params.buffer, params.byteOffset + 4 * t.offset, 2 * t.count) })
        : (t.head ? head : params).slice(t.offset, t.offset + t.size);
      out[t.name] = { dtype: 'F32', shape: [...t.shape], data };
    }
    return out;
  }

  /**
   * A self-contained model file: the tensors as .safetensors bytes, with the
   * options (this.config as JSON) under the metadata key 'posenc.config', so
   * that createEncoder({ weights: bytes }) needs nothing else.
   * @param {{ metadata?: Record<string, string> }} [options] more metadata entries to write
   * @returns {Uint8Array}
   */
  toSafetensors(options = {}) {
    const fn = 'encoder.toSafetensors';
    this.#alive(fn);
    const o = readOptions(fn, options, { metadata: later({ optional: true }) });
    if (o.metadata !== undefined && (!isPlainObject(o.metadata) || !Object.values(o.metadata).every((v) => typeof v === 'string'))) {
      throw fail(TypeError, fn, 'metadata', 'an object mapping strings to strings', o.metadata);
    }
    if (o.metadata && Object.hasOwn(o.metadata, CONFIG_METADATA_KEY)) {
      throw new RangeError(`posenc.${fn}: metadata must not set '${CONFIG_METADATA_KEY}' (the encoder writes its own options there)`);
    }
    const metadata = { ...o.metadata, [CONFIG_METADATA_KEY]: JSON.stringify(this.#config) };
    // a file past the header limit could never be read back: refused before any tensor is copied
    const entries = Array.from(tensorsOf(this.#layout), (t) => ({ name: t.name, shape: t.shape, count: t.count }));
    const bytes = headerBytes(entries, metadata);
    if (bytes > MAX_HEADER_BYTES) {
      throw new RangeError(
        `posenc.${fn}: the header would be ${bytes} bytes, above the format's limit of ${MAX_HEADER_BYTES} that readers refuse (${this.#config.layers} layers: ${entries.length} tensors)`,
      );
    }
    return writeSafetensors(this.tensors(), { metadata });
  }

  /** Frees the encoder's wasm memory, its decoders' too; later calls throw. Calling it again does nothing. */
  dispose() {
    this.#disposed = true;
    for (const d of [...this.#decoders]) d.dispose();
    for (const a of this.#lists.splice(0)) if (!a.freed) a.free();
    for (const [name, b] of Object.entries(this.#buffers)) {
      if (b && !b.freed) b.free();
      this.#buffers[name] = null;
    }
  }
}

/**
 * The tensor names and shapes createEncoder expects for these options (the
 * same options, without weights), in the order of the parameter buffer.
 * @returns {Record<string, number[]>}
 */
export function encoderTensorShapes(options) {
  const fn = 'encoderTensorShapes';
  const c = resolveConfig(fn, readOptions(fn, options, modelSpec));
  // one pass, no list of entries beside the result; each shape its own array (the
  // layers share their template's)
  checkResolved(fn, c);
  const layout = tensorLayout(fn, c);
  checkListable(fn, layout);
  const shapes = {};
  for (const t of tensorsOf(layout)) shapes[t.name] = [...t.shape];
  return shapes;
}
