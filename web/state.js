// state.js: the page state lives in the URL query, one key per control,
// `view.name=value` (e.g. ?table.d=128&curves.dims=0-3), defaults left out, so
// a shared link or a reload shows the same view. Each view declares its
// parameters with the kinds below; parse() turns text into a value or a
// message, the same for an input box and a URL.

const fail = (message) => ({ ok: false, message });

/** An integer in [min, max], a multiple of step. */
export const int = (min, max, def, step = 1) => ({
  def, min, max,
  parse(text) {
    const v = Number(String(text).trim());
    if (!/^\s*-?\d+\s*$/.test(String(text)) || v < min || v > max || (v - min) % step !== 0) {
      return fail(`must be ${step === 1 ? 'an integer' : `a multiple of ${step}`} from ${min} to ${max}`);
    }
    return { ok: true, value: v };
  },
  format: (v) => String(v),
});

/** A finite number above `above` and at most max. */
export const num = (above, max, def) => ({
  def,
  parse(text) {
    const v = Number(String(text).trim());
    if (String(text).trim() === '' || !Number.isFinite(v) || !(v > above) || v > max) return fail(`must be a number above ${above} and at most ${max}`);
    return { ok: true, value: v };
  },
  format: (v) => String(v),
});

/** One of a list of strings. */
export const choice = (values, def) => ({
  def,
  parse: (text) => (values.includes(text) ? { ok: true, value: text } : fail(`must be one of ${values.join(', ')}`)),
  format: (v) => v,
});

/** true or false (a checkbox). */
export const bool = (def) => ({
  def,
  parse: (text) => (text === 'true' || text === 'false' ? { ok: true, value: text === 'true' } : fail('must be true or false')),
  format: (v) => String(v),
});

/** An optional integer: empty text means "automatic" (null). */
export const optInt = (min, max) => ({
  def: null,
  parse(text) {
    if (String(text).trim() === '') return { ok: true, value: null };
    return int(min, max, null).parse(text);
  },
  format: (v) => (v === null ? '' : String(v)),
});

/** A list of integers written "4-7" or "0,1,10-12": up to `most` distinct values in [0, max]. */
export const intList = (max, def, most = 10) => ({
  def,
  parse(text) {
    const out = [];
    for (const part of String(text).split(',')) {
      const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
      if (!m) return fail('must be like 4-7 or 0,1,10');
      const a = Number(m[1]);
      const b = m[2] === undefined ? a : Number(m[2]);
      if (b < a || b > max) return fail(`must list integers from 0 to ${max}, ranges low-high`);
      for (let v = a; v <= b && out.length <= most; v++) if (!out.includes(v)) out.push(v);
    }
    if (out.length > most) return fail(`may list at most ${most} dimensions`);
    return { ok: true, value: out };
  },
  format(v) {
    // consecutive runs collapse back to ranges: [4,5,6,7] -> "4-7"
    const parts = [];
    for (let i = 0; i < v.length; ) {
      let j = i;
      while (j + 1 < v.length && v[j + 1] === v[j] + 1) j++;
      parts.push(j > i + 1 ? `${v[i]}-${v[j]}` : v.slice(i, j + 1).join(','));
      i = j + 1;
    }
    return parts.join(',');
  },
});

/**
 * The state of every view from a query string: bad or missing values take
 * defaults. Each value refused, and each key no view has, is pushed onto
 * `problems` as { view (null: no view of that name), key, message }, a
 * sentence saying what was ignored and why, for the page to show.
 */
export function readState(views, search, problems = []) {
  const q = new URLSearchParams(search);
  const state = {};
  const known = new Set();
  for (const view of views) {
    state[view.id] = {};
    for (const [name, p] of Object.entries(view.params)) {
      const key = `${view.id}.${name}`;
      known.add(key);
      const text = q.get(key);
      const r = text === null ? null : p.parse(text);
      state[view.id][name] = r && r.ok ? r.value : p.def;
      if (r && !r.ok) {
        const label = view.labels?.[name] ?? name;
        problems.push({ view: view.id, key, message: `The address gives ${key}=${text}, but ${label} ${r.message}: the default, ${p.format(p.def)}, is shown.` });
      }
    }
  }
  for (const key of new Set(q.keys())) {
    if (known.has(key)) continue;
    const id = key.split('.')[0];
    const view = views.find((v) => v.id === id);
    problems.push(view
      ? { view: id, key, message: `The address gives ${key}, which is not a setting of this view (${Object.keys(view.params).join(', ')}): ignored.` }
      : { view: null, key, message: `The address gives ${key}, which names no view of this page: ignored.` });
  }
  return state;
}

/** The query string of a state: non-default values only, in a stable order. */
export function queryOf(views, state) {
  const q = new URLSearchParams();
  for (const view of views) {
    for (const [name, p] of Object.entries(view.params)) {
      const text = p.format(state[view.id][name]);
      if (text !== p.format(p.def)) q.set(`${view.id}.${name}`, text);
    }
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
