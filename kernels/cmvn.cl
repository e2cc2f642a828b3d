/* Cepstral mean / variance / min-max normalisation: the statistics, and their
 * application over the utterance, the sliding span or running.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Input: a block of rows (row_stride floats) holding frames first_row .. of a
 * stream of total frames (as in context.cl). mask[c] != 0: column c is
 * normalised. Modes: 0 none, 1 mean (x - mu), 2 meanvar ((x - mu) / sigma), 3
 * minmax ((x - mu) / max (|min - mu|, |max - mu|), thesis eq. 4.3).
 * Statistics are accumulated in double where the device has it.
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#else
typedef float acc_t;
#endif

#define AFET_TINY 1e-20

#include "rows.cl"

static float
afet_normalise (float x, int mode, acc_t mean, acc_t var, float mn, float mx)
{
  acc_t d = (acc_t) x - mean;
  if (mode == 1)
    return (float) d;
  if (mode == 2)
    return (float) (d / sqrt (var > AFET_TINY ? var : AFET_TINY));
  if (mode == 3) {
    acc_t r = fmax (fabs ((acc_t) mn - mean), fabs ((acc_t) mx - mean));
    return (float) (d / (r > AFET_TINY ? r : AFET_TINY));
  }
  return x;
}

/* Utterance statistics: one work-group per column over rows [0, rows);
 * writes mean, variance, min, max (4 floats) per column. */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_cmvn_stats)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_cmvn_stats (__global const float *block, uint row_stride, uint rows,
    __global float *stats)
{
  __local acc_t s1[AFET_LSZ], s2[AFET_LSZ];
  __local float lo[AFET_LSZ], hi[AFET_LSZ];
  uint c = get_group_id (0);
  uint lid = get_local_id (0);
  acc_t a = 0, b = 0;
  float mn = INFINITY, mx = -INFINITY;
  for (uint t = lid; t < rows; t += AFET_LSZ) {
    float x = block[(size_t) t * row_stride + c];
    a += x;
    b += (acc_t) x * x;
    mn = fmin (mn, x);
    mx = fmax (mx, x);
  }
  s1[lid] = a;
  s2[lid] = b;
  lo[lid] = mn;
  hi[lid] = mx;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint s = AFET_LSZ / 2; s > 0; s >>= 1) {
    if (lid < s) {
      s1[lid] += s1[lid + s];
      s2[lid] += s2[lid + s];
      lo[lid] = fmin (lo[lid], lo[lid + s]);
      hi[lid] = fmax (hi[lid], hi[lid + s]);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    acc_t n = rows > 0 ? (acc_t) rows : 1;
    acc_t mean = s1[0] / n;
    acc_t var = s2[0] / n - mean * mean;
    stats[4 * c] = (float) mean;
    stats[4 * c + 1] = (float) (var > 0 ? var : 0);
    stats[4 * c + 2] = lo[0];
    stats[4 * c + 3] = hi[0];
  }
}
#endif

/* Applies utterance statistics to rows out_first .. out_first + n - 1;
 * with enorm, HTK's energy normalisation of column eidx: floor at
 * Emax - floor_db ln(10) / 10, then 1 - (Emax - E) scale. */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_cmvn_apply)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_cmvn_apply (__global const float *block, uint row_stride, long first_row,
    long out_first, uint n, uint dims, __global const float *stats,
    __global const int *mask, int mode, int eidx, int enorm, float escale,
    float efloor_db, __global float *out, uint out_offset)
{
  uint gid = get_global_id (0);
  uint t = gid / dims;
  uint c = gid - t * dims;
  if (t >= n)
    return;
  long r = out_first + t - first_row;
  float x = block[(size_t) r * row_stride + c];
  float y = x;
  if ((int) c == eidx && enorm) {
    float emax = stats[4 * c + 3];
    float emin = emax - efloor_db * 2.302585093f / 10.0f;
    y = 1.0f - (emax - fmax (x, emin)) * escale;
  } else if (mask[c]) {
    y = afet_normalise (x, mode, stats[4 * c], stats[4 * c + 1],
        stats[4 * c + 2], stats[4 * c + 3]);
  }
  out[out_offset + (size_t) t * dims + c] = y;
}
#endif

