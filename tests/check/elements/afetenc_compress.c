/* Tests of Kaldi's compressed matrices against Kaldi itself: afetenc writes and
 * afetparse reads them as copy-feats does, for every method.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Kaldi's compressed matrices against Kaldi itself
 * (tests/data/kaldi-recipe/compress, generate.sh there): afetenc format=kaldi
 * compression-method=N writes byte for byte what copy-feats --compress=true
 * --compression-method=N writes, for N = 1..7, of MFCC, fbank, short
 * matrices (1 to 9 rows) and hand-written ones (constant, beyond the fixed
 * ranges); afetparse decompresses Kaldi's archives bit for bit as copy-feats
 * does (the SHA-256 of the float archive), from a file and in random
 * pieces; damaged headers are refused with byte offsets; what cannot be
 * compressed is refused naming the entry.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static const gchar *const sets[] = { "mfcc", "fbank", "short", "hand" };

/* tests/data/kaldi-recipe/<parts...> */
static gchar *
recipe_path (const gchar * a, const gchar * b)
{
  return g_build_filename (afetcheck_testdata_dir (), "kaldi-recipe", a, b,
      NULL);
}

static gchar *
input_of (const gchar * set)
{
  if (strcmp (set, "mfcc") == 0)
    return recipe_path ("input", "mfcc.ark");
  gchar *name = g_strconcat (set, strcmp (set, "fbank") == 0 ? ".ark" :
      ".txt", NULL);
  gchar *p = recipe_path ("compress", name);
  g_free (name);
  return p;
}

static gchar *
compressed_of (const gchar * set, gint method)
{
  gchar *name = g_strdup_printf ("%s.cm%d.ark", set, method);
  gchar *p = recipe_path ("compress", name);
  g_free (name);
  return p;
}

static GBytes *
read_file (const gchar * path)
{
  gchar *data = NULL;
  gsize len = 0;
  GError *err = NULL;
  fail_unless (g_file_get_contents (path, &data, &len, &err), "%s: %s", path,
      err ? err->message : "?");
  return g_bytes_new_take (data, len);
}

/* The first byte where two files differ, as text for a failure message. */
static gchar *
first_difference (GBytes * a, GBytes * b)
{
  gsize na, nb;
  const guint8 *pa = (const guint8 *) g_bytes_get_data (a, &na);
  const guint8 *pb = (const guint8 *) g_bytes_get_data (b, &nb);
  gsize i = 0;
  while (i < na && i < nb && pa[i] == pb[i])
    i++;
  if (i == na && i == nb)
    return NULL;
  return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes against Kaldi's %"
      G_GSIZE_FORMAT ", first difference at byte %" G_GSIZE_FORMAT
      " (0x%02x, Kaldi 0x%02x)", na, nb, i, i < na ? pa[i] : 0,
      i < nb ? pb[i] : 0);
}

/* Kaldi's SHA-256 of copy-feats of NAME back to floats, from
 * decompressed.sha256 */
static gchar *
kaldi_sha256 (const gchar * set, gint method)
{
  gchar *path = recipe_path ("compress", "decompressed.sha256");
  GBytes *b = read_file (path);
  gchar *want = g_strdup_printf ("  %s.cm%d.float.ark", set, method);
  gchar **lines = g_strsplit ((const gchar *) g_bytes_get_data (b, NULL),
      "\n", -1);
  gchar *sum = NULL;
  for (gchar ** l = lines; *l && !sum; l++)
    if (g_str_has_suffix (*l, want) && strlen (*l) == 64 + strlen (want))
      sum = g_strndup (*l, 64);
  fail_unless (sum != NULL, "%s names no %s", path, want + 2);
  g_strfreev (lines);
  g_free (want);
  g_bytes_unref (b);
  g_free (path);
  return sum;
}

/* afetparse of Kaldi's input ! afetenc compression-method=N: Kaldi's bytes */
GST_START_TEST (test_compress_like_kaldi)
{
  const gint method = 1 + __i__ / G_N_ELEMENTS (sets);
  const gchar *set = sets[__i__ % G_N_ELEMENTS (sets)];
  gchar *in = input_of (set), *ref = compressed_of (set, method);
  gchar *head = g_strdup_printf ("filesrc location=\"%s\" ! afetparse ! "
      "afetenc format=kaldi compression-method=%d", in, method);
  gsize len = 0;
  gchar *out = afetcheck_run_to_bytes (head, &len);
  GBytes *ours = g_bytes_new_take (out, len), *kaldi = read_file (ref);
  gchar *diff = first_difference (ours, kaldi);
  fail_unless (diff == NULL, "%s compression-method=%d: %s", set, method,
      diff);
  g_print ("%-6s compression-method=%d: %" G_GSIZE_FORMAT " bytes, equal to "
      "copy-feats --compress=true\n", set, method, len);
  g_bytes_unref (ours);
  g_bytes_unref (kaldi);
  g_free (head);
  g_free (in);
  g_free (ref);
}

