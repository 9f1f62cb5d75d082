// main.js: the checkpoint page (docs/encoder.md, "A Hugging Face checkpoint").
// The user picks config.json and model.safetensors (or its shards) with the
// file inputs; the page reads them (File.arrayBuffer: nothing is fetched),
// runs createModel from 'posenc/encoder', shows the model and its positions
// (ropeFromConfig layer by layer, its scaling, ropeFrequencies), and streams
// generated token ids as model.stream() yields them. There is no tokenizer:
// prompts and outputs are token ids.
//
// For the browser test (tests/demo/checkpoint-page.test.js) the page marks
// its states on elements: <html data-ready> once posenc is loaded, #files
// data-loads (models loaded so far), #tokens data-done once a generation ends.
import * as posenc from '../dist/encoder.mjs';

const $ = (id) => document.getElementById(id);
const status = $('status');
let model = null;
let config = null;
let running = null; // { stop: boolean } of the generation under way
let loads = 0;

function showError(id, message) {
  const box = $(id);
  box.hidden = !message;
  box.textContent = message ?? '';
}

/** A definition list's rows from [term, value] pairs. */
function facts(list, rows) {
  list.replaceChildren(...rows.flatMap(([term, value]) => {
    const dt = document.createElement('dt');
    const dd = document.createElement('dd');
    dt.textContent = term;
    dd.textContent = value;
    return [dt, dd];
  }));
  list.hidden = false;
}

const count = (n) => n.toLocaleString('en-US');

/** Consecutive runs of layer indexes, as text: "0-3, 6". */
function runs(indexes) {
  const out = [];
  for (let i = 0; i < indexes.length; i++) {
    let j = i;
    while (j + 1 < indexes.length && indexes[j + 1] === indexes[j] + 1) j++;
    out.push(i === j ? `${indexes[i]}` : `${indexes[i]}-${indexes[j]}`);
    i = j;
  }
  return out.join(', ');
}

/** What a scaling says, its type first: "llama3 (factor 8, lowFreqFactor 1, ...)". */
function scalingText(scaling) {
  if (!scaling) return 'none (plain RoPE)';
  const { type, ...rest } = scaling;
  const fields = Object.entries(rest).map(([k, v]) => `${k} ${Array.isArray(v) ? `[${v.length} factors]` : v}`);
  return fields.length ? `${type} (${fields.join(', ')})` : type;
}

function showModel() {
  const o = model.options;
  facts($('model'), [
    ['model_type', model.modelType],
    ['layers', `${o.layers}, hidden ${o.dModel}, MLP ${o.dFF} (SiLU-gated)`],
    ['attention', `${o.heads} query heads of ${o.headDim}, ${o.kvHeads} key/value heads${o.window ? `, a window of ${o.window} tokens` : ''}`],
    ['vocabulary', `${count(o.vocabSize)} ids (0 to ${count(o.vocabSize - 1)})${o.tieEmbeddings ? ', head tied to the embedding' : ''}`],
    ['parameters', count(model.parameterCount)],
    ['in wasm memory', `${count(model.weightBytes)} bytes of weights (${model.weightFormat})`],
  ]);
}

