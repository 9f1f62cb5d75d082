// rope-axes.js: RoPE with several position axes: M-RoPE (Qwen2-VL, Qwen2.5-VL,
// Qwen3-VL) and the 2-D forms of vision encoders (formulas in include/posenc.h,
// posenc_rope_axes). This file reads their options; C checks every range
// (the sections' sum, the interleaved pairs, the 2-D forms' rotary dimension).
import { rope_2d as FORMS } from '../../build/abi.js';
import { fail } from './core/describe.js';
import { accepts, row, rowAllows } from './core/errors.js';
import { param, snapshot } from './core/options.js';

/** The 2-D RoPE forms (posenc_rope_2d): 'pixtral' (PixtralRotaryEmbedding), 'axial' (the Qwen2-VL vision encoder). */
export const ROPE_2D = FORMS.filter((f) => f !== 'none');

/** M-RoPE's mrope_section: three counts (temporal, height, width pairs). */
export const sectionList = (extra = {}) => ({
  ...extra,
  check(fn, name, v) {
    const allowed = 'an array of 3 integers >= 0 ([temporal, height, width] pairs)';
    if (!Array.isArray(v)) throw fail(TypeError, fn, name, allowed, v);
    const items = v.slice(); // read once: what is checked is what is used
    if (items.length !== 3) throw fail(RangeError, fn, name, allowed, v);
    items.forEach((x, i) => param('SECTIONS', 'size').check(fn, `${name}[${i}]`, x));
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
      // C never sees the grid (it becomes positions): its range is checked here, by its row
      const r = row(key.toUpperCase());
      param(key.toUpperCase(), 'size').check(fn, `${name}.${key}`, g[key]);
      if (!accepts(r, g[key])) throw fail(RangeError, fn, `${name}.${key}`, rowAllows(r), g[key]);
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

/** The options that go together: mropeInterleaved with mropeSection, never mropeSection with rope2d. */
export function checkAxesForm(fn, o) {
  if (o.mropeInterleaved !== undefined && o.mropeSection === undefined) {
    throw new TypeError(`posenc.${fn}: mropeInterleaved goes with mropeSection (Qwen3-VL's interleaved M-RoPE), got mropeInterleaved without it`);
  }
  if (o.mropeSection !== undefined && o.rope2d !== undefined) {
    throw new RangeError(`posenc.${fn}: give mropeSection (M-RoPE) or rope2d (2-D RoPE), not both`);
  }
}

/**
 * The axes the options describe (posenc_rope_axes: { nAxes, sections,
 * arrangement, form }), or null: M-RoPE ('mrope'), 2-D RoPE (its form). The
 * sections of a 2-D form are rotaryDim / 4 each.
 */
export function axesOf(o, rotaryDim) {
  if (o.mropeSection !== undefined) {
    return { nAxes: 3, sections: o.mropeSection, arrangement: o.mropeInterleaved ? 'interleaved' : 'sectioned', form: 'none' };
  }
  if (o.rope2d !== undefined) {
    const quarter = Math.floor(rotaryDim / 4); // C refuses a rotaryDim that is no multiple of 4
    return { nAxes: 2, sections: [quarter, quarter], arrangement: 'sectioned', form: o.rope2d };
  }
  return null;
}

/** [n][rows] int32: every axis at offset, offset + 1, ... (text under M-RoPE). */
export function textPositions(n, offset, rows) {
  const positions = new Int32Array(n * rows);
  for (let r = 0; r < rows; r++) for (let a = 0; a < n; a++) positions[a * rows + r] = offset + r;
  return positions;
}

/**
 * The position axes of an M-RoPE or 2-D RoPE call, or null for plain RoPE:
 * axesOf's, with positions (the caller's array, or the grid's; null for
 * M-RoPE text: every axis at offset + row, which is plain RoPE bit for bit,
 * as HF expands text's position_ids to three equal rows).
 */
export function readAxes(fn, o, rotaryDim) {
  checkAxesForm(fn, o);
  if (o.mropeSection !== undefined && o.positions === undefined) return { ...axesOf(o, rotaryDim), positions: null };
  if (o.mropeSection === undefined && o.rope2d === undefined) {
    if (o.grid !== undefined) throw new RangeError(`posenc.${fn}: grid is for 2-D RoPE: give rope2d ('pixtral' or 'axial') with it`);
    return null;
  }
  if (o.offset !== undefined) {
    throw new RangeError(`posenc.${fn}: offset is for one position axis; give positions with ${o.mropeSection ? 'mropeSection' : 'rope2d'}, got offset ${o.offset}`);
  }
  if (o.mropeSection === undefined) {
    if (o.positions !== undefined && o.grid !== undefined) {
      throw new RangeError(`posenc.${fn}: give grid or positions with rope2d, not both (grid makes the positions)`);
    }
    if (o.positions === undefined && o.grid === undefined) {
      throw new TypeError(`posenc.${fn}: grid ({ height, width }, patches in row-major order) or positions (an Int32Array [2][patches]: rows, then columns) is required with rope2d`);
    }
  }
  return { ...axesOf(o, rotaryDim), positions: o.positions ?? gridPositions(o.grid) };
}
