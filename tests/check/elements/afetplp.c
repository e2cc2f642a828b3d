/* Tests of afetplp through GstHarness against the double-precision PLP
 * reference and, with preset=kaldi, against Kaldi's own compute-plp-feats.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Noise and speech, Bark shape, buffer splitting, timestamps, frames input,
 * silence, latency; preset=kaldi against Kaldi's own compute-plp-feats
 * (tests/data/kaldi-gen) and the double-precision Kaldi reference, and the
 * presets without PLP refused.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"
#include "afetref_kaldi.h"

#include <float.h>
#include <math.h>
#include <string.h>

static void
run (const gchar * launch, gint rate, const gdouble * x, gint n,
    const gint * sizes, gint n_sizes, AfetCheckResult * res)
{
  GstHarness *h = gst_harness_new_parse (launch);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, rate);
  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, rate, x,
          n, sizes, n_sizes, 0, TRUE), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  afetcheck_pull (h, res, 0, 0);
  gst_harness_teardown (h);
}

static gdouble *
int_signal (gint n, gint rate, gboolean speech_like, guint64 seed)
{
  gdouble *x = afetref_make_noise (n, speech_like ? 3000 : 12000, seed);
  if (speech_like) {
    gdouble *t = afetref_make_tone (n, rate, 220, 9000, 0.0);
    for (gint i = 0; i < n; i++)
      x[i] += t[i] * (0.6 + 0.4 * sin (2 * G_PI * 3.0 * i / rate));
    g_free (t);
  }
  for (gint i = 0; i < n; i++)
    x[i] = (gdouble) (gint) x[i];
  return x;
}

static void
compare (const gchar * launch, const AfetRefPlpConfig * rc, const gdouble * x,
    gint n)
{
  gint frames;
  gdouble *ref = afetref_compute_plp (rc, x, n, &frames);
  AfetCheckResult res = { 0 };
  run (launch, rc->rate, x, n, NULL, 0, &res);
  gint dims = afetref_plp_dims (rc);
  fail_unless_equals_int (res.n_frames, frames);
  fail_unless_equals_int (res.dims, dims);
  gdouble e = afetref_rel_l2 (res.data, ref, frames, dims, 0, rc->num_ceps);
  fail_unless (e <= 1e-5, "%s: cepstra rel L2 %.3e", launch, e);
  if (dims > rc->num_ceps) {
    e = afetref_rel_l2 (res.data, ref, frames, dims, rc->num_ceps,
        dims - rc->num_ceps);
    fail_unless (e <= 1e-5, "%s: c0/E rel L2 %.3e", launch, e);
  }
  fail_unless_equals_int (res.info.kind, AFET_FEATURES_KIND_PLP);
  afetcheck_result_clear (&res);
  g_free (ref);
}

GST_START_TEST (test_plp_vs_reference)
{
  const gint rates[] = { 8000, 16000, 44100 };
  const gint filters[] = { 15, 23, 25 };
  for (guint i = 0; i < 3; i++) {
    gint n = rates[i] * 2;
    for (gint speech = 0; speech < 2; speech++) {
      gdouble *x = int_signal (n, rates[i], speech, 20 + i);
      AfetRefPlpConfig rc;
      afetref_plp_config_init (&rc);
      rc.rate = rates[i];
      rc.frame_length_ms = 20;
      rc.num_filters = filters[i];
      rc.energy = 1;
      gchar *launch = g_strdup_printf ("afetplp frame-length=20 "
          "num-filters=%d energy=true", filters[i]);
      compare (launch, &rc, x, n);
      g_free (launch);
      g_free (x);
    }
  }
}

GST_END_TEST;

/* Real speech (the synthetic sentences) at the three rates, HTK PLP_0
 * settings, against the double reference. */
