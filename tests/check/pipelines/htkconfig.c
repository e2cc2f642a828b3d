/* Tests of HCopy's own configuration files through afet: each config's
 * chain against HCopy's files, headers byte for byte.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * HCopy's own configuration files, read by afet: for every config in
 * tests/data/htk/configs, the chain the reader builds from it
 * (afethtkconfig.h, through htkconfig-chain.cc) runs as
 *   filesrc ! wavparse ! CHAIN ! afetenc ! filesink
 * on the recordings of the config's rate, and the file must be HCopy's:
 * the 12-byte header identical byte for byte (frame count, period, frame
 * size, parameter kind with its qualifiers), and the numbers within a
 * relative L2 of 1e-5 per column group, as golden.c requires of the
 * hand-written chains.  The synthetic s01..s03 are in tests/data; the real
 * recordings are read from the shared refdata ($AFET_REFDATA or
 * ../shared/refdata) and reported skipped when it is absent.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <glib/gstdio.h>
#include <unistd.h>
#include <string.h>

/* htkconfig-chain.cc */
gchar *htkconfig_chain (const gchar * path, gchar ** error);

static const gchar *names[] = {
  "s01", "s02", "s03",          /* every rate, in tests/data */
  "lv01", "lv02", "en01",       /* shared refdata only */
};

/* The first 12 bytes of a file, or FALSE. */
static gboolean
read_header (const gchar * path, guint8 header[12])
{
  gchar *contents = NULL;
  gsize len = 0;
  gboolean ok = g_file_get_contents (path, &contents, &len, NULL) &&
      len >= 12;
  if (ok)
    memcpy (header, contents, 12);
  g_free (contents);
  return ok;
}

/* Column groups as golden.c has them: statics / deltas / accelerations,
 * else cepstra / c0, else one group. */
static gint
column_groups (const gchar * kind, gint dims, gint starts[4])
{
  if (strstr (kind, "_D")) {
    starts[0] = 0;
    starts[1] = dims / 3;
    starts[2] = 2 * dims / 3;
    return 3;
  }
  starts[0] = 0;
  if (strstr (kind, "_0")) {
    starts[1] = dims - 1;
    return 2;
  }
  return 1;
}

/* Runs the config's chain on one recording; FALSE when its data is not
 * here (which fails the test for the synthetic ones). */
static gboolean
check_recording (const gchar * cfg, const gchar * kind, const gchar * chain,
    const gchar * name, gboolean must_exist)
{
  gchar *wav = NULL, *htk = NULL;
  if (!afetcheck_find_pair (kind, name, &wav, &htk)) {
    fail_if (must_exist, "missing test data for %s/%s", kind, name);
    g_print ("skipped: %s %s (no HCopy file: the real recordings are in "
        "the shared refdata only, and not for every kind)\n", kind, name);
    return FALSE;
  }
  gchar *out = g_build_filename (g_get_tmp_dir (), "afet-htkconfig-XXXXXX",
      NULL);
  gint fd = g_mkstemp (out);
  fail_unless (fd >= 0);
  close (fd);
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
      "%s ! afetenc ! filesink location=\"%s\"", wav, chain, out);
  gchar *error = NULL;
  fail_unless (afetcheck_run_launch (launch, &error), "%s: %s (%s)", cfg,
      error, launch);

  guint8 ours[12], theirs[12];
  fail_unless (read_header (out, ours) && read_header (htk, theirs));
  GString *hex = g_string_new (NULL);
  for (gint i = 0; i < 12; i++)
    g_string_append_printf (hex, "%02x%02x ", ours[i], theirs[i]);
  fail_unless (memcmp (ours, theirs, 12) == 0, "%s %s: HTK header differs "
      "from HCopy's (ours/theirs per byte: %s)", cfg, name, hex->str);
  g_string_free (hex, TRUE);

  gint frames = 0, dims = 0, period = 0, parm = 0;
  gint ref_frames = 0, ref_dims = 0;
  gfloat *got = afetref_read_htk (out, &frames, &dims, &period, &parm);
  gfloat *ref = afetref_read_htk (htk, &ref_frames, &ref_dims, &period,
      &parm);
  fail_unless (got != NULL && ref != NULL);
  fail_unless_equals_int (frames, ref_frames);
  fail_unless_equals_int (dims, ref_dims);

  gint starts[4];
  gint n = column_groups (kind, dims, starts);
  GString *line = g_string_new (NULL);
  g_string_append_printf (line, "%-22s %-9s %4d frames  header = HCopy's",
      cfg, name, frames);
  for (gint g = 0; g < n; g++) {
    gint a = starts[g], b = g + 1 < n ? starts[g + 1] : dims;
    gdouble e = afetref_rel_l2_strided (got, NULL, dims, a, ref, NULL, dims,
        a, frames, b - a);
    g_string_append_printf (line, "  cols %d..%d rel L2 %.2e", a, b - 1, e);
    fail_unless (e <= 1e-5, "%s %s columns %d..%d: rel L2 %.3e > 1e-5", cfg,
        name, a, b - 1, e);
  }
  g_print ("%s\n", line->str);
  g_string_free (line, TRUE);
  g_unlink (out);
  g_free (out);
  g_free (launch);
  g_free (got);
  g_free (ref);
  g_free (wav);
  g_free (htk);
  return TRUE;
}

