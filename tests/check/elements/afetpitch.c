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
 * (rates, options) with errors naming the fix. Online (frames-per-chunk,
 * simulate-first-pass-online, live sources): Kaldi's --frames-per-chunk=10
 * outputs, afetref_pitch's online tracker on random signals and options,
 * frames pushed before the end, the latency query. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"
#include "afetref.h"
#include "afetref_ark.h"
#include "afetref_kaldi.h"
#include "afetref_pitch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LAG_AGREE 0.999
#define PITCH_TOL 1e-4
#define NCCF_TOL 1e-4
#define PROC_TOL 1e-4
/* The first pass outputs each frame from the traceback at the end of its
 * chunk; where two lags tie there to a float's rounding (one frame of
 * s02_8k) afetpitch, as afetref_pitch, picks the neighbour of Kaldi's
 * lag, which moves that frame's log pitch by 0.5 % and, through the
 * normalisation span, the processed features of its neighbours: 1.9e-4
 * relative L2 in that utterance's normalised log pitch, 4e-5 elsewhere
 * (tests/reference/test_reference_pitch.c allows the same) */
#define FIRST_PASS_PROC_TOL 1e-3

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
run_harness_live (const gchar * launch, gint rate, gdouble ** x,
    const gint * n, gint n_utt, guint64 seed, gboolean live,
    AfetCheckRuns * runs)
{
  GstHarness *h = gst_harness_new_parse (launch);
  /* a live source gets online pitch */
  gst_harness_set_live (h, live);
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
  /* and which of Kaldi's outputs the frames are */
  const gchar *fpc_opt = strstr (launch, "frames-per-chunk=");
  gint fpc = fpc_opt ? atoi (fpc_opt + strlen ("frames-per-chunk=")) : 0,
      got_fpc = -1;
  if (live && fpc == 0)
    fpc = 10;
  const gchar *pass = gst_structure_get_string (gst_caps_get_structure (caps,
          0), "pitch-pass");
  const gchar *want = fpc == 0 ? "offline" : live ||
      strstr (launch, "simulate-first-pass-online=true") ? "first-pass" :
      "online";
  fail_unless (pass && strcmp (pass, want) == 0, "pitch-pass %s, not %s",
      pass, want);
  fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "pitch-frames-per-chunk", &got_fpc) && got_fpc == fpc);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  g_free (sizes);
}

static void
run_harness (const gchar * launch, gint rate, gdouble ** x, const gint * n,
    gint n_utt, guint64 seed, AfetCheckRuns * runs)
{
  run_harness_live (launch, rate, x, n, n_utt, seed, FALSE, runs);
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
      "channels=1,format=S16LE ! afetpitch simulate-first-pass-online=true "
      "! fakesink", (const gchar *[]) {
        "simulate-first-pass-online needs frames-per-chunk > 0", NULL});
  expect_error ("audiotestsrc num-buffers=4 ! audio/x-raw,rate=16000,"
      "channels=1,format=S16LE ! afetpitch add-pov-feature=false "
      "add-normalized-log-pitch=false add-delta-pitch=false ! fakesink",
      (const gchar *[]) {
        "no pitch feature selected", NULL});
  /* a live source runs online (it was refused before online pitch) */
  gchar *err = NULL;
  fail_unless (afetcheck_run_launch ("audiotestsrc is-live=true "
          "num-buffers=30 samplesperbuffer=800 ! audio/x-raw,rate=16000,"
          "channels=1,format=S16LE ! afetpitch ! fakesink", &err), "%s", err);
  /* the same options with process=false: the processing is not checked */
  fail_unless (afetcheck_run_launch ("audiotestsrc num-buffers=10 ! "
          "audio/x-raw,rate=16000,channels=1,format=F32LE ! afetpitch "
          "process=false add-pov-feature=false add-normalized-log-pitch=false "
          "add-delta-pitch=false ! fakesink", &err), "%s", err);
}

GST_END_TEST;

/* ---- online ---- */

/* Kaldi's four online archives (frames-per-chunk=10; final traceback and
 * first pass; raw and processed): all eight utterances, four a harness
 * with DISCONT between them, in random buffer splits */
