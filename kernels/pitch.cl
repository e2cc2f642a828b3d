/* Kaldi's pitch tracker on the device: resampling, the NCCF of every frame
 * over its lags, the upsampling to the lag grid, the Viterbi forward pass,
 * its backtrace and the raw output (nccf, pitch).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * In this order (engine/temporal/pitch.cc; the Viterbi and backtrace of
 * many utterances at once: pitch-batch.cc):
 *
 * afet_pitch_resample (floats), afet_pitch_resample16 (16-bit samples,
 *   widened to the same floats): one work-item per output sample k of
 *   Kaldi's LinearResample: output k sits in period unit k / out_unit at phase
 *   w = k % out_unit, and sums ph_n[w] inputs from ph_first[w] + unit
 *   in_unit with the phase's weights (zeros outside the input).
 * afet_pitch_frame_stats, afet_pitch_nccf_lags: a frame's window less its
 *   mean and its energy e1 (a work-item per frame), then per (frame,
 *   measured lag) the energy e2 of the window lag samples later and their
 *   inner product; inner = ip, norm = e1 e2.
 * afet_pitch_normalize, afet_pitch_upsample_lags (offline) or
 *   afet_pitch_nccf_pair (the sums and both NCCFs of a measured lag),
 *   afet_pitch_upsample_pair (online chunks of many streams): the NCCF with
 *   the frame's ballast, inner / sqrt (norm + ballast), taken to the lag
 *   grid by the upsampling filter's taps, times Kaldi's rescaling of the
 *   early frames offline (rescale: sqrt ((old + avg) / (new + avg)), avg
 *   the mean of the frame's norms).
 * afet_pitch_viterbi: a work-group per job (job: its first row, frames,
 *   the costs it starts from and a mode; engine/temporal/pitch-batch.cc
 *   runs many utterances in one launch, a long one cut into segments), its
 *   work-items over the lags: each lag's best predecessor (the lowest index
 *   of the least cost), its local cost, and the forward cost less its
 *   minimum, frame after frame; backpointers into bp. The predecessors are
 *   searched by blocks of AFET_PITCH_BLOCK lags, the block of the
 *   work-item's previous lag's predecessor (or the last frame's) first, a
 *   block skipped when its least previous cost plus its least transition
 *   exceeds the best found (float's rounding is monotone, so that bound
 *   holds for the rounded costs): the same predecessor as a search of every
 *   lag, in a few blocks a lag. A segment is first run from zero costs
 *   (GUESS: each frame's costs stored in vec), then again from the previous
 *   segment's last costs (FIX), comparing with those stored, until a
 *   frame's costs are the stored ones bit for bit: every later frame then
 *   is as stored too, and the work-group stops (agreed).
 * afet_pitch_trace_map, afet_pitch_backtrace: the path from the lowest
 *   final forward cost (lowest index) back to frame 0: where each lag at a
 *   segment's end leads to at the segment before (a work-item a lag), the
 *   segments' last lags through those maps, then the segments' paths, a
 *   work-item each.
 * afet_pitch_output: one work-item per frame: (the NCCF without ballast at
 *   the chosen lag, 1 / lag).
 * On a CPU device (at the end of this file): afet_pitch_viterbi_lanes
 *   (the Viterbi of one work-item, 16 lags at once), afet_pitch_nccf_lags16
 *   and afet_pitch_upsample_lags16 (16 lags a work-item): the same values,
 *   the same operations lane by lane.
 *
 * The Viterbi step is in float with Kaldi's order of operations and no
 * contraction into fused multiply-adds: on silence paths tie to a float's
 * rounding and only that arithmetic picks Kaldi's lag there. Sums over
 * samples are in ACC (double where the device has it), as are the inner
 * products and norms kept between the kernels. */

#pragma OPENCL FP_CONTRACT OFF

#ifdef AFET_PITCH_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double ACC;
#else
typedef float ACC;
#endif

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

/* the Viterbi's blocks of lags, each with its least previous cost */
#define AFET_PITCH_BLOCK 16 /* the float16 below */

/* Kaldi's LinearResample of x (floats, or 16-bit samples widened to the
 * same floats: one body for both) */
#define AFET_PITCH_RESAMPLE(name, T)                                        \
__kernel void                                                               \
name (__global const T *x, long n,                                          \
    __global const int *ph_first, __global const int *ph_n,                 \
    __global const float *ph_w, int max_taps, int out_unit, int in_unit,    \
    __global float *y, long n_out)                                          \
{                                                                           \
  long k = get_global_id (0);                                               \
  if (k >= n_out)                                                           \
    return;                                                                 \
  long unit = k / out_unit;                                                 \
  int w = (int) (k - unit * out_unit);                                      \
  long base = ph_first[w] + unit * in_unit;                                 \
  ACC acc = 0;                                                              \
  for (int j = 0; j < ph_n[w]; j++) {                                       \
    long idx = base + j;                                                    \
    if (idx >= 0 && idx < n)                                                \
      acc += (ACC) ph_w[w * max_taps + j] * (ACC) (float) x[idx];           \
  }                                                                         \
  y[k] = (float) acc;                                                       \
}

