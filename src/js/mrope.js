// mrope.js: the [3][seq] M-RoPE positions of text and image / video spans, as
// Hugging Face's Qwen2-VL and Qwen2.5-VL get_rope_index build them (formula,
// source and example in include/posenc.h, posenc_mrope_positions).
import { mrope_kind as KINDS, mrope_span as SPAN, status as STATUS } from '../../build/abi.js';
import { describe, fail } from './core/describe.js';
import { heapCall } from './core/heap.js';
import { wasm } from './core/instance.js';
import { writeStruct } from './core/struct.js';
import { INT32_MAX, checkLength, elementCount, integer, number, readOptions, snapshot, typedArray } from './core/options.js';

const SPAN_FORMS = "{ text: n }, { image: { t, h, w } } or { video: { t, h, w, secondsPerGrid? } } (a grid may also be [t, h, w])";

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
    span[key] = integer(1, INT32_MAX).check(fn, `${at}.${key}`, grid[key]);
  }
  if (grid.secondsPerGrid !== undefined) span.secondsPerGrid = number({ min: 0 }).check(fn, `${at}.secondsPerGrid`, grid.secondsPerGrid);
  return span;
}

export const spec = {
  spans: {
    check(fn, name, v) {
      if (!Array.isArray(v)) throw fail(TypeError, fn, name, `an array of spans: ${SPAN_FORMS}`, v);
      return v.map((span, i) => readSpan(fn, `${name}[${i}]`, span));
    },
  },
  spatialMergeSize: integer(1, INT32_MAX, { default: 2 }),
  tokensPerSecond: number({ min: 0, default: 0 }),
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
  const m = o.spatialMergeSize;
  let seq = 0;
  for (const [i, s] of o.spans.entries()) {
    if (s.kind !== 'text') {
      for (const key of ['h', 'w']) {
        if (s[key] % m !== 0) {
          throw new RangeError(`posenc.${fn}: spans[${i}].${s.kind}.${key} must be a multiple of spatialMergeSize = ${m} (the merger joins ${m} x ${m} patches), got ${s[key]}`);
        }
      }
    }
    seq += s.kind === 'text' ? s.t : s.t * (s.h / m) * (s.w / m);
  }
  const n = elementCount(fn, { '3 * seq': 3 * seq });
  const { exports } = wasm(fn);
  const out = o.out ?? new Int32Array(n);
  if (o.out) checkLength(fn, 'out', out, n);
  const words = (Math.max(o.spans.length, 1) * SPAN.bytes) / 4; // posenc_mrope_span records
  heapCall(
    fn,
    [
      { array: out, type: 'int32', length: n, copyOut: true },
      { array: new Int32Array(words), type: 'int32', length: words },
    ],
    (pOut, pSpans) => {
      const { memory } = wasm(fn);
      o.spans.forEach((s, i) => {
        const fields = { kind: KINDS.indexOf(s.kind), t: s.t, h: s.h, w: s.w, seconds_per_grid: s.secondsPerGrid };
        writeStruct(memory, pSpans + i * SPAN.bytes, SPAN, fields);
      });
      const status = exports.posenc_mrope_positions(pOut, n, seq, pSpans, o.spans.length, m, o.tokensPerSecond);
      // invalid argument: some position past int32 (a long sequence, or a wide temporal spacing)
      if (status === STATUS.ERR_INVALID_ARGUMENT) throw new RangeError(`posenc.${fn}: the positions pass int32 (${INT32_MAX}): too many tokens, or tokensPerSecond * secondsPerGrid too large`);
      return status;
    },
  );
  return out;
}