GST_START_TEST (test_kaldi_online)
{
  const struct
  {
    const char *ark, *launch;
    gdouble proc_tol;
  } sets[] = {
    {"raw_chunk10.ark", "afetpitch process=false frames-per-chunk=10", 0},
    {"raw_chunk10_first.ark", "afetpitch process=false frames-per-chunk=10 "
          "simulate-first-pass-online=true", 0},
    {"cap_chunk10.ark", "afetpitch delta-pitch-noise-stddev=0 "
          "frames-per-chunk=10", PROC_TOL},
    {"cap_chunk10_first.ark", "afetpitch delta-pitch-noise-stddev=0 "
          "frames-per-chunk=10 simulate-first-pass-online=true",
        FIRST_PASS_PROC_TOL},
  };
  for (guint k = 0; k < G_N_ELEMENTS (sets); k++) {
    int n_ark;
    AfetRefMatrix *ark = load_ark (sets[k].ark, &n_ark);
    LagStats st = { 0 };
    gdouble worst = 0;
    gchar *launch = g_strdup_printf ("%s device-memory=%s", sets[k].launch,
        k % 2 ? "true" : "false");
    for (gint half = 0; half < 2; half++) {
      gdouble *x[4];
      gint n[4], rate = 0;
      for (gint u = 0; u < 4; u++)
        x[u] = load_wave (keys[4 * half + u], &rate, &n[u]);
      AfetCheckRuns runs;
      run_harness (launch, rate, x, n, 4, 131 + 7 * k + half, &runs);
      fail_unless_equals_int (runs.n_runs, 4);
      for (gint u = 0; u < 4; u++) {
        const AfetRefMatrix *r = afetref_kaldi_ark_find (ark, n_ark,
            keys[4 * half + u]);
        fail_unless (r != NULL);
        fail_unless_equals_int (runs.run_frames[u], r->rows);
        fail_unless_equals_int (runs.dims, r->cols);
        const gfloat *got = runs.data + (gsize) runs.run_start[u] * r->cols;
        if (r->cols == 2) {
          compare_raw (got, r->data, r->rows, rate, &st);
        } else {
          for (gint col = 0; col < 3; col++) {
            gdouble e = afetref_rel_l2 (got, r->data, r->rows, 3, col, 1);
            worst = MAX (worst, e);
            fail_unless (e <= sets[k].proc_tol, "%s %s column %d: rel L2 %g",
                sets[k].ark, keys[4 * half + u], col, e);
          }
        }
        g_free (x[u]);
      }
      afetcheck_runs_clear (&runs);
    }
    gchar *what = g_strdup_printf ("%s (Kaldi)", sets[k].ark);
    if (st.frames)
      check_raw_stats (what, &st);
    else
      g_print ("%s: worst column's relative L2 %.3g\n", what, worst);
    g_free (what);
    g_free (launch);
    afetref_matrices_free (ark, n_ark);
  }
}

GST_END_TEST;

/* a random voice: stretches of 200 ms of random f0 (or silence) at a
 * random level, in noise */
static gdouble *
random_voice (GRand * g, gint rate, gdouble seconds, gint * n)
{
  *n = (gint) (rate * seconds);
  gdouble *x = g_new (gdouble, *n), phase = 0, f0 = 100, amp = 0;
  for (gint i = 0; i < *n; i++) {
    if (i % (rate / 5) == 0) {
      f0 = g_rand_double_range (g, 60, 380);
      amp = g_rand_int_range (g, 0, 3) == 0 ? 0 :
          g_rand_double_range (g, 100, 8000);
    }
    phase += 2 * G_PI * f0 / rate;
    x[i] = rint (amp * (sin (phase) + 0.5 * sin (2 * phase) + 0.3 *
            sin (3 * phase)) + g_rand_double_range (g, -200, 200));
  }
  return x;
}

/* Online against afetref_pitch's online tracker, on random signals and
 * Kaldi's online options: chunk sizes, the first pass, max-frames-latency,
 * nccf-ballast-online, snip-edges=false, utterances longer than
 * recompute-frame (the recomputation at frame 500, settled frames
 * dropped) and shorter ones (at the end); raw, and the first pass
 * processed as OnlineProcessPitch does */
