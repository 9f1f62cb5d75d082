/*
 * abi_check.c: compiles the _Static_asserts that tools/abi.mjs writes from
 * include/posenc.h and include/posenc_encoder.h (build/abi-asserts.h): every enum value and wasm32 struct
 * offset of the JS mirror (build/abi.js) checked by the compiler itself.
 * Wasm only: the offsets are those of the wasm32 ABI.
 */
#include "abi-asserts.h"
