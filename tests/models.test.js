// The trained copy-task models in web/models/ (tools/train/ trains them with
// PyTorch): posenc must reproduce torch's logits (fixtures written by the
// training tool from the same F16 weights), torch's accuracy at every
// evaluation length on the same seeded sequences (web/models/manifest.json),
// and the training-range bar; the tables of docs/models.md must be the manifest's.
import fs from 'node:fs';
import { posencEncoder as posenc } from './helpers.js';
import { EVAL_NS, SEP, VOCAB_SIZE, copyAccuracy, copyCorrect, copySequence, evalSymbols } from '../web/models/copy-task.js';

const root = new URL('../', import.meta.url);
const read = (path) => fs.readFileSync(new URL(path, root));
const manifest = JSON.parse(read('web/models/manifest.json'));
const SCHEMES = ['none', 'learned', 'sinusoidal', 'rope', 'alibi', 't5'];

beforeAll(() => posenc.init());

test('the manifest has one copy-task model per scheme, trained on n = 1..32, within the budget', () => {
  expect(manifest.models.map((m) => m.scheme)).toEqual(SCHEMES);
  expect(manifest.task.evalN).toEqual([...EVAL_NS]);
  for (const m of manifest.models) {
    expect(m.task).toBe('copy');
    expect(m.trainN).toEqual([1, 32]);
    expect(m.parameters).toBeLessThanOrEqual(250000);
    // the budget, 15 minutes on 2 cores, as CPU time: the wall time of a run on
    // a machine shared with other work measures the machine (both are recorded)
    expect(m.trainingCpuSeconds).toBeLessThanOrEqual(2 * 15 * 60);
    expect(m.trainingSeconds).toBeGreaterThan(0);
    expect(read(`web/models/${m.file}`).length).toBeLessThanOrEqual(1 << 20);
    expect(Object.keys(m.accuracy).map(Number)).toEqual([...EVAL_NS]);
  }
});

// Logits that put all their weight on one token per position, for scoring tests.
function oneHotLogits(predicted) {
  const logits = new Float32Array(predicted.length * VOCAB_SIZE);
  predicted.forEach((t, p) => { logits[p * VOCAB_SIZE + t] = 1; });
  return logits;
}

test('scoring: the copy of s_i is predicted at the position before it, SEP is never scored', () => {
  // [BOS, 5, 9, SEP, 5, 9]: the copies sit at positions 4 and 5, predicted at 3 and 4
  const tokens = copySequence([5, 9]);
  expect(Array.from(tokens)).toEqual([0, 5, 9, SEP, 5, 9]);
  const perfect = [0, 0, SEP, 5, 9, 0]; // position p predicts tokens[p + 1] where scored
  expect(copyCorrect(tokens, oneHotLogits(perfect))).toEqual([true, true]);
  // a model that only ever says SEP after the symbols gets nothing for it
  expect(copyCorrect(tokens, oneHotLogits([0, 0, SEP, SEP, SEP, SEP]))).toEqual([false, false]);
  // the last copy (s_n, predicted at position 2n) counts
  expect(copyCorrect(tokens, oneHotLogits([0, 0, 0, 5, 2, 0]))).toEqual([true, false]);
  // the prediction at the last position (2n + 1, past the sequence) is not scored
  expect(copyCorrect(tokens, oneHotLogits([0, 0, 0, 5, 9, 7]))).toEqual([true, true]);
  // n = 1: only position 2 is scored
  expect(copyCorrect(copySequence([4]), oneHotLogits([7, 7, 4, 7]))).toEqual([true]);
});

test("the evaluation sequences are the training tool's (the fixtures' tokens)", () => {
  const { tensors } = posenc.readSafetensors(read('tests/fixtures/models/copy-rope-logits.safetensors'));
  const names = Object.keys(tensors).filter((k) => k.startsWith('tokens.'));
  expect(names.length).toBeGreaterThan(0);
  for (const name of names) {
    const [, n, i] = /^tokens\.n(\d+)\.i(\d+)$/.exec(name).map(Number);
    expect(Array.from(copySequence(evalSymbols(n, i)))).toEqual(Array.from(tensors[name].data));
  }
});

