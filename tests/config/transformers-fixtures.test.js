// ropeFromConfig and queryScalesFromConfig against transformers' own code, run:
// tools/reference/transformers/make_fixtures.py ran, at transformers commit ace7c37014,
// each model_type's configuration class (class defaults, standardization), its text
// model's rotary embedding class and its attention layer by layer with its real RoPE
// apply function, in float64, and wrote what they computed to
// tests/fixtures/transformers/rope-*.json. Cases: every RoPE model_type's class defaults
// ({ model_type } alone), the config.json transformers writes for them (to_dict),
// variants that add keys (rope_theta, rope_scaling of several types,
// partial_rotary_factor), and the real config.json files of tests/fixtures/hf-configs/.
//
// For each layer: posenc's options, spread into ropeFrequencies, ropeCache and applyRope
// with nothing added, must give transformers' frequencies (within 4 float64 ulps; 1e-12
// relative where transformers' buffer is not what its forward used and the fixture reads
// the angles at position 1), its attention factor, its cos/sin (within 2^-22 of max(1,
// |e|)) and the vectors its apply function rotated (within 2^-22 of max(1, |e|)); a layer
// where the attention applied no RoPE is null; per-position query multipliers are
// queryScalesFromConfig's. Where transformers itself fails on a config (class defaults
// it cannot build), posenc may refuse or answer: there is nothing to compare. Where
// transformers computes RoPE that posenc does not implement, posenc must refuse with the
// reason docs/configs.md lists (REFUSED below), never answer.
import { readdirSync, readFileSync } from 'node:fs';
import { posenc } from '../helpers.js';

const dir = new URL('../fixtures/transformers/', import.meta.url);
const configs = new URL('../fixtures/hf-configs/', import.meta.url);
const shards = readdirSync(dir).filter((f) => /^rope-\d+\.json$/.test(f)).map((f) => JSON.parse(readFileSync(new URL(f, dir))));
const results = Object.assign({}, ...shards.map((s) => s.results));
const cases = shards.flatMap((s) => s.cases);
const configOf = (c) => c.config ?? JSON.parse(readFileSync(new URL(c.file, configs)));

beforeAll(() => posenc.init());

/** The tests' fixtureX: float32(2 * ((i * 2654435761 + seed * 40503) mod 2^32) / 2^32 - 1). */
function fixtureX(n, seed) {
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = 2 * ((i * 2654435761 + seed * 40503) % 2 ** 32) / 2 ** 32 - 1;
  return x;
}

/** What posenc refuses although transformers computes it (each listed in docs/configs.md). */
const REFUSED = [
  /rotary dimension .* must be an even integer/, // an odd int(head_dim * partial_rotary_factor): GLM-4 MoE's class defaults
  /NanoChat's rotate_half/, // rotates by minus the angle
  /ERNIE 4.5 VL reorders its frequencies/,
  /short_mscale .* and long_mscale .* differ/, // PhiMoE with two mscales
  /HunYuan's NTK alpha/,
  // Gemma 3, ModernBERT: a rope_scaling with the older `type` only is merged into a dict whose
  // rope_type is already 'default', which transformers computes (the file's type dropped)
  /merges rope_scaling into its default dict, whose rope_type is 'default'/,
];

/** One float64 ulp of e. */
const ulp = (e) => (e === 0 ? Number.MIN_VALUE : 2 ** (Math.floor(Math.log2(Math.abs(e))) - 52));
const tol22 = (e) => Math.max(1, Math.abs(e)) * 2 ** -22;

function firstBad(actual, expected, tol) {
  for (let i = 0; i < expected.length; i++) {
    const err = Math.abs(actual[i] - expected[i]);
    if (!(err <= tol(expected[i], i))) return { i, actual: actual[i], expected: expected[i] };
  }
  return null;
}

/** The options with a fixed sequence length (dynamic and LongRoPE pick their regime by it). */
const atSeq = (r, seqLength) => (r.scaling && (r.scaling.type === 'dynamic' || r.scaling.type === 'longrope')
  ? { ...r, scaling: { ...r.scaling, seqLength } } : r);

/**
 * How far llama3's smoothing moves a frequency for an error of one ulp in base^(-2k/d)
 * (transformers' torch.pow and posenc's pow may each round it either way): |dv/df| ulp(f)
 * with v = (1 - s) f / factor + s f, s = (original f / (2 pi) - low) / (high - low), in
 * the band between the two wavelengths (0 elsewhere: there v is f or f / factor, exact).
 */
function llama3Spread(sc, rotaryDim, base, k) {
  const f = base ** (-(2 * k) / rotaryDim);
  const wavelen = (2 * Math.PI) / f;
  const orig = sc.originalMaxPositionEmbeddings;
  if (wavelen < orig / sc.highFreqFactor || wavelen > orig / sc.lowFreqFactor) return 0;
  const slope = 1 / sc.factor + (1 - 1 / sc.factor) * ((2 * orig * f) / (2 * Math.PI) - sc.lowFreqFactor) / (sc.highFreqFactor - sc.lowFreqFactor);
  return Math.abs(slope) * ulp(f);
}

