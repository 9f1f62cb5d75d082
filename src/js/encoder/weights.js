// weights.js: an encoder's weights from where the caller has them: a seed,
// the bytes of a .safetensors file, or named tensors, copied into the flat
// buffers of its layout (layout.js).
import { describe, fail, isPlainObject, typeOf, typedArrayType } from '../core/describe.js';
import { integer } from '../core/options.js';
import { lengthOf } from '../core/typed.js';
import { findTensor, tensorsOf } from './layout.js';
import { parseSafetensors, tensorValues } from './safetensors.js';

/**
 * xorshift32 (Marsaglia 2003, "Xorshift RNGs"): shifts and xors only, so it
 * runs at full speed in every engine; uniform in [0, 1). The seed is mixed
 * with the golden ratio (seed 0 would otherwise stick at 0) and stepped 8 times.
 */
function xorshift32(seed) {
  let a = (seed ^ 0x9e3779b9) >>> 0 || 1;
  const next = () => {
    a ^= a << 13;
    a ^= a >>> 17;
    a ^= a << 5;
    return (a >>> 0) / 4294967296;
  };
  for (let i = 0; i < 8; i++) next(); // nearby seeds part ways
  return next;
}

/**
 * Seeded weights, tensor by tensor in the naming order: embeddings U(-a, a)
 * with a = sqrt(3 / dModel) (standard deviation dModel^-1/2, so that
 * E * sqrt(dModel) has unit scale like the sinusoidal table); linear weights
 * and biases U(-1/sqrt(fanIn), 1/sqrt(fanIn)) (torch nn.Linear's bounds);
 * layer norms 1 and 0; the T5 bias table U(-0.5, 0.5).
 */
function seededValues(seed, c, layout, into) {
  const random = xorshift32(seed);
  for (const t of tensorsOf(layout)) {
    const view = into[t.head ? 'head' : 'params'].subarray(t.offset, t.offset + t.size);
    const bound = t.init === 'embed' ? Math.sqrt(3 / c.dModel) : t.init === 'bias' ? 0.5 : 1 / Math.sqrt(t.fanIn);
    for (let i = 0; i < view.length; i++) {
      view[i] = t.init === 'one' ? 1 : t.init === 'zero' ? 0 : (2 * random() - 1) * bound;
    }
  }
}

const sameShape = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
const FLT_MAX = 3.4028234663852886e38;

/**
 * The values of a tensor as float32, each checked: a number (not a string, not
 * a hole of a sparse Array), finite, and within float32's range (an F16 weight
 * that overflowed reads as Infinity). A bad value would turn every logit into
 * NaN or Infinity without a word; this names the tensor and the first one.
 */
function checkedFloat32(fn, label, data, n) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const v = data[i];
    if (typeof v !== 'number') throw fail(TypeError, fn, `${label}.data[${i}]`, 'a finite number', v);
    if (!(Math.abs(v) <= FLT_MAX)) throw fail(RangeError, fn, `${label}.data[${i}]`, 'a finite number within float32 range', v);
    out[i] = v;
  }
  return out;
}

/** The first non-finite half (F16 or BF16: exponent bits all ones) of `bytes`, as its index, or -1. */
function firstNonFinite(bytes, dtype) {
  const mask = dtype === 'BF16' ? 0x7f80 : 0x7c00;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < bytes.length / 2; i++) if ((view.getUint16(2 * i, true) & mask) === mask) return i;
  return -1;
}

/**
 * A checkpoint's matrix kept as given (layout.format 'f16' or 'bf16'):
 * { shape, dtype, bytes } (parseSafetensors' raw tensor) copied, its halves
 * little-endian, into `size` floats of target from offset; each half finite,
 * as checkedFloat32 holds the widened values.
 */
function writeHalves(fn, label, tensor, t, target) {
  const bad = firstNonFinite(tensor.bytes, tensor.dtype);
  if (bad >= 0) {
    const value = tensorValues({ dtype: tensor.dtype, bytes: tensor.bytes.subarray(2 * bad, 2 * bad + 2) })[0];
    throw fail(RangeError, fn, `${label}.data[${bad}]`, 'a finite number within float32 range', value);
  }
  new Uint8Array(target.buffer, target.byteOffset + 4 * t.offset, tensor.bytes.length).set(tensor.bytes);
}

/**
 * Copies a map { name: { shape, data } | Float32Array } onto the buffers;
 * strict about names and shapes. With layout.format 'f16' or 'bf16' (a
 * checkpoint's, createModel), each matrix is { shape, dtype, bytes } in
 * that format, checked by its caller, and copied as it is (writeHalves).
 */