describe.each(manifest.models)('copy-$scheme', (m) => {
  let encoder;
  beforeAll(() => {
    encoder = posenc.createEncoder({ weights: read(`web/models/${m.file}`), keepAttention: false });
  });
  afterAll(() => encoder.dispose());

  // posenc's token accuracy and exact match at every evaluation n, on the
  // manifest's number of seeded sequences; computed once, on first use
  let scores;
  const accuracy = () => {
    const logitsOf = (tokens) => encoder.logits(tokens, { causal: true });
    scores ??= Object.fromEntries(EVAL_NS.map((n) => [n, copyAccuracy(logitsOf, n, m.accuracy[n].sequences)]));
    return scores;
  };

  test('the file carries its options: the manifest config, the manifest parameter count', () => {
    expect(encoder.config).toMatchObject(m.config);
    expect(encoder.parameterCount).toBe(m.parameters);
  });

  test("posenc's logits equal torch's within 1e-4 relative", () => {
    const { tensors } = posenc.readSafetensors(read(`tests/fixtures/models/copy-${m.scheme}-logits.safetensors`));
    const names = Object.keys(tensors).filter((k) => k.startsWith('logits.'));
    expect(names.length).toBeGreaterThanOrEqual(3);
    for (const name of names) {
      const tokens = Int32Array.from(tensors[name.replace('logits.', 'tokens.')].data);
      const expected = tensors[name].data;
      const actual = encoder.logits(tokens, { causal: true });
      expect(actual.length).toBe(expected.length);
      // relative to the largest |logit| of the position: logits near zero have no scale of their own
      const vocab = m.config.vocabSize;
      let worst = 0;
      for (let p = 0; p < tokens.length; p++) {
        let scale = 0;
        for (let v = 0; v < vocab; v++) scale = Math.max(scale, Math.abs(expected[p * vocab + v]));
        for (let v = 0; v < vocab; v++) worst = Math.max(worst, Math.abs(actual[p * vocab + v] - expected[p * vocab + v]) / scale);
      }
      expect(worst).toBeLessThanOrEqual(1e-4);
    }
  });

  test("posenc's accuracy at every n is torch's (manifest), on the same sequences, within 0.005", () => {
    const misses = {}; // n -> what disagrees: empty when every figure agrees
    for (const n of EVAL_NS) {
      const torch = m.accuracy[n];
      const ours = accuracy()[n];
      const wrong = [];
      if (!(Math.abs(ours.tokenAccuracy - torch.tokenAccuracy) <= 0.005)) wrong.push(`token accuracy ${ours.tokenAccuracy}, torch ${torch.tokenAccuracy}`);
      if (!(Math.abs(ours.exactMatch - torch.exactMatch) <= 0.005)) wrong.push(`exact match ${ours.exactMatch}, torch ${torch.exactMatch}`);
      if (wrong.length) misses[n] = wrong;
    }
    expect(misses).toEqual({});
  });

  test('posenc scores >= 99% token accuracy at every n <= 32 (the training range)', () => {
    const inRange = EVAL_NS.filter((n) => n <= 32);
    expect(inRange).toEqual([8, 16, 32]);
    const below = inRange.filter((n) => !(accuracy()[n].tokenAccuracy >= 0.99)).map((n) => ({ n, ...accuracy()[n] }));
    expect(below).toEqual([]);
  });
});

/** The rows of the first Markdown table after `heading` in docs/models.md: scheme -> numbers. */
function docsTable(heading) {
  const text = read('docs/models.md').toString();
  const start = text.indexOf(`\n${heading}\n`);
  expect(start).toBeGreaterThan(0);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const table = [];
  for (let i = first; i < lines.length && lines[i].startsWith('|'); i++) table.push(lines[i]);
  const cells = (line) => line.split('|').slice(1, -1).map((c) => c.trim());
  const columns = cells(table[0]).slice(1).map((c) => Number(c.replace(/^n = /, '')));
  const rows = Object.fromEntries(table.slice(2).map((line) => {
    const [scheme, ...values] = cells(line);
    return [scheme.replace(/^`([^`]+)`.*$/, '$1'), values.map(Number)];
  }));
  return { columns, rows };
}

test.each([
  ['### Token accuracy (%) by scheme and n', 'tokenAccuracy'],
  ['### Exact match (%) by scheme and n', 'exactMatch'],
])("docs/models.md's table '%s' is the manifest's torch figures", (heading, key) => {
  const { columns, rows } = docsTable(heading);
  expect(columns).toEqual([...EVAL_NS]);
  expect(Object.keys(rows)).toEqual(manifest.models.map((m) => m.scheme));
  // one decimal of a percentage: within half a unit of it (ties round either way)
  const off = manifest.models.flatMap((m) => EVAL_NS.map((n, i) => ({ scheme: m.scheme, n, docs: rows[m.scheme][i], manifest: 100 * m.accuracy[n][key] })))
    .filter((c) => !(Math.abs(c.docs - c.manifest) <= 0.05 + 1e-9));
  expect(off).toEqual([]);
});
