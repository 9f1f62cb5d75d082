// The command-line tool (bin/posenc.js): torch-style tables, CSV, JSON, raw
// little-endian bytes and NumPy .npy (read back by a small reader written
// here), help for every command, and errors with the library's own messages.
// Values are checked against tests/fixtures/reference.json and formulas.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS } from '../../src/cli/commands.js';
import { main } from '../../src/cli/main.js';
import { PACKAGE, ROOT, cleanEnv, maxDiff, readNpy, run } from './scratch.js';

const REF = JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'reference.json'), 'utf8'));
const ULP1 = 2 ** -23;
const CLI = join(ROOT, 'bin', 'posenc.js');
let tmp;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'posenc-cli-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the CLI: { status, stdout, stderr }. */
const posenc = (...args) => run(process.execPath, [CLI, ...args], { cwd: tmp });
/** Runs it with --out FILE.npy and reads the file back. */
function npy(...args) {
  const file = join(tmp, `out-${Math.random().toString(36).slice(2)}.npy`);
  const r = posenc(...args, '--out', file);
  if (r.status !== 0) throw new Error(r.stderr);
  expect(r.stdout).toBe('');
  return { ...readNpy(new Uint8Array(readFileSync(file))), bytes: readFileSync(file) };
}

const vaswani = (p, k, d) => {
  const w = 10000 ** (-(k - (k % 2)) / d);
  return k % 2 ? Math.cos(p * w) : Math.sin(p * w);
};
const flat = (nested) => nested.flat(Infinity).map((v) => (v === '-Infinity' ? -Infinity : v));

describe('help', () => {
  test('posenc --help lists every command; --version is the package version', () => {
    const r = posenc('--help');
    expect(r.status).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(r.stdout).toContain(`  ${name} `);
    expect(r.stdout).toContain('posenc sinusoidal --length 10 --d-model 6');
    expect(posenc('--version').stdout.trim()).toBe(PACKAGE.version);
  });

  test('posenc with no command prints the usage on stderr and exits 2', () => {
    const r = posenc();
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^posenc \d+\.\d+\.\d+: /);
  });

  test.each(Object.keys(COMMANDS))('posenc %s --help names its API function and every flag', (name) => {
    const r = posenc(name, '--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`usage: posenc ${name} [flags]`);
    expect(r.stdout).toContain(`calls ${COMMANDS[name].calls}()`);
    for (const flag of [...Object.keys(COMMANDS[name].flags), 'format', 'out', 'help']) expect(r.stdout).toContain(`--${flag}`);
  });

  test('posenc help <command> and <command> -h say the same', () => {
    const help = posenc('alibi', '--help').stdout;
    expect(posenc('help', 'alibi').stdout).toBe(help);
    expect(posenc('alibi', '-h').stdout).toBe(help);
  });
});

describe('tables (torch repr, 4 decimals)', () => {
  test('int32 results carry dtype=torch.int32, as torch prints them', () => {
    const r = posenc('relative', '--query-length', '3', '--key-length', '4');
    expect(r.stdout).toBe('tensor([[ 0,  1,  2,  3],\n        [-1,  0,  1,  2],\n        [-2, -1,  0,  1]], dtype=torch.int32)\n');
  });

  test('float64 results carry dtype=torch.float64; -inf prints as torch does', () => {
    expect(posenc('alibi-slopes', '--heads', '3').stdout).toBe('tensor([0.0625, 0.0039, 0.2500], dtype=torch.float64)\n');
    expect(posenc('alibi', '--heads', '1', '--query-length', '2').stdout).toBe(
      'tensor([[[ 0.0000,    -inf],\n         [-0.0039,  0.0000]]])\n',
    );
  });

  test('more than 1000 elements are summarized with 3 edge rows, as torch does', () => {
    const lines = posenc('sinusoidal', '--length', '2000', '--d-model', '4').stdout.split('\n');
    expect(lines).toHaveLength(8); // 3 rows, '...,', 3 rows, and the final newline
    expect(lines[0]).toBe('tensor([[ 0.0000,  1.0000,  0.0000,  1.0000],');
    expect(lines[3]).toBe('        ...,');
    expect(lines[6]).toMatch(/^ {8}\[[- ]\d\.\d{4}, [- ]\d\.\d{4}, [- ]\d\.\d{4}, [- ]\d\.\d{4}\]\]\)$/);
  });

  test('Python rounding: ties go to even (0.03125 prints 0.0312), tiny negatives print -0.0000', async () => {
    const { pyFixed } = await import('../../src/cli/torch.js');
    expect([pyFixed(0.03125), pyFixed(0.03135), pyFixed(-1e-9), pyFixed(-0), pyFixed(2.5, 0)]).toEqual(['0.0312', '0.0314', '-0.0000', '-0.0000', '2']);
  });
});

