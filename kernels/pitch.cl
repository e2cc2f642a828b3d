/* Kaldi's pitch tracker on the device: resampling, the NCCF of every frame
 * over its lags, the upsampling to the lag grid, the Viterbi forward pass,
 * its backtrace and the raw output (nccf, pitch).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * In this order (engine/temporal/pitch.cc; the Viterbi and backtrace of
 * many utterances at once: pitch-batch.cc):
 *
 * afet_pitch_resample: one work-item per output sample k of Kaldi's
 *   LinearResample: output k sits in period unit k / out_unit at phase
 *   w = k % out_unit, and sums ph_n[w] inputs from ph_first[w] + unit
 *   in_unit with the phase's weights (zeros outside the input).
 * afet_pitch_frame_stats, afet_pitch_nccf_lags: a frame's window less its
 *   mean and its energy e1 (a work-item per frame), then per (frame,
 *   measured lag) the energy e2 of the window lag samples later and their
 *   inner product; inner = ip, norm = e1 e2.
 * afet_pitch_normalize, afet_pitch_upsample_lags (offline) or
 *   afet_pitch_upsample_pair (online chunks of many streams): the NCCF with
 *   the frame's ballast, inner / sqrt (norm + ballast), taken to the lag
 *   grid by the upsampling filter's taps, times Kaldi's rescaling of the
 *   early frames offline (rescale: sqrt ((old + avg) / (new + avg)), avg
 *   the mean of the frame's norms).
 * afet_pitch_viterbi: a work-group per utterance (utt: its first row and
 *   frames; engine/temporal/pitch-batch.cc runs many utterances in one
 *   launch), its work-items over the lags: each lag's best predecessor (the
 *   lowest index of the least cost), its local cost, and the forward cost
 *   less its minimum, frame after frame; backpointers into bp. The
 *   predecessors are searched by blocks of AFET_PITCH_BLOCK lags, the block
 *   of the work-item's previous lag's predecessor (or the last frame's)
 *   first, a block skipped when its least previous cost plus its least
 *   transition exceeds the best found (float's rounding is monotone, so
 *   that bound holds for the rounded costs): the same predecessor as a
 *   search of every lag, in a few blocks a lag.
 * afet_pitch_backtrace: a work-item per utterance: the path from the
 *   lowest final forward cost (lowest index) back to frame 0.
 * afet_pitch_output: one work-item per frame: (the NCCF without ballast at
 *   the chosen lag, 1 / lag).
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

__kernel void
afet_pitch_resample (__global const float *x, long n,
    __global const int *ph_first, __global const int *ph_n,
    __global const float *ph_w, int max_taps, int out_unit, int in_unit,
    __global float *y, long n_out)
{
  long k = get_global_id (0);
  if (k >= n_out)
    return;
  long unit = k / out_unit;
  int w = (int) (k - unit * out_unit);
  long base = ph_first[w] + unit * in_unit;
  ACC acc = 0;
  for (int j = 0; j < ph_n[w]; j++) {
    long idx = base + j;
    if (idx >= 0 && idx < n)
      acc += (ACC) ph_w[w * max_taps + j] * (ACC) x[idx];
  }
  y[k] = (float) acc;
}

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
 * (afet_pitch_upsample_lags), online both upsamplings of a frame at once
 * (afet_pitch_upsample_pair). The sums run in the same order on both
 * paths: a frame's values are the same. */
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
  if (preemph == 0.0f && s0 >= 0 && s0 + lag0 + l + basic <= n_ds) {
    /* inside the signal, no pre-emphasis: window_at's samples as they
     * are */
    __global const float *x = ds + s0, *y = ds + s0 + lag0 + l;
    for (int i = 0; i < basic; i++) {
      ACC a = (ACC) x[i] - mean;
      ACC b = (ACC) y[i] - mean;
      e2 += b * b;
      ip += a * b;
    }
  } else
    for (int i = 0; i < basic; i++) {
      ACC a = window_at (ds, n_ds, s0, i, preemph) - mean;
      ACC b = window_at (ds, n_ds, s0, lag0 + l + i, preemph) - mean;
      e2 += b * b;
      ip += a * b;
    }
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

/* The online chunks' upsampling (engine/temporal/pitch-chunks.cc), one
 * work-item per (frame, grid lag), into one row a frame of 2 S + 1 floats:
 * the NCCF with the frame's ballast (what the Viterbi sees), without it
 * (the POV NCCF the output gives), and, from the lag-0 work-item, the mean
 * of the frame's norms (RecomputeBacktraces' avg). Each value is taken as
 * afet_pitch_normalize and afet_pitch_upsample_lags take it offline. */
__kernel void
afet_pitch_upsample_pair (__global const ACC *inner, __global const ACC *norm,
    int T, int M, int S, __global const int *tap_first,
    __global const int *tap_n, __global const float *tap_w, int max_taps,
    __global const float *ballast, __global float *out)
{
  long g = get_global_id (0);
  if (g >= (long) T * S)
    return;
  int t = (int) (g / S), i = (int) (g - (long) t * S);
  __global const ACC *ip = inner + (long) t * M, *nm = norm + (long) t * M;
  __global float *row = out + (long) t * (2 * S + 1);
  ACC b = ballast[t], a = 0, a0 = 0;
  for (int j = 0; j < tap_n[i]; j++) {
    int l = tap_first[i] + j;
    ACC w = (ACC) tap_w[i * max_taps + j];
    ACC den = sqrt (nm[l] + b), den0 = sqrt (nm[l] + (ACC) 0);
    a += w * (den != 0 ? (ACC) ip[l] / den : (ACC) 0);
    a0 += w * (den0 != 0 ? (ACC) ip[l] / den0 : (ACC) 0);
  }
  row[i] = (float) a;
  row[S + i] = (float) a0;
  if (i == 0) {
    ACC avg = 0;
    for (int l = 0; l < M; l++)
      avg += nm[l];
    avg /= M;
    row[2 * S] = (float) avg;
  }
}

