// option-text.js: what an option allows and its default, in words, from its
// one source: C's row of the parameter table for a number C checks
// (include/posenc.h, POSENC_PARAMETERS), the spec for the rest. The
// TypeScript declarations (tools/bundle.mjs) and the command line's help
// (src/cli) are written from it, so neither restates a range or a default.
import { row as rowOf } from '../encoder/rows.js'; // every row, the encoder's too: the help and declarations of both entries
import { rowAllows } from './errors.js';

/** A value as the docs write it: 'interleaved' quoted, numbers and booleans bare. */
const literal = (v) => (typeof v === 'string' ? `'${v}'` : String(v));

/** The default of a checker: the spec's, or its row's (what C's 0 selects). */
export function defaultOf(checker) {
  if ('default' in checker) return checker.default;
  return checker.row && checker.row.zero !== 0 ? checker.row.zero : undefined;
}

/** What a spec's checker allows and its default: 'a finite number > 1; default 10000'. */
export function optionText(checker) {
  const parts = [];
  if (checker.row) parts.push(rowAllows(checker.row));
  else if (checker.values) parts.push(`one of ${checker.values.map(literal).join(', ')}`);
  const d = defaultOf(checker);
  if (d !== undefined && typeof d !== 'object') parts.push(`default ${literal(d)}`);
  else if (!checker.optional && !('default' in checker)) parts.push('required');
  return parts.join('; ');
}

/** A row's words by id, for the declarations' {{ID}} markers: 'a finite number > 1; default 10000'. */
export function rowText(id) {
  let row;
  try {
    row = rowOf(id);
  } catch {
    return undefined;
  }
  return `${rowAllows(row)}${row.zero !== 0 ? `; default ${row.zero}` : ''}`;
}