/* The same chain with each element configured by its htk-config property
 * alone: "afetmfcc ... ! afetdelta ..." -> "afetmfcc htk-config=P !
 * afetdelta htk-config=P". */
static gchar *
property_chain (const gchar * chain, const gchar * path)
{
  gchar **parts = g_strsplit (chain, " ! ", -1);
  GString *out = g_string_new (NULL);
  for (gchar ** part = parts; *part; part++) {
    gchar *name = g_strndup (*part, strcspn (*part, " "));
    g_string_append_printf (out, "%s%s htk-config=\"%s\"",
        part == parts ? "" : " ! ", name, path);
    g_free (name);
  }
  g_strfreev (parts);
  return g_string_free (out, FALSE);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar * const *) a, *(const gchar * const *) b);
}

GST_START_TEST (test_htk_configs)
{
  gchar *dir = g_build_filename (afetcheck_testdata_dir (), "htk", "configs",
      NULL);
  GDir *d = g_dir_open (dir, 0, NULL);
  fail_unless (d != NULL, "no configs in %s", dir);
  GPtrArray *cfgs = g_ptr_array_new_with_free_func (g_free);
  for (const gchar * f; (f = g_dir_read_name (d));)
    if (g_str_has_suffix (f, ".cfg"))
      g_ptr_array_add (cfgs, g_strdup (f));
  g_dir_close (d);
  g_ptr_array_sort (cfgs, compare_names);
  fail_unless_equals_int (cfgs->len, 24);

  guint runs = 0, skipped = 0, prop_runs = 0;
  for (guint c = 0; c < cfgs->len; c++) {
    /* KIND_RATE.cfg: the kind is the reference folder */
    const gchar *cfg = g_ptr_array_index (cfgs, c);
    const gchar *us = strrchr (cfg, '_');
    gchar *kind = g_strndup (cfg, us - cfg);
    gchar *rate = g_strndup (us, strlen (us) - 4);      /* "_16k" */
    gchar *path = g_build_filename (dir, cfg, NULL);
    gchar *error = NULL;
    gchar *chain = htkconfig_chain (path, &error);
    fail_unless (chain != NULL, "%s: %s", cfg, error);
    for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
      gchar *name = g_strconcat (names[i], rate, NULL);
      /* the synthetic recordings exist at every rate, the real ones at
       * theirs only (lv: 16k, en: 8k) */
      gboolean real = i >= 3;
      gboolean exists = !real || (g_str_has_prefix (name, "lv") &&
          strcmp (rate, "_16k") == 0) || (g_str_has_prefix (name, "en") &&
          strcmp (rate, "_8k") == 0);
      if (exists && check_recording (cfg, kind, chain, name, !real))
        runs++;
      else if (exists)
        skipped++;
      g_free (name);
    }
    /* the elements' htk-config property: the same numbers and header */
    gchar *by_prop = property_chain (chain, path);
    for (guint i = 0; i < 3; i++) {
      gchar *name = g_strconcat (names[i], rate, NULL);
      fail_unless (check_recording (cfg, kind, by_prop, name, TRUE));
      prop_runs++;
      g_free (name);
    }
    g_free (by_prop);
    g_free (chain);
    g_free (path);
    g_free (kind);
    g_free (rate);
  }
  g_print ("%u runs matched HCopy, %u skipped; %u through the elements' "
      "htk-config property\n", runs, skipped, prop_runs);
  fail_unless (runs >= 72, "only %u of the 72 synthetic runs", runs);
  g_ptr_array_unref (cfgs);
  g_free (dir);
}

