// The encoder in headless Chromium from the package's own ESM (dist/encoder.mjs),
// under a strict Content-Security-Policy: it must give the same bits as in Node
// (both run the SIMD build; the scalar twin is bit-identical anyway).
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { posencEncoder as posenc } from '../helpers.js';

const DIST = new URL('../../dist/', import.meta.url);
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";
const PAGE = '<!doctype html><meta charset="utf-8"><title>encoder</title><script type="module" src="/page.mjs"></script>';
// what the page runs: a RoPE encoder with seeded weights, its output and layer-0 attention
const SCRIPT = `
import * as posenc from '/dist/encoder.mjs';
await posenc.init();
const encoder = posenc.createEncoder({ vocabSize: 64, dModel: 32, heads: 4, dFF: 64, layers: 2,
  positional: { type: 'rope' }, activation: 'gelu', keepAttention: true, weights: { seed: 42 } });
const out = encoder.forward([5, 9, 13, 2, 40, 7], { mask: [1, 1, 1, 1, 1, 0] });
const attention = encoder.attention(0);
encoder.dispose();
window.result = { out: Array.from(out), attention: Array.from(attention), build: posenc.wasmBuild() };
`;

let server;
let browser;
let url;

beforeAll(async () => {
  await posenc.init();
  server = http.createServer((req, res) => {
    const headers = { 'Content-Security-Policy': CSP };
    if (req.url === '/') return res.writeHead(200, { ...headers, 'Content-Type': 'text/html' }).end(PAGE);
    if (req.url === '/favicon.ico') return res.writeHead(204).end();
    if (req.url === '/page.mjs') return res.writeHead(200, { ...headers, 'Content-Type': 'text/javascript' }).end(SCRIPT);
    const name = /^\/dist\/((?:posenc|encoder)[\w-]*\.mjs)$/.exec(req.url)?.[1];
    if (!name) return res.writeHead(404).end();
    return res.writeHead(200, { ...headers, 'Content-Type': 'text/javascript' }).end(readFileSync(new URL(name, DIST)));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server.close(resolve));
});

test('createEncoder in Chromium gives the same bits as in Node', async () => {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  await page.goto(url);
  await page.waitForFunction(() => window.result, null, { timeout: 20000 });
  const result = await page.evaluate(() => window.result);
  expect(problems).toEqual([]);
  expect(result.build).toBe('simd');

  const encoder = posenc.createEncoder({
    vocabSize: 64, dModel: 32, heads: 4, dFF: 64, layers: 2, positional: { type: 'rope' }, activation: 'gelu', keepAttention: true, weights: { seed: 42 },
  });
  const out = encoder.forward([5, 9, 13, 2, 40, 7], { mask: [1, 1, 1, 1, 1, 0] });
  expect(result.out).toEqual(Array.from(out));
  expect(result.attention).toEqual(Array.from(encoder.attention(0)));
  encoder.dispose();
  await page.close();
});
