// TypeScript consumers: in the scratch project, `tsc --noEmit` type-checks a
// file that uses every export, under moduleResolution node16 (ESM and
// CommonJS), bundler, and without the DOM lib; a file of wrong calls must fail
// on every line; the ESM file compiled by tsc runs. tsc is the repository's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, NOTEBOOK, ROOT, maxDiff, mustRun, run, workspace, writeFiles } from './scratch.js';
import { blocks, pages, read } from '../docs/markdown.js';

const TSC = join(BIN, 'tsc');
let dir;

// Every public function, used the way the docs show,
// with the result types a user would write down (exports added later are
// checked by name in the last test).
const USE_ALL = `import {
  init, isReady, simdSupported, wasmBuild, allocate, memoryStats, WasmArray,
  sinusoidal, sinusoidalFrequencies, addSinusoidal, LAYOUTS, relativePositions,
  ropeFrequencies, ropeFromConfig, ropeCache, applyRope, ropePermuteWeights, ROPE_TYPES, ROPE_LAYOUTS,
  alibiSlopes, alibiBias, t5Buckets, t5Bias, debertaBuckets, transformerXLEmbedding,
  sinusoidal2d, timestepEmbedding, mropePositions, ROPE_2D,
} from 'posenc';
import type { RopeScaling, SinusoidalLayout, WasmSource, RopeLayout, RopeType } from 'posenc';

const source: WasmSource | undefined = undefined;
await init(source === undefined ? {} : { wasm: source });
const ready: boolean = isReady();
const simd: boolean = simdSupported();
const which: 'simd' | 'baseline' | 'custom' | null = wasmBuild();

const pe: Float32Array = sinusoidal({ length: 10, dModel: 6 });
const layout: SinusoidalLayout = LAYOUTS[1] ?? 'interleaved';
const w: Float64Array = sinusoidalFrequencies({ dModel: 6, layout });
const x: Float32Array = addSinusoidal(new Float32Array(2 * 6), { dModel: 6, scale: Math.sqrt(6) });
const rel: Int32Array = relativePositions({ queryLength: 2, keyLength: 3, shift: 1 });

const heap: WasmArray<'float32'> = allocate('float32', 60);
const filled: WasmArray<'float32'> = sinusoidal({ length: 10, dModel: 6, out: heap });
const view: Float32Array = filled.array;
const stats: { allocatedBytes: number; liveArrays: number } = memoryStats();
heap.free();

const scaling: RopeScaling = { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 };
const type: RopeType = ROPE_TYPES[0] ?? 'default';
const pairs: RopeLayout = ROPE_LAYOUTS[0] ?? 'half';
const { invFreq, attentionFactor } = ropeFrequencies({ rotaryDim: 8, base: 500000, scaling });
const fromConfig = ropeFromConfig({ hidden_size: 64, num_attention_heads: 4, rope_theta: 10000 });
const { cos, sin }: { cos: Float32Array; sin: Float32Array } = ropeCache({ ...fromConfig, length: 4 });
const q: Float32Array = applyRope(new Float32Array(2 * 16), { heads: 1, headDim: 16, offset: 5, layout: pairs });
const perm: Float32Array = ropePermuteWeights(new Float32Array(16 * 3), { heads: 1, headDim: 16, from: 'interleaved', to: 'half' });

const slopes: Float64Array = alibiSlopes({ heads: 8, maxBias: 8 });
const shorthand: Float64Array = alibiSlopes(8, { maxBias: 8 });
const bias: Float32Array = alibiBias({ heads: 2, queryLength: 3, keyLength: 5, queryOffset: 2 });
const buckets: Int32Array = t5Buckets({ queryLength: 3, bidirectional: false });
const t5: Float32Array = t5Bias({ heads: 2, queryLength: 3, weights: new Float32Array(32 * 2) });
const deberta: Int32Array = debertaBuckets({ queryLength: 3, bucketSize: 256, maxPosition: 512 });
const xl: Float32Array = transformerXLEmbedding({ keyLength: 3, dModel: 4 });
const grid: Float32Array = sinusoidal2d({ height: 2, width: 3, dModel: 8, clsToken: true });
const qwen = ropeFromConfig({ model_type: 'qwen2_vl', hidden_size: 3584, num_attention_heads: 28, rope_theta: 1e6, rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] } });
const mpos: Int32Array = mropePositions({ spans: [{ text: 12 }, { image: { t: 1, h: 28, w: 42 } }, { text: 5 }] });
const mq: Float32Array = applyRope(new Float32Array((mpos.length / 3) * 128), { ...qwen, heads: 1, headDim: 128, positions: mpos });
const form = ROPE_2D[0] ?? 'pixtral';
const patches: { cos: Float32Array; sin: Float32Array } = ropeCache({ rotaryDim: 64, rope2d: form, grid: { height: 4, width: 6 } });
const steps: Float32Array = timestepEmbedding({ timesteps: Float32Array.from([0.5, 999]), dim: 9, flipSinToCos: true, downscaleFreqShift: 0 });

console.log(JSON.stringify({
  ready, simd: typeof simd, which: typeof which, pe: Array.from(pe), w: w.length, x: x.length, rel: Array.from(rel),
  view: view.length, stats: typeof stats.allocatedBytes, type, invFreq: invFreq.length, attentionFactor,
  cos: cos.length, sin: sin.length, q: q.length, perm: perm.length, slopes: slopes.length, shorthand: shorthand.length, bias: bias.length,
  buckets: buckets.length, t5: t5.length, deberta: deberta.length, xl: xl.length, grid: grid.length, steps: steps.length,
  mrope: mq.length, patches: patches.cos.length,
}));
`;

