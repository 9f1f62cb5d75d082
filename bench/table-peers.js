// table-peers.js: the sinusoidal table [L][d] as people write it in JS today,
// from the tutorial loop to the careful recurrence, plus TensorFlow.js.
// Each returns (or fills) a Float32Array in the interleaved layout.

/** The tutorial loop: Math.pow and sin/cos per element (the tutorials' formula, literally). */
export function naive(L, d) {
  const pe = new Float32Array(L * d);
  for (let pos = 0; pos < L; pos++) {
    for (let i = 0; i < d; i += 2) {
      const denominator = Math.pow(10000, i / d);
      pe[pos * d + i] = Math.sin(pos / denominator);
      if (i + 1 < d) pe[pos * d + i + 1] = Math.cos(pos / denominator);
    }
  }
  return pe;
}

/** Frequencies hoisted into a Float64Array, one Math.sin and Math.cos per pair. */
export function optimized(L, d, out) {
  const half = d >> 1;
  const w = new Float64Array(half);
  for (let i = 0; i < half; i++) w[i] = Math.pow(10000, (-2 * i) / d);
  for (let pos = 0; pos < L; pos++) {
    const row = pos * d;
    for (let i = 0; i < half; i++) {
      const a = pos * w[i];
      out[row + 2 * i] = Math.sin(a);
      out[row + 2 * i + 1] = Math.cos(a);
    }
  }
  return out;
}

/** The careful version: an f64 angle-addition recurrence, re-anchored every 64 rows. */
export function careful(L, d, out) {
  const half = d >> 1;
  const w = new Float64Array(half);
  const cw = new Float64Array(half);
  const sw = new Float64Array(half);
  const s = new Float64Array(half);
  const c = new Float64Array(half);
  for (let i = 0; i < half; i++) {
    w[i] = Math.pow(10000, (-2 * i) / d);
    cw[i] = Math.cos(w[i]);
    sw[i] = Math.sin(w[i]);
  }
  for (let pos = 0; pos < L; pos++) {
    const row = pos * d;
    if (pos % 64 === 0) {
      for (let i = 0; i < half; i++) {
        s[i] = Math.sin(pos * w[i]);
        c[i] = Math.cos(pos * w[i]);
      }
    }
    for (let i = 0; i < half; i++) {
      const si = s[i];
      const ci = c[i];
      out[row + 2 * i] = si;
      out[row + 2 * i + 1] = ci;
      s[i] = si * cw[i] + ci * sw[i];
      c[i] = ci * cw[i] - si * sw[i];
    }
  }
  return out;
}

/** TensorFlow.js, its best vectorised form: outer product, sin/cos, interleave, read back. */
export function tfjsTable(tf, L, d) {
  return tf.tidy(() => {
    const half = d >> 1;
    const pos = tf.reshape(tf.range(0, L, 1, 'float32'), [L, 1]);
    const i2 = tf.range(0, d, 2, 'float32');
    const w = tf.exp(tf.mul(i2, tf.scalar(-Math.log(10000) / d)));
    const angles = tf.mul(pos, tf.reshape(w, [1, half]));
    const stacked = tf.stack([tf.sin(angles), tf.cos(angles)], 2); // [L][half][2]
    return tf.reshape(stacked, [L, d]).dataSync();
  });
}
