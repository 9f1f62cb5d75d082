// struct.js: C structs in wasm memory, from their wasm32 layouts, which
// tools/abi.mjs reads off the headers (build/abi.js): nested structs are
// dotted fields ('scaling.factor'), arrays fields with a count.

const SETTERS = { i32: 'setInt32', u32: 'setUint32', ptr: 'setUint32', f64: 'setFloat64', f32: 'setFloat32' };
const GETTERS = { i32: 'getInt32', u32: 'getUint32', ptr: 'getUint32', f64: 'getFloat64', f32: 'getFloat32' };
const BYTES = { i32: 4, u32: 4, ptr: 4, f64: 8, f32: 4 };

/** { a: 1, b: { c: 2 } } -> [['a', 1], ['b.c', 2]]: C field names of a nested struct. */
function flatten(values, prefix = '', out = []) {
  for (const [key, v] of Object.entries(values)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v, `${prefix}${key}.`, out);
    else out.push([`${prefix}${key}`, v]);
  }
  return out;
}

/**
 * Writes `values` (C field names, nested objects for nested structs, arrays
 * for array fields) into the struct at byte address ptr of memory; fields not
 * given are zero (zero means default).
 */
export function writeStruct(memory, ptr, layout, values) {
  const view = new DataView(memory.buffer, ptr, layout.bytes);
  for (let i = 0; i < layout.bytes; i += 4) view.setUint32(i, 0);
  for (const [name, value] of flatten(values)) {
    const field = layout.fields[name];
    if (!field) throw new Error(`posenc: internal error: no field '${name}' in the struct`);
    const [offset, kind, count = 1] = field;
    const items = count > 1 ? value : [value];
    if (items.length > count) throw new Error(`posenc: internal error: '${name}' holds ${count} values, got ${items.length}`);
    items.forEach((v, i) => view[SETTERS[kind]](offset + i * BYTES[kind], v, true));
  }
}

/** The fields of the struct at ptr, by their C names (arrays as arrays). */
export function readStruct(memory, ptr, layout) {
  const view = new DataView(memory.buffer, ptr, layout.bytes);
  const out = {};
  for (const [name, [offset, kind, count = 1]] of Object.entries(layout.fields)) {
    const items = Array.from({ length: count }, (_, i) => view[GETTERS[kind]](offset + i * BYTES[kind], true));
    out[name] = count > 1 ? items : items[0];
  }
  return out;
}

/** The struct's size in 8-byte words (staged through heapCall as float64s). */
export const structWords = (layout) => Math.ceil(layout.bytes / 8);
