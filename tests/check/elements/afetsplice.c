/* Tests of afetsplice against Kaldi's splice-feats and the double-precision
 * reference, under splits, DISCONT, device and system memory.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * afetsplice through GstHarness: against Kaldi's splice-feats
 * (tests/data/kaldi-recipe/splice) and the double-precision splicing of
 * afetref_context for any list of offsets (gaps, asymmetric, any order),
 * under random buffer splits, DISCONT, live look-ahead and latency, device
 * and system memory (and the lanes of combined live streams), the caps'
 * splice field, and the refusals.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"
#include "afetref_context.h"

#include <string.h>

/* device memory out (set: the harness is live, which alone would choose
 * system memory); system memory out through a lane; computed alone */
static const gchar *const ways[] = {
  "device-memory=true", "device-memory=false", "device-memory=false combine-streams=false",
};

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

static const gchar *
caps_string (GstCaps * caps, const gchar * field)
{
  return gst_structure_get_string (gst_caps_get_structure (caps, 0), field);
}

/* splice-feats of input/mfcc.ark: every entry against the reference (the
 * same floats), s03_16k against Kaldi's own file. */
GST_START_TEST (test_kaldi_splice_feats)
{
  const gint lr[][2] = { {3, 3}, {1, 1}, {2, 0} };
  AfetRefArk in, kaldi;
  gchar *path = g_build_filename (afetcheck_testdata_dir (), "kaldi-recipe",
      "input", "mfcc.ark", NULL);
  fail_unless (afetref_ark_read (path, &in));
  g_free (path);
  const gint e = afetref_ark_find (&in, "s03_16k");
  fail_unless (e >= 0);
  gdouble worst = 0;
  for (guint i = 0; i < G_N_ELEMENTS (lr); i++) {
    const gint n = lr[i][0] + lr[i][1] + 1, d = in.cols[e], dims = d * n;
    gint offs[16];
    for (gint k = 0; k < n; k++)
      offs[k] = k - lr[i][0];
    path = g_strdup_printf ("%s/kaldi-recipe/splice/l%dr%d.ark",
        afetcheck_testdata_dir (), lr[i][0], lr[i][1]);
    fail_unless (afetref_ark_read (path, &kaldi), "%s", path);
    for (guint way = 0; way < G_N_ELEMENTS (ways); way++) {
      gchar *launch = g_strdup_printf ("afetsplice left-context=%d "
          "right-context=%d %s", lr[i][0], lr[i][1], ways[way]);
      AfetCheckRuns runs = { 0 };
      GstCaps *caps = NULL;
      afetcheck_run_recipe_input (launch, 90 + i * 3 + way, &runs, &caps);
      fail_unless_equals_int (runs.n_runs, in.n);
      fail_unless_equals_int (runs.dims, dims);
      GString *want = g_string_new (NULL);
      for (gint k = 0; k < n; k++)
        g_string_append_printf (want, "%s%d", k ? "," : "", offs[k]);
      fail_unless_equals_string (caps_string (caps, "splice"), want->str);
      gst_caps_unref (caps);
      g_string_free (want, TRUE);
      for (gint r = 0; r < in.n; r++) {
        const gint T = in.rows[r];
        const gfloat *got = runs.data + (gsize) runs.run_start[r] * dims;
        fail_unless_equals_int (runs.run_frames[r], T);
        gdouble *ref = afetref_splice (in.data[r], T, d, offs, n);
        gdouble diff = afetref_max_abs_strided (got, NULL, dims, 0, NULL, ref,
            dims, 0, T, dims);
        fail_unless (diff == 0.0, "%s %s: differs from the reference by %g",
            launch, in.keys[r], diff);
        if (r == e) {
          gdouble err = afetref_rel_l2_ff (got, kaldi.data[0], T, dims, 0,
              dims);
          fail_unless (err <= 1e-5, "%s: rel L2 %.3e against %s", launch, err,
              path);
          worst = MAX (worst, err);
        }
        g_free (ref);
      }
      afetcheck_runs_clear (&runs);
      g_free (launch);
    }
    afetref_ark_clear (&kaldi);
    g_free (path);
  }
  g_print ("afetsplice: rel L2 against splice-feats %.3e\n", worst);
  afetref_ark_clear (&in);
}

GST_END_TEST;

/* Lists of offsets (gaps, asymmetric, out of order, no look-back or no
 * look-ahead) on random features in random buffers, two runs with a
 * DISCONT between and short runs: the reference's values exactly, and the
 * caps' splice field. */
