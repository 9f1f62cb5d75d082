// rope-axes.js: RoPE with several position axes: M-RoPE (Qwen2-VL, Qwen2.5-VL)
// and the 2-D forms of vision encoders (formulas in include/posenc.h,
// posenc_rope_axes_cache). This file reads their options.
import { fail } from './core/describe.js';
import { INT32_MAX, integer, snapshot } from './core/options.js';

/** The 2-D RoPE forms (posenc.h): 'pixtral' (PixtralRotaryEmbedding), 'axial' (the Qwen2-VL vision encoder). */
export const ROPE_2D = ['pixtral', 'axial'];

/** M-RoPE's mrope_section: three integers >= 0 (temporal, height, width pairs). */
export const sectionList = (extra = {}) => ({
  ...extra,
  check(fn, name, v) {
    const allowed = 'an array of 3 integers >= 0 ([temporal, height, width] pairs)';
    if (!Array.isArray(v)) throw fail(TypeError, fn, name, allowed, v);
    const items = v.slice(); // read once: what is checked is what is used
    if (items.length !== 3) throw fail(RangeError, fn, name, allowed, v);
    items.forEach((x, i) => integer(0, INT32_MAX).check(fn, `${name}[${i}]`, x));
    return items;
  },
});

/** A patch grid { height, width }: patches in row-major order. */
export const patchGrid = (extra = {}) => ({
  ...extra,
  check(fn, name, v) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v)) {
      throw fail(TypeError, fn, name, 'an object { height, width } (patches in row-major order)', v);
    }
    const g = snapshot(v); // own keys, each read once
    for (const key of Object.keys(g)) {
      if (key !== 'height' && key !== 'width') throw new TypeError(`posenc.${fn}: unknown key '${name}.${key}' (${name} is { height, width })`);
    }
    for (const key of ['height', 'width']) {
      if (g[key] === undefined) throw new TypeError(`posenc.${fn}: ${name}.${key} is required`);
      integer(0, INT32_MAX).check(fn, `${name}.${key}`, g[key]);
    }
    return { height: g.height, width: g.width };
  },
});

/** [2][height * width] int32: the row, then the column, of each patch in row-major order. */
function gridPositions({ height, width }) {
  const n = height * width;
  const positions = new Int32Array(2 * n);
  for (let i = 0; i < n; i++) {
    positions[i] = Math.floor(i / width);
    positions[n + i] = i % width;
  }
  return positions;
}

/** The 2-D forms' frequencies from f_i = base^(-2i/r): [row pairs | column pairs], r/4 each. */
export function arrange2d(form, f) {
  const q = f.length / 2;
  const out = new Float64Array(2 * q);
  for (let k = 0; k < q; k++) {
    out[k] = f[2 * k];
    out[q + k] = form === 'pixtral' ? f[2 * k + 1] : f[2 * k];
  }
  return out;
}

/**
 * mropeSection adds up to rotaryDim / 2 (interleaved: every pair a + 3j of
 * axis a's section exists); rope2d needs rotaryDim % 4 == 0 and the default
 * frequencies.
 */
export function checkAxesForm(fn, o, rotaryDim, sc) {
  if (o.mropeInterleaved !== undefined && o.mropeSection === undefined) {
    throw new TypeError(`posenc.${fn}: mropeInterleaved goes with mropeSection (Qwen3-VL's interleaved M-RoPE), got mropeInterleaved without it`);
  }
  if (o.mropeSection !== undefined) {
    const half = rotaryDim / 2;
    const sum = o.mropeSection.reduce((a, b) => a + b, 0);
    if (sum !== half) {
      throw new RangeError(`posenc.${fn}: mropeSection must add up to rotaryDim / 2 = ${half} (the pairs of each axis), got [${o.mropeSection.join(', ')}] (sum ${sum})`);
    }
    // interleaved (HF apply_interleaved_mrope): axis a >= 1 takes pairs a, a + 3, ... below 3 * sections[a]
    o.mropeSection.forEach((n, a) => {
      if (o.mropeInterleaved && a > 0 && n > 0 && a + 3 * (n - 1) >= half) {
        throw new RangeError(`posenc.${fn}: mropeSection[${a}] = ${n} is too many pairs for interleaved M-RoPE: axis ${a} takes pairs ${a}, ${a + 3}, ... below rotaryDim / 2 = ${half}, at most ${Math.floor((half - 1 - a) / 3) + 1}`);
      }
    });
  }
  if (o.rope2d !== undefined) {
    if (rotaryDim % 4 !== 0) {
      throw new RangeError(`posenc.${fn}: rotaryDim must be a multiple of 4 for rope2d (each axis rotates rotaryDim / 4 pairs), got ${rotaryDim}`);
    }
    if (sc.type !== 'default') {
      throw new RangeError(`posenc.${fn}: rope2d takes no scaling (Pixtral and the Qwen2-VL vision encoder use the default frequencies), got scaling type '${sc.type}'`);
    }
  }
}

/**
 * The position axes of an M-RoPE or 2-D RoPE call, or null for plain RoPE:
 * { nAxes, sections: Int32Array, arrangement, positions, form }. positions is
 * the caller's array, or the grid's (a new Int32Array). M-RoPE without
 * positions is text: every axis at the same position, which is plain RoPE
 * bit for bit (HF expands text's position_ids to three equal rows).
 */
export function readAxes(fn, o, rotaryDim, sc) {
  checkAxesForm(fn, o, rotaryDim, sc);
  if (o.mropeSection !== undefined && o.rope2d === undefined && o.positions === undefined) return null;
  if (o.mropeSection === undefined && o.rope2d === undefined) {
    if (o.grid !== undefined) throw new RangeError(`posenc.${fn}: grid is for 2-D RoPE: give rope2d ('pixtral' or 'axial') with it`);
    return null;
  }
  if (o.mropeSection !== undefined && o.rope2d !== undefined) {
    throw new RangeError(`posenc.${fn}: give mropeSection (M-RoPE) or rope2d (2-D RoPE), not both`);
  }
  if (o.offset !== undefined) {
    throw new RangeError(`posenc.${fn}: offset is for one position axis; give positions with ${o.mropeSection ? 'mropeSection' : 'rope2d'}, got offset ${o.offset}`);
  }
  const half = rotaryDim / 2;
  if (o.mropeSection !== undefined) {
    const arrangement = o.mropeInterleaved ? 'interleaved' : 'sectioned';
    return { nAxes: 3, sections: Int32Array.from(o.mropeSection), arrangement, positions: o.positions, form: 'mrope' };
  }
  if (o.positions !== undefined && o.grid !== undefined) {
    throw new RangeError(`posenc.${fn}: give grid or positions with rope2d, not both (grid makes the positions)`);
  }
  if (o.positions === undefined && o.grid === undefined) {
    throw new TypeError(`posenc.${fn}: grid ({ height, width }, patches in row-major order) or positions (an Int32Array [2][patches]: rows, then columns) is required with rope2d`);
  }
  const positions = o.positions ?? gridPositions(o.grid);
  return { nAxes: 2, sections: Int32Array.from([half / 2, half / 2]), arrangement: 'sectioned', positions, form: o.rope2d };
}
