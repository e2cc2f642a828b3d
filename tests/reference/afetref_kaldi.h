/* afetref_kaldi: independent double-precision references for Kaldi's,
 * lhotse's and Whisper's features.
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

/* Kaldi's (compute-mfcc-feats, compute-fbank-feats, compute-plp-feats,
 * compute-spectrogram-feats), lhotse's Fbank / Mfcc extractors and
 * Whisper's log-mel spectrogram, written from the published formulas
 * (not from the tools' code) and checked by tests/reference/test_reference_kaldi.c
 * against kaldi-native-fbank, torchaudio, lhotse and Whisper outputs.
 *
 * Plain C: libc, libm and GLib.  Arrays are allocated with g_malloc() and
 * freed with g_free(); errors are reported with g_printerr() and a NULL
 * return.  Samples are passed in 16-bit integer scale, as afetref_read_wav()
 * returns them (Kaldi's convention); the lhotse and Whisper functions scale
 * them to [-1, 1) themselves (sample_scale = 1/32768). */

#ifndef __AFETREF_KALDI_H__
#define __AFETREF_KALDI_H__

#include <glib.h>

#include "afetref.h"

G_BEGIN_DECLS

/* ---------------------------------------------------------------------- */
/* Test data: .npy files and where the reference data are                 */
/* ---------------------------------------------------------------------- */

/* Reads a NumPy .npy file (format 1.0, 2.0 or 3.0) holding a C-order 2-D
 * array of '<f4' or '<f8' ('<f8' is rounded to float); a 1-D array is
 * returned as n x 1.  Returns NULL (with a message) for anything else. */
float *afetref_read_npy (const char *path, int *rows, int *cols);

/* Writes a C-order 2-D '<f4' .npy file (format 1.0).  FALSE on error. */
gboolean afetref_write_npy (const char *path, const float *data, int rows,
    int cols);

/* The shared reference data directory: $AFET_REFDATA when set, else
 * AFET_SOURCE_DIR/../shared/refdata; NULL when that is not a directory.
 * The same rule as afetcheck_refdata_dir (). */
const char *afetref_refdata_dir (void);

/* tests/data: $AFET_TESTDATA when set, else AFET_SOURCE_DIR/tests/data. */
const char *afetref_testdata_dir (void);

/* Finds REL (e.g. "kaldi/mfcc/s01_16k.npy" or "audio/s01_16k.wav") first
 * in the shared refdata, then in tests/data (as afetcheck_find_pair does).
 * Returns a newly allocated path, or NULL when neither has it.  *in_refdata
 * (may be NULL) says which directory it came from. */
char *afetref_find_data (const char *rel, gboolean * in_refdata);

/* ---------------------------------------------------------------------- */
/* Kaldi features                                                         */
/* ---------------------------------------------------------------------- */

/* FLT_EPSILON as Kaldi uses it: std::numeric_limits<float>::epsilon (). */
#define AFETREF_FLT_EPSILON 1.1920928955078125e-07
/* FLT_MIN (Kaldi's floor on PLP's c0 and non-raw PLP energy) */
#define AFETREF_FLT_MIN 1.17549435082228750797e-38

typedef enum
{
  AFETREF_KALDI_MFCC = 0,       /* compute-mfcc-feats */
  AFETREF_KALDI_FBANK,          /* compute-fbank-feats */
  AFETREF_KALDI_PLP,            /* compute-plp-feats */
  AFETREF_KALDI_SPECTROGRAM     /* compute-spectrogram-feats */
} AfetRefKaldiKind;

