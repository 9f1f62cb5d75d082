// abi.mjs: the C ABI of posenc's headers, stated once and read from there.
// Writes, into the folder given (build/):
//   abi.js            the enums, status codes, numeric constants, wasm32 struct
//                     layouts and parameter tables (each checked parameter's
//                     name, rule, bounds and default) for src/js
//   abi-asserts.h     a _Static_assert for every value and offset abi.js holds,
//                     compiled into both wasm builds: the compiler checks this reader
//   exports-posenc.txt, exports-encoder.txt
//                     the routines each wasm exports (-sEXPORTED_FUNCTIONS): the
//                     default entry's are those the first header declares, the
//                     encoder's those of every header
// usage: node tools/abi.mjs build include/posenc.h include/posenc_encoder.h
import { readFileSync, writeFileSync } from 'node:fs';

const [outDir, ...headerPaths] = process.argv.slice(2);

/** A header's text, and its code with the comments blanked (lines kept). */
function readHeader(path) {
  const text = readFileSync(path, 'utf8');
  return { path, text, code: text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')) };
}
const headers = headerPaths.map(readHeader);
let header = headers[0]; // the header being read, for messages

/** The header line of a character index, for messages. */
const lineOf = (index) => header.text.slice(0, index).split('\n').length;
const fail = (message) => {
  console.error(`tools/abi.mjs: ${header.path}: ${message}`);
  process.exit(1);
};

// ---------------------------------------------------------------- constants

const constants = {}; // POSENC_NAME -> number: #defines and enum members

/**
 * The value of a constant expression of the header: numbers, the constants
 * read so far, unary minus, + - * /, parentheses and (double) casts.
 */
function evaluate(expression, where) {
  const tokens = expression.replace(/\(\s*(?:double|size_t|int)\s*\)/g, ' ').match(/\d+\.\d*(?:e[+-]?\d+)?|\d+(?:e[+-]?\d+)?|\w+|[-+*/()]/gi) ?? [];
  let i = 0;
  const atom = () => {
    const t = tokens[i++];
    if (t === '-') return -atom();
    if (t === '(') {
      const v = sum();
      if (tokens[i++] !== ')') fail(`${where}: unbalanced parentheses in '${expression}'`);
      return v;
    }
    if (/^\d/.test(t)) return Number(t);
    if (Object.hasOwn(constants, t)) return constants[t];
    return fail(`${where}: cannot evaluate '${t}' in '${expression}'`);
  };
  const product = () => {
    let v = atom();
    while (tokens[i] === '*' || tokens[i] === '/') v = tokens[i++] === '*' ? v * atom() : v / atom();
    return v;
  };
  const sum = () => {
    let v = product();
    while (tokens[i] === '+' || tokens[i] === '-') v = tokens[i++] === '+' ? v + product() : v - product();
    return v;
  };
  const v = sum();
  if (i !== tokens.length) fail(`${where}: cannot evaluate '${expression}'`);
  return v;
}

/** `#define POSENC_X <number or expression>`, in header order (macros with arguments are the tables). */
function parseDefines(code) {
  for (const m of code.matchAll(/^#define\s+(POSENC_\w+)[ \t]+([^\n\\]+)$/gm)) {
    const value = m[2].trim();
    if (/^[-+*/().\w\s]+$/.test(value) && !/[a-z_]\w*\s*\(/i.test(value.replace(/\(\s*(?:double|size_t|int)\s*\)/g, ''))) {
      constants[m[1]] = evaluate(value, `line ${lineOf(m.index)}`);
    }
  }
}

// ---------------------------------------------------------------- enums

/** typedef enum name { A = 0, B = 1 } name; -> { name, members: [[A, 0], [B, 1]] } (explicit values only). */
function parseEnums(code) {
  const enums = [];
  for (const m of code.matchAll(/typedef\s+enum\s+(posenc_\w+)\s*\{([^}]*)\}\s*(\w+)\s*;/g)) {
    if (/\w\s*\(/.test(m[2])) continue; // built from a table (posenc_param): read with the table
    const members = m[2].split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
      const v = /^(POSENC_\w+)\s*=\s*(-?\d+)$/.exec(s);
      if (!v) fail(`line ${lineOf(m.index)}: enum ${m[1]}: every member needs an explicit value, got '${s}'`);
      constants[v[1]] = Number(v[2]);
      return [v[1], Number(v[2])];
    });
    enums.push({ name: m[1].slice('posenc_'.length), members });
  }
  return enums;
}

/** The prefix the members share, cut at an underscore: POSENC_ROPE_LAYOUT_ of HALF and INTERLEAVED. */
function sharedPrefix(names) {
  let prefix = names[0];
  for (const n of names) while (!n.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix.slice(0, prefix.lastIndexOf('_') + 1);
}

// ---------------------------------------------------------------- structs

// wasm32: int, int32_t, size_t and pointers take 4 bytes, double 8; each field
// is aligned to its size (a struct field to its struct's alignment, an array
// to its element's) and the struct to its widest member (C11 6.7.2.1, the
// wasm32 ABI of clang).
const KINDS = { int: 'i32', int32_t: 'i32', size_t: 'u32', double: 'f64', float: 'f32' };
const BYTES = { i32: 4, u32: 4, f64: 8, f32: 4, ptr: 4 };

const structsByName = {}; // posenc_x -> parsed struct, for nesting

function parseStructs(code) {
  const structs = [];
  for (const m of code.matchAll(/typedef\s+struct\s+(posenc_\w+)\s*\{([^}]*)\}\s*(\w+)\s*;/g)) {
    const where = `line ${lineOf(m.index)}: struct ${m[1]}`;
    const members = []; // { name, kind, count } or { name, struct }
    for (const declaration of m[2].split(';').map((s) => s.trim().replace(/\s+/g, ' ')).filter(Boolean)) {
      const d = /^(const )?(\w+)( ?\*)? (.+)$/.exec(declaration);
      if (!d) fail(`${where}: cannot read '${declaration}'`);
      for (const part of d[4].split(',').map((s) => s.trim())) {
        const pointer = Boolean(d[3]) || part.startsWith('*');
        const array = /^(\w+)\[(\w+)\]$/.exec(part);
        const name = array ? array[1] : part.replace(/^\*\s*/, '');
        const count = array ? evaluate(array[2], where) : 1;
        if (!pointer && structsByName[d[2]]) {
          members.push({ name, struct: structsByName[d[2]] });
          continue;
        }
        const kind = pointer ? 'ptr' : KINDS[d[2]];
        if (!kind || !/^\w+$/.test(name)) fail(`${where}: type '${d[2]}' of '${name}' is not one of ${Object.keys(KINDS).join(', ')}, a posenc struct or a pointer`);
        members.push({ name, kind, count });
      }
    }
    // lay the members out; nested structs flatten into dotted names ('scaling.factor'),
    // arrays into one field with its element count
    const fields = [];
    let at = 0;
    let widest = 1;
    for (const member of members) {
      if (member.struct) {
        const align = member.struct.align;
        at = Math.ceil(at / align) * align;
        for (const f of member.struct.fields) fields.push({ ...f, name: `${member.name}.${f.name}`, offset: at + f.offset });
        at += member.struct.bytes;
        widest = Math.max(widest, align);
      } else {
        const bytes = BYTES[member.kind];
        at = Math.ceil(at / bytes) * bytes;
        fields.push({ name: member.name, kind: member.kind, count: member.count, offset: at });
        at += bytes * member.count;
        widest = Math.max(widest, bytes);
      }
    }
    const struct = { name: m[1].slice('posenc_'.length), cName: m[1], fields, align: widest, bytes: Math.ceil(at / widest) * widest };
    structsByName[m[1]] = struct;
    structs.push(struct);
  }
  return structs;
}

// ---------------------------------------------------------------- parameter tables

const RULES = () => constants; // rules resolve as POSENC_RULE_<NAME>

/**
 * The rows of a parameter table, `#define POSENC_..._PARAMETERS(P)` with one
 * `P(ID, "name", RULE, lo, hi, zero)` per line: [{ id, name, rule, lo, hi, zero }].
 */
function parseTable(code, macro) {
  const start = code.search(new RegExp(`#define\\s+${macro}\\(P\\)`));
  if (start < 0) return [];
  const body = code.slice(start).split('\n');
  const rows = [];
  for (const line of body.slice(1)) {
    const m = /^\s*P\((\w+),\s*"([^"]*)",\s*(\w+),\s*([^,]+),\s*([^,]+),\s*([^)]+)\)\s*\\?\s*$/.exec(line);
    if (!m) {
      if (/^\s*$/.test(line) || !/\\\s*$/.test(line)) break;
      fail(`${macro}: cannot read the row '${line.trim()}'`);
    }
    const where = `${macro} row ${m[1]}`;
    const rule = `POSENC_RULE_${m[3]}`;
    if (!Object.hasOwn(RULES(), rule)) fail(`${where}: unknown rule ${m[3]}`);
    rows.push({ id: m[1], name: m[2], rule: m[3].toLowerCase(), lo: evaluate(m[4], where), hi: evaluate(m[5], where), zero: evaluate(m[6], where) });
    if (!/\\\s*$/.test(line)) break; // the table's last line
  }
  if (rows.length === 0) fail(`${macro}: no rows`);
  return rows;
}