AFET_PITCH_RESAMPLE (afet_pitch_resample, float)
AFET_PITCH_RESAMPLE (afet_pitch_resample16, short)

/* sample i of frame t's window (full samples from start), zero outside the
 * signal, pre-emphasised as Kaldi does it (the first sample scaled) */
static ACC
window_at (__global const float *ds, long n_ds, long start, int i,
    float preemph)
{
  long k = start + i;
  ACC v = (k >= 0 && k < n_ds) ? (ACC) ds[k] : (ACC) 0;
  if (preemph != 0.0f) {
    if (i == 0)
      return v * (1.0 - (ACC) preemph);
    ACC u = (k - 1 >= 0 && k - 1 < n_ds) ? (ACC) ds[k - 1] : (ACC) 0;
    v -= (ACC) preemph * u;
  }
  return v;
}

/* The NCCF in steps: a frame's mean and energy once a frame
 * (afet_pitch_frame_stats), each measured lag's inner product and norm
 * (afet_pitch_nccf_lags), then, offline, each measured lag's NCCF with the
 * ballast once (afet_pitch_normalize) and its upsampling to the grid
 * (afet_pitch_upsample_lags), online the sums and both NCCFs of a measured
 * lag at once (afet_pitch_nccf_pair) and both upsamplings of a grid lag
 * (afet_pitch_upsample_pair). The sums run in the same order on both
 * paths: a frame's values are the same. */
/* a window's energy e2 lag samples on and its inner product with the
 * window at s0, both less the frame's mean, added to *e2 and *ip sample by
 * sample (window_at: zeros outside the signal, pre-emphasis) */
static void
lag_sums (__global const float *ds, long n_ds, long s0, int basic, int lag,
    float preemph, ACC mean, ACC *e2, ACC *ip)
{
  if (preemph == 0.0f && s0 >= 0 && s0 + lag + basic <= n_ds) {
    /* inside the signal, no pre-emphasis: window_at's samples as they
     * are */
    __global const float *x = ds + s0, *y = ds + s0 + lag;
    for (int i = 0; i < basic; i++) {
      ACC a = (ACC) x[i] - mean;
      ACC b = (ACC) y[i] - mean;
      *e2 += b * b;
      *ip += a * b;
    }
    return;
  }
  for (int i = 0; i < basic; i++) {
    ACC a = window_at (ds, n_ds, s0, i, preemph) - mean;
    ACC b = window_at (ds, n_ds, s0, lag + i, preemph) - mean;
    *e2 += b * b;
    *ip += a * b;
  }
}

__kernel void
afet_pitch_frame_stats (__global const float *ds, long n_ds,
    __global const long *start, int T, int basic, float preemph,
    __global ACC *mean_out, __global ACC *e1_out)
{
  int t = get_global_id (0);
  if (t >= T)
    return;
  long s0 = start[t];
  ACC mean = 0;
  for (int i = 0; i < basic; i++)
    mean += window_at (ds, n_ds, s0, i, preemph);
  mean /= basic;
  ACC e1 = 0;
  for (int i = 0; i < basic; i++) {
    ACC a = window_at (ds, n_ds, s0, i, preemph) - mean;
    e1 += a * a;
  }
  mean_out[t] = mean;
  e1_out[t] = e1;
}

__kernel void
afet_pitch_nccf_lags (__global const float *ds, long n_ds,
    __global const long *start, int T, int M, int basic, int lag0,
    float preemph, __global const ACC *mean_in, __global const ACC *e1_in,
    __global ACC *inner, __global ACC *norm)
{
  long g = get_global_id (0);
  if (g >= (long) T * M)
    return;
  int t = (int) (g / M), l = (int) (g - (long) t * M);
  long s0 = start[t];
  ACC mean = mean_in[t];
  ACC e2 = 0, ip = 0;
  lag_sums (ds, n_ds, s0, basic, lag0 + l, preemph, mean, &e2, &ip);
  inner[g] = ip;
  norm[g] = e1_in[t] * e2;
}

/* each measured lag's NCCF with the frame's ballast */
__kernel void
afet_pitch_normalize (__global const ACC *inner, __global const ACC *norm,
    int T, int M, __global const float *ballast, __global ACC *nv)
{
  long g = get_global_id (0);
  if (g >= (long) T * M)
    return;
  int t = (int) (g / M);
  ACC den = sqrt (norm[g] + (ACC) ballast[t]);
  nv[g] = den != 0 ? (ACC) inner[g] / den : (ACC) 0;
}

/* each grid lag's NCCF from afet_pitch_normalize's values, rescaled where
 * Kaldi rescales the early frames */