function mapTensors(fn, c, source, layout, into) {
  const what = 'weights';
  const packed = (name) => /^layers\.(\d+)\.self_attn\.in_proj_(weight|bias)$/.exec(name);
  for (const name of Object.keys(source)) {
    const m = packed(name);
    if (!findTensor(layout, name) && !(m && Number(m[1]) < c.layers)) {
      const hint = name === 'head.weight' || name === 'head.bias' ? ' (set classes to load a classifier head)'
        : name === 'lm_head.weight' ? (c.tieEmbeddings ? ' (tieEmbeddings: true takes the output head from embed.weight)' : ' (set lmHead: true to load an LM head)')
          : name === 'pos_embed.weight' ? " (positional { type: 'learned', maxLength } reads it)" : '';
      throw new RangeError(
        `posenc.${fn}: ${what} has an unexpected tensor '${name}'${hint}; the names are embed.weight, layers.{i}.self_attn.{q,k,v,out}_proj.{weight,bias}, layers.{i}.{norm1,norm2,linear1,linear2}.{weight,bias}, ... (docs/encoder.md, Tensor names; encoderTensorShapes())`,
      );
    }
  }
  const read = (name, shape) => {
    const t = source[name];
    const tensor = typedArrayType(t) === 'Float32Array' ? { shape: [lengthOf(t)], data: t } : t;
    if (!isPlainObject(tensor) || !Array.isArray(tensor.shape) || !(Array.isArray(tensor.data) || ['Float32Array', 'Float64Array'].includes(typedArrayType(tensor.data)))) {
      throw fail(TypeError, fn, `${what}['${name}']`, '{ shape, data } with data a Float32Array (or a Float32Array)', t);
    }
    if (tensor.dtype !== undefined && !['F32', 'F16', 'BF16', 'F64'].includes(tensor.dtype)) {
      throw new RangeError(`posenc.${fn}: ${what}['${name}'] has dtype ${describe(tensor.dtype)}; the encoder takes F32, F16, BF16 or F64`);
    }
    if (!sameShape(tensor.shape, shape)) {
      throw new RangeError(`posenc.${fn}: ${what}['${name}'] must have shape [${shape.join(', ')}], got [${tensor.shape.join(', ')}]`);
    }
    const n = shape.reduce((a, b) => a * b, 1);
    const length = Array.isArray(tensor.data) ? tensor.data.length : lengthOf(tensor.data);
    if (length !== n) {
      throw new RangeError(`posenc.${fn}: ${what}['${name}'] must have ${n} values (shape [${shape.join(', ')}]), got ${length}`);
    }
    return checkedFloat32(fn, `${what}['${name}']`, tensor.data, n);
  };
  for (const t of tensorsOf(layout)) {
    const target = into[t.head ? 'head' : 'params'];
    const m = /^(layers\.\d+\.self_attn\.)([qkv])_proj\.(weight|bias)$/.exec(t.name);
    const packedName = m && `${m[1]}in_proj_${m[3]}`;
    if (packedName && packedName in source) {
      if (t.name in source) throw new RangeError(`posenc.${fn}: ${what} has both '${t.name}' and '${packedName}'; give one`);
      // PyTorch's nn.MultiheadAttention packs q, k, v: in_proj_weight [3d][d], in_proj_bias [3d]
      const d = c.dModel;
      const data = read(packedName, m[3] === 'weight' ? [3 * d, d] : [3 * d]);
      const part = 'qkv'.indexOf(m[2]);
      target.set(data.subarray(part * t.size, (part + 1) * t.size), t.offset);
      continue;
    }
    if (!(t.name in source)) {
      throw new RangeError(`posenc.${fn}: ${what} is missing the tensor '${t.name}' [${t.shape.join(', ')}]`);
    }
    if (t.matrix && layout.format !== 'f32') {
      writeHalves(fn, `${what}['${t.name}']`, source[t.name], t, target);
      continue;
    }
    const data = read(t.name, t.shape);
    target.set(data, t.offset);
  }
}

/**
 * What `weights` holds, read once: { seed } or { tensors, metadata } (the
 * bytes of a .safetensors file parsed, or readSafetensors' result, or a map
 * of tensors with no metadata).
 */
export function readWeightsSource(fn, weights) {
  const allowed = "{ seed } (seeded initialisation), the bytes of a .safetensors file, or { name: { shape, data } } tensors";
  if (isPlainObject(weights) && Object.keys(weights).length === 1 && Object.hasOwn(weights, 'seed')) {
    return { seed: integer(0, 2 ** 32 - 1).check(fn, 'weights.seed', weights.seed) };
  }
  if (typeOf(weights) === 'ArrayBuffer' || typeOf(weights) === 'Uint8Array' || typeOf(weights) === 'Buffer') {
    return parseSafetensors(fn, 'weights', weights);
  }
  if (isPlainObject(weights)) {
    const isFile = isPlainObject(weights.tensors) && Object.keys(weights).every((k) => k === 'tensors' || k === 'metadata');
    return isFile ? { tensors: weights.tensors, metadata: isPlainObject(weights.metadata) ? weights.metadata : {} } : { tensors: weights, metadata: {} };
  }
  throw fail(TypeError, fn, 'weights', allowed, weights);
}

/** The parameter and head buffers (host memory) for a layout, from the weights' source. */
export function readWeights(fn, c, source, layout) {
  const into = { params: new Float32Array(layout.paramsLength), head: new Float32Array(layout.headLength) };
  if (source.seed !== undefined) seededValues(source.seed, c, layout, into);
  else mapTensors(fn, c, source.tensors, layout, into);
  return into;
}
