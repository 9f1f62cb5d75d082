// The TypeScript declarations (src/js/posenc.d.ts, src/js/encoder.d.ts) and the
// CLI's help hold the same options as the specs that validate them at run time
// (each function's spec, read by src/js/core/options.js). The spec states each
// option once: its name, whether it is required, its default, its kind and
// its allowed strings. The declarations and the CLI must agree with it:
// - the same option names, no more and no fewer, and the same required ones
//   (tsc checks type-level assertions generated from the specs);
// - a primitive default in the spec is the `default X` in the declaration's
//   comment, and a `default X` there is the spec's (read from the text);
// - a number or boolean option is declared as one, and oneOf's strings are
//   exactly the declared string literals (tsc);
// - each CLI flag sets an option of the function its command calls, and its
//   help gives the spec's default and says 'required' when the spec does.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initSpec } from '../../src/js/core/load.js';
import { sinusoidalSpec, frequencySpec as sinusoidalFrequencySpec, addSpec } from '../../src/js/sinusoidal.js';
import { spec as sinusoidal2dSpec } from '../../src/js/sinusoidal2d.js';
import { spec as timestepSpec } from '../../src/js/timestep.js';
import { spec as relativeSpec } from '../../src/js/relative.js';
import { spec as mropeSpec } from '../../src/js/mrope.js';
import { spec as transformerXLSpec } from '../../src/js/transformer_xl.js';
import { frequenciesSpec, cacheSpec, applySpec, permuteSpec } from '../../src/js/rope.js';
import { SCALING } from '../../src/js/rope-scaling.js';
import { slopesSpec, biasSpec } from '../../src/js/alibi.js';
import { t5BucketsSpec, t5BiasSpec, debertaSpec } from '../../src/js/buckets.js';
import { configSpec } from '../../src/js/config/rope-config.js';
import { spec as queryScalesSpec } from '../../src/js/config/query-scales.js';
import { createSpec, modelSpec, POSITIONAL, QUERY_SCALES } from '../../src/js/encoder/options.js';
import { forwardSpec, generateSpec } from '../../src/js/encoder/encoder.js';
import { decoderSpec, feedSpec, generateSpec as decoderGenerateSpec } from '../../src/js/encoder/decoder.js';
import { softmaxSpec } from '../../src/js/encoder/softmax.js';
import { writeSpec } from '../../src/js/encoder/safetensors.js';
import { COMMANDS, optionOf } from '../../src/cli/commands.js';
import { main } from '../../src/cli/main.js';
import { declaredDocs, documentedDefault } from '../declarations.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// the declarations as shipped: written from src/js/*.d.ts and the parameter table
const TEXT = {
  posenc: readFileSync(join(ROOT, 'dist/posenc.d.ts'), 'utf8'),
  encoder: readFileSync(join(ROOT, 'dist/encoder.d.ts'), 'utf8'),
};

