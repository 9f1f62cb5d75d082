// views/deberta.js: DeBERTa-v2/v3's log buckets of q - k (Hugging Face
// make_log_bucket_position through posenc.debertaBuckets): exact within
// bucketSize / 2, logarithmic beyond, signed. Defaults are DeBERTa-v3's
// (position_buckets 256, max_relative_positions 512).
import { int } from '../state.js';
import { drawHeatmapFigure, matrixSource } from '../draw/heatmap.js';

const options = (s) => ({ queryLength: s.len, bucketSize: s.bucketSize, maxPosition: s.maxPos });

export default {
  id: 'deberta',
  labels: { len: 'length', bucketSize: 'bucketSize', maxPos: 'maxPosition' },
  params: { len: int(1, 1024, 512), bucketSize: int(2, 4096, 256), maxPos: int(2, 100000, 512) },

  data(s, posenc) {
    return {
      ...matrixSource(posenc.debertaBuckets(options(s)), s.len, s.len),
      header: ['query', ...Array.from({ length: s.len }, (_, j) => `key${j}`)],
      text: String,
    };
  },

  draw(ctx, t, size, s, posenc) {
    const buckets = posenc.debertaBuckets(options(s));
    // symmetric scale: q - k buckets are odd in the offset
    let m = 1;
    for (const v of buckets) m = Math.max(m, Math.abs(v));
    const fig = drawHeatmapFigure(ctx, t, size, {
      ...matrixSource(buckets, s.len, s.len), min: -m, max: m, integer: true, square: true,
      title: `DeBERTa log buckets (${s.bucketSize}, ${s.maxPos})`, xLabel: 'Key position k', yLabel: 'Query position q', barLabel: 'Bucket of q − k',
    });
    return {
      ...fig, rows: s.len, cols: s.len, min: -m, max: m,
      describe: (q, k) => `query q = ${q} · key k = ${k} · q − k = ${q - k} · bucket ${buckets[q * s.len + k]}`,
    };
  },
};