// The encoder's entry: its own init(), the encoder, .safetensors, and every positional function.
const USE_ENCODER = `import {
  init, createEncoder, encoderTensorShapes, readSafetensors, writeSafetensors, softmax,
  POSITIONAL_TYPES, CONFIG_METADATA_KEY, SAFETENSORS_DTYPES, ropeCache, allocate,
} from 'posenc/encoder';
import type { Decoder, Encoder, EncoderOptions, Positional, PositionalType, QueryScale, WasmArray } from 'posenc/encoder';

await init();
const positional: Positional = { type: 'rope', scaling: { type: 'linear', factor: 2 } };
const queryScale: QueryScale = { type: 'llama4', floorScale: 8192 };
const options: EncoderOptions = { vocabSize: 10, dModel: 8, heads: 2, dFF: 16, layers: 1, positional, lmHead: true, queryScale, weights: { seed: 1 } };
const enc: Encoder = createEncoder(options);
const logits: Float32Array = enc.logits([1, 2, 3], { causal: true });
const decoder: Decoder = enc.decoder({ maxLength: 8 });
const next: Float32Array = decoder.feed([1, 2, 3]);
const again: WasmArray<'float32'> = decoder.feed(4, { out: allocate('float32', 10) });
const cached: number = decoder.length;
decoder.dispose();
const generated: Int32Array = enc.generate([1, 2, 3], { maxNewTokens: 4 });
const out: WasmArray<'float32'> = enc.forward([1, 2, 3], { out: allocate('float32', 24) });
const shapes: Record<string, number[]> = encoderTensorShapes({ vocabSize: 10, dModel: 8, heads: 2, dFF: 16, layers: 1 });
const file: Uint8Array = enc.toSafetensors();
const read = readSafetensors(file);
const bytes: Uint8Array = writeSafetensors(read.tensors);
const probs: Float32Array = softmax(Float32Array.of(1, 2, 3));
const type: PositionalType = POSITIONAL_TYPES[2] ?? 'rope';
const cache: { cos: Float32Array; sin: Float32Array } = ropeCache({ rotaryDim: 4, length: 2 });
console.log(JSON.stringify({ logits: logits.length, out: out.length, shapes: Object.keys(shapes).length, bytes: bytes.length > 0,
  probs: probs.length, type, key: CONFIG_METADATA_KEY, dtypes: SAFETENSORS_DTYPES.length, cache: cache.cos.length,
  next: next.length + again.length, cached, generated: generated.length }));
`;

// CommonJS: import = require() resolves the "require" condition (posenc.d.cts).
const USE_CJS = `import posenc = require('posenc');
posenc.init().then(() => {
  const pe: Float32Array = posenc.sinusoidal({ length: 10, dModel: 6 });
  const cache: { cos: Float32Array; sin: Float32Array } = posenc.ropeCache({ rotaryDim: 8, length: 3 });
  console.log(pe.length, cache.cos.length);
});
import encoder = require('posenc/encoder');
encoder.init().then(() => {
  const enc: encoder.Encoder = encoder.createEncoder({ vocabSize: 4, dModel: 4, heads: 1, dFF: 4, layers: 1, weights: { seed: 1 } });
  const table: Float32Array = encoder.sinusoidal({ length: 2, dModel: 4 });
  console.log(enc.forward([1]).length, table.length);
});
`;

