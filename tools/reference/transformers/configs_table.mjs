// configs_table.mjs: the table of docs/configs.md, every model_type of transformers'
// CONFIG_MAPPING and what posenc does with it, from tests/fixtures/transformers/
// model-types.json (what transformers' own code uses for positions: inventory.py) and
// posenc's family tables (src/js/config/families.js: how ropeFromConfig reads a
// RoPE model). tests/config/model-types.test.js checks that the page holds this table.
//
//     node tools/reference/transformers/configs_table.mjs          # rewrites the table
//     node tools/reference/transformers/configs_table.mjs --check  # exit 1 if stale
import { readFileSync, writeFileSync } from 'node:fs';
import { COMPOSITES, FAMILIES } from '../../../src/js/config/families.js';

const ROOT = new URL('../../../', import.meta.url);
export const DOC = new URL('docs/configs.md', ROOT);
export const START = '<!-- model-types table: tools/reference/transformers/configs_table.mjs -->';
export const END = '<!-- end of the model-types table -->';

/** What each scheme of inventory.py is, in the table's words. */
export const POSITIONS = {
  rope: 'RoPE',
  learned: 'learned absolute',
  sinusoidal: 'fixed sinusoidal absolute',
  relative: 'relative, of its own kind',
  none: 'none (state-space, recurrent or convolutional)',
  alibi: 'ALiBi',
  't5-buckets': "T5's relative buckets",
  'deberta-buckets': "DeBERTa's log buckets",
  convolutional: 'a convolution over the sequence',
  'rope-vision': 'RoPE over image coordinates',
  'rope-audio': 'RoPE over audio frames',
  composite: 'those of the models it wraps',
  'rope-or-learned': 'learned absolute, or RoPE (position_embedding_type)',
};

/** What posenc does with a model that is not served, by scheme. */
const REFUSED = {
  learned: 'refused: learned positions (posenc/encoder: `learned`)',
  sinusoidal: 'refused: a sinusoidal table (`sinusoidal`)',
  relative: 'refused: relative positions of its own (`transformerXLEmbedding` for Transformer-XL)',
  none: 'refused: no positions',
  alibi: '`alibiFromConfig`',
  't5-buckets': 'refused: `t5Buckets`, `t5Bias`',
  'deberta-buckets': 'refused: `debertaBuckets`',
  convolutional: 'refused: no position table',
  'rope-vision': 'refused: not a text model (`ropeCache` rope2d for Pixtral-style 2-D RoPE)',
  'rope-audio': 'refused: not a text model',
  composite: 'refused: pass the config of its text decoder',
  'rope-or-learned': "refused: learned positions, or RoPE that `ropeCache({ base: 10000, layout: 'half' })` gives",
};

const own = (o, k) => (Object.hasOwn(o, k) ? o[k] : undefined);

/** A reason up to its first ':' outside parentheses, its parenthesized asides dropped. */
function headline(reason) {
  let depth = 0;
  let end = reason.length;
  for (let i = 0; i < reason.length; i++) {
    if (reason[i] === '(') depth++;
    else if (reason[i] === ')') depth--;
    else if (reason[i] === ':' && depth === 0) {
      end = i;
      break;
    }
  }
  return reason.slice(0, end).replace(/ \([^()]*\)/g, '').trim();
}

/** ropeFromConfig's reading of a RoPE model, in a few words. */
function served(type) {
  const composite = own(COMPOSITES, type);
  const text = composite ? composite.text : type;
  const f = own(FAMILIES, text);
  if (!f) return null;
  if (f.refuse) return `refused: ${headline(f.refuse)}`;
  const notes = [`\`${f.layout ?? 'half'}\``];
  if (f.special === 'deepseek') notes[0] = f.interleaveKey ? '`interleaved` (`half` with rope_interleave false)' : '`interleaved`';
  if (f.partial !== undefined && f.partial < 1) notes.push(`partial ${f.partial}`);
  else if (f.dict === 'gptneox') notes.push(`partial ${f.partialKeyDefault ?? 0.25} (rotary_pct)`);
  else if (f.special === 'deepseek') notes.push('qk_rope_head_dim');
  else if (f.special === 'gptj') notes.push('rotary_dim');
  if (f.partialForced !== undefined) notes.push(`partial ${f.partialForced}`);
  if (f.mrope) notes.push(f.mrope === 'interleaved' ? 'M-RoPE, interleaved' : 'M-RoPE');
  if (f.layerRule || f.layerTypes || f.thetaByType) notes.push('per layer');
  if (f.rope) notes.push(`default \`${f.rope.rope_type ?? f.rope.type}\``);
  if (f.queryScale) notes.push('query scales');
  if (f.remote) notes.push('remote code');
  const via = composite ? (composite.key === '' ? '' : ` of \`${composite.key}\` (\`${text}\`)`) : '';
  return `\`ropeFromConfig\`${via}: ${notes.join(', ')}`;
}

/** The table's rows, one per model_type of model-types.json, in its order. */
export function rows(modelTypes) {
  return Object.entries(modelTypes).map(([type, row]) => {
    const what = row.scheme === 'rope' || row.scheme === 'alibi' ? (served(type) ?? REFUSED[row.scheme]) : REFUSED[row.scheme];
    return { type, positions: POSITIONS[row.scheme], posenc: what ?? 'refused' };
  });
}

export function table(modelTypes) {
  const lines = ['| model_type | positions (transformers) | posenc |', '| --- | --- | --- |'];
  for (const r of rows(modelTypes)) lines.push(`| \`${r.type}\` | ${r.positions} | ${r.posenc} |`);
  return lines.join('\n');
}

export const readModelTypes = () => JSON.parse(readFileSync(new URL('tests/fixtures/transformers/model-types.json', ROOT))).modelTypes;

/** The page with its table replaced. */
export function withTable(page, modelTypes) {
  const a = page.indexOf(START);
  const b = page.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/configs.md: no ${START} ... ${END} block`);
  return `${page.slice(0, a + START.length)}\n${table(modelTypes)}\n${page.slice(b)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const page = readFileSync(DOC, 'utf8');
  const next = withTable(page, readModelTypes());
  if (process.argv.includes('--check')) {
    if (next !== page) {
      console.error('docs/configs.md: the model-types table is stale: run node tools/reference/transformers/configs_table.mjs');
      process.exit(1);
    }
  } else {
    writeFileSync(DOC, next);
  }
}
