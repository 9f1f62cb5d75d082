// queryScalesFromConfig: the same rope dict as ropeFromConfig (rope_scaling before
// rope_parameters), the same layer (an unknown layerType or a layer past
// num_hidden_layers is an error, not ones), only finite positive multipliers, and a
// length capped as every other function's. Expected values: the modeling files'
// formulas evaluated here in double (modeling_ministral3.py _get_llama_4_attn_scale:
// 1 + beta * log(1 + floor(p / original)); modeling_llama4.py Llama4TextAttention:
// log(floor((p + 1) / floor_scale) + 1) * attn_scale + 1), rounded once to float32.
import { posenc, thrown } from '../helpers.js';

beforeAll(() => posenc.init());

const ministral = (p, beta, original) => Math.fround(1 + beta * Math.log(1 + Math.floor(p / original)));
const llama4 = (p, floorScale, attnScale) => Math.fround(Math.log(Math.floor((p + 1) / floorScale) + 1) * attnScale + 1);

const YARN = { rope_type: 'yarn', factor: 16, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1 };

describe('the rope dict ropeFromConfig reads: rope_scaling before rope_parameters', () => {
  // one file with both: ropeFromConfig reads rope_scaling (original 16384, beta 0.1)
  const config = {
    model_type: 'ministral3', head_dim: 128, rope_theta: 1e6,
    rope_scaling: { ...YARN, original_max_position_embeddings: 16384, llama_4_scaling_beta: 0.1 },
    rope_parameters: { ...YARN, original_max_position_embeddings: 4096, llama_4_scaling_beta: 0.5 },
  };
  test('the scales follow the dict whose frequencies ropeFromConfig gives', () => {
    expect(posenc.ropeFromConfig(config).scaling.originalMaxPositionEmbeddings).toBe(16384);
    const positions = [0, 16383, 16384, 20000, 131071];
    const got = posenc.queryScalesFromConfig(config, { positions: Int32Array.from(positions) });
    expect(Array.from(got)).toEqual(positions.map((p) => ministral(p, 0.1, 16384)));
    expect(got[3]).toBeCloseTo(1.0693147, 6); // not 1.549 (rope_parameters' beta 0.5 and 4096)
  });
  test('rope_parameters alone is read when rope_scaling is absent or empty', () => {
    for (const scaling of [undefined, null, {}]) {
      const c = { ...config, rope_scaling: scaling };
      expect(posenc.queryScalesFromConfig(c, { positions: Int32Array.from([20000]) })[0]).toBe(ministral(20000, 0.5, 4096));
    }
  });
  test("Ministral3Config's class defaults when the file has no rope keys: beta 0.1 from 16384", () => {
    const got = posenc.queryScalesFromConfig({ model_type: 'ministral3' }, { length: 3, offset: 32767 });
    expect(Array.from(got)).toEqual([32767, 32768, 32769].map((p) => ministral(p, 0.1, 16384)));
    expect(got[0]).not.toBe(1);
  });
});

describe('the layer: as ropeFromConfig picks it, and an error where it does not exist', () => {
  const scout = { model_type: 'llama4_text', num_hidden_layers: 8, floor_scale: 8192, attn_scale: 0.1 };
  test('Llama 4: the NoPE layers (every 4th) scale their queries, the RoPE layers do not', () => {
    const positions = Int32Array.from([0, 8190, 8191, 100000]);
    expect(Array.from(posenc.queryScalesFromConfig(scout, { layer: 3, positions }))).toEqual([0, 8190, 8191, 100000].map((p) => llama4(p, 8192, 0.1)));
    expect(Array.from(posenc.queryScalesFromConfig(scout, { layer: 2, positions }))).toEqual([1, 1, 1, 1]);
    expect(Array.from(posenc.queryScalesFromConfig(scout, { layerType: 'full_attention', positions }))).toEqual([0, 8190, 8191, 100000].map((p) => llama4(p, 8192, 0.1)));
  });
  test('a layerType the config does not have: RangeError naming the types it has', () => {
    const e = thrown(() => posenc.queryScalesFromConfig(scout, { layerType: 'full_attentoin', length: 2 }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/^posenc\.queryScalesFromConfig: options\.layerType must be one of .*'full_attention'.*got 'full_attentoin'/);
    const none = thrown(() => posenc.queryScalesFromConfig({ model_type: 'llama' }, { layerType: 'sliding_attention', length: 2 }));
    expect(none).toBeInstanceOf(RangeError);
    expect(none.message).toMatch(/has no layer types/);
  });
  test('a layer past num_hidden_layers: RangeError', () => {
    const e = thrown(() => posenc.queryScalesFromConfig(scout, { layer: 8, length: 2 }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/options\.layer must be an integer from 0 to 7 \(config\.num_hidden_layers = 8\), got 8/);
  });
});

describe('only finite, positive multipliers', () => {
  const cases = [
    ['a negative multiplier (attn_scale -1e6)', { model_type: 'llama4_text', attn_scale: -1e6 }, { layer: 3, length: 8193 }, /at position 8191 is -/],
    ['an infinite one (beta 1e308)', { model_type: 'ministral3', rope_parameters: { ...YARN, rope_theta: 1e6, original_max_position_embeddings: 16384, llama_4_scaling_beta: 1e308 } }, { positions: Int32Array.from([0, 40000]) }, /at position 40000 is 1.0986122886681095e\+308 \(Infinity in float32\)/],
    ['a zero one (beta -1 / log 2)', { model_type: 'ministral3', rope_parameters: { ...YARN, rope_theta: 1e6, original_max_position_embeddings: 16384, llama_4_scaling_beta: -1 / Math.LN2 } }, { positions: Int32Array.from([16384]) }, /at position 16384 is/],
  ];
  test.each(cases)('%s', (_label, config, options, says) => {
    const e = thrown(() => posenc.queryScalesFromConfig(config, options));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/^posenc\.queryScalesFromConfig: the query scale at position/);
    expect(e.message).toMatch(says);
  });
});

describe('the length: capped as every other function', () => {
  test('2^29 + 1 values: RangeError before any config is read', () => {
    const e = thrown(() => posenc.queryScalesFromConfig({ get model_type() { throw new Error('read'); } }, { length: 2 ** 29 + 1 }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/length = 536870913 elements, more than the 536870912/);
  });
  test('offset + length past int32: RangeError', () => {
    const e = thrown(() => posenc.queryScalesFromConfig({ model_type: 'llama' }, { length: 2, offset: 2 ** 31 - 1 }));
    expect(e).toBeInstanceOf(RangeError);
  });
  test('negative positions: RangeError naming the index', () => {
    const e = thrown(() => posenc.queryScalesFromConfig({ model_type: 'llama4_text' }, { layer: 3, positions: Int32Array.from([0, -1]) }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/positions\[1\]/);
  });
});
