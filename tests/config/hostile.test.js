// Hostile configs: huge layer counts, Object.prototype names, getters that throw, Proxies,
// cycles. Each is a named error (TypeError or RangeError naming posenc.<function> and the
// key), reached without building anything per layer: the whole file runs well under a
// second, and the CLI reports each in one line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { posenc, thrown } from '../helpers.js';

beforeAll(() => posenc.init());

const FNS = ['ropeFromConfig', 'queryScalesFromConfig', 'alibiFromConfig'];
const call = (fn, config, options = {}) => (fn === 'queryScalesFromConfig' ? posenc[fn](config, { length: 4, ...options }) : fn === 'alibiFromConfig' ? posenc[fn](config) : posenc[fn](config, options));

/** The error fn throws on config, checked to be a named TypeError or RangeError. */
function named(fn, config, options, Err) {
  const e = thrown(() => call(fn, config, options));
  expect(e).toBeInstanceOf(Err ?? Error);
  expect(e instanceof TypeError || e instanceof RangeError).toBe(true);
  expect(e.message).toMatch(new RegExp(`^posenc\\.${fn}: `));
  return e;
}

describe('layer counts past 65536: refused before any per-layer work', () => {
  const families = ['gemma3_text', 'llama4_text', 'modernbert', 'qwen3_next', 'recurrent_gemma', 'zamba2', 'mllama_text_model', 'cohere2', 'llama'];
  const counts = [2 ** 31 - 1, 1e7, 65537];
  test.each(families.flatMap((t) => counts.map((n) => [t, n])))('%s with %d layers', (type, n) => {
    for (const options of [{}, { layer: 3 }, { layerType: 'full_attention' }]) {
      for (const fn of ['ropeFromConfig', 'queryScalesFromConfig']) {
        const e = named(fn, { model_type: type, num_hidden_layers: n }, options, RangeError);
        expect(e.message).toContain('num_hidden_layers');
        expect(e.message).toContain(String(n));
      }
    }
  });

  test('per-layer lists past 65536 entries are refused where read, not walked', () => {
    const huge = new Array(2 ** 16 + 1).fill('full_attention');
    const e = named('ropeFromConfig', { model_type: 'gemma3_text', num_hidden_layers: 26, layer_types: huge }, { layer: 0 }, RangeError);
    expect(e.message).toMatch(/layer_types must have at most 65536 entries, got 65537/);
    const n = named('ropeFromConfig', { model_type: 'llama4_text', num_hidden_layers: 48, no_rope_layers: new Array(2 ** 16 + 1).fill(1) }, { layer: 0 }, RangeError);
    expect(n.message).toMatch(/no_rope_layers must have at most 65536 entries/);
  });

  test('the largest count allowed: the one layer asked for, by its own rule', () => {
    // Gemma3TextConfig: layer i is full attention (rope_theta 1e6) when (i + 1) % 6 == 0, else sliding (1e4)
    const config = { model_type: 'gemma3_text', num_hidden_layers: 2 ** 16 };
    expect(posenc.ropeFromConfig(config, { layer: 2 ** 16 - 1 }).base).toBe(1e4); // 65536 % 6 = 4
    expect(posenc.ropeFromConfig(config, { layer: 2 ** 16 - 5 }).base).toBe(1e6); // 65532 % 6 = 0
    expect(posenc.queryScalesFromConfig({ model_type: 'llama4_text', num_hidden_layers: 2 ** 16 }, { layer: 2 ** 16 - 1, length: 1 })[0]).toBe(1);
  });
});

describe('Object.prototype names as model_type: unknown models, named as given', () => {
  const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];
  test.each(names)('%s', (name) => {
    for (const fn of FNS) {
      for (const config of [JSON.parse(`{"model_type": "${name}"}`), JSON.parse(`{"model_type": "llava", "text_config": {"model_type": "${name}"}}`)]) {
        const e = named(fn, config, {}, TypeError);
        expect(e.message).toContain(`model_type '${name}' is not a model_type transformers`);
        expect(e.message).not.toMatch(/function|native code|\[object/);
      }
    }
  });

  test('Object.prototype names as layer types: no rope dict, named', () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      for (const type of ['gemma3_text', 'modernbert']) {
        const config = JSON.parse(`{"model_type": "${type}", "num_hidden_layers": 2, "layer_types": ["${name}", "full_attention"]}`);
        for (const options of [{ layer: 0 }, { layerType: name }]) {
          const e = named('ropeFromConfig', config, options, RangeError);
          expect(e.message).toContain(`this layer's type '${name}' (config.layer_types) has no rope dict`);
        }
      }
      const perType = JSON.parse(`{"model_type": "qwen2", "num_hidden_layers": 2, "layer_types": ["${name}", "full_attention"], "rope_parameters": {"full_attention": {"rope_type": "default"}}}`);
      expect(named('ropeFromConfig', perType, { layer: 0 }, RangeError).message).toContain(`has no '${name}' entry`);
    }
  });

  test('a rope dict key named __proto__ (JSON.parse makes it an own key) is a key posenc does not read', () => {
    const config = JSON.parse('{"model_type": "llama", "rope_scaling": {"__proto__": {"rope_type": "linear", "factor": 4}}}');
    const e = named('ropeFromConfig', config, {}, RangeError);
    expect(e.message).toContain('config.rope_scaling.__proto__ is not a key transformers reads');
  });

  test('inherited keys are not keys: a config whose prototype carries rope_theta reads the default', () => {
    const config = Object.assign(Object.create({ rope_theta: 5, rope_scaling: { rope_type: 'linear', factor: 4 } }), { model_type: 'llama' });
    expect(posenc.ropeFromConfig(config)).toEqual({ rotaryDim: 128, base: 10000, layout: 'half' });
  });
});

