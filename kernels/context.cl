/* The kernels of the stages whose output frame t reads input frames around t
 * (deltas, HTK's and Kaldi's, splicing, TRAPS), for a block of one stream or
 * the lanes of many.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is a block of rows (row_stride floats) holding the stream's
 * frames first_row .. first_row + rows - 1; an index outside the stream is clamped
 * to it (the first or last frame repeats). total is the stream's frame
 * count, or -1 while the end is not known (then only the start clamps; the
 * caller guarantees the look-ahead is in the block). The *_lanes kernels
 * compute the same values for many live streams at once, from their lanes
 * (rows.cl). One work-item per output value (HTK's deltas: per static
 * column; on CPU devices afet_delta per frame), 1-D, AFET_LSZ a group.
 * With AFET_ONLY defined (PoCL, make_kernel) only the kernel named by
 * AFET_ONLY_<name> is compiled.
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

#include "rows.cl"

/* regression deltas: d_t = sum_k k (x_{t+k} - x_{t-k}) / (2 sum k^2) */
static float
afet_d1 (__global const float *b, uint rs, afet_view v, long t, uint c,
    int nd, float dnorm)
{
  float acc = 0.0f;
  for (int k = 1; k <= nd; k++)
    acc += k * (afet_in (b, rs, v, t + k, c) - afet_in (b, rs, v, t - k, c));
  return acc / dnorm;
}

/* accelerations: the same formula over the delta sequence, whose indices
 * are clamped to the stream too (HTK) */
static float
afet_d2 (__global const float *b, uint rs, afet_view v, long t, uint c,
    int nd, float dnorm, int na, float anorm)
{
  float acc = 0.0f;
  for (int k = 1; k <= na; k++)
    acc += k * (afet_d1 (b, rs, v, afet_clamp_frame (t + k, v.total), c, nd,
            dnorm) - afet_d1 (b, rs, v, afet_clamp_frame (t - k, v.total), c,
            nd, dnorm));
  return acc / anorm;
}

static float
afet_d3 (__global const float *b, uint rs, afet_view v, long t, uint c,
    int nd, float dnorm, int na, float anorm)
{
  float acc = 0.0f;
  for (int k = 1; k <= na; k++)
    acc += k * (afet_d2 (b, rs, v, afet_clamp_frame (t + k, v.total), c, nd,
            dnorm, na, anorm) - afet_d2 (b, rs, v,
            afet_clamp_frame (t - k, v.total), c, nd, dnorm, na, anorm));
  return acc / anorm;
}

#ifdef AFET_DELTA_REGISTERS
/* CPU devices (AFET_DELTA_REGISTERS, engine/temporal/delta.cc): a frame far
 * enough from the stream's ends that no index clamps has its dynamics from
 * the 2 W + 1 values around it read once (W = nd + (order - 1) na), with
 * the same float operations in the same order as afet_d1/2/3, so the same
 * values bit for bit; the accelerations otherwise read every value four
 * times or more through afet_in (a third of a short file's instructions on
 * PoCL). */
#define AFET_DELTA_MAX_W 16
static bool
afet_delta_frame_interior (__global const float *b, uint rs, afet_view v,
    long g, uint c, uint statics, int order, int nd, float dnorm, int na,
    float anorm, __global float *o)
{
  int W = nd + (order - 1) * na;
  if (order < 2 || W > AFET_DELTA_MAX_W || g - W < 0 ||
      (v.total >= 0 && g + W > v.total - 1))
    return false;
  float x[2 * AFET_DELTA_MAX_W + 1];
  for (int i = -W; i <= W; i++)
    x[W + i] = b[afet_row_of (v, g + i) * rs + c];
  /* d1 of frames g - (order - 1) na .. g + (order - 1) na, then d2 of
   * g - (order - 2) na .., then d3 of g */
  float d1[2 * AFET_DELTA_MAX_W + 1], d2[2 * AFET_DELTA_MAX_W + 1];
  int r1 = (order - 1) * na;
  for (int u = -r1; u <= r1; u++) {
    float acc = 0.0f;
    for (int k = 1; k <= nd; k++)
      acc += k * (x[W + u + k] - x[W + u - k]);
    d1[r1 + u] = acc / dnorm;
  }
  int r2 = (order - 2) * na;
  for (int u = -r2; u <= r2; u++) {
    float acc = 0.0f;
    for (int k = 1; k <= na; k++)
      acc += k * (d1[r1 + u + k] - d1[r1 + u - k]);
    d2[r2 + u] = acc / anorm;
  }
  o[c] = x[W];
  o[statics + c] = d1[r1];
  o[2 * statics + c] = d2[r2];
  if (order >= 3) {
    float acc = 0.0f;
    for (int k = 1; k <= na; k++)
      acc += k * (d2[r2 + k] - d2[r2 - k]);
    o[3 * statics + c] = acc / anorm;
  }
  return true;
}
#endif

