// The bad-input matrix for the core functions, generated from one table: every
// parameter gets every kind of bad value. Each must raise the right class with a
// message naming the function and the parameter, write nothing, and allocate nothing.
import { posenc, thrown } from './helpers.js';

beforeAll(() => posenc.init());

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

// Bad values by kind: [value, error class].
const WRONG_TYPES = [['3', TypeError], [true, TypeError], [null, TypeError], [{}, TypeError], [3n, TypeError]];
const NOT_INTEGER = [[NaN, RangeError], [Infinity, RangeError], [-Infinity, RangeError], [1.5, RangeError], [2 ** 53, RangeError]];
const bad = {
  count: [...WRONG_TYPES, ...NOT_INTEGER, [-1, RangeError], [INT32_MAX + 1, RangeError]],
  positive: [...WRONG_TYPES, ...NOT_INTEGER, [-1, RangeError], [0, RangeError]],
  int32: [...WRONG_TYPES, ...NOT_INTEGER, [INT32_MAX + 1, RangeError], [INT32_MIN - 1, RangeError]],
  base: [...WRONG_TYPES, [NaN, RangeError], [Infinity, RangeError], [-Infinity, RangeError], [-2, RangeError], [0, RangeError], [1, RangeError]],
  scale: [...WRONG_TYPES, [NaN, RangeError], [Infinity, RangeError], [-Infinity, RangeError], [1e39, RangeError]],
  layout: [[0, TypeError], [null, TypeError], ['Interleaved', RangeError], ['', RangeError], ['sin-cos', RangeError]],
  order: [[0, TypeError], ['BSD', RangeError], ['bds', RangeError]],
  float32Out: [[[0, 0], TypeError], [new Float64Array(24), TypeError], [new Int32Array(24), TypeError], [new Float32Array(23), RangeError], [new Float32Array(25), RangeError], ['out', TypeError]],
  int32Out: [[[0], TypeError], [new Uint32Array(24), TypeError], [new Float32Array(24), TypeError], [new Int32Array(23), RangeError], [new Int32Array(25), RangeError]],
};

// Each function: how to call it with options, valid options, the kind of each parameter.
const table = [
  {
    fn: 'sinusoidal',
    call: (o) => posenc.sinusoidal(o),
    valid: () => ({ length: 4, dModel: 6, out: new Float32Array(24).fill(7) }),
    params: { length: 'count', dModel: 'positive', base: 'base', offset: 'int32', layout: 'layout', out: 'float32Out' },
  },
  {
    fn: 'addSinusoidal',
    x: () => new Float32Array(24).fill(7),
    call: (o, x) => posenc.addSinusoidal(x, o),
    valid: () => ({ dModel: 6, batch: 2 }),
    params: { dModel: 'positive', batch: 'positive', order: 'order', scale: 'scale', base: 'base', offset: 'int32', layout: 'layout' },
  },
  {
    fn: 'relativePositions',
    call: (o) => posenc.relativePositions(o),
    valid: () => ({ queryLength: 4, keyLength: 6, out: new Int32Array(24).fill(7) }),
    params: { queryLength: 'count', keyLength: 'count', shift: 'int32', out: 'int32Out' },
  },
  {
    fn: 'sinusoidalFrequencies',
    call: (o) => posenc.sinusoidalFrequencies(o),
    valid: () => ({ dModel: 6 }),
    params: { dModel: 'positive', base: 'base', layout: 'layout' },
  },
];

// Expands the table into [fn, param, value, class] cases.
const cases = [];
for (const entry of table) {
  for (const [param, kind] of Object.entries(entry.params)) {
    for (const [value, Err] of bad[kind]) cases.push([entry.fn, param, value, Err, entry]);
  }
}

function expectRejected(entry, options, x, Err, names) {
  const outBefore = options?.out?.slice?.();
  const xBefore = x?.slice();
  const memBefore = posenc.memoryStats();
  const error = thrown(() => entry.call(options, x));
  expect(error).toBeInstanceOf(Err);
  expect(error.message).toContain(`posenc.${entry.fn}:`);
  for (const name of names) expect(error.message).toContain(name);
  if (outBefore) expect(options.out).toEqual(outBefore);
  if (xBefore) expect(x).toEqual(xBefore);
  expect(posenc.memoryStats()).toEqual(memBefore);
}

test(`the matrix has ${cases.length} cases`, () => {
  expect(cases.length).toBeGreaterThan(150);
});

