// timestep.js: diffusers' sinusoidal timestep embedding (formula, source and
// layout in include/posenc.h, posenc_timestep_embedding).
import { status as STATUS } from '../../build/abi.js';
import { fail, typedArrayType } from './core/describe.js';
import { heapCall } from './core/heap.js';
import { lengthOf } from './core/typed.js';
import { wasm } from './core/instance.js';
import { INT32_MAX, boolean, checkLength, elementCount, integer, number, readOptions, typedArray } from './core/options.js';


/** Real timesteps: a Float32Array, a Float64Array or an Array of finite numbers, read as doubles. */
const timestepList = () => ({
  check(fn, name, v) {
    const allowed = 'a Float32Array, Float64Array or Array of finite numbers';
    if (!Array.isArray(v) && typedArrayType(v) !== 'Float64Array' && typedArrayType(v) !== 'Float32Array') throw fail(TypeError, fn, name, allowed, v);
    // a detached typed array reads as empty: it would pass for "no timesteps"
    typedArray(typedArrayType(v) === 'Float32Array' ? 'float32' : 'float64').check(fn, name, Array.isArray(v) ? new Float64Array(0) : v);
    const out = new Float64Array(Array.isArray(v) ? v.length : lengthOf(v));
    for (let i = 0; i < out.length; i++) {
      if (typeof v[i] !== 'number') throw fail(TypeError, fn, `${name}[${i}]`, 'a finite number', v[i]);
      if (!Number.isFinite(v[i])) throw fail(RangeError, fn, `${name}[${i}]`, 'a finite number', v[i]);
      out[i] = v[i];
    }
    return out;
  },
});

export const spec = {
  timesteps: timestepList(),
  dim: integer(1, INT32_MAX),
  flipSinToCos: boolean({ default: false }),
  downscaleFreqShift: number({ default: 1 }),
  scale: number({ default: 1 }),
  maxPeriod: number({ above: 0, default: 10000 }),
  out: typedArray('float32', { optional: true }),
};

// The one case C rejects that the checks above let through: an angle that overflows.
function overflow(fn, o, half) {
  let largest = 0;
  for (const t of o.timesteps) largest = Math.max(largest, Math.abs(t));
  return new RangeError(
    `posenc.${fn}: scale * timestep * w_k overflows: scale ${o.scale}, largest |timestep| ${largest}, w_k up to exp(ln(maxPeriod) * (half - 1) / (downscaleFreqShift - half)) with maxPeriod ${o.maxPeriod}, downscaleFreqShift ${o.downscaleFreqShift}, half ${half}`,
  );
}

/**
 * diffusers' get_timestep_embedding, [timesteps.length][dim]: half =
 * floor(dim / 2), w_k = exp(-ln(maxPeriod) * k / (half - downscaleFreqShift)),
 * each row [sin(scale t w_k) | cos(scale t w_k)], [cos | sin] when
 * flipSinToCos, a zero column appended when dim is odd. Timesteps are real
 * numbers (samplers use fractional ones).
 * @returns {Float32Array} `out` when given (filled), else a new array
 */
export function timestepEmbedding(options) {
  const fn = 'timestepEmbedding';
  const o = readOptions(fn, options, spec);
  const half = Math.floor(o.dim / 2);
  if (half > 0 && half - o.downscaleFreqShift === 0) {
    throw new RangeError(
      `posenc.${fn}: downscaleFreqShift must differ from floor(dim / 2) = ${half} (the frequencies divide by their difference), got ${o.downscaleFreqShift}`,
    );
  }
  const steps = o.timesteps.length;
  const n = elementCount(fn, { 'timesteps.length': steps, dim: o.dim });
  const { exports } = wasm(fn);
  const out = o.out ?? new Float32Array(n);
  if (o.out) checkLength(fn, 'out', out, n);
  heapCall(
    fn,
    [
      { array: out, type: 'float32', length: n, copyOut: true },
      { array: o.timesteps, type: 'float64', length: steps, copyIn: true },
    ],
    (pOut, pSteps) => {
      const status = exports.posenc_timestep_embedding(
        pOut, n, pSteps, steps, o.dim, o.flipSinToCos ? 1 : 0, o.downscaleFreqShift, o.scale, o.maxPeriod,
      );
      if (status === STATUS.ERR_INVALID_ARGUMENT) throw overflow(fn, o, half); // thrown before anything is copied out
      return status;
    },
  );
  return out;
}