/* Kaldi's sliding span (apply-cmvn-sliding, cmn_window frames): frame g
 * uses the frames [start, end) (total < 0: the end is not known yet; the
 * caller has the look-ahead in the rows) */
static void
afet_sliding_span (long g, long total, int cmn_window, int center,
    int min_window, long *s, long *e)
{
  long start, end;
  if (center) {
    start = g - cmn_window / 2;
    end = start + cmn_window;
  } else {
    start = g - cmn_window;
    end = g + 1;
  }
  if (start < 0) {
    end -= start;
    start = 0;
  }
  if (!center && end > g)
    end = max (g + 1, (long) min_window);
  if (total >= 0 && end > total) {
    start -= end - total;
    end = total;
    if (start < 0)
      start = 0;
  }
  *s = start;
  *e = end;
}

/* One value from the whole span, read again: minmax, and every mode on a
 * device without double precision (a float sum kept over a long stream
 * would drift). */
static float
afet_sliding_value (__global const float *rows, uint row_stride, afet_view v,
    long g, uint c, __global const int *mask, int mode, int cmn_window,
    int center, int min_window)
{
  float x = rows[afet_row_of (v, g) * row_stride + c];
  if (!mask[c] || mode == 0)
    return x;
  long start, end;
  afet_sliding_span (g, v.total, cmn_window, center, min_window, &start,
      &end);
  /* only the statistics the mode reads; each is summed in the same order
   * whichever else is */
  acc_t a = 0, b = 0;
  float mn = INFINITY, mx = -INFINITY;
  if (mode == 1) {
    for (long j = start; j < end; j++)
      a += rows[afet_row_of (v, j) * row_stride + c];
  } else if (mode == 2) {
    for (long j = start; j < end; j++) {
      float y = rows[afet_row_of (v, j) * row_stride + c];
      a += y;
      b += (acc_t) y * y;
    }
  } else {
    for (long j = start; j < end; j++) {
      float y = rows[afet_row_of (v, j) * row_stride + c];
      a += y;
      mn = fmin (mn, y);
      mx = fmax (mx, y);
    }
  }
  acc_t cnt = (acc_t) (end - start);
  acc_t mean = a / cnt;
  acc_t var = b / cnt - mean * mean;
  return afet_normalise (x, mode, mean, var, mn, mx);
}

#ifdef cl_khr_fp64
/* Mean and mean + variance as Kaldi's SlidingWindowCmnInternal computes
 * them: the sums of the span (in double) kept from frame to frame, the
 * frames that leave it subtracted and those that enter added, instead of
 * the whole span read again for every value (600 frames by default; a live
 * stream computed this for every value it output). Frames g .. g + n - 1
 * of column c, in order, in one work-item; the sums carry over between
 * launches in the stream's state: sum (a, b) and win (start and end of the
 * last span, and its frame). The span starts afresh at frame 0, and when
 * the state is not the frame before's. Each frame leaving was in the span
 * before, one frame behind the look-back: CmvnConfig::back () keeps it. */
