// The C ABI is stated once, in include/posenc.h and include/posenc_encoder.h:
// tools/abi.mjs reads them into
// build/abi.js (the JS mirror) and build/abi-asserts.h (a _Static_assert per
// value and offset, compiled into both wasm builds, so the compiler checks the
// reader). These tests hold the mirror to the header read here independently,
// and look for hand copies that would drift from it.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as abi from '../../build/abi.js';

const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');
const uncomment = (text) => text.replace(/\/\*[\s\S]*?\*\//g, '');
const positional = uncomment(read('include/posenc.h'));
const encoder = uncomment(read('include/posenc_encoder.h'));
const header = positional + encoder;
const asserts = read('build/abi-asserts.h');

/** Every `typedef enum posenc_X { ... }` of the header: X -> [[NAME, value], ...]. */
function headerEnums() {
  const out = {};
  for (const m of header.matchAll(/typedef enum posenc_(\w+) \{([^}]*)\}/g)) {
    if (/\w\s*\(/.test(m[2])) continue; // built from a parameter table (posenc_param): its own test
    out[m[1]] = m[2].split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
      const [name, value] = s.split('=').map((t) => t.trim());
      return [name, Number(value)];
    });
  }
  return out;
}

test('every enum of the header is mirrored, value for value', () => {
  const enums = headerEnums();
  expect(Object.keys(enums).length).toBeGreaterThanOrEqual(12);
  for (const [name, members] of Object.entries(enums)) {
    const mirror = abi[name];
    expect(mirror).toBeDefined();
    for (const [cName, value] of members) {
      // POSENC_ROPE_LAYOUT_HALF -> 'half' at index 0; status: { ERR_NULL_POINTER: -1 }
      if (Array.isArray(mirror)) expect(cName.toLowerCase().endsWith(`_${mirror[value]}`)).toBe(true);
      else expect(mirror[Object.keys(mirror).find((k) => cName.endsWith(`_${k}`))]).toBe(value);
      expect(asserts).toContain(`_Static_assert(${cName} == ${value},`);
    }
  }
});

/** Every `typedef struct posenc_X { ... }`: X -> its declarations ['type name', ...]. */
function headerStructs() {
  const out = {};
  for (const m of header.matchAll(/typedef struct posenc_(\w+) \{([^}]*)\}/g)) {
    out[m[1]] = m[2].split(';').map((d) => d.trim().replace(/\s+/g, ' ')).filter(Boolean);
  }
  return out;
}

test('every struct field has its wasm32 offset asserted for the compiler (nested structs as dotted names, arrays by element 0)', () => {
  const structs = headerStructs();
  // the field names of a struct, a nested posenc struct's spelled 'outer.inner'
  const names = (name) => structs[name].flatMap((d) => {
    const [type] = d.replace(/^const /, '').split(' ');
    const parts = d.replace(/^(const )?\w+ /, '').split(',').map((p) => p.trim().replace(/^\*\s*/, '').replace(/\[.*\]$/, ''));
    const nested = type.startsWith('posenc_') && structs[type.slice('posenc_'.length)];
    return nested ? parts.flatMap((p) => names(type.slice('posenc_'.length)).map((n) => `${p}.${n}`)) : parts;
  });
  expect(Object.keys(structs).length).toBeGreaterThanOrEqual(10);
  for (const name of Object.keys(structs)) {
    const mirror = abi[name];
    expect(Object.keys(mirror.fields)).toEqual(names(name));
    for (const [field, [offset, , count]] of Object.entries(mirror.fields)) {
      expect(asserts).toContain(`_Static_assert(offsetof(posenc_${name}, ${field}${count ? '[0]' : ''}) == ${offset},`);
    }
    expect(asserts).toContain(`_Static_assert(sizeof(posenc_${name}) == ${mirror.bytes},`);
  }
});

test('every parameter of the tables has its id asserted: the JS table is indexed as C numbers them', () => {
  const ids = [...header.matchAll(/^\s*P\((\w+),\s*"([^"]*)"/gm)].map((m) => m[1]);
  expect([...abi.params, ...abi.encoder_params].map(([id]) => id)).toEqual(ids);
  ids.forEach((id, i) => expect(asserts).toContain(`_Static_assert(POSENC_PARAM_${id} == ${i},`));
});

test("each wasm exports its header's routines: the default one posenc.h's, the encoder's both headers'", () => {
  const routinesOf = (code) => [...code.matchAll(/^POSENC_API[^(]*?\b(posenc_\w+)\(/gm)].map((m) => m[1]);
  expect(abi.exports_posenc).toEqual([...routinesOf(positional), 'malloc', 'free']);
  expect(abi.exports_encoder).toEqual([...routinesOf(positional), ...routinesOf(encoder), 'malloc', 'free']);
  expect(abi.exports_posenc).toContain('posenc_rope_apply');
  expect(abi.exports_posenc).not.toContain('posenc_encoder_forward');
  expect(abi.exports_posenc).not.toContain('posenc_softmax');
});

describe('no hand copy of the ABI in src/js', () => {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(new URL(dir, root))) {
      const path = `${dir}${name}`;
      if (statSync(new URL(path, root)).isDirectory()) walk(`${path}/`);
      else if (path.endsWith('.js')) files.push(path);
    }
  };
  walk('src/js/');
  const sources = files.map((f) => [f, read(f)]);

  test('no status code as a bare number', () => {
    for (const [file, text] of sources) expect([file, text.match(/status\s*[!=]==?\s*-\d/g)]).toEqual([file, null]);
  });

  test('no enum written out as a list of its names', () => {
    const lists = Object.values(abi).filter((v) => Array.isArray(v) && v.length > 1 && typeof v[0] === 'string' && !v[0].startsWith('posenc_'));
    for (const [file, text] of sources) {
      for (const names of lists) {
        const literal = names.map((n) => `'${n}'`).join(', ');
        expect([file, text.includes(`[${literal}]`)]).toEqual([file, false]);
      }
    }
  });

  test('no struct field written at a byte offset by hand', () => {
    for (const [file, text] of sources) {
      if (file.endsWith('core/struct.js')) continue; // the one writer, driven by the layouts
      expect([file, text.match(/\bset(?:Int|Uint|Float)(?:32|64)\(\s*\d+/g)]).toEqual([file, null]);
    }
  });

  test("the encoder's workspace and parameter count come from posenc_encoder_sizes", () => {
    const native = read('src/js/encoder/native-config.js');
    expect(native).toMatch(/posenc_encoder_sizes\(/);
    expect(read('src/js/encoder/encoder.js')).toMatch(/the C counts \$\{params\} parameters/);
  });
});
