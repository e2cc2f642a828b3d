/* Verifies the double-precision Kaldi, lhotse and Whisper references
 * (tests/reference/afetref_kaldi.c) against the tools' own output.
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

/* What it compares with:
 *
 *  - kaldi/{mfcc,mfcc_c0,fbank80,mfcc_nosnip}/ and whisper/{80,128}/ of the
 *    shared refdata (kaldi-native-fbank; Whisper's formula), for s01..s03_16k
 *    (copies in tests/data) and the real lv01_16k, lv02_16k (shared refdata
 *    only: "skipped" without it);
 *  - tests/data/kaldi-gen/: kaldi-native-fbank 1.23 at 8 and 16 kHz,
 *    snip-edges true and false, lhotse's options; torchaudio.compliance.kaldi
 *    (spectrogram, VTLN, windows) and lhotse 1.33's own extractor layers, on
 *    speech and noise (see tests/data/kaldi-gen/README.md);
 *  - PLP: the HTK-compatible configuration Kaldi itself tests against HTK
 *    (--htk-mode, Hamming, no DC removal, compress 0.33) against HCopy's
 *    PLP_0; and the LPC steps against an independent route (normal equations
 *    solved by elimination, cepstrum by a long DFT of log |A|).
 *
 * Each comparison is reported as relative L2 error per column group and
 * must be <= 1e-5. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "afetref.h"
#include "afetref_kaldi.h"

#define TOL 1e-5

static int n_pass, n_fail, n_skip;
static double worst_err, worst_err_f32;

static void
result (gboolean ok, const char *what)
{
  if (ok)
    n_pass++;
  else {
    n_fail++;
    printf ("FAIL: %s\n", what);
  }
}

typedef struct
{
  const char *name;
  int col0, ncols;
} Group;

/* ---------------------------------------------------------------------- */
/* Inputs                                                                 */
/* ---------------------------------------------------------------------- */

/* The noise signals of tests/data/kaldi-gen/generate.py: rate, samples,
 * seed; amplitude 8000, rounded to integers. */
static const struct
{
  const char *name;
  int rate, n;
  guint64 seed;
} noise_inputs[] = {
  {"noise_8k", 8000, 8000, 8}, {"noise_16k", 16000, 16000, 16}
};

/* Loads NAME: a noise signal, or audio/NAME.wav from the refdata or
 * tests/data.  NULL when absent (no message). */
static double *
load_input (const char *name, int *rate, int *n)
{
  char *rel, *path;
  double *x;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (noise_inputs); i++) {
    if (strcmp (name, noise_inputs[i].name) == 0) {
      *rate = noise_inputs[i].rate;
      *n = noise_inputs[i].n;
      x = afetref_make_noise (*n, 8000.0, noise_inputs[i].seed);
      afetref_quantize_s16 (x, *n);
      return x;
    }
  }
  rel = g_strdup_printf ("audio/%s.wav", name);
  path = afetref_find_data (rel, NULL);
  g_free (rel);
  if (path == NULL)
    return NULL;
  x = afetref_read_wav (path, rate, n);
  g_free (path);
  return x;
}

/* ---------------------------------------------------------------------- */
/* Comparing                                                              */
/* ---------------------------------------------------------------------- */

static void
print_row (const char *set, const char *file, int frames, const char *group,
    double rel, double maxabs, const char *status)
{
  printf ("  %-30s %-9s %5d  %-7s %10.3e %10.3e  %s\n", set, file, frames,
      group, rel, maxabs, status);
}

/* Compares ref (nf x dims, double) with the .npy at path, per group. */
static void
compare_npy (const char *set, const char *file, const char *path,
    const double *ref, int nf, int dims, const Group * groups, int n_groups,
    double tol)
{
  char *what = g_strdup_printf ("%s %s", set, file);
  int rows = 0, cols = 0, g;
  float *data = afetref_read_npy (path, &rows, &cols);
  gboolean ok = data != NULL && ref != NULL;

  if (ok && (rows != nf || cols != dims)) {
    printf ("  %-30s %-9s shape %d x %d, reference %d x %d\n", set, file,
        rows, cols, nf, dims);
    ok = FALSE;
  }
  for (g = 0; ok && g < n_groups; g++) {
    double e = afetref_rel_l2_strided (data, NULL, cols, groups[g].col0, NULL,
        ref, dims, groups[g].col0, nf, groups[g].ncols);
    double m = afetref_max_abs_strided (data, NULL, cols, groups[g].col0,
        NULL, ref, dims, groups[g].col0, nf, groups[g].ncols);
    gboolean gok = e <= tol;

    print_row (set, file, nf, groups[g].name, e, m, gok ? (tol > TOL ?
            "ok (float32 tool: tol 5e-5)" : "ok") : "FAIL");
    if (!isnan (e) && tol <= TOL)
      worst_err = MAX (worst_err, e);
    else if (!isnan (e))
      worst_err_f32 = MAX (worst_err_f32, e);
    ok = ok && gok;
  }
  result (ok, what);
  g_free (data);
  g_free (what);
}

/* Column groups of a Kaldi feature layout. */
static int
kaldi_groups (const AfetRefKaldiConfig * c, Group * g)
{
  int d = afetref_kaldi_dims (c);

  switch (c->kind) {
    case AFETREF_KALDI_MFCC:
    case AFETREF_KALDI_PLP:{
      const char *z = c->use_energy ? "E" : "c0";
      if (c->htk_compat) {
        g[0] = (Group) {
        "c1-cN", 0, d - 1};
        g[1] = (Group) {
        z, d - 1, 1};
      } else {
        g[0] = (Group) {
        z, 0, 1};
        g[1] = (Group) {
        "c1-cN", 1, d - 1};
      }
      return 2;
    }
    case AFETREF_KALDI_FBANK:
      if (!c->use_energy) {
        g[0] = (Group) {
        "bins", 0, d};
        return 1;
      }
      g[0] = (Group) {
      "E", c->htk_compat ? d - 1 : 0, 1};
      g[1] = (Group) {
      "bins", c->htk_compat ? 0 : 1, d - 1};
      return 2;
    case AFETREF_KALDI_SPECTROGRAM:
    default:
      g[0] = (Group) {
      "E", 0, 1};
      g[1] = (Group) {
      "bins", 1, d - 1};
      return 2;
  }
}

/* Computes the Kaldi reference of `file` with c (rate taken from the file)
 * and compares it with `path`. */