// Each line below holds one mistake tsc must report (line numbers are checked).
const WRONG = [
  "import { sinusoidal, applyRope, alibiBias, alibiSlopes, ropeCache, relativePositions, init, sinusoidal2d, timestepEmbedding } from 'posenc';",
  'sinusoidal({ length: 10, dmodel: 6 });',
  "sinusoidal({ length: '10', dModel: 6 });",
  'applyRope(new Float64Array(8), { heads: 1, headDim: 8 });',
  'alibiBias({ heads: 2 });',
  'const table: Int32Array = sinusoidal({ length: 1, dModel: 2 });',
  "ropeCache({ rotaryDim: 8, length: 4, scaling: { type: 'llama3', factor: 8 } });",
  "relativePositions({ queryLength: 3, out: new Float32Array(9) });",
  "sinusoidal({ length: 4, dModel: 4, layout: 'sideways' });",
  "init({ wasmUrl: '/posenc.wasm' });",
  'alibiSlopes({ heads: 8 }, { maxBias: 8 });',
  'sinusoidal2d({ height: 2, width: 2, dmodel: 8 });',
  'timestepEmbedding({ timesteps: new Int32Array(2), dim: 8 });',
  "ropeCache({ rotaryDim: 8, length: 4, rope2d: 'vit' });",
  '',
].join('\n');

const config = (compilerOptions, files) => `${JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, types: [], target: 'es2022', ...compilerOptions }, files }, null, 2)}\n`;

