/* Tests of afetpitch against Kaldi's pitch programs' output and the
 * double-precision reference, offline, with random buffer splits.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* tests/data/kaldi-pitch (compute-kaldi-pitch-feats, process-kaldi-pitch-
 * feats --delta-pitch-noise-stddev=0) on s01..s03 and the f0 glide at 8 and
 * 16 kHz: the same lag as Kaldi on >= 99.9 % of all frames, pitch within
 * 1e-4 relative and NCCF within 1e-4 where the lag agrees, processed
 * features within 1e-4 relative L2 per column; afetref_pitch on random
 * signals; DISCONT between utterances; device and system memory; refusals
 * (rates, options, online, live) with errors naming the fix. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"
#include "afetref.h"
#include "afetref_ark.h"
#include "afetref_kaldi.h"
#include "afetref_pitch.h"

#include <math.h>
#include <string.h>

#define LAG_AGREE 0.999
#define PITCH_TOL 1e-4
#define NCCF_TOL 1e-4
#define PROC_TOL 1e-4

static const char *keys[] = { "s01_8k", "s02_8k", "s03_8k", "glide_8k",
  "s01_16k", "s02_16k", "s03_16k", "glide_16k"
};

static gdouble *
load_wave (const char *key, int *rate, int *n)
{
  gchar *path = g_str_has_prefix (key, "glide") ?
      g_build_filename (afetcheck_testdata_dir (), "kaldi-pitch", key, NULL) :
      g_build_filename (afetcheck_testdata_dir (), "audio", key, NULL);
  gchar *wav = g_strconcat (path, ".wav", NULL);
  gdouble *x = afetref_read_wav (wav, rate, n);
  fail_unless (x != NULL, "cannot read %s", wav);
  g_free (path);
  g_free (wav);
  return x;
}

static AfetRefMatrix *
load_ark (const char *name, int *n)
{
  gchar *path = g_build_filename (afetcheck_testdata_dir (), "kaldi-pitch",
      name, NULL);
  AfetRefMatrix *m = afetref_read_kaldi_ark (path, n);
  fail_unless (m != NULL, "cannot read %s", path);
  g_free (path);
  return m;
}

/* The utterances through one harness, each starting with a DISCONT, in
 * random buffer splits; runs gets one run per utterance. */
static void
run_harness (const gchar * launch, gint rate, gdouble ** x, const gint * n,
    gint n_utt, guint64 seed, AfetCheckRuns * runs)
{
  GstHarness *h = gst_harness_new_parse (launch);
  /* offline: afetpitch refuses live sources */
  gst_harness_set_live (h, FALSE);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, rate);
  gint *sizes = afetcheck_random_sizes (64, 1, 4000, seed);
  GstClockTime t0 = 0;
  for (gint u = 0; u < n_utt; u++) {
    fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, rate,
            x[u], n[u], sizes + u, 64 - u, t0, TRUE), GST_FLOW_OK);
    t0 += gst_util_uint64_scale (n[u], GST_SECOND, rate);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  memset (runs, 0, sizeof (*runs));
  afetcheck_pull_runs (h, runs);
  /* the caps name the columns (docs/caps.md, the pitch-columns field) */
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  const gchar *cols = gst_structure_get_string (gst_caps_get_structure (caps,
          0), "pitch-columns");
  fail_unless (cols && strcmp (cols, runs->dims == 2 ? "nccf,pitch" :
          "pov,normalized-log-pitch,delta-pitch") == 0, "pitch-columns %s",
      cols);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  g_free (sizes);
}

/* the index of the grid lag a pitch (1 / lag) came from */
static int
grid_lag (const double *lags, int S, double pitch)
{
  int i, best = 0;
  double bd = G_MAXDOUBLE;
  for (i = 0; i < S; i++) {
    double d = fabs (1.0 / lags[i] - pitch);
    if (d < bd) {
      bd = d;
      best = i;
    }
  }
  return best;
}

