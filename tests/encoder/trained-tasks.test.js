// web/models/tasks.js, the two tasks of the trained models and every measure
// of the manifest, held to their definitions (docs/models.md, "The measures"):
// the token layout of both tasks, which row predicts which target, the loss
// computed from a hand-made row, the measures of a scorer fed made-up models
// whose every prediction is known, the evaluation position ids against the
// training tool's (torch's fixture), and argmax's NaN (torch.argmax's rule,
// which train/greedy.js follows).
import { readFileSync } from 'node:fs';
import {
  BOS, SEP, MAX_POSITION, TASKS, argmax, evalPositions, evalSymbols, scoreTask, targetOf, taskPrompt, taskSequence, teacherForced, VOCAB_SIZE,
} from '../../web/models/tasks.js';
import { argmax as greedyArgmax } from '../../web/train/greedy.js';
import { copySequence, copyPrompt } from '../../web/models/copy-task.js';

/** Logits that put all their weight on one token per position. */
function oneHot(predicted) {
  const logits = new Float32Array(predicted.length * VOCAB_SIZE);
  predicted.forEach((t, p) => { logits[p * VOCAB_SIZE + t] = 1; });
  return logits;
}

describe('the two tasks', () => {
  test('copy: [BOS, s, SEP, s]; reverse: [BOS, s, SEP, s reversed]; the prompt is their common start', () => {
    expect(TASKS).toEqual(['copy', 'reverse']);
    expect(Array.from(taskSequence('copy', [5, 9, 7]))).toEqual([BOS, 5, 9, 7, SEP, 5, 9, 7]);
    expect(Array.from(taskSequence('reverse', [5, 9, 7]))).toEqual([BOS, 5, 9, 7, SEP, 7, 9, 5]);
    expect(Array.from(taskPrompt([5, 9, 7]))).toEqual([BOS, 5, 9, 7, SEP]);
    expect(targetOf('reverse', [2, 3])).toEqual([3, 2]);
    expect(() => targetOf('sort', [2, 3])).toThrow(RangeError);
    // the names the other tests and benchmarks import are the copy task's
    expect(Array.from(copySequence([4, 6]))).toEqual(Array.from(taskSequence('copy', [4, 6])));
    expect(Array.from(copyPrompt([4, 6]))).toEqual([BOS, 4, 6, SEP]);
  });

  test('in the reversal, the distance from target t_i to its source is 2i: it varies within a sequence', () => {
    const n = 6;
    const symbols = Array.from({ length: n }, (_, j) => 2 + j); // distinct, so each source is found
    const seq = Array.from(taskSequence('reverse', symbols));
    const distances = Array.from({ length: n }, (_, k) => (n + 2 + k) - seq.indexOf(seq[n + 2 + k]));
    expect(distances).toEqual([2, 4, 6, 8, 10, 12]);
    const copy = Array.from(taskSequence('copy', symbols));
    expect(Array.from({ length: n }, (_, k) => (n + 2 + k) - copy.indexOf(copy[n + 2 + k]))).toEqual(new Array(n).fill(n + 1));
  });
});

describe('teacher forcing: target t_i (index n + 1 + i) is predicted by row n + i', () => {
  test('the rows scored are SEP\'s to the last but one; the last row and the prompt\'s are never scored', () => {
    // [BOS, 5, 9, SEP, 9, 5] (reverse): the targets sit at 4 and 5, predicted by rows 3 and 4
    const tokens = taskSequence('reverse', [5, 9]);
    expect(teacherForced(tokens, oneHot([0, 0, SEP, 9, 5, 0])).right).toEqual([true, true]);
    expect(teacherForced(tokens, oneHot([0, 0, SEP, SEP, SEP, SEP])).right).toEqual([false, false]);
    expect(teacherForced(tokens, oneHot([0, 0, 0, 9, 2, 0])).right).toEqual([true, false]);
    expect(teacherForced(tokens, oneHot([9, 5, 9, 9, 5, 7])).right).toEqual([true, true]); // rows 0-2 and 5 do not count
    expect(teacherForced(copySequence([4]), oneHot([7, 7, 4, 7])).right).toEqual([true]);
  });

  test('the loss is logsumexp(row) - row[t_i], in double', () => {
    const tokens = taskSequence('copy', [3]);
    const logits = new Float32Array(4 * VOCAB_SIZE);
    const row = Array.from({ length: VOCAB_SIZE }, (_, v) => Math.fround(0.25 * v - 1));
    logits.set(row, 2 * VOCAB_SIZE);
    const expected = Math.log(row.reduce((a, v) => a + Math.exp(v), 0)) - row[3];
    expect(teacherForced(tokens, logits).loss[0]).toBeCloseTo(expected, 13);
    // a uniform row: ln 18, whatever the target
    expect(teacherForced(tokens, new Float32Array(4 * VOCAB_SIZE)).loss[0]).toBeCloseTo(Math.log(VOCAB_SIZE), 14);
  });
});

