/* The spectral front for GPUs in one kernel: AFET_GT work-items take one
 * frame from its samples (or its given frame) through window and FFT to its
 * spectrum, or on to its features, in local memory.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A work-group of AFET_LSZ work-items takes AFET_LSZ / AFET_GT consecutive
 * frames side by side (several for small FFTs, so that a group fills a warp).
 * It replaces framing.cl's afet_frame + VkFFT + melbank.cl on GPUs for FFTs
 * of powers of two up to kMaxGroupFft points (engine/spectral/vframes.h), so
 * that a frame crosses global memory once, as samples in and features out,
 * instead of four times as rows of N floats, in one launch instead of three.
 *
 * The steps are vframes.cl's, with a frame's points spread over its
 * work-items instead of a work-item's frames over a vector's elements: a
 * sample by sample.cl's afet_load, then DC removal, energy, in-frame
 * pre-emphasis and window as framing.cl's afet_frame (the sums through
 * group.cl's afet_segment_sum); the N-point complex FFT of the real frame
 * (imaginary parts 0); a channel by filterbank.cl's AFET_BIN_VALUE and
 * AFET_LOG_CHANNEL over the same sparse bank, summed in pieces (see
 * afet_g_mfcc); the DCT the dot product of a row of the same matrix
 * (transposed) with the channels. The FFT differs from vframes.cl's
 * radix-4 one: decimation in frequency by radix-8 passes and a last pass
 * of 4 or 2 points, three passes through local memory for 512 points
 * instead of five (each pass costs a read and a write of the frame there
 * and a barrier, which is what limits a GPU here). Tables made on the
 * host in double precision (engine/spectral/vframes.cc): each radix-8 pass's
 * twiddles W_L^(j m) in a table of its own (afet_g_butterfly8); bin k is
 * read at rev[k], the place where the passes leave it. A warp is a frame
 * (32 work-items at 512 points): the tables are laid out so that its
 * work-items' loads are side by side (docs/internals/spectral-fronts.md
 * "The group front (GPUs)"), and a frame's samples are loaded once.
 *
 * The kernels take vframes.cl's arguments (frontargs.cl), and are built
 * one a program the same way (AFET_GGIVEN: given frames, else audio;
 * AFET_GMFCC: features, else spectra): afet_gframe_spectra,
 * afet_gpad_spectra, afet_gframe_mfcc, afet_gpad_mfcc. They are launched
 * with ceil(n_frames / frames a group) groups; the work-items of frames
 * past the batch compute the batch's last frame again and write nothing,
 * so that every work-item reaches every barrier. The MFCC kernels hold
 * AFET_FILTERS channels a frame (the stage's filter count).
 */

#if !defined (AFET_LSZ) || !defined (AFET_GT)
#error "AFET_LSZ and AFET_GT (work-items a group, a frame) come from afet"
#endif
#ifndef AFET_FFT
#error "AFET_FFT (the FFT size) comes from the engine"
#endif
#if defined (AFET_GMFCC) && !defined (AFET_FILTERS)
#error "AFET_FILTERS (the stage's channels) comes from the engine"
#endif

#include "sample.cl"
#include "group.cl"
#include "filterbank.cl"
#include "frontargs.cl"

#define AFET_N AFET_FFT
#define AFET_BINS (AFET_FFT / 2 + 1)
#define AFET_GF (AFET_LSZ / AFET_GT)
/* radix-8 butterflies a work-item takes in a pass (1 or 2) */
#define AFET_GJ ((AFET_N / 8 + AFET_GT - 1) / AFET_GT)
/* A frame's point i in its local arrays: one float of padding every 32,
 * so that the FFT's strided butterflies and the bit-reversed reads of the
 * bins do not all fall on the same few banks of local memory. */
#define AFET_P(i) ((i) + ((i) >> 5))
#define AFET_NP AFET_P (AFET_N)

/* This work-item's frame: its index t in the batch, u among its
 * work-items, and whether it is in the batch (live) */
