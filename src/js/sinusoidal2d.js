// sinusoidal2d.js: the 2-D sine-cosine table of ViTs, MAE and DiT (formula,
// sources and layout in include/posenc.h, posenc_sinusoidal_2d).
import { heapCall, noRoom, valuesFirst } from './core/heap.js';
import { wasm } from './core/instance.js';
import { boolean, checkLength, elementCount, param, readOptions, typedArray } from './core/options.js';

// C checks every value (posenc_sinusoidal_2d: dModel's multiple of 4, scaled
// coordinates that stay finite) and its record names the option; 0 selects
// C's defaults (base, interpolationScale), and no baseSize.
export const spec = {
  height: param('HEIGHT', 'size'),
  width: param('WIDTH', 'size'),
  dModel: param('D_MODEL_2D', 'size'),
  base: param('BASE', 'double', { optional: true }),
  clsToken: boolean({ default: false }),
  baseSize: param('BASE_SIZE', 'double', { optional: true }),
  interpolationScale: param('INTERPOLATION_SCALE', 'double', { optional: true }),
  out: typedArray('float32', { optional: true }),
};

/**
 * The 2-D sine-cosine table, [(clsToken ? 1 : 0) + height * width][dModel]:
 * the patch in grid row y, column x is row (clsToken ? 1 : 0) + y * width + x,
 * [sin(x w_k) | cos(x w_k) | sin(y w_k) | cos(y w_k)], w_k = base^(-k / (dModel / 4)).
 * The first half holds x, the column (MAE's meshgrid puts w first). The cls
 * row is zeros. baseSize and interpolationScale scale the coordinates as
 * diffusers' PatchEmbed does: x / (width / baseSize) / interpolationScale.
 * @returns {Float32Array} `out` when given (filled), else a new array
 */
export function sinusoidal2d(options) {
  const fn = 'sinusoidal2d';
  const o = readOptions(fn, options, spec);
  const rows = (o.clsToken ? 1 : 0) + o.height * o.width;
  const { exports } = wasm(fn);
  const call = (ptr, room) => exports.posenc_sinusoidal_2d(
    ptr, room, o.height, o.width, o.dModel, o.base ?? 0, o.clsToken ? 1 : 0, o.baseSize ?? 0, o.interpolationScale ?? 0,
  );
  const n = valuesFirst(() => {
    const count = elementCount(fn, { [o.clsToken ? '(1 + height * width)' : 'height * width']: rows, dModel: o.dModel });
    if (o.out) checkLength(fn, 'out', o.out, count);
    return count;
  }, noRoom(fn, (ptr) => call(ptr, 0)));
  const out = o.out ?? new Float32Array(n);
  heapCall(fn, [{ array: out, type: 'float32', length: n, copyOut: true }], (ptr) => call(ptr, n));
  return out;
}
