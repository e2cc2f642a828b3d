/* Tests against HTK golden files: afetmfcc and afetplp with HTK's settings
 * must reproduce HCopy's output.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * HTK golden files: `filesrc ! wavparse ! afetmfcc|afetplp <HTK settings> !
 * filesink` must reproduce HCopy's output (same frame count, relative L2
 * <= 1e-5 per column group; the issue asks 1e-4 for PLP, which lands at
 * about 2e-6 too). AFET_GOLDEN_SET=synthetic (default) runs the
 * s0* files (tests/data, or the shared refdata); AFET_GOLDEN_SET=real runs
 * the real recordings, which only the shared refdata holds, and exits 77
 * (skipped) when it is absent.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <glib/gstdio.h>
#include <unistd.h>
#include <string.h>

typedef struct
{
  const gchar *kind;            /* refdata folder */
  const gchar *element;
  const gchar *props;           /* settings besides the filters */
  const gchar *post;            /* elements after it */
  gint dims;                    /* our columns */
  gint ref_dims;                /* columns in the HTK file */
  gint groups[4];               /* column group starts, -1 ended */
  gboolean fbank40;
} Kind;

static const Kind kinds[] = {
  {"MFCC_0", "afetmfcc", "num-ceps=12 c0=true", "", 13, 13, {0, 12, -1},
      FALSE},
  {"FBANK", "afetmfcc", "num-ceps=0", "", 0, 0, {0, -1}, FALSE},
  {"FBANK40", "afetmfcc", "num-ceps=0", "", 40, 40, {0, -1}, TRUE},
  {"PLP_0", "afetplp", "num-ceps=12 lpc-order=12 c0=true", "", 13, 13,
      {0, 12, -1}, FALSE},
  /* statics, deltas and accelerations with raw energy */
  {"MFCC_E_D_A", "afetmfcc", "num-ceps=12 c0=false energy=true",
        "! afetdelta order=2 delta-window=3 accel-window=3", 39, 39,
      {0, 13, 26, -1}, FALSE},
  /* the same with HTK's energy normalisation before the dynamics */
  {"MFCC_E_D_A_enorm", "afetmfcc", "num-ceps=12 c0=false energy=true",
        "! afetcmvn mode=none energy-normalise=true ! "
        "afetdelta order=2 delta-window=3 accel-window=3", 39, 39,
      {0, 13, 26, -1}, FALSE},
  /* _Z: the statics' mean over the file subtracted after the dynamics */
  {"MFCC_0_D_A_Z", "afetmfcc", "num-ceps=12 c0=true",
        "! afetdelta order=2 delta-window=3 accel-window=3 ! "
        "afetcmvn columns=htk", 39, 39, {0, 13, 26, -1}, FALSE},
  {"PLP_0_D_A_Z", "afetplp", "num-ceps=12 lpc-order=12 c0=true",
        "! afetdelta order=2 delta-window=3 accel-window=3 ! "
        "afetcmvn columns=htk", 39, 39, {0, 13, 26, -1}, FALSE},
};

static const gchar *synthetic[] = {
  "s01_8k", "s02_8k", "s03_8k", "s01_16k", "s02_16k", "s03_16k",
  "s01_44k", "s02_44k", "s03_44k",
};

static const gchar *real[] = { "lv01_16k", "lv02_16k", "en01_8k" };

static gint
filters_for (const gchar * name)
{
  if (g_str_has_suffix (name, "_8k"))
    return 15;
  if (g_str_has_suffix (name, "_44k"))
    return 25;
  return 23;
}

