/* Tests of afetdelta through GstHarness against a double-precision
 * restatement of HTK's regression deltas.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * (indices clamped at both ends, each order over the clamped sequence of the
 * previous one): orders 1..3, window sizes, buffer splitting, timestamps,
 * DISCONT, latency, device-memory chains.
 * And preset=kaldi against Kaldi's add-deltas
 * (tests/data/kaldi-recipe/deltas) and its double-precision restatement
 * (afetref_context).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"
#include "afetref_context.h"

#include <math.h>
#include <string.h>

static gint
clampi (gint t, gint T)
{
  return t < 0 ? 0 : (t >= T ? T - 1 : t);
}

/* one regression order over x (T x d, stride d) into y */
static void
regress (const gdouble * x, gint T, gint d, gint w, gdouble * y)
{
  gdouble norm = 0;
  for (gint k = 1; k <= w; k++)
    norm += 2.0 * k * k;
  for (gint t = 0; t < T; t++)
    for (gint c = 0; c < d; c++) {
      gdouble acc = 0;
      for (gint k = 1; k <= w; k++)
        acc += k * (x[clampi (t + k, T) * d + c] - x[clampi (t - k, T) * d +
                c]);
      y[t * d + c] = acc / norm;
    }
}

static gdouble *
reference (const gfloat * x, gint T, gint d, gint order, gint nd, gint na)
{
  gint dims = d * (order + 1);
  gdouble *seq = g_new (gdouble, (gsize) T * d * (order + 1));
  gdouble *out = g_new (gdouble, (gsize) T * dims);
  for (gint i = 0; i < T * d; i++)
    seq[i] = x[i];
  for (gint o = 1; o <= order; o++)
    regress (seq + (gsize) (o - 1) * T * d, T, d, o == 1 ? nd : na,
        seq + (gsize) o * T * d);
  for (gint t = 0; t < T; t++)
    for (gint o = 0; o <= order; o++)
      memcpy (out + (gsize) t * dims + o * d, seq + (gsize) o * T * d +
          (gsize) t * d, d * sizeof (gdouble));
  g_free (seq);
  return out;
}

static gfloat *
random_features (gint T, gint d, guint64 seed)
{
  gdouble *x = afetref_make_noise (T * d, 10.0, seed);
  gfloat *f = g_new (gfloat, (gsize) T * d);
  for (gint i = 0; i < T * d; i++)
    f[i] = (gfloat) x[i];
  g_free (x);
  return f;
}

