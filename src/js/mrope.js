// mrope.js: the [3][seq] M-RoPE positions of text and image / video spans, as
// Hugging Face's Qwen2-VL and Qwen2.5-VL get_rope_index build them (formula,
// source and example in include/posenc.h, posenc_mrope_positions).
import { mrope_kind as KINDS, mrope_span as SPAN } from '../../build/abi.js';
import { describe, fail } from './core/describe.js';
import { camel, row } from './core/errors.js';
import { heapCall, onlyRoom, valuesFirst } from './core/heap.js';
import { wasm } from './core/instance.js';
import { writeStruct } from './core/struct.js';
import { INT32_MAX, checkLength, elementCount, integer, param, readOptions, snapshot, typedArray } from './core/options.js';

const SPAN_FORMS = "{ text: n }, { image: { t, h, w } } or { video: { t, h, w, secondsPerGrid? } } (a grid may also be [t, h, w])";

// A grid's sides and its spacing, each checked by C (posenc_mrope_positions: h and
// w multiples of spatialMergeSize, positions within int32), whose record names the span.
const GRID = { t: param('SPAN_T', 'size'), h: param('SPAN_H', 'size'), w: param('SPAN_W', 'size') };
const SECONDS_PER_GRID = param('SECONDS_PER_GRID', 'double');

/** One span: { kind, t, h, w, secondsPerGrid }. */
function readSpan(fn, name, v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v)) throw fail(TypeError, fn, name, SPAN_FORMS, v);
  v = snapshot(v); // own keys, each read once
  const keys = Object.keys(v);
  if (keys.length !== 1 || !KINDS.includes(keys[0])) {
    throw new TypeError(`posenc.${fn}: ${name} must have one key, 'text', 'image' or 'video' (${SPAN_FORMS}), got keys ${describe(keys.join(', '))}`);
  }
  const kind = keys[0];
  if (kind === 'text') return { kind, t: integer(0, INT32_MAX).check(fn, `${name}.text`, v.text), h: 0, w: 0, secondsPerGrid: 0 };
  const g = v[kind];
  const at = `${name}.${kind}`;
  let grid;
  if (Array.isArray(g)) {
    if (g.length !== 3) throw fail(RangeError, fn, at, 'a grid [t, h, w] of 3 integers', g);
    grid = { t: g[0], h: g[1], w: g[2] };
  } else if (g !== null && typeof g === 'object' && !ArrayBuffer.isView(g)) {
    const allowed = kind === 'video' ? ['t', 'h', 'w', 'secondsPerGrid'] : ['t', 'h', 'w'];
    for (const key of Object.keys(g)) {
      if (!allowed.includes(key)) throw new TypeError(`posenc.${fn}: unknown key '${at}.${key}' (known: ${allowed.join(', ')})`);
    }
    grid = snapshot(g);
  } else {
    throw fail(TypeError, fn, at, 'a grid { t, h, w } or [t, h, w] (image_grid_thw)', g);
  }
  const span = { kind, secondsPerGrid: 1 }; // HF's second_per_grid_t when second_per_grid_ts is absent
  for (const key of ['t', 'h', 'w']) {
    if (grid[key] === undefined) throw new TypeError(`posenc.${fn}: ${at}.${key} is required`);
    span[key] = GRID[key].check(fn, `${at}.${key}`, grid[key]);
  }
  if (grid.secondsPerGrid !== undefined) span.secondsPerGrid = SECONDS_PER_GRID.check(fn, `${at}.secondsPerGrid`, grid.secondsPerGrid);
  return span;
}

/** The name of span i's field `cName` ('spans.h') as the caller wrote it: spans[i].image.h. */
function spanName(span, i, cName) {
  if (!span || !cName.startsWith('spans')) return undefined;
  const field = cName.slice('spans.'.length);
  if (!field || field === 'kind') return `spans[${i}]`;
  return span.kind === 'text' ? `spans[${i}].text` : `spans[${i}].${span.kind}.${camel(field)}`;
}

export const spec = {
  spans: {
    check(fn, name, v) {
      if (!Array.isArray(v)) throw fail(TypeError, fn, name, `an array of spans: ${SPAN_FORMS}`, v);
      return v.map((span, i) => readSpan(fn, `${name}[${i}]`, span));
    },
  },
  spatialMergeSize: param('SPATIAL_MERGE_SIZE', 'size', { optional: true }),
  tokensPerSecond: param('TOKENS_PER_SECOND', 'double', { default: 0 }),
  out: typedArray('int32', { optional: true }),
};

/**
 * M-RoPE positions, Int32Array [3][seq] (temporal, height, width; axis-major
 * like HF's position_ids [3][batch][seq]) of a sequence described by spans:
 * `[{ text: 12 }, { image: { t: 1, h: 28, w: 42 } }, { text: 5 }]` is 12 text
 * tokens, an image whose image_grid_thw is (1, 28, 42) (1 * 14 * 21 tokens
 * after the 2 x 2 merger), then 5 text tokens. Text spans count the vision
 * start / end tokens. tokensPerSecond > 0 spaces video frames as Qwen2.5-VL
 * does (vision_config.tokens_per_second); 0 is Qwen2-VL. The next generated
 * token sits at 1 + the largest position.
 * @returns {Int32Array} `out` when given (filled), else a new array
 */
export function mropePositions(options) {
  const fn = 'mropePositions';
  const o = readOptions(fn, options, spec);
  const m = o.spatialMergeSize ?? row('SPATIAL_MERGE_SIZE').zero;
  // the tokens of the spans (C refuses a side that is not a multiple of m before it counts)
  let seq = 0;
  for (const s of o.spans) seq += s.kind === 'text' ? s.t : s.t * Math.floor(s.h / m) * Math.floor(s.w / m);
  const { exports } = wasm(fn);
  const words = (Math.max(o.spans.length, 1) * SPAN.bytes) / 4; // posenc_mrope_span records
  // C reads the spans (posenc_mrope_span records) and writes out, room elements
  const call = (out, room) => heapCall(
    fn,
    [
      { array: out, type: 'int32', length: room, copyOut: true },
      { array: new Int32Array(words), type: 'int32', length: words },
    ],
    (pOut, pSpans) => {
      const { memory } = wasm(fn);
      o.spans.forEach((s, i) => {
        const fields = { kind: KINDS.indexOf(s.kind), t: s.t, h: s.h, w: s.w, seconds_per_grid: s.secondsPerGrid };
        writeStruct(memory, pSpans + i * SPAN.bytes, SPAN, fields);
      });
      const status = exports.posenc_mrope_positions(pOut, room, seq, pSpans, o.spans.length, m, o.tokensPerSecond);
      return room === 0 && onlyRoom(status) ? 0 : status; // a probe (valuesFirst): the values checked, nothing written
    },
    // C names a span's field 'spans.h', element i: the caller wrote spans[i].image.h
    { name: (cName, i) => spanName(o.spans[i], i, cName) },
  );
  const n = valuesFirst(() => {
    const count = elementCount(fn, { '3 * seq': 3 * seq });
    if (o.out) checkLength(fn, 'out', o.out, count);
    return count;
  }, () => call(new Int32Array(0), 0));
  const out = o.out ?? new Int32Array(n);
  call(out, n);
  return out;
}
