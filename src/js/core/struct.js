// struct.js: C structs written into wasm memory from their wasm32 layouts,
// which tools/abi.mjs reads off include/posenc.h (build/abi.js).

const SETTERS = { i32: 'setInt32', u32: 'setUint32', ptr: 'setUint32', f64: 'setFloat64', f32: 'setFloat32' };

/**
 * Writes `values` ({ field: number }, C field names) into the struct at byte
 * address ptr of memory; fields not given are zero (zero means default).
 */
export function writeStruct(memory, ptr, layout, values) {
  const view = new DataView(memory.buffer, ptr, layout.bytes);
  for (let i = 0; i < layout.bytes; i += 4) view.setUint32(i, 0);
  for (const [name, value] of Object.entries(values)) {
    const field = layout.fields[name];
    if (!field) throw new Error(`posenc: internal error: no field '${name}' in the struct`);
    view[SETTERS[field[1]]](field[0], value, true);
  }
}

/** The struct's size in 8-byte words (staged through heapCall as float64s). */
export const structWords = (layout) => Math.ceil(layout.bytes / 8);
