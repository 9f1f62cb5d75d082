// Every model_type of transformers' CONFIG_MAPPING (commit ace7c37014) is served or
// refused with a message naming what it uses. What each model uses comes from
// transformers: tests/fixtures/transformers/model-types.json, written by
// tools/reference/transformers/inventory.py from running each model's attention on its
// class defaults (else from its modeling file). The values ropeFromConfig gives for the
// served ones are held to transformers' own code in transformers-fixtures.test.js; here:
// nothing transformers knows is an unknown model, and no refusal hides what a model uses.
// docs/configs.md's table lists each model_type as the fixture classifies it.
import { readFileSync } from 'node:fs';
import { posenc, thrown } from '../helpers.js';
import { DOC, END, POSITIONS, START, readModelTypes, withTable } from '../../tools/reference/transformers/configs_table.mjs';

const modelTypes = readModelTypes();
const entries = Object.entries(modelTypes);

beforeAll(() => posenc.init());

/** What the refusal of each scheme must say (the function that serves it, where one does). */
const SAYS = {
  learned: /learned absolute position embeddings/,
  sinusoidal: /sinusoidal/,
  relative: /relative positions/,
  none: /no positions at all/,
  alibi: /ALiBi.*alibiFromConfig/,
  't5-buckets': /t5Buckets/,
  'deberta-buckets': /debertaBuckets/,
  convolutional: /convolution/,
  'rope-vision': /image patch coordinates/,
  'rope-audio': /speech encoder/,
  composite: /text decoder/,
  'rope-or-learned': /learned absolute position embeddings/,
};

const UNKNOWN = /is not a model_type transformers/;

test('the fixture lists every model_type, each with a scheme the table knows', () => {
  expect(entries.length).toBeGreaterThan(400);
  for (const [type, row] of entries) {
    expect([type, Object.hasOwn(POSITIONS, row.scheme)]).toEqual([type, true]);
  }
});

describe('a RoPE model: served (or refused with the reason), never an unknown model', () => {
  const rope = entries.filter(([, row]) => row.scheme === 'rope');
  test.each(rope)('%s', (type) => {
    let error;
    try {
      posenc.ropeFromConfig({ model_type: type });
    } catch (e) {
      error = e;
    }
    // its class defaults may be ones transformers itself cannot run (an mrope_section it
    // requires, an odd rotary dimension): any other error is about the config, not the model
    // (or a flag its defaults leave off: Zamba2's use_mem_rope, Granite hybrid's position_embedding_type)
    if (error) {
      expect(error.message).not.toMatch(UNKNOWN);
      expect(error.message).not.toMatch(/has no RoPE(?! in any layer: its)/);
    }
  });
});

describe('any other model: a TypeError naming what it uses', () => {
  const others = entries.filter(([, row]) => row.scheme !== 'rope');
  test.each(others)('%s', (type, row) => {
    const e = thrown(() => posenc.ropeFromConfig({ model_type: type }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/has no RoPE/);
    expect(e.message).toMatch(SAYS[row.scheme]);
    expect(e.message).toContain(`'${type}'`);
  });
});

test('ESM with rotary embeddings: the message gives the ropeCache options', () => {
  const e = thrown(() => posenc.ropeFromConfig({ model_type: 'esm', position_embedding_type: 'rotary' }));
  expect(e).toBeInstanceOf(TypeError);
  expect(e.message).toMatch(/rotary embeddings .*ropeCache\(\{ rotaryDim: hidden_size \/ num_attention_heads, base: 10000, layout: 'half' \}\)/);
});

test('a composite whose text config names another model_type reads it with that class', () => {
  // LlavaConfig builds CONFIG_MAPPING[text_config.model_type]: Qwen2's defaults, 128 wide heads
  const r = posenc.ropeFromConfig({ model_type: 'llava', text_config: { model_type: 'qwen2' } });
  expect(r).toEqual({ rotaryDim: 128, base: 10000, layout: 'half' });
  const e = thrown(() => posenc.ropeFromConfig({ model_type: 'llava', text_config: { model_type: 'bert' } }));
  expect(e.message).toMatch(/'llava' \(its text model 'bert'\) has no RoPE posenc reads: it uses learned absolute/);
});

describe('docs/configs.md', () => {
  const page = readFileSync(DOC, 'utf8');
  const block = page.slice(page.indexOf(START), page.indexOf(END));
  const rows = block.split('\n').filter((l) => l.startsWith('| `')).map((l) => l.split(' | ').map((c) => c.replace(/^\| |`| \|$/g, '')));

  test('its table is the one configs_table.mjs writes from the fixture (rerun it when either changes)', () => {
    expect(page).toBe(withTable(page, modelTypes));
  });

  test('one row per model_type, with what transformers uses for positions', () => {
    expect(rows.map((r) => r[0])).toEqual(Object.keys(modelTypes));
    for (const [type, positions] of rows) expect([type, positions]).toEqual([type, POSITIONS[modelTypes[type].scheme]]);
  });

  test('a row says ropeFromConfig where posenc serves the model, refused where it does not', () => {
    for (const [type, , what] of rows) {
      let served = true;
      try {
        posenc.ropeFromConfig({ model_type: type });
      } catch (e) {
        // refused: a model without RoPE, or RoPE posenc does not implement (not the class defaults' own errors)
        if (/has no RoPE(?! in any layer: its)|does not implement/.test(e.message)) served = false;
      }
      expect([type, what.startsWith('ropeFromConfig') || (modelTypes[type].scheme === 'alibi' && what === 'alibiFromConfig')]).toEqual([type, served || what === 'alibiFromConfig']);
    }
  });
});

test('a config whose flags turn RoPE off in every layer: a TypeError without a layer, null for each layer, ones', () => {
  // Zamba2Config: use_mem_rope False by default; GraniteMoeHybridConfig: position_embedding_type None
  for (const [config, flag] of [[{ model_type: 'zamba2' }, 'use_mem_rope'], [{ model_type: 'granitemoehybrid' }, 'position_embedding_type']]) {
    const e = thrown(() => posenc.ropeFromConfig(config));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toContain(`has no RoPE in any layer: its ${flag}`);
    expect(posenc.ropeFromConfig(config, { layer: 0 })).toBeNull();
    expect(Array.from(posenc.queryScalesFromConfig(config, { length: 2 }))).toEqual([1, 1]);
  }
  expect(posenc.ropeFromConfig({ model_type: 'zamba2', use_mem_rope: true }).rotaryDim).toBe(160);
});