/* column c of every block of output frame g into o: statics, then order
 * blocks of dynamics, statics wide each */
static void
afet_delta_frame (__global const float *b, uint rs, afet_view v, long g,
    uint c, uint statics, int order, int nd, float dnorm, int na, float anorm,
    __global float *o)
{
#ifdef AFET_DELTA_REGISTERS
  if (afet_delta_frame_interior (b, rs, v, g, c, statics, order, nd, dnorm,
          na, anorm, o))
    return;
#endif
  o[c] = afet_in (b, rs, v, g, c);
  o[statics + c] = afet_d1 (b, rs, v, g, c, nd, dnorm);
  if (order >= 2)
    o[2 * statics + c] = afet_d2 (b, rs, v, g, c, nd, dnorm, na, anorm);
  if (order >= 3)
    o[3 * statics + c] = afet_d3 (b, rs, v, g, c, nd, dnorm, na, anorm);
}

#ifdef AFET_DELTA_FRAMES
/* CPU devices (engine/temporal/delta.cc): a work-item per output frame,
 * built for one configuration (AFET_DS static columns, order AFET_DO,
 * windows AFET_DND and AFET_DNA), so that the loops unroll, each input
 * value is loaded once and the columns' loop is vectorised; the float
 * operations are afet_d1/2/3's in the same order, so the values are the
 * same bit for bit. A frame within the window of the stream's ends takes
 * the clamped path. */
#define AFET_DW (AFET_DND + (AFET_DO - 1) * AFET_DNA)

static float
afet_fd1 (__global const float *restrict x, uint rs, uint c, int u,
    float dnorm)
{
  float acc = 0.0f;
#pragma unroll
  for (int k = 1; k <= AFET_DND; k++)
    acc += k * (x[(long) (u + k) * rs + c] - x[(long) (u - k) * rs + c]);
  return acc / dnorm;
}

static float
afet_fd2 (__global const float *restrict x, uint rs, uint c, int u,
    float dnorm, float anorm)
{
  float acc = 0.0f;
#pragma unroll
  for (int k = 1; k <= AFET_DNA; k++)
    acc += k * (afet_fd1 (x, rs, c, u + k, dnorm) -
        afet_fd1 (x, rs, c, u - k, dnorm));
  return acc / anorm;
}

static float
afet_fd3 (__global const float *restrict x, uint rs, uint c, float dnorm,
    float anorm)
{
  float acc = 0.0f;
#pragma unroll
  for (int k = 1; k <= AFET_DNA; k++)
    acc += k * (afet_fd2 (x, rs, c, k, dnorm, anorm) -
        afet_fd2 (x, rs, c, -k, dnorm, anorm));
  return acc / anorm;
}

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_delta)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_delta (__global const float *restrict block, uint row_stride,
    long first_row, long total, long out_first, uint n, uint statics,
    int order, int nd, float dnorm, int na, float anorm,
    __global float *restrict out, uint out_offset)
{
  uint t = get_global_id (0);
  if (t >= n)
    return;
  long g = out_first + t;
  __global float *o = out + out_offset + (size_t) t * (AFET_DS * (AFET_DO + 1));
  if (g - AFET_DW < 0 || (total >= 0 && g + AFET_DW > total - 1)) {
    afet_view v = afet_block_view (first_row, total);
    for (uint c = 0; c < AFET_DS; c++)
      afet_delta_frame (block, row_stride, v, g, c, AFET_DS, AFET_DO,
          AFET_DND, dnorm, AFET_DNA, anorm, o);
    return;
  }
  __global const float *x = block + (size_t) (g - first_row) * row_stride;
  for (uint c = 0; c < AFET_DS; c++) {
    o[c] = x[c];
    o[AFET_DS + c] = afet_fd1 (x, row_stride, c, 0, dnorm);
#if AFET_DO >= 2
    o[2 * AFET_DS + c] = afet_fd2 (x, row_stride, c, 0, dnorm, anorm);
#endif
#if AFET_DO >= 3
    o[3 * AFET_DS + c] = afet_fd3 (x, row_stride, c, dnorm, anorm);
#endif
  }
}
#endif
#else
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_delta)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_delta (__global const float *block, uint row_stride, long first_row,
    long total, long out_first, uint n, uint statics, int order, int nd,
    float dnorm, int na, float anorm, __global float *out, uint out_offset)
{
  uint gid = get_global_id (0);
  uint t = gid / statics;
  uint c = gid - t * statics;
  if (t >= n)
    return;
  uint dims = statics * (uint) (order + 1);
  afet_delta_frame (block, row_stride, afet_block_view (first_row, total),
      out_first + t, c, statics, order, nd, dnorm, na, anorm,
      out + out_offset + (size_t) t * dims);
}
#endif
#endif

