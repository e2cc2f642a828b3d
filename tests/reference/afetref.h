/* afetref: an independent, double-precision reference implementation of
 * HTK-style speech features (MFCC, log mel filter bank, PLP), used by afet's
 * test suite to check the OpenCL implementation.
 * Copyright (C) 2026 the afet authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Library General Public License for more details.
 *
 * You should have received a copy of the GNU Library General Public
 * License along with this library; if not, write to the
 * Free Software Foundation, Inc., 51 Franklin St, Fifth Floor,
 * Boston, MA 02110-1301, USA.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* It is written from the
 * published formulas (see tests/data/README.md and the shared refdata
 * README), not from HTK's source, and is verified against HTK 3.4.1 HCopy
 * output by tests/reference/test_reference.c.
 *
 * Plain C: only libc, libm and GLib.  All arrays returned by these
 * functions are allocated with g_malloc() and must be freed with g_free().
 * Errors are reported with g_printerr() and a NULL return.
 */

#ifndef __AFETREF_H__
#define __AFETREF_H__

#include <glib.h>

G_BEGIN_DECLS

/* ---------------------------------------------------------------------- */
/* File readers                                                           */
/* ---------------------------------------------------------------------- */

/* Reads a mono RIFF/WAVE file.  Supported sample layouts: PCM S16LE,
 * PCM S32LE (divided by 65536), IEEE float32 and float64 (multiplied by
 * 32768), also inside WAVE_FORMAT_EXTENSIBLE.  Samples are returned in
 * 16-bit integer scale.  Returns NULL (with a message) for anything else. */
double *afetref_read_wav (const char *path, int *rate, int *n_samples);

/* Reads an uncompressed HTK parameter file: a 12-byte big-endian header
 * (nSamples int32, sampPeriod int32 in 100 ns units, sampSize int16 bytes
 * per frame, parmKind int16) followed by big-endian float32 frames.
 * *parm_kind is returned as the unsigned 16-bit value.  A trailing CRC
 * (_K) is ignored; compressed (_C) files are refused. */
float *afetref_read_htk (const char *path, int *n_frames, int *dims,
    int *samp_period_100ns, int *parm_kind);

/* HTK parameter kind codes, for checking headers. */
#define AFETREF_HTK_MFCC   6
#define AFETREF_HTK_FBANK  7
#define AFETREF_HTK_PLP    11
#define AFETREF_HTK_E      0000100
#define AFETREF_HTK_D      0000400
#define AFETREF_HTK_A      0001000
#define AFETREF_HTK_C      0002000
#define AFETREF_HTK_Z      0004000
#define AFETREF_HTK_K      0010000
#define AFETREF_HTK_0      0020000

/* ---------------------------------------------------------------------- */
/* Framing                                                                */
/* ---------------------------------------------------------------------- */

/* Frame size in samples as HTK computes it: the duration in 100 ns units
 * (ms * 1e4) divided by the sample period 1e7 / rate held as a double,
 * truncated.  Gives 160/80, 320/160 and 882/441 for 20/10 ms at 8, 16 and
 * 44.1 kHz; those divisions are exact in double, so no epsilon is added
 * (HTK adds none either). */
int afetref_frame_samples (double ms, int rate);

/* Number of whole frames of W samples, shift S, in n samples (no padding,
 * first frame starts at sample 0): n < W ? 0 : (n - W) / S + 1. */
int afetref_num_frames (int n, int W, int S);

/* ---------------------------------------------------------------------- */
/* Windows and per-frame processing                                       */
/* ---------------------------------------------------------------------- */

typedef enum
{
  AFETREF_WINDOW_HAMMING = 0,
  AFETREF_WINDOW_HANN,
  AFETREF_WINDOW_POVEY,
  AFETREF_WINDOW_RECTANGULAR,
  AFETREF_WINDOW_BLACKMAN
} AfetRefWindow;

/* Window value i (0 .. W-1) of a window of length W; the cosine
 * denominators are W-1.  A window of length 1 is 1.0. */
double afetref_window_value (AfetRefWindow win, int i, int W);

/* Fills w[0 .. W-1] with the window. */
void afetref_window_fill (AfetRefWindow win, int W, double *w);

/* Processes one frame as HTK does: copies samples[0 .. W-1] to out,
 * computes the raw log energy ln(sum s^2) of the unmodified samples
 * (-1e10 when the sum is below 2.45e-308) into *raw_log_energy (may be
 * NULL), applies per-frame pre-emphasis (1-based: s[i] -= k*s[i-1] for
 * i = W..2, then s[1] *= 1-k; nothing from the previous frame) and
 * multiplies by the window.  preemph = 0 disables pre-emphasis. */
void afetref_frame (const double *samples, int W, double preemph,
    AfetRefWindow win, double *out, double *raw_log_energy);

/* In-place forward complex FFT, X_k = sum_t x_t exp(-2 pi i k t / n), in
 * double (iterative radix-2; n must be a power of two).  Returns FALSE
 * (doing nothing) when n is not a power of two. */