#define AFET_FRAME_OF_ITEM \
    const uint lid = get_local_id (0); \
    const uint u = lid % AFET_GT; \
    const uint t_item = get_group_id (0) * AFET_GF + lid / AFET_GT; \
    const int live = t_item < n_frames; \
    const uint t = live ? t_item : n_frames - 1

/* Complex values as float2 (x: real, y: imaginary): a * w, and -i a */
static inline float2
afet_cmul (float2 a, float2 w)
{
  return (float2) (a.x * w.x - a.y * w.y, a.x * w.y + a.y * w.x);
}

static inline float2
afet_mul_mi (float2 a)
{
  return (float2) (a.y, -a.x);
}

/* The 4-point DFT of c0..c3 into y[o], y[o + step], y[o + 2 step],
 * y[o + 3 step] */
#define AFET_DFT4(c0, c1, c2, c3, y, o, step) \
  do { \
    const float2 d0 = (c0) + (c2), d1 = (c0) - (c2); \
    const float2 d2 = (c1) + (c3), d3 = afet_mul_mi ((c1) - (c3)); \
    y[(o)] = d0 + d2; \
    y[(o) + (step)] = d1 + d3; \
    y[(o) + 2 * (step)] = d0 - d2; \
    y[(o) + 3 * (step)] = d1 - d3; \
  } while (0)

/* Point m of butterfly j of the sub-transform at g, stride s, in local
 * memory */
#define AFET_AT(m) AFET_P (g + j + (m) * s)

/* A butterfly of a radix-8 pass of decimation in frequency over the
 * sub-transforms of L points (L >= 8): butterfly j of the sub-transform
 * starting at g has the points x[m] = j + m s (s = L / 8, m < 8); their
 * 8-point DFT, output m' times W_L^(j m') (the pass's twiddles tw:
 * tw[(m' - 1) s + j], none when L = 8), goes back to j + m' s. */
static void
afet_g_butterfly8 (float2 *x, __local float *re, __local float *im,
    __global const float2 *tw, uint L, uint g, uint j)
{
  const uint s = L / 8;
  float2 y[8];
  /* two 4-point DFTs: of the sums, and of the differences times W_8^m */
  const float2 a0 = x[0] + x[4], a1 = x[1] + x[5], a2 = x[2] + x[6],
      a3 = x[3] + x[7];
  const float2 b0 = x[0] - x[4], d1 = x[1] - x[5], d2 = x[2] - x[6],
      d3 = x[3] - x[7];
  const float2 b1 = (float2) (d1.x + d1.y, d1.y - d1.x) * M_SQRT1_2_F;
  const float2 b2 = afet_mul_mi (d2);
  const float2 b3 = (float2) (d3.y - d3.x, -(d3.x + d3.y)) * M_SQRT1_2_F;
  AFET_DFT4 (a0, a1, a2, a3, y, 0, 2);
  AFET_DFT4 (b0, b1, b2, b3, y, 1, 2);
  for (uint m = 0; m < 8; m++) {
    const float2 v = m == 0 || s == 1 ? y[m] :
        afet_cmul (y[m], tw[(m - 1) * s + j]);
    re[AFET_AT (m)] = v.x;
    im[AFET_AT (m)] = v.y;
  }
}

/* Frame t of the audio (afet_frame's steps), work-item u of its AFET_GT,
 * through the FFT's first pass (its points are loaded straight into the
 * butterflies) into re, im; its log energy to energy_buf when energy and
 * live. */
