// helpers.js: shared by the Jest tests. Oracles here evaluate formulas in JS
// doubles, independently of posenc's code.
import * as posenc from '../dist/posenc.mjs';
import * as posencEncoder from '../dist/encoder.mjs';

// posenc: the default entry; posencEncoder: 'posenc/encoder' (its own wasm and init()).
export { posenc, posencEncoder };

/** 2^-23: the accuracy contract for every float posenc returns. */
export const ULP1 = 2 ** -23;

/** Largest |a[i] - expected(i)| over an array. */
export function maxError(actual, expected) {
  let worst = 0;
  for (let i = 0; i < actual.length; i++) {
    const e = Math.abs(actual[i] - expected(i));
    if (!(e <= worst)) worst = Number.isNaN(e) ? Infinity : e;
  }
  return worst;
}

/** Interleaved table value from Vaswani's formula, in double. */
export function vaswani(p, k, d, base = 10000) {
  const w = Math.pow(base, -(k - (k % 2)) / d);
  return k % 2 ? Math.cos(p * w) : Math.sin(p * w);
}

/** Runs fn and returns what it threw (or fails the test when nothing was thrown). */
export function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw, none happened');
}

/**
 * Runs fn, expects an error of class Err whose message matches, and posenc's
 * heap as it was (nothing allocated on failure): the encoder tests' rejection.
 */
export function rejectsCleanly(posenc, fn, Err, message) {
  const before = posenc.memoryStats();
  const error = thrown(fn);
  expect(error).toBeInstanceOf(Err);
  expect(error.message).toMatch(message);
  const after = posenc.memoryStats();
  expect([after.allocatedBytes, after.liveArrays]).toEqual([before.allocatedBytes, before.liveArrays]);
}

/**
 * RoPE inverse frequencies (rotaryDim / 2 values) and attention factor in double, written here
 * from Hugging Face's src/transformers/modeling_rope_utils.py (_compute_default_rope_parameters,
 * _compute_linear_scaling_rope_parameters, _compute_dynamic_ntk_parameters,
 * _compute_yarn_parameters, _compute_llama3_parameters, _compute_longrope_parameters), with
 * posenc's option names: for tests whose expected values need them, never posenc's own.
 */
export function ropeOracle({ rotaryDim: dim, base = 10000, scaling }) {
  const s = scaling ?? { type: 'default' };
  const half = dim / 2;
  const exponents = Array.from({ length: half }, (_, k) => (2 * k) / dim);
  const plain = (b) => exponents.map((e) => 1 / b ** e);
  switch (s.type) {
    case 'default':
      return { invFreq: plain(base), attentionFactor: 1 };
    case 'linear':
      return { invFreq: plain(base).map((f) => f / s.factor), attentionFactor: 1 };
    case 'dynamic': {
      const L = Math.max(s.seqLength ?? s.maxPositionEmbeddings, s.maxPositionEmbeddings);
      const scaled = base * ((s.factor * L) / s.maxPositionEmbeddings - (s.factor - 1)) ** (dim / (dim - 2));
      return { invFreq: plain(scaled), attentionFactor: 1 };
    }
    case 'yarn': {
      const original = s.originalMaxPositionEmbeddings ?? s.maxPositionEmbeddings;
      const factor = s.factor ?? s.maxPositionEmbeddings / original;
      const mscale = (scale, m = 1) => (scale <= 1 ? 1 : 0.1 * m * Math.log(scale) + 1);
      const attentionFactor = s.attentionFactor ?? (s.mscale && s.mscaleAllDim ? mscale(factor, s.mscale) / mscale(factor, s.mscaleAllDim) : mscale(factor));
      // the dimension whose wavelength turns `rotations` times over the original context
      const correction = (rotations) => (dim * Math.log(original / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
      let low = correction(s.betaFast || 32);
      let high = correction(s.betaSlow || 1);
      if (s.truncate ?? true) [low, high] = [Math.floor(low), Math.ceil(high)];
      [low, high] = [Math.max(low, 0), Math.min(high, dim - 1)];
      if (low === high) high += 0.001;
      const invFreq = exponents.map((e, k) => {
        const extrapolated = 1 - Math.min(1, Math.max(0, (k - low) / (high - low)));
        const pf = base ** e;
        return (1 / (factor * pf)) * (1 - extrapolated) + (1 / pf) * extrapolated;
      });
      return { invFreq, attentionFactor };
    }
    case 'llama3': {
      const lowWavelen = s.originalMaxPositionEmbeddings / s.lowFreqFactor;
      const highWavelen = s.originalMaxPositionEmbeddings / s.highFreqFactor;
      const invFreq = plain(base).map((f) => {
        const wavelen = (2 * Math.PI) / f;
        if (wavelen > lowWavelen) return f / s.factor;
        if (wavelen < highWavelen) return f;
        const smooth = (s.originalMaxPositionEmbeddings / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
        return ((1 - smooth) * f) / s.factor + smooth * f;
      });
      return { invFreq, attentionFactor: 1 };
    }
    case 'longrope': {
      const original = s.originalMaxPositionEmbeddings ?? s.maxPositionEmbeddings;
      const factor = s.factor ?? s.maxPositionEmbeddings / original;
      const attentionFactor = s.attentionFactor ?? (factor <= 1 ? 1 : Math.sqrt(1 + Math.log(factor) / Math.log(original)));
      const list = s.seqLength !== undefined && s.seqLength > original ? s.longFactor : s.shortFactor;
      return { invFreq: exponents.map((e, k) => 1 / (list[k] * base ** e)), attentionFactor };
    }
    default:
      throw new Error(`ropeOracle: no scaling type ${s.type}`);
  }
}
