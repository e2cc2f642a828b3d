/* Kaldi's spectrogram (compute-spectrogram-feats) from the R2C spectra.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The spectra are rows of spec_stride floats holding the interleaved
 * complex bins 0 .. nyq, nyq = N/2. One work-group of AFET_LSZ work-items per
 * frame.
 *
 * afet_spectrogram: out[out_offset + t*out_stride + k] = ln(max(|X_k|^2,
 * FLT_EPSILON)) for k = 1 .. nyq. Column 0 is left as it is: the framing
 * kernel wrote the frame's log energy there (raw, or of the windowed frame).
 */

#ifndef AFET_LSZ
#define AFET_LSZ 64
#endif

#if !defined (AFET_ONLY) || defined (AFET_ONLY_afet_spectrogram)
__kernel __attribute__ ((reqd_work_group_size (AFET_LSZ, 1, 1)))
void
afet_spectrogram (__global const float *spec, uint spec_stride, uint nyq,
    __global float *out, uint out_offset, uint out_stride, uint n_frames)
{
  uint t = get_group_id (0);
  uint lid = get_local_id (0);
  __global const float *row = spec + (size_t) t * spec_stride;
  __global float *y = out + out_offset + (size_t) t * out_stride;
  /* column 0 holds the framing kernel's log energy */
  for (uint k = lid + 1; k <= nyq; k += AFET_LSZ) {
    float re = row[2 * k], im = row[2 * k + 1];
    y[k] = log (fmax (re * re + im * im, FLT_EPSILON));
  }
}
#endif