/* Runs the pipeline; returns the output file's floats. */
static gfloat *
run_pipeline (const gchar * wav, const gchar * element, const gchar * props,
    const gchar * post, gsize * n_floats)
{
  gchar *out = g_build_filename (g_get_tmp_dir (), "afet-golden-XXXXXX",
      NULL);
  gint fd = g_mkstemp (out);
  fail_unless (fd >= 0);
  close (fd);
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
      "%s frame-length=20 frame-shift=10 %s %s ! filesink location=\"%s\"",
      wav, element, props, post, out);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (launch, &err);
  fail_unless (pipe != NULL, "%s: %s", launch, err ? err->message : "");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg != NULL, "timeout: %s", launch);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &e, &dbg);
    fail ("%s: %s (%s)", launch, e->message, dbg);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);

  gchar *contents = NULL;
  gsize len = 0;
  fail_unless (g_file_get_contents (out, &contents, &len, NULL));
  g_unlink (out);
  g_free (out);
  g_free (launch);
  *n_floats = len / sizeof (gfloat);
  return (gfloat *) contents;
}

static void
check_file (const Kind * k, const gchar * name, gboolean must_exist)
{
  gchar *wav = NULL, *htk = NULL;
  if (!afetcheck_find_pair (k->kind, name, &wav, &htk)) {
    fail_if (must_exist, "missing test data for %s/%s", k->kind, name);
    g_print ("skipped: %s %s (no data)\n", k->kind, name);
    return;
  }
  gint filters = k->fbank40 ? 40 : filters_for (name);
  gint dims = k->dims ? k->dims : filters;
  gint ref_dims = k->ref_dims ? k->ref_dims : filters;

  gint ref_frames = 0, file_dims = 0, period = 0, parm = 0;
  gfloat *ref = afetref_read_htk (htk, &ref_frames, &file_dims, &period,
      &parm);
  fail_unless (ref != NULL, "cannot read %s", htk);
  fail_unless_equals_int (file_dims, ref_dims);

  gchar *props = g_strdup_printf ("%s num-filters=%d", k->props, filters);
  gsize n = 0;
  gfloat *out = run_pipeline (wav, k->element, props, k->post, &n);
  fail_unless (n % dims == 0);
  gint frames = (gint) (n / dims);
  fail_unless_equals_int (frames, ref_frames);

  GString *line = g_string_new (NULL);
  g_string_append_printf (line, "%-10s %-9s %4d frames", k->kind, name,
      frames);
  for (gint g = 0; g < 4 && k->groups[g] >= 0; g++) {
    gint a = k->groups[g];
    gint b = (g + 1 < 4 && k->groups[g + 1] >= 0) ? k->groups[g + 1] : dims;
    gdouble e = afetref_rel_l2_strided (out, NULL, dims, a, ref, NULL,
        ref_dims, a, frames, b - a);
    g_string_append_printf (line, "  cols %d..%d rel L2 %.2e", a, b - 1, e);
    fail_unless (e <= 1e-5, "%s %s columns %d..%d: rel L2 %.3e > 1e-5",
        k->kind, name, a, b - 1, e);
  }
  g_print ("%s\n", line->str);
  g_string_free (line, TRUE);
  g_free (props);
  g_free (out);
  g_free (ref);
  g_free (wav);
  g_free (htk);
}

GST_START_TEST (test_golden_synthetic)
{
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (guint i = 0; i < G_N_ELEMENTS (synthetic); i++)
      check_file (&kinds[k], synthetic[i], TRUE);
}

GST_END_TEST;

GST_START_TEST (test_golden_real)
{
  /* every kind but MFCC_E_D_A exists for the real recordings */
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (guint i = 0; i < G_N_ELEMENTS (real); i++)
      check_file (&kinds[k], real[i], strcmp (kinds[k].kind, "MFCC_E_D_A")
          != 0);
}

GST_END_TEST;

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  const gchar *set = g_getenv ("AFET_GOLDEN_SET");
  gboolean want_real = set && strcmp (set, "real") == 0;
  if (want_real && !afetcheck_refdata_dir ()) {
    g_print ("skipped: the real recordings are read from the shared refdata "
        "(set AFET_REFDATA), which is not here\n");
    return 77;
  }
  Suite *s = suite_create ("golden");
  TCase *tc = tcase_create (want_real ? "real" : "synthetic");
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, want_real ? test_golden_real : test_golden_synthetic);
  suite_add_tcase (s, tc);
  return gst_check_run_suite (s, "golden", __FILE__);
}
