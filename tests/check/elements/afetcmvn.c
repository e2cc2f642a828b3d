/* Tests of afetcmvn: every mode and scope against double-precision
 * references, buffer splitting, DISCONT, live refusal of the utterance scope,
 * and a live chain on a test clock; Kaldi's CMVN statistics (scope=archive,
 * write-stats) against apply-cmvn and compute-cmvn-stats themselves
 * (tests/data/kaldi-recipe/cmvn) and the double-precision afetref_cmvn.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"
#include "afetref_cmvn.h"

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

/* ---- Kaldi's CMVN statistics (scope=archive, write-stats) ---------- */

static gchar *
recipe (const gchar * rel)
{
  return g_build_filename (afetcheck_testdata_dir (), "kaldi-recipe", rel,
      NULL);
}

static AfetRefMatrix *
load_recipe (const gchar * rel, gint * n)
{
  gchar *p = recipe (rel);
  AfetRefMatrix *m = afetref_read_kaldi_ark (p, n);
  fail_unless (m != NULL, "cannot read %s", p);
  g_free (p);
  return m;
}

static void
push_key (GstHarness * h, const gchar * key)
{
  fail_unless (gst_harness_push_event (h, gst_event_new_tag
          (gst_tag_list_new ("afet-key", key, NULL))));
}

/* Each entry as afetparse sends it: a tag with its key, then its frames
 * (the first buffer DISCONT), timestamps going on. */
static void
push_entries (GstHarness * h, const AfetRefMatrix * feats, gint nf,
    const gchar * const *keys, gint nkeys, const gint * sizes, gint n_sizes)
{
  GstClockTime t0 = 0;
  for (gint k = 0; k < nkeys; k++) {
    const AfetRefMatrix *m = afetref_kaldi_ark_find (feats, nf, keys[k]);
    fail_unless (m != NULL, "no %s in mfcc.ark", keys[k]);
    gfloat *f = g_new (gfloat, (gsize) m->rows * m->cols);
    for (gint i = 0; i < m->rows * m->cols; i++)
      f[i] = (gfloat) m->data[i];
    push_key (h, keys[k]);
    afetcheck_push_frames (h, f, m->rows, m->cols, sizes, n_sizes, t0);
    t0 += (GstClockTime) m->rows * 10 * GST_MSECOND;
    g_free (f);
  }
}

/* rel L2 of float output against double values */
static gdouble
rel_l2_fd (const gfloat * a, const gdouble * b, gsize n)
{
  gdouble e = 0, r = 0;
  for (gsize i = 0; i < n; i++) {
    e += (a[i] - b[i]) * (a[i] - b[i]);
    r += b[i] * b[i];
  }
  return sqrt (e / r);
}

/* afetcmvn scope=archive (after head, e.g. a pass-through afetcmvn for
 * device memory between elements) on the entries of Kaldi's apply-cmvn
 * output ref_file, live or not, in random buffers: each run against
 * Kaldi's own output and against afetref_cmvn's apply of the same
 * statistics. */