beforeAll(() => {
  dir = workspace('typescript');
  writeFiles(dir, {
    'esm.mts': USE_ALL,
    'encoder.mts': USE_ENCODER,
    'encoder-bundler.ts': USE_ENCODER,
    'cjs.cts': USE_CJS,
    'bundler.ts': USE_ALL,
    'wrong.mts': WRONG,
    // the strictest settings a library's users turn on
    'tsconfig.node16.json': config(
      { module: 'node16', moduleResolution: 'node16', lib: ['es2022', 'dom'], exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true },
      ['esm.mts', 'cjs.cts', 'encoder.mts'],
    ),
    'tsconfig.bundler.json': config({ module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom', 'dom.iterable'] }, ['bundler.ts', 'encoder-bundler.ts']),
    // a Node project without the DOM lib or @types/node: the declarations must not need either
    'tsconfig.nodom.json': config({ module: 'node16', moduleResolution: 'node16', lib: ['es2022'] }, ['cjs.cts']),
    'tsconfig.webworker.json': config({ module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'webworker'] }, ['bundler.ts']),
    'tsconfig.wrong.json': config({ module: 'node16', moduleResolution: 'node16', lib: ['es2022', 'dom'] }, ['wrong.mts']),
    'tsconfig.emit.json': config({ module: 'node16', moduleResolution: 'node16', lib: ['es2022', 'dom'], noEmit: false, outDir: 'out' }, ['esm.mts', 'encoder.mts']),
  });
});

const tsc = (project) => run(process.execPath, [TSC, '-p', project, '--pretty', 'false'], { cwd: dir });

test.each([
  ['moduleResolution node16 (ESM .mts and CommonJS .cts, exactOptionalPropertyTypes)', 'node16'],
  ['moduleResolution bundler', 'bundler'],
  ['moduleResolution bundler in a Web Worker (lib webworker, no DOM)', 'webworker'],
])('the API type-checks: %s', (_, name) => {
  const r = tsc(`tsconfig.${name}.json`);
  expect(r.stdout + r.stderr).toBe('');
  expect(r.status).toBe(0);
});

test('the declarations need neither the DOM lib nor @types/node (lib: es2022 only, skipLibCheck: false)', () => {
  // console is not in lib es2022: cjs.cts may fail only there, never inside posenc's declarations
  const r = tsc('tsconfig.nodom.json');
  const errors = (r.stdout + r.stderr).split('\n').filter(Boolean);
  expect(errors.filter((e) => !/^cjs\.cts\(\d+,\d+\): error TS2584: Cannot find name 'console'/.test(e))).toEqual([]);
});

test('a file of wrong calls fails to type-check, with an error on every wrong line', () => {
  const r = tsc('tsconfig.wrong.json');
  expect(r.status).not.toBe(0);
  const lines = new Set([...(r.stdout + r.stderr).matchAll(/^wrong\.mts\((\d+),\d+\): error/gm)].map((m) => Number(m[1])));
  const wrongLines = WRONG.split('\n').map((_, i) => i + 1).filter((n) => n > 1 && WRONG.split('\n')[n - 1]);
  expect([...lines].sort((a, b) => a - b)).toEqual(wrongLines);
  expect(r.stdout).toMatch(/'dmodel' does not exist/);
});

test('the ESM file compiled by tsc runs and computes the notebook table', () => {
  const r = tsc('tsconfig.emit.json');
  expect(r.stdout + r.stderr).toBe('');
  const out = JSON.parse(mustRun(process.execPath, [join('out', 'esm.mjs')], { cwd: dir }).stdout);
  expect(out.ready).toBe(true);
  expect(maxDiff(out.pe, NOTEBOOK.PE)).toBeLessThanOrEqual(0.5e-4);
  expect(out.rel).toEqual([1, 2, 3, 0, 1, 2]);
  expect([out.cos, out.sin, out.bias, out.xl, out.slopes, out.shorthand, out.grid, out.steps]).toEqual([4 * 8, 4 * 8, 2 * 3 * 5, 12, 8, 8, 7 * 8, 2 * 9]);
  expect([out.mrope, out.patches]).toEqual([(12 + 14 * 21 + 5) * 128, 24 * 32]);
  const enc = JSON.parse(mustRun(process.execPath, [join('out', 'encoder.mjs')], { cwd: dir }).stdout);
  expect(enc).toEqual({ logits: 30, out: 24, shapes: 17, bytes: true, probs: 3, type: 'rope', key: 'posenc.config', dtypes: 4, cache: 4, next: 20, cached: 4, generated: 4 });
});

test.each([['posenc', 'posenc'], ['posenc/encoder', 'encoder']])('%s: the declarations and the runtime export the same names; each runtime export type-checks by name', async (specifier, file) => {
  const dts = readFileSync(join(ROOT, 'dist', `${file}.d.ts`), 'utf8');
  const own = [...dts.matchAll(/^export (?:declare )?(?:function|const|class|let) (\w+)/gm)].map((m) => m[1]);
  if (/^export default /m.test(dts)) own.push('default');
  // the encoder's declarations take every name of posenc's (export * from './posenc.js')
  // (export * passes on every name but the default export)
  const inherited = file === 'encoder' ? Object.keys(await import('../../dist/posenc.mjs')).filter((k) => k !== 'default') : [];
  const runtime = Object.keys(await import(`../../dist/${file}.mjs`)).sort();
  expect([...new Set([...own, ...inherited])].sort()).toEqual(runtime);
  expect(readFileSync(join(ROOT, 'dist', `${file}.d.cts`), 'utf8')).toBe(dts.replaceAll("'./posenc.js'", "'./posenc.cjs'"));
  // importing a name the declarations lack is a compile error (TS2305)
  const named = runtime.filter((k) => k !== 'default');
  const defaultImport = runtime.includes('default') ? 'whole, ' : '';
  writeFiles(dir, {
    [`every-${file}.mts`]: `import ${defaultImport}{ ${named.join(', ')} } from '${specifier}';\nexport const all = [${defaultImport}${named.join(', ')}];\n`,
    [`tsconfig.every-${file}.json`]: config({ module: 'node16', moduleResolution: 'node16', lib: ['es2022'] }, [`every-${file}.mts`]),
  });
  const r = tsc(`tsconfig.every-${file}.json`);
  expect(r.stdout + r.stderr).toBe('');
});

// The docs' JavaScript, pasted into .ts files as a TypeScript user would paste
// it: every block that imports from posenc alone (the others need @types/node
// or tfjs, or are CommonJS) type-checks under strict settings. An options
// object kept in a variable must keep its literal types there (type:
// 'llama3' is not a string): the README's quick start is among them.
describe("the docs' examples type-check as pasted into a .ts file", () => {
  const imports = (code) => [...code.matchAll(/^\s*import\b[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]);
  const docs = pages().flatMap((page) => blocks(read(page)).map((b) => ({ page, ...b })))
    .filter((b) => ['js', 'javascript', 'mjs', 'ts'].includes(b.info[0]) && !/\brequire\(/.test(b.code))
    .filter((b) => imports(b.code).length > 0 && imports(b.code).every((i) => i === 'posenc' || i === 'posenc/encoder'));
  // a worker's code sees the webworker lib (its postMessage takes one argument), a page's the DOM
  const isWorker = (b) => /^\/\/ worker\.js/.test(b.code);
  const name = (b) => `docs-${b.page.replace(/\W/g, '-')}-${b.line}.mts`;

  test('there are blocks to check: the README\'s quick start among them', () => {
    expect(docs.length).toBeGreaterThanOrEqual(12);
    expect(docs.some((b) => b.page === 'README.md' && /scaling/.test(b.code))).toBe(true);
  });

  test.each([['page', false], ['worker', true]])('the %s blocks, strict, exactOptionalPropertyTypes', (kind, worker) => {
    const chosen = docs.filter((b) => isWorker(b) === worker);
    expect(chosen.length).toBeGreaterThan(0);
    writeFiles(dir, {
      ...Object.fromEntries(chosen.map((b) => [name(b), `${b.code}\nexport {};\n`])),
      [`tsconfig.docs-${kind}.json`]: config(
        { module: 'node16', moduleResolution: 'node16', lib: ['es2022', worker ? 'webworker' : 'dom'], exactOptionalPropertyTypes: true },
        chosen.map(name),
      ),
    });
    const r = tsc(`tsconfig.docs-${kind}.json`);
    expect(r.stdout + r.stderr).toBe('');
  });
});
