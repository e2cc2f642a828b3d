/* Tests of device memory between afet elements, transfer counts, tee, and the
 * device shared through a GstContext.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static gchar *
example_wav (void)
{
  return g_build_filename (afetcheck_testdata_dir (), "audio", "s01_16k.wav",
      NULL);
}

static void
run_to_eos (GstElement * pipe)
{
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg != NULL, "timeout");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &e, &dbg);
    fail ("error: %s (%s)", e->message, dbg);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
}

static gchar *
tmp_path (const gchar * name)
{
  gchar *dir = g_build_filename (g_get_tmp_dir (), "afet-check-XXXXXX", NULL);
  fail_unless (g_mkdtemp (dir) != NULL);
  gchar *p = g_build_filename (dir, name, NULL);
  g_free (dir);
  return p;
}

/* Removes a file made under tmp_path and the folder made for it. */
static void
remove_tmp (const gchar * path)
{
  g_unlink (path);
  gchar *dir = g_path_get_dirname (path);
  g_rmdir (dir);
  g_free (dir);
}

static gfloat *
read_floats (const gchar * path, gsize * n)
{
  gchar *data = NULL;
  gsize len = 0;
  fail_unless (g_file_get_contents (path, &data, &len, NULL), "%s", path);
  *n = len / sizeof (gfloat);
  return (gfloat *) data;
}

/* Runs "filesrc ! wavparse ! <chain> ! filesink" and returns the floats. */
static gfloat *
run_chain (const gchar * chain, gsize * n, GstElement ** keep)
{
  gchar *wav = example_wav ();
  gchar *out = tmp_path ("out.f32");
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! %s "
      "! filesink location=\"%s\"", wav, chain, out);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  fail_unless (pipe != NULL, "%s", launch);
  run_to_eos (pipe);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gfloat *data = read_floats (out, n);
  remove_tmp (out);
  if (keep)
    *keep = pipe;
  else
    gst_object_unref (pipe);
  g_free (launch);
  g_free (out);
  g_free (wav);
  return data;
}

/* Runs chain[0] and chain[1] (the same chain with system memory forced
 * between its elements): the same bytes out. The first's pipeline, for
 * its elements' counters. */
static GstElement *
same_as_system_memory (const gchar * const chain[2])
{
  gsize na, nb;
  GstElement *pipe = NULL;
  gfloat *a = run_chain (chain[0], &na, &pipe);
  gfloat *b = run_chain (chain[1], &nb, NULL);
  fail_unless (na > 0 && na == nb, "%s: %" G_GSIZE_FORMAT " vs %"
      G_GSIZE_FORMAT, chain[0], na, nb);
  fail_unless (memcmp (a, b, na * sizeof (gfloat)) == 0, "%s differs",
      chain[0]);
  g_free (a);
  g_free (b);
  return pipe;
}

/* Device memory and forced system memory give the same numbers. */
GST_START_TEST (test_same_output_device_and_system)
{
  gsize n1, n2, n3;
  gfloat *a = run_chain ("afetframer energy=true ! afetmfcc energy=true", &n1,
      NULL);
  gfloat *b = run_chain ("afetframer energy=true device-memory=false ! "
      "afetmfcc energy=true", &n2, NULL);
  gfloat *c = run_chain ("afetmfcc energy=true", &n3, NULL);
  fail_unless (n1 > 0 && n1 == n2 && n1 == n3);
  fail_unless (memcmp (a, b, n1 * sizeof (gfloat)) == 0,
      "device and system memory differ");
  gdouble e = afetref_rel_l2_ff (a, c, (gint) (n1 / 14), 14, 0, 14);
  fail_unless (e <= 1e-6, "chain differs from afetmfcc on audio: %.3e", e);
  g_free (a);
  g_free (b);
  g_free (c);
}

GST_END_TEST;

static guint64
get_u64 (GstElement * bin, const gchar * name, const gchar * prop)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (bin), name);
  guint64 v = 0;
  g_object_get (e, prop, &v, NULL);
  gst_object_unref (e);
  return v;
}

/* afetframer ! afetmfcc ! fakesink: each audio batch goes up once (16-bit
 * samples as they came, two bytes each; other formats as floats), each
 * feature batch comes down once, nothing in between. */
