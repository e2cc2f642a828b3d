/* PLP (perceptual linear prediction) after the R2C FFT, as HTK computes it or
 * (AFET_PLP_KALDI) as Kaldi's compute-plp-feats does.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The host (engine/spectral/plp.cc) runs, per batch of n frames:
 *
 *   afet_plp_bank    spectra -> auditory spectrum rows of M + 2 floats
 *   CLBlast SGEMM    autocorrelation r = IDFT cosine matrix x rows,
 *                    written frame-interleaved: r[i * r_ld + t]
 *   afet_plp_lpc     Durbin + LPC -> cepstrum + lifter, one work-item a
 *                    frame, columns c1..cN (, c0) of the output rows
 *
 * Build options: AFET_LSZ (work-group size), AFET_PLP_ORDER (LPC order p),
 * AFET_PLP_NCEPS (N), AFET_PLP_C0 (1: write c0 after cN), AFET_PLP_KALDI
 * (1: Kaldi's Durbin and c0), AFET_PLP_LEAD (1: c0 before c1). The order
 * and the cepstrum count are compile-time constants so that the per-frame
 * arrays are fixed-size private arrays the compiler can unroll into
 * registers.
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

#include "filterbank.cl"

#ifndef AFET_PLP_ORDER
#define AFET_PLP_ORDER 12
#endif
#ifndef AFET_PLP_NCEPS
#define AFET_PLP_NCEPS 12
#endif
#ifndef AFET_PLP_C0
#define AFET_PLP_C0 1
#endif
#ifndef AFET_PLP_KALDI
#define AFET_PLP_KALDI 0
#endif
#ifndef AFET_PLP_LEAD
#define AFET_PLP_LEAD 0
#endif

#define AFET_PLP_NCOLS (AFET_PLP_NCEPS + AFET_PLP_C0)
#define AFET_PLP_NA \
  (AFET_PLP_ORDER > AFET_PLP_NCEPS ? AFET_PLP_ORDER : AFET_PLP_NCEPS)
#define AFET_PLP_LOG_ZERO (-1.0e10f)

/* Auditory spectrum. One work-item per (frame t, column j), j = 0..M+1,
 * column-fastest. Column j takes channel clamp(j, 1, M) (1-based): the two
 * border columns repeat the edge channels (HTK copies them outward). The
 * channel sums power (or magnitude) over its non-zero span only (filter c,
 * 0-based, covers bins [first[c], first[c] + count[c]) with weights
 * weights[offset[c] + i]), is floored at floor_v (HTK: 1.0), multiplied by
 * its equal-loudness weight eql[c] and raised to the power compression:
 * out[t * (M + 2) + j]. No barrier, so the range check may return. */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_plp_bank)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_plp_bank (__global const float *spec, uint spec_stride,
    __global const int *first, __global const int *count,
    __global const int *offset, __global const float *weights,
    __global const float *eql, uint M, int use_power, float floor_v,
    float compression, __global float *out, uint n_frames)
{
  uint gid = get_global_id (0);
  uint width = M + 2;
  uint t = gid / width;
  uint j = gid - t * width;
  if (t >= n_frames)
    return;
  uint c = j == 0 ? 0 : (j > M ? M - 1 : j - 1);
  float sum = afet_filter_sum (spec + (size_t) t * spec_stride, first, count,
      offset, weights, c, use_power);
  /* positive: the floor is 1.0 and the weights are > 0 */
  out[(size_t) t * width + j] = pow (fmax (sum, floor_v) * eql[c],
      compression);
}
#endif

