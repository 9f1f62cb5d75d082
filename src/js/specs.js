// specs.js: every public function's options spec, by the function's name: what
// the command line's help and the tests read the options from. Not part of
// either entry (nothing there imports it).
import { sinusoidalSpec, frequencySpec as sinusoidalFrequencySpec, addSpec } from './sinusoidal.js';
import { spec as sinusoidal2dSpec } from './sinusoidal2d.js';
import { spec as timestepSpec } from './timestep.js';
import { spec as relativeSpec } from './relative.js';
import { spec as mropeSpec } from './mrope.js';
import { spec as transformerXLSpec } from './transformer_xl.js';
import { frequenciesSpec, cacheSpec, applySpec, permuteSpec } from './rope.js';
import { slopesSpec, biasSpec } from './alibi.js';
import { t5BucketsSpec, t5BiasSpec, debertaSpec } from './buckets.js';
import { configSpec } from './config/rope-config.js';
import { spec as queryScalesSpec } from './config/query-scales.js';

export const SPECS = {
  sinusoidal: sinusoidalSpec,
  sinusoidalFrequencies: sinusoidalFrequencySpec,
  addSinusoidal: addSpec,
  sinusoidal2d: sinusoidal2dSpec,
  timestepEmbedding: timestepSpec,
  relativePositions: relativeSpec,
  mropePositions: mropeSpec,
  transformerXLEmbedding: transformerXLSpec,
  ropeFrequencies: frequenciesSpec,
  ropeCache: cacheSpec,
  applyRope: applySpec,
  ropePermuteWeights: permuteSpec,
  ropeFromConfig: configSpec,
  queryScalesFromConfig: queryScalesSpec,
  alibiSlopes: slopesSpec,
  alibiBias: biasSpec,
  t5Buckets: t5BucketsSpec,
  t5Bias: t5BiasSpec,
  debertaBuckets: debertaSpec,
};
