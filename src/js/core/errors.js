// errors.js: C validates, JS describes. Every range check of posenc is made
// once, in C, against its row of the parameter table (include/posenc.h,
// POSENC_PARAMETERS; build/abi.js params); a refused call leaves a record
// (posenc_last_error) of the parameter, its rule, bounds and value, which
// this module turns into the message a user reads:
//   posenc.<function>: <option> must be <what is allowed>, got <what was given>
// naming the option as the JS API spells it.
import { constants, error as ERROR_STRUCT, params, rule as RULES, status as STATUS } from '../../../build/abi.js';
import { describe } from './describe.js';
import { readStruct } from './struct.js';

const REAL_MAX = constants.REAL_MAX;

/** snake_case -> camelCase, segment by segment ('scaling.beta_fast' -> 'scaling.betaFast'); 'rope->x' -> 'x'. */
export const camel = (name) => name.replace(/^\w+->/, '').replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/** How errors name C's parameters where the JS API spells them otherwise: query_len is queryLength. */
export const lengthLabel = (name) => (name === 'query_len' ? 'queryLength' : name === 'key_len' ? 'keyLength' : camel(name));

/** A bound, or `other = bound` when it comes from another parameter. */
const bound = (v, other, label) => (other ? `${label(other)} = ${v}` : String(v));

/**
 * What a rule allows, in words: 'an even integer from 2 to 2147483647',
 * 'a finite number > 1'. `other` names the parameter the binding bound comes
 * from (the upper for integers, the lower for numbers).
 */
export function allowed(rule, lo, hi, other, label = camel) {
  switch (rule) {
    case 'integer':
      return `an integer from ${lo} to ${bound(hi, other, label)}`;
    case 'even': // the largest even value up to hi
      return `an even integer from ${lo} to ${bound(other ? hi : hi - (hi % 2), other, label)}`;
    case 'multiple': // a multiple of lo (another parameter's value, or a constant)
      return other ? `a multiple of ${bound(lo, other, label)}` : `a positive multiple of ${lo}`;
    case 'above':
    case 'at_least': {
      if (rule === 'at_least' && lo === -REAL_MAX && hi === REAL_MAX) return 'a finite number';
      const low = `${rule === 'above' ? '>' : '>='} ${bound(lo, other, label)}`;
      if (hi >= REAL_MAX) return `a finite number ${low}`;
      if (rule === 'at_least' && lo === -hi) return `a finite number from ${lo} to ${hi}`;
      return `a finite number ${low} and <= ${hi}`;
    }
    case 'flag':
      return '0 or 1';
    default:
      return `a value of ${label(other ?? 'its type')}`;
  }
}

/** Whether a value satisfies a row's rule and bounds (as C's row_ok; for what JS must decide alone: an explicit 0). */
export function accepts(r, v) {
  if (!(v >= r.lo && v <= r.hi)) return false;
  switch (r.rule) {
    case 'integer': case 'enum': return Number.isInteger(v);
    case 'even': return Number.isInteger(v) && v % 2 === 0;
    case 'multiple': return Number.isInteger(v) && v % r.lo === 0;
    case 'above': return v > r.lo;
    case 'flag': return v === 0 || v === 1;
    default: return true;
  }
}

/** What a row of the parameter table allows, in words (TypeScript docs, CLI help and type errors). */
export const rowAllows = (row) => allowed(row.rule, row.lo, row.hi);

/** The rows known to this entry by id: posenc.h's, and posenc_encoder.h's once addRows has them. */
const rows = new Map();

/** Adds rows of a parameter table ([id, name, rule, lo, hi, zero] each, build/abi.js). */
export function addRows(table) {
  for (const [id, name, rule, lo, hi, zero] of table) rows.set(id, { id, name, rule, lo, hi, zero });
}
addRows(params);

/** The row of a parameter by its table id ('ROTARY_DIM'). */
export function row(id) {
  const r = rows.get(id);
  if (!r) throw new Error(`posenc: internal error: no parameter '${id}' in the table`);
  return r;
}

function readCString(memory, ptr) {
  if (!ptr) return null;
  const bytes = new Uint8Array(memory.buffer, ptr);
  let end = 0;
  while (bytes[end] !== 0) end++;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

const records = new WeakMap(); // instance exports -> the address of its posenc_error record

/**
 * Clears the record's status before a call: a refusal that left no record
 * of its own (a routine that records none) then reads as an internal error,
 * never as an earlier call's record.
 */
export function clearError(instance) {
  const { exports, memory } = instance;
  let at = records.get(exports);
  if (at === undefined) records.set(exports, (at = exports.posenc_last_error() >>> 0));
  new DataView(memory.buffer).setInt32(at + ERROR_STRUCT.fields.status[0], 0, true);
}

/**
 * The Error for the last refused call of the instance { exports, memory },
 * with `status` its return. `context` says how the JS API names things:
 *   label(cName)  the option a C name stands for (default: camelCase)
 *   given(label)  the value the caller gave under that name, or undefined
 *                 (then C's value is shown)
 *   givenText(label, rule)  or that value already written out (an options
 *                 object; rule: the record's, 'result' for a result out of range)
 *   name(cName, element)  the whole name of an element of an array parameter
 *                 (C's name, its element), or undefined for label's name[element]
 * Statuses the JS checks should have made impossible (a NULL the binding
 * passed) are internal errors.
 */
export function cError(fn, instance, status, context = {}) {
  const { exports, memory } = instance;
  const e = readStruct(memory, exports.posenc_last_error(), ERROR_STRUCT);
  const label = context.label ?? camel;
  const cName = readCString(memory, e.name) ?? 'an argument';
  const name = (e.element >= 0 && context.name?.(cName, e.element)) || `${label(cName)}${e.element >= 0 ? `[${e.element}]` : ''}`;
  const other = readCString(memory, e.other);
  // C's reason, its parameters named as the options are, % its bound
  const why = readCString(memory, e.why)?.replace(/\b[a-z]+(?:_[a-z0-9]+)+\b/g, (w) => label(w)).replace('%', String(e.lo));
  const given = context.given?.(name);
  const rule = RULES[e.rule];
  const got = context.givenText?.(name, rule) ?? describe(given === undefined ? e.value : given);
  if (status === STATUS.ERR_NULL_POINTER || e.status !== status || rule === 'none' || rule === 'not_null') {
    return new Error(`posenc.${fn}: internal error ${status} from C (${name})`);
  }
  let message;
  if (rule === 'disjoint') message = `${name} and ${label(other)} must not share memory (they overlap)`;
  else if (rule === 'length') message = `${name} must have at least ${e.lo} elements, got ${e.value}`;
  else if (rule === 'size') message = `${name} = ${e.value} * ${e.lo}... does not fit in wasm32's size_t (4294967295 elements)`;
  else if (rule === 'result') message = `${name} ${why}, got ${got}`;
  else if (rule === 'memory') message = `could not allocate ${e.value} bytes of wasm memory for ${name} (wasm memory holds at most 4 GiB)`;
  else message = `${name} must be ${allowed(rule, e.lo, e.hi, other, label)}${why ? ` (${why})` : ''}, got ${got}`;
  return new RangeError(`posenc.${fn}: ${message}`);
}

/** Reads a posenc_error record back for tests and the CLI: its fields, strings decoded. */
export function lastError(instance) {
  const { exports, memory } = instance;
  const e = readStruct(memory, exports.posenc_last_error(), ERROR_STRUCT);
  return { ...e, rule: RULES[e.rule], name: readCString(memory, e.name), other: readCString(memory, e.other), why: readCString(memory, e.why) };
}
