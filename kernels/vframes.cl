/* The spectral front for CPUs in one kernel: a work-item takes AFET_VW frames
 * side by side in a vector from their samples to their spectra or features.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A frame in each element of a vector, as many frames as the vector width
 * (AFET_VW). One work-item computes
 * AFET_VW consecutive frames t0 .. t0 + AFET_VW - 1 (t0 = its global id *
 * AFET_VW), frame t0 + f in element f of floatAFET_VW values, from its
 * samples to its spectrum (or to its features) without leaving the
 * work-item: every loop has the same bounds for every element, so the
 * vector units of the CPU do AFET_VW frames at once, and a frame's data
 * stays in the cache. Elements past the batch repeat its last frame and
 * are not written. GPUs run framing.cl, VkFFT and melbank.cl instead, a
 * work-group per frame (engine/spectral/spectral.h says which runs where).
 *
 * The steps and their formulas are the GPU path's: a sample is loaded by
 * sample.cl's afet_load (scale, dither), then DC removal, energy, in-frame
 * pre-emphasis and window as in framing.cl's afet_frame, the log energy
 * by afet_log_energy; a channel of the filter bank is filterbank.cl's
 * AFET_BIN_VALUE and AFET_LOG_CHANNEL, the DCT the dot product of a row of
 * the same matrix with the channels, in the same order as melbank.cl's
 * afet_melbank_dct.
 *
 * The FFT: AFET_FFT = N, a power of two >= 8: the N-point complex FFT of
 * the real frame (imaginary parts 0), radix-4 decimation in frequency with
 * a last radix-2 step when log2(N) is odd, results in bit-reversed order;
 * bin k = 0 .. N/2 is read from there. (Half the work would do, through
 * the N/2-point FFT of the even and odd samples as one complex sequence,
 * but separating the two afterwards cancels large aliased terms and loses
 * low bins of pre-emphasised speech to rounding: about twice the error of
 * VkFFT's there. The FFT is not the larger part of the kernel's time.)
 * Tables made on the host in double precision (engine/spectral/vframes.cc):
 * tw[2k], tw[2k+1] = cos, sin of -2 pi k / N, k < N; rev[k] = k's bits
 * reversed (log2(N) bits).
 *
 * Kernels (their arguments in frontargs.cl: framing.cl's groups, the FFT
 * tables, then the destination):
 *   afet_vframe_spectra, afet_vpad_spectra: audio, or given frames, to
 *     spectrum rows of spec_stride floats (N/2 + 1 interleaved complex
 *     bins, VkFFT's layout), which the kinds' own kernels read;
 *   afet_vframe_mfcc, afet_vpad_mfcc: audio, or given frames, to the log
 *     mel filter bank (ncols = 0: M columns) or its DCT (ncols columns) at
 *     out[out_offset + t * out_stride].
 */

#ifndef AFET_VW
#error "AFET_VW (frames a work-item) comes from the engine"
#endif
#ifndef AFET_FFT
#error "AFET_FFT (the FFT size) comes from the engine"
#endif
#ifndef AFET_MAX_FILTERS
#error "AFET_MAX_FILTERS comes from the engine (afet::kMaxFilters)"
#endif

#include "sample.cl"
#include "filterbank.cl"
#include "frontargs.cl"

#define AFET_CAT_(a, b) a##b
#define AFET_CAT(a, b) AFET_CAT_ (a, b)
typedef AFET_CAT (float, AFET_VW) afet_v;
#define afet_vload AFET_CAT (vload, AFET_VW)
#define afet_vstore AFET_CAT (vstore, AFET_VW)
#define AFET_N AFET_FFT
#define AFET_BINS (AFET_FFT / 2 + 1)

/* Frame of vector element f: t0 + f, or the batch's last. */
static uint
afet_element_frame (uint t0, uint f, uint n_frames)
{
  uint t = t0 + f;
  return t < n_frames ? t : n_frames - 1;
}

/* AFET_ELEMENTS (e): e (0), e (1), .. e (AFET_VW - 1), for a vector
 * literal */
#define AFET_E2(e, f) e (f), e (f + 1)
#define AFET_E4(e, f) AFET_E2 (e, f), AFET_E2 (e, f + 2)
#define AFET_E8(e, f) AFET_E4 (e, f), AFET_E4 (e, f + 4)
#define AFET_E16(e, f) AFET_E8 (e, f), AFET_E8 (e, f + 8)
#define AFET_ELEMENTS(e) AFET_CAT (AFET_E, AFET_VW) (e, 0)

