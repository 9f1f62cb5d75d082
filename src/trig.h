/*
 * trig.h: the kernel shared by every table-like routine (sinusoidal tables,
 * Transformer-XL embeddings, RoPE caches): sin and cos of p * w_k for a run of
 * rows p and a set of frequencies w_k, written to strided float addresses.
 *
 * How it stays exact: rows at anchors take sin and cos of the double angle
 * p * w directly (fmath_sincos, within an ulp); the rows between step
 * from the anchor before by the rotation (cos w, sin w) in double: an
 * angle-addition recurrence whose error grows by a few double ulps per step,
 * ~1e-14 after TRIG_ANCHOR_ROWS steps, far below float32's 6e-8. Every value
 * is rounded to float once, at the store.
 *
 * The anchors: the first row of a run, and every row whose position is a
 * multiple of TRIG_ANCHOR_ROWS, position 0 among them, whichever way the run
 * walks. So position 0 is exactly sin 0 = 0, cos 0 = 1 (a recurrence stepping
 * to it gives ~1e-16 and 1 - 1e-16).
 */
#ifndef POSENC_TRIG_H
#define POSENC_TRIG_H

#include <stddef.h>
#include <stdint.h>

/* The frequency w_i of column pair i (radians per position). */
typedef double (*trig_freq_fn)(const void *ctx, size_t i);

typedef struct trig_target {
    float *sin_out;      /* (batch 0, row 0, freq 0) of the sines             */
    float *cos_out;      /* the same for cosines (valid even when n_cos == 0) */
    size_t row_stride;   /* elements from one row to the next                 */
    size_t col_stride;   /* elements from one frequency to the next           */
    size_t batch_stride; /* elements from one batch copy to the next          */
    size_t n_batch;      /* copies of every value, >= 1                       */
    int accumulate;      /* 0: out = v;  1: out = out * x_scale + v           */
    float x_scale;
    double amplitude;    /* v = amplitude * sin(p w) (RoPE's attention factor) */
} trig_target;

typedef struct trig_rows {
    size_t count;            /* rows to write                                  */
    double first;            /* position of row 0 (when positions == NULL)    */
    int step;                /* +1 ascending, -1 descending                   */
    const int32_t *positions; /* explicit position per row, or NULL           */
} trig_rows;

/*
 * For every row r and frequency k < n_freq, writes amplitude * sin(p_r w_k)
 * at sin_out + r*row_stride + k*col_stride (+ b*batch_stride), and for k < n_cos
 * the cosine at cos_out likewise. n_cos <= n_freq (odd widths end on a sine).
 */
void trig_fill(const trig_target *t, trig_freq_fn freq, const void *freq_ctx, size_t n_freq,
               size_t n_cos, const trig_rows *rows);

enum {
    TRIG_BLOCK = 128,       /* frequencies whose recurrence state lives on the stack */
    TRIG_ANCHOR_ROWS = 1024 /* anchors at the positions that are multiples of this   */
};

/*
 * The same recurrence one row at a time, for consumers that use each row at
 * once (RoPE's rotation). Rows come out bit-identical to trig_fill's rows of a
 * contiguous run starting at the same first position.
 */
typedef struct trig_stream {
    double w[TRIG_BLOCK], s[TRIG_BLOCK], c[TRIG_BLOCK], step_c[TRIG_BLOCK], step_s[TRIG_BLOCK];
    size_t n;         /* frequencies, <= TRIG_BLOCK          */
    double position;  /* position of the next row            */
    size_t to_anchor; /* rows left before the next anchor     */
} trig_stream;

/* Starts at position `first` with frequencies w[0..n), n <= TRIG_BLOCK. */
void trig_stream_start(trig_stream *ts, const double *w, size_t n, double first);

/* Restarts at position `first` (the next row is an anchor), keeping the frequencies. */
void trig_stream_seek(trig_stream *ts, double first);

/*
 * One row at any real position p (fractional, or far past int32), straight
 * from the double angles: cos_out[k] = amplitude cos(p w[k]), sin_out[k]
 * likewise, k < n. No recurrence: for rows that start no run.
 */
void trig_point(const double *w, size_t n, double p, float *cos_out, float *sin_out, double amplitude);

/* Writes the current row, cos_out[k] = amplitude cos(p w_k) and sin_out[k] likewise, then steps. */
void trig_stream_row(trig_stream *ts, float *cos_out, float *sin_out, double amplitude);

#endif
