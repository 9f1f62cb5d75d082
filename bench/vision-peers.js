// vision-peers.js: the 2-D sine-cosine table of ViTs and DiT and diffusers'
// timestep embedding, as JS code writes them (a transcription of MAE's numpy,
// and the same with the frequencies hoisted), against posenc and the limit: a
// wasm loop that only stores the same bytes, then copies them out.

/** MAE's get_2d_sincos_pos_embed transcribed: per patch and frequency, Math.pow, sin and cos. */
function naiveTable(height, width, d) {
  const q = d / 4;
  const out = new Float32Array(height * width * d);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const row = (y * width + x) * d;
      for (let k = 0; k < q; k++) {
        const omega = 1 / Math.pow(10000, k / q);
        out[row + k] = Math.sin(x * omega);
        out[row + q + k] = Math.cos(x * omega);
        out[row + 2 * q + k] = Math.sin(y * omega);
        out[row + 3 * q + k] = Math.cos(y * omega);
      }
    }
  }
  return out;
}

/** Frequencies hoisted, each axis's sines and cosines computed once and copied to every patch. */
function optimizedTable(height, width, d, out) {
  const q = d / 4;
  const omega = Float64Array.from({ length: q }, (_, k) => Math.pow(10000, -k / q));
  const axis = (n) => {
    const t = new Float32Array(n * 2 * q);
    for (let p = 0; p < n; p++) {
      for (let k = 0; k < q; k++) {
        t[p * 2 * q + k] = Math.sin(p * omega[k]);
        t[p * 2 * q + q + k] = Math.cos(p * omega[k]);
      }
    }
    return t;
  };
  const xs = axis(width), ys = axis(height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const row = (y * width + x) * d;
      out.set(xs.subarray(x * 2 * q, (x + 1) * 2 * q), row);
      out.set(ys.subarray(y * 2 * q, (y + 1) * 2 * q), row + 2 * q);
    }
  }
  return out;
}

function tableError(t, height, width, d) {
  const q = d / 4;
  let worst = 0;
  for (let r = 0; r < height * width; r += r < 64 ? 1 : 37) {
    const x = r % width, y = Math.floor(r / width);
    for (let j = 0; j < d; j++) {
      const part = Math.floor(j / q), w = Math.pow(10000, -(j % q) / q), p = part < 2 ? x : y;
      worst = Math.max(worst, Math.abs(t[r * d + j] - (part % 2 ? Math.cos(p * w) : Math.sin(p * w))));
    }
  }
  return worst;
}

/** diffusers' get_timestep_embedding transcribed (flip, shift 0: Stable Diffusion's UNets). */
function naiveTimesteps(timesteps, dim) {
  const half = dim >> 1;
  const out = new Float32Array(timesteps.length * dim);
  for (let r = 0; r < timesteps.length; r++) {
    for (let k = 0; k < half; k++) {
      const a = timesteps[r] * Math.exp((-Math.log(10000) * k) / half);
      out[r * dim + k] = Math.cos(a);
      out[r * dim + half + k] = Math.sin(a);
    }
  }
  return out;
}

function timestepError(e, timesteps, dim) {
  const half = dim >> 1;
  let worst = 0;
  for (let r = 0; r < timesteps.length; r += r < 64 ? 1 : 13) {
    for (let k = 0; k < half; k++) {
      const a = timesteps[r] * Math.exp((-Math.log(10000) * k) / half);
      worst = Math.max(worst, Math.abs(e[r * dim + k] - Math.cos(a)), Math.abs(e[r * dim + half + k] - Math.sin(a)));
    }
  }
  return worst;
}

/** Runs each contender until the JIT has compiled it (10 runs, or 300 ms): a JS loop is slow for its first calls. */
function warmed(contenders) {
  for (const run of Object.values(contenders)) {
    const t0 = performance.now();
    for (let i = 0; i < 10 && performance.now() - t0 < 300; i++) run();
  }
  return contenders;
}

export async function visionTasks({ posenc, probes, race, printTable }) {
  // ViT-B/16 at 224 px; DiT-XL/2 on a 512 px image's 64 x 64 latent (a 32 x 32 grid)
  for (const [height, width, d] of [[14, 14, 768], [32, 32, 1152], [128, 128, 1024]]) {
    const n = height * width * d;
    const out = new Float32Array(n);
    const wa = posenc.allocate('float32', n);
    const probePtr = probes.malloc(n * 4);
    const results = {};
    const ms = race(warmed({
      'limit: wasm store + copy-out': () => {
        probes.probe_store(probePtr, n);
        out.set(new Float32Array(probes.memory.buffer, probePtr, n));
      },
      'posenc (into a JS array)': () => (results.posenc = posenc.sinusoidal2d({ height, width, dModel: d, out })),
      'posenc zero-copy (WasmArray)': () => posenc.sinusoidal2d({ height, width, dModel: d, out: wa }),
      'optimized JS (axes once, copied)': () => (results.optimized = optimizedTable(height, width, d, new Float32Array(n))),
      'naive JS (MAE transcribed)': () => (results.naive = naiveTable(height, width, d)),
    }));
    const errors = {
      'posenc (into a JS array)': tableError(results.posenc, height, width, d),
      'posenc zero-copy (WasmArray)': tableError(wa.array, height, width, d),
      'optimized JS (axes once, copied)': tableError(results.optimized, height, width, d),
      'naive JS (MAE transcribed)': tableError(results.naive, height, width, d),
    };
    printTable(`sinusoidal2d, ${height} x ${width} patches, dModel ${d} (x limit: against store + copy-out)`, Object.keys(ms).map((name) => ({ name, ms: ms[name], error: errors[name] })), 'limit: wasm store + copy-out');
    wa.free();
    probes.free(probePtr);
  }
  // a sampler's batch of fractional timesteps, and every training timestep
  for (const [label, timesteps, dim] of [
    ['16 fractional timesteps, dim 320', Float64Array.from({ length: 16 }, (_, i) => 999 - i * 62.4375), 320],
    ['timesteps 0..999, dim 1024', Float64Array.from({ length: 1000 }, (_, i) => i), 1024],
  ]) {
    const n = timesteps.length * dim;
    const out = new Float32Array(n);
    const probePtr = probes.malloc(n * 4);
    const results = {};
    const options = { timesteps, dim, flipSinToCos: true, downscaleFreqShift: 0, out };
    const ms = race(warmed({
      'limit: wasm store + copy-out': () => {
        probes.probe_store(probePtr, n);
        out.set(new Float32Array(probes.memory.buffer, probePtr, n));
      },
      'posenc (into a JS array)': () => (results.posenc = posenc.timestepEmbedding(options)),
      'naive JS (diffusers transcribed)': () => (results.naive = naiveTimesteps(timesteps, dim)),
    }));
    const errors = {
      'posenc (into a JS array)': timestepError(results.posenc, timesteps, dim),
      'naive JS (diffusers transcribed)': timestepError(results.naive, timesteps, dim),
    };
    printTable(`timestepEmbedding, ${label} (flip, shift 0)`, Object.keys(ms).map((name) => ({ name, ms: ms[name], error: errors[name] })), 'limit: wasm store + copy-out');
    probes.free(probePtr);
  }
}