function checkTables(r, t) {
  const o = atSeq(r, t.seqLength);
  const f = posenc.ropeFrequencies(o);
  expect(f.invFreq.length).toBe(t.invFreq.length);
  // 4 ulps; in llama3's smoothing band, plus what one ulp of base^(-2k/d) on each side becomes there
  const spread = r.scaling?.type === 'llama3' ? t.invFreq.map((_, k) => 2 * llama3Spread(r.scaling, r.rotaryDim, r.base, k)) : null;
  const invTol = t.invFreqFrom === 'angle' ? (e) => Math.abs(e) * 1e-12 : (e, k) => 4 * ulp(e) + (spread ? spread[k] : 0);
  expect(firstBad(f.invFreq, t.invFreq, invTol)).toBeNull();
  expect(Math.abs(f.attentionFactor - t.attentionFactor)).toBeLessThanOrEqual(4 * ulp(t.attentionFactor));
  // M-RoPE: the tables are a text token's, the same position on the three axes ([3][length])
  const positions = Int32Array.from(r.mropeSection ? [t.positions, t.positions, t.positions].flat() : t.positions);
  const { cos, sin } = posenc.ropeCache({ ...o, positions });
  const half = r.rotaryDim / 2;
  const pick = (table) => t.positions.map((_, p) => t.dims.map((k) => table[p * half + k]));
  expect(firstBad(pick(cos).flat(), t.cos.flat(), tol22)).toBeNull();
  expect(firstBad(pick(sin).flat(), t.sin.flat(), tol22)).toBeNull();
}

function checkApply(r, a, seqLength) {
  const rows = Array.isArray(a.positions[0]) ? a.positions[0].length : a.positions.length;
  const v = fixtureX(a.width, a.seed);
  const x = new Float32Array(rows * a.width);
  for (let p = 0; p < rows; p++) x.set(v, p * a.width);
  // a text-only row of an M-RoPE model: the same position on its three axes
  const axes = r.mropeSection && !Array.isArray(a.positions[0]) ? [a.positions, a.positions, a.positions] : a.positions;
  const positions = Int32Array.from(axes.flat());
  posenc.applyRope(x, { ...atSeq(r, seqLength), heads: 1, headDim: a.width, positions });
  // DeepSeek V3's apply_rotary_pos_emb_interleave returns the pairs (2k, 2k + 1) at (k, k + r/2):
  // the same scores (q and k move alike), another feature order
  const at = (c) => (a.outputOrder ? a.outputOrder[c] : c);
  const got = Array.from({ length: rows }, (_, p) => a.columns.map((c) => x[p * a.width + at(c)])).flat();
  expect(firstBad(got, a.rows.flat(), tol22)).toBeNull();
}

/** ropeFromConfig's answer, or the error it threw. */
function answer(c, layer) {
  try {
    return { r: posenc.ropeFromConfig(configOf(c), { layer }) };
  } catch (error) {
    return { error };
  }
}

const rows = cases.flatMap((c) => (c.error ? [] : c.layers.filter((l) => !l.error).map((l) => [`${c.id} layer ${l.layer}`, c, l])));

describe('every layer of every case: what transformers computes', () => {
  test.each(rows)('%s', (_name, c, l) => {
    const { r, error } = answer(c, l.layer);
    const computed = c.layers.some((x) => x.result);
    if (error) {
      // a model without RoPE in any layer (Falcon with alibi: true): a TypeError naming what it uses
      if (!computed && error instanceof TypeError && /has no RoPE|ALiBi/.test(error.message)) return;
      if (REFUSED.some((re) => re.test(error.message))) return;
      throw error;
    }
    if (l.noRope) {
      expect(r).toBeNull();
      return;
    }
    const result = results[l.result];
    expect(r).not.toBeNull();
    expect(r.rotaryDim).toBe(2 * result.tables.invFreq.length);
    checkTables(r, result.tables);
    if (result.short) checkTables(r, result.short);
    checkApply(r, result.apply, result.tables.seqLength);
  });
});

describe('query scales: ones unless transformers scales the queries by position', () => {
  test.each(rows)('%s', (_name, c, l) => {
    const { error } = answer(c, l.layer);
    if (error) return; // the previous block holds the refusal to account
    const q = l.noRope ? l.queryScales : results[l.result]?.queryScales;
    const positions = q ? q.positions : [0, 8191, 131071];
    const expected = q ? q.values : positions.map(() => 1);
    const got = posenc.queryScalesFromConfig(configOf(c), { layer: l.layer, positions: Int32Array.from(positions) });
    expect(firstBad(got, expected, tol22)).toBeNull();
  });
});
