// layout.js: the encoder's tensors, their names, shapes and places in the flat
// parameter buffer (include/posenc.h, posenc_encoder_sizes, states the order).
import { elementCount } from '../core/options.js';

/** The matrices, which weightFormat 'f16' and 'bf16' hold as halves (include/posenc_encoder.h, posenc_weight_format). */
const MATRIX = /^(embed|lm_head|linear[12]|self_attn\.\w+_proj|mlp\.\w+_proj)\.weight$/;

/**
 * The tensors of an encoder, in the order of the flat parameter buffer
 * (include/posenc.h, posenc_encoder_sizes), then the classifier head (its own
 * buffer). Every tensor's element count is checked against what one buffer can
 * hold before anything is listed, drawn or allocated; the layers are described
 * once (a template) and walked by tensorsOf, so no list grows with `layers`.
 * format: how the buffer holds the matrices ('f32'; 'f16' or 'bf16': two
 * values to a float, a matrix's size ceil(count / 2) floats). Each tensor
 * has its offset and size in floats, its count of values, and matrix: true
 * for a matrix.
 */
export function tensorLayout(fn, c, format = 'f32') {
  const d = c.dModel;
  const size = (shape) => shape.reduce((a, b) => a * b, 1);
  const floats = (t) => (format !== 'f32' && t.matrix ? Math.ceil(t.count / 2) : t.count);
  const place = (list, start = 0) => {
    let offset = start;
    for (const t of list) {
      t.matrix = MATRIX.test(t.name);
      t.count = size(t.shape);
      t.offset = offset;
      t.size = floats(t);
      offset += t.size;
    }
    return offset - start;
  };
  // the element counts first, by the options that make them: vocabSize * dModel, classes * dModel, ...
  const counts = [{ vocabSize: c.vocabSize, dModel: d }, { dFF: c.dFF, dModel: d }, { classes: c.classes, dModel: d }, { heads: c.heads, headDim: c.headDim ?? 1, dModel: d }];
  if (c.languages) counts.push({ languages: c.languages, dModel: d });
  if (c.positional.type === 't5') counts.push({ 'positional.numBuckets': c.positional.numBuckets, heads: c.heads });
  if (c.positional.type === 'learned') counts.push({ 'positional.maxLength': c.positional.maxLength, dModel: d });
  for (const factors of counts) elementCount(fn, factors);

  const before = [{ name: 'embed.weight', shape: [c.vocabSize, d], init: 'embed' }];
  if (c.positional.type === 'learned') before.push({ name: 'pos_embed.weight', shape: [c.positional.maxLength, d], init: 'embed' });
  if (c.languages) before.push({ name: 'language_embed.weight', shape: [c.languages, d], init: 'embed' });
  if (c.positional.type === 't5') before.push({ name: 'relative_attention_bias.weight', shape: [c.positional.numBuckets, c.heads], init: 'bias' });
  // the block's parts (include/posenc_encoder.h, posenc_encoder_sizes): at their defaults, the copy models' layer
  const hd = c.headDim ?? Math.floor(d / c.heads);
  const qd = c.heads * hd;
  const kvd = (c.kvHeads ?? c.heads) * hd;
  const biased = (c.attentionBias ?? 'all') !== 'none';
  const layerNorm = (c.normKind ?? 'layer') === 'layer';
  const norm = (name) => [{ name: `${name}.weight`, shape: [d], init: 'one' }, ...(layerNorm ? [{ name: `${name}.bias`, shape: [d], init: 'zero' }] : [])];
  const layer = [];
  for (const [proj, out, bias] of [['q_proj', qd, biased], ['k_proj', kvd, biased], ['v_proj', kvd, biased], ['out_proj', d, (c.attentionBias ?? 'all') === 'all']]) {
    const fanIn = proj === 'out_proj' ? qd : d;
    layer.push({ name: `self_attn.${proj}.weight`, shape: [out, fanIn], init: 'linear', fanIn });
    if (bias) layer.push({ name: `self_attn.${proj}.bias`, shape: [out], init: 'linear', fanIn });
  }
  if (c.qkNorm) layer.push({ name: 'self_attn.q_norm.weight', shape: [hd], init: 'one' }, { name: 'self_attn.k_norm.weight', shape: [hd], init: 'one' });
  layer.push(...norm('norm1'));
  if ((c.mlp ?? 'plain') === 'gated') {
    layer.push({ name: 'mlp.gate_proj.weight', shape: [c.dFF, d], init: 'linear', fanIn: d });
    layer.push({ name: 'mlp.up_proj.weight', shape: [c.dFF, d], init: 'linear', fanIn: d });
    layer.push({ name: 'mlp.down_proj.weight', shape: [d, c.dFF], init: 'linear', fanIn: c.dFF });
  } else {
    layer.push({ name: 'linear1.weight', shape: [c.dFF, d], init: 'linear', fanIn: d });
    layer.push({ name: 'linear1.bias', shape: [c.dFF], init: 'linear', fanIn: d });
    layer.push({ name: 'linear2.weight', shape: [d, c.dFF], init: 'linear', fanIn: c.dFF });
    layer.push({ name: 'linear2.bias', shape: [d], init: 'linear', fanIn: c.dFF });
  }
  layer.push(...norm('norm2'));
  const after = [];
  if (c.finalNorm) after.push(...norm('norm'));
  if (c.lmHead && !c.tieEmbeddings) after.push({ name: 'lm_head.weight', shape: [c.vocabSize, d], init: 'linear', fanIn: d });
  const head = c.classes
    ? [
        { name: 'head.weight', shape: [c.classes, d], init: 'linear', fanIn: d, head: true },
        { name: 'head.bias', shape: [c.classes], init: 'linear', fanIn: d, head: true },
      ]
    : [];

  const values = (list) => list.reduce((n, t) => n + size(t.shape), 0);
  const parameterCount = values(before) + c.layers * values(layer) + values(after);
  elementCount(fn, { parameters: parameterCount });
  const beforeLength = place(before);
  const layerLength = place(layer);
  const headLength = place(head);
  elementCount(fn, { 'classes * (dModel + 1)': headLength });
  const layersStart = beforeLength;
  const afterLength = place(after, layersStart + c.layers * layerLength);
  return {
    before, layer, layerLength, layersStart, after, head, layers: c.layers, paramsLength: layersStart + c.layers * layerLength + afterLength, headLength, format,
    parameterCount: parameterCount + headLength,
  };
}

