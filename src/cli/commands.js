// commands.js: the CLI's subcommands. Each names the API function it calls,
// its flags (the function's option names in kebab-case: dModel is --d-model),
// and how the result becomes one tensor { shape, dtype, read(start, count) }.
// The library validates every value, so its error messages are the CLI's.
import { closeSync, openSync, readSync } from 'node:fs';
import { CHUNK } from './formats.js';
import { computed, offsetBy, rowChunked } from './tensor.js';

/** A flag: the option it sets, how its text is read, and its help line. */
const flag = (option, kind, help) => ({ option, kind, help });

const QUERY_KEY = {
  'query-length': flag('queryLength', 'number', 'query rows'),
  'key-length': flag('keyLength', 'number', 'key columns (default: query-length)'),
};

const ROPE = {
  'rotary-dim': flag('rotaryDim', 'number', 'rotated features (--config gives it)'),
  base: flag('base', 'number', 'rope_theta'),
  scaling: flag('scaling', 'json', `Hugging Face rope_scaling in camelCase, as JSON, e.g. '{"type":"linear","factor":2}'`),
  config: flag(null, 'file', "a Hugging Face config.json: rotary dim, base and scaling from it (ropeFromConfig); flags override"),
  'layer-type': flag(null, 'string', "the layer type of a per-layer-type config (e.g. Gemma 3's 'sliding_attention')"),
  layer: flag(null, 'number', 'the layer of --config whose RoPE to use (its type: layer_types, sliding_window_pattern, ...)'),
};

/** The most of a --config file read: a config.json is some kB, 8 MiB is generous. */
export const CONFIG_LIMIT = 8 << 20;

/**
 * A file's text, read by at most `limit` + 1 bytes whatever the file is
 * (/dev/zero, a FIFO that never ends, a model's weights given by mistake).
 */
function readBounded(path, limit) {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(limit + 1);
    let size = 0;
    for (let n; size <= limit && (n = readSync(fd, buffer, size, limit + 1 - size, null)) > 0; ) size += n;
    if (size > limit) throw new UsageError(`--config ${path} is larger than ${limit} bytes: not a config.json`);
    return buffer.toString('utf8', 0, size);
  } finally {
    closeSync(fd);
  }
}