GST_START_TEST (test_offsets)
{
  static const struct
  {
    const gchar *prop;
    gint n;
    gint offs[8];
    const gchar *field;
  } lists[] = {
    {"-3,0,3", 3, {-3, 0, 3}, "-3,0,3"},
    {"0,-1,1", 3, {0, -1, 1}, "0,-1,1"},
    {"-6..0", 7, {-6, -5, -4, -3, -2, -1, 0}, "-6,-5,-4,-3,-2,-1,0"},
    {" 1 , 2..3", 3, {1, 2, 3}, "1,2,3"},
    {"-2..-1,1..2", 4, {-2, -1, 1, 2}, "-2,-1,1,2"},
  };
  const gint d = 13, lens[][2] = { {200, 90}, {1, 4} };
  gint *sizes = afetcheck_random_sizes (40, 1, 23, 51);
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint len = 0; len < G_N_ELEMENTS (lens); len++)
      for (guint way = 0; way < G_N_ELEMENTS (ways); way++) {
        const gint T1 = lens[len][0], T2 = lens[len][1], n = lists[l].n;
        const gint dims = d * n;
        gfloat *f = random_features (T1 + T2, d, 52 + l);
        gchar *launch = g_strdup_printf ("afetsplice offsets=\"%s\" %s",
            lists[l].prop, ways[way]);
        GstHarness *h = gst_harness_new_parse (launch);
        set_features_caps (h, d);
        afetcheck_push_frames (h, f, T1, d, sizes, 40, 0);
        afetcheck_push_frames (h, f + (gsize) T1 * d, T2, d, sizes + 5, 35,
            100 * GST_SECOND);
        gst_harness_push_event (h, gst_event_new_eos ());
        AfetCheckRuns runs = { 0 };
        afetcheck_pull_runs (h, &runs);
        GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
        fail_unless_equals_string (caps_string (caps, "splice"),
            lists[l].field);
        AfetFeaturesInfo info;
        fail_unless (afet_features_info_from_caps (&info, caps));
        fail_unless_equals_int (info.statics, dims);
        fail_unless_equals_int (info.delta_order, 0);
        fail_unless_equals_int (info.c0_index, -1);
        gst_caps_unref (caps);
        fail_unless_equals_int (runs.n_runs, 2);
        fail_unless_equals_int (runs.dims, dims);
        for (gint r = 0; r < 2; r++) {
          const gint T = r ? T2 : T1;
          fail_unless_equals_int (runs.run_frames[r], T);
          gdouble *ref = afetref_splice (f + (r ? (gsize) T1 * d : 0), T, d,
              lists[l].offs, n);
          gdouble diff = afetref_max_abs_strided (runs.data +
              (gsize) runs.run_start[r] * dims, NULL, dims, 0, NULL, ref,
              dims, 0, T, dims);
          fail_unless (diff == 0.0, "%s run %d of %d frames: differs by %g",
              launch, r, T, diff);
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

/* Live: a frame is out once its largest offset is in; the latency query
 * adds that look-ahead (none for offsets <= 0). */
GST_START_TEST (test_lookahead_and_latency)
{
  const gint d = 13;
  const struct
  {
    const gchar *launch;
    gint ahead;
  } cases[] = {
    {"afetsplice offsets=-3,0,5", 5},
    {"afetsplice", 4},
    {"afetsplice left-context=4 right-context=0", 0},
  };
  gfloat *f = random_features (20, d, 53);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *h = gst_harness_new_parse (cases[i].launch);
    set_features_caps (h, d);
    gst_harness_set_upstream_latency (h, 5 * GST_MSECOND);
    const gint ones[] = { 1 };
    afetcheck_push_frames (h, f, 12, d, ones, 1, 0);
    fail_unless_equals_int (gst_harness_buffers_in_queue (h),
        12 - cases[i].ahead);
    fail_unless_equals_uint64 (gst_harness_query_latency (h),
        5 * GST_MSECOND + cases[i].ahead * 10 * GST_MSECOND);
    gst_harness_teardown (h);
  }
  g_free (f);
}

GST_END_TEST;

/* The defaults are splice-feats': 4 and 4. */
GST_START_TEST (test_defaults)
{
  GstElement *e = gst_element_factory_make ("afetsplice", NULL);
  guint left = 0, right = 0;
  gchar *offsets = NULL;
  g_object_get (e, "left-context", &left, "right-context", &right,
      "offsets", &offsets, NULL);
  fail_unless_equals_int (left, 4);
  fail_unless_equals_int (right, 4);
  fail_unless (offsets == NULL);
  gst_object_unref (e);
}

GST_END_TEST;

static void
expect_refusal (const gchar * launch, const gchar * caps,
    const gchar * needle)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps);
  GstBuffer *b = gst_buffer_new_allocate (NULL, 26 * 4, NULL);
  gst_buffer_memset (b, 0, 0, 26 * 4);
  fail_if (gst_harness_push (h, b) == GST_FLOW_OK, "%s took it", launch);
  afetcheck_expect_error (bus, needle);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