static void
check_kaldi_file (const char *set, const char *file, const char *path,
    AfetRefKaldiConfig * c, double tol)
{
  double *x, *ref;
  int rate = 0, n = 0, nf = 0, ng;
  Group g[2];

  x = load_input (file, &rate, &n);
  if (x == NULL) {
    printf ("  %-30s %-9s missing input audio\n", set, file);
    result (FALSE, file);
    return;
  }
  c->rate = rate;
  ref = afetref_kaldi_compute (c, x, n, &nf);
  ng = kaldi_groups (c, g);
  compare_npy (set, file, path, ref, nf, afetref_kaldi_dims (c), g, ng,
      tol);
  g_free (ref);
  g_free (x);
}

/* ---------------------------------------------------------------------- */
/* Sets                                                                   */
/* ---------------------------------------------------------------------- */

typedef void (*SetupFunc) (AfetRefKaldiConfig * c);

static void
s_mfcc (AfetRefKaldiConfig * c)
{
  afetref_kaldi_config_init (c, AFETREF_KALDI_MFCC);
}

static void
s_mfcc_nosnip (AfetRefKaldiConfig * c)
{
  s_mfcc (c);
  c->snip_edges = 0;
}

static void
s_mfcc_c0 (AfetRefKaldiConfig * c)
{
  s_mfcc (c);
  c->use_energy = 0;
}

static void
s_mfcc_c0_nosnip (AfetRefKaldiConfig * c)
{
  s_mfcc_c0 (c);
  c->snip_edges = 0;
}

static void
s_mfcc_c0_htk (AfetRefKaldiConfig * c)
{
  s_mfcc_c0 (c);
  c->htk_compat = 1;
}

static void
s_mfcc_hamming_nodc (AfetRefKaldiConfig * c)
{
  s_mfcc (c);
  c->window = AFETREF_WINDOW_HAMMING;
  c->remove_dc_offset = 0;
}

static void
s_fbank80 (AfetRefKaldiConfig * c)
{
  afetref_kaldi_config_init (c, AFETREF_KALDI_FBANK);
  c->num_bins = 80;
}

static void
s_fbank80_nosnip (AfetRefKaldiConfig * c)
{
  s_fbank80 (c);
  c->snip_edges = 0;
}

static void
s_fbank23_energy (AfetRefKaldiConfig * c)
{
  afetref_kaldi_config_init (c, AFETREF_KALDI_FBANK);
  c->use_energy = 1;
}

static void
s_fbank23_energy_htk (AfetRefKaldiConfig * c)
{
  s_fbank23_energy (c);
  c->htk_compat = 1;
}

static void
s_fbank23_rect_mag (AfetRefKaldiConfig * c)
{
  afetref_kaldi_config_init (c, AFETREF_KALDI_FBANK);
  c->snip_edges = 0;
  c->use_power = 0;
  c->window = AFETREF_WINDOW_RECTANGULAR;
}

static void
s_lhotse_fbank (AfetRefKaldiConfig * c)
{
  afetref_lhotse_config_init (c, AFETREF_KALDI_FBANK);
}

static void
s_lhotse_mfcc (AfetRefKaldiConfig * c)
{
  afetref_lhotse_config_init (c, AFETREF_KALDI_MFCC);
}

static void
s_lhotse_fbank_energy (AfetRefKaldiConfig * c)
{
  s_lhotse_fbank (c);
  c->use_energy = 1;
}

static void
s_ta_spectrogram (AfetRefKaldiConfig * c)
{
  afetref_kaldi_config_init (c, AFETREF_KALDI_SPECTROGRAM);
}

static void
s_ta_spectrogram_nosnip_nonraw (AfetRefKaldiConfig * c)
{
  s_ta_spectrogram (c);
  c->snip_edges = 0;
  c->raw_energy = 0;
  c->energy_floor = 1.0;
  c->window = AFETREF_WINDOW_HAMMING;
}

static void
s_ta_fbank23_vtln (AfetRefKaldiConfig * c)
{
  afetref_kaldi_config_init (c, AFETREF_KALDI_FBANK);
  c->use_energy = 1;
  c->vtln_warp = 0.9;
}

static void
s_ta_mfcc_blackman_htk (AfetRefKaldiConfig * c)
{
  afetref_kaldi_config_init (c, AFETREF_KALDI_MFCC);
  c->use_energy = 0;
  c->htk_compat = 1;
  c->window = AFETREF_WINDOW_BLACKMAN;
  c->snip_edges = 0;
}

static void
s_ta_fbank40_mag_hanning_nopow2 (AfetRefKaldiConfig * c)
{
  afetref_kaldi_config_init (c, AFETREF_KALDI_FBANK);
  c->num_bins = 40;
  c->use_power = 0;
  c->window = AFETREF_WINDOW_HANN;
  c->round_to_power_of_two = 0;
  c->remove_dc_offset = 0;
  c->preemph = 0.0;
}

static void
s_kaldi_plp (AfetRefKaldiConfig * c)
{
  afetref_kaldi_config_init (c, AFETREF_KALDI_PLP);
}

static void
s_kaldi_plp_c0_nosnip (AfetRefKaldiConfig * c)
{
  s_kaldi_plp (c);
  c->use_energy = 0;
  c->snip_edges = 0;
}

static void
s_kaldi_plp_opts (AfetRefKaldiConfig * c)
{
  s_kaldi_plp (c);
  c->htk_compat = 1;
  c->lpc_order = 14;
  c->num_ceps = 15;
  c->compress_factor = 0.5;
  c->cepstral_scale = 1.5;
  c->cepstral_lifter = 0.0;
  c->num_bins = 19;
  c->window = AFETREF_WINDOW_HAMMING;
  c->raw_energy = 0;
  c->energy_floor = 1.0;
  c->high_freq = -200.0;
  c->low_freq = 60.0;
}

#define SPEECH "s01_8k", "s02_8k", "s03_8k", "s01_16k", "s02_16k", "s03_16k"
#define ALL SPEECH, "noise_8k", "noise_16k"
#define FEW "s01_8k", "s01_16k", "noise_8k", "noise_16k"

