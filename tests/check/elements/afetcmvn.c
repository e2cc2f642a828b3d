/* Tests of afetcmvn: every mode and scope against double-precision
 * references, buffer splitting, DISCONT, live refusal of the utterance scope,
 * and a live chain on a test clock.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

enum
{ MODE_NONE, MODE_MEAN, MODE_MEANVAR, MODE_MINMAX };

static gdouble
norm1 (gdouble x, gint mode, const gdouble * w, gint n, gint stride)
{
  gdouble s = 0, s2 = 0, mn = INFINITY, mx = -INFINITY;
  for (gint i = 0; i < n; i++) {
    gdouble v = w[(gsize) i * stride];
    s += v;
    s2 += v * v;
    mn = MIN (mn, v);
    mx = MAX (mx, v);
  }
  gdouble mean = s / n, var = s2 / n - mean * mean;
  switch (mode) {
    case MODE_MEAN:
      return x - mean;
    case MODE_MEANVAR:
      return (x - mean) / sqrt (MAX (var, 1e-20));
    case MODE_MINMAX:
      return (x - mean) / MAX (MAX (fabs (mn - mean), fabs (mx - mean)),
          1e-20);
    default:
      return x;
  }
}

/* scope: 0 utterance, 1 sliding (cmn_window, center, minw), 2 running */
static gdouble *
reference (const gfloat * x, gint T, gint d, gint mode, gint scope,
    gint cmn_window, gboolean center, gint minw, const gint * mask)
{
  gdouble *xd = g_new (gdouble, (gsize) T * d);
  gdouble *out = g_new (gdouble, (gsize) T * d);
  for (gint i = 0; i < T * d; i++)
    xd[i] = x[i];
  for (gint t = 0; t < T; t++)
    for (gint c = 0; c < d; c++) {
      gdouble v = xd[(gsize) t * d + c];
      if (!mask[c] || mode == MODE_NONE) {
        out[(gsize) t * d + c] = v;
        continue;
      }
      gint a = 0, b = T;
      if (scope == 1) {
        if (center) {
          a = t - cmn_window / 2;
          b = a + cmn_window;
        } else {
          a = t - cmn_window;
          b = t + 1;
        }
        if (a < 0) {
          b -= a;
          a = 0;
        }
        if (!center && b > t)
          b = MAX (t + 1, minw);
        if (b > T) {
          a -= b - T;
          b = T;
          if (a < 0)
            a = 0;
        }
      } else if (scope == 2) {
        a = 0;
        b = t + 1;
      }
      out[(gsize) t * d + c] = norm1 (v, mode, xd + (gsize) a * d + c, b - a,
          d);
    }
  g_free (xd);
  return out;
}

static gfloat *
random_features (gint T, gint d, guint64 seed)
{
  gdouble *x = afetref_make_noise (T * d, 5.0, seed);
  gfloat *f = g_new (gfloat, (gsize) T * d);
  for (gint i = 0; i < T * d; i++)
    f[i] = (gfloat) (x[i] + (i % d) * 3.0 + 10.0);
  g_free (x);
  return f;
}

