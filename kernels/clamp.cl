/* Whisper's dynamic-range clamp of a log-mel stream: every value raised to at
 * least (the largest value) - range, then (x + offset) * scale.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The largest value is the utterance's (all its rows) or, running, that of
 * rows 0 .. t for row t.
 *
 * Rows of a context block: row r (index in the stream) at rows[(r -
 * first_row) * row_stride], dims values each.
 *
 * afet_row_max: one work-group per row, its largest value into
 *   rowmax[t] (rows first .. first + n - 1).
 * afet_running_max: one work-item; rowmax[t] becomes the largest value of
 *   *state and rowmax[0 .. t], and *state the last of them (reset first:
 *   *state starts at -FLT_MAX).
 * afet_clamp: one work-item per value of rows first .. first + n - 1; the
 *   bound is rowmax[t] (per_row) or *state.
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_row_max)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_row_max (__global const float *rows, uint row_stride, long first_row,
    long first, uint dims, __global float *rowmax)
{
  __local float part[AFET_LSZ];
  uint t = get_group_id (0);
  uint lid = get_local_id (0);
  __global const float *x = rows + (size_t) (first + t - first_row) *
      row_stride;
  float m = -FLT_MAX;
  for (uint i = lid; i < dims; i += AFET_LSZ)
    m = fmax (m, x[i]);
  part[lid] = m;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint s = AFET_LSZ / 2; s > 0; s >>= 1) {
    if (lid < s)
      part[lid] = fmax (part[lid], part[lid + s]);
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    rowmax[t] = part[0];
}
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_running_max)
__kernel void
afet_running_max (__global float *rowmax, uint n, __global float *state,
    int reset)
{
  if (get_global_id (0) != 0)
    return;
  float m = reset ? -FLT_MAX : state[0];
  for (uint t = 0; t < n; t++) {
    m = fmax (m, rowmax[t]);
    rowmax[t] = m;
  }
  state[0] = m;
}
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_clamp)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_clamp (__global const float *rows, uint row_stride, long first_row,
    long first, uint dims, uint n, __global const float *rowmax,
    __global const float *state, int per_row, float range, float offset,
    float scale, __global float *out, uint out_offset)
{
  uint gid = get_global_id (0);
  uint t = gid / dims;
  uint c = gid - t * dims;
  if (t >= n)
    return;
  float bound = (per_row ? rowmax[t] : state[0]) - range;
  float x = rows[(size_t) (first + t - first_row) * row_stride + c];
  out[out_offset + (size_t) t * dims + c] = (fmax (x, bound) + offset) *
      scale;
}
#endif
