// The checkpoint page (web/checkpoint/) in Chromium: files set on its inputs
// as a user picks them (config.json and model.safetensors of the fixtures,
// one file or two shards), it shows the model and its positions (the rotary
// frequencies are those of ropeFrequencies(ropeFromConfig(config)), in
// Node), and streams the greedy tokens that transformers computed
// (tests/fixtures/checkpoints/*/expected.json), one id per task. A config it
// does not serve shows createModel's message; Stop ends a generation. No
// console error, CSP violation or request leaving the origin.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { posencEncoder as posenc } from '../helpers.js';
import { launch, openPage, ROOT, SCREENSHOTS } from './chromium.js';

const FIXTURES = join(ROOT, 'tests', 'fixtures', 'checkpoints');
const json = (name, file) => JSON.parse(readFileSync(join(FIXTURES, name, file), 'utf8'));

let env;
let page;
let problems;
let tmp;
beforeAll(async () => {
  await posenc.init();
  tmp = mkdtempSync(join(tmpdir(), 'posenc-checkpoint-page-'));
  env = await launch();
  ({ page, problems } = await openPage(env.browser, `${env.url}checkpoint/index.html`, {
    setup: (p) => p.addInitScript(() => {
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    }),
  }));
});
afterAll(async () => {
  await env?.close();
  if (tmp) rmSync(tmp, { recursive: true });
});
afterEach(async () => {
  expect(problems.splice(0)).toEqual([]);
  expect(await page.evaluate(() => window.__csp.splice(0))).toEqual([]);
});

/** Sets the two inputs and waits for the page to have loaded one more model. */
async function pick(configPath, weightPaths) {
  const before = Number((await page.$eval('#files', (e) => e.dataset.loads)) ?? 0);
  await page.setInputFiles('#weights', weightPaths);
  await page.setInputFiles('#config', configPath);
  await page.waitForFunction((n) => Number(document.getElementById('files').dataset.loads ?? 0) > n, before);
}

/** Starts a generation; resolves to the ids shown and how many tasks added them, once it ends. */
async function generate(prompt, maxNewTokens, { stopAfter } = {}) {
  await page.fill('#prompt', prompt.join(' '));
  await page.fill('#max', String(maxNewTokens));
  await page.fill('#temperature', '0');
  // each MutationObserver callback is one task's additions: a stream adds one id per task
  await page.evaluate((stop) => {
    window.__batches = 0;
    window.__observer?.disconnect();
    window.__observer = new MutationObserver((records) => {
      if (records.some((r) => r.addedNodes.length)) window.__batches++;
      if (stop && document.querySelectorAll('#tokens span').length >= stop) document.getElementById('stop').click();
    });
    window.__observer.observe(document.getElementById('tokens'), { childList: true });
  }, stopAfter ?? 0);
  await page.click('#start');
  await page.waitForFunction(() => document.getElementById('tokens').dataset.done);
  return page.evaluate(() => ({
    ids: [...document.querySelectorAll('#tokens span')].map((s) => Number(s.textContent)),
    batches: window.__batches,
    done: document.getElementById('tokens').dataset.done,
    error: document.getElementById('run-error').hidden ? null : document.getElementById('run-error').textContent,
  }));
}