GST_START_TEST (test_speech_vs_reference)
{
  const gchar *names[] = { "s03_8k", "s03_16k", "s03_44k" };
  const gint filters[] = { 15, 23, 25 };
  for (guint i = 0; i < 3; i++) {
    gchar *file = g_strconcat (names[i], ".wav", NULL);
    gchar *wav = g_build_filename (afetcheck_testdata_dir (), "audio", file,
        NULL);
    gint rate = 0, n = 0;
    gdouble *x = afetref_read_wav (wav, &rate, &n);
    fail_unless (x != NULL, "%s", wav);
    AfetRefPlpConfig rc;
    afetref_plp_config_init (&rc);
    rc.rate = rate;
    rc.frame_length_ms = 20;
    rc.num_filters = filters[i];
    gchar *launch = g_strdup_printf ("afetplp frame-length=20 "
        "num-filters=%d", filters[i]);
    compare (launch, &rc, x, n);
    g_free (launch);
    g_free (x);
    g_free (wav);
    g_free (file);
  }
}

GST_END_TEST;

GST_START_TEST (test_bark_and_options)
{
  const gint rate = 16000, n = rate * 2;
  gdouble *x = int_signal (n, rate, TRUE, 30);
  AfetRefPlpConfig rc;
  afetref_plp_config_init (&rc);
  rc.rate = rate;
  rc.filter_shape = AFETREF_PLP_BARK;
  rc.num_filters = 21;
  compare ("afetplp filter-shape=bark num-filters=21", &rc, x, n);

  afetref_plp_config_init (&rc);
  rc.rate = rate;
  rc.lpc_order = 8;
  rc.num_ceps = 16;
  rc.lifter = 0;
  rc.c0 = 0;
  rc.compression = 0.5;
  compare ("afetplp lpc-order=8 num-ceps=16 lifter=0 c0=false "
      "compression=0.5", &rc, x, n);

  /* HCopy's WARPFREQ: the mel bank's centres and their equal-loudness
   * weights move */
  afetref_plp_config_init (&rc);
  rc.rate = rate;
  rc.warp = 0.9;
  rc.warp_low = 350;
  rc.warp_high = 5500;
  compare ("afetplp warp-factor=0.9 warp-low=350 warp-high=5500", &rc, x, n);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_split_and_frames_input)
{
  const gint rate = 16000, n = rate * 2 + 77;
  gdouble *x = int_signal (n, rate, TRUE, 31);
  gint *sizes = afetcheck_random_sizes (40, 1, 2500, 32);
  AfetCheckResult whole = { 0 }, split = { 0 }, chained = { 0 };
  run ("afetplp energy=true", rate, x, n, NULL, 0, &whole);
  run ("afetplp energy=true", rate, x, n, sizes, 40, &split);
  run ("afetframer energy=true ! afetplp energy=true", rate, x, n, sizes, 40,
      &chained);
  fail_unless_equals_int (split.n_frames, whole.n_frames);
  fail_unless_equals_int (chained.n_frames, whole.n_frames);
  fail_unless (afetref_rel_l2_ff (split.data, whole.data, whole.n_frames,
          whole.dims, 0, whole.dims) <= 1e-6);
  fail_unless (afetref_rel_l2_ff (chained.data, whole.data, whole.n_frames,
          whole.dims, 0, whole.dims) <= 1e-6);
  afetcheck_result_clear (&whole);
  afetcheck_result_clear (&split);
  afetcheck_result_clear (&chained);
  g_free (sizes);
  g_free (x);
}

GST_END_TEST;

