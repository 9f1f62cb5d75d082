// The trained copy-task models in web/models/ (tools/train/ trains them with
// PyTorch): six models identical but for their positional scheme, trained on
// three seeds each; the page's seed's files are committed, every seed's
// figures are in web/models/manifest.json. posenc must reproduce torch's
// logits (fixtures written by the training tool from the same F16 weights),
// torch's accuracy at every evaluation length on the same seeded sequences,
// and the training-range bar; the docs' tables must be the manifest's.
import fs from 'node:fs';
import path from 'node:path';
import { posencEncoder as posenc } from '../helpers.js';
import { EVAL_NS, SEP, VOCAB_SIZE, copyAccuracy, copyCorrect, copySequence, evalSymbols } from '../../web/models/copy-task.js';

const root = new URL('../../', import.meta.url);
const read = (file) => fs.readFileSync(new URL(file, root));
const manifest = JSON.parse(read('web/models/manifest.json'));
const SCHEMES = ['none', 'learned', 'sinusoidal', 'rope', 'alibi', 't5'];
const SEEDS = [1, 2, 3];
const SCORES = ['tokenAccuracy', 'exactMatch', 'greedyExactMatch'];

beforeAll(() => posenc.init());

describe('the manifest', () => {
  const [first] = manifest.models;
  const withoutPositions = ({ positional, ...rest }) => rest;

  test('one copy-task model per scheme, trained on n = 1..32; the files are the page seed\'s', () => {
    expect(manifest.models.map((m) => m.scheme)).toEqual(SCHEMES);
    expect(manifest.task.evalN).toEqual([...EVAL_NS]);
    expect(manifest.pageSeed).toBe(1);
    for (const m of manifest.models) {
      expect(m.task).toBe('copy');
      expect(m.trainN).toEqual([1, 32]);
      expect(m.config.positional.type).toBe(m.scheme);
      expect(m.seed).toBe(manifest.pageSeed);
      expect(read(`web/models/${m.file}`).length).toBeLessThanOrEqual(1 << 20);
      expect(Object.keys(m.accuracy).map(Number)).toEqual([...EVAL_NS]);
    }
  });

  test('the six models are identical but for their positional scheme: same options, same recipe, same steps', () => {
    for (const m of manifest.models) {
      expect(withoutPositions(m.config)).toEqual(withoutPositions(first.config));
      expect(m.recipe).toEqual(first.recipe);
      expect(m.steps).toBe(first.recipe.steps);
      expect(m.threads).toBe(first.threads);
    }
    // the parameter counts differ by the scheme's own parameters only
    const { dModel, heads } = first.config;
    const own = (m) => ({ learned: m.config.positional.maxLength * dModel, t5: m.config.positional.numBuckets * heads }[m.scheme] ?? 0);
    const shared = manifest.models.map((m) => m.parameters - own(m));
    expect(new Set(shared).size).toBe(1);
    expect(shared[0]).toBeLessThanOrEqual(250000);
  });

  test('three seeds per scheme, each trained within the budget: 8 minutes on 2 cores', () => {
    for (const m of manifest.models) {
      expect(m.seeds.map((r) => r.seed)).toEqual(SEEDS);
      for (const r of m.seeds) {
        // as CPU time: the wall time of a run on a machine shared with other
        // work measures the machine (both are recorded)
        expect(r.trainingCpuSeconds).toBeLessThanOrEqual(2 * 8 * 60);
        expect(r.trainingSeconds).toBeGreaterThan(0);
        expect(Object.keys(r.accuracy).map(Number)).toEqual([...EVAL_NS]);
      }
      const page = m.seeds.find((r) => r.seed === m.seed);
      expect(page.accuracy).toEqual(m.accuracy);
      expect([page.trainingSeconds, page.trainingCpuSeconds, page.finalLoss]).toEqual([m.trainingSeconds, m.trainingCpuSeconds, m.finalLoss]);
    }
  });

  test('every seed of every scheme scores >= 99% token accuracy at every n <= 32 (the training range)', () => {
    const below = manifest.models.flatMap((m) => m.seeds.flatMap((r) => [8, 16, 32]
      .filter((n) => !(r.accuracy[n].tokenAccuracy >= 0.99))
      .map((n) => ({ scheme: m.scheme, seed: r.seed, n, tokenAccuracy: r.accuracy[n].tokenAccuracy }))));
    expect(below).toEqual([]);
  });

  test('greedy exact match is teacher-forced exact match (the same event), to a near-tie of one sequence', () => {
    // while every generated token is right, greedy decoding reads exactly the
    // teacher-forced input, so both fail at the same first wrong token
    const apart = manifest.models.flatMap((m) => m.seeds.flatMap((r) => EVAL_NS
      .filter((n) => !(Math.abs(r.accuracy[n].greedyExactMatch - r.accuracy[n].exactMatch) <= 1 / r.accuracy[n].sequences + 1e-9))
      .map((n) => ({ scheme: m.scheme, seed: r.seed, n, ...r.accuracy[n] }))));
    expect(apart).toEqual([]);
  });

  test('the figures over seeds are the mean, min and max of the seeds\' figures', () => {
    for (const m of manifest.models) {
      for (const n of EVAL_NS) {
        for (const key of SCORES) {
          const values = m.seeds.map((r) => r.accuracy[n][key]);
          const s = m.overSeeds[n][key];
          expect(s.mean).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 6);
          expect([s.min, s.max]).toEqual([Math.min(...values), Math.max(...values)]);
        }
      }
    }
  });
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

  test("the file carries its options and seed: the manifest's config, parameter count and page seed", () => {
    expect(encoder.config).toMatchObject(m.config);
    expect(encoder.parameterCount).toBe(m.parameters);
    expect(posenc.readSafetensors(read(`web/models/${m.file}`)).metadata['posenc.seed']).toBe(String(m.seed));
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

// The docs' result tables: make_models.py rewrites the table under each
// heading wherever it is (README.md or a page of docs/), and so must find it.
const TABLES = [
  ['### Token accuracy (%) over seeds, teacher-forced', 'tokenAccuracy'],
  ['### Greedy exact match (%) over seeds', 'greedyExactMatch'],
];

/** The Markdown pages make_models.py searches: README.md and docs/**.md. */
function pages() {
  const docs = new URL('docs/', root);
  const walk = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []).flatMap((e) => {
    const at = path.join(dir, e.name);
    if (e.isDirectory()) return walk(at);
    return e.name.endsWith('.md') ? [at] : [];
  });
  return [new URL('README.md', root).pathname, ...walk(docs.pathname).sort()];
}

/** The rows of the first Markdown table after `heading`: scheme -> [mean, min, max] per column. */
function table(heading) {
  const found = pages().filter((file) => fs.readFileSync(file, 'utf8').split('\n').includes(heading));
  expect(found).toHaveLength(1);
  const lines = fs.readFileSync(found[0], 'utf8').split('\n');
  const first = lines.findIndex((l, i) => i > lines.indexOf(heading) && l.startsWith('|'));
  const rows = [];
  for (let i = first; i < lines.length && lines[i].startsWith('|'); i++) rows.push(lines[i]);
  const cells = (line) => line.split('|').slice(1, -1).map((c) => c.trim());
  const columns = cells(rows[0]).slice(1).map((c) => Number(c.replace(/^n = /, '')));
  const figures = (cell) => {
    const parts = /^([\d.]+) \(([\d.]+)–([\d.]+)\)$/.exec(cell);
    return parts ? parts.slice(1).map(Number) : [NaN, NaN, NaN];
  };
  const bySchemes = Object.fromEntries(rows.slice(2).map((line) => {
    const [scheme, ...values] = cells(line);
    return [scheme.replace(/^`([^`]+)`.*$/, '$1'), values.map(figures)];
  }));
  return { columns, rows: bySchemes };
}

test.each(TABLES)("the docs' table '%s' is the manifest's figures over seeds: mean (min–max)", (heading, key) => {
  const { columns, rows } = table(heading);
  expect(columns).toEqual([...EVAL_NS]);
  expect(Object.keys(rows)).toEqual(manifest.models.map((m) => m.scheme));
  // one decimal of a percentage: within half a unit of it (ties round either way)
  const off = manifest.models.flatMap((m) => EVAL_NS.map((n, i) => {
    const s = m.overSeeds[n][key];
    return { scheme: m.scheme, n, docs: rows[m.scheme][i], manifest: [s.mean, s.min, s.max].map((x) => 100 * x) };
  })).filter((c) => !c.docs.every((x, k) => Math.abs(x - c.manifest[k]) <= 0.05 + 1e-9));
  expect(off).toEqual([]);
});
