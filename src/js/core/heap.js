// heap.js: moving arrays in and out of wasm memory, and the zero-copy WasmArray.
//
// Two rules keep every address valid:
// - a view of wasm memory is derived right before it is read or written, never
//   kept across a call that may allocate (and so grow memory, which detaches
//   every earlier view);
// - wasm memory reaches a compute function only as a live WasmArray: a plain
//   typed array over posenc's memory (a WasmArray's .array kept after free(),
//   say) is refused, since nothing tells which allocation it belongs to now;
//   so is one over the memory of any other copy of posenc (registerMemory).
import { status as STATUS } from '../../../build/abi.js';
import { describe, typeOf, typedArrayType } from './describe.js';
import { cError, clearError } from './errors.js';
import { isReady, wasm } from './instance.js';
import { bufferOf, byteLengthOf, byteOffsetOf, lengthOf, setInto, subarrayOf } from './typed.js';

const CONSTRUCTORS = { float32: Float32Array, int32: Int32Array, float64: Float64Array };
const live = new Map(); // pointer -> WasmArray, the allocations handed out

// Every copy of posenc in this realm (the ESM and CommonJS builds, both
// entries, several installs) registers its wasm memory in one Set shared
// through globalThis, held by WeakRef so that no copy keeps another's memory
// alive: any copy can then tell a view of another copy's memory from a
// caller's own array. The key and the shape (a Set of WeakRefs to
// WebAssembly.Memory) are the contract between copies: never change them.
const MEMORIES = Symbol.for('posenc.wasmMemories');
function memories() {
  if (!(globalThis[MEMORIES] instanceof Set)) {
    Object.defineProperty(globalThis, MEMORIES, { value: new Set(), configurable: true });
  }
  return globalThis[MEMORIES];
}

/** @internal Registers the memory of this copy's instance (init(), load.js). */
export function registerMemory(memory) {
  const all = memories();
  for (const ref of all) if (ref.deref() === undefined) all.delete(ref);
  all.add(new WeakRef(memory));
}

/** Whether a buffer is the current buffer of another copy's wasm memory. */
function otherCopysBuffer(buffer) {
  const own = isReady() ? wasm('check').memory : null;
  for (const ref of memories()) {
    const memory = ref.deref();
    if (memory !== undefined && memory !== own && memory.buffer === buffer) return true;
  }
  return false;
}

/**
 * An array that lives in wasm memory: compute functions read and write it in
 * place, with no copy. Read it through `.array`, which is re-derived whenever
 * memory has grown (do not keep the view across posenc calls). Free it once.
 */
export class WasmArray {
  #ptr;
  #view = null;

  /** @internal use allocate() */
  constructor(ptr, type, length) {
    this.#ptr = ptr;
    this.type = type;
    this.length = length;
    Object.freeze(this);
  }

  /** The current typed-array view of the memory (throws once freed). */
  get array() {
    this.#check('WasmArray.array');
    const { memory } = wasm('WasmArray.array');
    if (this.#view === null || this.#view.buffer !== memory.buffer) {
      this.#view = new CONSTRUCTORS[this.type](memory.buffer, this.#ptr, this.length);
    }
    return this.#view;
  }

  /** True once free() has been called. */
  get freed() {
    return this.#ptr === 0;
  }

  /** @internal the byte address, checked for use after free */
  pointer(fn) {
    this.#check(fn);
    return this.#ptr;
  }