static const struct
{
  const char *set;
  SetupFunc setup;
  const char *files[9];
  double tol;                   /* 0: TOL */
} gen_sets[] = {
  /* kaldi-native-fbank 1.23 (generate.py) */
  {"mfcc", s_mfcc, {ALL}},
  {"mfcc_nosnip", s_mfcc_nosnip, {ALL}},
  {"mfcc_c0", s_mfcc_c0, {ALL}},
  {"mfcc_c0_nosnip", s_mfcc_c0_nosnip, {ALL}},
  {"mfcc_c0_htk", s_mfcc_c0_htk, {ALL}},
  {"mfcc_hamming_nodc", s_mfcc_hamming_nodc, {ALL}},
  {"fbank80", s_fbank80, {ALL}},
  {"fbank80_nosnip", s_fbank80_nosnip, {ALL}},
  {"fbank23_energy", s_fbank23_energy, {ALL}},
  {"fbank23_energy_htk", s_fbank23_energy_htk, {ALL}},
  {"fbank23_rect_mag", s_fbank23_rect_mag, {ALL}},
  {"lhotse_fbank", s_lhotse_fbank, {FEW}},
  {"lhotse_mfcc", s_lhotse_mfcc, {ALL}},
  /* Kaldi itself (kaldi-drv/kaldi_drv: PlpComputer, SpectrogramComputer).
   * Kaldi computes in float32, PLP's IDFT basis even as cosf (float (pi /
   * (M+1)) * i * j) (emulating that alone halves the error), and Durbin
   * amplifies the rounding; its log spectrogram of nearly empty bins (near
   * Nyquist at 8 kHz) carries its float FFT's rounding.  Achievable against
   * these: 1-2e-5, so 5e-5 (torchaudio's float64 spectrogram and HTK's
   * PLP_0 hold the same formulas to 1e-5 and better). */
  {"kaldi_plp", s_kaldi_plp, {ALL}, 5e-5},
  {"kaldi_plp_c0_nosnip", s_kaldi_plp_c0_nosnip, {ALL}, 5e-5},
  {"kaldi_plp_opts", s_kaldi_plp_opts, {FEW}, 5e-5},
  {"kaldi_spectrogram", s_ta_spectrogram, {"s01_8k", "noise_16k"}, 5e-5},
  /* lhotse 1.33's own layers and torchaudio.compliance.kaldi (device.py) */
  {"lhotse_ref_fbank", s_lhotse_fbank, {ALL}},
  {"lhotse_ref_mfcc", s_lhotse_mfcc, {ALL}},
  {"lhotse_ref_fbank_energy", s_lhotse_fbank_energy, {FEW}},
  {"ta_spectrogram", s_ta_spectrogram, {FEW}},
  {"ta_spectrogram_nosnip_nonraw", s_ta_spectrogram_nosnip_nonraw,
      {"s01_8k", "noise_8k", "noise_16k"}},
  {"ta_fbank23_vtln0.9", s_ta_fbank23_vtln, {ALL}},
  {"ta_mfcc_blackman_htk", s_ta_mfcc_blackman_htk, {ALL}},
  {"ta_fbank40_mag_hanning_nopow2", s_ta_fbank40_mag_hanning_nopow2, {ALL}},
};

static void
check_generated (void)
{
  guint i, j;

  printf ("\ntests/data/kaldi-gen (kaldi-native-fbank, lhotse, torchaudio)\n");
  printf ("  %-30s %-9s %5s  %-7s %10s %10s  %s\n", "set", "file", "frames",
      "group", "rel L2", "max |diff|", "result");
  for (i = 0; i < G_N_ELEMENTS (gen_sets); i++) {
    for (j = 0; j < G_N_ELEMENTS (gen_sets[i].files) && gen_sets[i].files[j];
        j++) {
      const char *file = gen_sets[i].files[j];
      char *path = g_build_filename (afetref_testdata_dir (), "kaldi-gen",
          gen_sets[i].set, NULL);
      char *fp = g_strdup_printf ("%s/%s.npy", path, file);
      AfetRefKaldiConfig c;

      if (!g_file_test (fp, G_FILE_TEST_IS_REGULAR)) {
        char *what = g_strdup_printf ("%s %s", gen_sets[i].set, file);

        printf ("  %-30s %-9s missing %s\n", gen_sets[i].set, file, fp);
        result (FALSE, what);
        g_free (what);
      } else {
        gen_sets[i].setup (&c);
        check_kaldi_file (gen_sets[i].set, file, fp, &c,
            gen_sets[i].tol > 0.0 ? gen_sets[i].tol : TOL);
      }
      g_free (fp);
      g_free (path);
    }
  }
}

/* Each option that the lhotse and spectrogram references rely on must
 * matter: changing it must move the result away from the tool's output by
 * more than min_err (or change the frame count). */
static void
m_floor_1e10 (AfetRefKaldiConfig * c)
{
  c->log_floor = 1e-10;
}

static void
m_scale_1 (AfetRefKaldiConfig * c)
{
  c->sample_scale = 1.0;
}

static void
m_high_0 (AfetRefKaldiConfig * c)
{
  c->high_freq = 0.0;
}

static void
m_snip (AfetRefKaldiConfig * c)
{
  c->snip_edges = 1;
}

static void
m_kaldi_energy (AfetRefKaldiConfig * c)
{
  c->lhotse = 0;
}

static void
m_raw_energy (AfetRefKaldiConfig * c)
{
  c->raw_energy = 1;
}