/* Kaldi's transition cost d^2 factor plus the previous forward cost, in
 * float without contraction (the comparisons below depend on it) */
#define AFET_PITCH_STEP(i, j) \
  ((float) (((j) - (i)) * ((j) - (i))) * factor + prev[j])

/* the least cost of i's predecessors in lags j0 .. j1 - 1 (a block) into
 * best and bj, ties to the lower lag */
static void
viterbi_scan_block (int i, int j0, int j1, float factor,
    __local const float *prev, float *best_io, int *bj_io)
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
        vload16 (0, prev + j0);
    float m;
    float8 m8 = min (v.lo, v.hi);
    float4 m4 = min (m8.lo, m8.hi);
    float2 m2 = min (m4.lo, m4.hi);
    m = min (m2.lo, m2.hi);     /* no NaN here */
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

__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_pitch_viterbi (__global const float *nccf, __global const long *utt,
    int S, __global const float *lags, float factor, float soft_min_f0,
    __global ushort *bp, __global float *fwd_out, __local float *prev,
    __local float *cur, __local float *bmin)
{
  __local float part[AFET_LSZ];
  int lid = get_local_id (0);
  /* this work-group's utterance: its first row, its frames */
  int g = get_group_id (0);
  long r0 = utt[2 * g];
  int T = (int) utt[2 * g + 1];
  nccf += r0 * S;
  bp += r0 * S;
  fwd_out += (long) g * S;
  int nb = (S + AFET_PITCH_BLOCK - 1) / AFET_PITCH_BLOCK;
  for (int i = lid; i < S; i += AFET_LSZ)
    prev[i] = 0.0f;
  for (int b = lid; b < nb; b += AFET_LSZ)
    bmin[b] = 0.0f;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int t = 0; t < T; t++) {
    float lo = FLT_MAX;
    int last = 0;
    for (int i = lid; i < S; i += AFET_LSZ) {
      /* each lag's best predecessor is the lowest index of the least
       * cost over all lags. A block likely to hold it first,
       * for a low best cost early, then the blocks outward from i: a block
       * whose bound exceeds the best cost so far holds neither a better
       * nor a tying lag, and past one whose transition alone exceeds it
       * none can (ties go to the lower index whatever the order) */
      float best = prev[i];     /* staying costs no transition */
      int bj = i;
      /* the predecessor of this work-item's previous lag where it had one
       * (the predecessors rise with the lag: Kaldi's search starts there),
       * else last frame's */
      int bg = (i >= AFET_LSZ ? last : t > 0 ? bp[(long) (t - 1) * S + i] :
          i) / AFET_PITCH_BLOCK, bi = i / AFET_PITCH_BLOCK;
      viterbi_scan_block (i, bg * AFET_PITCH_BLOCK, min (S, (bg + 1) *
              AFET_PITCH_BLOCK), factor, prev, &best, &bj);
      for (int b = bi; b >= 0; b--) {
        int j0 = b * AFET_PITCH_BLOCK, j1 = min (S, j0 + AFET_PITCH_BLOCK);
        int d = b == bi ? 0 : i - j1 + 1;
        float tr = (float) (d * d) * factor;
        if (tr > best)
          break;                /* none lower can */
        if (b != bg && tr + bmin[b] <= best)
          viterbi_scan_block (i, j0, j1, factor, prev, &best, &bj);
      }
      for (int b = bi + 1; b < nb; b++) {
        int j0 = b * AFET_PITCH_BLOCK, j1 = min (S, j0 + AFET_PITCH_BLOCK);
        int d = j0 - i;
        float tr = (float) (d * d) * factor;
        if (tr > best)
          break;                /* none higher can */
        if (b != bg && tr + bmin[b] <= best)
          viterbi_scan_block (i, j0, j1, factor, prev, &best, &bj);
      }
      float n = nccf[(long) t * S + i];
      float lc = (1.0f - n) + soft_min_f0 * n * lags[i];
      best += lc;
      cur[i] = best;
      bp[(long) t * S + i] = (ushort) bj;
      last = bj;
      lo = min (lo, best);
    }
    part[lid] = lo;
    barrier (CLK_LOCAL_MEM_FENCE);
    for (int s = AFET_LSZ / 2; s > 0; s >>= 1) {
      if (lid < s)
        part[lid] = min (part[lid], part[lid + s]);
      barrier (CLK_LOCAL_MEM_FENCE);
    }
    lo = part[0];
    for (int i = lid; i < S; i += AFET_LSZ)
      prev[i] = cur[i] - lo;
    barrier (CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < nb; b += AFET_LSZ) {
      int j1 = min (S, (b + 1) * AFET_PITCH_BLOCK);
      float m = FLT_MAX;
      for (int j = b * AFET_PITCH_BLOCK; j < j1; j++)
        m = min (m, prev[j]);
      bmin[b] = m;
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  for (int i = lid; i < S; i += AFET_LSZ)
    fwd_out[i] = prev[i];
}

__kernel void
afet_pitch_backtrace (__global const ushort *bp, __global const float *fwd,
    __global const long *utt, int n, int S, __global int *path)
{
  int g = get_global_id (0);
  if (g >= n)
    return;
  long r0 = utt[2 * g];
  int T = (int) utt[2 * g + 1];
  bp += r0 * S;
  fwd += (long) g * S;
  path += r0;
  int s = 0;
  for (int i = 1; i < S; i++)
    if (fwd[i] < fwd[s])
      s = i;
  for (int t = T - 1; t >= 0; t--) {
    path[t] = s;
    s = bp[(long) t * S + s];
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