__kernel void
afet_pitch_upsample_lags (__global const ACC *nv, __global const ACC *norm,
    int T, int M, int S, __global const int *tap_first,
    __global const int *tap_n, __global const float *tap_w, int max_taps,
    __global const float *old_ballast, float new_ballast, int rescale,
    __global float *nccf)
{
  long g = get_global_id (0);
  if (g >= (long) T * S)
    return;
  int t = (int) (g / S), i = (int) (g - (long) t * S);
  __global const ACC *v = nv + (long) t * M, *nm = norm + (long) t * M;
  ACC a = 0;
  int f = tap_first[i];
  for (int j = 0; j < tap_n[i]; j++)
    a += (ACC) tap_w[i * max_taps + j] * v[f + j];
  if (rescale) {
    ACC avg = 0;
    for (int l = 0; l < M; l++)
      avg += nm[l];
    avg /= M;
    a *= sqrt (((ACC) old_ballast[t] + avg) / ((ACC) new_ballast + avg));
  }
  nccf[g] = (float) a;
}

/* The online chunks' NCCF (engine/temporal/pitch-chunks.cc), one
 * work-item per (frame, measured lag): afet_pitch_nccf_lags' sums, then
 * the NCCF with the frame's ballast (nv) and without it (nv0) as
 * afet_pitch_normalize takes it, and the norm (for the mean of the frame's
 * norms). Normalised here, once a measured lag, rather than once a tap of
 * every grid lag in the upsampling (two square roots and two divisions
 * each, S taps-wide times as many: PoCL spent a third of a live stream's
 * device time on them); the values are the same, bit for bit. */
__kernel void
afet_pitch_nccf_pair (__global const float *ds, long n_ds,
    __global const long *start, int T, int M, int basic, int lag0,
    float preemph, __global const ACC *mean_in, __global const ACC *e1_in,
    __global const float *ballast, __global ACC *nv, __global ACC *nv0,
    __global ACC *norm)
{
  long g = get_global_id (0);
  if (g >= (long) T * M)
    return;
  int t = (int) (g / M), l = (int) (g - (long) t * M);
  long s0 = start[t];
  ACC mean = mean_in[t];
  ACC e2 = 0, ip = 0;
  lag_sums (ds, n_ds, s0, basic, lag0 + l, preemph, mean, &e2, &ip);
  ACC nm = e1_in[t] * e2;
  ACC den = sqrt (nm + (ACC) ballast[t]), den0 = sqrt (nm + (ACC) 0);
  nv[g] = den != 0 ? ip / den : (ACC) 0;
  nv0[g] = den0 != 0 ? ip / den0 : (ACC) 0;
  norm[g] = nm;
}

/* The online chunks' upsampling, one work-item per (frame, grid lag), into
 * one row a frame of 2 S + 1 floats: the NCCF with the frame's ballast
 * (what the Viterbi sees), without it (the POV NCCF the output gives),
 * and, from the lag-0 work-item, the mean of the frame's norms
 * (RecomputeBacktraces' avg). Each value is taken as
 * afet_pitch_upsample_lags takes it offline. */
__kernel void
afet_pitch_upsample_pair (__global const ACC *nv, __global const ACC *nv0,
    __global const ACC *norm, int T, int M, int S,
    __global const int *tap_first, __global const int *tap_n,
    __global const float *tap_w, int max_taps, __global float *out)
{
  long g = get_global_id (0);
  if (g >= (long) T * S)
    return;
  int t = (int) (g / S), i = (int) (g - (long) t * S);
  __global const ACC *v = nv + (long) t * M, *v0 = nv0 + (long) t * M;
  __global float *row = out + (long) t * (2 * S + 1);
  ACC a = 0, a0 = 0;
  for (int j = 0; j < tap_n[i]; j++) {
    int l = tap_first[i] + j;
    ACC w = (ACC) tap_w[i * max_taps + j];
    a += w * v[l];
    a0 += w * v0[l];
  }
  row[i] = (float) a;
  row[S + i] = (float) a0;
  if (i == 0) {
    __global const ACC *nm = norm + (long) t * M;
    ACC avg = 0;
    for (int l = 0; l < M; l++)
      avg += nm[l];
    avg /= M;
    row[2 * S] = (float) avg;
  }
}

/* the least of 16 floats (no NaN here) */
static float
min16 (float16 v)
{
  float8 m8 = min (v.lo, v.hi);
  float4 m4 = min (m8.lo, m8.hi);
  float2 m2 = min (m4.lo, m4.hi);
  return min (m2.lo, m2.hi);
}

/* Kaldi's transition cost d^2 factor plus the previous forward cost, in
 * float without contraction (the comparisons below depend on it) */
#define AFET_PITCH_STEP(i, j) \
  ((float) (((j) - (i)) * ((j) - (i))) * factor + (val[j] - lo))

/* the least cost of i's predecessors in lags j0 .. j1 - 1 (a block) into
 * best and bj, ties to the lower lag */