GST_END_TEST;

/* Feeds @data in pieces of 1 to @max_piece bytes (deterministic for
 * @seed) through appsrc ! @rest ! appsink; returns what the sink got (NULL
 * with the first error's text in *error). */
static GBytes *
run_pieces (GBytes * data, const gchar * rest, gint max_piece, guint64 seed,
    gchar ** error)
{
  gchar *launch = g_strdup_printf ("appsrc name=src ! %s ! appsink "
      "name=sink sync=false", rest);
  GError *perr = NULL;
  GstElement *pipe = gst_parse_launch (launch, &perr);
  fail_unless (pipe != NULL && perr == NULL, "cannot parse %s", launch);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  gsize len = 0, done = 0;
  const guint8 *d = (const guint8 *) g_bytes_get_data (data, &len);
  guint64 x = seed * 0x9E3779B97F4A7C15ull + 7;
  while (done < len) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const gsize n = MIN (len - done, 1 + (gsize) (x % (guint64) max_piece));
    GstBuffer *b = gst_buffer_new_memdup (d + done, n);
    GstFlowReturn ret = GST_FLOW_OK;
    g_signal_emit_by_name (src, "push-buffer", b, &ret);
    gst_buffer_unref (b);
    if (ret != GST_FLOW_OK)
      break;
    done += n;
  }
  GstFlowReturn ret;
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  /* samples until the bus says EOS or ERROR (an ERROR sends no EOS to
   * the sink), 120 s of the clock at most: an appsink at EOS returns no
   * sample at once, before the pipeline's EOS is on the bus, so the bus is
   * waited on, and time (not turns of the loop) is counted */
  GByteArray *out = g_byte_array_new ();
  GstBus *bus = gst_element_get_bus (pipe);
  *error = NULL;
  gboolean ended = FALSE;
  const gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  while (!ended) {
    fail_unless (g_get_monotonic_time () < deadline,
        "%s: neither EOS nor an error in 120 s", launch);
    GstSample *s = NULL;
    g_signal_emit_by_name (sink, "try-pull-sample", 20 * GST_MSECOND, &s);
    if (s) {
      GstMapInfo map;
      GstBuffer *b = gst_sample_get_buffer (s);
      gst_buffer_map (b, &map, GST_MAP_READ);
      g_byte_array_append (out, map.data, map.size);
      gst_buffer_unmap (b, &map);
      gst_sample_unref (s);
      continue;
    }
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 20 * GST_MSECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (!msg)
      continue;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gst_message_parse_error (msg, &e, NULL);
      *error = g_strdup (e->message);
      g_error_free (e);
    } else {
      /* EOS reached the sink after its last sample: take what is left */
      for (;;) {
        GstSample *t = NULL;
        g_signal_emit_by_name (sink, "try-pull-sample", (GstClockTime) 0, &t);
        if (!t)
          break;
        GstMapInfo map;
        GstBuffer *b = gst_sample_get_buffer (t);
        gst_buffer_map (b, &map, GST_MAP_READ);
        g_byte_array_append (out, map.data, map.size);
        gst_buffer_unmap (b, &map);
        gst_sample_unref (t);
      }
    }
    gst_message_unref (msg);
    ended = TRUE;
  }
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  GBytes *r = g_byte_array_free_to_bytes (out);
  if (*error) {
    g_bytes_unref (r);
    return NULL;
  }
  return r;
}

static void
check_sha256 (GBytes * b, const gchar * want, const gchar * what)
{
  gchar *got = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, b);
  fail_unless (strcmp (got, want) == 0, "%s: the float archive's SHA-256 "
      "is %s, copy-feats' %s (%" G_GSIZE_FORMAT " bytes)", what, got, want,
      g_bytes_get_size (b));
  g_free (got);
}

/* afetparse of Kaldi's compressed archive ! afetenc format=kaldi: what
 * copy-feats of it writes, bit for bit; from a file and in pieces */