GST_END_TEST;

/* Runs a chain on a wav; the bytes it writes. */
static gchar *
run_raw (const gchar * wav, const gchar * chain, gsize * len)
{
  gchar *head = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! %s",
      wav, chain);
  gchar *data = afetcheck_run_to_bytes (head, len);
  g_free (head);
  return data;
}

/* htk-config on an afetframer before the analysis element (which then
 * takes only its own steps), and on the one afetcmvn of a file with _Z
 * but no _D (energy normalisation and _Z in one element): the same bytes
 * as the reader's chain; a second afetcmvn there is refused. */
GST_START_TEST (test_htk_config_framer_and_z)
{
  gchar *wav = g_build_filename (afetcheck_testdata_dir (), "audio",
      "s01_16k.wav", NULL);
  gchar *cfg = g_build_filename (afetcheck_testdata_dir (), "htk", "configs",
      "MFCC_0_D_A_Z_16k.cfg", NULL);
  gchar *cerr = NULL;
  gchar *ref_chain = htkconfig_chain (cfg, &cerr);
  fail_unless (ref_chain != NULL, "%s", cerr);
  gsize n_ref = 0, n = 0;
  gchar *ref = run_raw (wav, ref_chain, &n_ref);
  gchar *framed = g_strdup_printf ("afetframer htk-config=\"%s\" ! afetmfcc "
      "htk-config=\"%s\" ! afetdelta htk-config=\"%s\" ! afetcmvn "
      "htk-config=\"%s\"", cfg, cfg, cfg, cfg);
  gchar *got = run_raw (wav, framed, &n);
  fail_unless (n == n_ref && memcmp (got, ref, n) == 0,
      "afetframer ! afetmfcc with htk-config differ from the chain");
  g_free (got);
  g_free (ref);
  g_free (ref_chain);
  g_free (framed);

  /* MFCC_E_Z: energy normalisation and _Z, no deltas */
  gchar *ez = g_build_filename (g_get_tmp_dir (), "afet-ez-XXXXXX.cfg", NULL);
  gint fd = g_mkstemp (ez);
  fail_unless (fd >= 0);
  const gchar *text = "TARGETKIND = MFCC_E_Z\nTARGETRATE = 100000.0\n"
      "WINDOWSIZE = 250000.0\nNUMCHANS = 23\nSAVEWITHCRC = F\n";
  fail_unless (write (fd, text, strlen (text)) == (gssize) strlen (text));
  close (fd);
  ref_chain = htkconfig_chain (ez, &cerr);
  fail_unless (ref_chain && strstr (ref_chain, "energy-normalise=true") &&
      strstr (ref_chain, "mode=mean"), "%s", ref_chain);
  ref = run_raw (wav, ref_chain, &n_ref);
  gchar *one = g_strdup_printf ("afetmfcc htk-config=\"%s\" ! afetcmvn "
      "htk-config=\"%s\"", ez, ez);
  got = run_raw (wav, one, &n);
  fail_unless (n == n_ref && memcmp (got, ref, n) == 0,
      "_Z without _D through htk-config differs from the chain");
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! %s "
      "! afetcmvn htk-config=\"%s\" ! fakesink", wav, one, ez);
  gchar *error = NULL;
  fail_if (afetcheck_run_launch (launch, &error));
  fail_unless (error && strstr (error, "normalised already"), "%s", error);
  g_free (error);
  g_free (launch);
  g_free (got);
  g_free (ref);
  g_free (one);
  g_free (ref_chain);
  g_unlink (ez);
  g_free (ez);

  /* WARPFREQ and its cut-offs: the reader's chain, htk-config on the
   * element and the explicit properties give the same bytes */
  gchar *wf = g_build_filename (g_get_tmp_dir (), "afet-wf-XXXXXX.cfg", NULL);
  fd = g_mkstemp (wf);
  fail_unless (fd >= 0);
  const gchar *wtext = "TARGETKIND = MFCC_0\nTARGETRATE = 100000.0\n"
      "WINDOWSIZE = 250000.0\nNUMCHANS = 23\nWARPFREQ = 0.92\n"
      "WARPLCUTOFF = 300\nWARPUCUTOFF = 5200\nSAVEWITHCRC = F\n";
  fail_unless (write (fd, wtext, strlen (wtext)) == (gssize) strlen (wtext));
  close (fd);
  ref_chain = htkconfig_chain (wf, &cerr);
  fail_unless (ref_chain && strstr (ref_chain, "warp-factor=0.92"), "%s",
      ref_chain);
  ref = run_raw (wav, ref_chain, &n_ref);
  gchar *prop = g_strdup_printf ("afetmfcc htk-config=\"%s\"", wf);
  got = run_raw (wav, prop, &n);
  fail_unless (n == n_ref && memcmp (got, ref, n) == 0,
      "WARPFREQ through htk-config differs from the chain");
  g_free (got);
  got = run_raw (wav, "afetmfcc warp-factor=0.92 warp-low=300 "
      "warp-high=5200", &n);
  fail_unless (n == n_ref && memcmp (got, ref, n) == 0,
      "WARPFREQ differs from the explicit properties");
  g_free (got);
  got = run_raw (wav, "afetmfcc", &n);
  fail_unless (n == n_ref && memcmp (got, ref, n) != 0, "no warping");
  g_free (got);
  g_free (ref);
  g_free (prop);
  g_free (ref_chain);
  g_unlink (wf);
  g_free (wf);
  g_free (cfg);
  g_free (wav);
}