static void
viterbi_scan_block (int i, int j0, int j1, float factor,
    __local const float *val, float lo, float *best_io, int *bj_io)
{
  float best = *best_io;
  int bj = *bj_io;
  if (j1 - j0 == 16) {
    /* a whole block as one vector (the same float operations, lag by
     * lag), its least cost, then its lowest lag of that cost */
    const int16 iota = (int16) (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
        12, 13, 14, 15);
    int16 dj = iota + (j0 - i);
    float16 v = convert_float16 (dj * dj) * factor +
        (vload16 (0, val + j0) - lo);
    float m = min16 (v);
    if (m < best || (m == best && j0 < bj)) {
      /* the lowest lag of that cost: the least of the lags whose
       * cost is m, the others 16 */
      int16 at = select ((int16) (16), iota, v == (float16) (m));
      int8 a8 = min (at.lo, at.hi);
      int4 a4 = min (a8.lo, a8.hi);
      int2 a2 = min (a4.lo, a4.hi);
      int j = j0 + min (a2.lo, a2.hi);
      if (m < best || j < bj) {
        best = m;
        bj = j;
      }
    }
  } else {
    for (int j = j0; j < j1; j++) {
      float v = AFET_PITCH_STEP (i, j);
      if (v < best || (v == best && j < bj)) {
        best = v;
        bj = j;
      }
    }
  }
  *best_io = best;
  *bj_io = bj;
}

/* the least of values j0 .. j1 - 1 */
static float
viterbi_block_min (__local const float *v, int j0, int j1)
{
  float m = FLT_MAX;
  if (j1 - j0 == AFET_PITCH_BLOCK) {
    m = min16 (vload16 (0, v + j0));
  } else {
    for (int j = j0; j < j1; j++)
      m = min (m, v[j]);
  }
  return m;
}

/* what a Viterbi job (a work-group) does with its frames' forward costs
 * (pitch-batch.cc: an utterance alone, or cut in segments) */
#define AFET_VITERBI_ALONE 0    /* stores only the last frame's */
#define AFET_VITERBI_GUESS 1    /* stores every frame's */
#define AFET_VITERBI_FIX 2      /* rewrites them until they agree */