// Reads --config into the RoPE options (ropeFromConfig), explicit flags winning.
function ropeOptions(posenc, o, extra) {
  const { config, layerType, layer, ...rest } = o;
  let fromConfig = {};
  if (config !== undefined) {
    const text = readBounded(config, CONFIG_LIMIT);
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--config ${config} is not valid JSON: ${error.message}`);
    }
    const which = { ...(layerType === undefined ? {} : { layerType }), ...(layer === undefined ? {} : { layer }) };
    fromConfig = posenc.ropeFromConfig(parsed, which);
    if (fromConfig === null) throw new UsageError(`--config ${config}: ${layer !== undefined ? `layer ${layer}` : `layer type '${layerType}'`} has no RoPE (a NoPE layer)`);
  } else if (layerType !== undefined || layer !== undefined) {
    throw new UsageError(`--${layerType !== undefined ? 'layer-type' : 'layer'} needs --config`);
  }
  return { ...fromConfig, ...rest, ...extra };
}

/** A mistake in the command line itself (not in a value the library checks). */
export class UsageError extends Error {}

/** name -> { summary, calls, flags, run(posenc, options) -> { data, shape, dtype } } */
export const COMMANDS = {
  sinusoidal: {
    summary: 'the sinusoidal table [length][d-model] (Vaswani et al. 2017)',
    calls: 'sinusoidal',
    flags: {
      length: flag('length', 'number', 'rows (positions)'),
      'd-model': flag('dModel', 'number', 'columns (features)'),
      base: flag('base', 'number', 'frequency base'),
      offset: flag('offset', 'number', 'position of row 0'),
      layout: flag('layout', 'string', 'the order of the sin and cos columns'),
    },
    run: (posenc, o) => rowChunked({
      rows: o.length,
      width: o.dModel,
      compute: (first, rows, out) =>
        [posenc.sinusoidal(rows === o.length ? o : { ...o, length: rows, offset: offsetBy(o.offset, first), out: out?.[0] })],
      shape: [o.length, o.dModel],
      dtype: 'float32',
      chunk: CHUNK,
    }),
  },
  frequencies: {
    summary: 'the angular frequencies w_i of a sinusoidal layout (float64)',
    calls: 'sinusoidalFrequencies',
    flags: {
      'd-model': flag('dModel', 'number', 'columns (features)'),
      base: flag('base', 'number', 'frequency base'),
      layout: flag('layout', 'string', 'the order of the sin and cos columns'),
    },
    run: (posenc, o) => {
      const data = posenc.sinusoidalFrequencies(o);
      return computed(data, [data.length], 'float64');
    },
  },
  'sinusoidal-2d': {
    summary: "the 2-D sine-cosine table of ViTs, MAE and DiT [(cls) + height * width][d-model]; first half x, the column",
    calls: 'sinusoidal2d',
    flags: {
      height: flag('height', 'number', 'patch rows of the grid'),
      width: flag('width', 'number', 'patch columns of the grid'),
      'd-model': flag('dModel', 'number', 'columns (features), a multiple of 4'),
      base: flag('base', 'number', 'frequency base'),
      'cls-token': flag('clsToken', 'bool', "a first row of zeros for the cls token (MAE's cls_token=True)"),
      'base-size': flag('baseSize', 'number', "diffusers' base_size: coordinates x / (width / base-size) / interpolation-scale"),
      'interpolation-scale': flag('interpolationScale', 'number', "diffusers' interpolation_scale"),
    },
    run: (posenc, o) =>
      computed(posenc.sinusoidal2d(o), [(o.clsToken ? 1 : 0) + o.height * o.width, o.dModel], 'float32'),
  },
  timestep: {
    summary: "diffusers' timestep embedding [timesteps][dim]: [sin | cos] of real timesteps",
    calls: 'timestepEmbedding',
    flags: {
      timesteps: flag('timesteps', 'list', 'the timesteps, comma-separated (fractional ones too): 0,500.5,999'),
      dim: flag('dim', 'number', 'columns; an odd dim ends on a zero column'),
      'flip-sin-to-cos': flag('flipSinToCos', 'bool', "[cos | sin] (Stable Diffusion's UNets, DiT)"),
      'downscale-freq-shift': flag('downscaleFreqShift', 'number', 'w_k = exp(-ln(max-period) k / (dim/2 - shift)) (SD: 1, DiT: 0)'),
      scale: flag('scale', 'number', 'angles scale * t * w_k'),
      'max-period': flag('maxPeriod', 'number', 'the longest period'),
    },
    run: (posenc, o) => {
      const data = posenc.timestepEmbedding(o);
      return computed(data, [data.length / o.dim, o.dim], 'float32');
    },
  },
  relative: {
    summary: 'relative positions j - i + shift [query-length][key-length] (int32)',
    calls: 'relativePositions',
    flags: { ...QUERY_KEY, shift: flag('shift', 'number', 'added to every entry') },
    run: (posenc, o) => computed(posenc.relativePositions(o), [o.queryLength, o.keyLength ?? o.queryLength], 'int32'),
  },
  'rope-frequencies': {
    summary: 'RoPE inverse frequencies [rotary-dim / 2] (float64; the attention factor is folded into rope-cache)',
    calls: 'ropeFrequencies',
    flags: ROPE,
    run: (posenc, o) => {
      const { invFreq } = posenc.ropeFrequencies(ropeOptions(posenc, o));
      return computed(invFreq, [invFreq.length], 'float64');
    },
  },
  'rope-cache': {
    summary: 'RoPE cos and sin caches stacked [2][length][rotary-dim / 2]: index 0 is cos, 1 is sin',
    calls: 'ropeCache',
    flags: {
      length: flag('length', 'number', 'rows (positions) (required unless --rope2d: the grid gives them)'),
      offset: flag('offset', 'number', 'position of row 0'),
      ...ROPE,
      precision: flag('precision', 'string', "'float64' angles, or 'float32' (transformers' float32 recipe)"),
      rope2d: flag('rope2d', 'string', "2-D RoPE of a patch grid: 'pixtral' or 'axial' (the Qwen2-VL vision encoder); needs --grid"),
      grid: flag('grid', 'json', `with --rope2d: the patch grid as JSON, e.g. '{"height":16,"width":24}' (rows = patches, row-major)`),
    },
    run: (posenc, o) => {
      const options = ropeOptions(posenc, o);
      if (options.rope2d !== undefined) {
        // a patch grid's rows are not a run of positions: computed whole
        const { cos, sin } = posenc.ropeCache(options);
        const data = new Float32Array(cos.length * 2);
        data.set(cos);
        data.set(sin, cos.length);
        const half = options.rotaryDim / 2;
        return computed(data, [2, cos.length / half, half], 'float32');
      }
      // rows computed apart must see the whole table's sequence length (HF's
      // dynamic and LongRoPE scaling read it: max position + 1)
      const { scaling } = options;
      const whole = scaling !== null && typeof scaling === 'object' && scaling.seqLength === undefined &&
        (scaling.type === 'dynamic' || scaling.type === 'longrope') && Number.isSafeInteger(options.length)
        ? { ...scaling, seqLength: (options.offset ?? 0) + options.length } : scaling;
      return rowChunked({
        rows: options.length,
        width: options.rotaryDim / 2,
        parts: 2,
        compute: (first, rows, out) => {
          const { cos, sin } = posenc.ropeCache(rows === options.length ? options : {
            ...options, length: rows, offset: offsetBy(options.offset, first), scaling: whole,
            out: out && { cos: out[0], sin: out[1] },
          });
          return [cos, sin];
        },
        shape: [2, options.length, options.rotaryDim / 2],
        dtype: 'float32',
        chunk: CHUNK,
      });
    },
  },
  'mrope-positions': {
    summary: "M-RoPE positions [3][seq] (temporal, height, width) of text and image / video spans, as Qwen2-VL's get_rope_index (int32)",
    calls: 'mropePositions',
    flags: {
      spans: flag('spans', 'json', `the spans as JSON, e.g. '[{"text":12},{"image":[1,28,42]},{"text":5}]'`),
      'spatial-merge-size': flag('spatialMergeSize', 'number', 'the merger joins m x m patches'),
      'tokens-per-second': flag('tokensPerSecond', 'number', "Qwen2.5-VL's temporal spacing of video frames (0: Qwen2-VL)"),
    },
    run: (posenc, o) => {
      const data = posenc.mropePositions(o);
      return computed(data, [3, data.length / 3], 'int32');
    },
  },
  'alibi-slopes': {
    summary: 'ALiBi slopes, one per head [heads] (float64)',
    calls: 'alibiSlopes',
    flags: {
      heads: flag('heads', 'number', 'attention heads'),
      'max-bias': flag('maxBias', 'number', 'slopes 2^(-max-bias k / n) (Press et al.)'),
    },
    run: (posenc, { heads, ...o }) => {
      const data = posenc.alibiSlopes(heads, o);
      return computed(data, [data.length], 'float64');
    },
  },
  alibi: {
    summary: 'the ALiBi bias [heads][query-length][key-length] (causal: -inf above the diagonal)',
    calls: 'alibiBias',
    flags: {
      heads: flag('heads', 'number', 'attention heads'),
      ...QUERY_KEY,
      causal: flag('causal', 'bool', 'causal bias -m(i - j); --no-causal: -m|i - j|'),
      'query-offset': flag('queryOffset', 'number', 'position of query row 0'),
      'max-bias': flag('maxBias', 'number', 'slopes 2^(-max-bias k / n) (Press et al.)'),
    },
    run: (posenc, o) => computed(posenc.alibiBias(o), [o.heads, o.queryLength, o.keyLength ?? o.queryLength], 'float32'),
  },
  't5-buckets': {
    summary: "T5's relative position buckets [query-length][key-length] (int32)",
    calls: 't5Buckets',
    flags: {
      ...QUERY_KEY,
      bidirectional: flag('bidirectional', 'bool', 'the encoder\'s buckets; --no-bidirectional: the decoder\'s'),
      'num-buckets': flag('numBuckets', 'number', 'buckets'),
      'max-distance': flag('maxDistance', 'number', 'distances from it share the last bucket'),
      'query-offset': flag('queryOffset', 'number', 'position of query row 0'),
    },
    run: (posenc, o) => rowChunked({
      rows: o.queryLength,
      width: o.keyLength ?? o.queryLength,
      compute: (first, rows, out) => [posenc.t5Buckets(rows === o.queryLength ? o : {
        ...o, queryLength: rows, keyLength: o.keyLength ?? o.queryLength, queryOffset: offsetBy(o.queryOffset, first), out: out?.[0],
      })],
      shape: [o.queryLength, o.keyLength ?? o.queryLength],
      dtype: 'int32',
      chunk: CHUNK,
    }),
  },
  'deberta-buckets': {
    summary: "DeBERTa-v2's log buckets of query - key [query-length][key-length] (int32)",
    calls: 'debertaBuckets',
    flags: {
      ...QUERY_KEY,
      'bucket-size': flag('bucketSize', 'number', 'log buckets'),
      'max-position': flag('maxPosition', 'number', 'the distance the log buckets reach'),
    },
    run: (posenc, o) => computed(posenc.debertaBuckets(o), [o.queryLength, o.keyLength ?? o.queryLength], 'int32'),
  },
  'transformer-xl': {
    summary: "Transformer-XL's relative sinusoid [key-length][d-model], positions descending",
    calls: 'transformerXLEmbedding',
    flags: {
      'key-length': flag('keyLength', 'number', 'rows'),
      'd-model': flag('dModel', 'number', 'columns, even'),
      'clamp-length': flag('clampLength', 'number', 'clamp positions above it (0: none)'),
    },
    run: (posenc, o) => computed(posenc.transformerXLEmbedding(o), [o.keyLength, o.dModel], 'float32'),
  },
};

/** The option name of a flag that sets none in the API (--config -> config). */
export const optionOf = (name, spec) => spec.option ?? name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
