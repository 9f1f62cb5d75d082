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
    [['sinusoidal', '--length', '10', '--d-model', '0'], "posenc.sinusoidal: dModel must be an integer from 1 to 2147483647, got 0 (dModel is --d-model; see 'posenc sinusoidal --help')"],
    [['sinusoidal', '--length', 'ten', '--d-model', '6'], 'posenc.sinusoidal: length must be an integer from 0 to 2147483647, got "ten"'],
    [['sinusoidal', '--d-model', '6'], 'posenc.sinusoidal: length is required'],
    [['transformer-xl', '--key-length', '3', '--d-model', '5'], 'posenc.transformerXLEmbedding: dModel must be an even integer from 2 to 2147483646'],
    [['rope-cache', '--length', '4', '--rotary-dim', '8', '--scaling', '{"type":"llama3","factor":8,"lowFreqFactor":2,"highFreqFactor":1,"originalMaxPositionEmbeddings":8192}'],
      'posenc.ropeCache: scaling.highFreqFactor must be a finite number >= scaling.lowFreqFactor = 2'],
    [['sinusoidal-2d', '--height', '2', '--width', '2', '--d-model', '6'], "got 6 (dModel is --d-model; see 'posenc sinusoidal-2d --help')"],
    [['timestep', '--timesteps', '1,two,3', '--dim', '8'], `posenc.timestepEmbedding: timesteps[1] must be a finite number, got "two" (timesteps is --timesteps; see 'posenc timestep --help')`],
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
    // own flags only: names that Object.prototype holds are no flags, formats, booleans or commands
    [['sinusoidal', '--length', '2', '--d-model', '2', '--constructor', '5'], "unknown flag --constructor for 'sinusoidal'"],
    [['sinusoidal', '--length', '2', '--d-model', '2', '--__proto__', '5'], "unknown flag --__proto__ for 'sinusoidal'"],
    [['sinusoidal', '--length', '2', '--d-model', '2', '--to-string=1'], "unknown flag --to-string for 'sinusoidal'"],
    [['sinusoidal', '--length', '2', '--d-model', '2', '--no-constructor'], "unknown flag --no-constructor for 'sinusoidal'"],
    [['sinusoidal', '--length', '2', '--d-model', '2', '--format', 'constructor'], "--format must be one of table, csv, json, raw, npy, got 'constructor'"],
    [['alibi', '--heads', '2', '--query-length', '2', '--causal=constructor'], 'posenc.alibiBias: causal must be true or false, got "constructor"'],
    [['help', 'constructor'], "posenc: unknown command 'constructor'"],
    [['toString'], "posenc: unknown command 'toString'"],
  ])('posenc %j', (args, message) => {
    const r = posenc(...args);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr.split('\n')).toEqual([expect.any(String), '']); // one line
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

describe('failures: one line on stderr, a documented exit status, never a stack trace', () => {
  test('posenc --help documents the exit statuses 0, 1 and 2', () => {
    const help = posenc('--help').stdout;
    expect(help).toMatch(/exit status:\n {2}0 {2}written \(also when the reader closes the pipe early/);
    expect(help).toMatch(/\n {2}1 {2}a file could not be read or written, or memory ran out\n/);
    expect(help).toMatch(/\n {2}2 {2}bad command line/);
  });

  test.each([
    ['a missing --config', ['rope-cache', '--length', '2', '--config', 'missing.json'], 1, /^posenc rope-cache: ENOENT: no such file or directory, open 'missing.json'$/],
    ['a folder as --config', ['rope-cache', '--length', '2', '--config', '.'], 1, /^posenc rope-cache: EISDIR: illegal operation on a directory, read$/],
    ['an endless --config (/dev/zero): refused after a bounded read', ['rope-cache', '--length', '2', '--config', '/dev/zero'], 2,
      /^posenc rope-cache: --config \/dev\/zero is larger than 8388608 bytes: not a config.json \(see 'posenc rope-cache --help'\)$/],
    ['a full disk (/dev/full)', ['sinusoidal', '--length', '4', '--d-model', '4', '--out', '/dev/full'], 1, /^posenc sinusoidal: cannot write \/dev\/full: ENOSPC: no space left on device, write$/],
    ['a config that is not JSON', ['rope-cache', '--length', '2', '--config', CLI], 2, /^posenc rope-cache: --config .* is not valid JSON: /],
    ['no command', [], 2, /^posenc \d+\.\d+\.\d+: a command is needed: posenc <command> \[flags\] \(commands: sinusoidal, /],
  ])('%s', (_, args, status, message) => {
    const r = posenc(...args); // bounded by the run's own timeout; their time: bench/budgets.mjs
    expect(r.status).toBe(status);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(message);
    expect(lines[1]).toBe('');
  });

  test.each(['csv', 'json', 'npy', 'raw'])('a reader that closes the pipe early (| head -c 10) ends %s quietly with status 0', (format) => {
    const r = spawnSync('bash', ['-c', `"$0" "$1" sinusoidal --length 1000000 --d-model 8 --format ${format} | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`, process.execPath, CLI],
      { cwd: tmp, env: cleanEnv(), encoding: 'utf8', timeout: 120000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('0\n');
  });
});

/** Runs the CLI in a child node (its main() in-process) and reads the child's peak RSS (bytes). */
function peakRss(...args) {
  const wrapper = `const { main } = await import(${JSON.stringify(new URL('../../src/cli/main.js', import.meta.url).href)});
    process.exitCode = await main(process.argv.slice(1));
    process.stderr.write(\`maxRSS \${process.resourceUsage().maxRSS}\\n\`);`;
  const r = run(process.execPath, ['--input-type=module', '-e', wrapper, ...args], { cwd: tmp, timeout: 300000 });
  expect(r.status).toBe(0);
  return Number(/maxRSS (\d+)/.exec(r.stderr)[1]) * 1024;
}

describe('at scale: text formats stream, tables stay as torch prints them', () => {
  // 2^18 rows x 8: 2M values, about 20 MB of text; written whole, it took 190 MB
  test.each(['csv', 'json', 'table'])('%s of sinusoidal 262144 x 8 peaks within 64 MB of a one-row run', (format) => {
    const small = peakRss('sinusoidal', '--length', '1', '--d-model', '8', '--format', format, '--out', '/dev/null');
    const large = peakRss('sinusoidal', '--length', '262144', '--d-model', '8', '--format', format, '--out', '/dev/null');
    expect(large - small).toBeLessThan(64 << 20);
  });

  test('CSV written in pieces: every value of a table longer than a piece (they join at row 32768), to 2^-23', () => {
    const lines = posenc('sinusoidal', '--length', '40000', '--d-model', '8', '--offset', '5', '--format', 'csv').stdout.split('\n');
    expect(lines).toHaveLength(40001);
    expect(lines[40000]).toBe('');
    let worst = 0;
    let widths = 0;
    for (let p = 0; p < 40000; p++) {
      const values = lines[p].split(',');
      if (values.length !== 8) widths += 1;
      for (let k = 0; k < 8; k++) worst = Math.max(worst, Math.abs(Number(values[k]) - vaswani(5 + p, k, 8)));
    }
    expect([widths, worst <= ULP1]).toEqual([0, true]);
  });

  test('JSON written in pieces parses to the nested table (t5-buckets past a piece, exact)', () => {
    const t5 = REF.t5Buckets.find((c) => c.bidirectional && c.numBuckets === 32 && c.maxDistance === 128);
    const j = JSON.parse(posenc('t5-buckets', '--query-length', '700', '--key-length', '600', '--query-offset', '3', '--format', 'json').stdout);
    expect([j.shape, j.dtype, j.data.length, j.data[699].length]).toEqual([[700, 600], 'int32', 700, 600]);
    for (const q of [0, 1, 436, 437, 699]) {
      expect(j.data[q]).toEqual(Array.from({ length: 600 }, (_, k) => t5.table[k - (3 + q) - t5.relativePositionStart]));
    }
  });

  test("rope-cache computed in chunks keeps dynamic NTK's sequence length: the whole table's (formula, 2^-23)", () => {
    // HF _compute_dynamic_ntk_parameters: base' = base (factor L / max - (factor - 1))^(r / (r - 2)), L = max(seq_len, max)
    const [r, L, max, factor] = [16, 40000, 2048, 4];
    const a = npy('rope-cache', '--rotary-dim', String(r), '--length', String(L),
      '--scaling', JSON.stringify({ type: 'dynamic', factor, maxPositionEmbeddings: max }));
    const base = 10000 * (factor * L / max - (factor - 1)) ** (r / (r - 2));
    let worst = 0;
    for (const p of [0, 1, 2047, 32767, 32768, 32769, 39999]) {
      for (let k = 0; k < r / 2; k++) {
        const angle = p * base ** (-2 * k / r);
        worst = Math.max(worst, Math.abs(a.data[p * 8 + k] - Math.cos(angle)), Math.abs(a.data[(L + p) * 8 + k] - Math.sin(angle)));
      }
    }
    expect(worst).toBeLessThanOrEqual(ULP1);
  });

  test('a table of 8388608 x 8 prints at once, as torch 1.13 prints it (scientific mode, 3 edge rows and columns)', () => {
    // print(pe) in torch 1.13 for pe = the table computed in float64 and cast to float32
    const torch = `tensor([[ 0.0000e+00,  1.0000e+00,  0.0000e+00,  ...,  1.0000e+00,
          0.0000e+00,  1.0000e+00],
        [ 8.4147e-01,  5.4030e-01,  9.9833e-02,  ...,  9.9995e-01,
          1.0000e-03,  1.0000e+00],
        [ 9.0930e-01, -4.1615e-01,  1.9867e-01,  ...,  9.9980e-01,
          2.0000e-03,  1.0000e+00],
        ...,
        [-3.0067e-01,  9.5373e-01, -9.6005e-01,  ...,  7.2687e-01,
          5.2491e-01,  8.5115e-01],
        [ 6.4008e-01,  7.6830e-01, -9.2732e-01,  ...,  7.3371e-01,
          5.2577e-01,  8.5063e-01],
        [ 9.9235e-01, -1.2350e-01, -8.8532e-01,  ...,  7.4046e-01,
          5.2662e-01,  8.5010e-01]])
`;
    const r = posenc('sinusoidal', '--length', '8388608', '--d-model', '8'); // its time: bench/budgets.mjs
    expect(r.stdout).toBe(torch);
  });
});

describe('decimals: the shortest float32 round trip, fast and exact', () => {
  test('the double arithmetic writes what the toPrecision definition gives: 50,000 random float32 and the edges', async () => {
    const { finiteText, shortestFloat32Exact } = await import('../../src/cli/decimal.js');
    const bits = new Uint32Array(1);
    const f = new Float32Array(bits.buffer);
    const values = [Math.fround(0.1), Math.fround(1 / 3), 1e-7, 1e21, 2 ** -149, 2 ** -126, 3.4028234663852886e38, 16777216, 0.5];
    let state = 0x9e3779b9;
    for (let i = 0; i < 50000; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      bits[0] = state;
      values.push(f[0]);
    }
    for (let k = -45; k <= 38; k++) values.push(Math.fround(10 ** k), Math.fround(9.999999 * 10 ** k), Math.fround(5 * 10 ** k));
    const wrong = values.filter(Number.isFinite).flatMap((v) => [v, -v]).filter((v) => finiteText(v, 'float32') !== shortestFloat32Exact(v));
    expect(wrong).toEqual([]);
    expect([finiteText(-0, 'float32'), finiteText(Math.fround(Math.sin(1)), 'float32'), finiteText(2 ** -149, 'float32')]).toEqual(['0', '0.84147096', '1e-45']);
  });
});