static void
check_archive (const gchar * head, const gchar * props, const gchar * ref_file,
    const gchar * stats_file, gboolean per_speaker, gboolean norm_vars,
    gboolean live, guint64 seed)
{
  gint nf = 0, nr = 0, ns = 0;
  AfetRefMatrix *feats = load_recipe ("input/mfcc.ark", &nf);
  AfetRefMatrix *ref = load_recipe (ref_file, &nr);
  AfetRefMatrix *stats = load_recipe (stats_file, &ns);
  gchar *arch = recipe (stats_file), *u2s = recipe ("cmvn/utt2spk");
  gchar *launch = g_strdup_printf ("%s afetcmvn scope=archive "
      "stats-archive=%s %s%s %s %s", head, arch, per_speaker ? "utt2spk=" : "",
      per_speaker ? u2s : "", norm_vars ? "mode=meanvar" : "", props);
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_live (h, live);
  set_caps (h, 13, 13, -1, 0);
  const gchar *keys[3];
  for (gint i = 0; i < nr; i++)
    keys[i] = ref[i].key;
  gint *sizes = afetcheck_random_sizes (40, 1, 97, seed);
  push_entries (h, feats, nf, keys, nr, sizes, 40);
  gst_harness_push_event (h, gst_event_new_eos ());
  AfetCheckRuns runs = { 0 };
  afetcheck_pull_runs (h, &runs);
  fail_unless_equals_int (runs.n_runs, nr);
  gdouble worst = 0, worst_ref = 0;
  for (gint r = 0; r < nr; r++) {
    const AfetRefMatrix *x = afetref_kaldi_ark_find (feats, nf, keys[r]);
    fail_unless_equals_int (runs.run_frames[r], ref[r].rows);
    const gfloat *y = runs.data + (gsize) runs.run_start[r] * 13;
    gsize n = (gsize) ref[r].rows * 13;
    gdouble e = rel_l2_fd (y, ref[r].data, n);
    fail_unless (e <= 1e-5, "%s: %s against apply-cmvn: rel L2 %.3e", launch,
        keys[r], e);
    worst = MAX (worst, e);
    /* the double-precision reference with the archive's statistics */
    const AfetRefMatrix *st = afetref_kaldi_ark_find (stats, ns,
        per_speaker ? (g_str_has_suffix (keys[r], "_8k") ? "spk8k" : "spk16k")
        : keys[r]);
    gdouble *z = g_new (gdouble, n);
    fail_unless (afetref_cmvn_apply (st->data, 13, norm_vars, x->data,
            x->rows, z));
    e = rel_l2_fd (y, z, n);
    fail_unless (e <= 1e-5, "%s: %s against afetref: rel L2 %.3e", launch,
        keys[r], e);
    worst_ref = MAX (worst_ref, e);
    g_free (z);
  }
  GST_INFO ("%s (%s): rel L2 %.3e against apply-cmvn, %.3e against afetref",
      launch, live ? "live" : "offline", worst, worst_ref);
  g_print ("%-20s %-6s %-8s %s: rel L2 %.3e vs Kaldi, %.3e vs afetref\n",
      ref_file + 5, per_speaker ? "spk" : "utt", live ? "live" : "offline",
      *head ? "device memory" : (strstr (props, "device-memory=false") ?
          "system memory" : ""), worst, worst_ref);
  afetcheck_runs_clear (&runs);
  gst_harness_teardown (h);
  g_free (sizes);
  g_free (launch);
  g_free (arch);
  g_free (u2s);
  afetref_matrices_free (feats, nf);
  afetref_matrices_free (ref, nr);
  afetref_matrices_free (stats, ns);
}

/* apply-cmvn [--norm-vars] [--utt2spk]: every entry under its own
 * statistics (a DISCONT between entries switches them), live and offline
 * (offline, an entry's frames are computed after the next entry's key has
 * come), device memory from an element before it and system memory. */
GST_START_TEST (test_archive_against_kaldi)
{
  /* device-memory set: live, not set, it would be system memory */
  const gchar *pass = "afetcmvn scope=running mode=none device-memory=true "
      "! ";
  const gchar *pass_sys = "afetcmvn scope=running mode=none "
      "device-memory=false ! ";
  check_archive ("", "", "cmvn/apply_utt.ark", "cmvn/cmvn_utt.ark", FALSE,
      FALSE, FALSE, 81);
  check_archive ("", "", "cmvn/apply_utt_vars.ark", "cmvn/cmvn_utt.ark",
      FALSE, TRUE, TRUE, 82);
  check_archive ("", "", "cmvn/apply_spk.ark", "cmvn/cmvn_spk.ark", TRUE,
      FALSE, TRUE, 83);
  check_archive ("", "", "cmvn/apply_spk_vars.ark", "cmvn/cmvn_spk.ark", TRUE,
      TRUE, FALSE, 84);
  check_archive (pass, "", "cmvn/apply_spk_vars.ark", "cmvn/cmvn_spk.ark",
      TRUE, TRUE, TRUE, 85);
  check_archive (pass_sys, "device-memory=false", "cmvn/apply_utt_vars.ark",
      "cmvn/cmvn_utt.ark", FALSE, TRUE, FALSE, 86);
  /* the same statistics as floats (FM) and as text: Kaldi reads either */
  check_archive ("", "", "cmvn/apply_spk_vars.ark", "cmvn/cmvn_spk_fm.ark",
      TRUE, TRUE, FALSE, 87);
  check_archive ("", "", "cmvn/apply_spk.ark", "cmvn/cmvn_spk_text.ark",
      TRUE, FALSE, TRUE, 88);
}

