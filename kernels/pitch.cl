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
 * afet_pitch_nccf: one work-item per (frame, measured lag): the frame's
 *   window less its mean, its energy e1, the energy e2 of the window lag
 *   samples later and their inner product; inner = ip, norm = e1 e2.
 * afet_pitch_upsample: one work-item per (frame, grid lag): the NCCF with
 *   the frame's ballast, inner / sqrt (norm + ballast), taken to the lag
 *   grid by the upsampling filter's taps, times Kaldi's rescaling of the
 *   early frames (rescale: sqrt ((old + avg) / (new + avg)), avg the mean
 *   of the frame's norms).
 * afet_pitch_viterbi: a work-group per utterance (utt: its first row and
 *   frames; engine/temporal/pitch-batch.cc runs many utterances in one
 *   launch), its work-items over the lags: each lag's best predecessor (the
 *   lowest index of the least cost), its local cost, and the forward cost
 *   less its minimum, frame after frame; backpointers into bp.
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

__kernel void
afet_pitch_nccf (__global const float *ds, long n_ds,
    __global const long *start, int T, int M, int basic, int lag0,
    float preemph, __global ACC *inner, __global ACC *norm)
{
  long g = get_global_id (0);
  if (g >= (long) T * M)
    return;
  int t = (int) (g / M), l = (int) (g - (long) t * M);
  long s0 = start[t];
  ACC mean = 0;
  for (int i = 0; i < basic; i++)
    mean += window_at (ds, n_ds, s0, i, preemph);
  mean /= basic;
  ACC e1 = 0, e2 = 0, ip = 0;
  for (int i = 0; i < basic; i++) {
    ACC a = window_at (ds, n_ds, s0, i, preemph) - mean;
    ACC b = window_at (ds, n_ds, s0, lag0 + l + i, preemph) - mean;
    e1 += a * a;
    e2 += b * b;
    ip += a * b;
  }
  inner[g] = ip;
  norm[g] = e1 * e2;
}

__kernel void
afet_pitch_upsample (__global const ACC *inner, __global const ACC *norm,
    int T, int M, int S, __global const int *tap_first,
    __global const int *tap_n, __global const float *tap_w, int max_taps,
    __global const float *ballast, __global const float *old_ballast,
    float new_ballast, int rescale, __global float *nccf)
{
  long g = get_global_id (0);
  if (g >= (long) T * S)
    return;
  int t = (int) (g / S), i = (int) (g - (long) t * S);
  __global const ACC *ip = inner + (long) t * M, *nm = norm + (long) t * M;
  ACC b = ballast[t], a = 0;
  for (int j = 0; j < tap_n[i]; j++) {
    int l = tap_first[i] + j;
    ACC den = sqrt (nm[l] + b);
    ACC v = den != 0 ? (ACC) ip[l] / den : (ACC) 0;
    a += (ACC) tap_w[i * max_taps + j] * v;
  }
  if (rescale) {
    ACC avg = 0;
    for (int l = 0; l < M; l++)
      avg += nm[l];
    avg /= M;
    a *= sqrt (((ACC) old_ballast[t] + avg) / ((ACC) new_ballast + avg));
  }
  nccf[g] = (float) a;
}

__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_pitch_viterbi (__global const float *nccf, __global const long *utt,
    int S, __global const float *lags, float factor, float soft_min_f0,
    __global ushort *bp, __global float *fwd_out, __local float *prev,
    __local float *cur)
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
  for (int i = lid; i < S; i += AFET_LSZ)
    prev[i] = 0.0f;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int t = 0; t < T; t++) {
    float lo = FLT_MAX;
    for (int i = lid; i < S; i += AFET_LSZ) {
      /* no predecessor costs less than its transition cost, prev >= 0:
       * those farther than r (whose transition alone exceeds prev[i], the
       * cost of staying) can neither win nor tie */
      float stay = prev[i];
      float q = stay / factor;
      int r = q < (float) S * (float) S ? (int) sqrt (q) + 2 : S;
      int j0 = max (0, i - r), j1 = min (S - 1, i + r);
      float best = FLT_MAX;
      int bj = i;
      for (int j = j0; j <= j1; j++) {
        float d = (float) ((j - i) * (j - i));
        float v = d * factor + prev[j];
        if (v < best) {
          best = v;
          bj = j;
        }
      }
      float n = nccf[(long) t * S + i];
      float lc = (1.0f - n) + soft_min_f0 * n * lags[i];
      best += lc;
      cur[i] = best;
      bp[(long) t * S + i] = (ushort) bj;
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
