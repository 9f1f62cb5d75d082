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