GST_END_TEST;

/* htk-config errors reach the bus at negotiation, naming the key. */
GST_START_TEST (test_htk_config_refusals)
{
  gchar *bad = g_build_filename (g_get_tmp_dir (), "afet-bad-XXXXXX.cfg",
      NULL);
  gint fd = g_mkstemp (bad);
  fail_unless (fd >= 0);
  const gchar *text = "TARGETKIND = MFCC_0\nTARGETRATE = 100000.0\n"
      "WINDOWSIZE = 250000.0\nNUMCHANS = 23\nFROBNICATE = T\n";
  fail_unless (write (fd, text, strlen (text)) == (gssize) strlen (text));
  close (fd);
  /* a NUL byte in the file: refused where it is, the message whole */
  gchar *nul = g_build_filename (g_get_tmp_dir (), "afet-nul-XXXXXX.cfg",
      NULL);
  fd = g_mkstemp (nul);
  fail_unless (fd >= 0);
  static const gchar nul_text[] = "TARGETKIND = MFCC_0\nTARGETRATE = "
      "100000.0\nNUM\0CHANS = 23\n";
  fail_unless (write (fd, nul_text, sizeof nul_text - 1) ==
      (gssize) sizeof nul_text - 1);
  close (fd);
  gchar *mfcc = g_build_filename (afetcheck_testdata_dir (), "htk",
      "configs", "MFCC_0_16k.cfg", NULL);
  const struct
  {
    const gchar *element, *path, *needle;
  } t[] = {
    {"afetmfcc", bad, "FROBNICATE"},
    {"afetmfcc", nul, "NUL byte at line 3, byte 4 (byte 45 of the file, "
          "from 0): not a text file?"},
    {"afetplp", mfcc, "htk-config"},
    {"afetmfcc", "/nonexistent/x.cfg", "htk-config"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=3 ! "
        "audio/x-raw,rate=16000,channels=1 ! %s htk-config=\"%s\" ! "
        "fakesink", t[i].element, t[i].path);
    gchar *error = NULL;
    fail_if (afetcheck_run_launch (launch, &error), "%s ran", launch);
    fail_unless (error && strstr (error, t[i].needle), "%s: '%s' lacks %s",
        launch, error, t[i].needle);
    g_free (error);
    g_free (launch);
  }
  g_unlink (bad);
  g_free (bad);
  g_unlink (nul);
  g_free (nul);
  g_free (mfcc);
}

GST_END_TEST;

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  Suite *s = suite_create ("htkconfig");
  TCase *tc = tcase_create ("configs");
  tcase_set_timeout (tc, 900);
  tcase_add_test (tc, test_htk_configs);
  tcase_add_test (tc, test_htk_config_refusals);
  tcase_add_test (tc, test_htk_config_framer_and_z);
  suite_add_tcase (s, tc);
  return gst_check_run_suite (s, "htkconfig", __FILE__);
}