static void
afet_g_frame_audio (__local float *re, __local float *im, __local float *part,
    __global const float2 *tw,
    __global const afet_sample *samples, uint W, uint S, float preemph,
    __global const float *window, float scale, int remove_dc, float dither,
    ulong seed, long first_pos, int energy_mode, float log_energy_floor,
    int energy_windowed, int energy, __global float *energy_buf,
    uint energy_offset, uint energy_stride, uint t, uint u, int live)
{
  __global const afet_sample *x = samples + (size_t) t * S;
  const long pos0 = first_pos + (long) t * S;
  /* the frame's samples, each loaded once, into im (free until the first
   * pass writes it) */
  float sum = 0.0f;
  for (uint i = u; i < W; i += AFET_GT) {
    const float v = afet_load (x, i, scale, dither, seed, pos0);
    im[i] = v;
    sum += v;
  }
  float mean = 0.0f;
  if (remove_dc)
    mean = afet_segment_sum (part, sum, AFET_GT) / (float) W;
  else
    barrier (CLK_LOCAL_MEM_FENCE);
  /* this work-item's points, all read before the first pass writes */
  float acc = 0.0f;
  float v[AFET_GJ][8];
  for (uint r = 0; r < AFET_GJ; r++) {
    const uint j = u + r * AFET_GT;
    for (uint m = 0; m < 8; m++) {
      const uint i = j + m * (AFET_N / 8);
      v[r][m] = i < W && j < AFET_N / 8 ? afet_frame_value (im[i],
          im[i == 0 ? 0 : i - 1], window[i], mean, preemph,
          energy_windowed, &acc) : 0.0f;
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint r = 0; r < AFET_GJ; r++) {
    const uint j = u + r * AFET_GT;
    if (j < AFET_N / 8) {
      float2 p[8];
      for (uint m = 0; m < 8; m++)
        p[m] = (float2) (v[r][m], 0.0f);
      afet_g_butterfly8 (p, re, im, tw, AFET_N, 0, j);
    }
  }
  if (energy) {
    /* its barriers also order the writes above before the next pass */
    float e = afet_segment_sum (part, acc, AFET_GT);
    if (u == 0 && live)
      energy_buf[energy_offset + t * energy_stride] =
          afet_log_energy (e, energy_mode, log_energy_floor);
  } else {
    barrier (CLK_LOCAL_MEM_FENCE);
  }
}

/* Given frame t (afet_pad_frames' steps), work-item u of its AFET_GT,
 * through the FFT's first pass into re, im; the energy it carries at
 * column W to energy_buf when energy and live. */
static void
afet_g_frame_given (__local float *re, __local float *im,
    __global const float2 *tw,
    __global const float *in, uint in_offset, uint in_stride, uint W,
    int energy, __global float *energy_buf, uint energy_offset,
    uint energy_stride, uint t, uint u, int live)
{
  __global const float *x = in + in_offset + (size_t) t * in_stride;
  for (uint j = u; j < AFET_N / 8; j += AFET_GT) {
    float2 p[8];
    for (uint m = 0; m < 8; m++) {
      const uint i = j + m * (AFET_N / 8);
      p[m] = (float2) (i < W ? x[i] : 0.0f, 0.0f);
    }
    afet_g_butterfly8 (p, re, im, tw, AFET_N, 0, j);
  }
  if (energy && u == 0 && live)
    energy_buf[energy_offset + t * energy_stride] = x[W];
  barrier (CLK_LOCAL_MEM_FENCE);
}

/* The last pass when log2(N) is not a multiple of 3: 4-point (r = 4) or
 * 2-point DFTs of consecutive points (no twiddles: L = r). */
static void
afet_g_last (__local float *re, __local float *im, uint r, uint u)
{
  const uint s = 1, j = 0;
  for (uint b = u; b < AFET_N / r; b += AFET_GT) {
    const uint g = b * r;
    float2 x[4], y[4];
    for (uint m = 0; m < r; m++)
      x[m] = (float2) (re[AFET_AT (m)], im[AFET_AT (m)]);
    if (r == 4) {
      AFET_DFT4 (x[0], x[1], x[2], x[3], y, 0, 1);
    } else {
      y[0] = x[0] + x[1];
      y[1] = x[0] - x[1];
    }
    for (uint m = 0; m < r; m++) {
      re[AFET_AT (m)] = y[m].x;
      im[AFET_AT (m)] = y[m].y;
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);
}

/* The N-point complex FFT of the frame in re + i im after its first pass
 * (afet_g_frame_*: radix 8 over all N points), in place, by work-item u of
 * the frame's AFET_GT: more radix-8 passes, then one of 4 or 2 points.
 * Bin k ends at rev[k], the digits of k reversed (KernelFront makes the
 * table). The results are in local memory for every work-item of the
 * group at return. */
static void
afet_g_fft (__local float *re, __local float *im, __global const float2 *tw,
    uint u)
{
  uint L = AFET_N / 8;
  /* past the first pass's twiddles */
  tw += 7 * (AFET_N / 8);
  for (; L >= 8; tw += 7 * (L / 8), L /= 8) {
    const uint s = L / 8;
    for (uint b = u; b < AFET_N / 8; b += AFET_GT) {
      const uint j = b & (s - 1);
      const uint g = (b - j) * 8;
      float2 x[8];
      for (uint m = 0; m < 8; m++)
        x[m] = (float2) (re[AFET_AT (m)], im[AFET_AT (m)]);
      afet_g_butterfly8 (x, re, im, tw, L, g, j);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  if (L > 1)
    afet_g_last (re, im, L, u);
}

/* Frame t's spectrum (after afet_g_fft) to its row of spec_stride floats:
 * N/2 + 1 interleaved complex bins, VkFFT's layout. */
static void
afet_g_spectra (__local const float *re, __local const float *im,
    __global const int *rev, __global float *spec, uint spec_stride, uint t,
    uint u, int live)
{
  if (!live)
    return;
  __global float *row = spec + (size_t) t * spec_stride;
  for (uint k = u; k < AFET_BINS; k += AFET_GT) {
    const int r = AFET_P (rev[k]);
    row[2 * k] = re[r];
    row[2 * k + 1] = im[r];
  }
}

/* Piece p of np of a filter bank in pieces (below) over the bins' values
 * pw */
static inline float
afet_g_piece (uint p, uint np, __global const int *first,
    __global const int *count, __global const float *weights,
    __local const float *pw)
{
  const int k0 = first[p], n = count[p];
  float sum = 0.0f;
  for (int i = 0; i < n; i++)
    sum += weights[(size_t) i * np + p] * pw[k0 + i];
  return sum;
}

/* Frame t's log mel filter bank (ncols = 0) or its DCT (the ncols x M
 * matrix dct, transposed: column j of channel c at c ncols + j), from its
 * spectrum (after afet_g_fft), to out[out_offset + t * out_stride +
 * column] when live, by work-item u of its AFET_GT. The filter bank comes
 * in pieces (engine/spectral/spectral.h, upload_pieces): piece p covers bins
 * first[p] .. first[p] + count[p] - 1 with weights weights[i np + p] (np
 * = offset[M] pieces, side by side for the work-items), and channel c is
 * the sum of pieces offset[c] .. offset[c + 1] - 1 (their sums go to re,
 * free once the bins are read: np <= max (AFET_GT, M) < N). pw holds
 * AFET_BINS floats, fb AFET_FILTERS (>= M). */
static void
afet_g_mfcc (__local float *re, __local const float *im,
    __local float *pw, __local float *fb, __global const int *rev,
    __global const int *first, __global const int *count,
    __global const int *offset, __global const float *weights, uint M,
    int use_power, float floor_v, float log_mul, __global const float *dct,
    uint ncols, __global float *out, uint out_offset, uint out_stride, uint t,
    uint u, int live)
{
  for (uint k = u; k < AFET_BINS; k += AFET_GT) {
    const int r = AFET_P (rev[k]);
    const float xr = re[r], xi = im[r];
    pw[k] = AFET_BIN_VALUE (xr * xr + xi * xi, use_power);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  const uint np = offset[M];
  if (np == M) {
    /* a piece a channel: no sums to add up */
    for (uint c = u; c < M; c += AFET_GT)
      fb[c] = AFET_LOG_CHANNEL (afet_g_piece (c, np, first, count, weights,
              pw), floor_v, log_mul);
  } else {
    for (uint p = u; p < np; p += AFET_GT)
      re[p] = afet_g_piece (p, np, first, count, weights, pw);
    barrier (CLK_LOCAL_MEM_FENCE);
    for (uint c = u; c < M; c += AFET_GT) {
      const int p1 = offset[c + 1];
      float sum = 0.0f;
      for (int p = offset[c]; p < p1; p++)
        sum += re[p];
      fb[c] = AFET_LOG_CHANNEL (sum, floor_v, log_mul);
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  if (!live)
    return;
  __global float *row = out + out_offset + (size_t) t * out_stride;
  if (ncols == 0) {
    for (uint c = u; c < M; c += AFET_GT)
      row[c] = fb[c];
    return;
  }
  for (uint j = u; j < ncols; j += AFET_GT)
    row[j] = afet_dct_value (dct + j, ncols, M, fb);
}

#define AFET_AUDIO_FRAME \
    afet_g_frame_audio (re, im, part, (__global const float2 *) tw, \
        samples + origin, W, S, preemph, window, scale, \
        remove_dc, dither, seed, first_pos, energy_mode, log_energy_floor, \
        energy_windowed, energy, energy_buf, energy_offset, energy_stride, \
        t, u, live)
#define AFET_GIVEN_FRAME \
    afet_g_frame_given (re, im, (__global const float2 *) tw, in, \
        in_offset, in_stride, W, energy, \
        energy_buf, energy_offset, energy_stride, t, u, live)
#define AFET_SPECTRA \
    afet_g_fft (re, im, (__global const float2 *) tw, u); \
    afet_g_spectra (re, im, rev, spec, spec_stride, t, u, live)
#define AFET_MFCC \
    __local float pw_all[AFET_GF * AFET_BINS]; \
    __local float fb_all[AFET_GF * AFET_FILTERS]; \
    afet_g_fft (re, im, (__global const float2 *) tw, u); \
    afet_g_mfcc (re, im, pw_all + (lid / AFET_GT) * AFET_BINS, \
        fb_all + (lid / AFET_GT) * AFET_FILTERS, rev, first, count, offset, \
        weights, M, use_power, floor_v, log_mul, dct, ncols, out, \
        out_offset, out_stride, t, u, live)
/* the group's local memory; this work-item's frame and its part of it */
#define AFET_GROUP_LOCALS \
    __local float re_all[AFET_GF * AFET_NP]; \
    __local float im_all[AFET_GF * AFET_NP]; \
    __local float part[AFET_LSZ]; \
    AFET_FRAME_OF_ITEM; \
    __local float *re = re_all + (lid / AFET_GT) * AFET_NP; \
    __local float *im = im_all + (lid / AFET_GT) * AFET_NP; \
    (void) part

#if !defined (AFET_GGIVEN) && !defined (AFET_GMFCC)
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_gframe_spectra)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_gframe_spectra (AFET_AUDIO_ARGS, AFET_SPECTRA_ARGS)
{
  AFET_GROUP_LOCALS;
  AFET_AUDIO_FRAME;
  AFET_SPECTRA;
}
#endif
#elif defined (AFET_GGIVEN) && !defined (AFET_GMFCC)
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_gpad_spectra)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_gpad_spectra (AFET_GIVEN_ARGS, AFET_SPECTRA_ARGS)
{
  AFET_GROUP_LOCALS;
  AFET_GIVEN_FRAME;
  AFET_SPECTRA;
}
#endif
#elif !defined (AFET_GGIVEN)
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_gframe_mfcc)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_gframe_mfcc (AFET_AUDIO_ARGS, AFET_MFCC_ARGS)
{
  AFET_GROUP_LOCALS;
  AFET_AUDIO_FRAME;
  AFET_MFCC;
}
#endif
#else
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_gpad_mfcc)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_gpad_mfcc (AFET_GIVEN_ARGS, AFET_MFCC_ARGS)
{
  AFET_GROUP_LOCALS;
  AFET_GIVEN_FRAME;
  AFET_MFCC;
}
#endif
#endif