  /** Returns the memory to posenc's heap. A second free() throws. */
  free() {
    if (this.#ptr === 0) throw new Error('posenc.WasmArray.free: already freed');
    this.#check('WasmArray.free');
    live.delete(this.#ptr);
    release('WasmArray.free', this.#ptr);
    this.#ptr = 0;
    this.#view = null;
  }

  // Only arrays that allocate() handed out and that are not freed reach memory:
  // a WasmArray built by hand (`new WasmArray(16, ...)`) would otherwise let
  // posenc write, or free(), at any address of its heap.
  #check(fn) {
    if (this.#ptr === 0) throw new Error(`posenc.${fn}: a WasmArray was used after free()`);
    if (live.get(this.#ptr) !== this) throw new TypeError(`posenc.${fn}: a WasmArray not made by posenc.allocate()`);
  }

  /** @internal True for an object made by this class (live, freed or hand-made): a brand check, no user code runs. */
  static isBranded(x) {
    return x !== null && typeof x === 'object' && #ptr in x;
  }

  /** @internal 'live', 'freed', or 'foreign' (built by hand, or Object.create(WasmArray.prototype)) */
  static state(x) {
    if (!WasmArray.isBranded(x)) return 'foreign';
    if (x.#ptr === 0) return 'freed';
    return live.get(x.#ptr) === x ? 'live' : 'foreign';
  }

  get [Symbol.toStringTag]() {
    return 'WasmArray';
  }
}

/** Elements of a caller array: a WasmArray's length, or a typed array's (by the intrinsic). */
export const countOf = (a) => (WasmArray.isBranded(a) ? a.length : lengthOf(a));

/**
 * @internal Why a caller array cannot be used, or null: a WasmArray that was
 * freed, that allocate() did not make, or that another copy of posenc made
 * (the ESM and CommonJS builds, two installs, or the other entry: each has
 * its own memory); a typed array over posenc's wasm memory.
 * Returns [error class, what it is].
 */
export function arrayProblem(array) {
  if (WasmArray.isBranded(array)) {
    const state = WasmArray.state(array);
    if (state === 'foreign') return [TypeError, 'a WasmArray that posenc.allocate() did not make'];
    return state === 'freed' ? [RangeError, 'a WasmArray used after free()'] : null;
  }
  if (typeOf(array) === 'WasmArray') {
    return [TypeError, "a WasmArray of another copy of posenc (each copy, the ESM and the CommonJS build, 'posenc' and 'posenc/encoder', has its own wasm memory): allocate it from the copy you call"];
  }
  if (typedArrayType(array) === undefined) return null;
  const buffer = bufferOf(array);
  if (isReady() && buffer === wasm('check').memory.buffer) {
    return [TypeError, "a view of posenc's wasm memory (a WasmArray's .array): pass the WasmArray itself, whose memory posenc can check"];
  }
  if (otherCopysBuffer(buffer)) {
    return [TypeError, "a view of the wasm memory of another copy of posenc (a WasmArray's .array; each copy, the ESM and the CommonJS build, 'posenc' and 'posenc/encoder', has its own memory): pass a plain typed array, or a WasmArray allocated from the copy you call"];
  }
  return null;
}

/**
 * Allocates `length` elements of `type` ('float32', 'int32' or 'float64') in
 * wasm memory, zero-filled: the zero-copy path for in-place work.
 * @returns {WasmArray}
 */
export function allocate(type, length) {
  return allocateFor('allocate', type, length);
}

/**
 * @internal buffers[name]: a float32 WasmArray of at least n floats, reallocated
 * (the old one freed first) when it is missing or smaller; errors name fn.
 */
export function growFloat32(fn, buffers, name, n) {
  const b = buffers[name];
  if (b && b.length >= n) return b;
  if (b) b.free();
  buffers[name] = null;
  buffers[name] = allocateFor(fn, 'float32', Math.max(n, 1));
  return buffers[name];
}

/** @internal allocate() for function fn (the encoder's buffers): errors name fn. */
export function allocateFor(fn, type, length) {
  const Ctor = CONSTRUCTORS[type];
  if (!Object.hasOwn(CONSTRUCTORS, type)) {
    throw new (typeof type === 'string' ? RangeError : TypeError)(
      `posenc.${fn}: type must be 'float32', 'int32' or 'float64', got ${describe(type)}`,
    );
  }
  if (!Number.isSafeInteger(length) || length < 1 || length * Ctor.BYTES_PER_ELEMENT > MAX_BYTES) {
    throw new (typeof length === 'number' ? RangeError : TypeError)(
      `posenc.${fn}: length must be an integer from 1 to ${MAX_BYTES / Ctor.BYTES_PER_ELEMENT}, got ${describe(length)}`,
    );
  }
  const ptr = malloc(fn, length * Ctor.BYTES_PER_ELEMENT);
  const array = new WasmArray(ptr, type, length);
  live.set(ptr, array);
  try {
    array.array.fill(0);
  } catch (error) {
    array.free(); // never an orphan block that memoryStats() counts and no one can free
    throw error;
  }
  return array;
}

/**
 * The largest single array: 2 GiB, half of wasm32's 4 GiB address space.
 * Wasm memory grows to at most MAX_MEMORY; a call whose staged arrays do not
 * fit beside the live WasmArrays raises a RangeError (see malloc below).
 */
export const MAX_BYTES = 2 ** 31;
/** wasm32's address space, the memory maximum the module is linked with (-sMAXIMUM_MEMORY=4GB). */
export const MAX_MEMORY = 2 ** 32;

const sizes = new Map(); // pointer -> bytes, every allocation not yet freed

/** Rounds a byte count up to the 8-byte alignment of every staged array (no 32-bit bitwise ops: sizes reach 2^32). */
const align8 = (bytes) => Math.ceil(bytes / 8) * 8;

// Addresses are unsigned: wasm returns an i32, negative from 2 GiB on, so `>>> 0`.
// The allocator (src/wasm/malloc.c) returns 0 for a block that does not fit in
// the memory it can grow to; a size of 2^32 or more would wrap as an i32
// argument, so it never reaches the allocator.
function malloc(fn, bytes) {
  const ptr = bytes < MAX_MEMORY ? wasm(fn).exports.malloc(Math.max(bytes, 8)) >>> 0 : 0;
  if (ptr === 0) {
    throw new RangeError(
      `posenc.${fn}: could not allocate ${bytes} bytes of wasm memory (${allocatedBytes()} bytes are in use; wasm memory holds at most ${MAX_MEMORY} bytes, 4 GiB)`,
    );
  }
  sizes.set(ptr, bytes);
  return ptr;
}

function release(fn, ptr) {
  sizes.delete(ptr);
  wasm(fn).exports.free(ptr);
}

/**
 * What posenc holds in wasm memory now: the memory's size in bytes, the bytes
 * allocated and not yet freed (decoders' included), and the live WasmArrays.
 * Between calls only WasmArrays and decoders hold memory, so allocatedBytes
 * returning to its earlier value shows that calls (failed ones included)
 * leak nothing.
 */
export function memoryStats() {
  const { memory } = wasm('memoryStats');
  return { memoryBytes: memory.buffer.byteLength, allocatedBytes: allocatedBytes(), liveArrays: live.size };
}

const natives = new Set(); // () => bytes: memory C allocated itself and holds (decoder states)

/**
 * @internal Counts the bytes C holds for an object (a decoder state) in
 * memoryStats until the returned function is called.
 */
export function holdNative(bytes) {
  natives.add(bytes);
  return () => natives.delete(bytes);
}

function allocatedBytes() {
  let total = 0;
  for (const bytes of sizes.values()) total += bytes;
  for (const bytes of natives) total += bytes();
  return total;
}

/**
 * @internal The address of a caller array used in place: a live WasmArray's,
 * or 0 for an array to copy. Functions that allocate before heapCall (and so
 * may grow memory) take the address first and pass it as `address`.
 */
export function inPlaceAddress(fn, array) {
  return WasmArray.isBranded(array) ? array.pointer(fn) : 0;
}

/** The memory and byte range [start, end) of a caller array. */
function byteRange(fn, a) {
  if (WasmArray.isBranded(a)) {
    const start = a.pointer(fn);
    return [wasm(fn).memory.buffer, start, start + a.length * CONSTRUCTORS[a.type].BYTES_PER_ELEMENT];
  }
  const start = byteOffsetOf(a);
  return [bufferOf(a), start, start + byteLengthOf(a)];
}

/** Refuses two caller arrays that share memory (an output over an input, two outputs). */
export function checkDisjoint(fn, nameA, a, nameB, b) {
  const [bufA, startA, endA] = byteRange(fn, a);
  const [bufB, startB, endB] = byteRange(fn, b);
  if (bufA === bufB && startA < endB && startB < endA) {
    throw new RangeError(`posenc.${fn}: ${nameA} and ${nameB} must not share memory (they overlap)`);
  }
}

/**
 * Runs compute(...pointers) with every buffer in wasm memory. Each buffer is
 * { array, type, length, copyIn, copyOut, address? }; live WasmArrays are used
 * in place (at `address` when given), the others are staged through one
 * allocation that is freed before returning. No user code runs from here to
 * the end of compute: typed arrays are copied by the intrinsic operations
 * (typed.js), never by a subclass's own set() or subarray(). compute returns
 * a posenc status; a refusal throws the error C's record describes
 * (errors.js cError, with `context`: how this function names C's parameters,
 * and what the caller gave), and nothing is copied out; a status the caller
 * handles itself (context.tolerate) is returned instead.
 */
export function heapCall(fn, buffers, compute, context) {
  const { exports } = wasm(fn);
  const pointers = new Array(buffers.length).fill(0);
  let staged = 0;
  buffers.forEach((b, i) => {
    pointers[i] = b.address ?? inPlaceAddress(fn, b.array);
    if (pointers[i] === 0) staged += align8(b.length * CONSTRUCTORS[b.type].BYTES_PER_ELEMENT);
  });
  const inPlace = pointers.map((p) => p !== 0);
  // Even an empty staged array gets a real (non-NULL) address.
  const block = pointers.includes(0) ? malloc(fn, staged) : 0;
  try {
    let next = block;
    const { memory } = wasm(fn); // after malloc: the buffer is current
    buffers.forEach((b, i) => {
      if (pointers[i] !== 0) return;
      pointers[i] = next;
      next += align8(b.length * CONSTRUCTORS[b.type].BYTES_PER_ELEMENT);
      if (b.copyIn) setInto(new CONSTRUCTORS[b.type](memory.buffer, pointers[i], b.length), subarrayOf(b.array, 0, b.length));
    });
    clearError(wasm(fn));
    const status = compute(...pointers);
    if (status !== 0 && context?.tolerate === status) return status;
    if (status !== 0) throw cError(fn, wasm(fn), status, context);
    buffers.forEach((b, i) => {
      if (!b.copyOut || inPlace[i]) return;
      setInto(b.array, new CONSTRUCTORS[b.type](memory.buffer, pointers[i], b.length));
    });
  } finally {
    if (block) release(fn, block);
  }
}

/**
 * The values before the shapes: returns check(), which checks what JS checks
 * (an output of the wrong length, more elements than one call can produce)
 * and throws when a shape is wrong. A wrong shape often follows from a value
 * C refuses (a dModel that is not a multiple of 4 sizes out wrongly), and the
 * value is what the caller must fix: before check's error is thrown, probe()
 * asks C (noRoom), and throws the error for a value C refuses.
 */
export function valuesFirst(check, probe) {
  try {
    return check();
  } catch (error) {
    probe();
    throw error;
  }
}

/** Whether a status only says that the call had no room (a probe's). */
export const onlyRoom = (status) => status === STATUS.ERR_BUFFER_TOO_SMALL || status === STATUS.ERR_SIZE_OVERFLOW;

/**
 * A probe for valuesFirst: calls routine(pointer) with pointer a real address
 * and room for nothing, so that C checks every value and writes nothing (it
 * refuses the room, or has nothing to write); a value it refuses throws the
 * error its record describes (heapCall, named by `context`).
 */
export const noRoom = (fn, routine, context) => () =>
  heapCall(fn, [{ array: new Float64Array(0), type: 'float64', length: 0 }], (ptr) => {
    const status = routine(ptr);
    return onlyRoom(status) ? 0 : status;
  }, context);