__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_pitch_viterbi (__global const float *nccf, __global const long *job,
    int S, __global const float *lags, float factor, float soft_min_f0,
    __global ushort *bp, __global float *vec, __global const float *end_in,
    __global float *end_out, __global int *agreed, __local float *val0,
    __local float *val1, __local float *cmin)
{
  __local int differ[2];
  int lid = get_local_id (0);
  /* this work-group's frames: the first row, how many, the row of end_in
   * holding the costs before them (-1: none, an utterance's start), the
   * row of end_out for the costs after them, and the mode */
  int g = get_group_id (0);
  __global const long *jb = job + 5 * g;
  long r0 = jb[0];
  int T = (int) jb[1];
  long from = jb[2], to = jb[3];
  int mode = (int) jb[4];
  nccf += r0 * S;
  bp += r0 * S;
  vec += r0 * S;
  int nb = (S + AFET_PITCH_BLOCK - 1) / AFET_PITCH_BLOCK;
  /* Kaldi's forward cost less its minimum, the previous frame's
   * (val[j] - lo: one float subtraction, as Kaldi's renormalisation
   * computes it) and this frame's before its minimum is known; the
   * least of each block's values alike (cmin[b] - lo is the block's
   * least previous cost: float's rounding is monotone). Two buffers
   * each, taking turns, so a frame needs two barriers: after its costs
   * and after its blocks' minima. */
  __local float *vp = val0, *vc = val1, *cp = cmin, *cc = cmin + nb;
  for (int i = lid; i < S; i += AFET_LSZ)
    vp[i] = from >= 0 ? end_in[from * S + i] : 0.0f;
  for (int k = lid; k < 2; k += AFET_LSZ)
    differ[k] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int b = lid; b < nb; b += AFET_LSZ)
    cp[b] = viterbi_block_min (vp, b * AFET_PITCH_BLOCK, min (S, (b + 1) *
            AFET_PITCH_BLOCK));
  float lo = 0.0f;              /* x - 0 is x */
  /* the last frame's predecessor of this work-item's first lag (where
   * the search starts: any order gives the same predecessor) */
  int first_bp = lid;
  int agree = 0;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int t = 0; t < T; t++) {
    int last = 0;
    for (int i = lid; i < S; i += AFET_LSZ) {
      float n = nccf[(long) t * S + i];
      /* each lag's best predecessor is the lowest index of the least
       * cost over all lags. A block likely to hold it first,
       * for a low best cost early, then the blocks outward from i: a block
       * whose bound exceeds the best cost so far holds neither a better
       * nor a tying lag, and past one whose transition alone exceeds it
       * none can (ties go to the lower index whatever the order) */
      float best = vp[i] - lo; /* staying costs no transition */
      int bj = i;
      /* the predecessor of this work-item's previous lag where it had one
       * (the predecessors rise with the lag: Kaldi's search starts there),
       * else last frame's */
      int bg = (i >= AFET_LSZ ? last : first_bp) / AFET_PITCH_BLOCK,
          bi = i / AFET_PITCH_BLOCK;
      viterbi_scan_block (i, bg * AFET_PITCH_BLOCK, min (S, (bg + 1) *
              AFET_PITCH_BLOCK), factor, vp, lo, &best, &bj);
      for (int b = bi; b >= 0; b--) {
        int j0 = b * AFET_PITCH_BLOCK, j1 = min (S, j0 + AFET_PITCH_BLOCK);
        int d = b == bi ? 0 : i - j1 + 1;
        float tr = (float) (d * d) * factor;
        if (tr > best)
          break;                /* none lower can */
        if (b != bg && tr + (cp[b] - lo) <= best)
          viterbi_scan_block (i, j0, j1, factor, vp, lo, &best, &bj);
      }
      for (int b = bi + 1; b < nb; b++) {
        int j0 = b * AFET_PITCH_BLOCK, j1 = min (S, j0 + AFET_PITCH_BLOCK);
        int d = j0 - i;
        float tr = (float) (d * d) * factor;
        if (tr > best)
          break;                /* none higher can */
        if (b != bg && tr + (cp[b] - lo) <= best)
          viterbi_scan_block (i, j0, j1, factor, vp, lo, &best, &bj);
      }
      float lc = (1.0f - n) + soft_min_f0 * n * lags[i];
      best += lc;
      vc[i] = best;
      bp[(long) t * S + i] = (ushort) bj;
      if (i == lid)
        first_bp = bj;
      last = bj;
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    /* rewriting: the previous frame's costs were those stored, so these
     * frames' are too, from here on (the backpointers just written
     * included) */
    if (mode == AFET_VITERBI_FIX && t > 0 && !differ[(t - 1) & 1]) {
      agree = 1;
      break;                    /* the same for every work-item */
    }
    for (int b = lid; b < nb; b += AFET_LSZ)
      cc[b] = viterbi_block_min (vc, b * AFET_PITCH_BLOCK, min (S, (b + 1) *
              AFET_PITCH_BLOCK));
    if (lid == 0)
      differ[t & 1] = 0;
    barrier (CLK_LOCAL_MEM_FENCE);
    /* the frame's least cost, from its blocks' (every work-item alike) */
    lo = FLT_MAX;
    for (int b = 0; b < nb; b++)
      lo = min (lo, cc[b]);
    if (mode != AFET_VITERBI_ALONE)
      for (int i = lid; i < S; i += AFET_LSZ) {
        float v = vc[i] - lo;
        __global float *at = vec + (long) t * S + i;
        if (mode == AFET_VITERBI_FIX && *at != v)
          differ[t & 1] = 1;
        *at = v;
      }
    __local float *sw = vp;
    vp = vc;
    vc = sw;
    sw = cp;
    cp = cc;
    cc = sw;
  }
  if (mode == AFET_VITERBI_FIX && !agree) {
    barrier (CLK_LOCAL_MEM_FENCE);
    agree = T > 0 && !differ[(T - 1) & 1];
  }
  if (mode == AFET_VITERBI_FIX && lid == 0)
    agreed[g] = agree;
  /* the last frame's costs, unless they are those stored already */
  if (!agree)
    for (int i = lid; i < S; i += AFET_LSZ)
      end_out[to * S + i] = vp[i] - lo;
}

/* Where each lag at a segment's last frame leads back to: a work-group a
 * segment (seg: its first row and frames), a work-item a lag, following
 * the backpointers through the segment to the lag at the frame before it
 * (map, S a segment) */
__kernel void
afet_pitch_trace_map (__global const ushort *bp, __global const long *seg,
    int S, __global int *map)
{
  int g = get_group_id (0);
  long r0 = seg[2 * g];
  int T = (int) seg[2 * g + 1];
  for (int i = get_local_id (0); i < S; i += get_local_size (0)) {
    int s = i;
    for (int t = T - 1; t >= 0; t--)
      s = bp[(r0 + t) * S + s];
    map[(long) g * S + i] = s;
  }
}

/* The path of an utterance, a work-group each (utt: its first row, frames,
 * first segment and segments of L frames): the lowest last cost (lowest
 * index) in fwd's row of its last segment, each segment's last lag through
 * the maps from there back (one work-item), then each segment's frames
 * from its last lag back (a work-item a segment) */
__kernel void
afet_pitch_backtrace (__global const ushort *bp, __global const float *fwd,
    __global const long *utt, int S, long L, __global const int *map,
    __global int *ends, __global int *path)
{
  int g = get_group_id (0), lid = get_local_id (0);
  long r0 = utt[3 * g];
  long T = utt[3 * g + 1];
  long k0 = utt[3 * g + 2];
  int K = (int) ((T + L - 1) / L);
  if (lid == 0 && K > 0) {
    __global const float *f = fwd + (k0 + K - 1) * S;
    int s = 0;
    for (int i = 1; i < S; i++)
      if (f[i] < f[s])
        s = i;
    for (int k = K - 1; k >= 0; k--) {
      ends[k0 + k] = s;
      if (k > 0)
        s = map[(k0 + k) * S + s];
    }
  }
  barrier (CLK_GLOBAL_MEM_FENCE);
  for (int k = lid; k < K; k += get_local_size (0)) {
    int s = ends[k0 + k];
    long a = r0 + k * L, n = min (L, T - k * L);
    for (long t = n - 1; t >= 0; t--) {
      path[a + t] = s;
      s = bp[(a + t) * S + s];
    }
  }
}