// Where each spec is declared: { entry, spec, type } with type a declared
// interface, { fn, param, overload } for a function's inline parameter type
// (overload: which of its signatures, 0 = the first), or { method: [interface,
// name], param } for a method's.
const DECLARED = {
  init: { entry: 'posenc', spec: initSpec, fn: 'init', param: 0 },
  'init (posenc/encoder)': { entry: 'encoder', spec: initSpec, fn: 'init', param: 0 },
  sinusoidal: { entry: 'posenc', spec: sinusoidalSpec, type: 'SinusoidalOptions' },
  sinusoidalFrequencies: { entry: 'posenc', spec: sinusoidalFrequencySpec, fn: 'sinusoidalFrequencies', param: 0 },
  addSinusoidal: { entry: 'posenc', spec: addSpec, type: 'AddSinusoidalOptions' },
  sinusoidal2d: { entry: 'posenc', spec: sinusoidal2dSpec, type: 'Sinusoidal2dOptions' },
  timestepEmbedding: { entry: 'posenc', spec: timestepSpec, type: 'TimestepEmbeddingOptions' },
  relativePositions: { entry: 'posenc', spec: relativeSpec, type: 'RelativePositionsOptions' },
  mropePositions: { entry: 'posenc', spec: mropeSpec, type: 'MropePositionsOptions' },
  transformerXLEmbedding: { entry: 'posenc', spec: transformerXLSpec, type: 'TransformerXLEmbeddingOptions' },
  ropeFrequencies: { entry: 'posenc', spec: frequenciesSpec, fn: 'ropeFrequencies', param: 0 },
  ropeCache: { entry: 'posenc', spec: cacheSpec, type: 'RopeCacheOptions' },
  applyRope: { entry: 'posenc', spec: applySpec, type: 'ApplyRopeOptions' },
  ropePermuteWeights: { entry: 'posenc', spec: permuteSpec, type: 'RopePermuteOptions' },
  ropeFromConfig: { entry: 'posenc', spec: configSpec, fn: 'ropeFromConfig', param: 1, overload: 1 },
  alibiSlopes: { entry: 'posenc', spec: slopesSpec, fn: 'alibiSlopes', param: 0 },
  alibiBias: { entry: 'posenc', spec: biasSpec, type: 'AlibiBiasOptions' },
  t5Buckets: { entry: 'posenc', spec: t5BucketsSpec, type: 'T5BucketsOptions' },
  t5Bias: { entry: 'posenc', spec: t5BiasSpec, type: 'T5BiasOptions' },
  debertaBuckets: { entry: 'posenc', spec: debertaSpec, type: 'DebertaBucketsOptions' },
  // length or positions: each member of the union requires one of them
  queryScalesFromConfig: { entry: 'posenc', spec: queryScalesSpec, fn: 'queryScalesFromConfig', param: 1, oneOfRequired: ['length', 'positions'] },
  // a file written by encoder.toSafetensors() brings the options that describe the model
  createEncoder: { entry: 'encoder', spec: createSpec, type: 'EncoderOptions', optionalInFile: ['vocabSize', 'dModel', 'heads', 'dFF', 'layers'] },
  encoderTensorShapes: { entry: 'encoder', spec: modelSpec, type: 'EncoderShapeOptions' },
  'forward, pool, logits, classify': { entry: 'encoder', spec: forwardSpec, type: 'ForwardOptions<Float32Array>' },
  'encoder.decoder': { entry: 'encoder', spec: decoderSpec, method: ['Encoder', 'decoder'], param: 0 },
  'encoder.generate': { entry: 'encoder', spec: generateSpec, method: ['Encoder', 'generate'], param: 1 },
  'encoder.stream': { entry: 'encoder', spec: generateSpec, method: ['Encoder', 'stream'], param: 1 },
  'decoder.feed': { entry: 'encoder', spec: feedSpec, method: ['Decoder', 'feed'], param: 1 },
  'decoder.generate': { entry: 'encoder', spec: decoderGenerateSpec, method: ['Decoder', 'generate'], param: 1 },
  'decoder.stream': { entry: 'encoder', spec: decoderGenerateSpec, method: ['Decoder', 'stream'], param: 1 },
  softmax: { entry: 'encoder', spec: softmaxSpec, fn: 'softmax', param: 1 },
  writeSafetensors: { entry: 'encoder', spec: writeSpec, fn: 'writeSafetensors', param: 1 },
};
// Tagged options { type, ... }: each member of the declared union is the spec of its type.
const TAGGED = {
  RopeScaling: { entry: 'posenc', specs: SCALING },
  Positional: { entry: 'encoder', specs: POSITIONAL },
  QueryScale: { entry: 'encoder', specs: QUERY_SCALES },
};

const isPrimitive = (v) => ['number', 'string', 'boolean'].includes(typeof v);
const isRequired = (p) => !('default' in p) && !p.optional;
const union = (names) => (names.length ? names.map((n) => JSON.stringify(n)).join(' | ') : 'never');

// ------------------------------------------------------------ structure, by tsc

/** The TypeScript type of a DECLARED entry, as written in the generated file. */
function typeExpression(d) {
  const ns = d.entry === 'posenc' ? 'P' : 'E';
  if (d.type) return `${ns}.${d.type}`;
  if (d.method) return `NonNullable<Parameter<Overload<${ns}.${d.method[0]}[${JSON.stringify(d.method[1])}], 0>, ${d.param}>>`;
  return `NonNullable<Parameter<Overload<typeof ${ns}.${d.fn}, ${d.overload ?? 0}>, ${d.param}>>`;
}

/** Type-level assertions for one spec: a list of [what it checks, TypeScript line]. */
function assertionsFor(name, spec, type, { oneOfRequired = [], optionalInFile = [], without = [] } = {}) {
  const keys = Object.keys(spec);
  const lines = [
    [`${name}: the declared option names are the spec's (${keys.join(', ')})`, `Expect<Equal<Exclude<AllKeys<${type}>, ${union(without)}>, ${union(keys)}>>`],
  ];
  if (oneOfRequired.length === 0) {
    const required = keys.filter((k) => isRequired(spec[k]) && !optionalInFile.includes(k));
    lines.push([`${name}: the required options are the spec's (${required.join(', ') || 'none'})`, `Expect<Equal<Exclude<RequiredKeys<${type}>, ${union(without)}>, ${union(required)}>>`]);
  }
  for (const [k, p] of Object.entries(spec)) {
    const declared = `NonNullable<Prop<${type}, ${JSON.stringify(k)}>>`;
    if (p.values) lines.push([`${name}.${k}: one of ${p.values.join(', ')}`, `Expect<Equal<${declared}, ${union(p.values)}>>`]);
    else if (p.kind === 'number') lines.push([`${name}.${k}: a number`, `Expect<Equal<${declared}, number>>`]);
    else if (p.kind === 'boolean') lines.push([`${name}.${k}: a boolean`, `Expect<Equal<${declared}, boolean>>`]);
    else if (p.kind === 'number or bigint') lines.push([`${name}.${k}: a number or a bigint`, `Expect<Equal<${declared}, number | bigint>>`]);
  }
  return lines;
}