describe('.npy files', () => {
  test('sinusoidal: header version 1.0, <f4, shape, 64-byte aligned data; values to 2^-23', () => {
    const a = npy('sinusoidal', '--length', '50', '--d-model', '8', '--offset', '1000');
    expect(a.version).toEqual([1, 0]);
    expect(a.dataOffset % 64).toBe(0);
    expect([a.descr, a.fortranOrder, a.shape, a.trailing]).toEqual(['<f4', false, [50, 8], 0]);
    expect(maxDiff(a.data, Array.from({ length: 400 }, (_, i) => vaswani(1000 + Math.floor(i / 8), i % 8, 8)))).toBeLessThanOrEqual(ULP1);
  });

  test('relative: <i4, exact; alibi-slopes: <f8, 1-D shape written (3,)', () => {
    const r = npy('relative', '--query-length', '3', '--key-length', '5', '--shift', '10');
    expect([r.descr, r.shape]).toEqual(['<i4', [3, 5]]);
    expect(Array.from(r.data)).toEqual(Array.from({ length: 15 }, (_, i) => (i % 5) - Math.floor(i / 5) + 10));
    const s = npy('alibi-slopes', '--heads', '3');
    expect(s.bytes.toString('latin1', 10, 10 + s.headerLength)).toContain("'shape': (3,)");
    expect([s.descr, Array.from(s.data)]).toEqual(['<f8', REF.alibiSlopes.find((c) => c.heads === 3 && c.maxBias === 8).slopes]);
  });

  test.each(REF.alibiBias.map((c) => [c.causal ? 'causal' : 'non-causal', c]))('alibi (%s) matches the reference, -inf included', (_, c) => {
    const a = npy('alibi', '--heads', String(c.heads), '--query-length', String(c.queryLength), '--key-length', String(c.keyLength),
      '--query-offset', String(c.queryOffset), '--max-bias', String(c.maxBias), `--causal=${c.causal}`);
    expect(a.shape).toEqual([c.heads, c.queryLength, c.keyLength]);
    expect(maxDiff(a.data, flat(c.bias))).toBeLessThanOrEqual(ULP1);
  });

  test('t5-buckets (decoder, with a query offset) and deberta-buckets match the reference tables exactly', () => {
    const t5 = REF.t5Buckets.find((c) => !c.bidirectional && c.numBuckets === 32 && c.maxDistance === 128);
    const b = npy('t5-buckets', '--query-length', '4', '--key-length', '300', '--query-offset', '100', '--no-bidirectional');
    expect(Array.from(b.data)).toEqual(Array.from({ length: 1200 }, (_, i) => t5.table[(i % 300) - (100 + Math.floor(i / 300)) - t5.relativePositionStart]));
    const de = REF.debertaBuckets.configs.find((c) => c.bucketSize === 256 && c.maxPosition === 512);
    const d = npy('deberta-buckets', '--query-length', '700', '--key-length', '3');
    expect(Array.from(d.data)).toEqual(Array.from({ length: 2100 }, (_, i) => de.table[Math.floor(i / 3) - (i % 3) - de.relativePositionStart]));
  });

  test('transformer-xl matches the reference (clamped)', () => {
    const c = REF.transformerXLEmbedding.find((x) => x.clampLength > 0);
    const a = npy('transformer-xl', '--key-length', String(c.keyLength), '--d-model', String(c.dModel), '--clamp-length', String(c.clampLength));
    expect(a.shape).toEqual([c.keyLength, c.dModel]);
    expect(maxDiff(a.data, flat(c.embedding))).toBeLessThanOrEqual(ULP1);
  });

  test.each(REF.sinusoidal2d.map((c) => [`${c.source} ${c.height}x${c.width}`, c]))('sinusoidal-2d (%s) matches the reference', (_, c) => {
    const args = ['sinusoidal-2d', '--height', String(c.height), '--width', String(c.width), '--d-model', String(c.dModel)];
    if (c.base !== undefined) args.push('--base', String(c.base));
    if (c.clsToken) args.push('--cls-token');
    if (c.baseSize !== undefined) args.push('--base-size', String(c.baseSize));
    if (c.interpolationScale !== undefined) args.push('--interpolation-scale', String(c.interpolationScale));
    const a = npy(...args);
    expect([a.descr, a.shape]).toEqual(['<f4', [c.table.length, c.dModel]]);
    expect(maxDiff(a.data, c.table.flat())).toBeLessThanOrEqual(ULP1);
  });

  test.each(REF.timestepEmbedding.map((c) => [c.name, c]))('timestep (%s) matches the reference, fractional timesteps as a comma list', (_, c) => {
    const args = ['timestep', '--timesteps', c.timesteps.join(','), '--dim', String(c.dim)];
    if (c.flipSinToCos) args.push('--flip-sin-to-cos');
    for (const [key, flag] of [['downscaleFreqShift', '--downscale-freq-shift'], ['scale', '--scale'], ['maxPeriod', '--max-period']]) {
      if (c[key] !== undefined) args.push(flag, String(c[key]));
    }
    const a = npy(...args);
    expect(a.shape).toEqual([c.timesteps.length, c.dim]);
    expect(maxDiff(a.data, c.embedding.flat())).toBeLessThanOrEqual(ULP1);
  });

  test.each(REF.mropePositions.map((c) => [c.name, c]))('mrope-positions (%s) matches HF get_rope_index: <i4 [3][seq]', (_, c) => {
    const args = ['mrope-positions', '--spans', JSON.stringify(c.spans)];
    if (c.spatialMergeSize !== undefined) args.push('--spatial-merge-size', String(c.spatialMergeSize));
    if (c.tokensPerSecond !== undefined) args.push('--tokens-per-second', String(c.tokensPerSecond));
    const a = npy(...args);
    expect([a.descr, a.shape]).toEqual(['<i4', [3, c.seq]]);
    expect(Array.from(a.data)).toEqual(c.positions.flat());
  });

  test('rope-cache --rope2d pixtral --grid: [2][patches][headDim / 2], cos then sin', () => {
    const c = REF.pixtralRope[0];
    const a = npy('rope-cache', '--rotary-dim', String(c.headDim), '--base', String(c.base), '--rope2d', 'pixtral',
      '--grid', JSON.stringify({ height: c.height, width: c.width }));
    expect(a.shape).toEqual([2, c.height * c.width, c.headDim / 2]);
    expect(maxDiff(a.data, [...c.cos.flat(), ...c.sin.flat()])).toBeLessThanOrEqual(ULP1);
  });

  test('rope-cache from a Hugging Face config.json (Llama 3.1 scaling): [2][length][rotaryDim/2], cos then sin', () => {
    const c = REF.ropeCache.find((x) => x.name.startsWith('llama3'));
    const config = {
      hidden_size: 4096, num_attention_heads: 32, rope_theta: c.params.base, max_position_embeddings: c.params.maxPositionEmbeddings,
      rope_scaling: { rope_type: 'llama3', factor: c.params.factor, low_freq_factor: c.params.lowFreqFactor, high_freq_factor: c.params.highFreqFactor, original_max_position_embeddings: c.params.originalMaxPositionEmbeddings },
    };
    writeFileSync(join(tmp, 'config.json'), JSON.stringify(config));
    const a = npy('rope-cache', '--config', 'config.json', '--length', String(c.length));
    expect(a.shape).toEqual([2, c.length, c.params.rotaryDim / 2]);
    expect(maxDiff(a.data, [...c.cos.flat(), ...c.sin.flat()])).toBeLessThanOrEqual(ULP1);
  });

  test('rope-cache with --scaling JSON (YaRN, attention factor folded in)', () => {
    const c = REF.ropeCache.find((x) => x.name.startsWith('yarn'));
    const { rotaryDim, base, ...scaling } = c.params;
    const a = npy('rope-cache', '--rotary-dim', String(rotaryDim), '--base', String(base), '--length', String(c.length),
      '--scaling', JSON.stringify({ type: 'yarn', ...scaling }));
    expect(maxDiff(a.data, [...c.cos.flat(), ...c.sin.flat()])).toBeLessThanOrEqual(ULP1 * c.attentionFactor);
  });
});

