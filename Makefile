# posenc: every build and check. `make test` and `make demo` are the two commands;
# both install what is missing first (Debian packages via apt, npm devDependencies).

CC      ?= cc
EMCC    ?= emcc
NODE    ?= node
PORT    ?= 8080

# With Node.js 20, emcc's JS optimizer finds Debian's acorn (/usr/share/nodejs)
# only through NODE_PATH.
export NODE_PATH := /usr/share/nodejs$(if $(NODE_PATH),:$(NODE_PATH))

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wvla -Wpointer-arith
# -ffp-contract=off: no fused multiply-adds, so native and wasm round alike.
CSTD    := -std=c11 -ffp-contract=off -Iinclude -Isrc $(WARN)
CFLAGS  ?= -O2
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# Two headers, two halves of the sources: include/posenc.h is implemented by
# src/*.c (the default entry's wasm), include/posenc_encoder.h by
# src/encoder/*.c (added in the encoder's wasm).
HEADERS := include/posenc.h include/posenc_encoder.h
POS_C   := $(wildcard src/*.c)
ENC_C   := $(wildcard src/encoder/*.c)
SRCS    := $(POS_C) $(ENC_C)
HDRS    := $(HEADERS) $(wildcard src/*.h src/encoder/*.h)
TESTS_C := $(wildcard tests/c/*.c)

# The C ABI is read off the headers once (tools/abi.mjs): the JS mirror of its
# enums, status codes and struct layouts, the _Static_asserts that check that
# mirror against the compiler, and what each wasm exports: the routines
# declared in posenc.h ('posenc'), and in both headers ('posenc/encoder').
ABI     := build/abi.js build/abi-asserts.h build/exports-posenc.txt build/exports-encoder.txt
# Two entries, each with its own wasm in two builds (SIMD and baseline):
# 'posenc' (the positional encodings) and 'posenc/encoder' (everything).
WASM        := dist/posenc.wasm
WASM_BASE   := dist/posenc-baseline.wasm
ENC_WASM    := dist/posenc-encoder.wasm
ENC_BASE    := dist/posenc-encoder-baseline.wasm
JS_DIST := dist/posenc.mjs dist/posenc.cjs dist/posenc.d.ts dist/posenc.d.cts \
           dist/encoder.mjs dist/encoder.cjs dist/encoder.d.ts dist/encoder.d.cts dist/cli.mjs
JS_SRCS := $(shell find src/js src/cli -name '*.js' -o -name '*.d.ts')

NODE_STAMP := node_modules/.package-lock.json

.PHONY: all deps tools test-tools wasm js native install uninstall test test-c test-js bench demo clean help
.DEFAULT_GOAL := all

all: deps wasm js native

help:
	@echo "make demo   build and serve the demo on http://127.0.0.1:$(PORT)"
	@echo "make test   build and run every test (C native + sanitized, Jest, browser)"
	@echo "make wasm | js | native | clean"
	@echo "make fuzz   fuzz every public C routine FUZZ_SECONDS each (default 60), ASan + UBSan"
	@echo "make install PREFIX=...   the C header, static library and posenc.pc"
	@echo "make models retrain the models of web/models/, copy and reversal (PyTorch, ~4 hours on 2 cores)"
	@echo "make reference  rewrite tests/fixtures/reference-torch/ from the reference implementations (PyTorch)"

# ---------------------------------------------------------------- dependencies
# apt_install(name, package[, check]): install a Debian package when `check`
# fails (default: `command -v name`, the package's command); `name` is what the
# message calls missing.
define apt_install
	@$(if $(3),$(3),command -v $(1)) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; \
	  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; \
	  else echo "posenc: '$(1)' is missing: install the Debian package '$(2)' (apt-get install $(2))"; exit 1; fi; \
	  echo "posenc: installing $(2) (apt-get)"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(2) >/dev/null; \
	}
endef

# Building needs Emscripten and the npm devDependencies; the tests also need
# Chromium (browser tests) and pkg-config (the C consumer test).
deps: tools $(NODE_STAMP)

tools:
	$(call apt_install,$(EMCC),emscripten)

test-tools:
	$(call apt_install,chromium,chromium)
	$(call apt_install,pkg-config,pkgconf)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

# ---------------------------------------------------------------- wasm + JS
$(ABI) &: $(HEADERS) tools/abi.mjs | build
	$(NODE) tools/abi.mjs build $(HEADERS)

# Two builds, chosen at init() by feature detection: WASM SIMD, and a baseline
# for engines without it (bit-identical results, see src/simd.h). The inner
# loops are compiled for speed, everything else for size: the wasm ships
# inline in the JS.
# malloc and free are posenc's own (src/wasm/malloc.c, wasm only): Emscripten
# 3.1.6's emmalloc hands out blocks past the end of a memory that may grow to
# 4 GiB, and its dlmalloc refuses 2 GiB requests.
# KERNELS are the inner loops, at -O2: at -Oz the table and rotation loops run
# 5 to 12 times slower (their small helpers stay calls), and -O3 (unrolling
# further) measured no faster for 2.7 KB more of the default entry's wasm.
# src/fmath.c counts as one for sincos (a sincos per value in the float32 RoPE
# recipe); its exp, log and pow are compiled for size inside it (COLD). The
# encoder's attention and its exp / GELU (encoder/nn_attend.c, nn_math.c) are kernels
# too. The loops that drive the kernels (rope_apply.c, rope_axes.c,
# sinusoidal.c) run as fast at -Oz. Speeds: bench/run.mjs; sizes: bench/size.mjs.
KERNELS   := src/trig.c src/rope_rotate.c src/encoder/nn_kernels.c src/encoder/nn_attend.c src/encoder/nn_math.c src/fmath.c
EMLINK    := -Oz --no-entry -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH -sMAXIMUM_MEMORY=4GB \
             -sINITIAL_MEMORY=1MB -sTOTAL_STACK=64KB -sERROR_ON_UNDEFINED_SYMBOLS=1 -sMALLOC=none
WASM_SRCS := $(SRCS) src/wasm/malloc.c src/wasm/abi_check.c
POS_SRCS  := $(POS_C) src/wasm/malloc.c src/wasm/abi_check.c
simd_objs  = $(1:src/%.c=build/wasm-simd/%.o)
base_objs  = $(1:src/%.c=build/wasm-base/%.o)

build/wasm-simd/%.o: src/%.c $(HDRS) build/abi-asserts.h Makefile
	@mkdir -p $(@D)
	$(EMCC) $(CSTD) -Ibuild $(if $(filter $(KERNELS),$<),-O2,-Oz) -msimd128 -c $< -o $@

build/wasm-base/%.o: src/%.c $(HDRS) build/abi-asserts.h Makefile
	@mkdir -p $(@D)
	$(EMCC) $(CSTD) -Ibuild $(if $(filter $(KERNELS),$<),-O2,-Oz) -c $< -o $@

# link(simd flag, objects, export list)
define link
	$(EMCC) $(EMLINK) $(1) -sEXPORTED_FUNCTIONS=$$(cat $(3)) $(2) -o $@
	@echo "posenc: $@ is $$(wc -c < $@) bytes ($$(gzip -9c $@ | wc -c) gzipped)"
endef

$(WASM): $(call simd_objs,$(POS_SRCS)) build/exports-posenc.txt | dist
	$(call link,-msimd128,$(call simd_objs,$(POS_SRCS)),build/exports-posenc.txt)

$(WASM_BASE): $(call base_objs,$(POS_SRCS)) build/exports-posenc.txt | dist
	$(call link,,$(call base_objs,$(POS_SRCS)),build/exports-posenc.txt)

$(ENC_WASM): $(call simd_objs,$(WASM_SRCS)) build/exports-encoder.txt | dist
	$(call link,-msimd128,$(call simd_objs,$(WASM_SRCS)),build/exports-encoder.txt)

$(ENC_BASE): $(call base_objs,$(WASM_SRCS)) build/exports-encoder.txt | dist
	$(call link,,$(call base_objs,$(WASM_SRCS)),build/exports-encoder.txt)

wasm: $(WASM) $(WASM_BASE) $(ENC_WASM) $(ENC_BASE)

# Each wasm travels inside its entry's JS (in hex: src/js/core/hex.js), so no
# bundler ever has to find a file.
INLINE := $(patsubst dist/%,build/%.js,$(WASM) $(WASM_BASE) $(ENC_WASM) $(ENC_BASE))
build/%.wasm.js: dist/%.wasm tools/embed-wasm.mjs | build
	$(NODE) tools/embed-wasm.mjs $< $@

$(JS_DIST) &: $(JS_SRCS) $(INLINE) build/abi.js $(NODE_STAMP) tools/bundle.mjs | dist
	$(NODE) tools/bundle.mjs

js: $(JS_DIST)

# ---------------------------------------------------------------- native
NATIVE_OBJS := $(SRCS:src/%.c=build/native/%.o)

build/native/%.o: src/%.c $(HDRS) | build
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(CFLAGS) -c $< -o $@

build/native/libposenc.a: $(NATIVE_OBJS)
	$(AR) rcs $@ $^

# -Isrc/encoder: tests/c/test_kernels.c checks the internal kernels (src/encoder/nn_*.h) directly.
build/native/test_posenc: $(TESTS_C) build/native/libposenc.a tests/c/check.h $(HDRS)
	$(CC) $(CSTD) $(CFLAGS) -Isrc/encoder -Itests/c $(TESTS_C) build/native/libposenc.a -lm -o $@

# Sanitized: the library and the tests rebuilt together with ASan + UBSan.
build/asan/test_posenc: $(TESTS_C) $(SRCS) $(HDRS) tests/c/check.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) -O1 -g $(SAN) -Isrc/encoder -Itests/c $(TESTS_C) $(SRCS) -lm -o $@

# The accuracy of src/fmath.c in ulps against long double libm (its own binary:
# valgrind, which runs test_posenc, evaluates long double in double precision).
build/native/test_fmath: tests/fmath/ulp.c build/native/libposenc.a src/fmath.h tests/c/check.h
	$(CC) $(CSTD) $(CFLAGS) -Isrc/encoder -Itests/c $< build/native/libposenc.a -lm -o $@

# The native half of tests/builds/native-wasm.test.js: calls from stdin, bytes out.
build/native/tables: tests/fmath/tables.c build/native/libposenc.a
	$(CC) $(CSTD) $(CFLAGS) $< build/native/libposenc.a -lm -o $@

native: build/native/libposenc.a

# C consumers: the header, the static library and a pkg-config file, so that
# `cc app.c $$(pkg-config --cflags --libs posenc)` builds against the install.
PREFIX  ?= /usr/local
VERSION := $(shell sed -n 's/^  "version": "\([^"]*\)".*/\1/p' package.json)

install: build/native/libposenc.a
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/
	install -m 644 build/native/libposenc.a $(DESTDIR)$(PREFIX)/lib/libposenc.a
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' tools/posenc.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/posenc.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/posenc.h $(DESTDIR)$(PREFIX)/include/posenc_encoder.h $(DESTDIR)$(PREFIX)/lib/libposenc.a $(DESTDIR)$(PREFIX)/lib/pkgconfig/posenc.pc

# ---------------------------------------------------------------- tests
test: deps test-tools wasm js native build/native/test_posenc build/native/test_fmath build/native/tables build/asan/test_posenc fuzz-build
	@bash tests/run-all.sh

test-c: build/native/test_posenc build/native/test_fmath build/asan/test_posenc
	build/native/test_posenc
	build/native/test_fmath
	build/asan/test_posenc

test-js: deps wasm js
	NODE_OPTIONS=--experimental-vm-modules npx jest

# ---------------------------------------------------------------- hardening
# libFuzzer targets, one per public routine (tests/fuzz/<routine>.c, sharing
# tests/fuzz/decode.c), run by tests/hardening.sh with valgrind, cppcheck and
# clang-tidy. `make fuzz` fuzzes each target FUZZ_SECONDS; `make test` briefly.
CLANG        ?= clang-14
CLANG_TIDY   ?= clang-tidy
FUZZ_SECONDS ?= 60
# seconds per target inside `make test` (tests/run-all.sh reads it)
export FUZZ_TEST_SECONDS ?= 1
FUZZ_SAN     := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRCS    := $(filter-out tests/fuzz/decode.c,$(wildcard tests/fuzz/*.c))
FUZZ_TARGETS := $(FUZZ_SRCS:tests/fuzz/%.c=build/fuzz/%)
FUZZ_OBJS    := $(SRCS:src/%.c=build/fuzz/obj/%.o) build/fuzz/obj/decode.o

.PHONY: hardening-tools fuzz-build fuzz
hardening-tools:
	$(call apt_install,$(CLANG),clang-14)
	$(call apt_install,libclang_rt.fuzzer,libclang-rt-14-dev,test -e "$$($(CLANG) -print-runtime-dir)/libclang_rt.fuzzer-$$(uname -m).a")
	$(call apt_install,valgrind,valgrind)
	$(call apt_install,cppcheck,cppcheck)
	$(call apt_install,$(CLANG_TIDY),clang-tidy)

build/fuzz/obj/%.o: src/%.c $(HDRS) | hardening-tools
	@mkdir -p $(@D)
	$(CLANG) $(CSTD) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c $< -o $@

build/fuzz/obj/decode.o: tests/fuzz/decode.c tests/fuzz/decode.h $(HEADERS) | hardening-tools
	@mkdir -p $(@D)
	$(CLANG) $(CSTD) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c $< -o $@

build/fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) $(FUZZ_OBJS)
	$(CLANG) $(CSTD) $(FUZZ_SAN) -fsanitize=fuzzer -Itests/fuzz -Itests/c $< $(FUZZ_OBJS) -lm -o $@

.SECONDARY: $(FUZZ_OBJS)
fuzz-build: hardening-tools $(FUZZ_TARGETS)

fuzz: fuzz-build
	@bash tests/hardening.sh fuzz $(FUZZ_SECONDS)

# ---------------------------------------------------------------- bench
# The limit probes: loops that only store, or only read and write, the bytes;
# and the parts of the kernels (bench/breakdown.mjs), linked with the kernels'
# own sources, compiled as the SIMD build compiles them (-O3 -msimd128).
PROBE_SRCS    := src/trig.c src/fmath.c src/rope_rotate.c src/rope_apply.c src/rope_freq.c src/params.c src/status.c src/sinusoidal.c
PROBE_EXPORTS := _probe_store,_probe_store_tiles,_probe_read_write,_probe_clock,_probe_clock_f64,_probe_recurrence,_probe_table_l1,_probe_rope_memory,_probe_rope_rotate,_probe_rope_rotate_kouter,_probe_rope_trig,_probe_f32x4_madd,_posenc_sinusoidal,_posenc_rope_apply,_malloc,_free
build/bench/probes.wasm: bench/probes.c $(PROBE_SRCS) $(HDRS) Makefile
	@mkdir -p $(@D)
	$(EMCC) $(CSTD) -Isrc -O3 -msimd128 --no-entry -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH \
	  -sMAXIMUM_MEMORY=4GB -sMALLOC=emmalloc \
	  -sEXPORTED_FUNCTIONS=$(PROBE_EXPORTS) $< $(PROBE_SRCS) -o $@

# The encoder's kernels called straight (bench/kernels.mjs), compiled as the
# SIMD build compiles them (-O2 -msimd128).
KERNEL_BENCH_SRCS := src/encoder/nn_kernels.c src/encoder/nn_attend.c src/encoder/nn_math.c
build/bench/kernels.wasm: bench/kernels.c $(KERNEL_BENCH_SRCS) $(HDRS) Makefile
	@mkdir -p $(@D)
	$(EMCC) $(CSTD) -Isrc/encoder -O2 -msimd128 --no-entry -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH \
	  -sMALLOC=emmalloc -sEXPORTED_FUNCTIONS=_kernel_linear,_kernel_gelu,_kernel_layer_norm,_kernel_attend,_malloc \
	  $< $(KERNEL_BENCH_SRCS) -o $@

# The matrix products with F16 / BF16 weights against float32 weights
# (bench/half-weights.mjs), compiled as the SIMD build compiles the kernels.
build/bench/half-weights.wasm: bench/half_weights.c src/encoder/nn_kernels.c $(HDRS) Makefile
	@mkdir -p $(@D)
	$(EMCC) $(CSTD) -Isrc/encoder -O2 -msimd128 --no-entry -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH \
	  -sMALLOC=emmalloc -sEXPORTED_FUNCTIONS=_matvec,_widen,_malloc $< src/encoder/nn_kernels.c -o $@

# The peer of the encoder (bench/encoder-ort.mjs, bench/generate-ort.mjs): ONNX Runtime Web, pinned in
# bench/ort/ and installed there by the bench alone (139 MB: never by make test),
# on the copy-task models exported from torch (tools/train/export_onnx.py, no
# onnx package needed). Without torch the export is skipped and the bench's
# rows say so.
ORT_STAMP  := bench/ort/node_modules/.package-lock.json
ONNX_INDEX := build/onnx/index.json

$(ORT_STAMP): bench/ort/package.json bench/ort/package-lock.json
	npm ci --prefix bench/ort --no-audit --no-fund
	@touch $@

$(ONNX_INDEX): tools/train/export_onnx.py tools/train/model.py tools/train/safetensors_io.py $(wildcard web/models/*.safetensors)
	@if $(TORCH_PYTHON) -c 'import torch' 2>/dev/null; then \
	  $(TORCH_PYTHON) tools/train/export_onnx.py --out $(@D); \
	else echo "posenc: $(TORCH_PYTHON) has no torch (apt-get install python3-torch): the ONNX Runtime rows of make bench are skipped"; fi

# The checkpoint bench (bench/checkpoint-ort.mjs): a random Llama checkpoint of
# about 10M parameters (config.json, model.safetensors) and its ONNX step graph,
# generated, never committed, by tools/reference/checkpoints/make_bench_checkpoint.py.
# TRANSFORMERS_SRC (a transformers checkout's src/) adds the check of the
# graph against transformers' LlamaForCausalLM.
BENCH_CKPT := build/checkpoints/llama-10m/index.json
TRANSFORMERS_SRC ?=

$(BENCH_CKPT): tools/reference/checkpoints/make_bench_checkpoint.py tools/reference/checkpoints/safetensors_write.py
	@if $(TORCH_PYTHON) -c 'import torch' 2>/dev/null; then \
	  $(TORCH_PYTHON) $< --out $(@D) $(if $(TRANSFORMERS_SRC),--transformers $(TRANSFORMERS_SRC)); \
	else echo "posenc: $(TORCH_PYTHON) has no torch (apt-get install python3-torch): bench/checkpoint-ort.mjs is skipped"; fi

.PHONY: bench-ort
bench-ort: $(ORT_STAMP) $(ONNX_INDEX) $(BENCH_CKPT)

# budgets.mjs and page-timings.mjs: the time budgets the tests do not assert (no
# clock in a test), each against a floor measured in the same run.
bench: deps wasm js build/bench/probes.wasm build/bench/kernels.wasm build/bench/half-weights.wasm bench-ort
	$(NODE) bench/run.mjs
	$(NODE) bench/breakdown.mjs
	$(NODE) bench/encoder-ort.mjs
	$(NODE) bench/generate-ort.mjs
	$(NODE) bench/checkpoint-ort.mjs
	$(NODE) bench/kernels.mjs
	$(NODE) bench/half-weights.mjs
	$(NODE) bench/decode.mjs
	$(NODE) bench/size.mjs
	$(NODE) bench/budgets.mjs
	$(NODE) bench/page-timings.mjs
	$(NODE) bench/demo-load.mjs

# ---------------------------------------------------------------- models
# The trained models of web/models/ (tools/train/README.md): per task (copy,
# reversal) one per positional scheme, identical but for it, and learned and
# RoPE positions trained at randomized positions; each trained on seeds
# 1..SEEDS with Debian's PyTorch (CPU) on 2 threads, then scored; the page's
# files are seed 1's, the manifest has every seed's scores. SEEDS=1 retrains
# only the page's models (the manifest keeps the other seeds' figures when
# the recipe is unchanged). Not part of `make test`: the trained files are
# committed and tests/encoder/trained-models.test.js checks them. OpenBLAS
# comes with torch: without it torch's matrix products use the reference
# BLAS, ~18x slower.
TORCH_PYTHON ?= /usr/bin/python3
SEEDS        ?= 3
MULTIARCH    := $(shell uname -m)-linux-gnu

.PHONY: models
models:
	$(call apt_install,torch,python3-torch,test -e /usr/lib/python3/dist-packages/torch/__init__.py)
	$(call apt_install,libopenblas.so.0,libopenblas0-pthread,test -e /usr/lib/$(MULTIARCH)/openblas-pthread/libopenblas.so.0)
	$(TORCH_PYTHON) tools/train/make_models.py --threads 2 --seeds $(SEEDS)

# ---------------------------------------------------------------- reference fixtures
# tests/fixtures/reference-torch/: the reference implementations (transformers,
# diffusers, MAE, llm-foundry, nn.TransformerEncoder) run in Debian's PyTorch and
# numpy (tools/reference/README.md). Not part of `make test`: the fixtures are
# committed and the tests read them.
.PHONY: reference
reference:
	$(call apt_install,torch,python3-torch,test -e /usr/lib/python3/dist-packages/torch/__init__.py)
	$(TORCH_PYTHON) tools/reference/make_fixtures.py

# ---------------------------------------------------------------- demo
demo: deps wasm js
	$(NODE) tools/serve.mjs --port $(PORT)

build dist:
	@mkdir -p $@

clean:
	rm -rf build dist
