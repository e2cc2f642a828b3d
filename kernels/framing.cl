/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Framing stage. One work-group of AFET_LSZ work-items per frame.
 *
 * afet_frame: frame t is samples[t*S .. t*S + W), each multiplied by scale
 * (1, or 1/32768 for samples in [-1, 1]); with dither != 0 a Gaussian
 * value of that standard deviation is added to each, drawn from a counter-
 * based generator keyed on (seed, the sample's position in the run), so
 * that it does not depend on how the run was cut into batches; with
 * remove_dc the frame's mean is subtracted (Kaldi's remove-dc-offset, HTK's
 * ZMEANSOURCE). Then the raw energy sum x^2 is taken, HTK's in-frame
 * pre-emphasis applied (y[0] = (1 - k) x[0], y[i] = x[i] - k x[i-1]; no
 * sample of the previous frame is used; Kaldi's is the same), and the
 * window. The row is written at out[out_offset + t*out_stride], zero-filled
 * after W (the FFT's zero padding).
 * If energy != 0 the log energy (of the samples before pre-emphasis, or
 * with energy_windowed of the frame as written) goes to energy_buf[energy_offset +
 * t*energy_stride]: energy_mode 0 (HTK) ln(e), -1e10 for an all-zero frame;
 * 1 (Kaldi) ln(max(e, FLT_EPSILON)), 2 (lhotse) ln(e + 1e-15), then at
 * least log_energy_floor.
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

/* The sum of every work-item's v, returned to each. */
static float
afet_group_sum (__local float *part, float v)
{
  uint lid = get_local_id (0);
  part[lid] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint s = AFET_LSZ / 2; s > 0; s >>= 1) {
    if (lid < s)
      part[lid] += part[lid + s];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  float r = part[0];
  barrier (CLK_LOCAL_MEM_FENCE);
  return r;
}

/* SplitMix64's finaliser: a bijective mix of 64 bits. */
static ulong
afet_mix (ulong z)
{
  z += 0x9E3779B97F4A7C15UL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
  return z ^ (z >> 31);
}

/* A standard normal value for (seed, position): Box-Muller on two 24-bit
 * uniforms of one hash. */
static float
afet_gauss (ulong seed, long pos)
{
  ulong h = afet_mix (seed ^ afet_mix ((ulong) pos));
  float u1 = ((float) (uint) (h >> 40) + 1.0f) * (1.0f / 16777216.0f);
  float u2 = (float) (uint) ((h >> 8) & 0xFFFFFFUL) * (1.0f / 16777216.0f);
  return sqrt (-2.0f * log (u1)) * cos (6.283185307179586f * u2);
}

/* Sample i of a frame whose sample 0 is at run position pos0. */
static float
afet_load (__global const afet_sample *x, uint i, float scale, float dither,
    ulong seed, long pos0)
{
  float s = (float) x[i] * scale;
  if (dither != 0.0f)
    s += dither * afet_gauss (seed, pos0 + (long) i);
  return s;
}

__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_frame (__global const afet_sample *samples, uint W, uint S, float preemph,
    __constant float *window, __global float *out, uint out_offset,
    uint out_stride, uint n_frames, __global float *energy_buf,
    uint energy_offset, uint energy_stride, int energy, float scale,
    int remove_dc, float dither, ulong seed, long first_pos, int energy_mode,
    float log_energy_floor, int energy_windowed)
{
  __local float part[AFET_LSZ];
  uint t = get_group_id (0);
  uint lid = get_local_id (0);
  /* launched with exactly n_frames groups: no early return before the
   * barriers of the reductions */

  __global const afet_sample *x = samples + (size_t) t * S;
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
    float v = 0.0f;
    if (i < W) {
      float s = afet_load (x, i, scale, dither, seed, pos0) - mean;
      float prev = i == 0 ? s :
          afet_load (x, i - 1, scale, dither, seed, pos0) - mean;
      v = (s - preemph * prev) * window[i];
      acc += energy_windowed ? v * v : s * s;
    }
    y[i] = v;
  }
  float e = afet_group_sum (part, acc);
  if (lid == 0 && energy) {
    float le;
    if (energy_mode == 0)
      le = e > 0.0f ? log (e) : AFET_ZERO_ENERGY;
    else
      le = fmax (energy_mode == 1 ? log (fmax (e, FLT_EPSILON)) :
          log (e + 1e-15f), log_energy_floor);
    energy_buf[energy_offset + t * energy_stride] = le;
  }
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
