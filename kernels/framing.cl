/* The framing stage for GPUs: one work-group of AFET_LSZ work-items per frame
 * (vframes.cl does the same for CPUs, frames in a vector).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * afet_frame: frame t is samples[origin + t*S .. origin + t*S + W) (origin:
 * where the batch starts in the buffer, 0 but for samples already on the
 * device, read where they lie), each loaded as
 * sample.cl's afet_load does (scale, dither); with remove_dc the frame's
 * mean is subtracted (Kaldi's remove-dc-offset, HTK's ZMEANSOURCE). Then
 * the raw energy sum x^2 is taken, HTK's in-frame pre-emphasis applied
 * (y[0] = (1 - k) x[0], y[i] = x[i] - k x[i-1]; no sample of the previous
 * frame is used; Kaldi's is the same), and the window. The row is written
 * at out[out_offset + t*out_stride], zero-filled after W (the FFT's zero
 * padding).
 * If energy != 0 the log energy (of the samples before pre-emphasis, or
 * with energy_windowed of the frame as written; afet_log_energy) goes to
 * energy_buf[energy_offset + t*energy_stride].
 *
 * afet_pad_frames: frames already framed upstream (afetframer) are copied
 * from rows of in_stride floats at in[in_offset] into zero-padded FFT rows;
 * the frame's raw log energy, when it carries one at column W, goes to
 * energy_buf.
 *
 * The arguments of every framing kernel (here and in vframes.cl) start
 * with the same group, set by FramingKernel (engine/spectral/framing.cc):
 * samples .. n_frames for audio, in .. n_frames for frames; the kernel's
 * own destination follows.
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

#include "sample.cl"
#include "group.cl"

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_frame)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_frame (__global const afet_sample *samples, ulong origin, uint W,
    uint S, float preemph, __constant float *window, float scale,
    int remove_dc,
    float dither, ulong seed, long first_pos, int energy_mode,
    float log_energy_floor, int energy_windowed, int energy,
    __global float *energy_buf, uint energy_offset, uint energy_stride,
    uint n_frames,
    __global float *out, uint out_offset, uint out_stride)
{
  __local float part[AFET_LSZ];
  uint t = get_group_id (0);
  uint lid = get_local_id (0);
  /* launched with exactly n_frames groups: no early return before the
   * barriers of the reductions */

  __global const afet_sample *x = samples + origin + (size_t) t * S;
  __global float *y = out + out_offset + (size_t) t * out_stride;
  const long pos0 = first_pos + (long) t * S;
  float mean = 0.0f;
  if (remove_dc) {
    float sum = 0.0f;
    for (uint i = lid; i < W; i += AFET_LSZ)
      sum += afet_load (x, i, scale, dither, seed, pos0);
    mean = afet_group_sum (part, sum) / (float) W;
  }
  float acc = 0.0f;
  for (uint i = lid; i < out_stride; i += AFET_LSZ) {
    y[i] = i < W ? afet_frame_point (x, i, window[i], scale, dither, seed,
        pos0, mean, preemph, energy_windowed, &acc) : 0.0f;
  }
  if (energy) {
    /* energy is the same for the whole group: every work-item reaches the
     * sum's barriers or none does */
    float e = afet_group_sum (part, acc);
    if (lid == 0)
      energy_buf[energy_offset + t * energy_stride] =
          afet_log_energy (e, energy_mode, log_energy_floor);
  }
}
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_pad_frames)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_pad_frames (__global const float *in, uint in_offset, uint in_stride,
    uint W, int energy, __global float *energy_buf, uint energy_offset,
    uint energy_stride, uint n_frames,
    __global float *out, uint out_stride)
{
  uint t = get_group_id (0);
  uint lid = get_local_id (0);
  if (t >= n_frames)
    return;
  __global const float *x = in + in_offset + (size_t) t * in_stride;
  __global float *y = out + (size_t) t * out_stride;
  for (uint i = lid; i < out_stride; i += AFET_LSZ)
    y[i] = i < W ? x[i] : 0.0f;
  if (energy && lid == 0)
    energy_buf[energy_offset + t * energy_stride] = x[W];
}
#endif