GST_START_TEST (test_reference_online)
{
  const struct
  {
    gint rate;
    gdouble seconds;
    gint chunk;
    gboolean first;
    gint max_latency;
    gboolean ballast_online;
    gboolean snip_edges;
  } cases[] = {
    {8000, 1.7, 10, FALSE, 0, FALSE, TRUE},
    {11025, 2.2, 7, TRUE, 0, FALSE, TRUE},
    {16000, 6.5, 10, TRUE, 0, FALSE, TRUE},
    {16000, 6.5, 10, FALSE, 0, FALSE, TRUE},
    {16000, 2.5, 13, TRUE, 20, FALSE, TRUE},
    {44100, 1.1, 25, FALSE, 0, TRUE, TRUE},
    {16000, 2.0, 3, TRUE, 0, TRUE, TRUE},
    {8000, 1.9, 10, TRUE, 0, FALSE, FALSE},
    {16000, 1.3, 4, FALSE, 5, TRUE, FALSE},
    /* long enough for the settled frames to be dropped many times */
    {8000, 30.0, 10, TRUE, 0, FALSE, TRUE},
  };
  LagStats st = { 0 };
  gdouble worst = 0;
  GRand *g = g_rand_new_with_seed (11);
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    gint n, rate = cases[k].rate;
    gdouble *x = random_voice (g, rate, cases[k].seconds, &n);
    AfetRefPitchConfig c;
    afetref_pitch_config_init (&c);
    c.samp_freq = rate;
    c.frames_per_chunk = cases[k].chunk;
    c.simulate_first_pass_online = cases[k].first;
    c.max_frames_latency = cases[k].max_latency;
    c.nccf_ballast_online = cases[k].ballast_online;
    c.snip_edges = cases[k].snip_edges;
    AfetRefPitch ref;
    fail_unless (afetref_pitch_compute (&c, x, n, FALSE, &ref));
    gdouble *refraw = g_new (gdouble, (gsize) MAX (ref.n_frames, 1) * 2);
    for (gint t = 0; t < ref.n_frames; t++) {
      refraw[2 * t] = ref.nccf[t];
      refraw[2 * t + 1] = ref.pitch[t];
    }
    gchar *opts = g_strdup_printf ("frames-per-chunk=%d "
        "simulate-first-pass-online=%s max-frames-latency=%d "
        "nccf-ballast-online=%s snip-edges=%s device-memory=false",
        cases[k].chunk, cases[k].first ? "true" : "false",
        cases[k].max_latency, cases[k].ballast_online ? "true" : "false",
        cases[k].snip_edges ? "true" : "false");
    gchar *raw_launch = g_strdup_printf ("afetpitch process=false %s", opts);
    AfetCheckRuns runs;
    run_harness (raw_launch, rate, &x, &n, 1, 211 + k, &runs);
    fail_unless_equals_int (runs.n_frames, ref.n_frames);
    compare_raw (runs.data, refraw, ref.n_frames, rate, &st);
    /* processed: OnlineProcessPitch over the same tracker */
    AfetRefProcessPitchConfig pp;
    afetref_process_pitch_config_init (&pp);
    pp.delta_pitch_noise_stddev = 0;
    gint T;
    gdouble *want = afetref_compute_and_process_pitch (&c, &pp, x, n, &T);
    gchar *proc_launch = g_strdup_printf ("afetpitch "
        "delta-pitch-noise-stddev=0 %s", opts);
    AfetCheckRuns proc;
    run_harness (proc_launch, rate, &x, &n, 1, 311 + k, &proc);
    fail_unless_equals_int (proc.n_frames, T);
    for (gint col = 0; col < 3; col++) {
      gdouble e = afetref_rel_l2 (proc.data, want, T, 3, col, 1);
      worst = MAX (worst, e);
      fail_unless (e <= PROC_TOL, "case %u column %d: rel L2 %g", k, col, e);
    }
    g_free (want);
    g_free (proc_launch);
    g_free (raw_launch);
    g_free (opts);
    afetcheck_runs_clear (&runs);
    afetcheck_runs_clear (&proc);
    afetref_pitch_clear (&ref);
    g_free (refraw);
    g_free (x);
  }
  check_raw_stats ("online, random signals (afetref_pitch)", &st);
  g_print ("online, random signals: processing within %.3g relative L2 of "
      "the reference's\n", worst);
  g_rand_free (g);
}

GST_END_TEST;

/* A live source with frames-per-chunk=0: Kaldi's first pass in chunks of
 * 10 frames (raw_chunk10_first.ark, cap_chunk10_first.ark), frames pushed
 * before the end of input, and the look-ahead in the latency query */