static void
check_sensitivity (void)
{
  static const struct
  {
    const char *set, *file, *what;
    SetupFunc setup, modify;
    int col0, ncols;            /* ncols 0: all */
    double min_err;
  } cases[] = {
    {"lhotse_ref_fbank", "s01_16k", "mel floor 1e-10 instead of FLT_EPSILON",
        s_lhotse_fbank, m_floor_1e10, 0, 0, 1e-3},
    {"lhotse_ref_fbank", "s01_16k", "samples not scaled to [-1, 1)",
        s_lhotse_fbank, m_scale_1, 0, 0, 1e-2},
    {"lhotse_ref_fbank", "s01_8k", "high_freq 0 instead of -400",
        s_lhotse_fbank, m_high_0, 0, 0, 1e-3},
    {"lhotse_ref_fbank", "s01_16k", "snip_edges true", s_lhotse_fbank,
        m_snip, 0, 0, 1e-3},
    {"lhotse_ref_fbank_energy", "s01_16k", "Kaldi's energy log (FLT_EPSILON)",
        s_lhotse_fbank_energy, m_kaldi_energy, 0, 1, 1e-4},
    {"ta_spectrogram_nosnip_nonraw", "s01_8k", "raw energy",
        s_ta_spectrogram_nosnip_nonraw, m_raw_energy, 0, 1, 1e-3},
  };
  guint i;

  printf ("\nsensitivity: a changed option must be detected\n");
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    char *path = g_strdup_printf ("%s/kaldi-gen/%s/%s.npy",
        afetref_testdata_dir (), cases[i].set, cases[i].file);
    int rate = 0, n = 0, nf = 0, rows = 0, cols = 0, dims, nc;
    double *x = load_input (cases[i].file, &rate, &n), *ref = NULL, e = 1.0;
    float *want = afetref_read_npy (path, &rows, &cols);
    AfetRefKaldiConfig c;
    gboolean ok;
    char *what;

    cases[i].setup (&c);
    c.rate = rate;
    cases[i].modify (&c);
    if (x)
      ref = afetref_kaldi_compute (&c, x, n, &nf);
    dims = afetref_kaldi_dims (&c);
    nc = cases[i].ncols ? cases[i].ncols : dims;
    if (want && ref && rows == nf && cols == dims)
      e = afetref_rel_l2_strided (want, NULL, cols, cases[i].col0, NULL, ref,
          dims, cases[i].col0, nf, nc);
    ok = want != NULL && ref != NULL && (rows != nf || e > cases[i].min_err);
    printf ("  %-28s %-8s %-40s %s\n", cases[i].set, cases[i].file,
        cases[i].what, rows != nf ? "frame count differs: ok" : "");
    if (rows == nf)
      printf ("      rel L2 %.3e (must exceed %g): %s\n", e,
          cases[i].min_err, ok ? "ok" : "FAIL");
    what = g_strdup_printf ("sensitivity: %s %s", cases[i].set,
        cases[i].what);
    result (ok, what);
    g_free (what);
    g_free (x);
    g_free (ref);
    g_free (want);
    g_free (path);
  }
}

/* The shared refdata's kaldi/ (knf) and whisper/ sets. */
static void
check_refdata (void)
{
  static const char *synth[] = { "s01_16k", "s02_16k", "s03_16k" };
  static const char *real[] = { "lv01_16k", "lv02_16k" };
  static const struct
  {
    const char *dir;
    SetupFunc setup;
  } ksets[] = {
    {"mfcc", s_mfcc}, {"mfcc_c0", s_mfcc_c0}, {"fbank80", s_fbank80},
    {"mfcc_nosnip", s_mfcc_nosnip}
  };
  static const int mels[] = { 80, 128 };
  guint i, k;

  printf ("\nrefdata kaldi/ (kaldi-native-fbank) and whisper/\n");
  printf ("  %-30s %-9s %5s  %-7s %10s %10s  %s\n", "set", "file", "frames",
      "group", "rel L2", "max |diff|", "result");
  for (k = 0; k < G_N_ELEMENTS (synth) + G_N_ELEMENTS (real); k++) {
    gboolean synthetic = k < G_N_ELEMENTS (synth);
    const char *file = synthetic ? synth[k] : real[k - G_N_ELEMENTS (synth)];
    int rate = 0, n = 0;
    double *x = load_input (file, &rate, &n);

    for (i = 0; i < G_N_ELEMENTS (ksets) + G_N_ELEMENTS (mels); i++) {
      gboolean whisper = i >= G_N_ELEMENTS (ksets);
      char *set = whisper ?
          g_strdup_printf ("whisper/%d", mels[i - G_N_ELEMENTS (ksets)]) :
          g_strdup_printf ("kaldi/%s", ksets[i].dir);
      char *rel = g_strdup_printf ("%s/%s.npy", set, file);
      char *path = afetref_find_data (rel, NULL);

      if (path == NULL || x == NULL) {
        if (synthetic) {
          printf ("  %-30s %-9s missing %s\n", set, file, path ? "audio" :
              rel);
          result (FALSE, rel);
        } else {
          printf ("  %-30s %-9s skipped (no %s)\n", set, file, path ? "audio"
              : rel);
          n_skip++;
        }
      } else if (whisper) {
        int nm = mels[i - G_N_ELEMENTS (ksets)], nf = 0;
        double *ref = afetref_whisper_log_mel (x, n, nm,
            AFETREF_WHISPER_CLAMP_UTTERANCE, &nf);
        Group g = { "all", 0, nm };

        compare_npy (set, file, path, ref, nf, nm, &g, 1, TOL);
        g_free (ref);
      } else {
        AfetRefKaldiConfig c;

        ksets[i].setup (&c);
        check_kaldi_file (set, file, path, &c, TOL);
      }
      g_free (path);
      g_free (rel);
      g_free (set);
    }
    g_free (x);
  }
}

/* ---------------------------------------------------------------------- */
/* Mel banks: VTLN against kaldi-native-fbank's MelBanks                  */
/* ---------------------------------------------------------------------- */

static void
check_melbanks (void)
{
  static const double warps[] = { 0.85, 1.0, 1.15 };
  static const int rates[] = { 16000, 8000 };
  guint i, r;

  printf ("\nmel banks (kaldi-native-fbank MelBanks, VTLN warps)\n");
  for (r = 0; r < G_N_ELEMENTS (rates); r++) {
    for (i = 0; i < G_N_ELEMENTS (warps); i++) {
      AfetRefKaldiConfig c;
      char *rel = g_strdup_printf ("kaldi-gen/melbanks/vtln%.2f_%dk.npy",
          warps[i], rates[r] / 1000);
      char *path = g_build_filename (afetref_testdata_dir (), rel, NULL);
      int rows = 0, cols = 0, nfft = 0, m, k;
      float *want = afetref_read_npy (path, &rows, &cols);
      double *w, num = 0.0, den = 0.0, mx = 0.0;
      gboolean ok;

      afetref_kaldi_config_init (&c, AFETREF_KALDI_FBANK);
      c.rate = rates[r];
      c.num_bins = rates[r] == 8000 ? 15 : 23;
      c.vtln_warp = warps[i];
      w = afetref_kaldi_mel_banks (&c, &nfft, NULL);
      ok = want != NULL && w != NULL && rows == c.num_bins &&
          cols == nfft + 1;
      for (m = 0; ok && m < rows; m++) {
        for (k = 0; k < cols; k++) {
          double a = k < nfft ? w[(gsize) m * nfft + k] : 0.0;
          double b = want[(gsize) m * cols + k];

          num += (a - b) * (a - b);
          den += b * b;
          mx = MAX (mx, fabs (a - b));
        }
      }
      if (ok) {
        double e = sqrt (num / den);

        print_row ("melbanks", rel + strlen ("kaldi-gen/melbanks/"), rows,
            "weights", e, mx, e <= TOL ? "ok" : "FAIL");
        ok = e <= TOL;
      } else {
        printf ("  melbanks %s: missing or wrong shape\n", rel);
      }
      result (ok, rel);
      g_free (w);
      g_free (want);
      g_free (rel);
      g_free (path);
    }
  }
}

