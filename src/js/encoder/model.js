// model.js: createModel, a Hugging Face checkpoint (config.json and
// model.safetensors, or its shards) run by the encoder's engine: the
// config read into the grown block (checkpoint-config.js), the tensors
// checked and renamed onto its layout, then the Encoder, whose logits,
// decoder, generate and stream a causal model calls with causal attention.
import { describe, fail, isPlainObject, typeOf } from '../core/describe.js';
import { readOptions, later } from '../core/options.js';
import { checkpointOptions, hfName } from './checkpoint-config.js';
import { createEncoder } from './encoder.js';
import { tensorLayout, tensorsOf } from './layout.js';
import { resolveConfig, checkResolved } from './options.js';
import { parseSafetensors } from './safetensors.js';

/** The dtypes a checkpoint's tensors may have: widened to float32 as they are read. */
const DTYPES = ['F32', 'F16', 'BF16'];
/** wasm32's heap: 4 GiB, of which the weights may take what is left after the engine's own few MB. */
const HEAP_BYTES = 2 ** 32;
const RESERVE_BYTES = 64 * 2 ** 20;

const isBytes = (v) => ['ArrayBuffer', 'Uint8Array', 'Buffer'].includes(typeOf(v));

/** Tensors of a checkpoint's files, by name: each file parsed, no name given twice. */
function readFiles(fn, weights) {
  const files = isBytes(weights) ? [weights] : Array.isArray(weights) && weights.length > 0 && weights.every(isBytes) ? weights : null;
  if (!files) throw fail(TypeError, fn, 'weights', 'the bytes of model.safetensors (a Uint8Array or ArrayBuffer), or an Array of its shards', weights);
  const tensors = new Map();
  files.forEach((bytes, i) => {
    const what = files.length > 1 ? `weights[${i}]` : 'weights';
    for (const [name, t] of Object.entries(parseSafetensors(fn, what, bytes).tensors)) {
      if (tensors.has(name)) throw new RangeError(`posenc.${fn}: the tensor '${name}' is in two shards (${tensors.get(name).what} and ${what})`);
      tensors.set(name, { ...t, what });
    }
  });
  return tensors;
}

/** Old checkpoints keep RoPE's buffer (never read: the frequencies come from the config). */
const IGNORED = /^model\.layers\.\d+\.self_attn\.rotary_emb\.inv_freq$/;

/**
 * The encoder's tensors from a checkpoint's: every one present with its
 * shape and an allowed dtype, no tensor left over (a tied head's lm_head.weight
 * is ignored, as transformers ties it).
 */
function mapCheckpoint(fn, options, tensors, index) {
  const c = resolveConfig(fn, { ...options });
  const layout = tensorLayout(fn, c);
  const out = {};
  const used = new Set();
  for (const t of tensorsOf(layout)) {
    const name = hfName(t.name);
    const given = tensors.get(name);
    if (!given) throw new RangeError(`posenc.${fn}: weights is missing the tensor '${name}' [${t.shape.join(', ')}]`);
    if (!DTYPES.includes(given.dtype)) {
      throw new RangeError(`posenc.${fn}: ${given.what}'s tensor '${name}' has dtype ${given.dtype}; a checkpoint's tensors are ${DTYPES.join(', ')}`);
    }
    if (given.shape.length !== t.shape.length || given.shape.some((v, i) => v !== t.shape[i])) {
      throw new RangeError(`posenc.${fn}: ${given.what}'s tensor '${name}' must have shape [${t.shape.join(', ')}] for this config, got [${given.shape.join(', ')}]`);
    }
    out[t.name] = { shape: given.shape, data: given.data };
    used.add(name);
  }
  for (const [name, t] of tensors) {
    if (used.has(name) || IGNORED.test(name) || (name === 'lm_head.weight' && options.tieEmbeddings)) continue;
    throw new RangeError(`posenc.${fn}: ${t.what} has the tensor '${name}', which this config has no place for`);
  }
  if (index !== undefined) {
    const map = isPlainObject(index) && isPlainObject(index.weight_map) ? index.weight_map : null;
    if (!map) throw fail(TypeError, fn, 'index', 'model.safetensors.index.json parsed ({ weight_map })', index);
    for (const name of Object.keys(map)) {
      if (!tensors.has(name)) throw new RangeError(`posenc.${fn}: index.weight_map lists '${name}' (in ${describe(map[name])}), which no shard holds`);
    }
  }
  return { tensors: out, parameters: layout.paramsLength };
}