/* Durbin's recursion and the LPC -> cepstrum recursion, one work-item per
 * frame. r holds the autocorrelation frame-interleaved, r[i * r_ld + t]
 * (i = 0..p), so that adjacent work-items read adjacent words. The
 * predictor a[] and the cepstrum c[] are private fixed-size arrays.
 *
 * Predictor A(z) = 1 + sum a_j z^-j, error err:
 *   err = r0; for i = 1..p: k = -(r_i + sum_{j<i} a_j r_{i-j}) / err,
 *   a_j += k a_{i-j} (j < i, both halves at once), a_i = k,
 *   err *= 1 - k^2.
 * A singular autocorrelation (r0 <= 0, |k| >= 1, or the error <= 0 or not
 * finite) stops the recursion and keeps the model so far (with the
 * 1.0 filter-bank floor this does not happen for finite input).
 * Kaldi (AFET_PLP_KALDI): each step's 1 - k^2 is floored at 1e-5 and the
 * recursion never stops; only r0 <= 0 (an all-zero frame, where Kaldi
 * divides 0 by 0) skips it, leaving a = 0.
 * Cepstrum of 1/A(z): c_n = -a_n - (1/n) sum_{i=1}^{n-1} (n-i) a_i c_{n-i},
 * a_i = 0 for i > p; then the lifter lift[n-1]. c0 = ln(err)
 * (-1e10 if err <= 0); Kaldi: max(ln err, FLT_MIN) lift[N] (the cepstral
 * scale), so an all-zero frame gets FLT_MIN times it.
 *
 * The columns c1..cN (, c0) (AFET_PLP_LEAD: (c0,) c1..cN) go to local
 * memory first, then the work-group writes its rows out[out_offset +
 * t * out_stride + col] together (adjacent work-items, adjacent words);
 * other columns (the energy) are left alone.
 * Launched with ceil(n / AFET_LSZ) groups: no return before the barrier. */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_plp_lpc)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_plp_lpc (__global const float *r, uint r_ld, __constant float *lift,
    __global float *out, uint out_offset, uint out_stride, uint n_frames)
{
  __local float stage[AFET_LSZ * AFET_PLP_NCOLS];
  uint lid = get_local_id (0);
  uint t0 = get_group_id (0) * AFET_LSZ;
  uint t = t0 + lid;

  if (t < n_frames) {
    float rr[AFET_PLP_ORDER + 1];
    float a[AFET_PLP_NA + 1];
    float c[AFET_PLP_NCEPS + 1];
#pragma unroll
    for (int i = 0; i <= AFET_PLP_ORDER; i++)
      rr[i] = r[(size_t) i * r_ld + t];
#pragma unroll
    for (int i = 0; i <= AFET_PLP_NA; i++)
      a[i] = 0.0f;

    float err = rr[0];
    int live = err > 0.0f;
#pragma unroll
    for (int i = 1; i <= AFET_PLP_ORDER; i++) {
      float acc = rr[i];
#pragma unroll
      for (int j = 1; j < i; j++)
        acc += a[j] * rr[i - j];
      float k = -acc / err;
#if AFET_PLP_KALDI
      float e2 = err * fmax (1.0f - k * k, 1.0e-5f);
#else
      float e2 = err * (1.0f - k * k);
      live = live && fabs (k) < 1.0f && e2 > 0.0f && isfinite (e2);
#endif
      if (live) {
#pragma unroll
        for (int j = 1; j <= (i - 1) / 2; j++) {
          float x = a[j], y = a[i - j];
          a[j] = x + k * y;
          a[i - j] = y + k * x;
        }
        if ((i & 1) == 0)
          a[i / 2] += k * a[i / 2];
        a[i] = k;
        err = e2;
      }
    }

#pragma unroll
    for (int n = 1; n <= AFET_PLP_NCEPS; n++) {
      float s = 0.0f;
#pragma unroll
      for (int i = 1; i < n; i++)
        s += (float) (n - i) * a[i] * c[n - i];
      c[n] = -(a[n] + s / (float) n);
    }

    __local float *row = stage + lid * AFET_PLP_NCOLS;
#define AFET_PLP_FIRST (AFET_PLP_LEAD && AFET_PLP_C0)
#pragma unroll
    for (int n = 1; n <= AFET_PLP_NCEPS; n++)
      row[n - 1 + AFET_PLP_FIRST] = c[n] * lift[n - 1];
#if AFET_PLP_C0 && AFET_PLP_KALDI
    /* fmax also takes FLT_MIN over ln (0) or NaN */
    row[AFET_PLP_FIRST ? 0 : AFET_PLP_NCEPS] = fmax (log (err), FLT_MIN) *
        lift[AFET_PLP_NCEPS];
#elif AFET_PLP_C0
    row[AFET_PLP_NCEPS] = err > 0.0f ? log (err) : AFET_PLP_LOG_ZERO;
#endif
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  uint rows = n_frames - t0 < AFET_LSZ ? n_frames - t0 : AFET_LSZ;
  for (uint idx = lid; idx < rows * AFET_PLP_NCOLS; idx += AFET_LSZ) {
    uint tt = idx / AFET_PLP_NCOLS;
    uint col = idx - tt * AFET_PLP_NCOLS;
    out[out_offset + (size_t) (t0 + tt) * out_stride + col] = stage[idx];
  }
}
#endif
