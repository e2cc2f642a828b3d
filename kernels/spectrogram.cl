/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Kaldi's spectrogram (compute-spectrogram-feats) from the R2C spectra
 * (rows of spec_stride floats holding the interleaved complex bins
 * 0 .. nyq, nyq = N/2). One work-group of AFET_LSZ work-items per frame.
 *
 * afet_spectrogram: out[out_offset + t*out_stride + k] = ln(max(|X_k|^2,
 * FLT_EPSILON)) for k = 1 .. nyq. Column 0 is the frame's log energy:
 * left as it is (the framing kernel wrote the raw log energy there) unless
 * own_energy, then ln(max(e, FLT_EPSILON)), at least log_energy_floor, with
 * e = sum of the windowed frame squared = (P_0 + 2 sum_{0<k<nyq} P_k +
 * P_half) / N (Parseval; inv_n = 1/N), Kaldi's energy with raw-energy=false.
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_spectrogram (__global const float *spec, uint spec_stride, uint nyq,
    float inv_n, int own_energy, float log_energy_floor, __global float *out,
    uint out_offset, uint out_stride, uint n_frames)
{
  __local float energy[AFET_LSZ];
  uint t = get_group_id (0);
  uint lid = get_local_id (0);
  /* launched with exactly n_frames groups: every work-item reaches the
   * barriers below */
  __global const float *row = spec + (size_t) t * spec_stride;
  __global float *y = out + out_offset + (size_t) t * out_stride;
  float e = 0.0f;
  for (uint k = lid; k <= nyq; k += AFET_LSZ) {
    float re = row[2 * k], im = row[2 * k + 1];
    float p = re * re + im * im;
    e += (k == 0 || k == nyq) ? p : 2.0f * p;
    if (k > 0)
      y[k] = log (fmax (p, FLT_EPSILON));
  }
  if (!own_energy)
    return;
  /* the frame's energy: a tree over the work-items' partial sums */
  energy[lid] = e;
  for (uint width = AFET_LSZ / 2; width > 0; width /= 2) {
    barrier (CLK_LOCAL_MEM_FENCE);
    if (lid < width)
      energy[lid] += energy[lid + width];
  }
  if (lid == 0)
    y[0] = fmax (log (fmax (energy[0] * inv_n, FLT_EPSILON)),
        log_energy_floor);
}
