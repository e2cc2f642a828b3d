/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Framing stage. One work-group of AFET_LSZ work-items per frame.
 *
 * afet_frame: frame t is samples[t*S .. t*S + W); each frame gets HTK's
 * in-frame pre-emphasis (y[0] = (1 - k) x[0], y[i] = x[i] - k x[i-1]; no
 * sample of the previous frame is used), then the window. The row is written
 * at out[out_offset + t*out_stride], zero-filled after W (the FFT's zero
 * padding).
 * If energy != 0 the raw log energy ln(sum x^2) of the frame, taken before
 * pre-emphasis, is written to energy_buf[energy_offset + t*energy_stride]
 * (-1e10 for an all-zero frame, as HTK does).
 *
 * afet_pad_frames: frames already framed upstream (afetframer) are copied
 * from rows of in_stride floats at in[in_offset] into zero-padded FFT rows;
 * the frame's raw log energy, when it carries one at column W, goes to
 * energy_buf.
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

#define AFET_ZERO_ENERGY (-1.0e10f)

/* the host's samples: 16-bit integers (AFET_SAMPLES_S16), or floats in
 * 16-bit scale; the conversion of a short to float is exact */
#ifdef AFET_SAMPLES_S16
typedef short afet_sample;
#else
typedef float afet_sample;
#endif

static void
afet_store_energy (__local float *part, float acc, __global float *energy_buf,
    uint energy_offset, uint energy_stride, uint t, int energy)
{
  uint lid = get_local_id (0);
  part[lid] = acc;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint s = AFET_LSZ / 2; s > 0; s >>= 1) {
    if (lid < s)
      part[lid] += part[lid + s];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0 && energy) {
    float e = part[0];
    energy_buf[energy_offset + t * energy_stride] =
        e > 0.0f ? log (e) : AFET_ZERO_ENERGY;
  }
}

__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_frame (__global const afet_sample *samples, uint W, uint S, float preemph,
    __constant float *window, __global float *out, uint out_offset,
    uint out_stride, uint n_frames, __global float *energy_buf,
    uint energy_offset, uint energy_stride, int energy)
{
  __local float part[AFET_LSZ];
  uint t = get_group_id (0);
  uint lid = get_local_id (0);
  /* launched with exactly n_frames groups: no early return before the
   * barrier of the energy reduction */

  __global const afet_sample *x = samples + (size_t) t * S;
  __global float *y = out + out_offset + (size_t) t * out_stride;
  float acc = 0.0f;
  for (uint i = lid; i < out_stride; i += AFET_LSZ) {
    float v = 0.0f;
    if (i < W) {
      float s = (float) x[i];
      acc += s * s;
      float p = i == 0 ? s - preemph * s : s - preemph * (float) x[i - 1];
      v = p * window[i];
    }
    y[i] = v;
  }
  afet_store_energy (part, acc, energy_buf, energy_offset, energy_stride, t,
      energy);
}

__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_pad_frames (__global const float *in, uint in_offset, uint in_stride,
    uint W,
    __global float *out, uint out_stride, uint n_frames,
    __global float *energy_buf, uint energy_offset, uint energy_stride,
    int energy)
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
