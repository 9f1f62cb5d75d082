// createEncoder's options read over a model file's own (readCreateOptions):
// the caller's keys win key by key, and a key that is no option is refused
// whether or not a file comes with it. An own '__proto__' key, made by
// JSON.parse or a computed key, is an ordinary key: merged by assignment it
// set the merged object's prototype and vanished.
import { posencEncoder, thrown } from '../helpers.js';

const model = { vocabSize: 6, dModel: 4, heads: 1, dFF: 4, layers: 1, positional: { type: 'none' } };
let file;

beforeAll(async () => {
  await posencEncoder.init();
  const enc = posencEncoder.createEncoder({ ...model, weights: { seed: 2 } });
  file = enc.toSafetensors();
  enc.dispose();
});

const ownProto = (value) => JSON.parse(`{ "__proto__": ${JSON.stringify(value)} }`);

describe.each([
  ['a plain object', () => ({ isPlain: true })],
  ['an object with options', () => ({ dModel: 8 })],
  ['null', () => null],
  ['a number', () => 5],
])("an own '__proto__' option (%s)", (_what, value) => {
  test('is refused without a file', () => {
    const e = thrown(() => posencEncoder.createEncoder({ ...model, ...ownProto(value()), weights: { seed: 2 } }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/^posenc\.createEncoder: unknown option '__proto__'/);
  });
  test('is refused beside a model file, as without one', () => {
    const e = thrown(() => posencEncoder.createEncoder({ ...ownProto(value()), weights: file }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/^posenc\.createEncoder: unknown option '__proto__'/);
  });
});

test("an own '__proto__' in the file's metadata is refused, naming the file", () => {
  const { tensors, metadata } = posencEncoder.readSafetensors(file);
  const config = JSON.parse(metadata[posencEncoder.CONFIG_METADATA_KEY]);
  const text = JSON.stringify(config).replace(/^\{/, '{"__proto__":{"dModel":8},');
  const spoiled = posencEncoder.writeSafetensors(tensors, { metadata: { [posencEncoder.CONFIG_METADATA_KEY]: text } });
  const e = thrown(() => posencEncoder.createEncoder({ weights: spoiled }));
  expect(e).toBeInstanceOf(TypeError);
  expect(e.message).toMatch(/^posenc\.createEncoder: weights' metadata 'posenc\.config': unknown option '__proto__'/);
});

test("the caller's options still win over the file's, key by key", () => {
  const enc = posencEncoder.createEncoder({ weights: file, keepAttention: false, normEps: 1e-6 });
  expect(enc.config.keepAttention).toBe(false);
  expect(enc.config.normEps).toBe(1e-6);
  expect(enc.config.dModel).toBe(4);
  enc.dispose();
});