/* ---------------------------------------------------------------------- */
/* PLP                                                                    */
/* ---------------------------------------------------------------------- */

/* Kaldi's PLP in the configuration of its own HTK comparison
 * (feature-plp-test.cc: Hamming, no DC removal, --htk-mode, low-freq 0,
 * compress 0.33, c0, htk-compat) against HCopy's PLP_0 (HTK: 20 ms, 23
 * channels at 16 kHz, 15 at 8 kHz). */
static void
check_plp_htk (void)
{
  static const char *files[] = {
    "s01_8k", "s02_8k", "s03_8k", "s01_16k", "s02_16k", "s03_16k",
    "en01_8k", "lv01_16k", "lv02_16k"
  };
  guint i;

  printf ("\nKaldi PLP (--htk-mode configuration) against HTK 3.4.1 PLP_0\n");
  for (i = 0; i < G_N_ELEMENTS (files); i++) {
    gboolean synthetic = files[i][0] == 's';
    char *rel = g_strdup_printf ("htk/PLP_0/%s.htk", files[i]);
    char *path = afetref_find_data (rel, NULL);
    int rate = 0, n = 0, hn, hd, hp, hk, nf = 0;
    double *x = path ? load_input (files[i], &rate, &n) : NULL;
    float *htk;
    double *ref;
    AfetRefKaldiConfig c;
    Group g[2];

    if (path == NULL || x == NULL) {
      if (synthetic) {
        printf ("  %-30s %-9s missing %s\n", "PLP_0", files[i], rel);
        result (FALSE, rel);
      } else {
        printf ("  %-30s %-9s skipped (no %s)\n", "PLP_0", files[i], rel);
        n_skip++;
      }
      g_free (path);
      g_free (rel);
      g_free (x);
      continue;
    }
    afetref_kaldi_config_init (&c, AFETREF_KALDI_PLP);
    c.rate = rate;
    c.frame_length_ms = 20.0;
    c.window = AFETREF_WINDOW_HAMMING;
    c.remove_dc_offset = 0;
    c.htk_mode = 1;
    c.low_freq = 0.0;
    c.num_bins = rate == 8000 ? 15 : 23;
    c.compress_factor = 0.33;
    c.use_energy = 0;
    c.htk_compat = 1;
    ref = afetref_kaldi_compute (&c, x, n, &nf);
    htk = afetref_read_htk (path, &hn, &hd, &hp, &hk);
    if (htk == NULL || hn != nf || hd != 13) {
      printf ("  PLP_0 %s: HTK %d x %d, reference %d x 13\n", files[i], hn,
          hd, nf);
      result (FALSE, rel);
    } else {
      /* HTK stores c1..c12, c0 as Kaldi's htk-compat layout does */
      kaldi_groups (&c, g);
      {
        int k;
        gboolean ok = TRUE;

        for (k = 0; k < 2; k++) {
          double e = afetref_rel_l2_strided (htk, NULL, 13, g[k].col0, NULL,
              ref, 13, g[k].col0, nf, g[k].ncols);
          double m = afetref_max_abs_strided (htk, NULL, 13, g[k].col0, NULL,
              ref, 13, g[k].col0, nf, g[k].ncols);

          print_row ("htk/PLP_0", files[i], nf, g[k].name, e, m,
              e <= TOL ? "ok" : "FAIL");
          ok = ok && e <= TOL;
        }
        result (ok, rel);
      }
    }
    g_free (htk);
    g_free (ref);
    g_free (x);
    g_free (path);
    g_free (rel);
  }
}

/* solves the p x p system A x = b by Gaussian elimination with partial
 * pivoting (A, b overwritten) */
static void
solve (int p, double *A, double *b, double *x)
{
  int i, j, k;

  for (k = 0; k < p; k++) {
    int piv = k;

    for (i = k + 1; i < p; i++)
      if (fabs (A[i * p + k]) > fabs (A[piv * p + k]))
        piv = i;
    if (piv != k) {
      for (j = 0; j < p; j++) {
        double t = A[k * p + j];
        A[k * p + j] = A[piv * p + j];
        A[piv * p + j] = t;
      }
      {
        double t = b[k];
        b[k] = b[piv];
        b[piv] = t;
      }
    }
    for (i = k + 1; i < p; i++) {
      double f = A[i * p + k] / A[k * p + k];

      for (j = k; j < p; j++)
        A[i * p + j] -= f * A[k * p + j];
      b[i] -= f * b[k];
    }
  }
  for (i = p - 1; i >= 0; i--) {
    double s = b[i];

    for (j = i + 1; j < p; j++)
      s -= A[i * p + j] * x[j];
    x[i] = s / A[i * p + i];
  }
}

/* The PLP of afetref_kaldi_compute () against a second route through the
 * same published steps for every frame of s01_16k: the autocorrelation as
 * the inverse DFT of the full (2M+2)-point even spectrum, the predictor by
 * solving the normal equations, the error as r0 + sum a_j r_j and the
 * cepstrum of 1/A(z) as 2x the real cepstrum, by a 4096-point DFT of
 * -ln |A|.  Also Durbin's output against the elimination on random
 * autocorrelations. */