static void
set_features_caps (GstHarness * h, gint d)
{
  gchar *caps = g_strdup_printf ("application/x-afet-features, "
      "format=F32LE, kind=mfcc, dims=%d, rate=16000, frame-length=400, "
      "frame-shift=160, framerate=100/1, statics=%d, c0-index=%d, "
      "energy-index=-1, delta-order=0", d, d, d - 1);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

static void
check (const gchar * launch, gint order, gint nd, gint na, gint T,
    const gint * sizes, gint n_sizes)
{
  const gint d = 13;
  gfloat *f = random_features (T, d, 40 + T + order);
  gdouble *ref = reference (f, T, d, order, nd, na);
  GstHarness *h = gst_harness_new_parse (launch);
  set_features_caps (h, d);
  afetcheck_push_frames (h, f, T, d, sizes, n_sizes, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  AfetCheckResult res = { 0 };
  afetcheck_pull (h, &res, 0, 0);
  fail_unless_equals_int (res.n_frames, T);
  fail_unless_equals_int (res.dims, d * (order + 1));
  fail_unless_equals_int (res.info.delta_order, order);
  fail_unless_equals_int (res.info.statics, d);
  fail_unless_equals_int (res.info.c0_index, d - 1);
  for (gint o = 0; o <= order; o++) {
    gdouble e = afetref_rel_l2 (res.data, ref, T, res.dims, o * d, d);
    fail_unless (e <= 1e-6, "%s T=%d order block %d: rel L2 %.3e", launch, T,
        o, e);
  }
  afetcheck_result_clear (&res);
  gst_harness_teardown (h);
  g_free (ref);
  g_free (f);
}

GST_START_TEST (test_orders_and_windows)
{
  check ("afetdelta order=1", 1, 2, 2, 200, NULL, 0);
  check ("afetdelta", 2, 2, 2, 200, NULL, 0);
  check ("afetdelta order=3 delta-window=3 accel-window=1", 3, 3, 1, 200,
      NULL, 0);
  check ("afetdelta delta-window=3 accel-window=3", 2, 3, 3, 200, NULL, 0);
  /* streams shorter than the windows: every index clamps */
  check ("afetdelta delta-window=3 accel-window=3", 2, 3, 3, 1, NULL, 0);
  check ("afetdelta delta-window=3 accel-window=3", 2, 3, 3, 4, NULL, 0);
}

GST_END_TEST;

/* Output identical whatever the buffer sizes, and across batches. */
GST_START_TEST (test_split_invariance)
{
  gint *sizes = afetcheck_random_sizes (50, 1, 40, 41);
  const gint ones[] = { 1 };
  check ("afetdelta delta-window=3 accel-window=3", 2, 3, 3, 700, sizes, 50);
  check ("afetdelta delta-window=3 accel-window=3", 2, 3, 3, 60, ones, 1);
  /* a small max-batch: the device history wraps many times */
  check ("afetdelta delta-window=3 accel-window=3 max-batch=8", 2, 3, 3, 300,
      sizes, 50);
  g_free (sizes);
}

GST_END_TEST;

/* A DISCONT ends the run: its last frames are computed with the end
 * clamped, and a new run starts at frame 0. */
GST_START_TEST (test_discont)
{
  const gint d = 13, T1 = 50, T2 = 30;
  gfloat *f = random_features (T1 + T2, d, 43);
  GstHarness *h = gst_harness_new_parse ("afetdelta");
  set_features_caps (h, d);
  afetcheck_push_frames (h, f, T1, d, NULL, 0, 0);
  AfetCheckResult a = { 0 }, b = { 0 };
  /* live: all but the look-ahead (2 + 2 frames) are out */
  afetcheck_pull (h, &a, 0, 0);
  fail_unless_equals_int (a.n_frames, T1 - 4);
  afetcheck_push_frames (h, f + T1 * d, T2, d, NULL, 0, 10 * GST_SECOND);
  /* the DISCONT drained the first run's last frames, in one buffer */
  GstBuffer *tail = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (tail), T1 - 4);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (tail), T1);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (tail), (T1 - 4) * 10 *
      GST_MSECOND);
  fail_unless_equals_int (gst_buffer_get_size (tail), 4 * 39 * 4);
  a.data = g_renew (gfloat, a.data, (gsize) T1 * 39);
  gst_buffer_extract (tail, 0, a.data + (gsize) (T1 - 4) * 39, 4 * 39 * 4);
  a.n_frames = T1;
  gst_buffer_unref (tail);
  gst_harness_push_event (h, gst_event_new_eos ());
  afetcheck_pull (h, &b, 10 * GST_SECOND, 0);
  fail_unless_equals_int (b.n_frames, T2);
  gdouble *ra = reference (f, T1, d, 2, 2, 2);
  gdouble *rb = reference (f + T1 * d, T2, d, 2, 2, 2);
  fail_unless (afetref_rel_l2 (a.data, ra, T1, 39, 0, 39) <= 1e-6);
  fail_unless (afetref_rel_l2 (b.data, rb, T2, 39, 0, 39) <= 1e-6);
  g_free (ra);
  g_free (rb);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  gst_harness_teardown (h);
  g_free (f);
}

GST_END_TEST;

/* Live: frames come out as soon as their look-ahead is in, and the latency
 * query adds that look-ahead. */
GST_START_TEST (test_lookahead_and_latency)
{
  const gint d = 13;
  gfloat *f = random_features (20, d, 44);
  GstHarness *h = gst_harness_new_parse ("afetdelta delta-window=3 "
      "accel-window=3");
  set_features_caps (h, d);
  gst_harness_set_upstream_latency (h, 5 * GST_MSECOND);
  const gint ones[] = { 1 };
  afetcheck_push_frames (h, f, 10, d, ones, 1, 0);
  /* look-ahead 6: of 10 frames, 4 are out */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 4);
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      5 * GST_MSECOND + 60 * GST_MSECOND);
  gst_harness_teardown (h);
  g_free (f);
}

GST_END_TEST;

GST_START_TEST (test_refuses_deltas_twice)
{
  GstHarness *h = gst_harness_new_parse ("afetdelta");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "application/x-afet-features, "
      "format=F32LE, kind=mfcc, dims=26, rate=16000, frame-length=400, "
      "frame-shift=160, framerate=100/1, statics=13, delta-order=1");
  GstBuffer *b = gst_buffer_new_allocate (NULL, 26 * 4, NULL);
  gst_buffer_memset (b, 0, 0, 26 * 4);
  fail_if (gst_harness_push (h, b) == GST_FLOW_OK);
  afetcheck_expect_error (bus, "already has dynamic");
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* In a device-memory chain: same numbers as with system memory, and each
 * buffer crosses to the host once at the end. */
