// Explicit position ids (the `positions` option of encoder.logits and
// decoder.feed; posenc_encoder_logits' and posenc_decoder_feed's positions)
// against torch: tests/fixtures/models/positions.json holds, for each copy
// model of web/models/, the causal logits of one copy sequence at shifted
// (100, 101, ...), permuted and randomized (sorted, drawn from [0, 1024))
// ids, from the training's own model code run in float64 (logits64; written
// by tools/train/positions_fixtures.py). ALiBi's bias is -m_h (p_i - p_j), T5's
// the bucket of p_j - p_i; the causal mask stays by token order.
import fs from 'node:fs';
import { posencEncoder as posenc } from '../helpers.js';

const root = new URL('../../', import.meta.url);
const read = (file) => fs.readFileSync(new URL(file, root));
const fixture = JSON.parse(read('tests/fixtures/models/positions.json'));
const TOLERANCE = 1e-5;

beforeAll(() => posenc.init());

/** The largest |got - want| over a row, relative to the row's largest |want|, over every row. */
function worst(got, rows, V) {
  let err = 0;
  rows.forEach((want, r) => {
    const scale = Math.max(...want.map(Math.abs));
    for (let v = 0; v < V; v++) {
      const e = Math.abs(got[r * V + v] - want[v]) / scale;
      err = Number.isNaN(e) ? Infinity : Math.max(err, e);
    }
  });
  return err;
}

const models = {};
const encoderOf = (file) => (models[file] ??= posenc.createEncoder({ weights: read(file) }));
afterAll(() => Object.values(models).forEach((e) => e.dispose()));

test('the fixture covers every scheme of the copy task, each at shifted, permuted and randomized ids', () => {
  const byModel = new Map();
  for (const c of fixture.cases) byModel.set(c.model, [...(byModel.get(c.model) ?? []), c.case]);
  for (const scheme of ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5']) {
    expect(byModel.get(`web/models/copy-${scheme}.safetensors`)?.sort()).toEqual(['permuted', 'randomized', 'shifted']);
  }
});

describe.each(fixture.cases.map((c) => [`${c.model.replace(/^web\/models\//, '')} ${c.case}`, c]))('%s', (name, c) => {
  test('encoder.logits({ positions }) is torch float64 within 1e-5 of each row', () => {
    const enc = encoderOf(c.model);
    const V = enc.config.vocabSize;
    const got = enc.logits(c.tokens, { causal: true, positions: c.positions });
    expect(worst(got, c.logits64, V)).toBeLessThanOrEqual(TOLERANCE);
  });

  test('the decoder fed the ids (a prompt, then one token at a time) gives each row of the full pass', () => {
    const enc = encoderOf(c.model);
    const V = enc.config.vocabSize;
    const d = enc.decoder();
    const split = 9;
    const rows = [d.feed(c.tokens.slice(0, split), { positions: c.positions.slice(0, split) })];
    for (let i = split; i < c.tokens.length; i++) rows.push(d.feed(c.tokens[i], { positions: [c.positions[i]] }));
    d.dispose();
    const want = c.logits64.slice(split - 1);
    expect(worst(Float32Array.from(rows.flatMap((r) => Array.from(r))), want, V)).toBeLessThanOrEqual(TOLERANCE);
  });
});

describe('positions: the rules', () => {
  const file = 'web/models/copy-learned.safetensors';

  test('0 .. seq - 1 given are the logits without them, bit for bit; a feed without positions goes on one past the last', () => {
    const enc = encoderOf('web/models/copy-alibi.safetensors');
    const tokens = fixture.cases[0].tokens;
    const plain = enc.logits(tokens, { causal: true });
    expect(enc.logits(tokens, { causal: true, positions: tokens.map((_, i) => i) })).toEqual(plain);
    const shifted = tokens.map((_, i) => i + 50);
    const full = enc.logits(tokens, { causal: true, positions: shifted });
    const d = enc.decoder();
    d.feed(tokens.slice(0, 5), { positions: shifted.slice(0, 5) });
    let last;
    for (const t of tokens.slice(5)) last = d.feed(t);
    d.dispose();
    const V = enc.config.vocabSize;
    expect(worst(last, [Array.from(full.subarray((tokens.length - 1) * V))], V)).toBeLessThanOrEqual(TOLERANCE);
  });

  test('bad positions are named errors, and nothing is fed', () => {
    const enc = encoderOf(file);
    const max = enc.config.positional.maxLength;
    const learned = `from 0 to positional\\.maxLength - 1 = ${max - 1} \\(learned positions stop there\\)`;
    expect(() => enc.logits([1, 2, 3], { positions: [0, -1, 2] })).toThrow(new RegExp(`^posenc\\.encoder\\.logits: positions\\[1\\] must be an integer ${learned}, got -1$`));
    expect(() => encoderOf('web/models/copy-rope.safetensors').logits([1, 2], { positions: [0, -1] })).toThrow(
      /^posenc\.encoder\.logits: positions\[1\] must be an integer from 0 to 2147483647, got -1$/,
    );
    expect(() => enc.logits([1, 2], { positions: [0, max] })).toThrow(
      new RegExp(`^posenc\\.encoder\\.logits: positions\\[1\\] must be an integer from 0 to positional\\.maxLength - 1 = ${max - 1} \\(learned positions stop there\\), got ${max}$`),
    );
    expect(() => enc.logits([1, 2], { positions: [0] })).toThrow(/^posenc\.encoder\.logits: positions must have length tokens\.length = 2, got 1$/);
    expect(() => enc.logits([1, 2], { positions: [0, 1.5] })).toThrow(RangeError);
    expect(() => enc.logits([1, 2], { positions: [0, 2 ** 31] })).toThrow(RangeError);
    expect(() => enc.logits([1, 2], { positions: [0, '1'] })).toThrow(TypeError);
    expect(() => enc.logits([1, 2], { positions: 5 })).toThrow(TypeError);
    const d = enc.decoder();
    d.feed([1, 2]);
    expect(() => d.feed([3, 4], { positions: [5, -2] })).toThrow(new RegExp(`^posenc\\.decoder\\.feed: positions\\[1\\] must be an integer ${learned}, got -2$`));
    expect(() => d.feed([3], { positions: [1, 2] })).toThrow(/^posenc\.decoder\.feed: positions must have length tokens\.length = 1, got 2$/);
    expect(d.length).toBe(2);
    d.dispose();
  });
});