/* Digital silence gives finite numbers (all channels floored at 1.0). */
GST_START_TEST (test_silence_finite)
{
  gdouble *x = g_new0 (gdouble, 8000);
  AfetCheckResult res = { 0 };
  run ("afetplp energy=true", 8000, x, 8000, NULL, 0, &res);
  fail_unless (res.n_frames > 0);
  for (gint i = 0; i < res.n_frames * res.dims; i++)
    fail_unless (isfinite (res.data[i]), "value %d is %f", i, res.data[i]);
  AfetRefPlpConfig rc;
  afetref_plp_config_init (&rc);
  rc.rate = 8000;
  rc.energy = 1;
  gint frames;
  gdouble *ref = afetref_compute_plp (&rc, x, 8000, &frames);
  fail_unless (afetref_rel_l2 (res.data, ref, frames, res.dims, 0, 13) <=
      1e-5);
  g_free (ref);
  afetcheck_result_clear (&res);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_latency)
{
  GstHarness *h = gst_harness_new_parse ("afetplp frame-length=20 "
      "latency-budget=0");
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  gst_harness_set_upstream_latency (h, 0);
  gdouble x[1000] = { 0 };
  afetcheck_push_samples (h, AFETCHECK_S16, 16000, x, 1000, NULL, 0, 0, TRUE);
  fail_unless_equals_uint64 (gst_harness_query_latency (h), 20 * GST_MSECOND);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* afetplp and afetmfcc share their spectral properties (GstAfetSpectral)
 * but not their defaults or ranges: each has its own, and the preset
 * property reaches the output caps. */
GST_START_TEST (test_shared_properties)
{
  GstElement *plp = gst_element_factory_make ("afetplp", NULL);
  GstElement *mfcc = gst_element_factory_make ("afetmfcc", NULL);
  gboolean plp_power, mfcc_power;
  guint order, ceps;
  gdouble compression;
  g_object_get (plp, "use-power", &plp_power, "lpc-order", &order,
      "compression", &compression, "num-ceps", &ceps, NULL);
  g_object_get (mfcc, "use-power", &mfcc_power, NULL);
  fail_unless (plp_power && !mfcc_power);
  fail_unless_equals_int (order, 12);
  fail_unless_equals_int (ceps, 12);
  fail_unless_equals_float (compression, 0.33);
  GParamSpecUInt *pc = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (plp), "num-ceps"));
  GParamSpecUInt *mc = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (mfcc), "num-ceps"));
  fail_unless_equals_int (pc->minimum, 1);
  fail_unless_equals_int (pc->maximum, 64);
  fail_unless_equals_int (mc->minimum, 0);
  fail_unless_equals_int (mc->maximum, 256);
  /* a second instance gets the defaults too, not the first one's values */
  g_object_set (plp, "use-power", FALSE, "num-filters", 30, NULL);
  GstElement *plp2 = gst_element_factory_make ("afetplp", NULL);
  guint filters;
  g_object_get (plp2, "use-power", &plp_power, "num-filters", &filters,
      NULL);
  fail_unless (plp_power);
  fail_unless_equals_int (filters, 23);
  gst_object_unref (plp2);
  gst_object_unref (mfcc);
  gst_object_unref (plp);

  const struct
  {
    const gchar *launch;
    AfetFeaturesKind kind;
  } runs[] = {
    {"afetplp preset=htk", AFET_FEATURES_KIND_PLP},
    {"afetmfcc preset=htk num-ceps=0", AFET_FEATURES_KIND_FBANK},
  };
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++) {
    gdouble x[4000] = { 0 };
    GstHarness *h = gst_harness_new_parse (runs[i].launch);
    afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
    afetcheck_push_samples (h, AFETCHECK_S16, 16000, x, 4000, NULL, 0, 0,
        TRUE);
    gst_harness_push_event (h, gst_event_new_eos ());
    AfetCheckResult res = { 0 };
    afetcheck_pull (h, &res, 0, 0);
    fail_unless_equals_int (res.info.preset, AFET_FEATURES_PRESET_HTK);
    fail_unless_equals_int (res.info.kind, runs[i].kind);
    afetcheck_result_clear (&res);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* ---- preset=kaldi: Kaldi's compute-plp-feats ---------------------------- */

/* The options of kaldi_plp_opts (tests/data/kaldi-gen/README.md) as
 * afetplp's properties (Kaldi's --num-ceps=15 counts c0) */
#define KALDI_OPTS "preset=kaldi htk-compat=true lpc-order=14 num-ceps=14 " \
  "compression=0.5 cepstral-scale=1.5 lifter=0 num-filters=19 " \
  "window=hamming energy-floor=1.0 high-freq=-200 low-freq=60 " \
  "raw-energy=false"

/* Relative L2 of columns col0 .. col0 + ncols - 1, printed. */
static gdouble
group_l2 (const AfetCheckResult * res, const gfloat * ref_f,
    const gdouble * ref_d, gint col0, gint ncols, const gchar * what)
{
  gdouble e = afetref_rel_l2_strided (res->data, NULL, res->dims, col0, ref_f,
      ref_d, res->dims, col0, res->n_frames, ncols);
  g_print ("%-44s cols %2d..%2d rel L2 %.2e\n", what, col0,
      col0 + ncols - 1, e);
  return e;
}

/* afetplp against Kaldi's own PLP (kaldi-drv, float32) on the synthetic
 * sentences: column 0 and the rest each within 1e-4 (relative L2). The
 * opts set has --raw-energy=false (the energy of the windowed frame, last
 * with --htk-compat): its cepstra and its energy are compared apart. */
GST_START_TEST (test_kaldi_reference_files)
{
  const struct
  {
    const gchar *set, *props;
    gint dims;
    gboolean few;               /* s01 only */
    gint energy_col;            /* the energy, compared apart, or -1 */
  } sets[] = {
    {"kaldi_plp", "preset=kaldi", 13, FALSE, -1},
    {"kaldi_plp_c0_nosnip", "preset=kaldi energy=false snip-edges=false",
        13, FALSE, -1},
    {"kaldi_plp_opts", KALDI_OPTS, 15, TRUE, 14},
  };
  const gchar *names[] = { "s01_16k", "s01_8k", "s02_16k", "s02_8k",
    "s03_16k", "s03_8k"
  };
  for (guint s = 0; s < G_N_ELEMENTS (sets); s++) {
    for (guint i = 0; i < (sets[s].few ? 2 : G_N_ELEMENTS (names)); i++) {
      gchar *rel = g_strdup_printf ("kaldi-gen/%s/%s.npy", sets[s].set,
          names[i]);
      gchar *wav_rel = g_strdup_printf ("audio/%s.wav", names[i]);
      gchar *ref_path = afetref_find_data (rel, NULL);
      gchar *wav = afetref_find_data (wav_rel, NULL);
      fail_unless (ref_path && wav, "missing test data %s", rel);
      gint rows = 0, cols = 0, rate = 0, n = 0;
      gfloat *ref = afetref_read_npy (ref_path, &rows, &cols);
      gdouble *x = afetref_read_wav (wav, &rate, &n);
      fail_unless (ref && x);
      fail_unless_equals_int (cols, sets[s].dims);
      gchar *launch = g_strdup_printf ("afetplp %s", sets[s].props);
      AfetCheckResult res = { 0 };
      run (launch, rate, x, n, NULL, 0, &res);
      fail_unless_equals_int (res.n_frames, rows);
      fail_unless_equals_int (res.dims, cols);
      fail_unless_equals_int (res.info.kind, AFET_FEATURES_KIND_PLP);
      gchar *what = g_strdup_printf ("%s/%s", sets[s].set, names[i]);
      gint ec = sets[s].energy_col;
      gint c0 = ec == 0 ? 1 : 0;
      gint nc = ec < 0 ? 1 : ec == 0 ? cols - 1 : ec;
      gdouble e0 = group_l2 (&res, ref, NULL, c0, ec < 0 ? 1 : nc, what);
      gdouble e1 = ec < 0 ? group_l2 (&res, ref, NULL, 1, cols - 1, what) :
          0.0;
      gdouble e2 = ec >= 0 ? group_l2 (&res, ref, NULL, ec, 1,
          "  (energy of the windowed frame)") : 0.0;
      fail_unless (e0 <= 1e-4 && e1 <= 1e-4 && e2 <= 1e-4, "%s (%s): rel L2 "
          "%.3e / %.3e / %.3e", what, launch, e0, e1, e2);
      afetcheck_result_clear (&res);
      g_free (what);
      g_free (launch);
      g_free (x);
      g_free (ref);
      g_free (wav);
      g_free (ref_path);
      g_free (wav_rel);
      g_free (rel);
    }
  }
}

GST_END_TEST;

/* preset=kaldi on noise of several lengths and rates, in random buffer
 * sizes, against afetref_kaldi_compute (AFETREF_KALDI_PLP): energy or c0
 * first, htk-compat with Kaldi's options changed; each column group
 * within 2e-5 (relative L2; measured up to 3.5e-6). */
GST_START_TEST (test_kaldi_noise_vs_reference)
{
  const gint lengths[] = { 16000, 4321, 401 };
  gint *sizes = afetcheck_random_sizes (64, 1, 997, 9);
  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++) {
    const gint rate = l == 1 ? 8000 : 16000, n = lengths[l];
    gdouble *x = afetref_make_noise (n, 12000, 40 + l);
    afetref_quantize_s16 (x, n);
    for (guint v = 0; v < 4; v++) {
      AfetRefKaldiConfig c;
      afetref_kaldi_config_init (&c, AFETREF_KALDI_PLP);
      c.rate = rate;
      const gchar *props = "afetplp preset=kaldi";
      if (v == 3) {
        /* the frames and their energy from afetframer */
        props = "afetframer preset=kaldi energy=true ! afetplp";
      } else if (v == 1) {
        props = "afetplp preset=kaldi energy=false snip-edges=false";
        c.use_energy = 0;
        c.snip_edges = 0;
      } else if (v == 2) {
        props = "afetplp preset=kaldi htk-compat=true lpc-order=14 "
            "num-ceps=14 compression=0.5 cepstral-scale=1.5 lifter=0 "
            "num-filters=19 window=hamming high-freq=-200 low-freq=60 "
            "energy=false";
        c.htk_compat = 1;
        c.lpc_order = 14;
        c.num_ceps = 15;
        c.compress_factor = 0.5;
        c.cepstral_scale = 1.5;
        c.cepstral_lifter = 0;
        c.num_bins = 19;
        c.window = AFETREF_WINDOW_HAMMING;
        c.high_freq = -200;
        c.low_freq = 60;
        c.use_energy = 0;
      }
      gint frames = 0;
      gdouble *ref = afetref_kaldi_compute (&c, x, n, &frames);
      fail_unless (ref != NULL);
      gint dims = afetref_kaldi_dims (&c);
      AfetCheckResult res = { 0 };
      run (props, rate, x, n, sizes, 64, &res);
      fail_unless_equals_int (res.n_frames, frames);
      fail_unless_equals_int (res.dims, dims);
      gchar *what = g_strdup_printf ("noise %d @ %d, %s", n, rate,
          v == 2 ? "opts" : props);
      /* column 0 (last with htk-compat) and the cepstra */
      gint first = v == 2 ? dims - 1 : 0, ceps = v == 2 ? 0 : 1;
      gdouble e0 = group_l2 (&res, NULL, ref, first, 1, what);
      gdouble e1 = group_l2 (&res, NULL, ref, ceps, dims - 1, what);
      fail_unless (e0 <= 2e-5 && e1 <= 2e-5, "%s: rel L2 %.3e / %.3e", what,
          e0, e1);
      afetcheck_result_clear (&res);
      g_free (what);
      g_free (ref);
    }
    g_free (x);
  }
  g_free (sizes);
}