GST_START_TEST (test_chain_device_memory)
{
  const gint rate = 16000, n = rate * 3;
  gdouble *x = afetref_make_noise (n, 8000, 45);
  for (gint i = 0; i < n; i++)
    x[i] = (gdouble) (gint) x[i];
  AfetCheckResult a = { 0 }, b = { 0 };
  gint *sizes = afetcheck_random_sizes (20, 100, 3000, 46);
  const gchar *chains[] = {
    /* set: the harness answers that it is live, which alone would choose
     * system memory */
    "afetmfcc energy=true device-memory=true ! afetdelta",
    "afetmfcc energy=true device-memory=false ! afetdelta",
  };
  AfetCheckResult *res[] = { &a, &b };
  for (gint i = 0; i < 2; i++) {
    GstHarness *h = gst_harness_new_parse (chains[i]);
    afetcheck_set_audio_caps (h, AFETCHECK_S16, rate);
    afetcheck_push_samples (h, AFETCHECK_S16, rate, x, n, sizes, 20, 0, TRUE);
    gst_harness_push_event (h, gst_event_new_eos ());
    afetcheck_pull (h, res[i], 0, 0);
    gst_harness_teardown (h);
  }
  fail_unless_equals_int (a.n_frames, afetref_num_frames (n, 400, 160));
  fail_unless_equals_int (a.n_frames, b.n_frames);
  fail_unless (memcmp (a.data, b.data, (gsize) a.n_frames * a.dims * 4) == 0);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  g_free (sizes);
  g_free (x);
}

GST_END_TEST;

/* The three ways frames go through a context element in a live harness:
 * device memory out (set: not set, live input chooses system memory);
 * system memory out through a lane of the process' combined launches;
 * system memory out, computed alone. */
static const gchar *const kaldi_ways[] = {
  "device-memory=true", "device-memory=false", "device-memory=false combine-streams=false",
};

static gchar *
recipe_file (const gchar * rel)
{
  return g_build_filename (afetcheck_testdata_dir (), "kaldi-recipe", rel,
      NULL);
}

/* add-deltas of input/mfcc.ark: every entry against the reference, s03_8k
 * against Kaldi's own file; the file in random pieces, each entry a run. */
GST_START_TEST (test_kaldi_add_deltas)
{
  AfetRefArk in, kaldi;
  gchar *path = recipe_file ("input/mfcc.ark");
  fail_unless (afetref_ark_read (path, &in));
  g_free (path);
  const gint e = afetref_ark_find (&in, "s03_8k");
  fail_unless (e >= 0);
  gdouble worst_kaldi = 0, worst_ref = 0;
  for (gint order = 1; order <= 3; order++)
    for (gint w = 2; w <= 3; w++) {
      gchar *rel = g_strdup_printf ("deltas/o%d_w%d.ark", order, w);
      path = recipe_file (rel);
      fail_unless (afetref_ark_read (path, &kaldi), "%s", path);
      g_free (path);
      const gint d = in.cols[e], dims = d * (order + 1);
      for (guint way = 0; way < G_N_ELEMENTS (kaldi_ways); way++) {
        gchar *launch = g_strdup_printf ("afetdelta preset=kaldi order=%d "
            "delta-window=%d %s", order, w, kaldi_ways[way]);
        AfetCheckRuns runs = { 0 };
        GstCaps *caps = NULL;
        afetcheck_run_recipe_input (launch, 70 + order * 10 + w + way, &runs,
            &caps);
        fail_unless_equals_int (runs.n_runs, in.n);
        fail_unless_equals_int (runs.dims, dims);
        fail_unless_equals_string (gst_structure_get_string
            (gst_caps_get_structure (caps, 0), "deltas"), "kaldi");
        /* one window for every order: "w", "w,w", "w,w,w" */
        GString *windows = g_string_new (NULL);
        for (gint o = 1; o <= order; o++)
          g_string_append_printf (windows, "%s%d", o > 1 ? "," : "", w);
        fail_unless_equals_string (gst_structure_get_string
            (gst_caps_get_structure (caps, 0), "delta-windows"), windows->str);
        g_string_free (windows, TRUE);
        gst_caps_unref (caps);
        for (gint r = 0; r < in.n; r++) {
          const gint T = in.rows[r];
          const gfloat *got = runs.data + (gsize) runs.run_start[r] * dims;
          fail_unless_equals_int (runs.run_frames[r], T);
          gdouble *ref = afetref_kaldi_deltas (in.data[r], T, d, order, w);
          for (gint o = 0; o <= order; o++) {
            gdouble err = afetref_rel_l2 (got, ref, T, dims, o * d, d);
            fail_unless (err <= 1e-5, "%s %s block %d: rel L2 %.3e against "
                "the reference", launch, in.keys[r], o, err);
            worst_ref = MAX (worst_ref, err);
            if (r == e) {
              err = afetref_rel_l2_ff (got, kaldi.data[0], T, dims, o * d, d);
              fail_unless (err <= 1e-5, "%s %s block %d: rel L2 %.3e "
                  "against Kaldi's %s", launch, in.keys[r], o, err, rel);
              worst_kaldi = MAX (worst_kaldi, err);
            }
          }
          g_free (ref);
        }
        afetcheck_runs_clear (&runs);
        g_free (launch);
      }
      afetref_ark_clear (&kaldi);
      g_free (rel);
    }
  g_print ("afetdelta preset=kaldi: rel L2 against add-deltas %.3e, against "
      "the reference %.3e (worst block)\n", worst_kaldi, worst_ref);
  afetref_ark_clear (&in);
}

