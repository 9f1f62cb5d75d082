// posenc with TensorFlow.js: tf.tensor(values, shape) takes posenc's
// Float32Arrays as they are. (@tensorflow/tfjs-core alone has no chained ops:
// call tf.reshape(t, shape), tf.add(a, b), not t.reshape(shape).)
//
//   node examples/tfjs.mjs
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { init, sinusoidal, alibiBias } from 'posenc';

await init();
await tf.setBackend('cpu');
const batch = 2;
const seq = 10;
const dModel = 6;
const heads = 2;

// token embeddings [batch, seq, dModel] scaled by sqrt(dModel), plus the table [seq, dModel] (broadcast over batch)
const embeddings = tf.fill([batch, seq, dModel], 0.5);
const pe = tf.tensor(sinusoidal({ length: seq, dModel }), [seq, dModel]);
const x = tf.add(tf.mul(embeddings, Math.sqrt(dModel)), pe);

// ALiBi: attention logits [heads, seq, seq] + bias, then a causal softmax
const logits = tf.zeros([heads, seq, seq]);
const bias = tf.tensor(alibiBias({ heads, queryLength: seq }), [heads, seq, seq]);
const weights = tf.softmax(tf.add(logits, bias));

// flatten the batch for a dense layer: [batch * seq, dModel]
const rows = tf.reshape(x, [batch * seq, dModel]);
console.log('rows', JSON.stringify(rows.shape));
console.log('row 1:', Array.from(await tf.slice(rows, [1, 0], [1, dModel]).data(), (v) => v.toFixed(4)).join(' '));
console.log('head 0, query 2 weights:', Array.from(await tf.slice(weights, [0, 2, 0], [1, 1, 4]).data(), (v) => v.toFixed(4)).join(' '));
tf.dispose([embeddings, pe, x, logits, bias, weights, rows]);