__kernel void
afet_pitch_output (__global const ACC *inner, __global const ACC *norm,
    int T, int M, __global const int *tap_first, __global const int *tap_n,
    __global const float *tap_w, int max_taps, __global const float *lags,
    __global const int *path, __global float *out)
{
  int t = get_global_id (0);
  if (t >= T)
    return;
  int i = path[t];
  __global const ACC *ip = inner + (long) t * M, *nm = norm + (long) t * M;
  ACC a = 0;
  for (int j = 0; j < tap_n[i]; j++) {
    int l = tap_first[i] + j;
    ACC den = sqrt (nm[l]);
    ACC v = den != 0 ? (ACC) ip[l] / den : (ACC) 0;
    a += (ACC) tap_w[i * max_taps + j] * v;
  }
  out[2 * t] = (float) a;
  out[2 * t + 1] = (float) (1.0 / (ACC) lags[i]);
}

#if AFET_LSZ == 1
/* afet_pitch_viterbi on a CPU device (one work-item an utterance,
 * engine/temporal/pitch-batch.cc picks it when the work-group is one
 * work-item): the same predecessors, searched for 16 lags at once. Lags
 * i .. i + 15 are the lanes of a float16 and a block of 16 predecessors is
 * walked one lag j at a time, each step the same float operations as
 * AFET_PITCH_STEP for every lane; the bounds are afet_pitch_viterbi's, a
 * block skipped when no lane's bound reaches its best cost, and the walk
 * outward stopped when every lane's transition alone exceeds its best. The
 * lanes' predecessors are close (they rise with the lag), so a group of
 * lanes searches about as many blocks as one lag does alone: the
 * comparisons of 16 lags for the price of one. prev and cur hold the lags
 * rounded up to a multiple of 16 (a whole float16). */

/* lanes' least costs over predecessors j0 .. j1 - 1, ties to the lower lag.
 * The least (cost, lag) pair of a set is the same whatever order it is
 * taken in, so a whole block goes as four runs of four lags, one after the
 * other within a run and the runs side by side (the compare-and-select of
 * one lag waits for the last: four chains of four rather than one of 16),
 * a run's lags above its first taken only below its cost, then the runs
 * in pairs, the higher run only below the lower. */
static void
viterbi_scan_lanes (int16 iv, int j0, int j1, float factor,
    __local const float *prev, float16 *best_io, int16 *bj_io)
{
  float16 best = *best_io;
  int16 bj = *bj_io;
  if (j1 - j0 == AFET_PITCH_BLOCK) {
    float16 c[4];
    int16 cj[4];
    for (int r = 0; r < 4; r++) {
      int16 d = (int16) (j0 + 4 * r) - iv;
      c[r] = convert_float16 (d * d) * factor + prev[j0 + 4 * r];
      cj[r] = (int16) (j0 + 4 * r);
    }
    for (int k = 1; k < 4; k++)
      for (int r = 0; r < 4; r++) {
        int j = j0 + 4 * r + k;
        int16 d = (int16) (j) - iv;
        float16 v = convert_float16 (d * d) * factor + prev[j];
        int16 m = v < c[r];
        c[r] = select (c[r], v, m);
        cj[r] = select (cj[r], (int16) (j), m);
      }
    for (int r = 0; r < 4; r += 2) {
      int16 m = c[r + 1] < c[r];
      c[r] = select (c[r], c[r + 1], m);
      cj[r] = select (cj[r], cj[r + 1], m);
    }
    int16 m = c[2] < c[0];
    c[0] = select (c[0], c[2], m);
    cj[0] = select (cj[0], cj[2], m);
    m = (c[0] < best) | ((c[0] == best) & (cj[0] < bj));
    best = select (best, c[0], m);
    bj = select (bj, cj[0], m);
  } else
    for (int j = j0; j < j1; j++) {
      int16 d = (int16) (j) - iv;
      float16 v = convert_float16 (d * d) * factor + prev[j];
      int16 m = (v < best) | ((v == best) & ((int16) (j) < bj));
      best = select (best, v, m);
      bj = select (bj, (int16) (j), m);
    }
  *best_io = best;
  *bj_io = bj;
}

