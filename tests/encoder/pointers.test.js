// A name of 'posenc/encoder' reached for in 'posenc' is an error that says
// where it is (src/js/encoder-pointers.js): through require('posenc') and
// through 'posenc''s default export, where posenc can see the mistake. (A
// named ESM import fails in the engine's linker, before posenc runs.)
import { createRequire } from 'node:module';
import { ENCODER_POINTERS } from '../../src/js/encoder-pointers.js';
import * as posenc from '../../dist/posenc.mjs';
import * as encoder from '../../dist/encoder.mjs';

const require = createRequire(import.meta.url);
const cjs = require('../../dist/posenc.cjs');
const ENCODER_ONLY = Object.keys(ENCODER_POINTERS);
const POINTER = (name) => new RegExp(`^posenc\\.${name} is exported by 'posenc/encoder', not 'posenc' .*import \\{ init, ${name} \\} from 'posenc/encoder'`);
const thrown = (read) => {
  try {
    read();
  } catch (error) {
    return error;
  }
  return null;
};

test("the pointers are exactly what 'posenc/encoder' exports beyond 'posenc'", () => {
  const own = Object.keys(encoder).filter((k) => !(k in posenc)).sort();
  expect([...ENCODER_ONLY].sort()).toEqual(own);
});

describe.each([
  ["require('posenc')", () => cjs],
  ["import posenc from 'posenc' (the default export)", () => posenc.default],
])('%s', (_what, entry) => {
  test.each(ENCODER_ONLY)('reading %s throws a TypeError naming posenc/encoder', (name) => {
    const e = thrown(() => entry()[name]);
    expect(e?.name).toBe('TypeError'); // require()'s copy is of Node's realm, not Jest's
    expect(e.message).toMatch(POINTER(name));
  });
  test('destructuring the name throws at that line; listing, spreading and JSON of the exports do not', () => {
    expect(thrown(() => {
      const { init, createEncoder } = entry(); // eslint-disable-line no-unused-vars
    })?.message).toMatch(POINTER('createEncoder'));
    expect(Object.keys(entry())).not.toContain('createEncoder');
    expect(Object.keys({ ...entry() })).toEqual(Object.keys(entry()));
    expect(Object.getOwnPropertyNames(entry())).not.toContain('createEncoder');
    expect(() => JSON.stringify(entry())).not.toThrow();
  });
  test("every export of 'posenc' is there", () => {
    for (const name of Object.keys(posenc).filter((k) => k !== 'default')) {
      expect(typeof entry()[name]).toBe(typeof posenc[name]);
    }
  });
});

test("the default export is the ESM copy's own functions", async () => {
  expect(posenc.default.sinusoidal).toBe(posenc.sinusoidal);
  expect(posenc.default.init).toBe(posenc.init);
  expect(Object.keys(posenc.default).sort()).toEqual(Object.keys(posenc).filter((k) => k !== 'default').sort());
  await posenc.default.init();
  expect(Array.from(posenc.default.sinusoidal({ length: 1, dModel: 2 }))).toEqual([0, 1]);
});

test("'posenc/encoder' has the names themselves, and no default export", () => {
  for (const name of ENCODER_ONLY) expect(encoder[name]).toBeDefined();
  expect('default' in encoder).toBe(false);
});