function showPositions() {
  const layers = model.options.layers;
  const withRope = [];
  for (let i = 0; i < layers; i++) if (posenc.ropeFromConfig(config, { layer: i })) withRope.push(i);
  const rope = model.rope;
  const where = withRope.length === layers ? `every one of its ${layers} layers (${runs(withRope)})` : withRope.length ? `layers ${runs(withRope)} of ${layers}` : 'no layer';
  const window = model.options.window ? ` Each query attends to the last ${model.options.window} tokens (sliding_window).` : '';
  $('positions-summary').textContent =
    `RoPE in ${where}, rotating ${rope.rotaryDim} features of each head of ${model.options.headDim} (layout '${rope.layout}'), base ${rope.base}; scaling: ${scalingText(rope.scaling)}.${window}`;
  const { invFreq, attentionFactor } = posenc.ropeFrequencies(rope);
  const body = $('frequencies').tBodies[0];
  body.replaceChildren(...Array.from(invFreq, (theta, k) => {
    const tr = document.createElement('tr');
    for (const text of [`${k}`, theta.toPrecision(6), (2 * Math.PI / theta).toPrecision(6)]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
  $('frequencies').dataset.values = JSON.stringify(Array.from(invFreq));
  $('positions-summary').dataset.attentionFactor = String(attentionFactor);
  if (attentionFactor !== 1) $('positions-summary').textContent += ` cos and sin are scaled by ${attentionFactor.toPrecision(6)}.`;
}

/** Reads the chosen files and makes the model (the previous one disposed). */
async function load() {
  const configFile = $('config').files[0];
  const weightFiles = [...$('weights').files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (!configFile || weightFiles.length === 0) return;
  stopRun();
  showError('load-error', null);
  status.textContent = `Reading ${configFile.name} and ${weightFiles.map((f) => f.name).join(', ')}…`;
  try {
    const parsed = JSON.parse(await configFile.text());
    const bytes = await Promise.all(weightFiles.map(async (f) => new Uint8Array(await f.arrayBuffer())));
    const t0 = performance.now();
    const next = posenc.createModel({ config: parsed, weights: bytes.length === 1 ? bytes[0] : bytes });
    model?.dispose();
    model = next;
    config = parsed;
    status.textContent = `Loaded in ${(performance.now() - t0).toFixed(0)} ms.`;
  } catch (error) {
    status.textContent = 'Not loaded.';
    showError('load-error', error instanceof SyntaxError ? `config.json is not JSON: ${error.message}` : error.message);
    return;
  }
  showModel();
  showPositions();
  $('positions').hidden = false;
  $('generate').hidden = false;
  $('tokens').replaceChildren();
  $('speed').textContent = '';
  $('files').dataset.loads = String(++loads);
}

function stopRun() {
  if (running) running.stop = true;
}

/** The prompt's ids: integers separated by spaces or commas. */
function readPrompt() {
  const text = $('prompt').value.trim();
  const parts = text ? text.split(/[\s,]+/) : [];
  if (parts.length === 0 || !parts.every((p) => /^\d+$/.test(p))) throw new RangeError('The prompt must be token ids: integers separated by spaces or commas, at least one.');
  return parts.map(Number);
}

/** Streams the generation, one token per task, so that each id shows as it is chosen. */
async function generate(event) {
  event.preventDefault();
  if (!model || running) return;
  showError('run-error', null);
  const out = $('tokens');
  out.replaceChildren();
  delete out.dataset.done;
  out.dataset.updates = '0';
  const run = { stop: false };
  let stream;
  try {
    const prompt = readPrompt();
    stream = model.stream(prompt, { maxNewTokens: Number($('max').value), temperature: Number($('temperature').value), seed: Number($('seed').value) });
  } catch (error) {
    showError('run-error', error.message);
    return;
  }
  running = run;
  $('start').disabled = true;
  $('stop').disabled = false;
  const t0 = performance.now();
  let n = 0;
  try {
    for (;;) {
      const { value, done } = stream.next(); // the prompt on the first call, then one token each
      if (done) break;
      const span = document.createElement('span');
      span.textContent = String(value);
      out.append(span, ' ');
      n++;
      out.dataset.updates = String(n);
      $('speed').textContent = `${n} tokens, ${(n / ((performance.now() - t0) / 1e3)).toFixed(0)} tokens/s (the prompt's prefill included)`;
      await new Promise((resolve) => setTimeout(resolve, 0)); // let the page show it
      if (run.stop) break;
    }
  } catch (error) {
    showError('run-error', error.message);
  } finally {
    stream.return(); // frees the stream's decoder when stopped early
    running = null;
    $('start').disabled = false;
    $('stop').disabled = true;
    out.dataset.done = run.stop ? 'stopped' : 'complete';
  }
}

async function boot() {
  await posenc.init();
  status.textContent = `posenc ready (${posenc.wasmBuild()} build). Choose the files.`;
  $('config').addEventListener('change', load);
  $('weights').addEventListener('change', load);
  $('run').addEventListener('submit', generate);
  $('stop').addEventListener('click', stopRun);
  document.documentElement.dataset.ready = '1';
}

boot().catch((error) => {
  status.textContent = `posenc did not load: ${error.message}`;
});
