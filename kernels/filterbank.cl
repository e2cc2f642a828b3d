/* The sum of one channel of a sparse filter bank over an R2C spectrum row,
 * shared by melbank.cl, plp.cl and vframes.cl.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A row holds interleaved complex bins; kernels/embed.py pastes this file
 * where melbank.cl and plp.cl #include it. Filter c (0-based)
 * covers bins [first[c], first[c] + count[c]) with weights
 * weights[offset[c] + i]; the sum is over power |X|^2 (use_power) or
 * magnitude |X|. vframes.cl computes the same sums for a vector of frames
 * (one frame an element) with the two macros below, which are written
 * once for a float and a vector of floats.
 */

/* What one bin adds to a channel, given its power p = |X|^2. */
#define AFET_BIN_VALUE(p, use_power) ((use_power) ? (p) : sqrt (p))
/* A channel's sum as a feature: ln (log10 with log_mul = 1 / ln 10) of the
 * sum floored at floor_v. */
#define AFET_LOG_CHANNEL(sum, floor_v, log_mul) \
    (log (fmax ((sum), (floor_v))) * (log_mul))

/* Column j of a frame's DCT: the coefficients of column j (lifter folded
 * in; channel c's at d[c step]: step 1 for row j of the ncols x M matrix,
 * ncols for column j of its transpose) times the frame's M log channels
 * fb, in channel order. */
static inline float
afet_dct_value (__global const float *d, uint step, uint M,
    __local const float *fb)
{
  float acc = 0.0f;
  for (uint c = 0; c < M; c++)
    acc += d[(size_t) c * step] * fb[c];
  return acc;
}

static float
afet_filter_sum (__global const float *row, __global const int *first,
    __global const int *count, __global const int *offset,
    __global const float *weights, uint c, int use_power)
{
  int k0 = first[c];
  int n = count[c];
  __global const float *w = weights + offset[c];
  float sum = 0.0f;
  for (int i = 0; i < n; i++) {
    float re = row[2 * (k0 + i)];
    float im = row[2 * (k0 + i) + 1];
    float p = re * re + im * im;
    sum += w[i] * AFET_BIN_VALUE (p, use_power);
  }
  return sum;
}