static void
check_plp_internal (void)
{
  AfetRefKaldiConfig c;
  int rate = 0, n = 0, nf = 0, P, W, M, p = 12, nfft = 0, t, i, j, k;
  double *x = load_input ("s01_16k", &rate, &n);
  double *ref, *banks, centre[64], *frame, *spec, *alt;
  const int L = 2048;
  double max_rel = 0.0, *cs, *sn;
  int n_used = 0;
  Group g[2];

  printf ("\nPLP internal consistency (s01_16k, Kaldi defaults, c0)\n");
  if (x == NULL) {
    result (FALSE, "PLP internal: no s01_16k");
    return;
  }
  afetref_kaldi_config_init (&c, AFETREF_KALDI_PLP);
  c.use_energy = 0;
  ref = afetref_kaldi_compute (&c, x, n, &nf);
  P = afetref_kaldi_padded_size (&c);
  W = afetref_kaldi_window_size (&c);
  M = c.num_bins;
  banks = afetref_kaldi_mel_banks (&c, &nfft, centre);
  frame = g_new (double, P);
  spec = g_new (double, P / 2 + 1);
  alt = g_new (double, (gsize) nf * 13);
  cs = g_new (double, L);
  sn = g_new (double, L);
  for (k = 0; k < L; k++) {
    cs[k] = cos (2.0 * G_PI * k / L);
    sn[k] = sin (2.0 * G_PI * k / L);
  }

  /* every 4th frame (the rows in between are copied from the reference) */
  for (t = 0; t < nf; t++) {
    if (t % 4 != 0) {
      memcpy (alt + t * 13, ref + t * 13, sizeof (double) * 13);
      continue;
    }
    n_used++;
    double e[66], r[13], a[12], A[144], b[12], ep, lift;
    int K2 = 2 * (M + 1);

    afetref_kaldi_extract_frame (&c, x, n, t, frame, NULL);
    /* direct DFT of the padded frame */
    for (k = 0; k <= P / 2; k++) {
      double sr = 0.0, si = 0.0;

      for (i = 0; i < W; i++) {
        sr += frame[i] * cos (2.0 * G_PI * (double) ((k * i) % P) / P);
        si -= frame[i] * sin (2.0 * G_PI * (double) ((k * i) % P) / P);
      }
      spec[k] = sr * sr + si * si;
    }
    for (j = 0; j < M; j++) {
      double s = 0.0;

      for (k = 0; k < nfft; k++)
        s += banks[j * nfft + k] * spec[k];
      e[j + 1] = pow (s * afetref_kaldi_equal_loudness (centre[j]), 0.33333);
    }
    e[0] = e[1];
    e[M + 1] = e[M];
    /* inverse DFT of the even spectrum of length 2(M+1) */
    for (i = 0; i <= p; i++) {
      double s = 0.0;

      for (k = 0; k < K2; k++) {
        double v = k <= M + 1 ? e[k] : e[K2 - k];

        s += v * cos (2.0 * G_PI * (double) ((i * k) % K2) / K2);
      }
      r[i] = s / K2;
    }
    /* normal equations sum_j a_j r_|i-j| = -r_i */
    for (i = 0; i < p; i++) {
      for (j = 0; j < p; j++)
        A[i * p + j] = r[abs (i - j)];
      b[i] = -r[i + 1];
    }
    solve (p, A, b, a);
    ep = r[0];
    for (j = 0; j < p; j++)
      ep += a[j] * r[j + 1];
    alt[t * 13] = MAX (log (ep), AFETREF_FLT_MIN);
    /* cepstrum of 1/A by a long DFT */
    {
      double la[2048], cc[13];

      for (k = 0; k < L; k++) {
        double ar = 1.0, ai = 0.0;

        for (j = 1; j <= p; j++) {
          ar += a[j - 1] * cs[(j * k) % L];
          ai -= a[j - 1] * sn[(j * k) % L];
        }
        la[k] = -0.5 * log (ar * ar + ai * ai);
      }
      for (i = 1; i <= 12; i++) {
        cc[i] = 0.0;
        for (k = 0; k < L; k++)
          cc[i] += la[k] * cs[(i * k) % L];
        lift = 1.0 + 11.0 * sin (G_PI * i / 22.0);
        alt[t * 13 + i] = 2.0 * cc[i] / L * lift;
      }
    }
  }
  kaldi_groups (&c, g);
  for (k = 0; k < 2; k++) {
    double er = afetref_rel_l2_strided (NULL, alt, 13, g[k].col0, NULL, ref,
        13, g[k].col0, nf, g[k].ncols);
    double m = afetref_max_abs_strided (NULL, alt, 13, g[k].col0, NULL, ref,
        13, g[k].col0, nf, g[k].ncols);

    print_row ("PLP second route", "s01_16k", n_used, g[k].name, er, m,
        er <= 1e-9 ? "ok" : "FAIL");
    max_rel = MAX (max_rel, er);
  }
  result (max_rel <= 1e-9, "PLP second route");

  /* Durbin against elimination on random autocorrelations of noise */
  {
    double worst = 0.0;
    int trial;

    for (trial = 0; trial < 20; trial++) {
      double *sig = afetref_make_noise (256, 1.0, 100 + trial);
      double r[13], a[12], a2[12], A[144], b[12], e1, e2;

      /* an autocorrelation sequence of a real signal (biased estimate) */
      for (i = 0; i <= 12; i++) {
        r[i] = 0.0;
        for (k = 0; k + i < 256; k++)
          r[i] += (sig[k] + 0.9 * (k ? sig[k - 1] : 0.0)) *
              (sig[k + i] + 0.9 * (k + i ? sig[k + i - 1] : 0.0));
      }
      e1 = afetref_kaldi_durbin (12, r, a);
      for (i = 0; i < 12; i++) {
        for (j = 0; j < 12; j++)
          A[i * 12 + j] = r[abs (i - j)];
        b[i] = -r[i + 1];
      }
      solve (12, A, b, a2);
      e2 = r[0];
      for (j = 0; j < 12; j++)
        e2 += a2[j] * r[j + 1];
      for (j = 0; j < 12; j++)
        worst = MAX (worst, fabs (a[j] - a2[j]));
      worst = MAX (worst, fabs (e1 - e2) / e2);
      g_free (sig);
    }
    printf ("  Durbin vs elimination, 20 random autocorrelations: max diff "
        "%.3e\n", worst);
    result (worst < 1e-9, "Durbin against elimination");
  }
  g_free (x);
  g_free (ref);
  g_free (banks);
  g_free (frame);
  g_free (spec);
  g_free (alt);
  g_free (cs);
  g_free (sn);
}

/* ---------------------------------------------------------------------- */
/* Building blocks                                                        */
/* ---------------------------------------------------------------------- */