GST_START_TEST (test_live)
{
  const gchar *key = "s01_16k";
  gint rate, n;
  gdouble *x = load_wave (key, &rate, &n);
  for (gint process = 0; process < 2; process++) {
    int n_ark;
    AfetRefMatrix *ark = load_ark (process ? "cap_chunk10_first.ark" :
        "raw_chunk10_first.ark", &n_ark);
    const AfetRefMatrix *r = afetref_kaldi_ark_find (ark, n_ark, key);
    fail_unless (r != NULL);
    GstHarness *h = gst_harness_new_parse (process ?
        "afetpitch delta-pitch-noise-stddev=0 device-memory=false" :
        "afetpitch process=false device-memory=false");
    gst_harness_set_live (h, TRUE);
    afetcheck_set_audio_caps (h, AFETCHECK_S16, rate);
    /* the look-ahead: the window and its longest lag at 4 kHz (182
     * samples, 45.5 ms), the resampler's half width (0.5 ms), a chunk
     * (100 ms), and processed, the normalisation's 75 frames */
    fail_unless_equals_uint64 (gst_harness_query_latency (h),
        (process ? 896 : 146) * GST_MSECOND);
    gint *sizes = afetcheck_random_sizes (32, 1, 3000, 401 + process);
    gint half = n / 2;
    fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, rate,
            x, half, sizes, 32, 0, TRUE), GST_FLOW_OK);
    /* frames came out before the end: all those whose look-ahead is in */
    guint early = gst_harness_buffers_received (h);
    fail_unless (early > 0, "no frame before the end of a live stream");
    fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, rate,
            x + half, n - half, sizes, 32, gst_util_uint64_scale (half,
                GST_SECOND, rate), FALSE), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    AfetCheckRuns runs;
    memset (&runs, 0, sizeof runs);
    afetcheck_pull_runs (h, &runs);
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless_equals_string (gst_structure_get_string
        (gst_caps_get_structure (caps, 0), "pitch-pass"), "first-pass");
    gst_caps_unref (caps);
    fail_unless_equals_int (runs.n_runs, 1);
    fail_unless_equals_int (runs.n_frames, r->rows);
    if (process) {
      for (gint col = 0; col < 3; col++) {
        gdouble e = afetref_rel_l2 (runs.data, r->data, r->rows, 3, col, 1);
        fail_unless (e <= PROC_TOL, "live column %d: rel L2 %g", col, e);
      }
    } else {
      LagStats st = { 0 };
      compare_raw (runs.data, r->data, r->rows, rate, &st);
      check_raw_stats ("live (raw_chunk10_first.ark)", &st);
    }
    g_print ("live, %s: %u buffers before the end of input, %d frames\n",
        process ? "processed" : "raw", early, runs.n_frames);
    afetcheck_runs_clear (&runs);
    gst_harness_teardown (h);
    g_free (sizes);
    afetref_matrices_free (ark, n_ark);
  }
  g_free (x);
}

GST_END_TEST;

/* device-memory not set: a live source gets system memory (its rows go to
 * the host a chunk at a time anyway; the afet elements' automatic choice),
 * a source that is not live device memory; set, it holds for both. */
GST_START_TEST (test_memory_choice)
{
  int rate, n;
  gdouble *x = load_wave ("s01_16k", &rate, &n);
  const struct
  {
    const gchar *launch;
    gboolean live, device;
  } cases[] = {
    {"afetpitch process=false", TRUE, FALSE},
    {"afetpitch process=false", FALSE, TRUE},
    {"afetpitch process=false device-memory=true", TRUE, TRUE},
    {"afetpitch process=false device-memory=false", FALSE, FALSE},
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *h = gst_harness_new_parse (cases[i].launch);
    gst_harness_set_live (h, cases[i].live);
    afetcheck_set_audio_caps (h, AFETCHECK_S16, rate);
    gint size = 1600;
    fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, rate,
            x, n, &size, 1, 0, TRUE), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    GstBuffer *b = gst_harness_pull (h);
    fail_unless (b != NULL, "%s: no output", cases[i].launch);
    gst_buffer_unref (b);
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    gboolean device = gst_caps_features_contains (gst_caps_get_features
        (caps, 0), "memory:AfetCLMemory");
    fail_unless (device == cases[i].device, "%s, %s: %s memory, expected %s",
        cases[i].launch, cases[i].live ? "live" : "not live",
        device ? "device" : "system", cases[i].device ? "device" : "system");
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
  g_free (x);
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
  tcase_add_test (tc, test_kaldi_online);
  tcase_add_test (tc, test_reference_online);
  tcase_add_test (tc, test_live);
  tcase_add_test (tc, test_memory_choice);
  return s;
}

GST_CHECK_MAIN (afetpitch);
