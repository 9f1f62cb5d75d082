/* probes.c: the limits posenc's kernels are measured against (bench only, not
 * part of the library): a loop that only stores, and one that only reads and
 * writes, the same bytes a kernel produces. Built with the library's flags. */
#include <stddef.h>
#include <wasm_simd128.h>

__attribute__((used)) void probe_store(float *out, size_t n)
{
    v128_t v = wasm_f32x4_splat(0.5f);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        wasm_v128_store(out + i, v);
    for (; i < n; i++)
        out[i] = 0.5f;
}

/* x *= factor: the caller passes 1, which the compiler cannot know. */
__attribute__((used)) void probe_read_write(float *x, size_t n, float factor)
{
    v128_t k = wasm_f32x4_splat(factor);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        wasm_v128_store(x + i, wasm_f32x4_mul(wasm_v128_load(x + i), k));
    for (; i < n; i++)
        x[i] *= factor;
}