static afet_v afet_v_dither (afet_v v, const int *off, int i, float dither,
    ulong seed, long first_pos);

/* Sample i of every element's frame, element f's starting at
 * samples[off[f]]: afet_load's value. The loads are a vector literal of one
 * base and signed 32-bit offsets (vector gathers, nothing through memory);
 * the dither (rare, and long) is a call of its own. */
#define AFET_ELEMENT_SAMPLE(f) ((float) samples[off[f] + i])
static inline __attribute__ ((always_inline)) afet_v
afet_v_sample (__global const afet_sample *samples, const int *off, int i,
    float scale, float dither, ulong seed, long first_pos)
{
  afet_v v = (afet_v) (AFET_ELEMENTS (AFET_ELEMENT_SAMPLE)) * scale;
  if (dither != 0.0f)
    v = afet_v_dither (v, off, i, dither, seed, first_pos);
  return v;
}

static afet_v
afet_v_dither (afet_v v, const int *off, int i, float dither, ulong seed,
    long first_pos)
{
  float a[AFET_VW];
  afet_vstore (v, 0, a);
  for (uint f = 0; f < AFET_VW; f++)
    a[f] += afet_dither (dither, seed, first_pos + off[f] + i);
  return afet_vload (0, a);
}

/* Element values v to out[offset + t * stride] of each element's frame t
 * in the batch. */
static void
afet_v_store (afet_v v, __global float *out, uint offset, uint stride,
    uint t0, uint n_frames)
{
  float a[AFET_VW];
  afet_vstore (v, 0, a);
  for (uint f = 0; f < AFET_VW; f++)
    if (t0 + f < n_frames)
      out[offset + (size_t) (t0 + f) * stride] = a[f];
}

/* The frames of audio (afet_frame's steps) in re (im = 0); their log
 * energies to energy_buf when energy. */
static void
afet_v_frame_audio (afet_v *re, afet_v *im,
    __global const afet_sample *samples, uint W, uint S, float preemph,
    __global const float *window, float scale, int remove_dc, float dither,
    ulong seed, long first_pos, int energy_mode, float log_energy_floor,
    int energy_windowed, int energy, __global float *energy_buf,
    uint energy_offset, uint energy_stride, uint t0, uint n_frames)
{
  int off[AFET_VW];
  for (uint f = 0; f < AFET_VW; f++)
    off[f] = (int) (afet_element_frame (t0, f, n_frames) * S);
  afet_v mean = 0.0f;
  if (remove_dc) {
    afet_v sum = 0.0f;
    for (uint i = 0; i < W; i++)
      sum += afet_v_sample (samples, off, i, scale, dither, seed, first_pos);
    mean = sum / (float) W;
  }
  afet_v acc = 0.0f, prev = 0.0f;
  for (uint i = 0; i < AFET_N; i++) {
    afet_v v = 0.0f;
    if (i < W) {
      afet_v s = afet_v_sample (samples, off, i, scale, dither, seed,
          first_pos) - mean;
      if (i == 0)
        prev = s;
      v = (s - preemph * prev) * window[i];
      acc += energy_windowed ? v * v : s * s;
      prev = s;
    }
    re[i] = v;
    im[i] = 0.0f;
  }
  if (energy) {
    float e[AFET_VW];
    afet_vstore (acc, 0, e);
    for (uint f = 0; f < AFET_VW; f++)
      if (t0 + f < n_frames)
        energy_buf[energy_offset + (t0 + f) * energy_stride] =
            afet_log_energy (e[f], energy_mode, log_energy_floor);
  }
}

/* Given frames (afet_pad_frames' steps) in re (im = 0); the energy each
 * carries at column W to energy_buf when energy. */