// ---------------------------------------------------------------- routines

/** The routines a header declares (POSENC_API ... posenc_name(...)). */
function parseRoutines(code) {
  return [...code.matchAll(/^POSENC_API[^(]*?\b(posenc_\w+)\(/gm)].map((m) => m[1]);
}

// ---------------------------------------------------------------- output

const TABLES = ['POSENC_PARAMETERS', 'POSENC_ENCODER_PARAMETERS'];
const enums = [];
const structs = [];
const routinesOf = [];
const tables = TABLES.map(() => []); // each table's rows
for (header of headers) {
  // enums first: #defines and tables refer to their members
  enums.push(...parseEnums(header.code));
  parseDefines(header.code);
  structs.push(...parseStructs(header.code));
  routinesOf.push(parseRoutines(header.code));
  TABLES.forEach((table, t) => tables[t].push(...parseTable(header.code, table)));
}
const params = tables.flat();

const sources = headerPaths.join(', ');
const includes = headerPaths.map((p) => `#include "${p.split('/').pop()}"`);
const js = [`// generated by tools/abi.mjs from ${sources}: do not edit`, ''];
const asserts = [`/* generated by tools/abi.mjs from ${sources}: do not edit */`, '#include <stddef.h>', ...includes, ''];
for (const e of enums) {
  const prefix = sharedPrefix(e.members.map(([n]) => n));
  const contiguous = e.members.every(([, v], i) => v === i);
  const label = (n) => n.slice(prefix.length);
  if (contiguous) {
    js.push(`/** posenc_${e.name}: the names of its values 0, 1, ... */`);
    js.push(`export const ${e.name} = ${JSON.stringify(e.members.map(([n]) => label(n).toLowerCase()))};`);
  } else {
    js.push(`/** posenc_${e.name} */`);
    js.push(`export const ${e.name} = ${JSON.stringify(Object.fromEntries(e.members.map(([n, v]) => [label(n), v])))};`);
  }
  for (const [n, v] of e.members) asserts.push(`_Static_assert(${n} == ${v}, "${n}");`);
}
js.push('');
const defines = Object.fromEntries(Object.entries(constants).filter(([name]) => !enums.some((e) => e.members.some(([n]) => n === name))));
js.push('/** The numeric #defines of the headers (POSENC_ prefix cut). */');
js.push(`export const constants = ${JSON.stringify(Object.fromEntries(Object.entries(defines).map(([n, v]) => [n.slice('POSENC_'.length), v])))};`, '');
js.push('/**');
js.push(' * The checked parameters of posenc.h (params, the default entry\'s) and of');
js.push(' * posenc_encoder.h (encoder_params, whose C ids continue after them): each');
js.push(' * row [id, name, rule, lo, hi, zero] (zero: the value 0 selects).');
js.push(' */');
const compact = (rows) => JSON.stringify(rows.map((r) => [r.id, r.name, r.rule, r.lo, r.hi, r.zero]));
js.push(`export const params = ${compact(tables[0])};`);
js.push(`export const encoder_params = ${compact(tables[1])};`, '');
params.forEach((row, i) => asserts.push(`_Static_assert(POSENC_PARAM_${row.id} == ${i}, "POSENC_PARAM_${row.id}");`));
asserts.push('', '#if defined(__wasm32__)');
for (const s of structs) {
  const fields = Object.fromEntries(s.fields.map((f) => [f.name, f.count > 1 ? [f.offset, f.kind, f.count] : [f.offset, f.kind]]));
  js.push(`/** ${s.cName} in wasm32 memory: bytes, and each field's [offset, kind (, count)] */`);
  js.push(`export const ${s.name} = ${JSON.stringify({ bytes: s.bytes, fields })};`);
  for (const f of s.fields) {
    const cField = f.count > 1 ? `${f.name}[0]` : f.name;
    asserts.push(`_Static_assert(offsetof(${s.cName}, ${cField}) == ${f.offset}, "${s.cName}.${f.name}");`);
  }
  asserts.push(`_Static_assert(sizeof(${s.cName}) == ${s.bytes}, "sizeof ${s.cName}");`);
}
asserts.push('#endif', '');
const positional = routinesOf[0];
const all = routinesOf.flat();
const names = (list) => JSON.stringify([...list, 'malloc', 'free']);
js.push('', "/** The functions each entry's wasm exports (and init() checks), besides memory and _initialize. */");
js.push(`export const exports_posenc = ${names(positional)};`);
js.push(`export const exports_encoder = ${names(all)};`, '');

writeFileSync(`${outDir}/abi.js`, js.join('\n'));
writeFileSync(`${outDir}/abi-asserts.h`, asserts.join('\n'));
const exportList = (list) => [...list.map((name) => `_${name}`), '_malloc', '_free'].join(',');
writeFileSync(`${outDir}/exports-posenc.txt`, exportList(positional));
writeFileSync(`${outDir}/exports-encoder.txt`, exportList(all));
