/* Tests of afetframer through GstHarness against the reference framing.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <string.h>

/* noise on 16-bit integers, as the S16 input carries it */
static gdouble *
int_noise (gint n, gdouble amp, guint64 seed)
{
  gdouble *x = afetref_make_noise (n, amp, seed);
  for (gint i = 0; i < n; i++)
    x[i] = (gdouble) (gint) x[i];
  return x;
}

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

static void
check_frames (const AfetCheckResult * res, const gdouble * x, gint n, gint W,
    gint S, AfetRefWindow win, gdouble k, gboolean energy)
{
  gint frames = afetref_num_frames (n, W, S);
  gint dims = W + (energy ? 1 : 0);
  fail_unless_equals_int (res->n_frames, frames);
  fail_unless_equals_int (res->dims, dims);
  gdouble *ref = g_new (gdouble, (gsize) frames * dims);
  for (gint t = 0; t < frames; t++) {
    gdouble e;
    afetref_frame (x + (gsize) t * S, W, k, win, ref + (gsize) t * dims, &e);
    if (energy)
      ref[(gsize) t * dims + W] = e;
  }
  gdouble err = afetref_rel_l2 (res->data, ref, frames, dims, 0, W);
  fail_unless (err <= 1e-6, "frames: rel L2 %.3e", err);
  if (energy) {
    err = afetref_rel_l2 (res->data, ref, frames, dims, W, 1);
    fail_unless (err <= 1e-6, "energy: rel L2 %.3e", err);
  }
  g_free (ref);
}

GST_START_TEST (test_frames_vs_reference)
{
  const gint rate = 16000, n = 12345;
  gdouble *x = int_noise (n, 10000, 11);
  AfetCheckResult res = { 0 };
  gint *sizes = afetcheck_random_sizes (32, 1, 2000, 12);

  run ("afetframer energy=true", rate, x, n, sizes, 32, &res);
  check_frames (&res, x, n, 400, 160, AFETREF_WINDOW_HAMMING, 0.97, TRUE);
  fail_unless_equals_int (res.info.kind, AFET_FEATURES_KIND_FRAMES);
  fail_unless_equals_int (res.info.statics, 401);
  fail_unless_equals_int (res.info.energy_index, 400);
  fail_unless_equals_int (res.info.window, AFET_FEATURES_WINDOW_HAMMING);
  afetcheck_result_clear (&res);

  run ("afetframer window=hann preemphasis=0.5 frame-length=32 "
      "frame-shift=16", rate, x, n, NULL, 0, &res);
  check_frames (&res, x, n, 512, 256, AFETREF_WINDOW_HANN, 0.5, FALSE);
  fail_unless_equals_int (res.info.energy_index, -1);
  fail_unless_equals_int (res.info.window, AFET_FEATURES_WINDOW_HANN);
  afetcheck_result_clear (&res);

  run ("afetframer window=rectangular preemphasis=0", 8000, x, n, NULL, 0,
      &res);
  check_frames (&res, x, n, 200, 80, AFETREF_WINDOW_RECTANGULAR, 0.0, FALSE);
  afetcheck_result_clear (&res);
  g_free (sizes);
  g_free (x);
}

GST_END_TEST;

/* An all-zero frame has the energy HTK gives it: -1e10. */
GST_START_TEST (test_silence_energy)
{
  gdouble x[800] = { 0 };
  AfetCheckResult res = { 0 };
  run ("afetframer energy=true", 16000, x, 800, NULL, 0, &res);
  fail_unless_equals_int (res.n_frames, 3);
  for (gint t = 0; t < 3; t++)
    fail_unless_equals_float (res.data[t * 401 + 400], -1e10f);
  afetcheck_result_clear (&res);
}

GST_END_TEST;

GST_START_TEST (test_eos_drop_and_pad)
{
  const gint n = 1000;           /* W 400, S 160: 4 frames, tail 360 */
  gdouble *x = int_noise (n, 10000, 13);
  AfetCheckResult drop = { 0 }, pad = { 0 };
  run ("afetframer", 16000, x, n, NULL, 0, &drop);
  run ("afetframer pad=true", 16000, x, n, NULL, 0, &pad);
  fail_unless_equals_int (drop.n_frames, 4);
  fail_unless_equals_int (pad.n_frames, 5);
  /* the padded frame 4 starts at 640: samples 640..999 then zeros */
  gdouble frame[400] = { 0 }, ref[400], e;
  memcpy (frame, x + 640, 360 * sizeof (gdouble));
  afetref_frame (frame, 400, 0.97, AFETREF_WINDOW_HAMMING, ref, &e);
  gdouble err = afetref_rel_l2 (pad.data + 4 * 400, ref, 1, 400, 0, 400);
  fail_unless (err <= 1e-6, "padded frame: %.3e", err);
  afetcheck_result_clear (&drop);
  afetcheck_result_clear (&pad);
  g_free (x);
}

GST_END_TEST;

/* Frames of one stream are cut after a flush from the new position. */
GST_START_TEST (test_flush_drops)
{
  GstHarness *h = gst_harness_new_parse ("afetframer latency-budget=0");
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  gdouble *x = int_noise (1000, 10000, 14);
  afetcheck_push_samples (h, AFETCHECK_S16, 16000, x, 300, NULL, 0, 0, TRUE);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  /* 300 held samples are gone: 400 new ones make exactly one frame */
  afetcheck_push_samples (h, AFETCHECK_S16, 16000, x + 300, 400, NULL, 0,
      GST_SECOND, TRUE);
  AfetCheckResult res = { 0 };
  afetcheck_pull (h, &res, GST_SECOND, 0);
  fail_unless_equals_int (res.n_frames, 1);
  gdouble ref[400], e;
  afetref_frame (x + 300, 400, 0.97, AFETREF_WINDOW_HAMMING, ref, &e);
  fail_unless (afetref_rel_l2 (res.data, ref, 1, 400, 0, 400) <= 1e-6);
  afetcheck_result_clear (&res);
  gst_harness_teardown (h);
  g_free (x);
}

GST_END_TEST;

static Suite *
afetframer_suite (void)
{
  Suite *s = suite_create ("afetframer");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_frames_vs_reference);
  tcase_add_test (tc, test_silence_energy);
  tcase_add_test (tc, test_eos_drop_and_pad);
  tcase_add_test (tc, test_flush_drops);
  return s;
}

GST_CHECK_MAIN (afetframer);
