// rows.js: the encoder's rows of the parameter table (posenc_encoder.h,
// POSENC_ENCODER_PARAMETERS) added to those row() knows, and param() and
// row() for the encoder's specs: importing them from here runs the adding
// first. The default entry never imports this module, so its bundle holds
// posenc.h's rows alone.
import { encoder_params } from '../../../build/abi.js';
import { addRows, row } from '../core/errors.js';
import { param } from '../core/options.js';

addRows(encoder_params);

export { param, row };