GST_START_TEST (test_decompress_like_kaldi)
{
  const gint method = 1 + __i__ / G_N_ELEMENTS (sets);
  const gchar *set = sets[__i__ % G_N_ELEMENTS (sets)];
  gchar *ref = compressed_of (set, method);
  gchar *want = kaldi_sha256 (set, method);
  gchar *what = g_strdup_printf ("%s.cm%d.ark", set, method);

  gchar *head = g_strdup_printf ("filesrc location=\"%s\" ! afetparse ! "
      "afetenc format=kaldi", ref);
  gsize len = 0;
  gchar *out = afetcheck_run_to_bytes (head, &len);
  GBytes *ours = g_bytes_new_take (out, len);
  check_sha256 (ours, want, what);
  g_bytes_unref (ours);

  /* no size known, pieces of 1 to 97 bytes: a CM matrix waits whole */
  GBytes *kaldi = read_file (ref);
  gchar *error = NULL;
  GBytes *pieces = run_pieces (kaldi, "afetparse ! afetenc format=kaldi",
      97, __i__, &error);
  fail_unless (pieces != NULL, "%s in pieces: %s", what, error);
  check_sha256 (pieces, want, what);
  g_print ("%-14s decompressed as copy-feats does (SHA-256 %.16s...)\n",
      what, want);
  g_bytes_unref (pieces);
  g_bytes_unref (kaldi);
  g_free (head);
  g_free (what);
  g_free (want);
  g_free (ref);
}

GST_END_TEST;

/* afetenc's compressed archive read back by afetparse equals Kaldi's
 * decompression too, and a live-like input in random buffer sizes gives
 * the same bytes (the entry is held to its end) */
GST_START_TEST (test_compress_in_pieces)
{
  gchar *in = input_of ("mfcc"), *ref = compressed_of ("mfcc", 2);
  GBytes *input = read_file (in), *kaldi = read_file (ref);
  gchar *error = NULL;
  GBytes *ours = run_pieces (input, "afetparse ! afetenc format=kaldi "
      "compression-method=2", 333, 5, &error);
  fail_unless (ours != NULL, "%s", error);
  gchar *diff = first_difference (ours, kaldi);
  fail_unless (diff == NULL, "in pieces, downstream not seekable: %s", diff);
  g_bytes_unref (ours);
  g_bytes_unref (kaldi);
  g_bytes_unref (input);
  g_free (in);
  g_free (ref);
}

GST_END_TEST;

/* Damaged compressed entries: an ERROR from afetparse naming the byte
 * offset (from a file, whose size is known, and in pieces) */
typedef struct
{
  const gchar *name;
  const gchar *file;            /* the reference to damage */
  gint cut;                     /* keep this many bytes (0: all) */
  gint at;                      /* overwrite from here (-1: nothing) */
  const gchar *bytes;           /* with these 4 */
  const gchar *needle;          /* the message holds it */
} Damage;

/* mfcc.cm2.ark's first key is "s01_8k " (7 bytes), then "\0BCM " (5): the
 * global header is bytes 12..27 (min, range, rows, cols) */
static const Damage damages[] = {
  {"CM header cut", "mfcc.cm2.ark", 20, -1, NULL, "header"},
  {"CM2 header cut", "mfcc.cm3.ark", 25, -1, NULL, "header"},
  {"CM data cut", "mfcc.cm2.ark", 5000, -1, NULL, "truncated"},
  {"CM2 data cut", "mfcc.cm3.ark", 5000, -1, NULL, "truncated"},
  {"CM3 second entry cut", "mfcc.cm5.ark", 7000, -1, NULL, "truncated"},
  {"CM rows negative", "mfcc.cm2.ark", 0, 20, "\xff\xff\xff\xff", "-1 x 13"},
  {"CM cols absurd", "mfcc.cm2.ark", 0, 24, "\xff\xff\xff\x7f",
      "32-bit sizes"},
  {"CM2 rows absurd", "mfcc.cm3.ark", 0, 21, "\x00\x00\x00\x40",
      "32-bit sizes"},
  {"CM rows beyond the file", "mfcc.cm2.ark", 0, 20, "\x00\x00\x01\x00",
      "truncated"},
  {"CM 0 rows, 13 cols", "mfcc.cm2.ark", 0, 20, "\x00\x00\x00\x00",
      "0 x 13"},
  {"CM4 token", "mfcc.cm3.ark", 0, 9, "CM4 ", "CM4"},
};

static GBytes *
damage (const Damage * d)
{
  gchar *path = recipe_path ("compress", d->file);
  GBytes *b = read_file (path);
  g_free (path);
  gsize len;
  const guint8 *p = (const guint8 *) g_bytes_get_data (b, &len);
  guint8 *c = (guint8 *) g_memdup2 (p, len);
  if (d->cut)
    len = d->cut;
  if (d->at >= 0)
    memcpy (c + d->at, d->bytes, 4);
  g_bytes_unref (b);
  return g_bytes_new_take (c, len);
}