typedef struct
{
  AfetRefKaldiKind kind;
  int rate;                     /* --sample-frequency: 16000 */
  double sample_scale;          /* samples are multiplied by this first:
                                 * 1 (Kaldi), 1/32768 (lhotse) */

  /* frame extraction (FrameExtractionOptions) */
  double frame_length_ms;       /* 25: W = (int) (rate * 0.001 * ms) */
  double frame_shift_ms;        /* 10: S likewise */
  int snip_edges;               /* 1 */
  double dither;                /* must be 0 (no random reference) */
  int remove_dc_offset;         /* 1 */
  double preemph;               /* 0.97 */
  AfetRefWindow window;         /* povey */
  double blackman_coeff;        /* 0.42 */
  int round_to_power_of_two;    /* 1 */

  /* mel banks (MelBanksOptions); not used by SPECTROGRAM */
  int num_bins;                 /* 23 (fbank: 23 too, as Kaldi) */
  double low_freq;              /* 20 */
  double high_freq;             /* 0; <= 0 means nyquist + high_freq */
  double vtln_warp;             /* 1.0 = none */
  double vtln_low;              /* 100 */
  double vtln_high;             /* -500 (<= 0: nyquist + vtln_high) */
  int htk_mode;                 /* 0; 1: Kaldi's --htk-mode: mel energies
                                 * floored at 1.0 (before any log), and the
                                 * first bin's lowest weight zeroed when
                                 * low_freq != 0 ("replicate a bug in HTK") */

  /* feature options */
  int num_ceps;                 /* MFCC 13, PLP 13 (both include c0) */
  double cepstral_lifter;       /* 22; 0 = none */
  int use_energy;               /* MFCC, PLP 1; FBANK 0 */
  int raw_energy;               /* 1 */
  double energy_floor;          /* 0 = none */
  int htk_compat;               /* 0 */
  int use_power;                /* FBANK only: 1 = |X|^2, 0 = |X| */
  int use_log_fbank;            /* FBANK only: 1 */
  double log_floor;             /* FLT_EPSILON: floor of the mel energies
                                 * (MFCC, log FBANK) and of the power
                                 * spectrum (SPECTROGRAM) before ln; Kaldi,
                                 * kaldi-native-fbank, torchaudio and lhotse
                                 * all use FLT_EPSILON */
  int lpc_order;                /* PLP: 12 */
  double compress_factor;       /* PLP: 0.33333 (Kaldi's default) */
  double cepstral_scale;        /* PLP: 1.0 */

  /* lhotse's arithmetic where it differs from Kaldi's (set by
   * afetref_lhotse_config_init):
   *  - raw log energy log(E + 1e-15) instead of log(max(E, FLT_EPSILON));
   *  - snip_edges = 0: frame t starts at t*S - (W - S)/2 instead of
   *    t*S + S/2 - W/2 (the same unless W - S is odd);
   *  - the Blackman window's cosines over W instead of W - 1. */
  int lhotse;
} AfetRefKaldiConfig;

/* Kaldi's defaults of compute-<kind>-feats with --dither=0, rate 16000:
 * 25/10 ms, snip-edges, DC removal, pre-emphasis 0.97, povey window, FFT
 * rounded to a power of two, 23 bins over 20 Hz .. Nyquist, 13 cepstra
 * (with c0 or energy), lifter 22, use-energy true for MFCC and PLP (false
 * for fbank), raw energy, energy floor 0, lpc-order 12, compress-factor
 * 0.33333, cepstral-scale 1. */
void afetref_kaldi_config_init (AfetRefKaldiConfig * c, AfetRefKaldiKind kind);

/* lhotse's FbankConfig / MfccConfig defaults (lhotse 1.33,
 * lhotse/features/kaldi/extractors.py and layers.py): Kaldi's framing
 * and window (25/10 ms, povey, DC removal, pre-emphasis 0.97, FFT 512),
 * snip_edges false, dither 0, low_freq 20, high_freq -400, energy_floor
 * 1e-10 (it only matters with use_energy), use_energy false, raw energy,
 * power spectrum; FBANK 80 bins, MFCC 23 bins, 13 cepstra, lifter 22;
 * samples scaled to [-1, 1) (sample_scale 1/32768), mel energies floored at
 * FLT_EPSILON (torch.finfo(float32).eps) before the log; lhotse = 1.
 * Only FBANK and MFCC exist in lhotse. */
