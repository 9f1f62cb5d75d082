// views/relative.js: the JAX/Flax tutorial's relative-position matrix j - i + shift
// (shift defaults to the length, as the tutorial's `rpe += max_seq_len`).
import { int, optInt } from '../state.js';
import { drawHeatmapFigure, matrixSource } from '../draw/heatmap.js';

const shiftOf = (s) => (s.shift === null ? s.len : s.shift);

export default {
  id: 'relative',
  labels: { len: 'length', shift: 'shift' },
  params: { len: int(1, 2048, 50), shift: optInt(-100000, 100000) },

  data(s, posenc) {
    const m = posenc.relativePositions({ queryLength: s.len, shift: shiftOf(s) });
    return {
      ...matrixSource(m, s.len, s.len),
      header: ['query', ...Array.from({ length: s.len }, (_, j) => `key${j}`)],
      text: String,
    };
  },

  draw(ctx, t, size, s, posenc) {
    const data = this.data(s, posenc);
    const shift = shiftOf(s);
    const min = shift - (s.len - 1);
    const max = shift + (s.len - 1);
    const fig = drawHeatmapFigure(ctx, t, size, {
      ...data, min, max: max > min ? max : min + 1, integer: true, square: true,
      title: 'Relative Positional Encoding Heatmap', xLabel: 'Key position j', yLabel: 'Query position i', barLabel: 'Relative Distance',
    });
    return {
      ...fig, rows: s.len, cols: s.len, min, max: max > min ? max : min + 1,
      describe: (i, j) => `query i = ${i} · key j = ${j} · j − i = ${j - i} · value j − i + ${shift} = ${j - i + shift}`,
    };
  },
};
