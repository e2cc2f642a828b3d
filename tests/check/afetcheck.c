/* Helpers shared by the element tests (afetcheck.h): audio caps and samples
 * pushed through a GstHarness, feature streams pulled and checked, test data
 * found, bus errors taken.
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
#include <unistd.h>

static const gchar *
format_name (AfetCheckFormat fmt)
{
  switch (fmt) {
    case AFETCHECK_S32:
      return "S32LE";
    case AFETCHECK_F32:
      return "F32LE";
    case AFETCHECK_F64:
      return "F64LE";
    default:
      return "S16LE";
  }
}

static gsize
format_bytes (AfetCheckFormat fmt)
{
  return fmt == AFETCHECK_S16 ? 2 : (fmt == AFETCHECK_F64 ? 8 : 4);
}

void
afetcheck_set_audio_caps (GstHarness * h, AfetCheckFormat fmt, gint rate)
{
  gchar *caps = g_strdup_printf ("audio/x-raw, format=%s, "
      "layout=interleaved, rate=%d, channels=1", format_name (fmt), rate);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

static GstBuffer *
make_buffer (AfetCheckFormat fmt, const gdouble * x, gint n)
{
  gsize bytes = format_bytes (fmt);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * bytes, NULL);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gint i = 0; i < n; i++) {
    switch (fmt) {
      case AFETCHECK_S16:{
        gint16 v = GINT16_TO_LE ((gint16) x[i]);
        memcpy (map.data + i * 2, &v, 2);
        break;
      }
      case AFETCHECK_S32:{
        gint32 v = GINT32_TO_LE ((gint32) x[i] * 65536);
        memcpy (map.data + i * 4, &v, 4);
        break;
      }
      case AFETCHECK_F32:{
        gfloat v = (gfloat) (x[i] / 32768.0);
        memcpy (map.data + i * 4, &v, 4);
        break;
      }
      case AFETCHECK_F64:{
        gdouble v = x[i] / 32768.0;
        memcpy (map.data + i * 8, &v, 8);
        break;
      }
    }
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

GstFlowReturn
afetcheck_push_samples (GstHarness * h, AfetCheckFormat fmt, gint rate,
    const gdouble * samples, gint n, const gint * sizes, gint n_sizes,
    GstClockTime t0, gboolean discont)
{
  gint done = 0, k = 0;
  while (done < n) {
    gint len = sizes ? sizes[k++ % n_sizes] : n;
    if (len > n - done)
      len = n - done;
    GstBuffer *buf = make_buffer (fmt, samples + done, len);
    GST_BUFFER_PTS (buf) = t0 + gst_util_uint64_scale (done, GST_SECOND,
        rate);
    GST_BUFFER_DURATION (buf) = t0 + gst_util_uint64_scale (done + len,
        GST_SECOND, rate) - GST_BUFFER_PTS (buf);
    if (done == 0 && discont)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    GstFlowReturn ret = gst_harness_push (h, buf);
    if (ret != GST_FLOW_OK)
      return ret;
    done += len;
  }
  return GST_FLOW_OK;
}

void
afetcheck_pull (GstHarness * h, AfetCheckResult * res, GstClockTime t0,
    guint64 first_offset)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL, "no output caps");
  fail_unless (afet_features_info_from_caps (&res->info, caps),
      "output caps do not parse: %" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  res->dims = res->info.dims;

  guint64 expect = first_offset + res->n_frames;
  GstBuffer *buf;
  while ((buf = gst_harness_try_pull (h))) {
    gsize size = gst_buffer_get_size (buf);
    fail_unless (size % (res->dims * sizeof (gfloat)) == 0,
        "buffer of %" G_GSIZE_FORMAT " bytes is not whole frames", size);
    gint n = (gint) (size / (res->dims * sizeof (gfloat)));
    fail_unless (n > 0, "empty buffer");
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), expect);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), expect + n);
    GstClockTime pts = t0 + afet_features_info_frames_to_time (&res->info,
        expect);
    GstClockTime end = t0 + afet_features_info_frames_to_time (&res->info,
        expect + n);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), pts);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), end - pts);
    res->data = g_renew (gfloat, res->data,
        (gsize) (res->n_frames + n) * res->dims);
    gst_buffer_extract (buf, 0, res->data + (gsize) res->n_frames * res->dims,
        size);
    res->n_frames += n;
    res->n_buffers++;
    expect += n;
    gst_buffer_unref (buf);
  }
}

void
afetcheck_result_clear (AfetCheckResult * res)
{
  g_free (res->data);
  memset (res, 0, sizeof (*res));
}

gint *
afetcheck_random_sizes (gint count, gint lo, gint hi, guint64 seed)
{
  gint *s = g_new (gint, count);
  guint64 x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (gint i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s[i] = lo + (gint) (x % (guint64) (hi - lo + 1));
  }
  return s;
}

const gchar *
afetcheck_refdata_dir (void)
{
  static gchar *dir = NULL;
  if (!dir) {
    const gchar *env = g_getenv ("AFET_REFDATA");
    dir = env ? g_strdup (env) :
        g_build_filename (AFET_SOURCE_DIR, "..", "shared", "refdata", NULL);
  }
  return g_file_test (dir, G_FILE_TEST_IS_DIR) ? dir : NULL;
}

const gchar *
afetcheck_testdata_dir (void)
{
  static gchar *dir = NULL;
  if (!dir) {
    const gchar *env = g_getenv ("AFET_TESTDATA");
    dir = env ? g_strdup (env) :
        g_build_filename (AFET_SOURCE_DIR, "tests", "data", NULL);
  }
  return dir;
}

gboolean
afetcheck_find_pair (const gchar * kind, const gchar * name, gchar ** wav,
    gchar ** htk)
{
  const gchar *dirs[] = { afetcheck_refdata_dir (), afetcheck_testdata_dir () };
  gchar *wavname = g_strconcat (name, ".wav", NULL);
  gchar *htkname = g_strconcat (name, ".htk", NULL);
  gboolean found = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (dirs) && !found; i++) {
    if (!dirs[i])
      continue;
    *wav = g_build_filename (dirs[i], "audio", wavname, NULL);
    *htk = g_build_filename (dirs[i], "htk", kind, htkname, NULL);
    if (g_file_test (*wav, G_FILE_TEST_EXISTS) &&
        g_file_test (*htk, G_FILE_TEST_EXISTS)) {
      found = TRUE;
    } else {
      g_free (*wav);
      g_free (*htk);
      *wav = *htk = NULL;
    }
  }
  g_free (wavname);
  g_free (htkname);
  return found;
}

void
afetcheck_pull_runs (GstHarness * h, AfetCheckRuns * runs)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL, "no output caps");
  AfetFeaturesInfo info;
  fail_unless (afet_features_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  runs->dims = info.dims;
  GstBuffer *buf;
  guint64 expect = 0;
  while ((buf = gst_harness_try_pull (h))) {
    gsize size = gst_buffer_get_size (buf);
    gint n = (gint) (size / (runs->dims * sizeof (gfloat)));
    fail_unless (n > 0 && size == (gsize) n * runs->dims * sizeof (gfloat));
    gboolean discont = GST_BUFFER_IS_DISCONT (buf);
    if (discont)
      runs->n_discont++;
    if (runs->n_runs == 0 || GST_BUFFER_OFFSET (buf) == 0) {
      fail_unless (runs->n_runs < 16);
      fail_unless (discont, "a run starts without DISCONT");
      runs->run_start[runs->n_runs] = runs->n_frames;
      runs->run_frames[runs->n_runs] = 0;
      runs->run_pts[runs->n_runs] = GST_BUFFER_PTS (buf);
      if (runs->n_runs > 0)
        fail_unless (GST_BUFFER_PTS (buf) >= runs->run_pts[runs->n_runs - 1],
            "time goes backwards at a new run");
      runs->n_runs++;
      expect = 0;
    } else {
      fail_if (discont, "DISCONT inside a run (offset %" G_GUINT64_FORMAT
          ")", GST_BUFFER_OFFSET (buf));
    }
    gint r = runs->n_runs - 1;
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), expect);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), expect + n);
    GstClockTime pts = runs->run_pts[r] +
        afet_features_info_frames_to_time (&info, expect);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), pts);
    runs->data = g_renew (gfloat, runs->data,
        (gsize) (runs->n_frames + n) * runs->dims);
    gst_buffer_extract (buf, 0, runs->data + (gsize) runs->n_frames *
        runs->dims, size);
    runs->n_frames += n;
    runs->run_frames[r] += n;
    expect += n;
    gst_buffer_unref (buf);
  }
}

void
afetcheck_runs_clear (AfetCheckRuns * runs)
{
  g_free (runs->data);
  memset (runs, 0, sizeof (*runs));
}

gchar *
afetcheck_pop_error (GstBus * bus, guint * n_errors, guint * n_warnings,
    gchar ** first_warning)
{
  gchar *first = NULL;
  GstMessage *m;
  if (n_errors)
    *n_errors = 0;
  if (n_warnings)
    *n_warnings = 0;
  if (first_warning)
    *first_warning = NULL;
  while ((m = gst_bus_pop (bus))) {
    GError *e = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &e, NULL);
      if (!first)
        first = g_strdup (e->message);
      if (n_errors)
        (*n_errors)++;
    } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (m, &e, NULL);
      if (first_warning && !*first_warning)
        *first_warning = g_strdup (e->message);
      if (n_warnings)
        (*n_warnings)++;
    }
    g_clear_error (&e);
    gst_message_unref (m);
  }
  return first;
}

void
afetcheck_expect_error (GstBus * bus, const gchar * needle)
{
  gchar *error = afetcheck_pop_error (bus, NULL, NULL, NULL);
  fail_unless (error != NULL, "no error on the bus (expected \"%s\")",
      needle);
  fail_unless (strstr (error, needle) != NULL, "the error \"%s\" does not "
      "say \"%s\"", error, needle);
  g_free (error);
}

gboolean
afetcheck_run_launch (const gchar * launch, gchar ** error)
{
  GError *perr = NULL;
  GstElement *pipe = gst_parse_launch (launch, &perr);
  fail_unless (pipe != NULL, "cannot parse %s: %s", launch,
      perr ? perr->message : "?");
  g_clear_error (&perr);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg != NULL, "%s: neither EOS nor an error in 120 s", launch);
  gboolean eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  *error = NULL;
  if (!eos) {
    GError *e = NULL;
    gst_message_parse_error (msg, &e, NULL);
    *error = g_strdup (e->message);
    g_error_free (e);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return eos;
}

gdouble
afetcheck_max_rel_diff (const gfloat * a, const gfloat * b, gsize n)
{
  gdouble scale = 0, worst = 0;
  for (gsize i = 0; i < n; i++)
    scale = MAX (scale, fabs (b[i]));
  for (gsize i = 0; i < n; i++)
    worst = MAX (worst, fabs ((gdouble) a[i] - b[i]));
  return scale > 0 ? worst / scale : worst;
}

void
afetcheck_push_frames (GstHarness * h, const gfloat * f, gint T, gint d,
    const gint * sizes, gint n_sizes, GstClockTime t0)
{
  gint done = 0, k = 0;
  while (done < T) {
    gint len = sizes ? sizes[k++ % n_sizes] : T;
    len = MIN (len, T - done);
    GstBuffer *b = gst_buffer_new_memdup (f + (gsize) done * d,
        (gsize) len * d * sizeof (gfloat));
    GST_BUFFER_PTS (b) = t0 + gst_util_uint64_scale (done, GST_SECOND, 100);
    if (done == 0)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    done += len;
  }
}

gdouble *
afetcheck_int_noise (gint n, gdouble amp, guint64 seed)
{
  gdouble *x = afetref_make_noise (n, amp, seed);
  afetref_quantize_s16 (x, n);
  return x;
}

void
afetcheck_run_samples (const gchar * launch, gint rate, const gdouble * x,
    gint n, const gint * sizes, gint n_sizes, AfetCheckResult * res)
{
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_live (h, FALSE);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, rate);
  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, rate, x,
          n, sizes, n_sizes, 0, TRUE), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  afetcheck_pull (h, res, 0, 0);
  gst_harness_teardown (h);
}

gchar *
afetcheck_run_to_bytes (const gchar * head, gsize * len)
{
  gchar *out = g_build_filename (g_get_tmp_dir (), "afetcheck-XXXXXX", NULL);
  gint fd = g_mkstemp (out);
  fail_unless (fd >= 0);
  close (fd);
  gchar *launch = g_strdup_printf ("%s ! filesink location=\"%s\"", head,
      out);
  gchar *error = NULL;
  fail_unless (afetcheck_run_launch (launch, &error), "%s: %s", launch,
      error);
  gchar *data = NULL;
  fail_unless (g_file_get_contents (out, &data, len, NULL));
  g_unlink (out);
  g_free (out);
  g_free (launch);
  return data;
}

void
afetcheck_run_recipe_input (const gchar * launch, guint64 seed,
    AfetCheckRuns * runs, GstCaps ** caps)
{
  gchar *path = g_build_filename (afetcheck_testdata_dir (), "kaldi-recipe",
      "input", "mfcc.ark", NULL);
  gchar *bytes = NULL;
  gsize len = 0;
  fail_unless (g_file_get_contents (path, &bytes, &len, NULL), "cannot "
      "read %s", path);
  gchar *full = g_strdup_printf ("afetparse ! %s", launch);
  GstHarness *h = gst_harness_new_parse (full);
  gst_harness_set_src_caps_str (h, "application/octet-stream");
  GRand *rand = g_rand_new_with_seed ((guint32) seed);
  for (gsize pos = 0; pos < len;) {
    gsize n = seed ? (gsize) g_rand_int_range (rand, 1, 20001) : len;
    n = MIN (n, len - pos);
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_new_memdup (bytes + pos, n)), GST_FLOW_OK);
    pos += n;
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  afetcheck_pull_runs (h, runs);
  if (caps)
    *caps = gst_pad_get_current_caps (h->sinkpad);
  g_rand_free (rand);
  gst_harness_teardown (h);
  g_free (full);
  g_free (bytes);
  g_free (path);
}