void afetref_lhotse_config_init (AfetRefKaldiConfig * c,
    AfetRefKaldiKind kind);

/* Window length W and shift S in samples ((int) (rate * 0.001 * ms)) and
 * the FFT length (W rounded up to a power of two, or W). */
int afetref_kaldi_window_size (const AfetRefKaldiConfig * c);
int afetref_kaldi_window_shift (const AfetRefKaldiConfig * c);
int afetref_kaldi_padded_size (const AfetRefKaldiConfig * c);

/* Frames in n samples: snip_edges: n < W ? 0 : (n - W) / S + 1; else
 * (n + S/2) / S (Kaldi's NumFrames with flush, as compute-*-feats). */
int afetref_kaldi_num_frames (const AfetRefKaldiConfig * c, int n);

/* First sample of frame t: t*S (snip_edges), else t*S + S/2 - W/2 (Kaldi)
 * or t*S - (W - S)/2 (lhotse); may be negative. */
gint64 afetref_kaldi_first_sample (const AfetRefKaldiConfig * c, int t);

/* Kaldi's window function value i of W (povey, hamming, hanning,
 * rectangular, blackman with blackman_coeff; lhotse's blackman when
 * c->lhotse). */
double afetref_kaldi_window_value (const AfetRefKaldiConfig * c, int i,
    int W);

/* Extracts and processes frame t of n samples as Kaldi's ExtractWindow():
 * samples [first, first + W), indices outside [0, n) reflected repeatedly
 * (-1 -> 0, -2 -> 1, n -> n-1, n+1 -> n-2), times sample_scale; then
 * DC removal (subtract the frame mean), the raw log energy
 * log(max(sum x^2, FLT_EPSILON)) (lhotse: log(sum x^2 + 1e-15)) into
 * *raw_log_energy (may be NULL; no energy floor applied here),
 * pre-emphasis x[i] -= k x[i-1] for i = W-1 .. 1, x[0] -= k x[0], the
 * window, and zeros up to the padded size.  out has
 * afetref_kaldi_padded_size () entries. */
void afetref_kaldi_extract_frame (const AfetRefKaldiConfig * c,
    const double *samples, int n, int t, double *out,
    double *raw_log_energy);

/* Kaldi's mel scale 1127 ln(1 + f/700) and its inverse. */
double afetref_kaldi_mel (double f);
double afetref_kaldi_inverse_mel (double m);

/* Kaldi's VTLN frequency warping (MelBanks::VtlnWarpFreq): identity
 * outside [low_freq, high_freq]; piecewise linear with inflection points
 * l = vtln_low * max(1, warp), h = vtln_high * min(1, warp), f/warp between
 * them, and F(low_freq) = low_freq, F(high_freq) = high_freq. */
double afetref_kaldi_vtln_warp_freq (double vtln_low, double vtln_high,
    double low_freq, double high_freq, double warp, double freq);

/* Kaldi's MelBanks: returns num_bins x (padded/2) weights (FFT bins
 * 0 .. padded/2 - 1 at i*rate/padded Hz; the Nyquist bin is not used):
 * num_bins + 1 equal mel intervals over [mel(low_freq), mel(high_freq)]
 * (high_freq <= 0: nyquist + high_freq), bin m spans points m, m+1, m+2
 * (each warped by VTLN when vtln_warp != 1), weight (mel - left) /
 * (centre - left) for left < mel <= centre and (right - mel) /
 * (right - centre) for centre < mel < right.  *n_fft_bins gets padded/2;
 * centre_hz (may be NULL, num_bins entries) the centre frequencies
 * inverse_mel(centre) (used by PLP's equal loudness).  NULL with a
 * message for bad frequencies or a bin with no FFT bin (Kaldi refuses
 * those: "You may have set --num-mel-bins too large"). */