describe('every measure of a point (scoreTask), on made-up models whose predictions are known', () => {
  // A model right at target positions listed in `rightAt` (0-based i) and wrong elsewhere, teacher-forced;
  // its greedy output: right at `greedyRight`.
  const fake = (task, rightAt, greedyRight) => ({
    logitsOf: (tokens) => {
      const n = (tokens.length - 2) / 2;
      const predicted = Array.from(tokens, (_, p) => {
        if (p < n + 1 || p > 2 * n) return 0;
        const i = p - n - 1;
        const t = tokens[p + 1];
        return rightAt(i, n) ? t : (t === 2 ? 3 : 2);
      });
      return oneHot(predicted);
    },
    generate: (prompt, n) => {
      const target = targetOf(task, Array.from(prompt.slice(1, -1)));
      return Int32Array.from(target, (t, i) => (greedyRight(i, n) ? t : t === 2 ? 3 : 2));
    },
  });

  test('a model right on the first 3 targets only: prefix 3, token accuracy 3/n, no exact match', () => {
    const r = scoreTask('reverse', 8, 5, fake('reverse', (i) => i < 3, (i) => i < 1));
    expect(r).toEqual({
      sequences: 5, tokenAccuracy: 3 / 8, exactMatch: 0, greedyTokenAccuracy: 1 / 8, correctPrefix: 3, loss: r.loss,
      perPosition: [1, 1, 1, 0, 0, 0, 0, 0],
    });
    // one-hot rows of 1 and 0: right costs ln(17 + e) - 1, wrong ln(17 + e)
    const z = Math.log(17 + Math.E);
    expect(r.loss).toBeCloseTo((3 * (z - 1) + 5 * z) / 8, 12);
  });

  test('a model right everywhere: every share 1, the prefix n; a model wrong at one position in the middle', () => {
    const all = scoreTask('copy', 16, 4, fake('copy', () => true, () => true));
    expect([all.tokenAccuracy, all.exactMatch, all.greedyTokenAccuracy, all.correctPrefix]).toEqual([1, 1, 1, 16]);
    expect(all.perPosition).toEqual(new Array(16).fill(1));
    const hole = scoreTask('copy', 16, 4, fake('copy', (i) => i !== 7, () => true));
    expect([hole.tokenAccuracy, hole.exactMatch, hole.correctPrefix]).toEqual([15 / 16, 0, 7]);
    expect(hole.perPosition[7]).toBe(0);
  });

  test('the positions a model is read at are passed to its logits and its generation', () => {
    const seen = [];
    const positionsOf = (n, b) => Int32Array.from({ length: 2 * n + 2 }, (_, p) => 10 * b + 3 * p);
    scoreTask('copy', 4, 3, {
      logitsOf: (tokens, positions) => {
        seen.push(['logits', positions[1]]);
        return new Float32Array(tokens.length * VOCAB_SIZE);
      },
      generate: (prompt, n, positions) => {
        seen.push(['generate', positions[1]]);
        return new Int32Array(n);
      },
      positionsOf,
    });
    expect(seen).toEqual([['logits', 3], ['generate', 3], ['logits', 13], ['generate', 13], ['logits', 23], ['generate', 23]]);
  });
});

describe('evaluation positions of the randomized-positions models', () => {
  test('2n + 2 distinct ids of [0, 1024), ascending; the same for the same (n, index), others for others', () => {
    for (const [n, i] of [[8, 0], [48, 3], [256, 1]]) {
      const p = evalPositions(n, i);
      expect(p.length).toBe(2 * n + 2);
      for (let k = 1; k < p.length; k++) expect(p[k]).toBeGreaterThan(p[k - 1]);
      expect(p[0]).toBeGreaterThanOrEqual(0);
      expect(p[p.length - 1]).toBeLessThan(MAX_POSITION);
      expect(Array.from(evalPositions(n, i))).toEqual(Array.from(p));
    }
    expect(Array.from(evalPositions(8, 0))).not.toEqual(Array.from(evalPositions(8, 1)));
    // the ids spread over the whole range: no cluster at the start
    const long = evalPositions(256, 0);
    expect(long[long.length - 1]).toBeGreaterThan(900);
  });

  test("the training tool's ids (tools/train/tasks.py eval_positions, in torch's positions fixture) are these", () => {
    const fixture = JSON.parse(readFileSync(new URL('../fixtures/models/positions.json', import.meta.url)));
    const { n, index } = fixture.sequence;
    const randomized = fixture.cases.filter((c) => c.case === 'randomized');
    expect(randomized.length).toBeGreaterThan(0);
    for (const c of randomized) {
      const learned = c.model.endsWith('copy-learned.safetensors');
      const ids = evalPositions(n, index, 2 * n + 2, learned ? 514 : MAX_POSITION);
      expect([c.model, c.positions]).toEqual([c.model, Array.from(ids)]);
      expect(c.tokens).toEqual(Array.from(taskSequence('copy', evalSymbols(n, index))));
    }
  });
});

describe('argmax: torch.argmax\'s rule, which greedy decoding on the page follows', () => {
  test('the first of equal largest; a NaN counts as the largest (the first NaN)', () => {
    expect(argmax([1, 3, 3, 2])).toBe(1);
    expect(argmax(Float32Array.of(-Infinity, -5))).toBe(1);
    expect(argmax([1, NaN, 3])).toBe(1);
    expect(argmax([NaN, 7, NaN])).toBe(0);
    expect(argmax([Infinity, NaN])).toBe(1);
  });

  test("train/greedy.js picks with it (its own argmax took 3 over a NaN: the bug this fixes)", () => {
    expect(greedyArgmax).toBe(argmax);
    expect(greedyArgmax(Float32Array.of(1, NaN, 3))).toBe(1);
  });
});