typedef struct
{
  gint frames, agree;
  gdouble pitch_err, nccf_err;
} LagStats;

/* raw (nccf, pitch) rows against a reference's, lag by lag */
static void
compare_raw (const gfloat * got, const gdouble * ref, gint T, gint rate,
    LagStats * st)
{
  AfetRefPitchConfig c;
  int S;
  afetref_pitch_config_init (&c);
  c.samp_freq = rate;
  double *lags = afetref_pitch_lags (&c, &S);
  for (gint t = 0; t < T; t++) {
    int a = grid_lag (lags, S, got[2 * t + 1]),
        b = grid_lag (lags, S, ref[2 * t + 1]);
    st->frames++;
    if (a != b)
      continue;
    st->agree++;
    st->pitch_err = MAX (st->pitch_err, fabs (got[2 * t + 1] -
            ref[2 * t + 1]) / ref[2 * t + 1]);
    st->nccf_err = MAX (st->nccf_err, fabs (got[2 * t] - ref[2 * t]));
  }
  g_free (lags);
}

static void
check_raw_stats (const char *what, const LagStats * st)
{
  g_print ("%s: the same lag as the reference on %d of %d frames (%.3f%%), "
      "pitch error %.3g relative, NCCF %.3g\n", what, st->agree, st->frames,
      100.0 * st->agree / MAX (st->frames, 1), st->pitch_err, st->nccf_err);
  fail_unless (st->frames > 0);
  fail_unless (st->agree >= LAG_AGREE * st->frames, "%s: %d of %d lags",
      what, st->agree, st->frames);
  fail_unless (st->pitch_err <= PITCH_TOL, "%s: pitch error %g", what,
      st->pitch_err);
  fail_unless (st->nccf_err <= NCCF_TOL, "%s: NCCF error %g", what,
      st->nccf_err);
}

/* Kaldi's raw.ark: all four utterances of a rate through one harness,
 * DISCONT between them */
GST_START_TEST (test_kaldi_raw)
{
  int n_ark;
  AfetRefMatrix *ark = load_ark ("raw.ark", &n_ark);
  LagStats st = { 0 };
  for (gint half = 0; half < 2; half++) {
    gdouble *x[4];
    gint n[4], rate = 0;
    for (gint u = 0; u < 4; u++)
      x[u] = load_wave (keys[4 * half + u], &rate, &n[u]);
    AfetCheckRuns runs;
    run_harness ("afetpitch process=false device-memory=false", rate, x, n,
        4, 31 + half, &runs);
    fail_unless_equals_int (runs.n_runs, 4);
    fail_unless_equals_int (runs.dims, 2);
    for (gint u = 0; u < 4; u++) {
      const AfetRefMatrix *r = afetref_kaldi_ark_find (ark, n_ark,
          keys[4 * half + u]);
      fail_unless (r != NULL);
      fail_unless_equals_int (runs.run_frames[u], r->rows);
      compare_raw (runs.data + (gsize) runs.run_start[u] * 2, r->data,
          r->rows, rate, &st);
      g_free (x[u]);
    }
    afetcheck_runs_clear (&runs);
  }
  check_raw_stats ("raw.ark (Kaldi)", &st);
  afetref_matrices_free (ark, n_ark);
}

GST_END_TEST;

/* Kaldi's processed.ark (process-kaldi-pitch-feats
 * --delta-pitch-noise-stddev=0 of raw.ark), the default processing; in
 * device memory downstream too, with the same frames */
