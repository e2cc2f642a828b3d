/* Tests of afettraps against a double-precision LC-RC TRAPS written here from
 * the definition (thesis 2.3.4) over tests/reference's log mel filter bank.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <math.h>
#include <string.h>

/* TRAPS of a T x M log filter bank: per band, K left then K right
 * coefficients; edges clamp. */
static gdouble *
traps_reference (const gdouble * fb, gint T, gint M, gint L, gint K)
{
  gint H = (L + 1) / 2;
  gint dims = M * 2 * K;
  gdouble *out = g_new0 (gdouble, (gsize) T * dims);
  for (gint t = 0; t < T; t++)
    for (gint b = 0; b < M; b++)
      for (gint h = 0; h < 2; h++)
        for (gint k = 0; k < K; k++) {
          gdouble acc = 0;
          for (gint i = 0; i < H; i++) {
            gint j = h * (H - 1) + i;          /* position in the window */
            gint g = t - (H - 1) + j;
            g = g < 0 ? 0 : (g >= T ? T - 1 : g);
            gdouble ham = 0.54 - 0.46 * cos (2 * G_PI * j / (L - 1));
            gdouble s = k == 0 ? sqrt (1.0 / H) : sqrt (2.0 / H);
            acc += fb[(gsize) g * M + b] * ham * s *
                cos (G_PI * k * (2 * i + 1) / (2.0 * H));
          }
          out[(gsize) t * dims + b * 2 * K + h * K + k] = acc;
        }
  return out;
}

static gdouble *
int_noise (gint n, gdouble amp, guint64 seed)
{
  gdouble *x = afetref_make_noise (n, amp, seed);
  gdouble *tone = afetref_make_tone (n, 16000, 300, amp, 0.0);
  for (gint i = 0; i < n; i++)
    x[i] = (gdouble) (gint) (0.3 * x[i] + tone[i] * (0.5 + 0.5 *
            sin (2 * G_PI * 2.0 * i / 16000)));
  g_free (tone);
  return x;
}

static void
run (const gchar * launch, const gdouble * x, gint n, const gint * sizes,
    gint n_sizes, AfetCheckResult * res)
{
  GstHarness *h = gst_harness_new_parse (launch);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, 16000, x,
          n, sizes, n_sizes, 0, TRUE), GST_FLOW_OK);
  gst_harness_push_event (h, gst_event_new_eos ());
  afetcheck_pull (h, res, 0, 0);
  gst_harness_teardown (h);
}

static void
check_against_reference_on (const gchar * launch, gint L, gint K,
    gdouble * x, gint n);

static void
check_against_reference (const gchar * launch, gint L, gint K, gint n)
{
  check_against_reference_on (launch, L, K, int_noise (n, 9000, 50 + n), n);
}

/* takes x */
static void
check_against_reference_on (const gchar * launch, gint L, gint K,
    gdouble * x, gint n)
{
  AfetRefConfig rc;
  afetref_config_init (&rc);
  rc.rate = 16000;
  rc.num_filters = 15;
  rc.num_ceps = 0;
  rc.c0 = 0;
  gint T;
  gdouble *fb = afetref_compute (&rc, x, n, &T);
  gdouble *ref = traps_reference (fb, T, 15, L, K);
  AfetCheckResult res = { 0 };
  run (launch, x, n, NULL, 0, &res);
  fail_unless_equals_int (res.n_frames, T);
  fail_unless_equals_int (res.dims, 15 * 2 * K);
  fail_unless_equals_int (res.info.kind, AFET_FEATURES_KIND_TRAPS);
  gdouble e = afetref_rel_l2 (res.data, ref, T, res.dims, 0, res.dims);
  fail_unless (e <= 1e-5, "%s: rel L2 %.3e", launch, e);
  afetcheck_result_clear (&res);
  g_free (ref);
  g_free (fb);
  g_free (x);
}

GST_START_TEST (test_traps_vs_reference)
{
  check_against_reference ("afettraps", 31, 11, 16000 * 2);
  check_against_reference ("afettraps length=11 num-dct=4", 11, 4, 16000);
  /* shorter than the trajectory: edges clamp on both sides at once */
  check_against_reference ("afettraps", 31, 11, 400 + 160 * 9);
  /* speech */
  gchar *wav = g_build_filename (afetcheck_testdata_dir (), "audio",
      "s02_16k.wav", NULL);
  gint rate = 0, n = 0;
  gdouble *x = afetref_read_wav (wav, &rate, &n);
  fail_unless (x != NULL && rate == 16000);
  check_against_reference_on ("afettraps", 31, 11, x, n);
  g_free (wav);
}

GST_END_TEST;

/* From audio, or from afetmfcc's filter bank, in any buffer sizes: the same
 * frames. */
GST_START_TEST (test_fbank_input_and_splitting)
{
  const gint n = 16000 * 3;
  gdouble *x = int_noise (n, 9000, 51);
  gint *sizes = afetcheck_random_sizes (30, 50, 4000, 52);
  AfetCheckResult a = { 0 }, b = { 0 }, c = { 0 };
  run ("afettraps", x, n, NULL, 0, &a);
  run ("afettraps max-batch=16", x, n, sizes, 30, &b);
  run ("afetmfcc num-ceps=0 num-filters=15 energy=true ! afettraps", x, n,
      sizes, 30, &c);
  fail_unless_equals_int (b.n_frames, a.n_frames);
  fail_unless_equals_int (c.n_frames, a.n_frames);
  fail_unless (afetref_rel_l2_ff (b.data, a.data, a.n_frames, a.dims, 0,
          a.dims) <= 1e-6);
  fail_unless (afetref_rel_l2_ff (c.data, a.data, a.n_frames, a.dims, 0,
          a.dims) <= 1e-6);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  afetcheck_result_clear (&c);
  g_free (sizes);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_latency)
{
  GstHarness *h = gst_harness_new_parse ("afettraps latency-budget=0");
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  gst_harness_set_upstream_latency (h, 0);
  gdouble x[1000] = { 0 };
  afetcheck_push_samples (h, AFETCHECK_S16, 16000, x, 1000, NULL, 0, 0, TRUE);
  /* the 25 ms window, then 15 frames of 10 ms look-ahead */
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      175 * GST_MSECOND);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_refuses_even_length)
{
  GstHarness *h = gst_harness_new_parse ("afettraps length=30");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  gdouble x[1000] = { 0 };
  fail_if (afetcheck_push_samples (h, AFETCHECK_S16, 16000, x, 1000, NULL, 0,
          0, TRUE) == GST_FLOW_OK);
  afetcheck_expect_error (bus, "odd");
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
afettraps_suite (void)
{
  Suite *s = suite_create ("afettraps");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_traps_vs_reference);
  tcase_add_test (tc, test_fbank_input_and_splitting);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_refuses_even_length);
  return s;
}

GST_CHECK_MAIN (afettraps);