double *afetref_kaldi_mel_banks (const AfetRefKaldiConfig * c,
    int *n_fft_bins, double *centre_hz);

/* Columns per frame: MFCC, PLP num_ceps; FBANK num_bins + use_energy;
 * SPECTROGRAM padded/2 + 1. */
int afetref_kaldi_dims (const AfetRefKaldiConfig * c);

/* Computes Kaldi features of n samples (16-bit scale; multiplied by
 * sample_scale).  Per frame, after afetref_kaldi_extract_frame () and the
 * FFT of the padded frame (power spectrum P_k = |X_k|^2):
 *
 * MFCC: mel energies m_j = sum_k w_jk P_k, floored at log_floor
 *   (FLT_EPSILON), ln;
 *   c_i = sum_j D_ij ln m_j with the orthonormal DCT-II
 *   (D_0j = sqrt(1/M), D_ij = sqrt(2/M) cos(pi i (j + 0.5) / M)),
 *   i = 0 .. num_ceps-1; times the lifter 1 + (L/2) sin(pi i / L) (1 for
 *   i = 0); with use_energy c_0 is replaced by the log energy.
 *   Columns: [c0 or E, c1 .. c(num_ceps-1)]; htk_compat: [c1 .., c0*sqrt(2)
 *   or E].
 * FBANK: mel energies of P (use_power) or sqrt(P), floored at log_floor
 *   and ln'd when use_log_fbank.  Columns: [E,] bins low to high; with
 *   htk_compat E goes last.
 * PLP: mel energies of P (no floor), times the equal-loudness weight
 *   (f^2/(f^2 + 1.6e5))^2 (f^2 + 1.44e6)/(f^2 + 9.61e6) at each bin's
 *   centre frequency f, raised to compress_factor: e_1 .. e_M; e_0 = e_1 and
 *   e_{M+1} = e_M; autocorrelation r_i = (e_0 + 2 sum_{j=1}^{M} e_j
 *   cos(pi i j / (M+1)) + e_{M+1} cos(pi i)) / (2 (M+1)), i = 0 .. p;
 *   Durbin's recursion with Kaldi's floor 1e-5 on each step's (1 - k^2);
 *   cepstrum of 1/A(z) c_n = -a_n - (1/n) sum_{k=1}^{n-1} (n-k) a_k c_{n-k},
 *   n = 1 .. p; c_0 = max(ln E_p, FLT_MIN) (Kaldi floors the *log* at
 *   FLT_MIN, so a negative ln E_p becomes ~0); [c_0, c_1 .. c_{num_ceps-1}]
 *   times the lifter (1 at c_0) and cepstral_scale; with use_energy c_0 is
 *   replaced by the log energy; htk_compat moves column 0 last (no
 *   sqrt(2)).  A frame whose autocorrelation is 0 (digital silence with
 *   dither 0) gives NaN, as in Kaldi (0/0 in Durbin).
 * SPECTROGRAM: ln(max(P_k, log_floor)), k = 0 .. padded/2, with column 0
 *   replaced by the log energy (always: Kaldi's spectrogram has no
 *   use-energy option).
 *
 * The log energy is the raw one (raw_energy) or, when raw_energy is 0,
 * ln(max(sum of the windowed, pre-emphasised frame squared, floor)) with
 * floor FLT_EPSILON (PLP: FLT_MIN); then, when energy_floor > 0, at least
 * ln(energy_floor).
 *
 * Returns a row-major n_frames x afetref_kaldi_dims () array; NULL with
 * *n_frames = 0 when no frame fits, or (with a message) for a bad config
 * (dither != 0, bad frequencies, an empty mel bin, num_ceps > lpc_order+1
 * for PLP, num_ceps > num_bins for MFCC). */
double *afetref_kaldi_compute (const AfetRefKaldiConfig * c,
    const double *samples, int n, int *n_frames);

/* PLP building blocks, exposed for the tests. */