static void
afet_sliding_run (__global const float *rows, uint row_stride, afet_view v,
    long g, uint n, uint c, int mode, int cmn_window, int center,
    int min_window, __global double *sum, __global long *win,
    __global float *out, size_t out_at, uint dims)
{
  double a = sum[0], b = sum[1];
  long ls = win[0], le = win[1];
  bool have = g > 0 && win[2] == g - 1;
  for (uint i = 0; i < n; i++, g++) {
    long start, end;
    afet_sliding_span (g, v.total, cmn_window, center, min_window, &start,
        &end);
    if (!have) {
      a = 0;
      b = 0;
      ls = le = start;
      have = true;
    }
    for (long j = ls; j < start; j++) {
      float y = rows[afet_row_of (v, j) * row_stride + c];
      a -= y;
      if (mode == 2)
        b -= (double) y * y;
    }
    for (long j = max (le, start); j < end; j++) {
      float y = rows[afet_row_of (v, j) * row_stride + c];
      a += y;
      if (mode == 2)
        b += (double) y * y;
    }
    ls = start;
    le = end;
    float x = rows[afet_row_of (v, g) * row_stride + c];
    double cnt = (double) (end - start);
    double mean = a / cnt;
    out[out_at + (size_t) i * dims] = afet_normalise (x, mode, mean,
        b / cnt - mean * mean, 0.0f, 0.0f);
  }
  sum[0] = a;
  sum[1] = b;
  win[0] = ls;
  win[1] = le;
  win[2] = g - 1;
}
/* on CPU devices (AFET_SLIDING_INCREMENTAL, engine/temporal/cmvn.cc): a
 * work-item a column walking a block's frames in order costs little there,
 * where every value reading its whole span costs the most of a live
 * stream's CPU; a GPU keeps a work-item a value (the serial walk of a
 * 16k-frame block on one GPU thread took 5x the whole chain's time) */
#ifdef AFET_SLIDING_INCREMENTAL
#define AFET_SLIDING_RUNS(mode, m) ((m) && ((mode) == 1 || (mode) == 2))
#else
#define AFET_SLIDING_RUNS(mode, m) 0
#endif
#else
#define AFET_SLIDING_RUNS(mode, m) 0
#endif

/* state: per stream (block: this one; lanes: per lane) dims x 2 doubles of
 * sums, then in win dims x 3 longs (afet_sliding_run) */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_cmvn_sliding)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_cmvn_sliding (__global const float *block, uint row_stride,
    long first_row, long total, long out_first, uint n, uint dims,
    __global const int *mask, int mode, int cmn_window, int center,
    int min_window, __global void *sum, __global long *win,
    __global float *out, uint out_offset)
{
  uint gid = get_global_id (0);
  uint t = gid / dims;
  uint c = gid - t * dims;
  if (t >= n)
    return;
  afet_view v = afet_block_view (first_row, total);
#ifdef cl_khr_fp64
  if (AFET_SLIDING_RUNS (mode, mask[c])) {
    /* the block's frames in order, in the work-item of its first */
    if (t == 0)
      afet_sliding_run (block, row_stride, v, out_first, n, c, mode,
          cmn_window, center, min_window, (__global double *) sum + 2 * c,
          win + 3 * c, out, out_offset + c, dims);
    return;
  }
#endif
  out[out_offset + (size_t) t * dims + c] = afet_sliding_value (block,
      row_stride, v, out_first + t, c, mask, mode, cmn_window, center,
      min_window);
}
#endif

/* the same over lanes (rows.cl): output row t is frame desc[3 t] of the
 * lane at row desc[3 t + 2]; a lane's rows are consecutive frames, and the
 * work-item of the first computes them all */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_cmvn_sliding_lanes)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_cmvn_sliding_lanes (__global const float *lanes, uint row_stride,
    uint ring, __global const long *desc, uint n, uint dims,
    __global const int *mask, int mode, int cmn_window, int center,
    int min_window, __global void *sum, __global long *win,
    __global float *out)
{
  uint gid = get_global_id (0);
  uint t = gid / dims;
  uint c = gid - t * dims;
  if (t >= n)
    return;
  long g;
  afet_view v = afet_lane_view (desc, t, ring, &g);
#ifdef cl_khr_fp64
  if (AFET_SLIDING_RUNS (mode, mask[c])) {
    if (t > 0 && desc[3 * (t - 1) + 2] == desc[3 * t + 2])
      return;
    uint m = 1;
    while (t + m < n && desc[3 * (t + m) + 2] == desc[3 * t + 2])
      m++;
    size_t lane = v.base / ring;
    afet_sliding_run (lanes, row_stride, v, g, m, c, mode, cmn_window,
        center, min_window, (__global double *) sum + (lane * dims + c) * 2,
        win + (lane * dims + c) * 3, out, (size_t) t * dims + c, dims);
    return;
  }
#endif
  out[(size_t) t * dims + c] = afet_sliding_value (lanes, row_stride, v, g, c,
      mask, mode, cmn_window, center, min_window);
}
#endif

