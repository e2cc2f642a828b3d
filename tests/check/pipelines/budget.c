/* Tests of the latency budget (latency-budget): live frames held within it
 * and computed together, with the same output as computing each buffer as it
 * comes.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A later buffer, a GAP, a DISCONT and EOS release what is held; the latency
 * query includes the budget; the automatic budget is 50 ms for live audio on
 * a CPU device, 20 ms on a GPU and 0 for feature input.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <string.h>

#define BUF 160                 /* 10 ms at 16 kHz */

static GstHarness *
live (const gchar * launch)
{
  GstHarness *h = gst_harness_new_parse (launch);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  return h;
}

/* Pushes 10 ms buffer k (0-based) of x, stamped at k x 10 ms. */
static void
push_buffer (GstHarness * h, const gdouble * x, gint k, gboolean discont)
{
  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, 16000,
          x + k * BUF, BUF, NULL, 0, (GstClockTime) k * 10 * GST_MSECOND,
          discont), GST_FLOW_OK);
}

/* 25 ms frames every 10 ms, budget 30 ms: frame 0 is complete with the 3rd
 * buffer (480 samples, at 30 ms) and held while the next buffer keeps its
 * wait within 30 ms (at the 3rd, 4th and 5th buffers the next would make it
 * 10, 20, 30 ms); at the 6th (60 ms) the next would make it 40: the 4
 * frames complete by then are computed. Frame 4 completes with the 7th, and
 * so on: output after buffers 6, 10, 14, ... (1-based), 4 frames each,
 * none waiting longer than 30 ms. */
GST_START_TEST (test_holds_within_budget)
{
  const gint n = 40;
  gdouble *x = afetcheck_int_noise (n * BUF, 9000, 3);
  GstHarness *h = live ("afetmfcc latency-budget=30000000");
  GstHarness *h0 = live ("afetmfcc latency-budget=0");
  gint out = 0, out0 = 0;
  for (gint k = 0; k < n; k++) {
    push_buffer (h, x, k, k == 0);
    push_buffer (h0, x, k, k == 0);
    gint b = gst_harness_buffers_in_queue (h);
    gint b0 = gst_harness_buffers_in_queue (h0);
    const gint pushed = k + 1;
    const gboolean due = pushed >= 6 && (pushed - 6) % 4 == 0;
    fail_unless_equals_int (b - out, due ? 1 : 0);
    /* budget 0: every buffer that completes a frame computes it */
    fail_unless_equals_int (b0 - out0, pushed >= 3 ? 1 : 0);
    out = b;
    out0 = b0;
  }
  fail_unless_equals_int (out, 9);
  /* upstream 10 ms + the 25 ms window + the 30 ms budget */
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      65 * GST_MSECOND);
  fail_unless_equals_uint64 (gst_harness_query_latency (h0),
      35 * GST_MSECOND);
  /* the budget changes when, not what: equal frames, equal stamps
   * (afetcheck_pull checks every buffer's PTS, duration and offset); EOS
   * releases the last 2 held */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (h0, gst_event_new_eos ()));
  AfetCheckResult a = { 0 }, b = { 0 };
  afetcheck_pull (h, &a, 0, 0);
  afetcheck_pull (h0, &b, 0, 0);
  fail_unless_equals_int (a.n_frames, 38);
  fail_unless_equals_int (b.n_frames, 38);
  fail_unless (memcmp (a.data, b.data, (gsize) a.n_frames * a.dims *
          sizeof (gfloat)) == 0);
  fail_unless_equals_int (a.n_buffers, 10);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  gst_harness_teardown (h);
  gst_harness_teardown (h0);
  g_free (x);
}

GST_END_TEST;

/* What is held goes at a GAP (before it), at EOS, and at a DISCONT as the
 * old run's last frames. */
GST_START_TEST (test_released_by_events)
{
  gdouble *x = afetcheck_int_noise (20 * BUF, 9000, 5);
  /* GAP */
  GstHarness *h = live ("afetmfcc latency-budget=30000000");
  for (gint k = 0; k < 4; k++)
    push_buffer (h, x, k, k == 0);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_gap (40 *
              GST_MSECOND, 50 * GST_MSECOND)));
  AfetCheckResult r = { 0 };
  afetcheck_pull (h, &r, 0, 0);
  fail_unless_equals_int (r.n_frames, 2);
  afetcheck_result_clear (&r);
  gst_harness_teardown (h);

  /* EOS */
  h = live ("afetmfcc latency-budget=30000000");
  for (gint k = 0; k < 4; k++)
    push_buffer (h, x, k, k == 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  afetcheck_pull (h, &r, 0, 0);
  fail_unless_equals_int (r.n_frames, 2);
  afetcheck_result_clear (&r);
  gst_harness_teardown (h);

  /* DISCONT: the held frames end the first run */
  h = live ("afetmfcc latency-budget=30000000");
  for (gint k = 0; k < 4; k++)
    push_buffer (h, x, k, k == 0);
  for (gint k = 10; k < 20; k++)
    push_buffer (h, x, k, k == 10);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  AfetCheckRuns runs = { 0 };
  afetcheck_pull_runs (h, &runs);
  fail_unless_equals_int (runs.n_runs, 2);
  fail_unless_equals_int (runs.run_frames[0], 2);
  fail_unless_equals_int (runs.run_frames[1], 8);
  afetcheck_runs_clear (&runs);
  gst_harness_teardown (h);
  g_free (x);
}

