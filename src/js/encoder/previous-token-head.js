// previous-token-head.js: an attention head rebuilt so that RoPE alone makes
// it attend to the previous token (the demo's encoder view shows it).
import { describe, fail, isPlainObject } from '../core/describe.js';
import { INT32_MAX, integer, later, number, readOptions } from '../core/options.js';
import { readPositional, ropeFrequenciesFor } from './options.js';

export const previousSpec = {
  heads: integer(1, INT32_MAX),
  positional: later({ default: { type: 'rope' } }),
  layer: integer(0, INT32_MAX, { default: 0 }),
  head: integer(0, INT32_MAX, { default: 0 }),
  margin: number({ above: 0, default: 10 }),
  maxLength: integer(2, 1 << 20, { default: 512 }),
};

/**
 * Turns one attention head into a "previous-token" head built from RoPE alone,
 * for a demo of what rotary positions give attention. The head's q and k
 * ignore the tokens (their weight rows are zeroed) and are constant biases,
 * per rotary pair k: key (a, 0), query a (cos f_k, -sin f_k) = the key rotated
 * by -f_k. After RoPE, q_i . k_j = a^2 A^2 sum_k cos((j - i + 1) f_k): largest
 * exactly at j = i - 1, whatever the tokens. a is chosen so that the logit of
 * j = i - 1 beats every other j within maxLength by at least `margin`: each
 * query attends to its previous token with probability ~1 - seq e^-margin
 * (query 0, which has none, attends to itself and its right neighbour).
 * @param {Record<string, { shape: number[], data: Float32Array }>} tensors an
 *   encoder's tensors (encoder.tensors(), readSafetensors().tensors); not modified
 * @param {{ heads: number, positional?: object, layer?: number, head?: number, margin?: number, maxLength?: number }} options
 *   positional: the encoder's { type: 'rope', ... } options (default { type: 'rope' })
 * @returns a new tensors object with layers.{layer}.self_attn.{q,k}_proj replaced
 */
export function previousTokenHead(tensors, options) {
  const fn = 'previousTokenHead';
  if (!isPlainObject(tensors)) throw fail(TypeError, fn, 'tensors', 'an object of tensors (encoder.tensors())', tensors);
  const o = readOptions(fn, options, previousSpec);
  const prefix = `layers.${o.layer}.self_attn.`;
  const get = (name) => {
    const t = tensors[name];
    if (!isPlainObject(t) || !Array.isArray(t.shape) || !ArrayBuffer.isView(t.data)) {
      throw new RangeError(`posenc.${fn}: tensors must hold '${name}' as { shape, data } (layer ${o.layer} of an encoder), got ${describe(t)}`);
    }
    return t;
  };
  const qw = get(`${prefix}q_proj.weight`);
  const d = qw.shape[0];
  if (d % o.heads) throw new RangeError(`posenc.${fn}: heads must divide dModel = ${d}, got ${o.heads}`);
  if (o.head >= o.heads) throw new RangeError(`posenc.${fn}: head must be an integer from 0 to ${o.heads - 1}, got ${o.head}`);
  const headDim = d / o.heads;
  const p = readPositional(fn, o.positional, d, headDim);
  if (p.type !== 'rope') throw new RangeError(`posenc.${fn}: positional.type must be 'rope' (the head is built from rotary positions alone), got '${p.type}'`);
  const { invFreq, attentionFactor } = ropeFrequenciesFor(fn, p, o.maxLength);
  const half = p.rotaryDim / 2;
  // the smallest gap sum_k (1 - cos(n f_k)) over n = j - i + 1 != 0 within maxLength
  let minGap = Infinity;
  for (let n = 1; n <= o.maxLength; n++) {
    let gap = 0;
    for (let k = 0; k < half; k++) gap += 1 - Math.cos(n * invFreq[k]);
    minGap = Math.min(minGap, gap);
  }
  if (!(minGap > 1e-9)) throw new RangeError(`posenc.${fn}: these RoPE frequencies cannot tell positions 1 .. maxLength = ${o.maxLength} apart`);
  const a = Math.sqrt((o.margin * Math.sqrt(headDim)) / (attentionFactor * attentionFactor * minGap));
  const out = { ...tensors };
  const replace = (name, fill) => {
    const t = get(name);
    const data = Float32Array.from(t.data);
    fill(data);
    out[name] = { ...t, dtype: 'F32', shape: [...t.shape], data };
  };
  const base = o.head * headDim;
  const pair = (k) => (p.layout === 'half' ? [k, k + half] : [2 * k, 2 * k + 1]);
  for (const which of ['q', 'k']) {
    replace(`${prefix}${which}_proj.weight`, (w) => w.fill(0, base * d, (base + headDim) * d));
    replace(`${prefix}${which}_proj.bias`, (b) => {
      b.fill(0, base, base + headDim);
      for (let k = 0; k < half; k++) {
        const [i, j] = pair(k);
        b[base + i] = which === 'k' ? a : a * Math.cos(invFreq[k]);
        b[base + j] = which === 'k' ? 0 : -a * Math.sin(invFreq[k]);
      }
    });
  }
  return out;
}
