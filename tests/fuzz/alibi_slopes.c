/* Fuzz target: posenc_alibi_slopes. On success every slope is finite, in
 * [0, 1], the first p slopes (p the largest power of two <= heads) decrease,
 * and each is the paper's 2^(-max_bias k / n) evaluated in long double: the p
 * slopes of p, then the odd-numbered slopes of 2p (ofirpress get_slopes); and
 * the same list read MPT's way (llm-foundry gen_slopes: the slopes of the next
 * power of two N, the odd-indexed ones then the even-indexed ones). */
#include <math.h>

#include "decode.h"
#include "posenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = { data, size };
    size_t heads = take_size(&in);
    double max_bias = take_double(&in);
    int null = take_null(&in);
    size_t out_len = take_len(&in, heads, 1);
    int must_fail = fuzz_plan(&out_len, heads, 1);
    fuzz_buf out;
    buf_new(&out, out_len, must_fail ? FUZZ_CAP : heads, sizeof(double));

    int status = posenc_alibi_slopes(null ? NULL : (double *)(void *)out.p, out_len, heads, max_bias);
    check_status(status);
    FUZZ_ASSERT(!null || status == POSENC_ERR_NULL_POINTER);
    FUZZ_ASSERT(status != POSENC_OK || !must_fail);
    if (status != POSENC_OK) {
        FUZZ_ASSERT(buf_unchanged(&out));
    } else {
        const double *m = (const double *)(const void *)out.p;
        size_t p = 1;
        while (p <= heads / 2)
            p *= 2;
        long double bias = max_bias == 0.0 ? 8.0L : (long double)max_bias;
        size_t n = p == heads ? p : 2 * p; /* MPT's next power of two */
        for (size_t h = 0; h < heads; h++) {
            FUZZ_ASSERT(isfinite(m[h]) && m[h] >= 0.0 && m[h] <= 1.0 && (h == 0 || h >= p || m[h] <= m[h - 1]));
            /* the paper: 2^(-b (h + 1) / p), then 2^(-b (2 (h - p) + 1) / (2p)) */
            long double e = h < p ? -bias * (long double)(h + 1) / (long double)p
                                  : -bias * (long double)(2 * (h - p) + 1) / (long double)(2 * p);
            /* MPT: slopes of N numbered k = 1..N; first those at odd positions k = 2, 4, .., then k = 1, 3, .. */
            size_t kn = h < n / 2 ? 2 * (h + 1) : 2 * (h - n / 2) + 1;
            long double e_mpt = n == heads ? -bias * (long double)(h + 1) / (long double)n
                                           : -bias * (long double)kn / (long double)n;
            /* posenc forms the exponent in double (within 2^-52 |e| of it), then pow: the slope
             * moves by ln 2 |e| 2^-52 relative, plus pow's rounding; a subnormal slope by its ulp */
            long double want = powl(2.0L, e), want_mpt = powl(2.0L, e_mpt);
            long double bound = want * (0x1p-51L + fabsl(e) * 0x1p-52L) + 0x1p-1073L;
            FUZZ_ASSERT(fabsl((long double)m[h] - want) <= bound);
            FUZZ_ASSERT(fabsl((long double)m[h] - want_mpt) <= bound);
        }
    }
    buf_free(&out);
    return 0;
}