describe('getters, setters and Proxies: a named error, the getter never run', () => {
  const boom = () => {
    throw new Error('getter ran');
  };
  const cases = [
    ['a getter at the top', () => ({ model_type: 'llama', get rope_theta() { return boom(); } }), 'config.rope_theta is an accessor'],
    ['a getter for model_type', () => ({ get model_type() { return boom(); } }), 'config.model_type is an accessor'],
    ['a getter in text_config', () => ({ model_type: 'llava', text_config: { get model_type() { return boom(); } } }), 'config.text_config.model_type is an accessor'],
    ['a getter in the rope dict', () => ({ model_type: 'llama', rope_scaling: { rope_type: 'linear', get factor() { return boom(); } } }), 'config.rope_scaling.factor is an accessor'],
    ['a setter only', () => ({ model_type: 'llama', set rope_theta(v) { boom(); } }), 'config.rope_theta is an accessor'],
    ['a Proxy whose descriptor trap throws', () => new Proxy({ model_type: 'llama' }, { getOwnPropertyDescriptor: boom }), 'config.model_type could not be read (getter ran)'],
    ['a Proxy whose ownKeys trap throws', () => ({ model_type: 'llama', rope_scaling: new Proxy({}, { ownKeys: boom }) }), 'the keys of config.rope_scaling could not be read (getter ran)'],
  ];
  test.each(cases)('%s', (_label, make, says) => {
    const e = named('ropeFromConfig', make(), {}, TypeError);
    expect(e.message).toContain(says);
  });
  test('queryScalesFromConfig and alibiFromConfig too', () => {
    expect(named('queryScalesFromConfig', { get model_type() { return boom(); } }, {}, TypeError).message).toContain('config.model_type is an accessor');
    expect(named('alibiFromConfig', { get model_type() { return boom(); } }, {}, TypeError).message).toContain('config.model_type is an accessor');
  });
});

describe('cycles: a config that holds itself costs nothing', () => {
  test('text_config pointing back at the config', () => {
    const config = { model_type: 'llava' };
    config.text_config = config;
    const e = named('ropeFromConfig', config, {}, TypeError);
    expect(e.message).toContain("config.text_config.model_type 'llava' names a composite config, not a text model");
  });
  test('a text config two levels down pointing back, and rope dicts that hold themselves', () => {
    const omni = { model_type: 'qwen2_5_omni', thinker_config: {} };
    omni.thinker_config.text_config = omni;
    named('ropeFromConfig', omni, {}, TypeError);
    const dict = { rope_type: 'linear', factor: 2 };
    dict.self = dict;
    const e = named('ropeFromConfig', { model_type: 'llama', rope_scaling: dict }, {}, RangeError);
    expect(e.message).toContain('config.rope_scaling.self is not a key transformers reads');
  });
});

describe('the CLI: one line for each', () => {
  let dir;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'posenc-hostile-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bin = new URL('../../bin/posenc.js', import.meta.url).pathname;
  const cases = [
    ['huge num_hidden_layers', '{"model_type": "gemma3_text", "num_hidden_layers": 2147483647}', /num_hidden_layers must be an integer from 1 to 65536/],
    ['constructor as model_type', '{"model_type": "constructor"}', /model_type 'constructor' is not a model_type transformers/],
    ['__proto__ as model_type', '{"model_type": "__proto__"}', /model_type '__proto__' is not a model_type transformers/],
  ];
  test.each(cases)('%s', (_label, json, says) => {
    const file = join(dir, 'config.json');
    writeFileSync(file, json);
    let out;
    try {
      execFileSync(process.execPath, [bin, 'rope-frequencies', '--config', file], { encoding: 'utf8', stdio: 'pipe' });
      throw new Error('the CLI accepted the config');
    } catch (e) {
      out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
      expect(e.status).toBe(2);
    }
    expect(out.trim().split('\n')).toHaveLength(1);
    expect(out).toMatch(says);
  });
});