describe.each([
  ['llama', 'model.safetensors', 'F32'],
  ['mistral', 'model.safetensors', 'F32'],
  ['qwen2', 'model-bf16.safetensors', 'BF16'],
  ['qwen3', 'model-f16.safetensors', 'F16'],
])('%s %s', (name, file, format) => {
  const config = json(name, 'config.json');
  const expected = json(name, 'expected.json');

  test('shows the model and its positions: the rotary frequencies of ropeFrequencies(ropeFromConfig(config))', async () => {
    await pick(join(FIXTURES, name, 'config.json'), [join(FIXTURES, name, file)]);
    const facts = await page.$$eval('#model dt, #model dd', (els) => els.map((e) => e.textContent));
    expect(facts.slice(0, 2)).toEqual(['model_type', config.model_type]);
    expect(facts.join(' ')).toContain(`(${format})`);
    const rope = posenc.ropeFromConfig(config);
    const want = Array.from(posenc.ropeFrequencies(rope).invFreq);
    const shown = JSON.parse(await page.$eval('#frequencies', (t) => t.dataset.values));
    expect(shown).toEqual(want);
    const rows = await page.$$eval('#frequencies tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    expect(rows).toHaveLength(rope.rotaryDim / 2);
    rows.forEach(([k, theta], i) => {
      expect(Number(k)).toBe(i);
      expect(Number(theta)).toBeCloseTo(want[i], 5 - Math.floor(Math.log10(want[i])));
    });
    const summary = await page.$eval('#positions-summary', (p) => p.textContent);
    expect(summary).toContain(`RoPE in every one of its ${config.num_hidden_layers} layers (0-${config.num_hidden_layers - 1})`);
    expect(summary).toContain(rope.scaling ? `scaling: ${rope.scaling.type}` : 'scaling: none');
    if (config.sliding_window) expect(summary).toContain(`the last ${config.sliding_window} tokens`);
  });

  test("streams transformers' greedy tokens, one id per task", async () => {
    const want = expected.files[file].greedy;
    const got = await generate(expected.prompt, want.length);
    expect(got.error).toBeNull();
    expect(got.done).toBe('complete');
    expect(got.ids).toEqual(want);
    expect(got.batches).toBe(want.length);
    await page.screenshot({ path: `${SCREENSHOTS}/checkpoint-${name}.png`, fullPage: true });
  });
});

test("a sharded checkpoint (two files picked together) streams the same tokens", async () => {
  const { tensors } = posenc.readSafetensors(readFileSync(join(FIXTURES, 'llama', 'model.safetensors')));
  const names = Object.keys(tensors);
  const half = Math.floor(names.length / 2);
  const shards = [names.slice(0, half), names.slice(half)].map((list, i) => {
    const path = join(tmp, `model-0000${i + 1}-of-00002.safetensors`);
    writeFileSync(path, posenc.writeSafetensors(Object.fromEntries(list.map((n) => [n, tensors[n]]))));
    return path;
  });
  await pick(join(FIXTURES, 'llama', 'config.json'), shards);
  const expected = json('llama', 'expected.json');
  const got = await generate(expected.prompt, 12);
  expect(got.ids).toEqual(expected.files['model.safetensors'].greedy);
});

test('Stop ends a generation early, the ids so far kept', async () => {
  await pick(join(FIXTURES, 'qwen2', 'config.json'), [join(FIXTURES, 'qwen2', 'model.safetensors')]);
  const got = await generate([3, 17, 42], 200, { stopAfter: 5 });
  expect(got.done).toBe('stopped');
  expect(got.error).toBeNull();
  expect(got.ids.length).toBeGreaterThanOrEqual(5);
  expect(got.ids.length).toBeLessThan(200);
});

test("a config it does not serve shows createModel's message, naming the key", async () => {
  const path = join(tmp, 'config.json');
  writeFileSync(path, JSON.stringify({ ...json('llama', 'config.json'), model_type: 'gpt2' }));
  await page.setInputFiles('#config', path);
  await page.waitForFunction(() => !document.getElementById('load-error').hidden);
  const message = await page.$eval('#load-error', (e) => e.textContent);
  expect(message).toMatch(/^posenc\.createModel: .*model_type/);
  // and an id outside the vocabulary is named (the last model loaded is still there: qwen2's, 80 ids)
  await page.fill('#prompt', '3 9999');
  await page.click('#start');
  await page.waitForFunction(() => !document.getElementById('run-error').hidden);
  expect(await page.$eval('#run-error', (e) => e.textContent)).toMatch(/^posenc\.encoder\.stream: tokens\[1\] must be an integer from 0 to 79, got 9999/);
});
