// typed.js: typed arrays read and written through the engine's own
// %TypedArray% operations, captured when this module loads. A caller's array
// may be a subclass whose subarray(), set() or length getter runs user code;
// such code could free or grow wasm memory between a check and its use, so
// posenc never calls a method or getter on a caller's array, only these.
// They also brand-check: a value that is not a real typed array throws.

const TypedArray = Object.getPrototypeOf(Int8Array);
const proto = TypedArray.prototype;
const getter = (name) => Object.getOwnPropertyDescriptor(proto, name).get;
const tagGetter = getter(Symbol.toStringTag);
const lengthGetter = getter('length');
const bufferGetter = getter('buffer');
const byteOffsetGetter = getter('byteOffset');
const byteLengthGetter = getter('byteLength');
const { set, subarray } = proto;
const { apply } = Reflect;

/** The type name of a real typed array ('Float32Array', ...), undefined for anything else. */
export const typedArrayType = (x) => tagGetter.call(x);
export const lengthOf = (a) => lengthGetter.call(a);
export const bufferOf = (a) => bufferGetter.call(a);
export const byteOffsetOf = (a) => byteOffsetGetter.call(a);
export const byteLengthOf = (a) => byteLengthGetter.call(a);

/** target.set(source, offset) by the intrinsic. */
export const setInto = (target, source, offset = 0) => apply(set, target, [source, offset]);
/** a.subarray(start, end) by the intrinsic (its result is a plain typed array of a's type). */
export const subarrayOf = (a, start, end) => apply(subarray, a, [start, end]);