GST_START_TEST (test_kaldi_processed)
{
  int n_ark;
  AfetRefMatrix *ark = load_ark ("processed.ark", &n_ark);
  gdouble worst = 0;
  for (gint half = 0; half < 2; half++) {
    gdouble *x[4];
    gint n[4], rate = 0;
    for (gint u = 0; u < 4; u++)
      x[u] = load_wave (keys[4 * half + u], &rate, &n[u]);
    AfetCheckRuns runs, dev;
    run_harness ("afetpitch delta-pitch-noise-stddev=0 device-memory=false",
        rate, x, n, 4, 41 + half, &runs);
    run_harness ("afetpitch delta-pitch-noise-stddev=0", rate, x, n, 4,
        51 + half, &dev);
    fail_unless_equals_int (runs.n_runs, 4);
    fail_unless_equals_int (runs.dims, 3);
    fail_unless_equals_int (dev.n_frames, runs.n_frames);
    fail_unless (memcmp (dev.data, runs.data, sizeof (gfloat) *
            runs.n_frames * 3) == 0, "device and system memory differ");
    for (gint u = 0; u < 4; u++) {
      const char *key = keys[4 * half + u];
      const AfetRefMatrix *r = afetref_kaldi_ark_find (ark, n_ark, key);
      fail_unless (r != NULL);
      fail_unless_equals_int (runs.run_frames[u], r->rows);
      for (gint col = 0; col < 3; col++) {
        gdouble e = afetref_rel_l2 (runs.data + (gsize) runs.run_start[u] *
            3, r->data, r->rows, 3, col, 1);
        worst = MAX (worst, e);
        fail_unless (e <= PROC_TOL, "%s column %d: rel L2 %g", key, col, e);
      }
      g_free (x[u]);
    }
    afetcheck_runs_clear (&runs);
    afetcheck_runs_clear (&dev);
  }
  g_print ("processed.ark (Kaldi): worst column's relative L2 %.3g\n", worst);
  afetref_matrices_free (ark, n_ark);
}

GST_END_TEST;

/* Random signals (voiced stretches of random f0 in noise, silences, random
 * levels) at 8, 11.025, 16 and 44.1 kHz, and 6.5 s at 16 kHz, against
 * afetref_pitch: the lags,
 * and the processing of the same raw frames */
GST_START_TEST (test_reference_random)
{
  /* the last one longer than recompute-frame (500 frames): its later
   * frames keep the ballast of the whole signal */
  const gint rates[] = { 8000, 11025, 16000, 44100, 16000 };
  LagStats st = { 0 };
  gdouble worst = 0;
  GRand *g = g_rand_new_with_seed (7);
  for (guint r = 0; r < G_N_ELEMENTS (rates); r++) {
    gint rate = rates[r], n = (gint) (rate * (r == 4 ? 6.5 :
            g_rand_double_range (g, 0.3, 2.5)));
    gdouble *x = g_new (gdouble, n), phase = 0, f0 =
        g_rand_double_range (g, 60, 380), amp = g_rand_double_range (g,
        100, 8000);
    for (gint i = 0; i < n; i++) {
      if (i % (rate / 5) == 0) {
        f0 = g_rand_double_range (g, 60, 380);
        amp = g_rand_int_range (g, 0, 3) == 0 ? 0 :
            g_rand_double_range (g, 100, 8000);
      }
      phase += 2 * G_PI * f0 / rate;
      x[i] = rint (amp * (sin (phase) + 0.5 * sin (2 * phase) + 0.3 *
              sin (3 * phase)) + g_rand_double_range (g, -200, 200));
    }
    AfetRefPitchConfig c;
    afetref_pitch_config_init (&c);
    c.samp_freq = rate;
    AfetRefPitch ref;
    fail_unless (afetref_pitch_compute (&c, x, n, FALSE, &ref));
    gdouble *refraw = g_new (gdouble, (gsize) MAX (ref.n_frames, 1) * 2);
    for (gint t = 0; t < ref.n_frames; t++) {
      refraw[2 * t] = ref.nccf[t];
      refraw[2 * t + 1] = ref.pitch[t];
    }
    AfetCheckRuns runs, proc;
    run_harness ("afetpitch process=false device-memory=false", rate, &x,
        &n, 1, 61 + r, &runs);
    fail_unless_equals_int (runs.n_frames, ref.n_frames);
    compare_raw (runs.data, refraw, ref.n_frames, rate, &st);
    /* the processing of afetpitch's raw frames as the reference does it */
    run_harness ("afetpitch delta-pitch-noise-stddev=0 device-memory=false",
        rate, &x, &n, 1, 71 + r, &proc);
    AfetRefProcessPitchConfig pp;
    afetref_process_pitch_config_init (&pp);
    pp.delta_pitch_noise_stddev = 0;
    gdouble *nc = g_new (gdouble, MAX (runs.n_frames, 1)),
        *pt = g_new (gdouble, MAX (runs.n_frames, 1));
    for (gint t = 0; t < runs.n_frames; t++) {
      nc[t] = runs.data[2 * t];
      pt[t] = runs.data[2 * t + 1];
    }
    gdouble *want = afetref_process_pitch (&pp, nc, pt, runs.n_frames, NULL);
    fail_unless_equals_int (proc.n_frames, runs.n_frames);
    for (gint col = 0; col < 3; col++) {
      gdouble e = afetref_rel_l2 (proc.data, want, proc.n_frames, 3, col, 1);
      worst = MAX (worst, e);
      fail_unless (e <= 1e-5, "%d Hz column %d: rel L2 %g", rate, col, e);
    }
    g_free (want);
    g_free (nc);
    g_free (pt);
    afetcheck_runs_clear (&runs);
    afetcheck_runs_clear (&proc);
    afetref_pitch_clear (&ref);
    g_free (refraw);
    g_free (x);
  }
  check_raw_stats ("random signals (afetref_pitch)", &st);
  g_print ("random signals: processing within %.3g relative L2 of the "
      "reference's\n", worst);
  g_rand_free (g);
}

