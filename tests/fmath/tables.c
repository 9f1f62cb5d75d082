/*
 * tables.c: the native half of tests/builds/native-wasm.test.js. Reads one call per
 * line from stdin, runs it with the native library and prints the status and
 * the bytes it wrote in hex, one line per call; the test runs the same calls
 * in the wasm builds and compares the bytes.
 *
 *   sinusoidal L d base offset layout
 *   sinusoidal_frequencies d base layout
 *   rope_frequencies r base seq_len type factor original max attention beta_fast
 *                    beta_slow mscale mscale_all low high    (LongRoPE factors:
 *                    short 1 + k / r, long 1 + 4 k / r)
 *   rope_cache L offset precision attention f_0 ... f_{r/2-1}
 *   alibi_slopes heads max_bias
 *   transformer_xl key_len d clamp
 *   t5_buckets q k bidirectional num_buckets max_distance offset
 *   deberta_buckets q k bucket_size max_position
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posenc.h"

enum { MAX_ARGS = 80 };

static void print_hex(int status, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    printf("%d ", status);
    for (size_t i = 0; i < bytes; i++)
        printf("%02x", p[i]);
    printf("\n");
}

static void *allocate(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p) {
        fprintf(stderr, "tables: out of memory\n");
        exit(1);
    }
    return p;
}

static void run(const char *name, const double *a, int n)
{
    if (strcmp(name, "sinusoidal") == 0 && n == 5) {
        size_t len = (size_t)a[0] * (size_t)a[1];
        float *out = allocate(len, sizeof *out);
        int status = posenc_sinusoidal(out, len, (size_t)a[0], (size_t)a[1], a[2], (int32_t)a[3], (int)a[4]);
        print_hex(status, out, len * sizeof *out);
        free(out);
    } else if (strcmp(name, "sinusoidal_frequencies") == 0 && n == 3) {
        size_t len = (size_t)a[0];
        double *out = allocate(len, sizeof *out);
        print_hex(posenc_sinusoidal_frequencies(out, len, len, a[1], (int)a[2]), out, len * sizeof *out);
        free(out);
    } else if (strcmp(name, "rope_frequencies") == 0 && n == 14) {
        size_t half = (size_t)a[0] / 2;
        double *out = allocate(half + 1, sizeof *out);
        double *short_f = allocate(half, sizeof *short_f), *long_f = allocate(half, sizeof *long_f);
        for (size_t k = 0; k < half; k++) {
            short_f[k] = 1.0 + (double)k / a[0];
            long_f[k] = 1.0 + 4.0 * (double)k / a[0];
        }
        posenc_rope_scaling s = { (int)a[3], 0, a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
                                  a[12], a[13], short_f, long_f, half };
        posenc_rope rope = { (size_t)a[0], a[1], s, (size_t)a[2], NULL, 0, 0, 0 };
        int status = posenc_rope_frequencies(out, half, &rope, NULL, out + half);
        print_hex(status, out, (half + 1) * sizeof *out);
        free(out), free(short_f), free(long_f);
    } else if (strcmp(name, "rope_cache") == 0 && n >= 5) {
        size_t half = (size_t)(n - 4), len = (size_t)a[0] * half;
        float *out = allocate(2 * len, sizeof *out);
        posenc_rope rope = { 2 * half, 0, { 0 }, 0, a + 4, a[3], 0, (int)a[2] };
        int status = posenc_rope_cache(out, out + len, len, (size_t)a[0], (int32_t)a[1], NULL, &rope);
        print_hex(status, out, 2 * len * sizeof *out);
        free(out);
    } else if (strcmp(name, "alibi_slopes") == 0 && n == 2) {
        size_t heads = (size_t)a[0];
        double *out = allocate(heads, sizeof *out);
        print_hex(posenc_alibi_slopes(out, heads, heads, a[1]), out, heads * sizeof *out);
        free(out);
    } else if (strcmp(name, "transformer_xl") == 0 && n == 3) {
        size_t len = (size_t)a[0] * (size_t)a[1];
        float *out = allocate(len, sizeof *out);
        int status = posenc_transformer_xl_embedding(out, len, (size_t)a[0], (size_t)a[1], (int32_t)a[2]);
        print_hex(status, out, len * sizeof *out);
        free(out);
    } else if (strcmp(name, "t5_buckets") == 0 && n == 6) {
        size_t len = (size_t)a[0] * (size_t)a[1];
        int32_t *out = allocate(len, sizeof *out);
        int status = posenc_t5_buckets(out, len, (size_t)a[0], (size_t)a[1], (int)a[2], (size_t)a[3],
                                       (size_t)a[4], (int32_t)a[5]);
        print_hex(status, out, len * sizeof *out);
        free(out);
    } else if (strcmp(name, "deberta_buckets") == 0 && n == 4) {
        size_t len = (size_t)a[0] * (size_t)a[1];
        int32_t *out = allocate(len, sizeof *out);
        int status = posenc_deberta_buckets(out, len, (size_t)a[0], (size_t)a[1], (size_t)a[2], (size_t)a[3]);
        print_hex(status, out, len * sizeof *out);
        free(out);
    } else {
        fprintf(stderr, "tables: unknown call '%s' with %d arguments\n", name, n);
        exit(1);
    }
}

int main(void)
{
    char line[4096], name[64];
    int used;
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "%63s%n", name, &used) != 1)
            continue;
        double a[MAX_ARGS];
        int n = 0;
        for (char *p = line + used, *end; n < MAX_ARGS; p = end) {
            a[n] = strtod(p, &end);
            if (end == p)
                break;
            n++;
        }
        run(name, a, n);
    }
    return 0;
}