const PRELUDE = `// Generated by tests/api/declarations.test.js from the option specs: every line holds.
import type * as P from '../../src/js/posenc.js';
import type * as E from '../../src/js/encoder.js';
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
type Expect<T extends true> = T;
type AllKeys<T> = T extends unknown ? keyof T : never;
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
type Prop<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;
type Overload<F, I extends number> = F extends { (...a: infer A0): unknown; (...a: infer A1): unknown }
  ? [A0, A1][I] extends never ? (F extends (...a: infer A) => unknown ? A : never) : [A0, A1][I]
  : F extends (...a: infer A) => unknown ? A : never;
type Parameter<A, I extends number> = A extends readonly unknown[] ? A[I] : never;
`;

/** A tagged union's member of one type: Extract<Union, { type: 'x' }>. */
const memberType = (entry, union_, tag) => `Extract<${entry === 'posenc' ? 'P' : 'E'}.${union_}, { type: ${JSON.stringify(tag)} }>`;

function allAssertions() {
  const lines = [];
  for (const [name, d] of Object.entries(DECLARED)) lines.push(...assertionsFor(name, d.spec, typeExpression(d), d));
  for (const [alias, t] of Object.entries(TAGGED)) {
    lines.push([`${alias}: its members' types are the spec's`, `Expect<Equal<${t.entry === 'posenc' ? 'P' : 'E'}.${alias}['type'], ${union(Object.keys(t.specs))}>>`]);
    for (const [tag, spec] of Object.entries(t.specs)) {
      lines.push(...assertionsFor(`${alias} '${tag}'`, spec, memberType(t.entry, alias, tag), { without: ['type'] }));
    }
  }
  return lines;
}

/** Compiles assertions with tsc; returns the ones that fail, with tsc's message. */
function failing(assertions) {
  const dir = join(ROOT, 'build', 'types-options');
  mkdirSync(dir, { recursive: true });
  const offset = PRELUDE.split('\n').length;
  const source = PRELUDE + assertions.map(([what, line], i) => `type Check${i} = ${line}; // ${what}`).join('\n') + '\n';
  writeFileSync(join(dir, 'check.ts'), source);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, noUnusedLocals: false, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['esnext', 'dom'], types: [] },
    files: ['check.ts'],
  }));
  let output = '';
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { encoding: 'utf8' });
  } catch (error) {
    output = error.stdout;
  }
  const problems = [];
  for (const line of output.split('\n').filter(Boolean)) {
    const at = /check\.ts\((\d+),\d+\): (.*)/.exec(line);
    if (!at) {
      if (/error TS/.test(line)) problems.push(line); // an error outside the checks (in a declaration file) fails too
      continue;
    }
    const i = Number(at[1]) - offset;
    problems.push(`${assertions[i]?.[0] ?? `line ${at[1]}`}: ${at[2]}`);
  }
  return problems;
}

test('tsc: every option spec has the declared names, required options and types', () => {
  expect(failing(allAssertions())).toEqual([]);
}, 120000);

test('tsc: the assertions can fail (a spec changed under its declaration)', () => {
  const changed = { ...sinusoidalSpec, extra: sinusoidalSpec.base, base: { ...sinusoidalSpec.base, default: undefined, optional: false } };
  delete changed.base.default;
  const problems = failing([
    ...assertionsFor('sinusoidal', changed, 'P.SinusoidalOptions'),
    ...assertionsFor('sinusoidal', { ...sinusoidalSpec, layout: { ...sinusoidalSpec.layout, values: ['interleaved'] } }, 'P.SinusoidalOptions')
      .filter(([what]) => what.startsWith('sinusoidal.layout')),
  ]).map((p) => p.replace(/: error TS.*/, ''));
  expect(problems).toEqual([
    'sinusoidal: the declared option names are the spec\'s (length, dModel, base, offset, layout, out, extra)',
    'sinusoidal: the required options are the spec\'s (length, dModel, base)',
    'sinusoidal.extra: a number',
    'sinusoidal.layout: one of interleaved',
  ]);
}, 120000);

// ------------------------------------------------------------ defaults, from the comments