describe('CSV, JSON and raw bytes', () => {
  test('raw: the .npy data bytes without the header (little-endian float32, int32), to stdout or a file', () => {
    for (const args of [['sinusoidal', '--length', '7', '--d-model', '5'], ['t5-buckets', '--query-length', '6']]) {
      const data = npy(...args);
      const body = data.bytes.subarray(data.dataOffset);
      const piped = spawnSync(process.execPath, [CLI, ...args, '--format', 'raw'], { cwd: tmp, env: cleanEnv() });
      expect(piped.status).toBe(0);
      expect(piped.stdout.equals(body)).toBe(true);
      expect(posenc(...args, '--out', 'x.bin').status).toBe(0); // .bin means raw
      expect(readFileSync(join(tmp, 'x.bin')).equals(body)).toBe(true);
    }
  });

  test('CSV: one row per line, shortest float32 round-trip decimals, -inf for the causal mask', () => {
    const lines = posenc('sinusoidal', '--length', '3', '--d-model', '4', '--format', 'csv').stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const values = lines.flatMap((l) => l.split(',').map(Number));
    expect(maxDiff(values, Array.from({ length: 12 }, (_, i) => vaswani(Math.floor(i / 4), i % 4, 4)))).toBeLessThanOrEqual(ULP1);
    expect(lines[1].split(',')[0]).toBe('0.84147096'); // float32(sin 1), shortest
    expect(posenc('alibi', '--heads', '1', '--query-length', '2', '--out', 'a.csv').status).toBe(0);
    expect(readFileSync(join(tmp, 'a.csv'), 'utf8')).toBe('0,-inf\n-0.00390625,0\n');
  });

  test('JSON: { shape, dtype, data } nested by shape; infinities as strings Number() reads', () => {
    const j = JSON.parse(posenc('alibi', '--heads', '2', '--query-length', '2', '--format', 'json').stdout);
    expect([j.shape, j.dtype]).toEqual([[2, 2, 2], 'float32']);
    expect(j.data).toEqual([[[0, '-Infinity'], [-0.0625, 0]], [[0, '-Infinity'], [-0.00390625, 0]]]);
    expect(Number(j.data[0][0][1])).toBe(-Infinity);
  });
});