GST_END_TEST;

/* write-stats against compute-cmvn-stats' archive, byte for byte: per
 * utterance, and per speaker (utt2spk; Kaldi's --spk2utt lists the
 * utterances in the order they come here), live and offline, while
 * applying statistics too. */
static void
check_write (const gchar * props, const gchar * ref_file, gboolean per_speaker,
    gboolean live, guint64 seed)
{
  gint nf = 0;
  AfetRefMatrix *feats = load_recipe ("input/mfcc.ark", &nf);
  gchar *out = g_build_filename (g_get_tmp_dir (), "afet-cmvn-write.ark",
      NULL);
  gchar *u2s = recipe ("cmvn/utt2spk");
  g_unlink (out);
  gchar *launch = g_strdup_printf ("afetcmvn write-stats=%s %s%s %s", out,
      per_speaker ? "utt2spk=" : "", per_speaker ? u2s : "", props);
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_live (h, live);
  set_caps (h, 13, 13, -1, 0);
  const gchar *keys[6];
  for (gint i = 0; i < nf; i++)
    keys[i] = feats[i].key;
  gint *sizes = afetcheck_random_sizes (40, 1, 130, seed);
  push_entries (h, feats, nf, keys, nf, sizes, 40);
  gst_harness_push_event (h, gst_event_new_eos ());
  gchar *ref_path = recipe (ref_file);
  gchar *a = NULL, *b = NULL;
  gsize la = 0, lb = 0;
  fail_unless (g_file_get_contents (out, &a, &la, NULL), "%s: no %s", launch,
      out);
  fail_unless (g_file_get_contents (ref_path, &b, &lb, NULL));
  fail_unless (la == lb && memcmp (a, b, la) == 0, "%s: %s differs from "
      "compute-cmvn-stats' %s", launch, out, ref_path);
  g_print ("write-stats %-16s %-8s: byte-identical to %s\n", props,
      live ? "live" : "offline", ref_file);
  g_free (a);
  g_free (b);
  g_free (ref_path);
  gst_harness_teardown (h);
  g_unlink (out);
  g_free (sizes);
  g_free (launch);
  g_free (u2s);
  g_free (out);
  afetref_matrices_free (feats, nf);
}

GST_START_TEST (test_write_stats)
{
  gchar *arch = recipe ("cmvn/cmvn_utt.ark");
  gchar *apply = g_strdup_printf ("scope=archive stats-archive=%s", arch);
  check_write ("mode=none", "cmvn/cmvn_utt.ark", FALSE, FALSE, 91);
  check_write ("scope=running", "cmvn/cmvn_utt.ark", FALSE, TRUE, 92);
  check_write ("scope=sliding", "cmvn/cmvn_spk.ark", TRUE, TRUE, 93);
  check_write ("mode=none", "cmvn/cmvn_spk.ark", TRUE, FALSE, 94);
  check_write (apply, "cmvn/cmvn_utt.ark", FALSE, TRUE, 95);
  g_free (apply);
  g_free (arch);
}

GST_END_TEST;

/* Pushes one entry under key into launch (dims columns) and expects an
 * error containing each needle. */
static void
expect_archive_error (const gchar * launch, const gchar * key, gint dims,
    const gchar * needle1, const gchar * needle2)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  set_caps (h, dims, dims, -1, 0);
  if (key)
    push_key (h, key);
  gfloat f[39 * 4] = { 0 };
  GstBuffer *b = gst_buffer_new_memdup (f, sizeof (gfloat) * dims * 4);
  GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
  gchar *error = afetcheck_pop_error (bus, NULL, NULL, NULL);
  fail_unless (error != NULL, "%s: no error", launch);
  fail_unless (strstr (error, needle1) && (!needle2 || strstr (error,
              needle2)), "%s: the error \"%s\" does not say \"%s\" and "
      "\"%s\"", launch, error, needle1, needle2 ? needle2 : "");
  g_print ("%s\n", error);
  g_free (error);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

/* Bad input: an error naming the key and the file, never output under
 * other statistics. */
