/* The mel filter bank on the R2C spectra: log filter-bank values
 * (afet_melbank), or with their DCT in the same kernel (afet_melbank_dct).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The spectra are rows of spec_stride floats holding interleaved complex
 * bins. The bank is sparse: filter c covers bins [first[c], first[c] +
 * count[c]) with weights[offset[c] + i]; each work-item loops over its
 * filter's span only. Magnitude |X| or power |X|^2, then ln(max(v, floor))
 * (HTK: floor 1.0).
 *
 * afet_melbank: one work-item per (frame, filter), 1-D, log filter-bank
 * values written to out[out_offset + t*out_stride + c].
 * afet_melbank_dct: one work-group per frame; the filter bank goes to local
 * memory, then each output column j is the dot product of row j of dct
 * (ncols x M, lifter folded in) with it: out[out_offset + t*out_stride + j].
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif
#ifndef AFET_MAX_FILTERS
#error "AFET_MAX_FILTERS comes from the engine (afet::kMaxFilters)"
#endif

#include "filterbank.cl"

static float
afet_filter (__global const float *row, __global const int *first,
    __global const int *count, __global const int *offset,
    __global const float *weights, uint c, int use_power, float floor_v,
    float log_mul)
{
  return AFET_LOG_CHANNEL (afet_filter_sum (row, first, count, offset,
          weights, c, use_power), floor_v, log_mul);
}

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_melbank)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_melbank (__global const float *spec, uint spec_stride,
    __global const int *first, __global const int *count,
    __global const int *offset, __global const float *weights, uint M,
    int use_power, float floor_v, float log_mul, __global float *out,
    uint out_offset, uint out_stride, uint n_frames)
{
  uint gid = get_global_id (0);
  uint t = gid / M;
  uint c = gid - t * M;
  if (t >= n_frames)
    return;
  out[out_offset + (size_t) t * out_stride + c] = afet_filter (spec +
      (size_t) t * spec_stride, first, count, offset, weights, c, use_power,
      floor_v, log_mul);
}
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_melbank_dct)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_melbank_dct (__global const float *spec, uint spec_stride,
    __global const int *first, __global const int *count,
    __global const int *offset, __global const float *weights, uint M,
    int use_power, float floor_v, float log_mul, __global const float *dct,
    uint ncols,
    __global float *out, uint out_offset, uint out_stride, uint n_frames)
{
  __local float fb[AFET_MAX_FILTERS];
  uint t = get_group_id (0);
  uint lid = get_local_id (0);
  /* the group count is the frame count, so every work-item of a group
   * reaches the barrier (no early return before it: PoCL needs that) */
  __global const float *row = spec + (size_t) t * spec_stride;
  for (uint c = lid; c < M; c += AFET_LSZ)
    fb[c] = afet_filter (row, first, count, offset, weights, c, use_power,
        floor_v, log_mul);
  barrier (CLK_LOCAL_MEM_FENCE);
  if (t >= n_frames)
    return;
  for (uint j = lid; j < ncols; j += AFET_LSZ)
    out[out_offset + (size_t) t * out_stride + j] = afet_dct_value (dct +
        (size_t) j * M, 1, M, fb);
}
#endif
