// Native and wasm builds give bit-identical results: the same calls run in the
// native library (tests/fmath/tables.c, built with the host's cc) and in both
// wasm builds, and every byte written must agree. Possible because exp, log,
// pow, sin and cos are posenc's own C (src/fmath.c), not two different libms:
// the calls cover each of their paths (small and huge angles, the float32
// recipe, every RoPE scaling, slopes down to subnormals, log buckets).
import { rope as ROPE } from '../../build/abi.js';
import { writeStruct } from '../../src/js/core/struct.js';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function load(file) {
  const bytes = readFileSync(new URL(`../../dist/${file}`, import.meta.url));
  const { instance } = await WebAssembly.instantiate(bytes, { env: { emscripten_notify_memory_growth() {} } });
  instance.exports._initialize();
  return instance.exports;
}

const P = 2 ** 31 - 1; // POSENC_POSITION_MAX
const ropeFreqs = (half, base) => Array.from({ length: half }, (_, k) => base ** ((-2 * k) / (2 * half)));
const HUGE_FREQS = [2 ** 64, 1e19, 2 ** 63, 3.3e15, 12345.678, 3.14159, 0.7, 1e-5, 5e-10, 2 ** -40];

// One call per line (the grammar is in tests/fmath/tables.c).
const CALLS = [
  ...[0, 1, 2, 3].flatMap((layout) => [
    `sinusoidal 40 130 0 0 ${layout}`,
    `sinusoidal 24 64 0 ${P - 23} ${layout}`,
    `sinusoidal 3 96 1000000 ${P - 2} ${layout}`,
    `sinusoidal 1100 6 0 -1000 ${layout}`,
    `sinusoidal_frequencies 1030 0 ${layout}`,
    `sinusoidal_frequencies 64 2.5 ${layout}`,
    `sinusoidal_frequencies 64 1e300 ${layout}`,
    `sinusoidal_frequencies 64 1.0000001 ${layout}`,
  ]),
  // r base seq_len type factor original max attention beta_fast beta_slow mscale mscale_all low high
  'rope_frequencies 128 0 0 0 0 0 0 0 0 0 0 0 0 0',
  'rope_frequencies 96 500000 0 0 0 0 0 0 0 0 0 0 0 0',
  'rope_frequencies 64 1e9 0 1 8 0 0 0 0 0 0 0 0 0',
  'rope_frequencies 128 10000 9000 2 2.5 0 4096 0 0 0 0 0 0 0',
  'rope_frequencies 130 10000 0 2 1.7 0 2048 0 0 0 0 0 0 0',
  'rope_frequencies 128 10000 0 3 4 4096 16384 0 0 0 0 0 0 0',
  'rope_frequencies 64 1000000 0 3 40 4096 0 0 32 1 1 0.707 0 0',
  'rope_frequencies 128 500000 0 4 8 8192 0 0 0 0 0 0 1 4',
  'rope_frequencies 96 10000 0 5 0 4096 131072 0 0 0 0 0 0 0',
  'rope_frequencies 96 10000 200000 5 0 4096 131072 0 0 0 0 0 0 0',
  ...[0, 1].flatMap((precision) => [
    `rope_cache 40 0 ${precision} 1 ${ropeFreqs(32, 10000).join(' ')}`,
    `rope_cache 40 ${P - 39} ${precision} 1.25 ${ropeFreqs(32, 500000).join(' ')}`,
    `rope_cache 30 0 ${precision} 1 ${HUGE_FREQS.join(' ')}`,
    `rope_cache 30 ${P - 29} ${precision} 0.75 ${HUGE_FREQS.join(' ')}`,
    `rope_cache 30 -1000000007 ${precision} 1 ${HUGE_FREQS.map((f) => -f).join(' ')}`,
  ]),
  ...[1, 2, 3, 5, 8, 12, 31, 64, 80].flatMap((heads) =>
    [8, 0.37, 16, 1000, 3e5].map((maxBias) => `alibi_slopes ${heads} ${maxBias}`),
  ),
  'transformer_xl 50 64 0',
  'transformer_xl 300 32 100',
  'transformer_xl 1100 10 0',
  't5_buckets 40 60 1 32 128 0',
  't5_buckets 30 50 0 32 128 1000000',
  `t5_buckets 20 20 1 100 ${P} ${P - 19}`,
  'deberta_buckets 40 60 256 512',
  'deberta_buckets 30 70 16 64',
];

let nativeLines;
let builds;
beforeAll(async () => {
  execFileSync('make', ['-s', 'build/native/tables'], { cwd: ROOT, stdio: 'pipe' });
  nativeLines = execFileSync(`${ROOT}/build/native/tables`, { input: CALLS.join('\n') + '\n', maxBuffer: 256 << 20 })
    .toString()
    .trim()
    .split('\n');
  builds = { simd: await load('posenc.wasm'), baseline: await load('posenc-baseline.wasm') };
}, 120000);