test.each(cases.map((c) => [c[0], c[1], String(c[2]?.constructor?.name ?? c[2]) + ':' + String(c[2]), c[3].name, c[4], c[2], c[3]]))(
  '%s %s = %s -> %s',
  (fn, param, _label, _cls, entry, value, Err) => {
    const options = { ...entry.valid(), [param]: value };
    expectRejected(entry, options, entry.x?.(), Err, [param]);
  },
);

describe.each(table)('$fn', (entry) => {
  test('options that are not an object', () => {
    for (const o of [undefined, null, 5, 'x', [], new Float32Array(2)]) {
      expectRejected(entry, o, entry.x?.(), TypeError, ['options object']);
    }
  });
  test('an unknown option (a typo) is a TypeError naming it', () => {
    expectRejected(entry, { ...entry.valid(), dmodel: 6 }, entry.x?.(), TypeError, ["'dmodel'"]);
  });
  test('each required option, missing', () => {
    const required = Object.keys(entry.valid()).filter((k) => k !== 'out' && k !== 'batch' && k !== 'keyLength');
    for (const k of required) {
      const o = entry.valid();
      delete o[k];
      expectRejected(entry, o, entry.x?.(), TypeError, [k, 'required']);
    }
  });
});

test('sizes whose bytes overflow 32 bits name the product', () => {
  for (const [call, names] of [
    [() => posenc.sinusoidal({ length: 2 ** 20, dModel: 2 ** 12 }), ['length * dModel']],
    [() => posenc.sinusoidal({ length: INT32_MAX, dModel: INT32_MAX }), ['length * dModel']],
    [() => posenc.relativePositions({ queryLength: 2 ** 16, keyLength: 2 ** 16 + 1 }), ['queryLength * keyLength']],
  ]) {
    const before = posenc.memoryStats();
    const error = thrown(call);
    expect(error).toBeInstanceOf(RangeError);
    for (const n of names) expect(error.message).toContain(n);
    expect(posenc.memoryStats()).toEqual(before);
  }
});

test('positions past int32 are rejected: offset + length - 1, shift extremes', () => {
  expect(thrown(() => posenc.sinusoidal({ length: 2, dModel: 2, offset: INT32_MAX }))).toBeInstanceOf(RangeError);
  expect(posenc.sinusoidal({ length: 1, dModel: 2, offset: INT32_MAX }).length).toBe(2);
  const e = thrown(() => posenc.relativePositions({ queryLength: 3, shift: INT32_MAX }));
  expect(e).toBeInstanceOf(RangeError);
  expect(e.message).toContain('shift');
  expect(thrown(() => posenc.addSinusoidal(new Float32Array(4), { dModel: 2, offset: INT32_MAX }))).toBeInstanceOf(RangeError);
});

test("layout 'fairseq' below dModel 4 explains the division by zero", () => {
  const e = thrown(() => posenc.sinusoidal({ length: 2, dModel: 3, layout: 'fairseq' }));
  expect(e).toBeInstanceOf(RangeError);
  expect(e.message).toMatch(/fairseq.*dModel >= 4/);
});

test('addSinusoidal: x of the wrong type, or a length that is not a multiple of batch * dModel', () => {
  for (const x of [[1, 2], new Float64Array(12), null, undefined, 'x']) {
    const e = thrown(() => posenc.addSinusoidal(x, { dModel: 6 }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toContain('posenc.addSinusoidal: x');
  }
  const x = new Float32Array(13).fill(3);
  const e = thrown(() => posenc.addSinusoidal(x, { dModel: 6, batch: 2 }));
  expect(e).toBeInstanceOf(RangeError);
  expect(e.message).toContain('batch * dModel = 12');
  expect(x.every((v) => v === 3)).toBe(true);
});

test('an out array whose buffer was detached is reported as detached', () => {
  const out = new Float32Array(24);
  structuredClone(out.buffer, { transfer: [out.buffer] });
  const e = thrown(() => posenc.sinusoidal({ length: 4, dModel: 6, out }));
  expect(e).toBeInstanceOf(RangeError);
  expect(e.message).toContain('detached');
});

test('length 0 is an empty table, not an error', () => {
  expect(posenc.sinusoidal({ length: 0, dModel: 6 })).toEqual(new Float32Array(0));
  expect(posenc.relativePositions({ queryLength: 0, keyLength: 5 })).toEqual(new Int32Array(0));
  const x = new Float32Array(0);
  expect(posenc.addSinusoidal(x, { dModel: 4 })).toBe(x);
});
