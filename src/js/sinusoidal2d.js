// sinusoidal2d.js: the 2-D sine-cosine table of ViTs, MAE and DiT (formula,
// sources and layout in include/posenc.h, posenc_sinusoidal_2d).
import { heapCall } from './core/heap.js';
import { wasm } from './core/instance.js';
import { INT32_MAX, boolean, checkLength, elementCount, integer, number, readOptions, typedArray } from './core/options.js';

export const spec = {
  height: integer(0, INT32_MAX),
  width: integer(0, INT32_MAX),
  dModel: integer(4, INT32_MAX),
  base: number({ above: 1, default: 10000 }),
  clsToken: boolean({ default: false }),
  baseSize: number({ above: 0, optional: true }),
  interpolationScale: number({ above: 0, default: 1 }),
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
  if (o.dModel % 4 !== 0) {
    throw new RangeError(`posenc.${fn}: dModel must be a multiple of 4 (a sine and a cosine for each of the two axes), got ${o.dModel}`);
  }
  const rows = (o.clsToken ? 1 : 0) + o.height * o.width;
  const n = elementCount(fn, { [o.clsToken ? '(1 + height * width)' : 'height * width']: rows, dModel: o.dModel });
  for (const [axis, size] of [['width', o.width], ['height', o.height]]) {
    const scale = (o.baseSize !== undefined ? o.baseSize / size : 1) / o.interpolationScale;
    if (size > 0 && !Number.isFinite((size - 1) * scale)) {
      throw new RangeError(
        `posenc.${fn}: the coordinates overflow: ${axis} - 1 = ${size - 1} times ${o.baseSize !== undefined ? `baseSize / ${axis} / interpolationScale` : '1 / interpolationScale'} = ${scale} is not finite`,
      );
    }
  }
  const { exports } = wasm(fn);
  const out = o.out ?? new Float32Array(n);
  if (o.out) checkLength(fn, 'out', out, n);
  heapCall(fn, [{ array: out, type: 'float32', length: n, copyOut: true }], (ptr) =>
    exports.posenc_sinusoidal_2d(
      ptr, n, o.height, o.width, o.dModel, o.base, o.clsToken ? 1 : 0, o.baseSize ?? 0, o.interpolationScale,
    ),
  );
  return out;
}