GST_START_TEST (test_transfer_counts)
{
  const gint W = 400, S = 160, batch = 64;
  gint rate = 0, n_samples = 0;
  gchar *wav = example_wav ();
  gdouble *x = afetref_read_wav (wav, &rate, &n_samples);
  g_free (x);
  gint frames = afetref_num_frames (n_samples, W, S);
  gint batches = (frames + batch - 1) / batch;
  guint64 audio_samples = 0;
  for (gint b = 0; b < batches; b++) {
    gint nb = MIN (batch, frames - b * batch);
    audio_samples += (guint64) ((nb - 1) * S + W);
  }

  for (gint run = 0; run < 4; run++) {
    const gint device_memory = run < 2;
    const gchar *format = run % 2 ? "F32LE" : "S16LE";
    const guint64 audio_bytes = audio_samples * (run % 2 ? 4 : 2);
    gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
        "audioconvert ! audio/x-raw,format=%s ! afetframer name=f "
        "max-batch=%d device-memory=%s ! afetmfcc name=m ! fakesink", wav,
        format, batch, device_memory ? "true" : "false");
    GstElement *pipe = gst_parse_launch (launch, NULL);
    run_to_eos (pipe);
    guint64 fu = get_u64 (pipe, "f", "uploads");
    guint64 fub = get_u64 (pipe, "f", "upload-bytes");
    guint64 fd = get_u64 (pipe, "f", "downloads");
    guint64 mu = get_u64 (pipe, "m", "uploads");
    guint64 md = get_u64 (pipe, "m", "downloads");
    guint64 mdb = get_u64 (pipe, "m", "download-bytes");
    GST_INFO ("device memory %d: framer up %" G_GUINT64_FORMAT " down %"
        G_GUINT64_FORMAT ", mfcc up %" G_GUINT64_FORMAT " down %"
        G_GUINT64_FORMAT, device_memory, fu, fd, mu, md);
    fail_unless_equals_uint64 (fu, batches);
    fail_unless_equals_uint64 (fub, audio_bytes);
    fail_unless_equals_uint64 (mdb, (guint64) frames * 13 * sizeof (gfloat));
    if (device_memory) {
      /* afetmfcc computes each device buffer as it comes */
      fail_unless_equals_uint64 (fd, 0);
      fail_unless_equals_uint64 (mu, 0);
      fail_unless_equals_uint64 (md, batches);
    } else {
      /* the round trip device memory saves: the frames come down, and
       * afetmfcc (not live) gathers them into one batch and uploads it */
      fail_unless_equals_uint64 (fd, batches);
      fail_unless_equals_uint64 (mu, 1);
      fail_unless_equals_uint64 (md, 1);
    }
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
    g_free (launch);
  }
  g_free (wav);
}

GST_END_TEST;

static GstPadProbeReturn
count_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  guint64 *n = (guint64 *) user_data;
  n[0]++;
  n[1] += gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

/* The four-element chain: the audio goes up once per batch, the features
 * come down once per output buffer, and nothing crosses in between. */
GST_START_TEST (test_transfer_counts_chain)
{
  gchar *wav = example_wav ();
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
      "afetframer name=f max-batch=64 ! afetmfcc name=m ! afetdelta name=d ! "
      "afetcmvn name=c scope=sliding ! fakesink name=sink", wav);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  guint64 out[2] = { 0, 0 };
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffers, out,
      NULL);
  run_to_eos (pipe);
  gint rate = 0, n = 0;
  gdouble *x = afetref_read_wav (wav, &rate, &n);
  g_free (x);
  gint frames = afetref_num_frames (n, 400, 160);
  fail_unless_equals_uint64 (out[1], (guint64) frames * 39 * sizeof (gfloat));
  fail_unless_equals_uint64 (get_u64 (pipe, "f", "uploads"),
      (guint64) (frames + 63) / 64);
  fail_unless_equals_uint64 (get_u64 (pipe, "f", "downloads"), 0);
  const gchar *inner[] = { "m", "d" };
  for (guint i = 0; i < 2; i++) {
    fail_unless_equals_uint64 (get_u64 (pipe, inner[i], "uploads"), 0);
    fail_unless_equals_uint64 (get_u64 (pipe, inner[i], "downloads"), 0);
  }
  fail_unless_equals_uint64 (get_u64 (pipe, "c", "uploads"), 0);
  fail_unless_equals_uint64 (get_u64 (pipe, "c", "downloads"), out[0]);
  fail_unless_equals_uint64 (get_u64 (pipe, "c", "download-bytes"), out[1]);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  g_free (wav);
}

