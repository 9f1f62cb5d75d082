// views/t5.js: T5's relative-position buckets (Hugging Face
// T5Attention._relative_position_bucket through posenc.t5Buckets): exact
// buckets for small distances, logarithmic ones up to maxDistance, then one
// bucket for everything farther. Bidirectional: keys after the query get the
// upper half of the buckets.
import { int, bool } from '../state.js';
import { drawHeatmapFigure, matrixSource } from '../draw/heatmap.js';

const options = (s) => ({ queryLength: s.len, numBuckets: s.buckets, maxDistance: s.maxDist, bidirectional: s.bidir });

export default {
  id: 't5',
  labels: { len: 'length', buckets: 'numBuckets', maxDist: 'maxDistance', bidir: 'bidirectional' },
  params: { len: int(1, 1024, 256), buckets: int(2, 256, 32), maxDist: int(1, 100000, 128), bidir: bool(true) },

  data(s, posenc) {
    return {
      ...matrixSource(posenc.t5Buckets(options(s)), s.len, s.len),
      header: ['query', ...Array.from({ length: s.len }, (_, j) => `key${j}`)],
      text: String,
    };
  },

  draw(ctx, t, size, s, posenc) {
    const buckets = posenc.t5Buckets(options(s));
    const max = s.buckets - 1;
    const fig = drawHeatmapFigure(ctx, t, size, {
      ...matrixSource(buckets, s.len, s.len), min: 0, max, integer: true, square: true,
      title: `T5 buckets (${s.buckets}, max distance ${s.maxDist})`, xLabel: 'Key position j', yLabel: 'Query position i', barLabel: 'Bucket',
    });
    return {
      ...fig, rows: s.len, cols: s.len, min: 0, max,
      describe: (i, j) => `query i = ${i} · key j = ${j} · j − i = ${j - i} · bucket ${buckets[i * s.len + j]}`,
    };
  },
};