/** The float32 bytes of the weights, counted from the config before any tensor is read. */
function weightBytes(o) {
  const hd = o.headDim;
  const layer = o.dModel * hd * (2 * o.heads + 2 * o.kvHeads) + 3 * o.dModel * o.dFF + 2 * o.dModel +
    (o.qkNorm ? 2 * hd : 0) + (o.attentionBias === 'none' ? 0 : (o.heads + 2 * o.kvHeads) * hd + (o.attentionBias === 'all' ? o.dModel : 0));
  const params = o.vocabSize * o.dModel * (o.tieEmbeddings ? 1 : 2) + o.layers * layer + o.dModel;
  return 4 * params;
}

export const modelSpec = { config: later(), weights: later(), index: later({ optional: true }) };

/**
 * A Hugging Face causal LM run by posenc's engine: config is config.json
 * parsed (model_type llama, mistral, qwen2, qwen3, or one of them as
 * text_config), weights the bytes of model.safetensors or an Array of its
 * shards (F32, F16 or BF16; widened to float32 in wasm memory), index
 * optionally model.safetensors.index.json parsed (its names are checked).
 * @returns {Model} call dispose() when done
 */
export function createModel(options) {
  const fn = 'createModel';
  const o = readOptions(fn, options, modelSpec);
  const { options: encoderOptions, rope, type } = checkpointOptions(fn, o.config);
  const bytes = weightBytes(encoderOptions);
  if (bytes > HEAP_BYTES - RESERVE_BYTES) {
    throw new RangeError(
      `posenc.${fn}: the model needs ${bytes} bytes (${(bytes / 2 ** 30).toFixed(2)} GiB) of wasm memory for its weights as float32, more than the 4 GiB wasm32 heap holds beside the engine (${HEAP_BYTES - RESERVE_BYTES} bytes)`,
    );
  }
  // every check of the config in C before a tensor is read
  checkResolved(fn, resolveConfig(fn, { ...encoderOptions }));
  const { tensors } = mapCheckpoint(fn, encoderOptions, readFiles(fn, o.weights), o.index);
  const encoder = createEncoder({ ...encoderOptions, weights: tensors });
  return new Model(encoder, o.config, rope, type);
}

/** A checkpoint's causal LM (createModel): the Encoder's methods with causal attention. */
class Model {
  #encoder;
  #config;
  #rope;
  #type;

  /** @internal use createModel() */
  constructor(encoder, config, rope, type) {
    this.#encoder = encoder;
    this.#config = config;
    this.#rope = Object.freeze({ ...rope });
    this.#type = type;
  }

  /** The model_type served (the text model's). */
  get modelType() {
    return this.#type;
  }

  /** The engine's options read from config.json (createEncoder's, resolved). */
  get options() {
    return this.#encoder.config;
  }

  /** RoPE as ropeFromConfig reads the config: { rotaryDim, base, layout, scaling? }. */
  get rope() {
    return this.#rope;
  }

  /** Parameters (floats) held in wasm memory. */
  get parameterCount() {
    return this.#encoder.parameterCount;
  }

  /** Bytes of wasm memory the weights take (float32). */
  get weightBytes() {
    return 4 * this.#encoder.parameterCount;
  }

  /**
   * Next-token logits at every position: a Float32Array [seq][vocabSize],
   * causal attention (the checkpoint's forward pass).
   * @param {Int32Array | number[]} tokens
   * @param {{ positions?: Int32Array | number[], out?: Float32Array }} [options]
   */
  logits(tokens, options = {}) {
    if (!isPlainObject(options)) throw fail(TypeError, 'model.logits', 'options', 'an object { positions?, out? }', options);
    return this.#encoder.logits(tokens, { ...options, causal: true });
  }

  /** A decoder with a KV cache (encoder.decoder()): feed(), generate(), stream(). */
  decoder(options = {}) {
    return this.#encoder.decoder(options);
  }

  /** Generation with a KV cache: the new tokens (GenerateOptions: maxNewTokens, stopTokens, temperature, topK, topP, seed). */
  generate(prompt, options) {
    return this.#encoder.generate(prompt, options);
  }

  /** generate() one token at a time (a generator). */
  stream(prompt, options) {
    return this.#encoder.stream(prompt, options);
  }

  /** Frees the model's wasm memory (its decoders' too). */
  dispose() {
    this.#encoder.dispose();
  }
}
