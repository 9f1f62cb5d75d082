// declarations.js: reads the comments of options in posenc's hand-written
// .d.ts files, for tests/api/declarations.test.js. TypeScript 7's compiler has no
// JavaScript API to ask for a property's comment, and the declarations keep to
// a few forms: interfaces (with extends), an inline object type of a function
// parameter, and tagged unions of object types. This reads those forms only;
// tsc itself checks the names and types.

/** Index of the bracket closing the one at `open` (comments and strings skipped). */
function closing(text, open) {
  const pairs = { '{': '}', '(': ')', '[': ']', '<': '>' };
  const stack = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (text.startsWith('/*', i)) i = text.indexOf('*/', i + 2) + 1;
    else if (text.startsWith('//', i)) i = text.indexOf('\n', i);
    else if (c === "'" || c === '"') i = text.indexOf(c, i + 1);
    else if (c in pairs) stack.push(pairs[c]);
    else if (c === '>' && text[i - 1] === '=') continue; // an arrow, not a bracket
    else if (c === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return i;
    }
  }
  throw new Error(`declarations: no closing bracket for ${text.slice(open, open + 40)}`);
}

/**
 * The parts of a type's text at its own level, in order: { kind: 'doc' }
 * (a /** comment), 'object' ({ ... }), 'group' ((...), [...], <...>) or
 * 'other' (one character; a // comment or a string whole), each with its text.
 */
function* parts(text) {
  for (let i = 0; i < text.length; ) {
    let end = i + 1;
    let kind = 'other';
    if (text.startsWith('/**', i)) [kind, end] = ['doc', text.indexOf('*/', i) + 2];
    else if (text.startsWith('//', i)) end = text.indexOf('\n', i) + 1 || text.length;
    else if (text[i] === "'" || text[i] === '"') end = text.indexOf(text[i], i + 1) + 1;
    else if ('{([<'.includes(text[i])) [kind, end] = [text[i] === '{' ? 'object' : 'group', closing(text, i) + 1];
    yield { kind, text: text.slice(i, end) };
    i = end;
  }
}

/** The members of an object type's text `{ ... }`: name -> the comment before it. */
function objectMembers(objectText) {
  const members = new Map();
  let doc = '';
  let expectName = true;
  const body = objectText.slice(1, -1);
  for (let i = 0; i < body.length; ) {
    if (body.startsWith('/**', i)) {
      const end = body.indexOf('*/', i) + 2;
      doc = body.slice(i, end);
      i = end;
      continue;
    }
    if ('{([<'.includes(body[i])) {
      i = closing(body, i) + 1;
      continue;
    }
    if (body[i] === ';' || body[i] === ',' || body[i] === '\n') {
      if (body[i] !== '\n') expectName = true;
      i++;
      continue;
    }
    const name = expectName && /^(?:readonly\s+)?([A-Za-z_$][\w$]*)\??\s*:/.exec(body.slice(i));
    if (name) {
      members.set(name[1], doc);
      doc = '';
      expectName = false;
      i += name[0].length;
      continue;
    }
    if (!/\s/.test(body[i])) expectName = false;
    i++;
  }
  return members;
}

/** The text of `export interface Name ... { ... }`: { extendsText, body } or undefined. */
function interfaceText(text, name) {
  const at = new RegExp(`export interface ${name}\\b`).exec(text);
  if (!at) return undefined;
  let i = at.index + at[0].length;
  if (text[i] === '<') i = closing(text, i) + 1;
  const brace = text.indexOf('{', i);
  return { extendsText: text.slice(i, brace), body: text.slice(brace, closing(text, brace) + 1) };
}

/** The documented members of a type's text: its object types and the interfaces it names. */
function typeDocs(typeText, texts) {
  const docs = new Map();
  const named = typeText.replace(/\{[^]*\}/g, (objects) => objects.replace(/[A-Z]\w*/g, '')).match(/\b[A-Z]\w*/g) ?? [];
  for (const name of named) {
    for (const text of texts) {
      const found = interfaceText(text, name);
      if (found) {
        for (const [k, v] of typeDocs(found.extendsText, texts)) docs.set(k, v);
        for (const [k, v] of objectMembers(found.body)) docs.set(k, v);
        break;
      }
    }
  }
  const objects = (text) => [...parts(text)].flatMap((p) => (p.kind === 'object' ? [p.text] : p.kind === 'group' ? objects(p.text.slice(1, -1)) : []));
  for (const object of objects(typeText)) for (const [k, v] of objectMembers(object)) docs.set(k, v);
  return docs;
}

/**
 * The type text of parameter `param` of the `overload`-th declaration that
 * `head` (a RegExp source: 'export function name', a method's name) starts.
 */
function parameterText(text, head, param, overload) {
  const matches = [...text.matchAll(new RegExp(`${head}(?=[<(])`, 'g'))];
  if (!matches[overload]) throw new Error(`declarations: no overload ${overload} of ${head}`);
  let i = matches[overload].index + matches[overload][0].length;
  if (text[i] === '<') i = closing(text, i) + 1;
  const list = text.slice(i + 1, closing(text, i));
  const params = [];
  let current = '';
  for (const p of parts(list)) {
    if (p.kind === 'other' && p.text === ',') {
      params.push(current);
      current = '';
    } else current += p.text;
  }
  params.push(current);
  const declared = params[param];
  if (declared === undefined) throw new Error(`declarations: ${head} has no parameter ${param}`);
  return declared.slice(declared.indexOf(':') + 1);
}

/**
 * The comments of a declared options type, by option name. `scope` is
 * { type } (an interface), { fn, param, overload } (a parameter's type),
 * { method: [interface, name], param } (a method's parameter) or { union } (a tagged union: tag -> { docs, doc }, doc the member's comment).
 * `base` is the text of posenc.d.ts, whose names encoder.d.ts imports.
 */
export function declaredDocs(text, scope, base) {
  const texts = [text, base];
  if (scope.type) return typeDocs(scope.type, texts);
  if (scope.fn) return typeDocs(parameterText(text, `export function ${scope.fn}`, scope.param, scope.overload ?? 0), texts);
  if (scope.method) {
    const [iface, name] = scope.method;
    return typeDocs(parameterText(interfaceText(text, iface).body, `(?<![\\w.])${name}`, scope.param, 0), texts);
  }
  const at = new RegExp(`export type ${scope.union} =`).exec(text);
  const members = new Map();
  let pending = '';
  for (const p of parts(text.slice(at.index + at[0].length))) {
    if (p.text === ';') break; // the end of the alias
    if (p.kind === 'doc') pending = p.text;
    if (p.kind === 'object') {
      const tag = /type:\s*'([^']+)'/.exec(p.text)[1];
      members.set(tag, { docs: objectMembers(p.text), doc: pending });
      pending = '';
    }
  }
  return members;
}

/**
 * The literal after 'default' in a comment: 10000, 1e-5, 'half', true; with
 * `name`, after 'name default' (a comment that covers several options).
 * undefined when the comment gives none.
 */
export function documentedDefault(doc, name) {
  const literal = String.raw`(-?\d[\d.e+-]*|'[^']*'|true|false)(?![\w(])`;
  const match = new RegExp(name === undefined ? String.raw`\bdefault:?\s+${literal}` : String.raw`\b${name}(?::[^;]*;)?\s+default:?\s+${literal}`).exec(doc);
  if (!match) return undefined;
  const text = match[1];
  if (text.startsWith("'")) return text.slice(1, -1);
  if (text === 'true' || text === 'false') return text === 'true';
  return Number(text);
}