/** What disagrees between a spec's defaults and the declared comments: name -> { doc }. */
function defaultProblems(name, spec, docs, sharedDoc = '') {
  const problems = [];
  for (const [k, p] of Object.entries(spec)) {
    const documented = documentedDefault(docs.get(k) ?? '') ?? documentedDefault(sharedDoc, k);
    if ('default' in p && isPrimitive(p.default) && documented !== p.default) {
      problems.push(`${name}.${k}: the spec's default is ${JSON.stringify(p.default)}, the declaration says ${documented === undefined ? 'none' : JSON.stringify(documented)}`);
    } else if (documented !== undefined && 'default' in p && documented !== p.default) {
      problems.push(`${name}.${k}: the declaration says default ${JSON.stringify(documented)}, the spec ${JSON.stringify(p.default)}`);
    }
  }
  return problems;
}

test.each(Object.entries(DECLARED))("%s: each default in the declaration's comments is the spec's", (name, d) => {
  const scope = d.type ? { type: d.type } : d.method ? { method: d.method, param: d.param } : { fn: d.fn, param: d.param, overload: d.overload ?? 0 };
  const docs = declaredDocs(TEXT[d.entry], scope, TEXT.posenc);
  expect(defaultProblems(name, d.spec, docs)).toEqual([]);
});

test.each(Object.entries(TAGGED))("each member of %s: each default in its comments is the spec's", (alias, t) => {
  const members = declaredDocs(TEXT[t.entry], { union: alias }, TEXT.posenc);
  expect([...members.keys()].sort()).toEqual(Object.keys(t.specs).sort());
  const problems = [];
  for (const [tag, { docs, doc }] of members) problems.push(...defaultProblems(`${alias} '${tag}'`, t.specs[tag], docs, doc));
  expect(problems).toEqual([]);
});

test('the default check can fail', () => {
  const docs = declaredDocs(TEXT.posenc, { type: 'SinusoidalOptions' }, TEXT.posenc);
  expect(docs.get('base')).toMatch(/default 10000/); // inherited from TableOptions
  expect(defaultProblems('sinusoidal', { ...sinusoidalSpec, base: { ...sinusoidalSpec.base, default: 20000 } }, docs)).toEqual([
    "sinusoidal.base: the spec's default is 20000, the declaration says 10000",
  ]);
});

// ------------------------------------------------------------ the CLI

/** `posenc <command> --help` as the CLI prints it: { flag: its help text }. */
async function renderedHelp(command) {
  let text = '';
  await main([command, '--help'], { stdout: { write: (t) => { text += t; return true; } }, stderr: process.stderr });
  return Object.fromEntries([...text.matchAll(/^ {2}--([\w-]+)(?: \| --no-[\w-]+)?\s+(.*)$/gm)].map((m) => [m[1], m[2]]));
}

/** The default a rendered help line gives ('...; default 10000)'); undefined when none. */
const cliDefault = (help) => documentedDefault(help.replace(/\(default/g, 'default'));

const SPEC_OF_FUNCTION = Object.fromEntries(Object.entries(DECLARED).map(([name, d]) => [name, d.spec]));

test.each(Object.entries(COMMANDS))("posenc %s: every flag sets an option of the function it calls, with the spec's default", async (command, c) => {
  const spec = SPEC_OF_FUNCTION[c.calls];
  const rendered = await renderedHelp(command);
  expect(spec).toBeDefined();
  const problems = [];
  for (const [flag, f] of Object.entries(c.flags)) {
    if (f.option === null) continue; // the CLI's own: --config and the flags that pick its layer
    const option = optionOf(flag, f);
    if (!Object.hasOwn(spec, option)) {
      problems.push(`--${flag} sets '${option}', not an option of ${c.calls}`);
      continue;
    }
    const p = spec[option];
    const help = rendered[flag];
    const documented = cliDefault(help);
    if ('default' in p && isPrimitive(p.default) ? documented !== p.default : documented !== undefined && 'default' in p) {
      problems.push(`--${flag}: the help says default ${JSON.stringify(documented)}, the spec ${JSON.stringify(p.default)}`);
    }
    // 'required unless --config': the config gives it, the function requires it all the same
    const required = /\brequired\b(?! unless)/.test(help); // "required unless --rope2d": the spec lets it out
    if (required !== isRequired(p)) problems.push(`--${flag}: the help says ${required ? '' : 'not '}required, the spec ${isRequired(p) ? 'requires it' : 'does not'}`);
    if (p.values) {
      const named = p.values.filter((v) => help.includes(`'${v}'`));
      if (named.length !== p.values.length) problems.push(`--${flag}: the help names ${named.join(', ')} of ${p.values.join(', ')}`);
    }
  }
  expect(problems).toEqual([]);
});