/* Bad offsets and an input whose normalised columns a spliced frame could
 * not name: errors that say why, never a stream. */
GST_START_TEST (test_refusals)
{
  const gchar *mfcc = "application/x-afet-features, format=F32LE, "
      "kind=mfcc, dims=13, rate=16000, frame-length=400, frame-shift=160, "
      "framerate=100/1, statics=13, delta-order=0";
  expect_refusal ("afetsplice offsets=1,0,1", mfcc, "offset 1 is listed "
      "twice");
  expect_refusal ("afetsplice offsets=-1,x", mfcc, "'x' is not an integer");
  expect_refusal ("afetsplice offsets=3..1", mfcc, "runs backwards");
  expect_refusal ("afetsplice offsets=0,2000", mfcc, "beyond");
  expect_refusal ("afetsplice offsets=,", mfcc, "is not an integer");
  expect_refusal ("afetsplice", "application/x-afet-features, format=F32LE, "
      "kind=mfcc, dims=26, rate=16000, frame-length=400, frame-shift=160, "
      "framerate=100/1, statics=13, delta-order=1, normalization=mean, "
      "normalization-columns=statics", "covers only some");
}

GST_END_TEST;

/* Kaldi's deltas then splicing: device memory between the elements gives
 * the floats system memory gives, and the reference's (deltas, then
 * splice); a spliced stream spliced again states the composed offsets. */
GST_START_TEST (test_chain_device_memory)
{
  const gchar *chains[] = {
    "afetdelta preset=kaldi ! afetsplice offsets=-2..2",
    "afetdelta preset=kaldi device-memory=false ! afetsplice offsets=-2..2 "
        "device-memory=false",
  };
  AfetCheckRuns res[2] = { {0}, {0} };
  for (gint i = 0; i < 2; i++)
    afetcheck_run_recipe_input (chains[i], 60 + i, &res[i], NULL);
  fail_unless_equals_int (res[0].n_frames, res[1].n_frames);
  fail_unless_equals_int (res[0].dims, 39 * 5);
  fail_unless (memcmp (res[0].data, res[1].data, (gsize) res[0].n_frames *
          res[0].dims * 4) == 0, "device memory changed the values");
  AfetRefArk in;
  gchar *path = g_build_filename (afetcheck_testdata_dir (), "kaldi-recipe",
      "input", "mfcc.ark", NULL);
  fail_unless (afetref_ark_read (path, &in));
  g_free (path);
  const gint offs[] = { -2, -1, 0, 1, 2 };
  for (gint r = 0; r < in.n; r++) {
    const gint T = in.rows[r];
    gdouble *dl = afetref_kaldi_deltas (in.data[r], T, 13, 2, 2);
    gfloat *df = g_new (gfloat, (gsize) T * 39);
    for (gint i = 0; i < T * 39; i++)
      df[i] = (gfloat) dl[i];
    gdouble *ref = afetref_splice (df, T, 39, offs, 5);
    gdouble err = afetref_rel_l2 (res[0].data + (gsize) res[0].run_start[r] *
        res[0].dims, ref, T, res[0].dims, 0, res[0].dims);
    fail_unless (err <= 1e-5, "%s: rel L2 %.3e", in.keys[r], err);
    g_free (ref);
    g_free (df);
    g_free (dl);
  }
  afetref_ark_clear (&in);
  afetcheck_runs_clear (&res[0]);
  afetcheck_runs_clear (&res[1]);

  GstCaps *caps = NULL;
  AfetCheckRuns runs = { 0 };
  afetcheck_run_recipe_input ("afetsplice offsets=-1..1 ! afetsplice "
      "offsets=0,2", 0, &runs, &caps);
  fail_unless_equals_string (caps_string (caps, "splice"), "-1,0,1,1,2,3");
  fail_unless_equals_int (runs.dims, 13 * 6);
  gst_caps_unref (caps);
  afetcheck_runs_clear (&runs);
}

GST_END_TEST;

static Suite *
afetsplice_suite (void)
{
  Suite *s = suite_create ("afetsplice");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_kaldi_splice_feats);
  tcase_add_test (tc, test_offsets);
  tcase_add_test (tc, test_lookahead_and_latency);
  tcase_add_test (tc, test_defaults);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_chain_device_memory);
  return s;
}

GST_CHECK_MAIN (afetsplice);