/* the same over lanes: output row t is frame desc[3 t] of the lane at row
 * desc[3 t + 2] (see rows.cl) */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_delta_lanes)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_delta_lanes (__global const float *lanes, uint row_stride, uint ring,
    __global const long *desc, uint n, uint statics, int order, int nd,
    float dnorm, int na, float anorm, __global float *out)
{
  uint gid = get_global_id (0);
  uint t = gid / statics;
  uint c = gid - t * statics;
  if (t >= n)
    return;
  long g;
  afet_view v = afet_lane_view (desc, t, ring, &g);
  uint dims = statics * (uint) (order + 1);
  afet_delta_frame (lanes, row_stride, v, g, c, statics, order, nd, dnorm,
      na, anorm, out + (size_t) t * dims);
}
#endif

/* Kaldi's add-deltas: block o of output frame g is sum_j s_o[j] x(g + j)
 * for j = -o N .. o N, indices clamped; s holds the filters of orders 0..
 * one after the other (engine/temporal/delta.cc: kaldi_delta_scales), order
 * o's from o + N o (o - 1). Zero taps are skipped as Kaldi skips them. r is
 * the value's index in the output row. */
static float
afet_kaldi_delta_value (__global const float *b, uint rs, afet_view v,
    long g, uint r, uint statics, int N, __constant float *s)
{
  int o = (int) (r / statics);
  uint c = r - (uint) o * statics;
  int reach = o * N;
  __constant float *so = s + o + N * o * (o - 1);
  float acc = 0.0f;
  for (int j = -reach; j <= reach; j++) {
    float w = so[j + reach];
    if (w != 0.0f)
      acc += w * afet_in (b, rs, v, g + j, c);
  }
  return acc;
}

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_kaldi_delta)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_kaldi_delta (__global const float *block, uint row_stride,
    long first_row, long total, long out_first, uint n, uint statics,
    int order, int N, __constant float *s, __global float *out,
    uint out_offset)
{
  uint gid = get_global_id (0);
  uint dims = statics * (uint) (order + 1);
  uint t = gid / dims;
  if (t >= n)
    return;
  uint r = gid - t * dims;
  out[out_offset + (size_t) t * dims + r] = afet_kaldi_delta_value (block,
      row_stride, afet_block_view (first_row, total), out_first + t, r,
      statics, N, s);
}
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_kaldi_delta_lanes)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_kaldi_delta_lanes (__global const float *lanes, uint row_stride,
    uint ring, __global const long *desc, uint n, uint statics, int order,
    int N, __constant float *s, __global float *out)
{
  uint gid = get_global_id (0);
  uint dims = statics * (uint) (order + 1);
  uint t = gid / dims;
  if (t >= n)
    return;
  uint r = gid - t * dims;
  long g;
  afet_view v = afet_lane_view (desc, t, ring, &g);
  out[(size_t) t * dims + r] = afet_kaldi_delta_value (lanes, row_stride, v,
      g, r, statics, N, s);
}
#endif