GST_START_TEST (test_archive_errors)
{
  gchar *utt = recipe ("cmvn/cmvn_utt.ark"), *u2s = recipe ("cmvn/utt2spk");
  /* a speaker without statistics: a per-utterance archive with utt2spk */
  gchar *l = g_strdup_printf ("afetcmvn scope=archive stats-archive=%s "
      "utt2spk=%s", utt, u2s);
  expect_archive_error (l, "s01_8k", 13, "No statistics for 'spk8k'", utt);
  /* a key utt2spk does not know */
  expect_archive_error (l, "s09_8k", 13, "Key 's09_8k' is not in utt2spk",
      u2s);
  g_free (l);
  /* a key without statistics */
  l = g_strdup_printf ("afetcmvn scope=archive stats-archive=%s", utt);
  expect_archive_error (l, "nobody", 13, "No statistics for 'nobody'", utt);
  /* statistics of 13 columns, a stream of 39 */
  expect_archive_error (l, "s01_8k", 39, "dims mismatch", "'s01_8k'");
  /* no key at all */
  expect_archive_error (l, NULL, 13, "needs the key", NULL);
  g_free (l);
  /* write-stats: a speaker utt2spk does not know */
  l = g_strdup_printf ("afetcmvn scope=running mode=none write-stats=%s/x.ark "
      "utt2spk=%s",
      g_get_tmp_dir (), u2s);
  expect_archive_error (l, "s09_16k", 13, "Key 's09_16k' is not in utt2spk",
      u2s);
  g_free (l);

  /* an archive that is no archive: refused at start, naming the file */
  gchar *mfcc = recipe ("input/mfcc.ark"), *err = NULL;
  gchar *bad = g_build_filename (g_get_tmp_dir (), "afet-cmvn-bad.ark", NULL);
  fail_unless (g_file_set_contents (bad, "s01_8k \0BDM \4\2\0\0\0\4", 18,
          NULL));
  l = g_strdup_printf ("filesrc location=%s ! afetparse ! afetcmvn "
      "scope=archive stats-archive=%s ! fakesink", mfcc, bad);
  fail_if (afetcheck_run_launch (l, &err));
  fail_unless (strstr (err, bad) && strstr (err, "s01_8k"), "%s", err);
  g_print ("%s\n", err);
  g_free (err);
  g_free (l);
  /* write-stats where no file can be made: an error at EOS */
  l = g_strdup_printf ("filesrc location=%s ! afetparse ! afetcmvn mode=none "
      "write-stats=/nonexistent-afet-dir/cmvn.ark ! fakesink", mfcc);
  fail_if (afetcheck_run_launch (l, &err));
  fail_unless (strstr (err, "/nonexistent-afet-dir/cmvn.ark") != NULL, "%s",
      err);
  g_print ("%s\n", err);
  g_free (err);
  g_free (l);
  /* a consumer that wants per-utterance statistics refuses per-speaker ones
   * (the normalization-stats caps field, passed on by afetdelta) */
  gchar *spk = recipe ("cmvn/cmvn_spk.ark");
  l = g_strdup_printf ("filesrc location=%s ! afetparse ! afetcmvn "
      "scope=archive stats-archive=%s utt2spk=%s ! afetdelta ! capsfilter "
      "caps=\"application/x-afet-features, "
      "normalization-stats=kaldi-utterance\" ! fakesink", mfcc, spk, u2s);
  fail_if (afetcheck_run_launch (l, &err));
  fail_unless (strstr (err, "afetdelta") && strstr (err,
          "'normalization-stats' is kaldi-speaker"), "%s", err);
  g_print ("%s\n", err);
  g_free (err);
  g_free (l);
  g_unlink (bad);
  g_free (bad);
  g_free (spk);
  g_free (mfcc);
  g_free (utt);
  g_free (u2s);
}

GST_END_TEST;

/* The whole recipe as a pipeline: afetparse's entries through
 * afetcmvn scope=archive into afetenc, against apply-cmvn's archive read
 * back (every entry of mfcc.ark goes through; the three apply-cmvn kept
 * are compared). */