GST_END_TEST;

/* Kaldi's default delta-pitch noise (stddev 0.005, times the delta scale
 * 10): only the delta column moves, by about 0.05 rms, the same for the
 * same srand and otherwise for another; float input gives what 16-bit
 * input of the same values gives */
GST_START_TEST (test_noise_and_formats)
{
  gint rate, n;
  gdouble *x = load_wave ("s01_16k", &rate, &n);
  AfetCheckRuns clean, noisy, again, other;
  run_harness ("afetpitch delta-pitch-noise-stddev=0 device-memory=false",
      rate, &x, &n, 1, 81, &clean);
  run_harness ("afetpitch device-memory=false", rate, &x, &n, 1, 82, &noisy);
  run_harness ("afetpitch device-memory=false", rate, &x, &n, 1, 83, &again);
  run_harness ("afetpitch srand=5 device-memory=false", rate, &x, &n, 1, 84,
      &other);
  fail_unless (clean.n_frames > 100 && noisy.n_frames == clean.n_frames);
  gdouble ss = 0;
  for (gint t = 0; t < clean.n_frames; t++) {
    fail_unless (noisy.data[3 * t] == clean.data[3 * t] &&
        noisy.data[3 * t + 1] == clean.data[3 * t + 1]);
    gdouble d = noisy.data[3 * t + 2] - clean.data[3 * t + 2];
    ss += d * d;
  }
  gdouble rms = sqrt (ss / clean.n_frames);
  g_print ("default delta-pitch noise: rms %.4f on the delta column\n", rms);
  fail_unless (rms > 0.035 && rms < 0.065, "noise rms %g", rms);
  fail_unless (memcmp (noisy.data, again.data, sizeof (gfloat) * 3 *
          clean.n_frames) == 0, "the same srand gave other noise");
  fail_if (memcmp (noisy.data, other.data, sizeof (gfloat) * 3 *
          clean.n_frames) == 0, "srand=5 gave the same noise");

  /* F32 input (values / 32768) equals S16 input */
  GstHarness *h = gst_harness_new_parse ("afetpitch process=false "
      "device-memory=false");
  gst_harness_set_live (h, FALSE);
  afetcheck_set_audio_caps (h, AFETCHECK_F32, rate);
  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_F32, rate, x,
          n, NULL, 0, 0, TRUE), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  AfetCheckRuns f32, s16;
  memset (&f32, 0, sizeof f32);
  afetcheck_pull_runs (h, &f32);
  gst_harness_teardown (h);
  run_harness ("afetpitch process=false device-memory=false", rate, &x, &n,
      1, 85, &s16);
  fail_unless_equals_int (f32.n_frames, s16.n_frames);
  fail_unless (memcmp (f32.data, s16.data, sizeof (gfloat) * 2 *
          s16.n_frames) == 0, "F32 and S16 input differ");
  afetcheck_runs_clear (&clean);
  afetcheck_runs_clear (&noisy);
  afetcheck_runs_clear (&again);
  afetcheck_runs_clear (&other);
  afetcheck_runs_clear (&f32);
  afetcheck_runs_clear (&s16);
  g_free (x);
}

