// read.js: reading a Hugging Face config.json object safely. Only own data
// properties are keys (an inherited name such as 'constructor' or 'toString' is
// not); no getter runs (an accessor property is an error that names it); a Proxy
// whose traps throw is an error naming the key; nothing is walked recursively, so
// a cycle (text_config pointing back at the config) costs nothing. Every message
// names the key as the file spells it, under the path it was read at.
import { describe, fail, isPlainObject } from '../core/describe.js';

/** The largest num_hidden_layers read (the deepest real model has 126 layers). */
export const MAX_LAYERS = 2 ** 16;

/** A string for a message, at most 60 characters of it. */
export const quote = (s) => (s.length > 60 ? `'${s.slice(0, 57)}...'` : `'${s}'`);

/** The own data property `key` of object o, or undefined when it has none. */
export function own(fn, o, where, key) {
  let d;
  try {
    d = Object.getOwnPropertyDescriptor(o, key);
  } catch (error) {
    throw new TypeError(`posenc.${fn}: ${where}.${key} could not be read (${String(error?.message ?? error).slice(0, 80)}): pass the parsed config.json`);
  }
  if (d === undefined) return undefined;
  if (!Object.hasOwn(d, 'value')) throw new TypeError(`posenc.${fn}: ${where}.${key} is an accessor (a getter or setter): pass the parsed config.json, plain data`);
  return d.value;
}

/** The own enumerable keys of object o. */
export function keysOf(fn, o, where) {
  try {
    return Object.keys(o);
  } catch (error) {
    throw new TypeError(`posenc.${fn}: the keys of ${where} could not be read (${String(error?.message ?? error).slice(0, 80)}): pass the parsed config.json`);
  }
}

/** own(), with JSON's null (Python's None) read as absent. */
export function value(fn, o, where, key) {
  const v = own(fn, o, where, key);
  return v === null ? undefined : v;
}

/** A number under `key`, or undefined when absent or null; anything else is an error. */
export function numberAt(fn, o, where, key) {
  return finite(fn, `${where}.${key}`, value(fn, o, where, key));
}

/** v when it is undefined or a finite number, named `name` in the error otherwise. */
export function finite(fn, name, v) {
  if (v === undefined) return undefined;
  if (typeof v !== 'number') throw fail(TypeError, fn, name, 'a finite number', v);
  if (!Number.isFinite(v)) throw fail(RangeError, fn, name, 'a finite number', v);
  return v;
}

/** A positive integer under `key`, or undefined. */
export function countAt(fn, o, where, key, max = Number.MAX_SAFE_INTEGER) {
  const v = numberAt(fn, o, where, key);
  if (v !== undefined && !(Number.isInteger(v) && v >= 1 && v <= max)) {
    throw fail(RangeError, fn, `${where}.${key}`, `an integer from 1 to ${max}`, v);
  }
  return v;
}

/** A string under `key`, or undefined. */
export function stringAt(fn, o, where, key) {
  const v = value(fn, o, where, key);
  if (v !== undefined && typeof v !== 'string') throw fail(TypeError, fn, `${where}.${key}`, 'a string', v);
  return v;
}

/** An object (a JSON dict) under `key`, or undefined. */
export function objectAt(fn, o, where, key) {
  const v = value(fn, o, where, key);
  if (v !== undefined && !isPlainObject(v)) throw fail(TypeError, fn, `${where}.${key}`, 'an object or null', v);
  return v;
}

/** An array under `key`, or undefined; its length at most max. */
export function arrayAt(fn, o, where, key, max) {
  const v = value(fn, o, where, key);
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw fail(TypeError, fn, `${where}.${key}`, 'an array or null', v);
  if (v.length > max) throw new RangeError(`posenc.${fn}: ${where}.${key} must have at most ${max} entries, got ${v.length}`);
  return v;
}

/** Entry i of an array read with arrayAt, as own data. */
export function entry(fn, array, where, key, i) {
  return own(fn, array, `${where}.${key}`, String(i));
}

/** The first of several keys that is set (aliases: num_attention_heads / n_head): { value, key }. */
export function firstCount(fn, o, where, keys, max) {
  for (const key of keys) {
    const v = countAt(fn, o, where, key, max);
    if (v !== undefined) return { value: v, key };
  }
  return { value: undefined, key: keys[0] };
}

/** The config must be an object: the parsed config.json. */
export function checkConfig(fn, config) {
  if (!isPlainObject(config)) {
    const what = typeof config === 'string' ? 'a string (parse the JSON first: JSON.parse(text))' : describe(config);
    throw new TypeError(`posenc.${fn}: config must be a Hugging Face config object (the parsed config.json), got ${what}`);
  }
}