GST_START_TEST (test_damaged_refused)
{
  const Damage *d = &damages[__i__];
  GBytes *bad = damage (d);
  gchar *file = g_build_filename (g_get_tmp_dir (), "afetcompress-XXXXXX",
      NULL);
  gint fd = g_mkstemp (file);
  fail_unless (fd >= 0);
  fail_unless (write (fd, g_bytes_get_data (bad, NULL),
          g_bytes_get_size (bad)) == (gssize) g_bytes_get_size (bad));
  close (fd);
  for (gint how = 0; how < 2; how++) {
    gchar *error = NULL;
    if (how == 0) {
      gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! afetparse "
          "! fakesink sync=false", file);
      fail_if (afetcheck_run_launch (launch, &error), "%s: EOS, no ERROR",
          d->name);
      g_free (launch);
    } else {
      GBytes *r = run_pieces (bad, "afetparse", 61, __i__, &error);
      fail_unless (r == NULL, "%s in pieces: EOS, no ERROR", d->name);
    }
    fail_unless (strstr (error, "byte offset") != NULL, "%s: the ERROR "
        "names no byte offset: %s", d->name, error);
    fail_unless (strstr (error, d->needle) != NULL, "%s: the ERROR does not "
        "say '%s': %s", d->name, d->needle, error);
    g_print ("%-24s %-9s %s\n", d->name, how ? "pieces" : "filesrc", error);
    g_free (error);
  }
  g_unlink (file);
  g_free (file);
  g_bytes_unref (bad);
}

GST_END_TEST;

/* What afetenc refuses: compression outside format=kaldi, NaN, infinities
 * where the range comes from the matrix, an entry beyond max-hold; each an
 * ERROR that says why, never a file that looks complete */
GST_START_TEST (test_compress_refused)
{
  static const struct
  {
    const gchar *text;          /* a Kaldi text archive */
    const gchar *props;
    const gchar *needle;
  } cases[] = {
    {"k  [\n 1 2\n 3 4 ]\n", "format=npy compression-method=1",
        "format=kaldi only"},
    {"k  [\n 1 2\n 3 4 ]\n", "format=kaldi-text compression-method=2",
        "format=kaldi only"},
    {"utt7  [\n 1 2\n 3 nan ]\n", "format=kaldi compression-method=4",
        "'utt7'"},
    {"utt8  [\n 1 inf\n 3 4 ]\n", "format=kaldi compression-method=3",
        "+Inf"},
    {"utt9  [\n 1 2\n 3 4\n 5 6 ]\n", "format=kaldi compression-method=2 "
        "max-hold=16", "max-hold"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GBytes *b = g_bytes_new_static (cases[i].text, strlen (cases[i].text));
    gchar *rest = g_strdup_printf ("afetparse ! afetenc %s", cases[i].props);
    gchar *error = NULL;
    GBytes *r = run_pieces (b, rest, 1000, i, &error);
    fail_unless (r == NULL, "%s: no ERROR", rest);
    fail_unless (strstr (error, cases[i].needle) != NULL, "%s: the ERROR "
        "does not say '%s': %s", rest, cases[i].needle, error);
    g_print ("%s\n  %s\n", rest, error);
    g_free (error);
    g_free (rest);
    g_bytes_unref (b);
  }
  /* +Inf with a fixed range (method 4) is clamped as Kaldi clamps it */
  const gchar *inf = "k  [\n 1 inf\n -inf 4 ]\n";
  GBytes *b = g_bytes_new_static (inf, strlen (inf));
  gchar *error = NULL;
  GBytes *r = run_pieces (b, "afetparse ! afetenc format=kaldi "
      "compression-method=4", 1000, 1, &error);
  fail_unless (r != NULL, "%s", error);
  gsize len;
  const guint8 *p = (const guint8 *) g_bytes_get_data (r, &len);
  /* "k \0BCM2 " min range rows cols, then 1, 65535, 0, 4 as stored */
  fail_unless (len == 8 + 16 + 8 && memcmp (p, "k \0BCM2 ", 8) == 0,
      "%" G_GSIZE_FORMAT " bytes", len);
  const guint16 want[4] = { 32769, 65535, 0, 32772 };
  for (gint i = 0; i < 4; i++)
    fail_unless ((guint16) (p[24 + 2 * i] | p[25 + 2 * i] << 8) == want[i],
        "value %d", i);
  g_bytes_unref (r);
  g_bytes_unref (b);
}

GST_END_TEST;

static Suite *
afetenc_compress_suite (void)
{
  Suite *s = suite_create ("afetenc-compress");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_compress_like_kaldi, 0,
      7 * G_N_ELEMENTS (sets));
  tcase_add_loop_test (tc, test_decompress_like_kaldi, 0,
      7 * G_N_ELEMENTS (sets));
  tcase_add_test (tc, test_compress_in_pieces);
  tcase_add_loop_test (tc, test_damaged_refused, 0, G_N_ELEMENTS (damages));
  tcase_add_test (tc, test_compress_refused);
  return s;
}

GST_CHECK_MAIN (afetenc_compress);