static void
afet_v_frame_given (afet_v *re, afet_v *im, __global const float *in,
    uint in_offset, uint in_stride, uint W, int energy,
    __global float *energy_buf, uint energy_offset, uint energy_stride,
    uint t0, uint n_frames)
{
  __global const float *x[AFET_VW];
  for (uint f = 0; f < AFET_VW; f++)
    x[f] = in + in_offset +
        (size_t) afet_element_frame (t0, f, n_frames) * in_stride;
  for (uint i = 0; i < AFET_N; i++) {
    float a[AFET_VW];
    for (uint f = 0; f < AFET_VW; f++)
      a[f] = i < W ? x[f][i] : 0.0f;
    re[i] = afet_vload (0, a);
    im[i] = 0.0f;
  }
  if (energy)
    for (uint f = 0; f < AFET_VW; f++)
      if (t0 + f < n_frames)
        energy_buf[energy_offset + (t0 + f) * energy_stride] = x[f][W];
}

/* a * w for complex a (ar, ai) and scalar complex w (wr, wi) */
#define AFET_CMUL_RE(ar, ai, wr, wi) ((ar) * (wr) - (ai) * (wi))
#define AFET_CMUL_IM(ar, ai, wr, wi) ((ar) * (wi) + (ai) * (wr))

/* The N-point complex FFT of re + i im, in place, bit-reversed out. */
static void
afet_v_fft (afet_v *re, afet_v *im, __global const float *tw)
{
  uint step = 1, hs = AFET_N / 2;
  /* hs: half the span of the next radix-2 step; radix-4 takes two at a
   * time, span 4q */
  for (; hs >= 2; hs >>= 2, step <<= 2) {
    const uint q = hs / 2;
    for (uint g = 0; g < AFET_N; g += 4 * q) {
      for (uint j = 0; j < q; j++) {
        const uint i0 = g + j, i1 = i0 + q, i2 = i1 + q, i3 = i2 + q;
        afet_v b0r = re[i0] + re[i2], b0i = im[i0] + im[i2];
        afet_v b1r = re[i0] - re[i2], b1i = im[i0] - im[i2];
        afet_v b2r = re[i1] + re[i3], b2i = im[i1] + im[i3];
        afet_v b3r = re[i1] - re[i3], b3i = im[i1] - im[i3];
        /* (x0 - x2) - i (x1 - x3) and (x0 - x2) + i (x1 - x3) */
        afet_v y1r = b1r + b3i, y1i = b1i - b3r;
        afet_v y3r = b1r - b3i, y3i = b1i + b3r;
        afet_v y2r = b0r - b2r, y2i = b0i - b2i;
        const uint k = j * step;
        const float w1r = tw[2 * k], w1i = tw[2 * k + 1];
        const float w2r = tw[4 * k], w2i = tw[4 * k + 1];
        const float w3r = tw[6 * k], w3i = tw[6 * k + 1];
        re[i0] = b0r + b2r;
        im[i0] = b0i + b2i;
        re[i1] = AFET_CMUL_RE (y2r, y2i, w2r, w2i);
        im[i1] = AFET_CMUL_IM (y2r, y2i, w2r, w2i);
        re[i2] = AFET_CMUL_RE (y1r, y1i, w1r, w1i);
        im[i2] = AFET_CMUL_IM (y1r, y1i, w1r, w1i);
        re[i3] = AFET_CMUL_RE (y3r, y3i, w3r, w3i);
        im[i3] = AFET_CMUL_IM (y3r, y3i, w3r, w3i);
      }
    }
  }
  if (hs == 1) {
    for (uint g = 0; g < AFET_N; g += 2) {
      afet_v ar = re[g], ai = im[g];
      re[g] = ar + re[g + 1];
      im[g] = ai + im[g + 1];
      re[g + 1] = ar - re[g + 1];
      im[g + 1] = ai - im[g + 1];
    }
  }
}

/* The frames' spectra to rows of spec_stride floats. */
static void
afet_v_spectra (afet_v *re, afet_v *im, __global const float *tw,
    __global const int *rev, __global float *spec, uint spec_stride,
    uint t0, uint n_frames)
{
  afet_v_fft (re, im, tw);
  for (uint k = 0; k < AFET_BINS; k++) {
    afet_v_store (re[rev[k]], spec, 2 * k, spec_stride, t0, n_frames);
    afet_v_store (im[rev[k]], spec, 2 * k + 1, spec_stride, t0, n_frames);
  }
}

/* The frames' log mel filter bank (ncols = 0) or its DCT (the ncols x M
 * matrix dct) to out[out_offset + t * out_stride + column]. */