describe('errors: exit 2, nothing on stdout, the library message', () => {
  test.each([
    [['sinusoidal', '--length', '10', '--d-model', '0'], 'posenc.sinusoidal: dModel must be an integer from 1 to 2147483647, got 0\n(dModel is --d-model)'],
    [['sinusoidal', '--length', 'ten', '--d-model', '6'], 'posenc.sinusoidal: length must be an integer from 0 to 2147483647, got "ten"'],
    [['sinusoidal', '--d-model', '6'], 'posenc.sinusoidal: length is required'],
    [['transformer-xl', '--key-length', '3', '--d-model', '5'], 'posenc.transformerXLEmbedding: dModel must be even'],
    [['rope-cache', '--length', '4', '--rotary-dim', '8', '--scaling', '{"type":"llama3","factor":8,"lowFreqFactor":2,"highFreqFactor":2,"originalMaxPositionEmbeddings":8192}'],
      'posenc.ropeCache: scaling.highFreqFactor must be greater than scaling.lowFreqFactor = 2'],
    [['sinusoidal-2d', '--height', '2', '--width', '2', '--d-model', '6'], 'got 6\n(dModel is --d-model)'],
    [['timestep', '--timesteps', '1,two,3', '--dim', '8'], 'posenc.timestepEmbedding: timesteps[1] must be a finite number, got "two"\n(timesteps is --timesteps)'],
    [['timestep', '--timesteps', '1', '--dim', '8', '--downscale-freq-shift', '4'], 'posenc.timestepEmbedding: downscaleFreqShift must differ from floor(dim / 2) = 4'],
    [['mrope-positions', '--spans', '[{"text":2},{"image":[1,3,4]}]'], 'posenc.mropePositions: spans[1].image.h must be a multiple of spatialMergeSize = 2'],
    [['alibi', '--heads', '2', '--query-length', '3', '--causal=maybe'], 'posenc.alibiBias: causal must be true or false, got "maybe"'],
    [['sinusoidal', '--length', '10', '--dmodel', '6'], "unknown flag --dmodel for 'sinusoidal' (did you mean --d-model?)"],
    [['sinusoidal', '--length'], '--length needs a value'],
    [['sinusoidal', '--length', '3', '--length', '4'], '--length is given twice'],
    [['sinusoidal', '--length', '3', '--d-model', '2', '--format', 'xml'], '--format must be one of table, csv, json, raw, npy'],
    [['sinusoidal', '10', '6'], "unexpected argument '10'"],
    [['rope-cache', '--length', '3', '--rotary-dim', '4', '--scaling', '{linear}'], '--scaling must be JSON'],
    [['sinusoidl'], "posenc: unknown command 'sinusoidl'"],
  ])('posenc %j', (args, message) => {
    const r = posenc(...args);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
  });

  test('an unwritable --out exits 1 and says why', () => {
    const r = posenc('sinusoidal', '--length', '2', '--d-model', '2', '--out', join(tmp, 'missing', 'dir', 'x.npy'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot write .*ENOENT/);
  });

  test('binary formats are refused on a terminal (use --out or a pipe)', async () => {
    const written = [];
    const stream = (isTTY) => ({ isTTY, write: (text, done) => (written.push(String(text)), done?.(), true) });
    expect(await main(['relative', '--query-length', '2', '--format', 'npy'], { stdout: stream(true), stderr: stream(false) })).toBe(2);
    expect(written.join('')).toMatch(/refusing to write npy bytes to a terminal/);
  });
});
