// timestep.js: diffusers' sinusoidal timestep embedding (formula, source and
// layout in include/posenc.h, posenc_timestep_embedding).
import { describe, fail, typedArrayType } from './core/describe.js';
import { row } from './core/errors.js';
import { heapCall, noRoom, valuesFirst } from './core/heap.js';
import { lengthOf } from './core/typed.js';
import { wasm } from './core/instance.js';
import { boolean, checkLength, elementCount, param, readOptions, typedArray } from './core/options.js';

/**
 * Real timesteps: a Float32Array, a Float64Array or an Array of numbers, read
 * as doubles (C checks that each is finite, and names the first that is not).
 */
const timestepList = () => ({
  check(fn, name, v) {
    const allowed = 'a Float32Array, Float64Array or Array of finite numbers';
    if (!Array.isArray(v) && typedArrayType(v) !== 'Float64Array' && typedArrayType(v) !== 'Float32Array') throw fail(TypeError, fn, name, allowed, v);
    // a detached typed array reads as empty: it would pass for "no timesteps"
    typedArray(typedArrayType(v) === 'Float32Array' ? 'float32' : 'float64').check(fn, name, Array.isArray(v) ? new Float64Array(0) : v);
    const out = new Float64Array(Array.isArray(v) ? v.length : lengthOf(v));
    for (let i = 0; i < out.length; i++) {
      if (typeof v[i] !== 'number') throw fail(TypeError, fn, `${name}[${i}]`, 'a finite number', v[i]);
      out[i] = v[i];
    }
    return out;
  },
});

// C checks every value (posenc_timestep_embedding: a shift that is not
// floor(dim / 2), angles that stay finite) and its record names the option.
export const spec = {
  timesteps: timestepList(),
  dim: param('DIM', 'size'),
  flipSinToCos: boolean({ default: false }),
  downscaleFreqShift: param('DOWNSCALE_FREQ_SHIFT', 'double', { default: 1 }),
  scale: param('TIMESTEP_SCALE', 'double', { default: 1 }),
  maxPeriod: param('MAX_PERIOD', 'double', { optional: true }),
  out: typedArray('float32', { optional: true }),
};

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
  const steps = o.timesteps.length;
  const { exports } = wasm(fn);
  const call = (pOut, room, pSteps) => exports.posenc_timestep_embedding(
    pOut, room, pSteps, steps, o.dim, o.flipSinToCos ? 1 : 0, o.downscaleFreqShift, o.scale, o.maxPeriod ?? 0,
  );
  const context = {
    // an angle that overflows: the values it comes from
    givenText: (name, rule) => (rule === 'result' && name.startsWith('timesteps[')
      ? `${describe(o.timesteps[Number(name.slice('timesteps['.length, -1))])} with scale ${o.scale}, maxPeriod ${o.maxPeriod ?? row('MAX_PERIOD').zero}, downscaleFreqShift ${o.downscaleFreqShift}, dim ${o.dim}`
      : undefined),
  };
  // (the probe's timesteps: a real address C never reads, having no room to write)
  const n = valuesFirst(() => {
    const count = elementCount(fn, { 'timesteps.length': steps, dim: o.dim });
    if (o.out) checkLength(fn, 'out', o.out, count);
    return count;
  }, noRoom(fn, (ptr) => call(ptr, 0, ptr), context));
  const out = o.out ?? new Float32Array(n);
  heapCall(
    fn,
    [
      { array: out, type: 'float32', length: n, copyOut: true },
      { array: o.timesteps, type: 'float64', length: steps, copyIn: true },
    ],
    (pOut, pSteps) => call(pOut, n, pSteps),
    context,
  );
  return out;
}
