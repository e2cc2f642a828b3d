/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Stages whose output frame t reads input frames around t. The input is a
 * block of rows (row_stride floats) holding the stream's frames
 * first_row .. first_row + rows - 1; an index outside the stream is clamped
 * to it (the first or last frame repeats). total is the stream's frame
 * count, or -1 while the end is not known (then only the start clamps; the
 * caller guarantees the look-ahead is in the block). One work-item per
 * output value, 1-D, AFET_LSZ a group.
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

static long
afet_clamp_frame (long g, long total)
{
  if (g < 0)
    g = 0;
  if (total >= 0 && g > total - 1)
    g = total - 1;
  return g;
}

static float
afet_in (__global const float *block, uint row_stride, long first_row,
    long g, long total, uint col)
{
  long r = afet_clamp_frame (g, total) - first_row;
  return block[(size_t) r * row_stride + col];
}

/* regression deltas: d_t = sum_k k (x_{t+k} - x_{t-k}) / (2 sum k^2) */
static float
afet_d1 (__global const float *b, uint rs, long f, long t, long total,
    uint c, int nd, float dnorm)
{
  float acc = 0.0f;
  for (int k = 1; k <= nd; k++)
    acc += k * (afet_in (b, rs, f, t + k, total, c) -
        afet_in (b, rs, f, t - k, total, c));
  return acc / dnorm;
}

/* accelerations: the same formula over the delta sequence, whose indices
 * are clamped to the stream too (HTK) */
static float
afet_d2 (__global const float *b, uint rs, long f, long t, long total,
    uint c, int nd, float dnorm, int na, float anorm)
{
  float acc = 0.0f;
  for (int k = 1; k <= na; k++)
    acc += k * (afet_d1 (b, rs, f, afet_clamp_frame (t + k, total), total, c,
            nd, dnorm) - afet_d1 (b, rs, f, afet_clamp_frame (t - k, total),
            total, c, nd, dnorm));
  return acc / anorm;
}

static float
afet_d3 (__global const float *b, uint rs, long f, long t, long total,
    uint c, int nd, float dnorm, int na, float anorm)
{
  float acc = 0.0f;
  for (int k = 1; k <= na; k++)
    acc += k * (afet_d2 (b, rs, f, afet_clamp_frame (t + k, total), total, c,
            nd, dnorm, na, anorm) - afet_d2 (b, rs, f,
            afet_clamp_frame (t - k, total), total, c, nd, dnorm, na, anorm));
  return acc / anorm;
}

/* out row t: statics, then order blocks of dynamics, statics wide each */
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
  long g = out_first + t;
  uint dims = statics * (uint) (order + 1);
  __global float *o = out + out_offset + (size_t) t * dims;
  o[c] = afet_in (block, row_stride, first_row, g, total, c);
  o[statics + c] = afet_d1 (block, row_stride, first_row, g, total, c, nd,
      dnorm);
  if (order >= 2)
    o[2 * statics + c] = afet_d2 (block, row_stride, first_row, g, total, c,
        nd, dnorm, na, anorm);
  if (order >= 3)
    o[3 * statics + c] = afet_d3 (block, row_stride, first_row, g, total, c,
        nd, dnorm, na, anorm);
}

/* LC-RC TRAPS: for band b and half h (0 left: t-H+1..t, 1 right:
 * t..t+H-1, H = (length + 1) / 2), coefficient k is
 * sum_i w[(h K + k) H + i] x_b(start_h + i), w = half-Hamming x DCT-II.
 * Output row: per band, K left then K right coefficients. */
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
  uint b = r / (2u * (uint) K);
  uint hk = r - b * 2u * (uint) K;         /* h K + k */
  uint h = hk / (uint) K;
  long start = out_first + t - (hlen - 1) + (long) h * (hlen - 1);
  __constant float *wr = w + (size_t) hk * hlen;
  float acc = 0.0f;
  for (int i = 0; i < hlen; i++)
    acc += wr[i] * afet_in (block, row_stride, first_row, start + i, total,
        b);
  out[out_offset + (size_t) t * per_frame + r] = acc;
}