static void
set_caps (GstHarness * h, gint d, gint statics, gint eidx, gint order)
{
  gchar *caps = g_strdup_printf ("application/x-afet-features, "
      "format=F32LE, kind=mfcc, dims=%d, rate=16000, frame-length=400, "
      "frame-shift=160, framerate=100/1, statics=%d, energy-index=%d, "
      "delta-order=%d", d, statics, eidx, order);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

static void
check (const gchar * props, gint mode, gint scope, gint cmn_window,
    gboolean center, gint minw, gint T, gint columns, const gint * sizes,
    gint n_sizes)
{
  /* 39 columns: 13 statics (energy at 12), deltas, accelerations */
  const gint d = 39, statics = 13, eidx = 12;
  gint mask[39];
  for (gint c = 0; c < d; c++)
    mask[c] = columns == 0 || (c < statics && !(columns == 2 && c == eidx));
  gfloat *f = random_features (T, d, 60 + T + mode * 7 + scope);
  gdouble *ref = reference (f, T, d, mode, scope, cmn_window, center, minw,
      mask);
  gchar *launch = g_strdup_printf ("afetcmvn %s", props);
  GstHarness *h = gst_harness_new_parse (launch);
  if (scope == 0)
    gst_harness_set_live (h, FALSE);
  set_caps (h, d, statics, eidx, 2);
  afetcheck_push_frames (h, f, T, d, sizes, n_sizes, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  AfetCheckResult res = { 0 };
  afetcheck_pull (h, &res, 0, 0);
  fail_unless_equals_int (res.n_frames, T);
  gdouble e = afetref_rel_l2 (res.data, ref, T, d, 0, d);
  fail_unless (e <= 1e-5, "%s (T=%d): rel L2 %.3e", launch, T, e);
  if (mode != MODE_NONE)
    fail_unless (res.info.normalization != AFET_FEATURES_NORM_NONE);
  afetcheck_result_clear (&res);
  gst_harness_teardown (h);
  g_free (launch);
  g_free (ref);
  g_free (f);
}

GST_START_TEST (test_utterance)
{
  gint *sizes = afetcheck_random_sizes (30, 1, 64, 61);
  check ("", MODE_MEAN, 0, 0, FALSE, 0, 300, 0, NULL, 0);
  check ("mode=meanvar", MODE_MEANVAR, 0, 0, FALSE, 0, 300, 0, sizes, 30);
  check ("mode=minmax columns=statics", MODE_MINMAX, 0, 0, FALSE, 0, 300, 1,
      sizes, 30);
  check ("columns=htk", MODE_MEAN, 0, 0, FALSE, 0, 300, 2, sizes, 30);
  /* longer than the initial history: it grows */
  check ("columns=htk max-batch=16", MODE_MEAN, 0, 0, FALSE, 0, 500, 2,
      sizes, 30);
  g_free (sizes);
}

GST_END_TEST;

GST_START_TEST (test_sliding)
{
  gint *sizes = afetcheck_random_sizes (30, 1, 50, 62);
  check ("scope=sliding", MODE_MEAN, 1, 600, FALSE, 100, 300, 0, sizes, 30);
  check ("scope=sliding cmn-window=50 min-window=20", MODE_MEAN, 1, 50,
      FALSE, 20, 300, 0, sizes, 30);
  check ("scope=sliding cmn-window=50 min-window=20 mode=meanvar", MODE_MEANVAR,
      1, 50, FALSE, 20, 300, 0, sizes, 30);
  check ("scope=sliding cmn-window=40 center=true", MODE_MEAN, 1, 40, TRUE,
      100, 300, 0, sizes, 30);
  check ("scope=sliding cmn-window=41 center=true mode=minmax columns=htk",
      MODE_MINMAX, 1, 41, TRUE, 100, 300, 2, sizes, 30);
  /* shorter than min-window: the span is the whole stream */
  check ("scope=sliding cmn-window=50 min-window=30", MODE_MEAN, 1, 50, FALSE,
      30, 12, 0, NULL, 0);
  g_free (sizes);
}

GST_END_TEST;

GST_START_TEST (test_running)
{
  gint *sizes = afetcheck_random_sizes (30, 1, 50, 63);
  check ("scope=running", MODE_MEAN, 2, 0, FALSE, 0, 300, 0, sizes, 30);
  check ("scope=running mode=meanvar columns=statics", MODE_MEANVAR, 2, 0,
      FALSE, 0, 300, 1, sizes, 30);
  g_free (sizes);
}

GST_END_TEST;

/* Running statistics start from a stats file: with a file describing the
 * frames themselves, the first frame is already normalised by them. */
GST_START_TEST (test_running_stats_file)
{
  const gint d = 13, T = 50;
  gfloat *f = random_features (T, d, 64);
  gchar *path = g_build_filename (g_get_tmp_dir (), "afet-cmvn-stats.txt",
      NULL);
  GString *s = g_string_new ("1000000\n");
  gdouble mean[13] = { 0 };
  for (gint c = 0; c < d; c++) {
    for (gint t = 0; t < T; t++)
      mean[c] += f[t * d + c] / T;
    g_string_append_printf (s, "%.17g ", mean[c]);
  }
  g_string_append (s, "\n");
  fail_unless (g_file_set_contents (path, s->str, -1, NULL));
  g_string_free (s, TRUE);
  gchar *launch = g_strdup_printf ("afetcmvn scope=running stats-file=%s",
      path);
  GstHarness *h = gst_harness_new_parse (launch);
  set_caps (h, d, d, -1, 0);
  afetcheck_push_frames (h, f, T, d, NULL, 0, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  AfetCheckResult res = { 0 };
  afetcheck_pull (h, &res, 0, 0);
  fail_unless_equals_int (res.n_frames, T);
  /* a million prior frames dominate: x - mean of the file */
  for (gint c = 0; c < d; c++)
    fail_unless (fabs (res.data[c] - (f[c] - mean[c])) < 1e-3, "col %d: %f "
        "vs %f", c, res.data[c], f[c] - mean[c]);
  afetcheck_result_clear (&res);
  gst_harness_teardown (h);
  g_unlink (path);
  g_free (path);
  g_free (launch);
  g_free (f);
}

GST_END_TEST;

/* The utterance scope on a live source: refused with the way out. */
GST_START_TEST (test_utterance_refused_live)
{
  GstHarness *h = gst_harness_new_parse ("afetcmvn");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  set_caps (h, 13, 13, -1, 0);
  gfloat f[13] = { 0 };
  GstBuffer *b = gst_buffer_new_memdup (f, sizeof (f));
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
  afetcheck_expect_error (bus, "sliding or running");
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A DISCONT ends the utterance: its statistics are its own. */
GST_START_TEST (test_utterance_discont)
{
  const gint d = 13, T1 = 40, T2 = 25;
  gint mask[13];
  for (gint c = 0; c < d; c++)
    mask[c] = 1;
  gfloat *f = random_features (T1 + T2, d, 65);
  GstHarness *h = gst_harness_new_parse ("afetcmvn");
  gst_harness_set_live (h, FALSE);
  set_caps (h, d, d, -1, 0);
  afetcheck_push_frames (h, f, T1, d, NULL, 0, 0);
  afetcheck_push_frames (h, f + T1 * d, T2, d, NULL, 0, 5 * GST_SECOND);
  AfetCheckResult a = { 0 }, b = { 0 };
  afetcheck_pull (h, &a, 0, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  afetcheck_pull (h, &b, 5 * GST_SECOND, 0);
  fail_unless_equals_int (a.n_frames, T1);
  fail_unless_equals_int (b.n_frames, T2);
  gdouble *ra = reference (f, T1, d, MODE_MEAN, 0, 0, FALSE, 0, mask);
  gdouble *rb = reference (f + T1 * d, T2, d, MODE_MEAN, 0, 0, FALSE, 0,
      mask);
  fail_unless (afetref_rel_l2 (a.data, ra, T1, d, 0, d) <= 1e-5);
  fail_unless (afetref_rel_l2 (b.data, rb, T2, d, 0, d) <= 1e-5);
  g_free (ra);
  g_free (rb);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  gst_harness_teardown (h);
  g_free (f);
}

GST_END_TEST;

/* A live chain on a test clock: frames keep coming in order with correct
 * timestamps, none is lost, and the latency is the sum of the elements'
 * algorithmic latencies. */
GST_START_TEST (test_live_chain)
{
  GstHarness *h = gst_harness_new_parse ("afetmfcc latency-budget=0 ! "
      "afetdelta ! afetcmvn scope=sliding cmn-window=100 min-window=10");
  gst_harness_use_testclock (h);
  gst_harness_add_src_parse (h, "audiotestsrc is-live=true wave=pink-noise "
      "samplesperbuffer=160 ! capsfilter caps=\"audio/x-raw, format=S16LE, "
      "rate=16000, channels=1\"", TRUE);
  const gint buffers = 300;     /* 3 s */
  /* each push cranks the test clock once for the live source */
  for (gint i = 0; i < buffers; i++)
    fail_unless_equals_int (gst_harness_push_from_src (h), GST_FLOW_OK);
  /* the latency: 25 ms window, 4 frames of deltas, no sliding look-ahead */
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      25 * GST_MSECOND + 40 * GST_MSECOND);
  gst_harness_push_event (h, gst_event_new_eos ());
  AfetCheckResult res = { 0 };
  afetcheck_pull (h, &res, 0, 0);
  gint samples = buffers * 160;
  fail_unless_equals_int (res.n_frames, afetref_num_frames (samples, 400,
          160));
  fail_unless_equals_int (res.dims, 39);
  for (gint i = 0; i < res.n_frames * res.dims; i++)
    fail_unless (isfinite (res.data[i]));
  afetcheck_result_clear (&res);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
afetcmvn_suite (void)
{
  Suite *s = suite_create ("afetcmvn");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_utterance);
  tcase_add_test (tc, test_sliding);
  tcase_add_test (tc, test_running);
  tcase_add_test (tc, test_running_stats_file);
  tcase_add_test (tc, test_utterance_refused_live);
  tcase_add_test (tc, test_utterance_discont);
  tcase_add_test (tc, test_live_chain);
  return s;
}

GST_CHECK_MAIN (afetcmvn);
