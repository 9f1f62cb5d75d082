// A key inside a rope dict that posenc does not read for that rope_type is an error that
// names it, unless docs/configs.md lists it as read without effect: then it is accepted
// and changes nothing. The table of keys is read from docs/configs.md, so the page and
// the code cannot drift apart.
import { readFileSync } from 'node:fs';
import { posenc, thrown } from '../helpers.js';

beforeAll(() => posenc.init());

const page = readFileSync(new URL('../../docs/configs.md', import.meta.url), 'utf8');
const section = page.slice(page.indexOf('## Keys of a rope dict'), page.indexOf('## RoPE models posenc refuses'));
const cells = (cell) => [...cell.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
const TABLE = Object.fromEntries(section.split('\n').filter((l) => /^\| `[a-z0-9]+` \|/.test(l)).map((l) => {
  const [, type, read, inert] = l.split('|').map((c) => c.trim());
  return [type.replace(/`/g, ''), { read: cells(read), inert: cells(inert) }];
}));

// a dict of each type with the keys it requires, on Llama 2's shape (head_dim 128, 4096 positions)
const ones = (v) => new Array(64).fill(v);
const BASE = {
  default: { rope_type: 'default' },
  linear: { rope_type: 'linear', factor: 2 },
  dynamic: { rope_type: 'dynamic', factor: 2 },
  yarn: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 2048 },
  longrope: { rope_type: 'longrope', short_factor: ones(1), long_factor: ones(2), original_max_position_embeddings: 2048 },
  llama3: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
};
// a value for any key that it may take
const VALUE = {
  factor: 3, original_max_position_embeddings: 1024, attention_factor: 1.5, beta_fast: 16, beta_slow: 2, mscale: 1, mscale_all_dim: 1,
  truncate: false, short_factor: ones(1.5), long_factor: ones(3), low_freq_factor: 1, high_freq_factor: 2, max_position_embeddings: 99999,
};
const llama = (rope_scaling) => ({ model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 4096, rope_scaling });
const ALL = [...new Set(Object.values(TABLE).flatMap((t) => [...t.read, ...t.inert]))];

test('the page lists the six rope types', () => {
  expect(Object.keys(TABLE).sort()).toEqual(['default', 'dynamic', 'linear', 'llama3', 'longrope', 'yarn']);
});

describe.each(Object.keys(BASE))('rope_type %s', (type) => {
  test('each key listed as without effect: accepted, and nothing changes', () => {
    const plain = posenc.ropeFromConfig(llama(BASE[type]));
    for (const key of TABLE[type].inert) {
      const with_ = posenc.ropeFromConfig(llama({ ...BASE[type], [key]: VALUE[key] }));
      expect([key, posenc.ropeFrequencies(with_)]).toEqual([key, posenc.ropeFrequencies(plain)]);
    }
  });

  test('every other key some type reads: an error naming it', () => {
    const known = new Set([...TABLE[type].read, ...TABLE[type].inert]);
    for (const key of [...ALL.filter((k) => !known.has(k)), 'not_a_rope_key', 'mrope_section', 'short_mscale', 'llama_4_scaling_beta', 'alpha']) {
      const e = thrown(() => posenc.ropeFromConfig(llama({ ...BASE[type], [key]: VALUE[key] ?? 1 })));
      expect(e).toBeInstanceOf(RangeError);
      expect(e.message).toContain(`config.rope_scaling.${key} is not a key transformers reads for rope_type '${type}' of model_type 'llama'`);
    }
  });

  test('each key listed as read: accepted (its effect is held to transformers by the fixtures)', () => {
    for (const key of TABLE[type].read) {
      let error = null;
      try {
        posenc.ropeFromConfig(llama({ ...BASE[type], [key]: VALUE[key] }));
      } catch (e) {
        error = e.message; // a value this type refuses is fine; being unread is not
      }
      expect([key, error]).not.toEqual([key, expect.stringContaining('is not a key transformers reads')]);
    }
  });
});

test('rope_type and type that disagree: refused naming both', () => {
  const e = thrown(() => posenc.ropeFromConfig(llama({ rope_type: 'linear', type: 'dynamic', factor: 2 })));
  expect(e).toBeInstanceOf(RangeError);
  expect(e.message).toContain("config.rope_scaling.rope_type 'linear' and config.rope_scaling.type 'dynamic' disagree");
  expect(posenc.ropeFromConfig(llama({ rope_type: 'linear', type: 'linear', factor: 2 })).scaling.type).toBe('linear');
});

test('the family keys are read by their families only', () => {
  // PhiMoE reads its mscales, Qwen2-VL its mrope_section: on a Llama they are errors
  expect(posenc.ropeFromConfig({ model_type: 'qwen2_vl', rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] } }).mropeSection).toEqual([16, 24, 24]);
  const e = thrown(() => posenc.ropeFromConfig(llama({ rope_type: 'default', mrope_section: [16, 24, 24] })));
  expect(e.message).toContain('config.rope_scaling.mrope_section is not a key');
  const g = thrown(() => posenc.ropeFromConfig({ head_dim: 64, rope_scaling: { rope_type: 'default', mrope_section: [8, 12, 12] } }));
  expect(g).toBeInstanceOf(TypeError);
  expect(g.message).toMatch(/mrope_section is read by model_type 'qwen2_vl'.* and this config names no model_type/);
});
