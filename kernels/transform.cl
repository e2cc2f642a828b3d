/* afet_transform: a matrix times every frame, plus an offset column.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Kaldi's transform-feats: every frame x (dims values) through one matrix
 * of out_dims rows and cols = dims (y = M x) or dims + 1 columns (y =
 * M[:, :dims] x + M[:, dims], the offset added after the product, as
 * Kaldi adds it).
 *
 * afet_transform: one work-item per output value of frames 0 .. n - 1;
 *   frame t at in[in_offset + t * in_stride], output row t at
 *   out[out_offset + t * out_dims]; the matrix at mat[mat_offset], row by
 *   row. The work-items of a frame read the same row (in cache) and the
 *   matrix stays in cache across frames: for small matrices (fewer than
 *   32 input columns) one launch a batch does it.
 *
 * afet_transform_bias: output rows 0 .. n - 1 set to the matrix's last
 *   column (the offset), before a CLBlast SGEMM adds the product to them:
 *   the path for wider inputs (an LDA over spliced frames), where a tiled
 *   GEMM is many times faster than one work-item per value.
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_transform)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_transform (__global const float *in, uint in_stride, uint in_offset,
    uint n, uint dims, __global const float *mat, uint mat_offset, uint cols,
    uint out_dims, __global float *out, uint out_offset)
{
  const size_t g = get_global_id (0);
  if (g >= (size_t) n * out_dims)
    return;
  const uint t = (uint) (g / out_dims), r = (uint) (g % out_dims);
  __global const float *x = in + in_offset + (size_t) t * in_stride;
  __global const float *m = mat + mat_offset + (size_t) r * cols;
  float s = 0.0f;
  for (uint d = 0; d < dims; d++)
    s += m[d] * x[d];
  if (cols > dims)
    s += m[dims];
  out[out_offset + g] = s;
}
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_transform_bias)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_transform_bias (uint n, uint dims, __global const float *mat,
    uint mat_offset, uint cols, uint out_dims, __global float *out,
    uint out_offset)
{
  const size_t g = get_global_id (0);
  if (g >= (size_t) n * out_dims)
    return;
  const uint r = (uint) (g % out_dims);
  out[out_offset + g] = mat[mat_offset + (size_t) r * cols + dims];
}
#endif