gboolean afetref_fft (double *re, double *im, int n);

/* ---------------------------------------------------------------------- */
/* Feature computation                                                    */
/* ---------------------------------------------------------------------- */

typedef struct
{
  int rate;                     /* sample rate in Hz (no default: set it) */
  double frame_length_ms;       /* 25 */
  double frame_shift_ms;        /* 10 */
  AfetRefWindow window;         /* hamming */
  double preemph;               /* 0.97 */
  int num_filters;              /* 23 */
  int num_ceps;                 /* 12; 0 = log filter bank (FBANK) */
  double low_freq;              /* 0 = no low cut-off */
  double high_freq;             /* 0 = Nyquist */
  int lifter;                   /* 22; 0 = none */
  int use_power;                /* 0 = magnitude |X| (HTK default), 1 = |X|^2 */
  int c0;                       /* 1: append c0 (MFCC only) */
  int energy;                   /* 0: 1 appends the raw log energy E */
  int htk_period_quirk;         /* 1: design the filter bank with the sample
                                 * period truncated to whole 100 ns units,
                                 * as HTK 3.4.1 does (matters at 44.1 kHz,
                                 * 22.05 kHz, 48 kHz ...) */
  double warp;                  /* HTK's WARPFREQ: 1 = none */
  double warp_low, warp_high;   /* WARPLCUTOFF, WARPUCUTOFF in Hz */
} AfetRefConfig;

/* Sets the defaults given in the comments above; rate = 16000. */
void afetref_config_init (AfetRefConfig * c);

/* Columns per frame: num_ceps + c0 + energy for MFCC, num_filters + energy
 * when num_ceps == 0. */
int afetref_dims (const AfetRefConfig * c);

/* Computes the features of n samples (16-bit scale).  Returns a row-major
 * n_frames x afetref_dims() array, columns in HTK order: c1..cN, c0, E
 * (MFCC) or the channels low to high, E (FBANK).  Returns NULL with
 * *n_frames = 0 when there is no whole frame or the config is invalid. */
double *afetref_compute (const AfetRefConfig * c, const double *samples,
    int n, int *n_frames);

/* ---------------------------------------------------------------------- */
/* PLP (perceptual linear prediction) as HTK 3.4.1 computes it             */
/* ---------------------------------------------------------------------- */

typedef enum
{
  /* HTK's mel filter bank, exactly as for MFCC (peak-1 triangles on the
   * mel scale 1127 ln(1 + f/700), bins 1 .. N/2-1) */
  AFETREF_PLP_MEL = 0,
  /* Hermansky's critical-band masking curves on the Bark scale
   * z(f) = 6 asinh(f/600), centres equally spaced in Bark like the mel
   * centres (M + 1 intervals over [z(low), z(high)]); channel m weights a
   * bin at z by Psi(z - z_m):
   *   0                     z - z_m < -2.5
   *   10^(d + 0.5)          -2.5 <= d <= -0.5      (d = z - z_m)
   *   1                     -0.5 < d < 0.5
   *   10^(-2.5 (d - 0.5))   0.5 <= d <= 1.3
   *   0                     d > 1.3
   * over the same bins 1 .. N/2-1; the equal-loudness weight is taken at
   * the channel's centre 600 sinh(z_m/6) Hz.  No HTK reference exists for
   * this shape. */
  AFETREF_PLP_BARK
} AfetRefFilterShape;

typedef struct
{
  int rate;                     /* sample rate in Hz (no default: set it) */
  double frame_length_ms;       /* 25 */
  double frame_shift_ms;        /* 10 */
  AfetRefWindow window;         /* hamming */
  double preemph;               /* 0.97 */
  int num_filters;              /* 23 */
  int num_ceps;                 /* 12 (may exceed lpc_order) */
  int lpc_order;                /* 12 */
  double compression;           /* 0.33: intensity-loudness power law */
  double low_freq;              /* 0 = no low cut-off */
  double high_freq;             /* 0 = Nyquist */
  int use_power;                /* 1: |X|^2 (HTK's PLP uses USEPOWER=T) */
  int lifter;                   /* 22; 0 = none */
  int c0;                       /* 1: append c0 = ln(prediction error) */
  int energy;                   /* 0: 1 appends the raw log energy E */
  int htk_period_quirk;         /* 1: as in AfetRefConfig */
  AfetRefFilterShape filter_shape;      /* mel */
  double warp;                  /* as in AfetRefConfig (mel shape only) */
  double warp_low, warp_high;
} AfetRefPlpConfig;

/* Sets the defaults given in the comments above; rate = 16000. */
void afetref_plp_config_init (AfetRefPlpConfig * c);

/* Columns per frame: num_ceps + c0 + energy. */
int afetref_plp_dims (const AfetRefPlpConfig * c);