GST_START_TEST (test_archive_pipeline)
{
  gchar *mfcc = recipe ("input/mfcc.ark"), *spk = recipe ("cmvn/cmvn_spk.ark");
  gchar *u2s = recipe ("cmvn/utt2spk"), *err = NULL;
  gchar *out = g_build_filename (g_get_tmp_dir (), "afet-cmvn-pipe.ark", NULL);
  gchar *l = g_strdup_printf ("filesrc location=%s ! afetparse ! afetcmvn "
      "scope=archive stats-archive=%s utt2spk=%s mode=meanvar ! afetenc "
      "format=kaldi ! filesink location=%s", mfcc, spk, u2s, out);
  fail_unless (afetcheck_run_launch (l, &err), "%s: %s", l, err);
  gint no = 0, nr = 0;
  AfetRefMatrix *o = afetref_read_kaldi_ark (out, &no);
  AfetRefMatrix *r = load_recipe ("cmvn/apply_spk_vars.ark", &nr);
  fail_unless_equals_int (no, 6);
  for (gint i = 0; i < nr; i++) {
    const AfetRefMatrix *m = afetref_kaldi_ark_find (o, no, r[i].key);
    fail_unless (m != NULL && m->rows == r[i].rows);
    gfloat *f = g_new (gfloat, (gsize) m->rows * 13);
    for (gint j = 0; j < m->rows * 13; j++)
      f[j] = (gfloat) m->data[j];
    gdouble e = rel_l2_fd (f, r[i].data, (gsize) m->rows * 13);
    fail_unless (e <= 1e-5, "%s: rel L2 %.3e", r[i].key, e);
    g_free (f);
  }
  afetref_matrices_free (o, no);
  afetref_matrices_free (r, nr);
  g_unlink (out);
  g_free (out);
  g_free (l);
  g_free (mfcc);
  g_free (spk);
  g_free (u2s);
}

GST_END_TEST;

/* Kaldi's edge cases of ApplyCmvn: a variance below 1e-20 is floored to
 * it with a warning (the frames go on, scaled by 1e10), a count below 1
 * stops with an error; statistics as a text archive. */
GST_START_TEST (test_archive_floor_and_count)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "afet-cmvn-edge.ark",
      NULL);
  /* "flat": 4 frames, column 0 always 2 (variance 0), column 1 mean 1 and
   * variance 1; "few": a count of 0.5 */
  const gchar *text = "flat  [\n  8 4 4 \n  16 8 0 ]\n"
      "few  [\n  1 1 0.5 \n  2 2 0 ]\n";
  fail_unless (g_file_set_contents (path, text, -1, NULL));
  gchar *l = g_strdup_printf ("afetcmvn scope=archive mode=meanvar "
      "stats-archive=%s", path);
  GstHarness *h = gst_harness_new_parse (l);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  set_caps (h, 2, 2, -1, 0);
  push_key (h, "flat");
  const gfloat f[8] = { 2, 0, 2, 2, 2.5f, 1, 2, 1 };
  afetcheck_push_frames (h, f, 4, 2, NULL, 0, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  AfetCheckResult res = { 0 };
  afetcheck_pull (h, &res, 0, 0);
  fail_unless_equals_int (res.n_frames, 4);
  /* (x - 2) 1e10 and (x - 1) / 1 */
  const gdouble want[8] = { 0, -1, 0, 1, 0.5e10, 0, 0, 0 };
  for (gint i = 0; i < 8; i++)
    fail_unless (fabs (res.data[i] - want[i]) <= 1e-6 * MAX (1.0,
            fabs (want[i])), "value %d: %g, not %g", i, res.data[i], want[i]);
  guint n_err = 0, n_warn = 0;
  gchar *warning = NULL;
  gchar *error = afetcheck_pop_error (bus, &n_err, &n_warn, &warning);
  fail_unless (error == NULL && n_warn == 1, "errors %u warnings %u", n_err,
      n_warn);
  fail_unless (strstr (warning, "'flat'") && strstr (warning, "floored"),
      "%s", warning);
  g_print ("%s\n", warning);
  g_free (warning);
  afetcheck_result_clear (&res);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  expect_archive_error (l, "few", 2, "count 0.5 is below 1", "'few'");
  g_unlink (path);
  g_free (path);
  g_free (l);
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
  tcase_add_test (tc, test_archive_against_kaldi);
  tcase_add_test (tc, test_write_stats);
  tcase_add_test (tc, test_archive_errors);
  tcase_add_test (tc, test_archive_pipeline);
  tcase_add_test (tc, test_archive_floor_and_count);
  return s;
}

GST_CHECK_MAIN (afetcmvn);
