/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * afetplp through GstHarness against the double-precision PLP reference:
 * noise and speech, Bark shape, buffer splitting, timestamps, frames input,
 * silence, latency.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <math.h>

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
  GstHarness *h = gst_harness_new_parse ("afetplp frame-length=20");
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
  return s;
}

GST_CHECK_MAIN (afetplp);