// Runs one call in a wasm build: returns the line tables.c prints for it.
function wasmLine(e, line) {
  const [name, ...rest] = line.split(' ');
  const a = rest.map(Number);
  const blocks = [];
  const alloc = (bytes) => {
    const ptr = e.malloc(Math.max(bytes, 8)) >>> 0;
    new Uint8Array(e.memory.buffer, ptr, bytes).fill(0);
    blocks.push(ptr);
    return ptr;
  };
  const doubles = (values) => {
    const ptr = alloc(values.length * 8);
    new Float64Array(e.memory.buffer, ptr, values.length).set(values);
    return ptr;
  };
  let status;
  let out;
  let bytes;
  if (name === 'sinusoidal') {
    bytes = a[0] * a[1] * 4;
    out = alloc(bytes);
    status = e.posenc_sinusoidal(out, a[0] * a[1], a[0], a[1], a[2], a[3], a[4]);
  } else if (name === 'sinusoidal_frequencies') {
    bytes = a[0] * 8;
    out = alloc(bytes);
    status = e.posenc_sinusoidal_frequencies(out, a[0], a[0], a[1], a[2]);
  } else if (name === 'rope_frequencies') {
    const half = a[0] / 2;
    bytes = (half + 1) * 8;
    out = alloc(bytes);
    const shortF = doubles(Array.from({ length: half }, (_, k) => 1 + k / a[0]));
    const longF = doubles(Array.from({ length: half }, (_, k) => 1 + (4 * k) / a[0]));
    const r = alloc(ROPE.bytes);
    const [factor, original, max, attention, betaFast, betaSlow, mscale, mscaleAll, low, high] = a.slice(4, 14);
    writeStruct(e.memory, r, ROPE, {
      rotary_dim: a[0], base: a[1], seq_len: a[2],
      scaling: {
        type: a[3], factor, original_max_position_embeddings: original, max_position_embeddings: max, attention_factor: attention,
        beta_fast: betaFast, beta_slow: betaSlow, mscale, mscale_all_dim: mscaleAll, low_freq_factor: low, high_freq_factor: high,
        short_factor: shortF, long_factor: longF, factors_len: half,
      },
    });
    status = e.posenc_rope_frequencies(out, half, r, 0, out + half * 8);
  } else if (name === 'rope_cache') {
    const half = a.length - 4;
    const len = a[0] * half;
    bytes = 2 * len * 4;
    out = alloc(bytes);
    const r = alloc(ROPE.bytes);
    writeStruct(e.memory, r, ROPE, { rotary_dim: 2 * half, inv_freq: doubles(a.slice(4)), attention_factor: a[3], precision: a[2] });
    status = e.posenc_rope_cache(out, out + len * 4, len, a[0], a[1], 0, r);
  } else if (name === 'alibi_slopes') {
    bytes = a[0] * 8;
    out = alloc(bytes);
    status = e.posenc_alibi_slopes(out, a[0], a[0], a[1]);
  } else if (name === 'transformer_xl') {
    bytes = a[0] * a[1] * 4;
    out = alloc(bytes);
    status = e.posenc_transformer_xl_embedding(out, a[0] * a[1], a[0], a[1], a[2]);
  } else if (name === 't5_buckets') {
    bytes = a[0] * a[1] * 4;
    out = alloc(bytes);
    status = e.posenc_t5_buckets(out, a[0] * a[1], a[0], a[1], a[2], a[3], a[4], a[5]);
  } else if (name === 'deberta_buckets') {
    bytes = a[0] * a[1] * 4;
    out = alloc(bytes);
    status = e.posenc_deberta_buckets(out, a[0] * a[1], a[0], a[1], a[2], a[3]);
  } else {
    throw new Error(`unknown call ${name}`);
  }
  const hex = Buffer.from(new Uint8Array(e.memory.buffer, out, bytes)).toString('hex');
  for (const ptr of blocks) e.free(ptr);
  return `${status} ${hex}`;
}

test('every call succeeds natively (status 0)', () => {
  expect(nativeLines).toHaveLength(CALLS.length);
  const failed = CALLS.filter((_, i) => !nativeLines[i].startsWith('0 '));
  expect(failed).toEqual([]);
});

test.each(['simd', 'baseline'])('the %s wasm writes the same bytes as the native library, call by call', (build) => {
  const differing = CALLS.filter((line, i) => wasmLine(builds[build], line) !== nativeLines[i]);
  expect(differing).toEqual([]);
});