GST_END_TEST;

/* Every chain gives the same numbers with device memory and with system
 * memory forced between its elements. */
GST_START_TEST (test_chains_same_output)
{
  const gchar *chains[][2] = {
    {"afetmfcc ! afetdelta ! afetcmvn scope=sliding",
        "afetmfcc device-memory=false ! afetdelta device-memory=false ! "
          "afetcmvn scope=sliding"},
    {"afetframer energy=true ! afetplp energy=true ! afetdelta order=3 ! "
          "afetcmvn mode=meanvar",
        "afetframer energy=true device-memory=false ! afetplp energy=true "
          "device-memory=false ! afetdelta order=3 device-memory=false ! "
          "afetcmvn mode=meanvar"},
    {"afetmfcc num-ceps=0 num-filters=15 ! afettraps ! afetcmvn "
          "scope=running",
        "afetmfcc num-ceps=0 num-filters=15 device-memory=false ! afettraps "
          "device-memory=false ! afetcmvn scope=running"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (chains); i++)
    gst_object_unref (same_as_system_memory (chains[i]));
}

GST_END_TEST;

/* A short input's features come as one device buffer of which no batch is
 * due before the end: afetdelta and afetcmvn read them where they are (no
 * copy into their frame histories, none moved at the end); in smaller
 * buffers they are copied in.  Either way the numbers are system
 * memory's. */
GST_START_TEST (test_history_copies)
{
  const gchar *chains[][2] = {
    {"afetmfcc ! afetdelta name=d ! afetcmvn name=c",
        "afetmfcc device-memory=false ! afetdelta device-memory=false ! "
          "afetcmvn"},
    {"afetmfcc max-batch=64 ! afetdelta name=d ! afetcmvn name=c",
        "afetmfcc max-batch=64 device-memory=false ! afetdelta "
          "device-memory=false ! afetcmvn"},
    {"afetmfcc ! afetdelta name=d ! afetcmvn name=c scope=sliding",
        "afetmfcc device-memory=false ! afetdelta device-memory=false ! "
          "afetcmvn scope=sliding"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (chains); i++) {
    GstElement *pipe = same_as_system_memory (chains[i]);
    guint64 d = get_u64 (pipe, "d", "device-copies");
    guint64 c = get_u64 (pipe, "c", "device-copies");
    if (i == 1)
      fail_unless (d > 0, "%s: afetdelta copied nothing", chains[i][0]);
    else
      fail_unless (d == 0 && c == 0, "%s: %" G_GUINT64_FORMAT " and %"
          G_GUINT64_FORMAT " copies", chains[i][0], d, c);
    gst_object_unref (pipe);
  }
}

GST_END_TEST;

/* Elements linked directly share one device queue: their device buffers
 * pass with no wait between queues (device-waits 0, also for the pools'
 * buffers coming back), while a queue or an identity between two elements
 * (their own queues) makes the later one wait for the earlier one's work,
 * through the event made for it then. Either way the numbers are system
 * memory's. */
GST_START_TEST (test_shared_queue)
{
  const gchar *chains[][2] = {
    {"afetframer name=a max-batch=64 ! afetmfcc name=b ! afetdelta name=d "
          "! afetcmvn name=c scope=sliding",
        "afetframer max-batch=64 device-memory=false ! afetmfcc "
          "device-memory=false ! afetdelta device-memory=false ! afetcmvn "
          "scope=sliding"},
    {"afetmfcc name=b max-batch=64 ! queue ! afetdelta name=d ! queue "
          "max-size-buffers=2 ! afetcmvn name=c scope=sliding",
        "afetmfcc max-batch=64 device-memory=false ! afetdelta "
          "device-memory=false ! afetcmvn scope=sliding"},
    {"afetmfcc name=b ! identity ! afetdelta name=d ! identity ! afetcmvn "
          "name=c",
        "afetmfcc device-memory=false ! afetdelta device-memory=false ! "
          "afetcmvn"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (chains); i++) {
    GstElement *pipe = same_as_system_memory (chains[i]);
    guint64 d = get_u64 (pipe, "d", "device-waits");
    guint64 c = get_u64 (pipe, "c", "device-waits");
    GST_INFO ("%s: device-waits %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT,
        chains[i][0], d, c);
    if (i == 0) {
      fail_unless (d == 0 && c == 0, "%s: %" G_GUINT64_FORMAT " and %"
          G_GUINT64_FORMAT " waits", chains[i][0], d, c);
      fail_unless_equals_uint64 (get_u64 (pipe, "a", "device-waits"), 0);
      fail_unless_equals_uint64 (get_u64 (pipe, "b", "device-waits"), 0);
    } else {
      fail_unless (d > 0 && c > 0, "%s: %" G_GUINT64_FORMAT " and %"
          G_GUINT64_FORMAT " waits", chains[i][0], d, c);
    }
    gst_object_unref (pipe);
  }
}

GST_END_TEST;

/* A tee after a device-memory element feeds an afet element and a
 * filesink: both files are right. */
GST_START_TEST (test_tee)
{
  gchar *wav = example_wav ();
  gchar *frames_out = tmp_path ("frames.f32");
  gchar *mfcc_out = tmp_path ("mfcc.f32");
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
      "afetframer ! tee name=t ! queue ! afetmfcc ! filesink location=\"%s\" "
      "t. ! queue ! filesink location=\"%s\"", wav, mfcc_out, frames_out);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  run_to_eos (pipe);
  gst_element_set_state (pipe, GST_STATE_NULL);

  /* the framer's link to the tee carried device memory */
  GstElement *t = gst_bin_get_by_name (GST_BIN (pipe), "t");
  GstPad *pad = gst_element_get_static_pad (t, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  if (caps) {
    GST_INFO ("tee caps %" GST_PTR_FORMAT, caps);
    gst_caps_unref (caps);
  }
  gst_object_unref (pad);
  gst_object_unref (t);

  gint rate = 0, n = 0;
  gdouble *x = afetref_read_wav (wav, &rate, &n);
  gint frames = afetref_num_frames (n, 400, 160);
  gsize nf, nm;
  gfloat *fr = read_floats (frames_out, &nf);
  gfloat *mf = read_floats (mfcc_out, &nm);
  fail_unless_equals_int ((gint) (nf / 400), frames);
  fail_unless_equals_int ((gint) (nm / 13), frames);
  gdouble *ref = g_new (gdouble, (gsize) frames * 400);
  for (gint i = 0; i < frames; i++) {
    gdouble e;
    afetref_frame (x + (gsize) i * 160, 400, 0.97, AFETREF_WINDOW_HAMMING,
        ref + (gsize) i * 400, &e);
  }
  gdouble err = afetref_rel_l2 (fr, ref, frames, 400, 0, 400);
  fail_unless (err <= 1e-6, "frames file: %.3e", err);
  AfetRefConfig rc;
  afetref_config_init (&rc);
  rc.rate = rate;
  gint rf;
  gdouble *mref = afetref_compute (&rc, x, n, &rf);
  err = afetref_rel_l2 (mf, mref, frames, 13, 0, 12);
  fail_unless (err <= 1e-5, "mfcc file: %.3e", err);
  g_free (mref);
  g_free (ref);
  g_free (fr);
  g_free (mf);
  g_free (x);
  remove_tmp (frames_out);
  remove_tmp (mfcc_out);
  gst_object_unref (pipe);
  g_free (launch);
  g_free (frames_out);
  g_free (mfcc_out);
  g_free (wav);
}

GST_END_TEST;

/* The shared afet device (GstAfetDevice) an element uses, from a context
 * query on its src pad. */
static GObject *
element_device (GstElement * bin, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (bin), name);
  GstPad *pad = gst_element_get_static_pad (e, "src");
  GstQuery *q = gst_query_new_context ("afet.cl.context");
  fail_unless (gst_pad_query (pad, q), "no context answer from %s", name);
  GstContext *ctx = NULL;
  gst_query_parse_context (q, &ctx);
  fail_unless (ctx != NULL);
  const GValue *v = gst_structure_get_value (gst_context_get_structure (ctx),
      "context");
  fail_unless (v != NULL && G_VALUE_HOLDS_OBJECT (v));
  GObject *obj = g_value_dup_object (v);
  gst_query_unref (q);
  gst_object_unref (pad);
  gst_object_unref (e);
  return obj;
}

static gpointer
cl_context_of (GObject * shared)
{
  gpointer p = NULL;
  g_object_get (shared, "cl-context", &p, NULL);
  return p;
}

static GstElement *
paused (const gchar * launch)
{
  GstElement *pipe = gst_parse_launch (launch, NULL);
  fail_unless (pipe != NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipe, NULL, NULL, 60 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  return pipe;
}

/* Two pipelines of one process, and every afet element in each, use one
 * OpenCL device (one cl_context). */
GST_START_TEST (test_shared_device)
{
  GstElement *p1 = paused ("audiotestsrc ! audio/x-raw,rate=16000,channels=1 "
      "! afetframer name=a ! afetmfcc name=b ! fakesink");
  GstElement *p2 = paused ("audiotestsrc ! audio/x-raw,rate=8000,channels=1 "
      "! afetmfcc name=c ! fakesink");
  GObject *a = element_device (p1, "a");
  GObject *b = element_device (p1, "b");
  GObject *c = element_device (p2, "c");
  fail_unless (cl_context_of (a) != NULL);
  fail_unless (cl_context_of (a) == cl_context_of (b));
  fail_unless (cl_context_of (a) == cl_context_of (c));
  /* the two neighbours share the GstAfetDevice object itself */
  fail_unless (a == b);
  g_object_unref (a);
  g_object_unref (b);
  g_object_unref (c);
  gst_element_set_state (p1, GST_STATE_NULL);
  gst_element_set_state (p2, GST_STATE_NULL);
  gst_object_unref (p1);
  gst_object_unref (p2);
}

GST_END_TEST;

/* Precedence: a device set by the application (a GstContext) beats
 * AFET_DEVICE; an explicit device property beats both. */
GST_START_TEST (test_device_precedence)
{
  GstElement *p1 = paused ("audiotestsrc ! audio/x-raw,rate=16000,channels=1 "
      "! afetmfcc name=a ! fakesink");
  GObject *a = element_device (p1, "a");
  GstElement *e = gst_bin_get_by_name (GST_BIN (p1), "a");
  GstPad *pad = gst_element_get_static_pad (e, "src");
  GstQuery *q = gst_query_new_context ("afet.cl.context");
  fail_unless (gst_pad_query (pad, q));
  GstContext *ctx = NULL;
  gst_query_parse_context (q, &ctx);
  gst_context_ref (ctx);
  gst_query_unref (q);
  gst_object_unref (pad);
  gst_object_unref (e);

  g_setenv ("AFET_DEVICE", "no-such-device-at-all", TRUE);
  /* AFET_DEVICE alone: no device, the state change fails */
  GstElement *bad = gst_parse_launch ("audiotestsrc ! "
      "audio/x-raw,rate=16000,channels=1 ! afetmfcc ! fakesink", NULL);
  fail_unless (gst_element_set_state (bad, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (bad, GST_STATE_NULL);
  gst_object_unref (bad);

  /* with the application's device: it is used */
  GstElement *p2 = gst_parse_launch ("audiotestsrc ! "
      "audio/x-raw,rate=16000,channels=1 ! afetmfcc name=b ! fakesink", NULL);
  gst_element_set_context (p2, ctx);
  fail_unless (gst_element_set_state (p2, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (p2, NULL, NULL, 60 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  GObject *b = element_device (p2, "b");
  fail_unless (cl_context_of (a) == cl_context_of (b));

  /* an explicit device property wins over AFET_DEVICE */
  GstElement *p3 = paused ("audiotestsrc ! audio/x-raw,rate=16000,channels=1 "
      "! afetmfcc device=0:0 ! fakesink");
  g_unsetenv ("AFET_DEVICE");

  g_object_unref (a);
  g_object_unref (b);
  gst_context_unref (ctx);
  gst_element_set_state (p1, GST_STATE_NULL);
  gst_element_set_state (p2, GST_STATE_NULL);
  gst_element_set_state (p3, GST_STATE_NULL);
  gst_object_unref (p1);
  gst_object_unref (p2);
  gst_object_unref (p3);
}

GST_END_TEST;

static Suite *
devicememory_suite (void)
{
  Suite *s = suite_create ("devicememory");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_same_output_device_and_system);
  tcase_add_test (tc, test_transfer_counts);
  tcase_add_test (tc, test_transfer_counts_chain);
  tcase_add_test (tc, test_chains_same_output);
  tcase_add_test (tc, test_history_copies);
  tcase_add_test (tc, test_shared_queue);
  tcase_add_test (tc, test_tee);
  tcase_add_test (tc, test_shared_device);
  tcase_add_test (tc, test_device_precedence);
  return s;
}

GST_CHECK_MAIN (devicememory);
