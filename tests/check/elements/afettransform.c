/* Tests of afettransform against Kaldi's transform-feats.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * afettransform against Kaldi's transform-feats (tests/data/kaldi-recipe/
 * transform: global linear, affine and LDA matrices in binary, text and
 * NumPy form; per-speaker matrices through utt2spk), in system and device
 * memory, with random buffer splits and DISCONT between entries, and its
 * errors for bad matrices, archives and utt2spk files.
 */
#include "afetcheck.h"
#include "afetref_kaldi.h"
#include "afetref_transform.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define TOL 1e-5

static gchar *
data (const gchar * name)
{
  return g_build_filename (afetcheck_testdata_dir (), "kaldi-recipe", name,
      NULL);
}

static const AfetRefMatrix *
find_entry (const AfetRefMatrix * m, int n, const gchar * key)
{
  for (int i = 0; i < n; i++)
    if (strcmp (m[i].key, key) == 0)
      return &m[i];
  return NULL;
}

/* every entry of the archive the pipeline head made against Kaldi's */
static void
check_pipeline (const gchar * head, const gchar * kaldi_name)
{
  gchar *kaldi = data (kaldi_name);
  gchar *tmp = g_build_filename (g_get_tmp_dir (), "afettransform-XXXXXX.ark",
      NULL);
  gint fd = g_mkstemp (tmp);
  fail_unless (fd >= 0);
  close (fd);
  gchar *launch = g_strdup_printf ("%s ! afetenc format=kaldi ! filesink "
      "location=%s", head, tmp);
  gchar *err = NULL;
  fail_unless (afetcheck_run_launch (launch, &err), "%s: %s", launch, err);
  int n_ref = 0, n_out = 0;
  AfetRefMatrix *ref = afetref_read_kaldi_ark (kaldi, &n_ref);
  AfetRefMatrix *out = afetref_read_kaldi_ark (tmp, &n_out);
  fail_unless (ref && out);
  fail_unless_equals_int (n_out, n_ref);
  gdouble worst = 0;
  for (int i = 0; i < n_ref; i++) {
    const AfetRefMatrix *o = find_entry (out, n_out, ref[i].key);
    fail_unless (o != NULL, "%s: no entry %s", launch, ref[i].key);
    fail_unless_equals_int (o->rows, ref[i].rows);
    fail_unless_equals_int (o->cols, ref[i].cols);
    gsize n = (gsize) o->rows * o->cols;
    gfloat *cand = g_new (gfloat, n);
    for (gsize k = 0; k < n; k++)
      cand[k] = (gfloat) o->data[k];
    gdouble e = afetref_rel_l2 (cand, ref[i].data, o->rows, o->cols, 0,
        o->cols);
    g_free (cand);
    worst = MAX (worst, e);
    fail_unless (e <= TOL, "%s, %s: rel L2 %g vs Kaldi", launch, ref[i].key,
        e);
  }
  g_print ("%-100s rel L2 vs Kaldi %.3g\n", head, worst);
  afetref_matrices_free (ref, n_ref);
  afetref_matrices_free (out, n_out);
  g_unlink (tmp);
  g_free (tmp);
  g_free (launch);
  g_free (kaldi);
}

static const gchar *const global_cases[][3] = {
  {"input/mfcc.ark", "transform/linear.mat", "transform/linear-out.ark"},
  {"input/mfcc.ark", "transform/linear.txt", "transform/linear-out.ark"},
  {"input/mfcc.ark", "transform/linear.npy", "transform/linear-out.ark"},
  {"input/mfcc.ark", "transform/affine.mat", "transform/affine-out.ark"},
  {"input/mfcc.ark", "transform/affine.txt", "transform/affine-out.ark"},
  {"input/mfcc.ark", "transform/affine.npy", "transform/affine-out.ark"},
  {"transform/spliced.ark", "transform/lda.mat", "transform/lda-out.ark"},
  {"transform/spliced.ark", "transform/lda.txt", "transform/lda-out.ark"},
};

/* one matrix, every form, in device memory between afetparse and afetenc
 * (afettransform's output downloaded) and in system memory */
GST_START_TEST (test_kaldi_global)
{
  for (guint i = 0; i < G_N_ELEMENTS (global_cases); i++)
    for (int dev = 0; dev < 2; dev++) {
      gchar *in = data (global_cases[i][0]), *m = data (global_cases[i][1]);
      gchar *head = g_strdup_printf ("filesrc location=%s ! afetparse ! "
          "afettransform matrix=%s device-memory=%s", in, m,
          dev ? "true" : "false");
      check_pipeline (head, global_cases[i][2]);
      g_free (head);
      g_free (in);
      g_free (m);
    }
}