static void
check_blocks (void)
{
  AfetRefKaldiConfig c;
  double frame[512], e, *x;
  gboolean ok;

  printf ("Building blocks\n");

  /* framing: sizes, counts, first samples */
  afetref_kaldi_config_init (&c, AFETREF_KALDI_MFCC);
  ok = afetref_kaldi_window_size (&c) == 400 &&
      afetref_kaldi_window_shift (&c) == 160 &&
      afetref_kaldi_padded_size (&c) == 512 &&
      afetref_kaldi_num_frames (&c, 75914) == 472 &&
      afetref_kaldi_num_frames (&c, 399) == 0 &&
      afetref_kaldi_num_frames (&c, 400) == 1 &&
      afetref_kaldi_first_sample (&c, 3) == 480;
  c.snip_edges = 0;
  ok = ok && afetref_kaldi_num_frames (&c, 75914) == 474 &&
      afetref_kaldi_num_frames (&c, 79) == 0 &&
      afetref_kaldi_num_frames (&c, 80) == 1 &&
      afetref_kaldi_first_sample (&c, 0) == -120 &&
      afetref_kaldi_first_sample (&c, 2) == 200;
  c.rate = 8000;
  ok = ok && afetref_kaldi_window_size (&c) == 200 &&
      afetref_kaldi_window_shift (&c) == 80 &&
      afetref_kaldi_padded_size (&c) == 256 &&
      afetref_kaldi_first_sample (&c, 0) == -60;
  /* lhotse's and Kaldi's left edge differ only when W - S is odd */
  c.rate = 16000;
  c.frame_length_ms = 25.0625;  /* W = 401 */
  c.lhotse = 1;
  ok = ok && afetref_kaldi_first_sample (&c, 0) == -120;
  c.lhotse = 0;
  ok = ok && afetref_kaldi_first_sample (&c, 0) == -120;
  c.frame_shift_ms = 10.0625;   /* S = 161: Kaldi 80 - 200, lhotse -(240/2) */
  ok = ok && afetref_kaldi_first_sample (&c, 0) == -120;
  c.lhotse = 1;
  ok = ok && afetref_kaldi_first_sample (&c, 0) == -120;
  c.frame_length_ms = 25.0;     /* W 400, S 161: Kaldi -120, lhotse -119 */
  ok = ok && afetref_kaldi_first_sample (&c, 0) == -119;
  c.lhotse = 0;
  ok = ok && afetref_kaldi_first_sample (&c, 0) == -120;
  result (ok, "Kaldi framing: sizes, frame counts, first samples");

  /* reflection at the edges (-1 -> 0, n -> n-1, repeated) and the frame
   * processing steps, with a rectangular window and no pre-emphasis */
  afetref_kaldi_config_init (&c, AFETREF_KALDI_MFCC);
  c.rate = 1000;
  c.frame_length_ms = 8.0;      /* W 8 */
  c.frame_shift_ms = 4.0;       /* S 4: first sample 2 - 4 = -2 */
  c.snip_edges = 0;
  c.window = AFETREF_WINDOW_RECTANGULAR;
  c.preemph = 0.0;
  c.remove_dc_offset = 0;
  c.round_to_power_of_two = 0;
  {
    double s[3] = { 1, 2, 3 };
    /* frame 0 covers -2 .. 5: x[1] x[0] x[0] x[1] x[2] x[2] x[1] x[0] */
    static const double want[8] = { 2, 1, 1, 2, 3, 3, 2, 1 };

    afetref_kaldi_extract_frame (&c, s, 3, 0, frame, &e);
    ok = memcmp (frame, want, sizeof (want)) == 0 &&
        fabs (e - log (33.0)) < 1e-12;
    /* DC removal (mean 15/8), energy after it, pre-emphasis with
     * x[0] -= k x[0] */
    double mu = 15.0 / 8.0;

    c.remove_dc_offset = 1;
    c.preemph = 0.5;
    afetref_kaldi_extract_frame (&c, s, 3, 0, frame, &e);
    ok = ok && fabs (e - log (33.0 - 8.0 * mu * mu)) < 1e-12 &&
        fabs (frame[0] - 0.5 * (2 - mu)) < 1e-12 &&
        fabs (frame[1] - ((1 - mu) - 0.5 * (2 - mu))) < 1e-12 &&
        fabs (frame[4] - ((3 - mu) - 0.5 * (2 - mu))) < 1e-12;
  }
  /* windows */
  afetref_kaldi_config_init (&c, AFETREF_KALDI_MFCC);
  c.window = AFETREF_WINDOW_BLACKMAN;
  ok = ok && fabs (afetref_kaldi_window_value (&c, 0, 10)) < 1e-15 &&
      fabs (afetref_kaldi_window_value (&c, 9, 10)) < 1e-12;
  c.lhotse = 1;
  ok = ok && fabs (afetref_kaldi_window_value (&c, 9, 10) -
      (0.42 - 0.5 * cos (2 * G_PI * 0.9) + 0.08 * cos (4 * G_PI * 0.9))) <
      1e-15;
  c.lhotse = 0;
  c.window = AFETREF_WINDOW_POVEY;
  ok = ok && fabs (afetref_kaldi_window_value (&c, 3, 10) -
      pow (0.5 - 0.5 * cos (2 * G_PI * 3 / 9), 0.85)) < 1e-15;
  /* an all-zero frame: log energy ln(FLT_EPSILON) (lhotse ln 1e-15) */
  x = g_new0 (double, 1000);
  afetref_kaldi_extract_frame (&c, x, 1000, 0, frame, &e);
  ok = ok && e == log (AFETREF_FLT_EPSILON);
  c.lhotse = 1;
  afetref_kaldi_extract_frame (&c, x, 1000, 0, frame, &e);
  ok = ok && e == log (1e-15);
  g_free (x);
  result (ok, "Kaldi frame extraction: reflection, DC, energy, windows");

  /* mel scale, DCT orthonormality through MFCC of a flat spectrum: with
   * all log mel energies equal to L, c0 = sqrt(M) L and c1.. = 0 */
  ok = fabs (afetref_kaldi_mel (700.0) - 1127.0 * log (2.0)) < 1e-12 &&
      fabs (afetref_kaldi_inverse_mel (afetref_kaldi_mel (1234.5)) -
      1234.5) < 1e-9 &&
      fabs (afetref_slaney_mel (1000.0) - 15.0) < 1e-12 &&
      fabs (afetref_slaney_mel (500.0) - 7.5) < 1e-12 &&
      fabs (afetref_slaney_inverse_mel (afetref_slaney_mel (5000.0)) -
      5000.0) < 1e-9;
  /* VTLN warp 1 is the identity; the warp is continuous at l and h */
  ok = ok && afetref_kaldi_vtln_warp_freq (100, 7500, 20, 8000, 1.0,
      3000.0) == 3000.0;
  ok = ok && fabs (afetref_kaldi_vtln_warp_freq (100, 7500, 20, 8000, 0.9,
          7500 * 0.9 - 1e-9) - afetref_kaldi_vtln_warp_freq (100, 7500, 20,
          8000, 0.9, 7500 * 0.9 + 1e-9)) < 1e-6;
  result (ok, "mel scales, VTLN warp");

  /* mel banks: 80 bins at 8 kHz have no empty bin; 128 bins at 8 kHz do */
  afetref_kaldi_config_init (&c, AFETREF_KALDI_FBANK);
  c.rate = 8000;
  c.num_bins = 80;
  {
    int nfft;
    double *w = afetref_kaldi_mel_banks (&c, &nfft, NULL);

    ok = w != NULL && nfft == 128;
    g_free (w);
    c.num_bins = 128;
    printf ("(a message about an empty mel bin expected next)\n");
    w = afetref_kaldi_mel_banks (&c, &nfft, NULL);
    ok = ok && w == NULL;
  }
  result (ok, "mel banks: 80 bins fit at 8 kHz, 128 do not (as Kaldi)");

  /* slaney filters: the triangles' peak height is 2 / (f_{m+2} - f_m) */
  {
    double *w = afetref_slaney_mel_filters (16000, 400, 80);
    double mx = 0.0;
    int k;

    for (k = 0; k < 201; k++)
      mx = MAX (mx, w[10 * 201 + k]);
    {
      double f10 = afetref_slaney_inverse_mel (10 *
          afetref_slaney_mel (8000.0) / 81.0);
      double f12 = afetref_slaney_inverse_mel (12 *
          afetref_slaney_mel (8000.0) / 81.0);
      /* the peak sits within one bin of the centre: height close to 2/(f12
       * - f10) */
      ok = mx <= 2.0 / (f12 - f10) + 1e-12 && mx > 0.5 * 2.0 / (f12 - f10);
    }
    g_free (w);
  }
  result (ok, "slaney filters: height 2 / (f[m+2] - f[m])");

  /* npy round trip */
  {
    char *dir = g_dir_make_tmp ("afetrefk-XXXXXX", NULL);
    char *path = dir ? g_build_filename (dir, "a.npy", NULL) : NULL;
    float d[6] = { 1, -2, 3.5f, 1e-30f, -0.0f, 7 }, *back;
    int rows = 0, cols = 0;

    ok = path && afetref_write_npy (path, d, 2, 3);
    back = ok ? afetref_read_npy (path, &rows, &cols) : NULL;
    ok = back && rows == 2 && cols == 3 && memcmp (back, d, sizeof (d)) == 0;
    g_free (back);
    if (path)
      g_unlink (path);
    if (dir)
      g_rmdir (dir);
    g_free (path);
    g_free (dir);
  }
  result (ok, "npy write / read round trip");

  /* noise inputs are the ones generate.py made: first samples */
  {
    double *nz = afetref_make_noise (4, 8000.0, 16);

    afetref_quantize_s16 (nz, 4);
    printf ("  noise_16k starts %g %g %g %g\n", nz[0], nz[1], nz[2], nz[3]);
    g_free (nz);
  }
}

