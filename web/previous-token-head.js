// previous-token-head.js: an attention head rebuilt so that RoPE alone makes
// it attend to the previous token: the demo's "what positions do to
// attention" view shows it. Demo code on posenc's public API, not part of it.

/**
 * Turns one attention head of an encoder's tensors into a "previous-token"
 * head built from RoPE alone. The head's q and k ignore the tokens (their
 * weight rows are zeroed) and are constant biases, per rotary pair k: key
 * (a, 0), query a (cos f_k, -sin f_k) = the key rotated by -f_k. After RoPE,
 * q_i . k_j = a^2 A^2 sum_k cos((j - i + 1) f_k): largest exactly at
 * j = i - 1, whatever the tokens. a is chosen so that the logit of j = i - 1
 * beats every other j within maxLength by at least `margin`: each query
 * attends to its previous token with probability ~1 - seq e^-margin (query 0,
 * which has none, attends to itself and its right neighbour).
 * @param posenc the posenc/encoder module, initialized
 * @param tensors an encoder's tensors (encoder.tensors()); not modified
 * @param {{ heads: number, head?: number, layer?: number, margin?: number, maxLength?: number, rope?: { base?: number, layout?: string } }} options
 * @returns a new tensors object with layers.{layer}.self_attn.{q,k}_proj replaced
 */
export function previousTokenHead(posenc, tensors, { heads, head = 0, layer = 0, margin = 10, maxLength = 512, rope = {} }) {
  const prefix = `layers.${layer}.self_attn.`;
  const d = tensors[`${prefix}q_proj.weight`].shape[0];
  const headDim = d / heads;
  const layout = rope.layout ?? 'half';
  const { invFreq, attentionFactor } = posenc.ropeFrequencies({ rotaryDim: headDim, base: rope.base });
  const half = headDim / 2;
  // the smallest gap sum_k (1 - cos(n f_k)) over n = j - i + 1 != 0 within maxLength
  let minGap = Infinity;
  for (let n = 1; n <= maxLength; n++) {
    let gap = 0;
    for (let k = 0; k < half; k++) gap += 1 - Math.cos(n * invFreq[k]);
    minGap = Math.min(minGap, gap);
  }
  const a = Math.sqrt((margin * Math.sqrt(headDim)) / (attentionFactor * attentionFactor * minGap));
  const out = { ...tensors };
  const replace = (name, fill) => {
    const t = tensors[name];
    const data = Float32Array.from(t.data);
    fill(data);
    out[name] = { ...t, dtype: 'F32', shape: [...t.shape], data };
  };
  const base = head * headDim;
  const pair = (k) => (layout === 'half' ? [k, k + half] : [2 * k, 2 * k + 1]);
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