GST_END_TEST;

/* an identity 13 x 13 matrix in a temporary .npy (g_free the path) */
static gchar *
identity_npy (void)
{
  gfloat eye[13 * 13] = { 0 };
  for (int i = 0; i < 13; i++)
    eye[i * 13 + i] = 1.0f;
  gchar *path = g_build_filename (g_get_tmp_dir (),
      "afettransform-eye-XXXXXX.npy", NULL);
  gint fd = g_mkstemp (path);
  close (fd);
  fail_unless (afetref_write_npy (path, eye, 13, 13));
  return path;
}

/* per-speaker matrices (transform-feats --utt2spk): from afetparse's
 * system memory, and from device memory (an identity afettransform
 * before: its rows stay on the device, and the key tags pass it) */
GST_START_TEST (test_kaldi_speakers)
{
  gchar *in = data ("input/mfcc.ark"), *ark = data ("transform/trans.ark");
  gchar *u2s = data ("transform/utt2spk"), *eye = identity_npy ();
  for (int dev = 0; dev < 2; dev++) {
    gchar *before = dev ? g_strdup_printf ("afettransform matrix=%s "
        "device-memory=true ! ", eye) : g_strdup ("");
    gchar *head = g_strdup_printf ("filesrc location=%s ! afetparse ! %s"
        "afettransform matrices=%s utt2spk=%s", in, before, ark, u2s);
    check_pipeline (head, "transform/spk-out.ark");
    g_free (head);
    g_free (before);
  }
  g_unlink (eye);
  g_free (eye);
  g_free (in);
  g_free (ark);
  g_free (u2s);
}

GST_END_TEST;

static void
push_key (GstHarness * h, const gchar * key)
{
  GstTagList *tags = gst_tag_list_new ("afet-key", key, NULL);
  fail_unless (gst_harness_push_event (h, gst_event_new_tag (tags)));
}

/* the six entries through a harness, in random buffer splits, a key tag
 * before each; discont: each entry's first buffer is DISCONT (afetparse's
 * way), else only the key changes (the element starts the run itself) */