GST_END_TEST;

/* compression follows the preset unless set; the caps' columns follow
 * Kaldi's order; an all-zero frame (NaN in Kaldi) gives finite numbers,
 * c0 = FLT_MIN. */
GST_START_TEST (test_kaldi_properties)
{
  GstElement *plp = gst_element_factory_make ("afetplp", NULL);
  gdouble compression, scale;
  g_object_get (plp, "compression", &compression, "cepstral-scale", &scale,
      NULL);
  fail_unless_equals_float (compression, 0.33);
  fail_unless_equals_float (scale, 1.0);
  gst_util_set_object_arg (G_OBJECT (plp), "preset", "kaldi");
  g_object_get (plp, "compression", &compression, NULL);
  fail_unless_equals_float (compression, 0.33333);
  g_object_set (plp, "compression", 0.33, NULL);
  g_object_get (plp, "compression", &compression, NULL);
  fail_unless_equals_float (compression, 0.33);
  gst_object_unref (plp);

  const struct
  {
    const gchar *launch;
    gint c0_index, energy_index;
  } t[] = {
    {"afetplp preset=kaldi", -1, 0},
    {"afetplp preset=kaldi energy=false", 0, -1},
    {"afetplp preset=kaldi htk-compat=true", -1, 12},
    {"afetplp preset=kaldi htk-compat=true energy=false", 12, -1},
  };
  gdouble *zeros = g_new0 (gdouble, 4000);
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    AfetCheckResult res = { 0 };
    run (t[i].launch, 16000, zeros, 4000, NULL, 0, &res);
    fail_unless_equals_int (res.dims, 13);
    fail_unless_equals_int (res.info.c0_index, t[i].c0_index);
    fail_unless_equals_int (res.info.energy_index, t[i].energy_index);
    fail_unless_equals_int (res.info.preset, AFET_FEATURES_PRESET_KALDI);
    fail_unless (res.n_frames > 0);
    for (gint f = 0; f < res.n_frames; f++)
      for (gint d = 0; d < res.dims; d++) {
        gfloat v = res.data[(gsize) f * res.dims + d];
        gdouble want = d == t[i].c0_index ? FLT_MIN : d == t[i].energy_index
            ? log (FLT_EPSILON) : 0.0;
        fail_unless (fabs (v - want) <= 1e-4 * fabs (want), "%s: frame %d "
            "column %d is %g, want %g", t[i].launch, f, d, v, want);
      }
    afetcheck_result_clear (&res);
  }
  g_free (zeros);
}