/* HTK's equal-loudness weight at f Hz (Hermansky 1990, the frequency form
 * that HTK evaluates at each channel centre):
 *   E(f) = (f^2 / (f^2 + 1.6e5))^2 (f^2 + 1.44e6) / (f^2 + 9.61e6).
 * In w = 2 pi f this is w^4 (w^2 + 56.85e6) / ((w^2 + 6.317e6)^2
 * (w^2 + 379.4e6)); the rounded constants often quoted for the w form
 * (56.8e6, 6.3e6, 0.38e9) miss HTK by a relative L2 of 2-3e-4. */
double afetref_plp_equal_loudness (double f_hz);

/* Computes PLP cepstra of n samples (16-bit scale), per frame:
 *  1. HTK framing, pre-emphasis and window as afetref_compute (); FFT;
 *     |X|^2 (or |X| when use_power is 0).
 *  2. The filter bank (filter_shape) over bins 1 .. N/2-1, each channel
 *     floored at 1.0 (no log), multiplied by the equal-loudness weight of
 *     its centre frequency and raised to the power `compression`:
 *     a_m, m = 1..M.
 *  3. The edge channels are copied outward: a_0 = a_1, a_{M+1} = a_M.
 *  4. Autocorrelation by the inverse DFT of this (M+2)-point half of an
 *     even spectrum (K = M + 1):
 *       r_i = (a_0 + 2 sum_{m=1}^{K-1} a_m cos(pi i m / K)
 *              + a_K cos(pi i)) / (2 K),      i = 0..p.
 *  5. Durbin's recursion to order p: predictor A(z) = 1 + sum a_j z^-j and
 *     the final prediction error E_p.  If r_0 <= 0, or a step would give
 *     |k| >= 1 or an error <= 0 (never with the 1.0 floor, but possible
 *     for a singular autocorrelation), the recursion stops there and keeps
 *     the coefficients so far (the rest 0) and the error so far.
 *  6. Cepstrum of 1/A(z): c_n = -a_n - (1/n) sum_{i=1}^{n-1} (n-i) a_i
 *     c_{n-i}, n = 1..num_ceps, a_i = 0 for i > p.
 *  7. Lifter 1 + (L/2) sin(pi n / L) on c_1..c_N; c0 = ln(E_p) (not
 *     liftered; -1e10 when E_p <= 0, which only r_0 <= 0 can give).
 * Returns a row-major n_frames x afetref_plp_dims () array, columns
 * c1..cN, c0, E; NULL with *n_frames = 0 when there is no whole frame or
 * the config is invalid. */
double *afetref_compute_plp (const AfetRefPlpConfig * c,
    const double *samples, int n, int *n_frames);

/* ---------------------------------------------------------------------- */
/* Comparison helpers                                                     */
/* ---------------------------------------------------------------------- */

/* Relative L2 error ||cand - ref|| / ||ref|| over columns col0 ..
 * col0+ncols-1 of n_frames rows of dims columns each.  When ||ref|| is 0
 * the absolute error ||cand - ref|| is returned. */
double afetref_rel_l2 (const float *cand, const double *ref, int n_frames,
    int dims, int col0, int ncols);

/* The same with a float reference (e.g. two HTK files). */
double afetref_rel_l2_ff (const float *cand, const float *ref, int n_frames,
    int dims, int col0, int ncols);

/* General form: the two arrays may have different row lengths (strides)
 * and column offsets, e.g. the static part of a 39-column HTK file
 * against a 13-column reference.  Either cand_f or cand_d (and ref_f or
 * ref_d) must be non-NULL. */
double afetref_rel_l2_strided (const float *cand_f, const double *cand_d,
    int cand_stride, int cand_col0, const float *ref_f, const double *ref_d,
    int ref_stride, int ref_col0, int n_frames, int ncols);

/* Largest |cand - ref| over the same column group (same layout as
 * afetref_rel_l2_strided). */
double afetref_max_abs_strided (const float *cand_f, const double *cand_d,
    int cand_stride, int cand_col0, const float *ref_f, const double *ref_d,
    int ref_stride, int ref_col0, int n_frames, int ncols);

/* ---------------------------------------------------------------------- */
/* Test signals                                                           */
/* ---------------------------------------------------------------------- */

/* n samples of amp * sin (2 pi freq i / rate + phase). */
double *afetref_make_tone (int n, int rate, double freq, double amp,
    double phase);

/* n samples of uniform noise in [-amp, amp] from a deterministic xorshift
 * generator (xorshift64*); the same seed always gives the same signal on
 * every platform.  Seed 0 is replaced by a fixed non-zero constant. */
double *afetref_make_noise (int n, double amp, guint64 seed);

/* Rounds to the nearest integer and clamps to [-32768, 32767] in place, so
 * that a signal is exactly representable as S16. */
void afetref_quantize_s16 (double *x, int n);

/* Conversions for feeding a signal to the element under test.  to_s16
 * rounds and clamps; to_f32 divides by 32768 (GStreamer F32 scale). */
gint16 *afetref_to_s16 (const double *x, int n);
float *afetref_to_f32 (const double *x, int n);

G_END_DECLS

#endif /* __AFETREF_H__ */