static void
check_harness (gboolean live, gboolean discont, guint64 seed)
{
  gchar *in = data ("input/mfcc.ark"), *ark = data ("transform/trans.ark");
  gchar *u2s = data ("transform/utt2spk");
  gchar *kaldi = data ("transform/spk-out.ark");
  int n_in = 0, n_ref = 0;
  AfetRefMatrix *x = afetref_read_kaldi_ark (in, &n_in);
  AfetRefMatrix *ref = afetref_read_kaldi_ark (kaldi, &n_ref);
  fail_unless (x && ref && n_in == 6 && n_ref == 6);
  gchar *launch = g_strdup_printf ("afettransform matrices=%s utt2spk=%s "
      "device-memory=false", ark, u2s);
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_live (h, live);
  gst_harness_set_src_caps_str (h, "application/x-afet-features, "
      "format=F32LE, kind=mfcc, dims=13, rate=16000, frame-length=400, "
      "frame-shift=160, framerate=100/1, statics=13, c0-index=0, "
      "delta-order=0");
  gint *sizes = afetcheck_random_sizes (64, 1, 97, seed);
  GstClockTime t0 = 0;
  for (int e = 0; e < n_in; e++) {
    gsize n = (gsize) x[e].rows * 13;
    gfloat *f = g_new (gfloat, n);
    for (gsize k = 0; k < n; k++)
      f[k] = (gfloat) x[e].data[k];
    push_key (h, x[e].key);
    if (discont) {
      afetcheck_push_frames (h, f, x[e].rows, 13, sizes + e, 64 - e, t0);
    } else {
      for (gint done = 0, k = e; done < x[e].rows; k++) {
        gint len = MIN (sizes[k % 64], x[e].rows - done);
        GstBuffer *b = gst_buffer_new_memdup (f + (gsize) done * 13,
            (gsize) len * 13 * sizeof (gfloat));
        GST_BUFFER_PTS (b) = t0 + gst_util_uint64_scale (done, GST_SECOND,
            100);
        if (e == 0 && done == 0)
          GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
        fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
        done += len;
      }
    }
    t0 += gst_util_uint64_scale (x[e].rows, GST_SECOND, 100);
    g_free (f);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  AfetCheckRuns runs = { 0 };
  afetcheck_pull_runs (h, &runs);
  fail_unless_equals_int (runs.n_runs, n_in);
  fail_unless_equals_int (runs.dims, 13);
  gdouble worst = 0;
  for (int e = 0; e < n_in; e++) {
    const AfetRefMatrix *r = find_entry (ref, n_ref, x[e].key);
    fail_unless_equals_int (runs.run_frames[e], r->rows);
    gdouble err = afetref_rel_l2 (runs.data + (gsize) runs.run_start[e] * 13,
        r->data, r->rows, 13, 0, 13);
    worst = MAX (worst, err);
    fail_unless (err <= TOL, "%s: rel L2 %g", x[e].key, err);
  }
  g_print ("harness live=%d discont=%d: rel L2 vs Kaldi %.3g\n", live,
      discont, worst);
  afetcheck_runs_clear (&runs);
  gst_harness_teardown (h);
  g_free (sizes);
  g_free (launch);
  afetref_matrices_free (x, n_in);
  afetref_matrices_free (ref, n_ref);
  g_free (in);
  g_free (ark);
  g_free (u2s);
  g_free (kaldi);
}

GST_START_TEST (test_splits_discont)
{
  check_harness (FALSE, TRUE, 11);
  check_harness (TRUE, TRUE, 12);
  check_harness (FALSE, FALSE, 13);
  check_harness (TRUE, FALSE, 14);
}

GST_END_TEST;

/* the caps name the matrix: its SHA-256 and the dims in and out */
GST_START_TEST (test_caps_identity)
{
  gchar *m = data ("transform/affine.mat"), *n = data ("transform/affine.npy");
  gchar *hashes[2];
  for (int i = 0; i < 2; i++) {
    gchar *launch = g_strdup_printf ("afettransform matrix=%s", i ? n : m);
    GstHarness *h = gst_harness_new_parse (launch);
    gst_harness_set_src_caps_str (h, "application/x-afet-features, "
        "format=F32LE, kind=mfcc, dims=13, rate=16000, frame-length=400, "
        "frame-shift=160, framerate=100/1, statics=13, delta-order=0");
    gfloat f[13 * 4] = { 0 };
    afetcheck_push_frames (h, f, 4, 13, NULL, 0, 0);
    gst_harness_push_event (h, gst_event_new_eos ());
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (caps != NULL);
    const gchar *t = gst_structure_get_string (gst_caps_get_structure (caps,
            0), "transform");
    fail_unless (t != NULL && g_str_has_prefix (t, "sha256:") &&
        g_str_has_suffix (t, ":13:13"), "transform field %s", t);
    hashes[i] = g_strdup (t);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
    g_free (launch);
  }
  /* the same values (binary float and NumPy float64) are the same matrix */
  fail_unless_equals_string (hashes[0], hashes[1]);
  g_free (hashes[0]);
  g_free (hashes[1]);
  g_free (m);
  g_free (n);
}

GST_END_TEST;

static gchar *
temp_file (const gchar * contents, gsize len)
{
  gchar *path = g_build_filename (g_get_tmp_dir (),
      "afettransform-bad-XXXXXX", NULL);
  gint fd = g_mkstemp (path);
  close (fd);
  fail_unless (g_file_set_contents (path, contents, (gssize) len, NULL));
  return path;
}

/* the pipeline fails with an error holding every needle */
static void
expect_error (const gchar * launch, const gchar * const *needles)
{
  gchar *err = NULL;
  fail_if (afetcheck_run_launch (launch, &err), "%s ran to EOS", launch);
  for (int i = 0; needles[i]; i++)
    fail_unless (err && strstr (err, needles[i]), "%s: error '%s' does not "
        "name '%s'", launch, err, needles[i]);
  g_print ("error: %s\n", err);
  g_free (err);
}

GST_START_TEST (test_bad_input)
{
  gchar *mfcc = data ("input/mfcc.ark"), *spliced =
      data ("transform/spliced.ark");
  gchar *linear = data ("transform/linear.mat"), *ark =
      data ("transform/trans.ark");
  gchar *u2s = data ("transform/utt2spk");
  gchar *launch;

  /* a 13 x 13 matrix for 273-value frames */
  launch = g_strdup_printf ("filesrc location=%s ! afetparse ! afettransform "
      "matrix=%s ! fakesink", spliced, linear);
  expect_error (launch, (const gchar *[]) {
        "linear.mat", "13 x 13", "273", NULL});
  g_free (launch);

  /* not a matrix */
  gchar *junk = temp_file ("hello world\n", 12);
  launch = g_strdup_printf ("filesrc location=%s ! afetparse ! afettransform "
      "matrix=%s ! fakesink", mfcc, junk);
  expect_error (launch, (const gchar *[]) {
        junk, "not a matrix", NULL});
  g_free (launch);
  g_unlink (junk);
  g_free (junk);

  /* a NumPy array of integers */
  static const char npy_i4[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<i4', "
      "'fortran_order': False, 'shape': (1, 13), }";
  GString *npy = g_string_new_len (npy_i4, sizeof npy_i4 - 1);
  while ((npy->len + 1) % 64)
    g_string_append_c (npy, ' ');
  g_string_append_c (npy, '\n');
  npy->str[8] = (char) (npy->len - 10);
  for (int i = 0; i < 13 * 4; i++)
    g_string_append_c (npy, 0);
  gchar *ints = temp_file (npy->str, npy->len);
  g_string_free (npy, TRUE);
  launch = g_strdup_printf ("filesrc location=%s ! afetparse ! afettransform "
      "matrix=%s ! fakesink", mfcc, ints);
  expect_error (launch, (const gchar *[]) {
        ints, "<i4", NULL});
  g_free (launch);
  g_unlink (ints);
  g_free (ints);

  /* an archive without the speaker utt2spk gives s03_8k */
  const gchar *spk_c = "s01_8k spkA\ns02_8k spkA\ns03_8k spkC\n"
      "s01_16k spkA\ns02_16k spkB\ns03_16k spkB\n";
  gchar *u2s_c = temp_file (spk_c, strlen (spk_c));
  launch = g_strdup_printf ("filesrc location=%s ! afetparse ! afettransform "
      "matrices=%s utt2spk=%s ! fakesink", mfcc, ark, u2s_c);
  expect_error (launch, (const gchar *[]) {
        "trans.ark", "spkC", "s03_8k", u2s_c, NULL});
  g_free (launch);
  g_unlink (u2s_c);
  g_free (u2s_c);

  /* utt2spk without s02_16k */
  const gchar *missing = "s01_8k spkA\ns02_8k spkA\ns03_8k spkB\n"
      "s01_16k spkA\ns03_16k spkB\n";
  gchar *u2s_m = temp_file (missing, strlen (missing));
  launch = g_strdup_printf ("filesrc location=%s ! afetparse ! afettransform "
      "matrices=%s utt2spk=%s ! fakesink", mfcc, ark, u2s_m);
  expect_error (launch, (const gchar *[]) {
        "s02_16k", u2s_m, "trans.ark", NULL});
  g_free (launch);
  g_unlink (u2s_m);
  g_free (u2s_m);

  /* speaker matrices without utt2spk: the utterance has none */
  launch = g_strdup_printf ("filesrc location=%s ! afetparse ! afettransform "
      "matrices=%s ! fakesink", mfcc, ark);
  expect_error (launch, (const gchar *[]) {
        "trans.ark", "s01_8k", NULL});
  g_free (launch);

  /* a malformed utt2spk line */
  gchar *u2s_bad = temp_file ("s01_8k\n", 7);
  launch = g_strdup_printf ("filesrc location=%s ! afetparse ! afettransform "
      "matrices=%s utt2spk=%s ! fakesink", mfcc, ark, u2s_bad);
  expect_error (launch, (const gchar *[]) {
        u2s_bad, "line 1", NULL});
  g_free (launch);
  g_unlink (u2s_bad);
  g_free (u2s_bad);

  /* a stream without a key */
  launch = g_strdup_printf ("audiotestsrc num-buffers=4 ! audio/x-raw,"
      "rate=16000 ! afetmfcc ! afettransform matrices=%s ! fakesink", ark);
  expect_error (launch, (const gchar *[]) {
        "trans.ark", "no key", NULL});
  g_free (launch);

  g_free (mfcc);
  g_free (spliced);
  g_free (linear);
  g_free (ark);
  g_free (u2s);
}

GST_END_TEST;

static Suite *
afettransform_suite (void)
{
  Suite *s = suite_create ("afettransform");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_kaldi_global);
  tcase_add_test (tc, test_kaldi_speakers);
  tcase_add_test (tc, test_splits_discont);
  tcase_add_test (tc, test_caps_identity);
  tcase_add_test (tc, test_bad_input);
  return s;
}

GST_CHECK_MAIN (afettransform);