/* Whisper's running-maximum variant against a brute-force restatement,
 * and the utterance variant against its definition. */
static void
check_whisper_modes (void)
{
  int rate = 0, n = 0, nf = 0, nf2 = 0, nf3 = 0, t, m;
  double *x = load_input ("s02_16k", &rate, &n);
  double *raw, *run, *utt, worst = 0.0, gmax = -1e300;
  gboolean ok;

  printf ("\nWhisper clamp modes (s02_16k, 80 mels)\n");
  if (x == NULL) {
    result (FALSE, "whisper modes: no s02_16k");
    return;
  }
  raw = afetref_whisper_log_mel (x, n, 80, AFETREF_WHISPER_LOG10_ONLY, &nf);
  run = afetref_whisper_log_mel (x, n, 80, AFETREF_WHISPER_CLAMP_RUNNING,
      &nf2);
  utt = afetref_whisper_log_mel (x, n, 80, AFETREF_WHISPER_CLAMP_UTTERANCE,
      &nf3);
  ok = nf == n / 160 && nf2 == nf && nf3 == nf;
  for (t = 0; ok && t < nf; t++)
    for (m = 0; m < 80; m++)
      gmax = MAX (gmax, raw[t * 80 + m]);
  for (t = 0; ok && t < nf; t++) {
    double rmax = -1e300;
    int u;

    for (u = 0; u <= t; u++)
      for (m = 0; m < 80; m++)
        rmax = MAX (rmax, raw[u * 80 + m]);
    for (m = 0; m < 80; m++) {
      double v = raw[t * 80 + m];

      worst = MAX (worst, fabs (run[t * 80 + m] -
              (MAX (v, rmax - 8.0) + 4.0) / 4.0));
      worst = MAX (worst, fabs (utt[t * 80 + m] -
              (MAX (v, gmax - 8.0) + 4.0) / 4.0));
    }
  }
  printf ("  frames %d (= %d / 160), max diff %.3e\n", nf, n, worst);
  result (ok && worst == 0.0, "whisper running / utterance clamp");
  g_free (raw);
  g_free (run);
  g_free (utt);
  g_free (x);
}

int
main (void)
{
  const char *rd;

  setvbuf (stdout, NULL, _IOLBF, 0);
  rd = afetref_refdata_dir ();
  printf ("afetref_kaldi against kaldi-native-fbank, lhotse, torchaudio, "
      "Whisper, HTK (tolerance: relative L2 <= %g)\n", TOL);
  printf ("refdata: %s\n", rd ? rd : "(absent: real recordings skipped)");
  printf ("testdata: %s\n\n", afetref_testdata_dir ());

  check_blocks ();
  check_whisper_modes ();
  check_refdata ();
  check_generated ();
  check_sensitivity ();
  check_melbanks ();
  check_plp_htk ();
  check_plp_internal ();

  printf ("\nlargest relative L2 against the tools: %.3e (Kaldi's own "
      "float32 PLP and spectrogram: %.3e)\n", worst_err, worst_err_f32);
  printf ("%d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
  return n_fail ? 1 : 0;
}
