// posenc's arrays as onnxruntime inputs. An onnxruntime-web (or -node) Tensor
// is { type, data, dims }, and new ort.Tensor(type, data, dims) takes the same
// three: posenc's typed arrays are the data as they are, no copy or conversion.
//
//   node examples/onnx-feeds.mjs
import { init, sinusoidal, alibiBias, ropeCache } from 'posenc';

await init();
const seq = 8;
const dModel = 16;
const heads = 4;
const rotaryDim = 8;

const { cos, sin } = ropeCache({ rotaryDim, length: seq });
const feeds = {
  // a position-embedding input, [1, seq, dModel]
  position_embeddings: { type: 'float32', data: sinusoidal({ length: seq, dModel }), dims: [1, seq, dModel] },
  // an additive attention bias, [1, heads, seq, seq]: ALiBi with the causal mask
  attention_bias: { type: 'float32', data: alibiBias({ heads, queryLength: seq }), dims: [1, heads, seq, seq] },
  // RoPE tables for a graph that takes them as inputs, [seq, rotaryDim / 2]
  rope_cos: { type: 'float32', data: cos, dims: [seq, rotaryDim / 2] },
  rope_sin: { type: 'float32', data: sin, dims: [seq, rotaryDim / 2] },
  // position ids are int64 in most exported models
  position_ids: { type: 'int64', data: BigInt64Array.from({ length: seq }, (_, i) => BigInt(i)), dims: [1, seq] },
};

// What ort.Tensor checks: the element type matches `type`, the length matches `dims`.
const ARRAY_OF = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array };
for (const [name, { type, data, dims }] of Object.entries(feeds)) {
  if (!(data instanceof ARRAY_OF[type])) throw new TypeError(`${name}: ${type} needs a ${ARRAY_OF[type].name}`);
  if (data.length !== dims.reduce((a, b) => a * b, 1)) throw new RangeError(`${name}: ${data.length} elements for dims ${dims}`);
  console.log(`${name} ${type} [${dims.join(', ')}]`);
}

// With onnxruntime-web:
//   import * as ort from 'onnxruntime-web';
//   const inputs = Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor(t.type, t.data, t.dims)]));
//   const outputs = await session.run(inputs);
const pe = feeds.position_embeddings.data;
console.log('position 1:', Array.from(pe.subarray(dModel, dModel + 4), (v) => v.toFixed(4)).join(' '));
console.log('bias head 0, query 2:', Array.from(feeds.attention_bias.data.subarray(2 * seq, 2 * seq + 4)).join(' '));
