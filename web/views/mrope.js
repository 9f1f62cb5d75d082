// views/mrope.js: the M-RoPE positions (Qwen2-VL) of a text + image + text
// sequence, from posenc's mropePositions: three rows (temporal, height,
// width), one column per token. Text counts up on all three axes together;
// the image's patches share its first position on the temporal axis and
// count rows and columns on the other two; the text after it resumes past
// the largest position used.
import { int } from '../state.js';
import { drawHeatmapFigure, matrixSource } from '../draw/heatmap.js';

const AXES = ['temporal', 'height', 'width'];

export default {
  id: 'mrope',
  labels: { before: 'text before', t: 'frames', gh: 'grid height', gw: 'grid width', after: 'text after', tps: 'tokensPerSecond' },
  params: { before: int(0, 64, 6), t: int(1, 8, 1), gh: int(2, 64, 8, 2), gw: int(2, 64, 12, 2), after: int(0, 64, 5), tps: int(0, 50, 0) },

  spans(s) {
    const grid = { t: s.t, h: s.gh, w: s.gw };
    return [{ text: s.before }, s.t > 1 ? { video: grid } : { image: grid }, { text: s.after }];
  },

  positions(s, posenc) {
    return posenc.mropePositions({ spans: this.spans(s), spatialMergeSize: 2, tokensPerSecond: s.tps });
  },

  data(s, posenc) {
    const p = this.positions(s, posenc);
    const seq = p.length / 3;
    return { ...matrixSource(p, 3, seq), header: ['axis', ...Array.from({ length: seq }, (_, i) => `token${i}`)], text: String };
  },

  draw(ctx, t, size, s, posenc) {
    const p = this.positions(s, posenc);
    const seq = p.length / 3;
    let max = 0;
    for (const v of p) max = Math.max(max, v);
    const fig = drawHeatmapFigure(ctx, t, size, {
      ...matrixSource(p, 3, seq), min: 0, max: Math.max(max, 1), integer: true,
      margin: { left: 80, right: 86, top: 34, bottom: 46 },
      rowTick: (r) => AXES[r], title: 'M-RoPE positions: text, image, text', xLabel: 'Token', yLabel: '', barLabel: 'position',
    });
    const imageTokens = s.t * (s.gh / 2) * (s.gw / 2);
    const what = (i) => {
      if (i < s.before) return `text token ${i}`;
      if (i < s.before + imageTokens) {
        const j = i - s.before, perFrame = (s.gh / 2) * (s.gw / 2);
        return `${s.t > 1 ? 'video' : 'image'} token: frame ${Math.floor(j / perFrame)}, row ${Math.floor((j % perFrame) / (s.gw / 2))}, column ${j % (s.gw / 2)}`;
      }
      return `text token ${i - s.before - imageTokens} after the ${s.t > 1 ? 'video' : 'image'}`;
    };
    return {
      ...fig, rows: 3, cols: seq, min: 0, max: Math.max(max, 1),
      describe: (r, i) => `token ${i} (${what(i)}) · ${AXES[r]} position ${p[r * seq + i]} · (t, h, w) = (${p[i]}, ${p[seq + i]}, ${p[2 * seq + i]})`,
    };
  },
};
