/* deberta_reference.h: DeBERTa-v2's make_log_bucket_position for one relative
 * position, written here from Hugging Face transformers'
 * models/deberta_v2/modeling_deberta_v2.py for the fuzz targets deberta_bucket
 * and deberta_buckets: the float32 bucket (an integer value) of rel = query - key.
 * torch's steps: abs_pos / mid (int64 / int: true division, float32), torch.log
 * (float32; here the double log rounded to float), / torch.log(tensor((max_position
 * - 1) / mid)) (a double rounded to float32, then its float32 log), * (mid - 1),
 * torch.ceil, + mid, * sign. */
#ifndef POSENC_FUZZ_DEBERTA_REFERENCE_H
#define POSENC_FUZZ_DEBERTA_REFERENCE_H

#include <math.h>
#include <stdint.h>

static inline float deberta_reference(int64_t rel, int64_t bucket_size, int64_t max_position)
{
    int64_t mid = bucket_size / 2;
    int64_t abs_pos = (rel < mid && rel > -mid) ? mid - 1 : (rel < 0 ? -rel : rel);
    if (abs_pos <= mid)
        return (float)rel;
    float num = (float)log((double)((float)abs_pos / (float)mid));
    float den = (float)log((double)(float)((double)(max_position - 1) / (double)mid));
    float log_pos = ceilf(num / den * (float)(mid - 1)) + (float)mid;
    return rel < 0 ? -log_pos : log_pos;
}

#endif