__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void
afet_pitch_viterbi_lanes (__global const float *nccf,
    __global const long *job, int S, __global const float *lags,
    float factor, float soft_min_f0, __global ushort *bp,
    __global float *vec, __global const float *end_in,
    __global float *end_out, __global int *agreed, __local float *prev,
    __local float *cur, __local float *bmin)
{
  const int16 iota = (int16) (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
      14, 15);
  /* afet_pitch_viterbi's jobs, always whole utterances (AFET_VITERBI_ALONE:
   * vec, end_in and agreed unused): the first row, the frames, the row of
   * end_out for the last frame's costs */
  int g = get_group_id (0);
  long r0 = job[5 * g];
  int T = (int) job[5 * g + 1];
  __global float *fwd_out = end_out + job[5 * g + 3] * S;
  nccf += r0 * S;
  bp += r0 * S;
  int nb = (S + AFET_PITCH_BLOCK - 1) / AFET_PITCH_BLOCK;
  for (int i = 0; i < nb * AFET_PITCH_BLOCK; i++)
    prev[i] = 0.0f;
  for (int b = 0; b < nb; b++)
    bmin[b] = 0.0f;
  for (int t = 0; t < T; t++) {
    __global const float *nt = nccf + (long) t * S;
    __global ushort *bt = bp + (long) t * S;
    float16 lo16 = (float16) (FLT_MAX);
    int last = 0;
    for (int bi = 0; bi < nb; bi++) {
      int i0 = bi * AFET_PITCH_BLOCK;
      int16 iv = iota + i0, valid = iv < (int16) (S);
      /* staying costs no transition; lanes past the grid take part in
       * nothing (no cost is below -FLT_MAX) */
      float16 best = select ((float16) (-FLT_MAX), vload16 (0, prev + i0),
          valid);
      int16 bj = iv;
      /* first the block of the last lane's predecessor before (the
       * predecessors rise with the lag), and the lanes' own */
      int bg = last / AFET_PITCH_BLOCK;
      viterbi_scan_lanes (iv, bg * AFET_PITCH_BLOCK, min (S, (bg + 1) *
              AFET_PITCH_BLOCK), factor, prev, &best, &bj);
      if (bi != bg)
        viterbi_scan_lanes (iv, i0, min (S, i0 + AFET_PITCH_BLOCK), factor,
            prev, &best, &bj);
      for (int b = bi - 1; b >= 0; b--) {
        int16 d = iv - (int16) ((b + 1) * AFET_PITCH_BLOCK - 1);
        float16 tr = convert_float16 (d * d) * factor;
        if (all (tr > best))
          break;                /* none lower can */
        if (b != bg && any (tr + bmin[b] <= best))
          viterbi_scan_lanes (iv, b * AFET_PITCH_BLOCK, (b + 1) *
              AFET_PITCH_BLOCK, factor, prev, &best, &bj);
      }
      for (int b = bi + 1; b < nb; b++) {
        int16 d = (int16) (b * AFET_PITCH_BLOCK) - iv;
        float16 tr = convert_float16 (d * d) * factor;
        if (all (tr > best))
          break;                /* none higher can */
        if (b != bg && any (tr + bmin[b] <= best))
          viterbi_scan_lanes (iv, b * AFET_PITCH_BLOCK, min (S, (b + 1) *
                  AFET_PITCH_BLOCK), factor, prev, &best, &bj);
      }
      if (i0 + AFET_PITCH_BLOCK <= S) {
        float16 n = vload16 (0, nt + i0);
        float16 lc = ((float16) (1.0f) - n) + soft_min_f0 * n *
            vload16 (0, lags + i0);
        best += lc;
        vstore16 (best, 0, cur + i0);
        vstore16 (convert_ushort16 (bj), 0, bt + i0);
        lo16 = min (lo16, best);
        last = bj.sf;
      } else {
        /* the grid's last lags, lane by lane */
        float cb[AFET_PITCH_BLOCK];
        int cj[AFET_PITCH_BLOCK];
        vstore16 (best, 0, cb);
        vstore16 (bj, 0, cj);
        for (int k = 0; i0 + k < S; k++) {
          int i = i0 + k;
          float n = nt[i];
          float lc = (1.0f - n) + soft_min_f0 * n * lags[i];
          float c = cb[k] + lc;
          cur[i] = c;
          bt[i] = (ushort) cj[k];
          lo16.s0 = min (lo16.s0, c);
        }
      }
    }
    float lo = min16 (lo16);
    for (int b = 0; b < nb; b++) {
      int i0 = b * AFET_PITCH_BLOCK;
      float16 p = vload16 (0, cur + i0) - lo;
      vstore16 (p, 0, prev + i0);
      p = select ((float16) (FLT_MAX), p, iota + i0 < (int16) (S));
      bmin[b] = min16 (p);
    }
  }
  for (int i = 0; i < S; i++)
    fwd_out[i] = prev[i];
}
#endif

/* afet_pitch_nccf_lags on a CPU device: a work-item for 16 lags of a frame
 * (l0 = 16 (g % ceil (M / 16))), their sums side by side in a vector of
 * 16, each lane the same operations in the same order as
 * afet_pitch_nccf_lags's work-item for its lag; one lag alone waits for
 * each addition to finish before the next. */