static void
afet_v_mfcc (afet_v *re, afet_v *im, __global const float *tw,
    __global const int *rev,
    __global const int *first, __global const int *count,
    __global const int *offset, __global const float *weights, uint M,
    int use_power, float floor_v, float log_mul, __global const float *dct,
    uint ncols, __global float *out, uint out_offset, uint out_stride,
    uint t0, uint n_frames)
{
  afet_v pw[AFET_BINS];
  afet_v fb[AFET_MAX_FILTERS];
  afet_v_fft (re, im, tw);
  for (uint k = 0; k < AFET_BINS; k++) {
    const afet_v xr = re[rev[k]], xi = im[rev[k]];
    pw[k] = AFET_BIN_VALUE (xr * xr + xi * xi, use_power);
  }
  for (uint c = 0; c < M; c++) {
    const int k0 = first[c], n = count[c];
    __global const float *w = weights + offset[c];
    afet_v sum = 0.0f;
    for (int i = 0; i < n; i++)
      sum += w[i] * pw[k0 + i];
    fb[c] = AFET_LOG_CHANNEL (sum, floor_v, log_mul);
  }
  if (ncols == 0) {
    for (uint c = 0; c < M; c++)
      afet_v_store (fb[c], out, out_offset + c, out_stride, t0, n_frames);
    return;
  }
  for (uint j = 0; j < ncols; j++) {
    __global const float *d = dct + (size_t) j * M;
    afet_v acc = 0.0f;
    for (uint c = 0; c < M; c++)
      acc += d[c] * fb[c];
    afet_v_store (acc, out, out_offset + j, out_stride, t0, n_frames);
  }
}

#define AFET_AUDIO_FRAMES(re, im, t0) \
    afet_v_frame_audio (re, im, samples + origin, W, S, preemph, window, \
        scale, remove_dc, dither, seed, first_pos, energy_mode, \
        log_energy_floor, \
        energy_windowed, energy, energy_buf, energy_offset, energy_stride, \
        t0, n_frames)
#define AFET_GIVEN_FRAMES(re, im, t0) \
    afet_v_frame_given (re, im, in, in_offset, in_stride, W, energy, \
        energy_buf, energy_offset, energy_stride, t0, n_frames)
#define AFET_MFCC(re, im, t0) \
    afet_v_mfcc (re, im, tw, rev, first, count, offset, weights, M, \
        use_power, floor_v, log_mul, dct, ncols, out, out_offset, \
        out_stride, t0, n_frames)

/* One kernel a program (its build option), since a CPU driver compiles a
 * program's every kernel at the first build: the input (AFET_VGIVEN:
 * frames, else audio) and the output (AFET_VMFCC: features, else
 * spectra). */
#if !defined (AFET_VGIVEN) && !defined (AFET_VMFCC)
__kernel void
afet_vframe_spectra (AFET_AUDIO_ARGS, AFET_SPECTRA_ARGS)
{
  afet_v re[AFET_N], im[AFET_N];
  const uint t0 = get_global_id (0) * AFET_VW;
  AFET_AUDIO_FRAMES (re, im, t0);
  afet_v_spectra (re, im, tw, rev, spec, spec_stride, t0, n_frames);
}
#elif defined (AFET_VGIVEN) && !defined (AFET_VMFCC)
__kernel void
afet_vpad_spectra (AFET_GIVEN_ARGS, AFET_SPECTRA_ARGS)
{
  afet_v re[AFET_N], im[AFET_N];
  const uint t0 = get_global_id (0) * AFET_VW;
  AFET_GIVEN_FRAMES (re, im, t0);
  afet_v_spectra (re, im, tw, rev, spec, spec_stride, t0, n_frames);
}
#elif !defined (AFET_VGIVEN)
__kernel void
afet_vframe_mfcc (AFET_AUDIO_ARGS, AFET_MFCC_ARGS)
{
  afet_v re[AFET_N], im[AFET_N];
  const uint t0 = get_global_id (0) * AFET_VW;
  AFET_AUDIO_FRAMES (re, im, t0);
  AFET_MFCC (re, im, t0);
}
#else
__kernel void
afet_vpad_mfcc (AFET_GIVEN_ARGS, AFET_MFCC_ARGS)
{
  afet_v re[AFET_N], im[AFET_N];
  const uint t0 = get_global_id (0) * AFET_VW;
  AFET_GIVEN_FRAMES (re, im, t0);
  AFET_MFCC (re, im, t0);
}
#endif
