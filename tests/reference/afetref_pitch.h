/* The double-precision Kaldi pitch tracker and its processing (afetref_pitch.c).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* afetref_pitch: a double-precision restatement of Kaldi's pitch features
 * (Ghahremani et al. 2014; compute-kaldi-pitch-feats,
 * process-kaldi-pitch-feats, compute-and-process-kaldi-pitch-feats), written
 * from the algorithm: LinearResample to the resample frequency, the NCCF of
 * every frame over integer lags, with and without the energy ballast,
 * ArbitraryResample of the NCCF to a geometric grid of lags, local costs,
 * Viterbi over the lags with a quadratic transition cost and its backtrace;
 * online as OnlinePitchFeature runs it (chunks, the energy estimate of the
 * input so far, the recomputation at recompute-frame, max-frames-latency and
 * the first-pass output); then the POV feature, the POV-weighted normalised
 * log pitch and the delta pitch. Checked by
 * tests/reference/test_reference_pitch.c against Kaldi's own output
 * (tests/data/kaldi-pitch). Plain C: libc, libm and GLib; arrays from
 * g_malloc (), freed with g_free ().
 *
 * Options are floats, as Kaldi holds them (BaseFloat), so that the sizes they
 * give (the number of lags, window lengths in samples) are Kaldi's; the
 * arithmetic on signals (resampling, NCCF, processing) is double, the
 * Viterbi's costs are floats as Kaldi's are: on silence the paths tie to a
 * float's rounding and only float arithmetic picks Kaldi's lag there. */

#ifndef __AFETREF_PITCH_H__
#define __AFETREF_PITCH_H__

#include <glib.h>

G_BEGIN_DECLS

/* PitchExtractionOptions, Kaldi's names; afetref_pitch_config_init () sets
 * Kaldi's defaults (samp_freq 16000). */
typedef struct
{
  float samp_freq;
  float frame_shift_ms;
  float frame_length_ms;
  float preemph_coeff;
  float min_f0;
  float max_f0;
  float soft_min_f0;
  float penalty_factor;
  float lowpass_cutoff;
  float resample_freq;
  float delta_pitch;
  float nccf_ballast;
  int lowpass_filter_width;
  int upsample_filter_width;
  int max_frames_latency;
  int frames_per_chunk;
  gboolean simulate_first_pass_online;
  int recompute_frame;
  gboolean nccf_ballast_online;
  gboolean snip_edges;
} AfetRefPitchConfig;

void afetref_pitch_config_init (AfetRefPitchConfig * c);

/* ProcessPitchOptions, Kaldi's names and defaults. The delta-pitch noise is
 * Kaldi's rand (): the reference takes the noise as an array instead
 * (afetref_process_pitch). */
typedef struct
{
  float pitch_scale;
  float pov_scale;
  float pov_offset;
  float delta_pitch_scale;
  float delta_pitch_noise_stddev;
  int normalization_left_context;
  int normalization_right_context;
  int delta_window;
  int delay;
  gboolean add_pov_feature;
  gboolean add_normalized_log_pitch;
  gboolean add_delta_pitch;
  gboolean add_raw_log_pitch;
} AfetRefProcessPitchConfig;

void afetref_process_pitch_config_init (AfetRefProcessPitchConfig * p);
/* The number of columns the options select (0 is Kaldi's error). */
int afetref_process_pitch_dims (const AfetRefProcessPitchConfig * p);

/* The lags (seconds) the Viterbi runs over: 1 / max_f0 times
 * (1 + delta_pitch)^i while <= 1 / min_f0, accumulated in float as Kaldi
 * does (417 by default). *n gets their number. */
double *afetref_pitch_lags (const AfetRefPitchConfig * c, int *n);

/* The integer lags (samples at resample_freq) the NCCF is measured at:
 * first .. last, the lag grid widened by the upsampling filter's half width
 * (8 .. 82 by default). */
void afetref_pitch_measured_lags (const AfetRefPitchConfig * c, int *first,
    int *last);

/* Kaldi's LinearResample: how many output samples n_in input samples give
 * (all of them with flush, else those whose filter lies inside the input),
 * and the whole resampled signal (flushed: zeros past both ends). */
gint64 afetref_linear_resample_count (gint64 n_in, int rate_in, int rate_out,
    double cutoff, int num_zeros, gboolean flush);
double *afetref_linear_resample (const double *x, gint64 n, int rate_in,
    int rate_out, double cutoff, int num_zeros, gint64 * n_out);

/* Kaldi's NccfToPovFeature ((1.0001 - n)^0.15 - 1, n clamped to [-1, 1])
 * and NccfToPov (the probability of voicing used as the normalisation
 * weight). */
double afetref_nccf_to_pov_feature (double n);
double afetref_nccf_to_pov (double n);

/* What the pitch tracker gives for one signal: frame t's output is
 * (nccf[t], pitch[t]) as compute-kaldi-pitch-feats writes it, lag[t] the
 * index into the lag grid chosen. With keep_nccf, also every frame's NCCF
 * on the lag grid as the Viterbi saw it (with the ballast, after any
 * recomputation's rescaling) and without the ballast (the POV NCCF), n_frames
 * x n_lags each; only for afetref_pitch_compute. */
typedef struct
{
  int n_frames;
  int n_lags;
  double *nccf;
  double *pitch;
  int *lag;
  double *nccf_pitch;
  double *nccf_pov;
} AfetRefPitch;

void afetref_pitch_clear (AfetRefPitch * r);

/* compute-kaldi-pitch-feats on n samples (Kaldi's scale: 16-bit values) at
 * c->samp_freq: offline when c->frames_per_chunk is 0, else in chunks of
 * that many frames' samples, with the final traceback, or, with
 * c->simulate_first_pass_online, each frame as it was when first ready.
 * FALSE with a message when the options are out of Kaldi's ranges. */
gboolean afetref_pitch_compute (const AfetRefPitchConfig * c,
    const double *wave, gint64 n, gboolean keep_nccf, AfetRefPitch * out);

/* process-kaldi-pitch-feats of T raw frames (nccf, pitch): T x dims
 * (afetref_process_pitch_dims) values: the POV feature, the log pitch less
 * its POV-weighted mean over the normalisation span, the delta of the log
 * pitch (+ noise[t] when noise is not NULL) times delta_pitch_scale, the raw
 * log pitch, as selected. NULL with a message when the noise stddev is not 0
 * and noise is NULL (Kaldi's noise comes from rand () and cannot be
 * reproduced here). */
double *afetref_process_pitch (const AfetRefProcessPitchConfig * p,
    const double *nccf, const double *pitch, int T, const double *noise);

/* compute-and-process-kaldi-pitch-feats: the pitch tracker as
 * afetref_pitch_compute runs it, processed as OnlineProcessPitch does: the
 * final features, or with c->simulate_first_pass_online each frame as it was
 * when first output. *n_frames gets the number of rows. Same noise rule as
 * afetref_process_pitch. */
double *afetref_compute_and_process_pitch (const AfetRefPitchConfig * c,
    const AfetRefProcessPitchConfig * p, const double *wave, gint64 n,
    int *n_frames);

/* With TRUE, the Viterbi takes the exact best predecessor of every lag
 * (the lowest index of the best) instead of Kaldi's bounded search, which
 * stops at the first minimum it meets; for measuring where they differ. */
void afetref_pitch_set_exact_search (gboolean exact);

G_END_DECLS

#endif /* __AFETREF_PITCH_H__ */
