// model.js: createModel, a Hugging Face checkpoint (config.json and
// model.safetensors, or its shards) run by the encoder's engine: the
// config read into the grown block (checkpoint-config.js), the tensors
// checked and renamed onto its layout, then the Encoder, whose logits,
// decoder, generate and stream a causal model calls with causal attention.
import { describe, fail, isPlainObject, typeOf } from '../core/describe.js';
import { readOptions, later } from '../core/options.js';
import { checkpointOptions, hfName } from './checkpoint-config.js';
import { checkpointEncoder } from './encoder.js';
import { tensorLayout, tensorsOf } from './layout.js';
import { resolveConfig, checkResolved } from './options.js';
import { parseSafetensors, tensorValues } from './safetensors.js';

/**
 * The dtypes a checkpoint's tensors may have. When every matrix is F16, or
 * every one BF16, the matrices stay so in wasm memory (2 bytes each, widened
 * in registers by each product: the same results, bit for bit, as widened in
 * memory, read at half the bytes: faster at a model's size, docs/encoder.md);
 * the rest, and every tensor of other checkpoints, is widened to float32.
 */
const DTYPES = ['F32', 'F16', 'BF16'];
const KEPT = { F16: 'f16', BF16: 'bf16' };
/** wasm32's heap: 4 GiB, of which the weights may take what is left after the engine's own few MB. */
const HEAP_BYTES = 2 ** 32;
const RESERVE_BYTES = 64 * 2 ** 20;

const isBytes = (v) => ['ArrayBuffer', 'Uint8Array', 'Buffer'].includes(typeOf(v));

/** Tensors of a checkpoint's files, by name (raw: { dtype, shape, bytes, what }): each file parsed, no name given twice. */
function readFiles(fn, weights) {
  const files = isBytes(weights) ? [weights] : Array.isArray(weights) && weights.length > 0 && weights.every(isBytes) ? weights : null;
  if (!files) throw fail(TypeError, fn, 'weights', 'the bytes of model.safetensors (a Uint8Array or ArrayBuffer), or an Array of its shards', weights);
  const tensors = new Map();
  files.forEach((bytes, i) => {
    const what = files.length > 1 ? `weights[${i}]` : 'weights';
    for (const [name, t] of Object.entries(parseSafetensors(fn, what, bytes, { raw: true }).tensors)) {
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
 * is ignored, as transformers ties it). Returns { tensors, format }: the
 * matrices kept raw in format 'f16' or 'bf16' when all of them have that
 * dtype, else every tensor's values as float32 (format 'f32').
 */
function mapCheckpoint(fn, options, tensors, index) {
  const c = resolveConfig(fn, { ...options });
  const layout = tensorLayout(fn, c);
  const given = {};
  const used = new Set();
  for (const t of tensorsOf(layout)) {
    const name = hfName(t.name);
    const tensor = tensors.get(name);
    if (!tensor) throw new RangeError(`posenc.${fn}: weights is missing the tensor '${name}' [${t.shape.join(', ')}]`);
    if (!DTYPES.includes(tensor.dtype)) {
      throw new RangeError(`posenc.${fn}: ${tensor.what}'s tensor '${name}' has dtype ${tensor.dtype}; a checkpoint's tensors are ${DTYPES.join(', ')}`);
    }
    if (tensor.shape.length !== t.shape.length || tensor.shape.some((v, i) => v !== t.shape[i])) {
      throw new RangeError(`posenc.${fn}: ${tensor.what}'s tensor '${name}' must have shape [${t.shape.join(', ')}] for this config, got [${tensor.shape.join(', ')}]`);
    }
    given[t.name] = tensor;
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
  const dtypes = new Set([...tensorsOf(layout)].filter((t) => t.matrix).map((t) => given[t.name].dtype));
  const format = dtypes.size === 1 ? KEPT[[...dtypes][0]] ?? 'f32' : 'f32';
  const out = {};
  for (const t of tensorsOf(layout)) {
    const tensor = given[t.name];
    out[t.name] = t.matrix && format !== 'f32' ? tensor : { shape: tensor.shape, data: tensorValues(tensor) };
  }
  return { tensors: out, format };
}

/**
 * The bytes of the weights in wasm memory, counted from the config before any
 * tensor is read, the matrices held in `format` (include/posenc_encoder.h,
 * posenc_encoder_sizes: 'f16' and 'bf16' take ceil(n / 2) floats for n values).
 */
function weightBytes(o, format) {
  const m = (n) => (format === 'f32' ? n : Math.ceil(n / 2));
  const d = o.dModel;
  const hd = o.headDim;
  const layer = m(o.heads * hd * d) + 2 * m(o.kvHeads * hd * d) + m(d * o.heads * hd) + 3 * m(o.dFF * d) + 2 * d +
    (o.qkNorm ? 2 * hd : 0) + (o.attentionBias === 'none' ? 0 : (o.heads + 2 * o.kvHeads) * hd + (o.attentionBias === 'all' ? d : 0));
  const floats = m(o.vocabSize * d) * (o.tieEmbeddings ? 1 : 2) + o.layers * layer + d;
  return 4 * floats;
}

/** A RangeError when the weights in `format` pass the heap, saying how much they need. */
function checkFits(fn, o, format) {
  const least = weightBytes(o, format);
  if (least <= HEAP_BYTES - RESERVE_BYTES) return;
  const bytes = weightBytes(o, 'f32');
  throw new RangeError(
    `posenc.${fn}: the model needs ${bytes} bytes (${(bytes / 2 ** 30).toFixed(2)} GiB) of wasm memory for its weights as float32, more than the 4 GiB wasm32 heap holds beside the engine (${HEAP_BYTES - RESERVE_BYTES} bytes)${
      format === 'f32' ? '' : `; ${least} bytes with its matrices kept in F16 or BF16`}`,
  );
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
  checkFits(fn, encoderOptions, 'f16'); // the least it could take, before any file is read
  // every check of the config in C before a tensor is read
  checkResolved(fn, resolveConfig(fn, { ...encoderOptions }));
  const { tensors, format } = mapCheckpoint(fn, encoderOptions, readFiles(fn, o.weights), o.index);
  checkFits(fn, encoderOptions, format);
  const { encoder, layout } = checkpointEncoder(fn, encoderOptions, tensors, format);
  return new Model(encoder, o.config, rope, type, { format: format.toUpperCase(), bytes: 4 * layout.paramsLength });
}

/** A checkpoint's causal LM (createModel): the Encoder's methods with causal attention. */
class Model {
  #encoder;
  #config;
  #rope;
  #type;
  #weights;

  /** @internal use createModel() */
  constructor(encoder, config, rope, type, weights) {
    this.#encoder = encoder;
    this.#config = config;
    this.#rope = Object.freeze({ ...rope });
    this.#type = type;
    this.#weights = weights;
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

  /** The number of parameters (values) of the checkpoint served. */
  get parameterCount() {
    return this.#encoder.parameterCount;
  }

  /** How wasm memory holds the matrices: 'F32', or 'F16' / 'BF16' (a checkpoint's, kept as given). */
  get weightFormat() {
    return this.#weights.format;
  }

  /** Bytes of wasm memory the weights take (4 a parameter; 2 a matrix's with weightFormat F16 or BF16). */
  get weightBytes() {
    return this.#weights.bytes;
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