GST_END_TEST;

/* What afetplp cannot compute is refused at negotiation, naming why. */
GST_START_TEST (test_refusals)
{
  const struct
  {
    const gchar *chain, *needle;
  } t[] = {
    {"afetplp preset=lhotse", "preset=lhotse has no PLP"},
    {"afetplp preset=whisper", "preset=whisper has no PLP"},
    {"afetframer preset=lhotse ! afetplp preset=lhotse",
        "preset=lhotse has no PLP"},
    {"afetplp preset=kaldi num-ceps=13", "must not exceed lpc-order"},
    {"afetplp preset=kaldi filter-shape=bark", "filter-shape=htk-mel"},
    {"afetplp preset=kaldi c0=true energy=true", "either the energy or c0"},
    {"afetplp cepstral-scale=2", "preset=kaldi"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=5 ! "
        "audio/x-raw,rate=16000,channels=1 ! %s ! fakesink", t[i].chain);
    gchar *error = NULL;
    fail_if (afetcheck_run_launch (launch, &error), "%s ran", launch);
    fail_unless (error && strstr (error, t[i].needle), "%s: '%s' lacks '%s'",
        launch, error, t[i].needle);
    g_free (error);
    g_free (launch);
  }
}

GST_END_TEST;

static Suite *
afetplp_suite (void)
{
  Suite *s = suite_create ("afetplp");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_plp_vs_reference);
  tcase_add_test (tc, test_speech_vs_reference);
  tcase_add_test (tc, test_bark_and_options);
  tcase_add_test (tc, test_split_and_frames_input);
  tcase_add_test (tc, test_silence_finite);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_shared_properties);
  tcase_add_test (tc, test_kaldi_reference_files);
  tcase_add_test (tc, test_kaldi_noise_vs_reference);
  tcase_add_test (tc, test_kaldi_properties);
  tcase_add_test (tc, test_refusals);
  return s;
}

GST_CHECK_MAIN (afetplp);
