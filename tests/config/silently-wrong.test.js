// The configs posenc read silently wrong before (issue 28), each against what
// transformers' own code computed for it (tests/fixtures/transformers/, written by
// tools/reference/transformers/make_fixtures.py): the case must be in the fixtures, with
// layers transformers ran, and posenc's options must give the same attention factor,
// pairing and query scales. transformers-fixtures.test.js holds every value of every
// layer; this file keeps these cases from leaving the fixtures unnoticed.
import { readdirSync, readFileSync } from 'node:fs';
import { posenc } from '../helpers.js';

const dir = new URL('../fixtures/transformers/', import.meta.url);
const shards = readdirSync(dir).filter((f) => /^rope-\d+\.json$/.test(f)).map((f) => JSON.parse(readFileSync(new URL(f, dir))));
const results = Object.assign({}, ...shards.map((s) => s.results));
const cases = Object.fromEntries(shards.flatMap((s) => s.cases).map((c) => [c.id, c]));
const configOf = (c) => c.config ?? JSON.parse(readFileSync(new URL(`../fixtures/hf-configs/${c.file}`, import.meta.url)));

beforeAll(() => posenc.init());

/** The first layer transformers ran RoPE on, its result, and posenc's options for it. */
function firstRope(id) {
  const c = cases[id];
  expect(c).toBeDefined();
  const l = c.layers.find((x) => x.result);
  expect(l).toBeDefined();
  return { t: results[l.result], r: posenc.ropeFromConfig(configOf(c), { layer: l.layer }), c, layer: l.layer };
}

test('PhiMoE: equal short_mscale and long_mscale are the attention factor (cos(0) 1.2432, not 1.1902)', () => {
  for (const [id, factor] of [['phimoe longrope equal mscales', 1.243163121016122], ['phimoe yarn equal mscales', 1.25]]) {
    const { t, r } = firstRope(id);
    expect(t.tables.attentionFactor).toBeCloseTo(factor, 12);
    expect(r.scaling.attentionFactor).toBe(factor);
    const scaling = r.scaling.type === 'longrope' ? { ...r.scaling, seqLength: t.tables.seqLength } : r.scaling;
    const { cos } = posenc.ropeCache({ ...r, scaling, positions: Int32Array.from([0]) });
    expect(Math.abs(cos[0] - t.tables.cos[0][0])).toBeLessThanOrEqual(2 ** -22 * 2);
  }
  // different ones: transformers switches between them by sequence length; posenc refuses naming both
  expect(cases['phimoe longrope differing mscales'].layers.some((l) => l.result)).toBe(true);
  expect(() => posenc.ropeFromConfig(configOf(cases['phimoe longrope differing mscales']))).toThrow(/short_mscale \(1\.1\) and long_mscale \(1\.3\) differ/);
});

test("Ministral 3 and gpt-oss without rope keys: their classes' YaRN (x16 from 16384 with query scales; x32, truncate false)", () => {
  const m = firstRope('ministral3 defaults');
  expect(m.r.scaling).toMatchObject({ type: 'yarn', factor: 16, originalMaxPositionEmbeddings: 16384 });
  expect(m.t.queryScales).toBeDefined();
  const q = posenc.queryScalesFromConfig(configOf(m.c), { layer: m.layer, positions: Int32Array.from(m.t.queryScales.positions) });
  expect(Array.from(q).map((v, i) => Math.abs(v - m.t.queryScales.values[i]) <= 2 ** -22)).not.toContain(false);
  expect(Math.max(...m.t.queryScales.values)).toBeGreaterThan(1.1);
  const g = firstRope('gpt_oss defaults');
  expect(g.r.scaling).toMatchObject({ type: 'yarn', factor: 32, truncate: false, originalMaxPositionEmbeddings: 4096 });
  expect(posenc.ropeFrequencies(g.r).attentionFactor).toBeCloseTo(g.t.tables.attentionFactor, 14);
});

test('DeepSeek V3 and kin with rope_interleave false: half pairs, as apply_rotary_pos_emb', () => {
  for (const type of ['deepseek_v3', 'glm4_moe_lite', 'youtu']) {
    const off = firstRope(`${type} interleave off`);
    expect(off.t.apply.outputOrder).toBeUndefined(); // transformers rotated in place: rotate_half
    expect(off.r.layout).toBe('half');
    const on = firstRope(`${type} defaults`);
    expect(on.t.apply.outputOrder).toBeDefined(); // apply_rotary_pos_emb_interleave
    expect(on.r.layout).toBe('interleaved');
  }
});

test("nested text configs: what they leave out comes from the text class's defaults", () => {
  // LLaVA 1.5's text_config has no hidden_size or heads: LlamaConfig's 4096 / 32
  const llava = firstRope('llava-1.5-7b.json');
  expect(llava.r.rotaryDim).toBe(2 * llava.t.tables.invFreq.length);
  expect(llava.r.rotaryDim).toBe(128);
  // a text config that names another model_type: that class's defaults (Ministral 3's YaRN, Qwen2's)
  const ministral = firstRope('mistral3 ministral3 text');
  expect(ministral.r.scaling.type).toBe('yarn');
  expect(ministral.t.queryScales).toBeDefined();
  expect(firstRope('llava qwen2 text').r.rotaryDim).toBe(128);
  expect(firstRope('gemma3 empty text').r.rotaryDim).toBe(256);
});