/* Splicing (Kaldi's splice-feats, nnet3's Append of Offsets): block k of
 * output frame g is input frame g + off[k] (clamped: the edge frame
 * repeats), dims columns each, blocks in the list's order. */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_splice)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_splice (__global const float *block, uint row_stride, long first_row,
    long total, long out_first, uint n, uint dims, uint count,
    __constant int *off, __global float *out, uint out_offset)
{
  uint gid = get_global_id (0);
  uint per_frame = dims * count;
  uint t = gid / per_frame;
  if (t >= n)
    return;
  uint r = gid - t * per_frame;
  uint k = r / dims;
  out[out_offset + (size_t) t * per_frame + r] = afet_in (block, row_stride,
      afet_block_view (first_row, total), out_first + t + off[k],
      r - k * dims);
}
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_splice_lanes)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_splice_lanes (__global const float *lanes, uint row_stride, uint ring,
    __global const long *desc, uint n, uint dims, uint count,
    __constant int *off, __global float *out)
{
  uint gid = get_global_id (0);
  uint per_frame = dims * count;
  uint t = gid / per_frame;
  if (t >= n)
    return;
  uint r = gid - t * per_frame;
  uint k = r / dims;
  long g;
  afet_view v = afet_lane_view (desc, t, ring, &g);
  out[(size_t) t * per_frame + r] = afet_in (lanes, row_stride, v,
      g + off[k], r - k * dims);
}
#endif

/* LC-RC TRAPS: for band b and half h (0 left: t-H+1..t, 1 right:
 * t..t+H-1, H = (length + 1) / 2), coefficient k is
 * sum_i w[(h K + k) H + i] x_b(start_h + i), w = half-Hamming x DCT-II.
 * Output row: per band, K left then K right coefficients. r is the value's
 * index in the row. */
static float
afet_traps_value (__global const float *b, uint rs, afet_view v, long g,
    uint r, int hlen, int K, __constant float *w)
{
  uint band = r / (2u * (uint) K);
  uint hk = r - band * 2u * (uint) K;       /* h K + k */
  uint h = hk / (uint) K;
  long start = g - (hlen - 1) + (long) h * (hlen - 1);
  __constant float *wr = w + (size_t) hk * hlen;
  float acc = 0.0f;
  for (int i = 0; i < hlen; i++)
    acc += wr[i] * afet_in (b, rs, v, start + i, band);
  return acc;
}

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_traps)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_traps (__global const float *block, uint row_stride, long first_row,
    long total, long out_first, uint n, uint bands, int hlen, int K,
    __constant float *w, __global float *out, uint out_offset)
{
  uint gid = get_global_id (0);
  uint per_frame = bands * 2u * (uint) K;
  uint t = gid / per_frame;
  if (t >= n)
    return;
  uint r = gid - t * per_frame;
  out[out_offset + (size_t) t * per_frame + r] = afet_traps_value (block,
      row_stride, afet_block_view (first_row, total), out_first + t, r, hlen,
      K, w);
}
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_traps_lanes)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_traps_lanes (__global const float *lanes, uint row_stride, uint ring,
    __global const long *desc, uint n, uint bands, int hlen, int K,
    __constant float *w, __global float *out)
{
  uint gid = get_global_id (0);
  uint per_frame = bands * 2u * (uint) K;
  uint t = gid / per_frame;
  if (t >= n)
    return;
  uint r = gid - t * per_frame;
  long g;
  afet_view v = afet_lane_view (desc, t, ring, &g);
  out[(size_t) t * per_frame + r] = afet_traps_value (lanes, row_stride, v, g,
      r, hlen, K, w);
}
#endif

/* New rows of many lanes (from the host: from the launch's desc buffer,
 * read as floats; from the device: an afet element's output before, one
 * buffer a launch): row i, from float desc[at + 2 i] of src, goes
 * to row desc[at + 2 i + 1] of lanes. */
#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_lane_gather)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_lane_gather (__global const float *src, __global const long *desc,
    uint at, uint m, uint row_stride, __global float *lanes)
{
  uint gid = get_global_id (0);
  uint i = gid / row_stride;
  uint c = gid - i * row_stride;
  if (i >= m)
    return;
  lanes[(size_t) desc[at + 2 * i + 1] * row_stride + c] =
      src[(size_t) desc[at + 2 * i] + c];
}
#endif