#ifdef AFET_PITCH_DOUBLE
typedef double16 ACC16;
#define convert_ACC16 convert_double16
#else
typedef float16 ACC16;
#define convert_ACC16 convert_float16
#endif

__kernel void
afet_pitch_nccf_lags16 (__global const float *ds, long n_ds,
    __global const long *start, int T, int M, int basic, int lag0,
    float preemph, __global const ACC *mean_in, __global const ACC *e1_in,
    __global ACC *inner, __global ACC *norm)
{
  int per = (M + 15) / 16;
  long g = get_global_id (0);
  if (g >= (long) T * per)
    return;
  int t = (int) (g / per), l0 = 16 * (int) (g - (long) t * per);
  long s0 = start[t];
  ACC mean = mean_in[t], e1 = e1_in[t];
  __global ACC *ip_out = inner + (long) t * M, *nm_out = norm + (long) t * M;
  if (preemph == 0.0f && s0 >= 0 && s0 + lag0 + l0 + 15 + basic <= n_ds) {
    __global const float *x = ds + s0, *y = ds + s0 + lag0 + l0;
    ACC16 e2 = 0, ip = 0;
    for (int i = 0; i < basic; i++) {
      ACC a = (ACC) x[i] - mean;
      ACC16 b = convert_ACC16 (vload16 (0, y + i)) - mean;
      e2 += b * b;
      ip += a * b;
    }
    ACC ipv[16], e2v[16];
    vstore16 (ip, 0, ipv);
    vstore16 (e2, 0, e2v);
    for (int k = 0; k < 16 && l0 + k < M; k++) {
      ip_out[l0 + k] = ipv[k];
      nm_out[l0 + k] = e1 * e2v[k];
    }
    return;
  }
  /* near the ends, or pre-emphasised: lag by lag */
  for (int k = 0; k < 16 && l0 + k < M; k++) {
    int l = l0 + k;
    ACC e2 = 0, ip = 0;
    lag_sums (ds, n_ds, s0, basic, lag0 + l, preemph, mean, &e2, &ip);
    ip_out[l] = ip;
    nm_out[l] = e1 * e2;
  }
}

/* afet_pitch_upsample_lags on a CPU device: a work-item for 16 grid lags
 * of a frame, their sums over the taps side by side in a vector (each lane
 * the same operations in the same order as one lag's work-item: 16 chains
 * of additions at once rather than one), the early frames' rescaling once
 * for the 16 rather than once a lag. The tables are the lanes' own
 * (engine/temporal/pitch.cc): tap_first and tap_n of the grid padded to a
 * multiple of 16 (no taps past it), tap_wt tap j of lag i at j Sp + i. */
#ifdef AFET_PITCH_DOUBLE
typedef long16 ACCMASK16;
#define convert_ACCMASK16 convert_long16
#else
typedef int16 ACCMASK16;
#define convert_ACCMASK16
#endif

__kernel void
afet_pitch_upsample_lags16 (__global const ACC *nv, __global const ACC *norm,
    int T, int M, int S, __global const int *tap_first,
    __global const int *tap_n, __global const float *tap_wt, int max_taps,
    __global const float *old_ballast, float new_ballast, int rescale,
    __global float *nccf)
{
  int per = (S + 15) / 16, Sp = 16 * per;
  long g = get_global_id (0);
  if (g >= (long) T * per)
    return;
  int t = (int) (g / per), i0 = 16 * (int) (g - (long) t * per);
  __global const ACC *v = nv + (long) t * M;
  int16 f = vload16 (0, tap_first + i0), n = vload16 (0, tap_n + i0);
  ACC16 a = 0;
  for (int j = 0; j < max_taps; j++) {
    int16 at = min (f + j, M - 1);      /* past a lane's taps: unused */
    ACC16 x = (ACC16) (v[at.s0], v[at.s1], v[at.s2], v[at.s3], v[at.s4],
        v[at.s5], v[at.s6], v[at.s7], v[at.s8], v[at.s9], v[at.sa],
        v[at.sb], v[at.sc], v[at.sd], v[at.se], v[at.sf]);
    ACC16 w = convert_ACC16 (vload16 (0, tap_wt + (long) j * Sp + i0));
    /* a lane past its taps keeps its sum as it is (not even + 0) */
    a = select (a, a + w * x, convert_ACCMASK16 ((int16) (j) < n));
  }
  ACC scale = 1;
  if (rescale) {
    __global const ACC *nm = norm + (long) t * M;
    ACC avg = 0;
    for (int l = 0; l < M; l++)
      avg += nm[l];
    avg /= M;
    scale = sqrt (((ACC) old_ballast[t] + avg) / ((ACC) new_ballast + avg));
  }
  ACC r[16];
  vstore16 (a, 0, r);
  for (int k = 0; k < 16 && i0 + k < S; k++)
    nccf[(long) t * S + i0 + k] = (float) (rescale ? r[k] * scale : r[k]);
}