/* Durbin's recursion as Kaldi runs it: r[0 .. p] -> a[0 .. p-1], the
 * predictor A(z) = 1 + sum_{j=1}^{p} a[j-1] z^-j, returning the final
 * prediction error; each step's (1 - k^2) is floored at 1e-5 (Kaldi's
 * guard against constant signals).  r[0] = 0 gives NaN. */
double afetref_kaldi_durbin (int p, const double *r, double *a);

/* Cepstrum of 1/A(z): c[n-1] = c_n = -a_n - (1/n) sum_{k=1}^{n-1} (n-k)
 * a_k c_{n-k}, n = 1 .. p (a[k-1] = a_k). */
void afetref_kaldi_lpc_to_cepstrum (int p, const double *a, double *c);

/* The equal-loudness weight at f Hz (the same formula as HTK's). */
double afetref_kaldi_equal_loudness (double f);

/* ---------------------------------------------------------------------- */
/* Whisper's log-mel spectrogram                                          */
/* ---------------------------------------------------------------------- */

/* Slaney's mel scale (librosa, htk=False): f / (200/3) below 1000 Hz,
 * 15 + ln(f / 1000) / (ln(6.4) / 27) above; and its inverse. */
double afetref_slaney_mel (double f);
double afetref_slaney_inverse_mel (double m);

/* librosa.filters.mel (sr=rate, n_fft, n_mels, fmin=0, fmax=rate/2,
 * htk=False, norm='slaney'): n_mels x (n_fft/2 + 1) weights over the FFT
 * frequencies k*rate/n_fft; n_mels + 2 points equally spaced in slaney mel
 * from 0 to mel(rate/2), converted to Hz (f_0 .. f_{n_mels+1}); filter m
 * is the triangle max(0, min((f - f_m)/(f_{m+1} - f_m), (f_{m+2} - f) /
 * (f_{m+2} - f_{m+1}))) in Hz, times 2 / (f_{m+2} - f_m). */
double *afetref_slaney_mel_filters (int rate, int n_fft, int n_mels);

typedef enum
{
  /* Whisper: clamp at (maximum over the whole utterance) - 8 */
  AFETREF_WHISPER_CLAMP_UTTERANCE = 0,
  /* live variant: frame t clamped at (maximum over frames 0..t) - 8 */
  AFETREF_WHISPER_CLAMP_RUNNING,
  /* no clamp and no (x + 4) / 4: the plain log10 of the mel energies */
  AFETREF_WHISPER_LOG10_ONLY
} AfetRefWhisperClamp;

/* Whisper's log_mel_spectrogram (audio, n_mels) at 16 kHz, padding 0:
 * x = samples / 32768; reflect padding of 200 samples each side that
 * excludes the edge sample (x[-i] = x[i], x[n-1+i] = x[n-1-i]; repeated
 * for very short input); frame t = padded[160 t .. 160 t + 400), i.e.
 * centred on sample 160 t; periodic Hann 0.5 - 0.5 cos(2 pi i / 400);
 * 400-point DFT (not zero-padded), power |X_k|^2, k = 0 .. 200; slaney mel
 * filters (afetref_slaney_mel_filters (16000, 400, n_mels)); log10 of
 * max(mel, 1e-10); frames = n / 160 (the last STFT frame is dropped);
 * clamp at max - 8 (see mode) and (x + 4) / 4.  Returns n_frames x n_mels;
 * NULL with *n_frames = 0 when n < 160. */
double *afetref_whisper_log_mel (const double *samples, int n, int n_mels,
    AfetRefWhisperClamp mode, int *n_frames);

/* Applies the clamp of mode and (x + 4) / 4 in place to n_frames x n_mels
 * log10 mel values (from AFETREF_WHISPER_LOG10_ONLY). */
void afetref_whisper_normalise (double *log_mel, int n_frames, int n_mels,
    AfetRefWhisperClamp mode);

G_END_DECLS

#endif /* __AFETREF_KALDI_H__ */