GST_END_TEST;

/* Random features in random buffers, two runs (a DISCONT between), and
 * runs shorter than the filters: the reference's values. */
GST_START_TEST (test_kaldi_splits_and_discont)
{
  const gint d = 13, lens[][2] = { {300, 120}, {1, 5}, {3, 7} };
  gint *sizes = afetcheck_random_sizes (40, 1, 37, 47);
  for (guint l = 0; l < G_N_ELEMENTS (lens); l++)
    for (guint way = 0; way < G_N_ELEMENTS (kaldi_ways); way++) {
      const gint T1 = lens[l][0], T2 = lens[l][1], order = 3, w = 2;
      const gint dims = d * (order + 1);
      gfloat *f = random_features (T1 + T2, d, 48 + l);
      gchar *launch = g_strdup_printf ("afetdelta preset=kaldi order=3 %s",
          kaldi_ways[way]);
      GstHarness *h = gst_harness_new_parse (launch);
      set_features_caps (h, d);
      afetcheck_push_frames (h, f, T1, d, sizes, 40, 0);
      afetcheck_push_frames (h, f + (gsize) T1 * d, T2, d, sizes + 3, 37,
          100 * GST_SECOND);
      gst_harness_push_event (h, gst_event_new_eos ());
      AfetCheckRuns runs = { 0 };
      afetcheck_pull_runs (h, &runs);
      fail_unless_equals_int (runs.n_runs, 2);
      for (gint r = 0; r < 2; r++) {
        const gint T = r ? T2 : T1;
        fail_unless_equals_int (runs.run_frames[r], T);
        gdouble *ref = afetref_kaldi_deltas (f + (r ? (gsize) T1 * d : 0), T,
            d, order, w);
        gdouble err = afetref_rel_l2 (runs.data + (gsize) runs.run_start[r] *
            dims, ref, T, dims, 0, dims);
        fail_unless (err <= 1e-5, "%s run %d of %d frames: rel L2 %.3e",
            launch, r, T, err);
        g_free (ref);
      }
      afetcheck_runs_clear (&runs);
      gst_harness_teardown (h);
      g_free (launch);
      g_free (f);
    }
  g_free (sizes);
}

GST_END_TEST;

/* The delta-windows caps field: each order's window, so that a model
 * trained with other windows refuses the stream. */