GST_END_TEST;

/* the pipeline fails with an error holding every needle */
static void
expect_error (const gchar * launch, const gchar * const *needles)
{
  gchar *err = NULL;
  fail_if (afetcheck_run_launch (launch, &err), "%s ran to EOS", launch);
  for (gint i = 0; needles[i]; i++)
    fail_unless (err && strstr (err, needles[i]), "%s: error '%s' does not "
        "name '%s'", launch, err, needles[i]);
  g_print ("error: %s\n", err);
  g_free (err);
}

GST_START_TEST (test_bad_input)
{
  const gchar *cutoff[] = { "lowpass-cutoff", "8000 Hz", NULL };
  expect_error ("audiotestsrc num-buffers=4 ! audio/x-raw,rate=8000,"
      "channels=1,format=S16LE ! afetpitch lowpass-cutoff=2100 "
      "resample-frequency=4000 ! fakesink", (const gchar *[]) {
        "at most half resample-frequency", NULL});
  expect_error ("audiotestsrc num-buffers=4 ! audio/x-raw,rate=8000,"
      "channels=1,format=S16LE ! afetpitch lowpass-cutoff=4500 "
      "resample-frequency=16000 ! fakesink", cutoff);
  expect_error ("audiotestsrc num-buffers=4 ! audio/x-raw,rate=16000,"
      "channels=1,format=S16LE ! afetpitch min-f0=400 max-f0=300 ! fakesink",
      (const gchar *[]) {
        "min-f0", "max-f0", NULL});
  expect_error ("audiotestsrc num-buffers=4 ! audio/x-raw,rate=16000,"
      "channels=1,format=S16LE ! afetpitch frames-per-chunk=10 ! fakesink",
      (const gchar *[]) {
        "frames-per-chunk=0", NULL});
  expect_error ("audiotestsrc num-buffers=4 ! audio/x-raw,rate=16000,"
      "channels=1,format=S16LE ! afetpitch add-pov-feature=false "
      "add-normalized-log-pitch=false add-delta-pitch=false ! fakesink",
      (const gchar *[]) {
        "no pitch feature selected", NULL});
  expect_error ("audiotestsrc is-live=true num-buffers=4 ! audio/x-raw,"
      "rate=16000,channels=1,format=S16LE ! afetpitch ! fakesink",
      (const gchar *[]) {
        "live source", NULL});
  /* the same options with process=false: the processing is not checked */
  gchar *err = NULL;
  fail_unless (afetcheck_run_launch ("audiotestsrc num-buffers=10 ! "
          "audio/x-raw,rate=16000,channels=1,format=F32LE ! afetpitch "
          "process=false add-pov-feature=false add-normalized-log-pitch=false "
          "add-delta-pitch=false ! fakesink", &err), "%s", err);
}

GST_END_TEST;

static Suite *
afetpitch_suite (void)
{
  Suite *s = suite_create ("afetpitch");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_kaldi_raw);
  tcase_add_test (tc, test_kaldi_processed);
  tcase_add_test (tc, test_reference_random);
  tcase_add_test (tc, test_noise_and_formats);
  tcase_add_test (tc, test_bad_input);
  return s;
}

GST_CHECK_MAIN (afetpitch);