/**
 * The most tensors one object of names lists (encoderTensorShapes, tensors()):
 * 2^21. A .safetensors header (at most 100 MB, and at least about 50 bytes per
 * tensor) cannot list more, and past a few million keys a JS engine's objects
 * slow down more than linearly (16 million keys took V8 minutes).
 */
export const MAX_LISTED_TENSORS = 2 ** 21;

/** Checks that a layout's tensors fit one object of names (MAX_LISTED_TENSORS). */
export function checkListable(fn, layout) {
  const count = layout.before.length + layout.layers * layout.layer.length + layout.after.length + layout.head.length;
  if (count > MAX_LISTED_TENSORS) {
    throw new RangeError(`posenc.${fn}: layers = ${layout.layers} makes ${count} tensors, more than the ${MAX_LISTED_TENSORS} one object of names lists (a .safetensors header holds fewer)`);
  }
}

/** Every tensor of a layout in buffer order, the classifier head last: { name, shape, init, offset, size, head? }. */
export function* tensorsOf(layout) {
  yield* layout.before;
  for (let i = 0; i < layout.layers; i++) {
    const start = layout.layersStart + i * layout.layerLength;
    for (const t of layout.layer) yield { ...t, name: `layers.${i}.${t.name}`, offset: start + t.offset };
  }
  yield* layout.after;
  yield* layout.head;
}

/** The tensor of a layout named `name`, or undefined. */
export function findTensor(layout, name) {
  const m = /^layers\.(0|[1-9]\d*)\.(.+)$/.exec(name);
  if (m) {
    const i = Number(m[1]);
    const t = i < layout.layers ? layout.layer.find((x) => x.name === m[2]) : undefined;
    return t && { ...t, name, offset: layout.layersStart + i * layout.layerLength + t.offset };
  }
  return [...layout.before, ...layout.after, ...layout.head].find((t) => t.name === name);
}