GST_END_TEST;

/* A chain with the budget on its first element: the deltas and the sliding
 * normalisation come out equal to the chain without it. */
GST_START_TEST (test_chain_equal)
{
  const gint n = 60;
  gdouble *x = afetcheck_int_noise (n * BUF, 9000, 7);
  GstHarness *h = live ("afetmfcc latency-budget=50000000 ! afetdelta ! "
      "afetcmvn scope=sliding cmn-window=30 min-window=5");
  GstHarness *h0 = live ("afetmfcc latency-budget=0 ! afetdelta "
      "latency-budget=0 ! afetcmvn latency-budget=0 scope=sliding "
      "cmn-window=30 min-window=5");
  for (gint k = 0; k < n; k++) {
    push_buffer (h, x, k, k == 0);
    push_buffer (h0, x, k, k == 0);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (h0, gst_event_new_eos ()));
  AfetCheckResult a = { 0 }, b = { 0 };
  afetcheck_pull (h, &a, 0, 0);
  afetcheck_pull (h0, &b, 0, 0);
  fail_unless_equals_int (a.n_frames, b.n_frames);
  fail_unless_equals_int (a.dims, 39);
  fail_unless (memcmp (a.data, b.data, (gsize) a.n_frames * a.dims *
          sizeof (gfloat)) == 0);
  fail_unless (a.n_buffers < b.n_buffers / 3, "%d buffers, %d without the "
      "budget", a.n_buffers, b.n_buffers);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  gst_harness_teardown (h);
  gst_harness_teardown (h0);
  g_free (x);
}

GST_END_TEST;

/* Whether afetmfcc starts on this kind of device here (device=gpu on a
 * machine without a GPU does not). */
static gboolean
have_device (const gchar * kind)
{
  GstElement *e = gst_object_ref_sink (gst_element_factory_make ("afetmfcc",
          NULL));
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  g_object_set (e, "device", kind, NULL);
  gboolean ok = gst_element_set_state (e, GST_STATE_READY) !=
      GST_STATE_CHANGE_FAILURE && gst_element_set_state (e,
      GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE;
  gst_element_set_state (e, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  return ok;
}

/* A live harness of launch, after 40 ms of silence. */
static GstHarness *
live_on (const gchar * launch)
{
  GstHarness *h = live (launch);
  gdouble x[BUF * 4];
  memset (x, 0, sizeof x);
  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, 16000, x,
          BUF * 4, NULL, 0, 0, TRUE), GST_FLOW_OK);
  return h;
}

/* -1 (the default) is 50 ms for live audio on a CPU device, 20 ms on a GPU
 * and 0 for feature input; each kind of device is checked where there is
 * one. */
GST_START_TEST (test_automatic)
{
  gint checked = 0;
  GstHarness *h;
  if (have_device ("cpu")) {
    h = live_on ("afetmfcc device=cpu");
    gint64 set = 0;
    GstElement *e = gst_harness_find_element (h, "afetmfcc");
    g_object_get (e, "latency-budget", &set, NULL);
    gst_object_unref (e);
    fail_unless_equals_int64 (set, -1);
    fail_unless_equals_uint64 (gst_harness_query_latency (h),
        (10 + 25 + 50) * GST_MSECOND);
    gst_harness_teardown (h);
    /* frames in: the framer holds, afetmfcc does not */
    h = live_on ("afetframer device=cpu ! afetmfcc device=cpu");
    fail_unless_equals_uint64 (gst_harness_query_latency (h),
        (10 + 25 + 50) * GST_MSECOND);
    gst_harness_teardown (h);
    checked++;
  } else {
    g_print ("no CPU device: its automatic budget not checked\n");
  }
  if (have_device ("gpu")) {
    h = live_on ("afetmfcc device=gpu");
    fail_unless_equals_uint64 (gst_harness_query_latency (h),
        (10 + 25 + 20) * GST_MSECOND);
    gst_harness_teardown (h);
    h = live_on ("afetframer device=gpu ! afetmfcc device=gpu");
    fail_unless_equals_uint64 (gst_harness_query_latency (h),
        (10 + 25 + 20) * GST_MSECOND);
    gst_harness_teardown (h);
    checked++;
  } else {
    g_print ("no GPU: its automatic budget not checked\n");
  }
  fail_unless (checked > 0);
}

GST_END_TEST;

static Suite *
budget_suite (void)
{
  Suite *s = suite_create ("budget");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_holds_within_budget);
  tcase_add_test (tc, test_released_by_events);
  tcase_add_test (tc, test_chain_equal);
  tcase_add_test (tc, test_automatic);
  return s;
}

GST_CHECK_MAIN (budget);
