// The encoder's options and sizes: checked before any work, read once, and the
// C struct's layout written from one table that is checked against the header.
import { readFileSync } from 'node:fs';
import { posencEncoder as posenc, rejectsCleanly } from '../helpers.js';

beforeAll(() => posenc.init());

const BASE = { vocabSize: 20, dModel: 8, heads: 2, dFF: 16, layers: 1 };

/**
 * Runs fn, expects Err with a message matching, and no memory kept. That it happens before
 * anything is drawn is what the sizes show: drawing them would take minutes and gigabytes (Jest's
 * timeout, or the memory, would fail the test); the time is bench/budgets.mjs's, no clock here.
 */
const rejection = (fn, Err, message) => rejectsCleanly(posenc, fn, Err, message);

describe('every tensor is sized before anything is drawn or allocated', () => {
  test.each([
    // the classifier head took 105 s and 16 GB of seeded values before failing
    ['a huge classifier head (classes 2^31 - 1)', { vocabSize: 1, dModel: 1, heads: 1, dFF: 1, layers: 0, classes: 2 ** 31 - 1 }, /^posenc\.createEncoder: classes \* dModel = 2147483647 elements, more than the \d+/],
    ['a head past any typed array', { vocabSize: 1, dModel: 1024, heads: 1, dFF: 1, layers: 0, classes: 2 ** 31 - 1 }, /^posenc\.createEncoder: classes \* dModel = \d+ elements/],
    ['2^31 - 1 tiny layers', { vocabSize: 1, dModel: 1, heads: 1, dFF: 1, layers: 2 ** 31 - 1 }, /^posenc\.createEncoder: parameters = \d+ elements, more than/],
    ['a huge T5 table', { ...BASE, positional: { type: 't5', numBuckets: 2 ** 30, maxDistance: 2 ** 30 } }, /positional\.numBuckets \* heads = 2147483648 elements/],
    ['a huge learned table', { ...BASE, positional: { type: 'learned', maxLength: 2 ** 31 - 1 } }, /positional\.maxLength \* dModel = \d+ elements/],
    ['a huge language table', { ...BASE, languages: 2 ** 31 - 1 }, /languages \* dModel = \d+ elements/],
    ['a huge feed-forward block', { ...BASE, dFF: 2 ** 31 - 1 }, /dFF \* dModel = \d+ elements/],
  ])('%s: a named RangeError at once', (name, options, message) => {
    rejection(() => posenc.createEncoder({ ...options, weights: { seed: 1 } }), RangeError, message);
  });

  test('encoderTensorShapes checks the same counts without listing anything', () => {
    rejection(() => posenc.encoderTensorShapes({ vocabSize: 1, dModel: 1, heads: 1, dFF: 1, layers: 2 ** 31 - 1 }), RangeError, /^posenc\.encoderTensorShapes: parameters = /);
  });
});

describe('options are read once: later edits of the caller objects change nothing', () => {
  const half = 2; // rotaryDim / 2 for dModel 8, heads 2
  const longrope = () => ({
    type: 'longrope', shortFactor: [1, 1], longFactor: [2, 3], originalMaxPositionEmbeddings: 4, maxPositionEmbeddings: 16,
  });

  test("a longrope longFactor array edited after createEncoder: the encoder keeps the original", () => {
    const scaling = longrope();
    const positional = { type: 'rope', scaling };
    const encoder = posenc.createEncoder({ ...BASE, positional, weights: { seed: 3 } });
    const fresh = posenc.createEncoder({ ...BASE, positional: { type: 'rope', scaling: longrope() }, weights: { seed: 3 } });
    const long = [1, 2, 3, 4, 5, 6, 7, 8]; // 8 > originalMaxPositionEmbeddings: the long factors apply
    scaling.longFactor[0] = 50;
    scaling.longFactor.push(9);
    positional.type = 'none';
    expect(Array.from(encoder.forward(long))).toEqual(Array.from(fresh.forward(long)));
    expect(encoder.config.positional.type).toBe('rope');
    expect(encoder.config.positional.scaling.longFactor).toEqual([2, 3]);
    expect(encoder.config.positional.scaling.longFactor).toHaveLength(half);
    encoder.dispose();
    fresh.dispose();
  });

  test('config is frozen all the way down, and plain JSON (typed arrays become arrays)', () => {
    const scaling = { ...longrope(), longFactor: Float64Array.from([2, 3]) };
    const encoder = posenc.createEncoder({ ...BASE, positional: { type: 'rope', scaling }, weights: { seed: 3 } });
    const c = encoder.config;
    expect(Object.isFrozen(c) && Object.isFrozen(c.positional) && Object.isFrozen(c.positional.scaling)).toBe(true);
    expect(Object.isFrozen(c.positional.scaling.longFactor)).toBe(true);
    expect(JSON.parse(JSON.stringify(c)).positional.scaling.longFactor).toEqual([2, 3]);
    encoder.dispose();
  });

  test('a getter on positional is read once', () => {
    let reads = 0;
    const positional = { type: 'alibi', get maxBias() { reads++; return 4; } };
    const encoder = posenc.createEncoder({ ...BASE, positional, weights: { seed: 3 } });
    expect(reads).toBe(1);
    expect(encoder.config.positional.maxBias).toBe(4);
    encoder.dispose();
  });

  test('inherited keys of positional are not options; an own `constructor` key is an unknown option', () => {
    const inherited = Object.assign(Object.create({ maxBias: -1 }), { type: 'alibi' });
    const encoder = posenc.createEncoder({ ...BASE, positional: inherited, weights: { seed: 3 } });
    expect(encoder.config.positional.maxBias).toBe(8); // the default, not the prototype's -1
    encoder.dispose();
    rejection(
      () => posenc.createEncoder({ ...BASE, positional: { type: 'alibi', constructor: 1 }, weights: { seed: 3 } }),
      TypeError,
      /unknown option 'positional\.constructor' for type 'alibi'/,
    );
  });
});