/* Running statistics from the start (plus initial ones): one work-item per
 * column, rows in order; state per column: count, sum, sum of squares, min,
 * max (acc_t x 3, then float x 2 in minmax). */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_cmvn_running)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_cmvn_running (__global const float *block, uint row_stride,
    long first_row, long out_first, uint n, uint dims,
    __global const int *mask, int mode, __global acc_t *state,
    __global float *minmax, __global float *out, uint out_offset)
{
  uint c = get_global_id (0);
  if (c >= dims)
    return;
  acc_t cnt = state[3 * c], a = state[3 * c + 1], b = state[3 * c + 2];
  float mn = minmax[2 * c], mx = minmax[2 * c + 1];
  for (uint t = 0; t < n; t++) {
    long r = out_first + t - first_row;
    float x = block[(size_t) r * row_stride + c];
    cnt += 1;
    a += x;
    b += (acc_t) x * x;
    mn = fmin (mn, x);
    mx = fmax (mx, x);
    float y = x;
    if (mask[c]) {
      acc_t mean = a / cnt;
      y = afet_normalise (x, mode, mean, b / cnt - mean * mean, mn, mx);
    }
    out[out_offset + (size_t) t * dims + c] = y;
  }
  state[3 * c] = cnt;
  state[3 * c + 1] = a;
  state[3 * c + 2] = b;
  minmax[2 * c] = mn;
  minmax[2 * c + 1] = mx;
}
#endif

/* Given statistics (Kaldi's apply-cmvn, scope=archive): y = x scale +
 * offset per column (affine: dims scales, then dims offsets, from Kaldi's
 * ApplyCmvn in its floats), in two roundings as Kaldi's MulColsVec then
 * AddVecToRows (no fused multiply-add); columns off the mask pass. */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_cmvn_affine)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_cmvn_affine (__global const float *block, uint row_stride,
    long first_row, long out_first, uint n, uint dims,
    __global const float *affine, __global const int *mask,
    __global float *out, uint out_offset)
{
#pragma OPENCL FP_CONTRACT OFF
  uint gid = get_global_id (0);
  uint t = gid / dims;
  uint c = gid - t * dims;
  if (t >= n)
    return;
  long r = out_first + t - first_row;
  float x = block[(size_t) r * row_stride + c];
  if (mask[c]) {
    float y = x * affine[c];
    x = y + affine[dims + c];
  }
  out[out_offset + (size_t) t * dims + c] = x;
}
#endif

#ifdef cl_khr_fp64
/* Kaldi's AccCmvnStats (compute-cmvn-stats) over rows out_first .. + n - 1:
 * one work-item per column, frames in order, the value and its square
 * (taken in float, as Kaldi's float product) added in double: the same
 * sums, bit for bit. acc: dims sums, then dims sums of squares. */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_cmvn_accumulate)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_cmvn_accumulate (__global const float *block, uint row_stride,
    long first_row, long out_first, uint n, uint dims,
    __global double *acc)
{
#pragma OPENCL FP_CONTRACT OFF
  uint c = get_global_id (0);
  if (c >= dims)
    return;
  double a = acc[c], b = acc[dims + c];
  for (uint t = 0; t < n; t++) {
    long r = out_first + t - first_row;
    float x = block[(size_t) r * row_stride + c];
    float x2 = x * x;
    a += x;
    b += x2;
  }
  acc[c] = a;
  acc[dims + c] = b;
}
#endif
#endif