GST_START_TEST (test_windows_in_caps)
{
  const struct
  {
    const gchar *props;
    const gchar *windows;
  } cases[] = {
    {"", "2,2"},
    {"order=3 delta-window=3 accel-window=1", "3,1,1"},
    {"order=1 delta-window=4", "4"},
    {"preset=kaldi order=3 delta-window=3 accel-window=1", "3,3,3"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *launch = g_strdup_printf ("afetdelta %s", cases[i].props);
    GstHarness *h = gst_harness_new_parse (launch);
    set_features_caps (h, 13);
    gfloat *f = random_features (20, 13, 50 + i);
    afetcheck_push_frames (h, f, 20, 13, NULL, 0, 0);
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless_equals_string (gst_structure_get_string
        (gst_caps_get_structure (caps, 0), "delta-windows"),
        cases[i].windows);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
    g_free (f);
    g_free (launch);
  }
  /* a consumer of window-2 deltas refuses window-3 ones */
  gchar *err = NULL;
  fail_if (afetcheck_run_launch ("audiotestsrc num-buffers=20 ! "
          "audio/x-raw,rate=16000 ! afetmfcc ! afetdelta delta-window=3 "
          "accel-window=3 ! capsfilter caps=\"application/x-afet-features, "
          "delta-windows=(string)\\\"2,2\\\"\" ! fakesink", &err));
  fail_unless (err != NULL);
  g_free (err);
  fail_unless (afetcheck_run_launch ("audiotestsrc num-buffers=20 ! "
          "audio/x-raw,rate=16000 ! afetmfcc ! afetdelta ! capsfilter "
          "caps=\"application/x-afet-features, delta-windows=(string)\\\"2,2\\\"\" "
          "! fakesink", &err), "%s", err);
}

GST_END_TEST;

/* Kaldi's and HTK's deltas agree but within order x N frames of the ends,
 * where the accelerations differ. */
GST_START_TEST (test_kaldi_differs_from_htk_at_ends)
{
  const gint d = 13, T = 100, w = 2, dims = 39;
  gfloat *f = random_features (T, d, 49);
  AfetCheckResult res[2] = { {0}, {0} };
  const gchar *launch[] = { "afetdelta preset=kaldi", "afetdelta" };
  for (gint i = 0; i < 2; i++) {
    GstHarness *h = gst_harness_new_parse (launch[i]);
    set_features_caps (h, d);
    afetcheck_push_frames (h, f, T, d, NULL, 0, 0);
    gst_harness_push_event (h, gst_event_new_eos ());
    afetcheck_pull (h, &res[i], 0, 0);
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless_equals_string (gst_structure_get_string
        (gst_caps_get_structure (caps, 0), "deltas"), i ? "htk" : "kaldi");
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
  /* interior: the same; deltas: the same everywhere */
  gdouble inner = afetcheck_max_rel_diff (res[0].data + 2 * w * dims,
      res[1].data + 2 * w * dims, (gsize) (T - 4 * w) * dims);
  fail_unless (inner <= 1e-5, "interior differs: %.3e", inner);
  gdouble edge = 0;
  for (gint c = 2 * d; c < 3 * d; c++)
    edge = MAX (edge, fabs (res[0].data[c] - res[1].data[c]));
  fail_unless (edge > 1e-3, "the accelerations of frame 0 should differ");
  afetcheck_result_clear (&res[0]);
  afetcheck_result_clear (&res[1]);
  g_free (f);
}

GST_END_TEST;

/* Live: the look-ahead is order x delta-window frames, in the latency. */
GST_START_TEST (test_kaldi_lookahead_and_latency)
{
  const gint d = 13;
  gfloat *f = random_features (20, d, 50);
  GstHarness *h = gst_harness_new_parse ("afetdelta preset=kaldi order=3 "
      "delta-window=3 accel-window=1");
  set_features_caps (h, d);
  gst_harness_set_upstream_latency (h, 5 * GST_MSECOND);
  const gint ones[] = { 1 };
  afetcheck_push_frames (h, f, 12, d, ones, 1, 0);
  /* look-ahead 9 (accel-window is not used): of 12 frames, 3 are out */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 3);
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      5 * GST_MSECOND + 90 * GST_MSECOND);
  gst_harness_teardown (h);
  g_free (f);
}

GST_END_TEST;

static Suite *
afetdelta_suite (void)
{
  Suite *s = suite_create ("afetdelta");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_orders_and_windows);
  tcase_add_test (tc, test_split_invariance);
  tcase_add_test (tc, test_discont);
  tcase_add_test (tc, test_lookahead_and_latency);
  tcase_add_test (tc, test_refuses_deltas_twice);
  tcase_add_test (tc, test_chain_device_memory);
  tcase_add_test (tc, test_kaldi_add_deltas);
  tcase_add_test (tc, test_kaldi_splits_and_discont);
  tcase_add_test (tc, test_kaldi_differs_from_htk_at_ends);
  tcase_add_test (tc, test_windows_in_caps);
  tcase_add_test (tc, test_kaldi_lookahead_and_latency);
  return s;
}

GST_CHECK_MAIN (afetdelta);
