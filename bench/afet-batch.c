/* afet-batch: runs "filesrc ! wavparse ! ELEMENT ! filesink" once per file,
 * for many files, in ONE process, so that the OpenCL context that afet shares
 * per process is created once.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Benchmark helper, not installed.
 *
 *   afet-batch [-e ELEMENT] [-s PROP=VALUE]... [-j N] LIST
 *
 * LIST holds one "INPUT.wav<TAB>OUTPUT" pair per line ("-" = stdin). The
 * output files get the raw F32LE frames (no header). The first file runs on
 * its own, so its time is the cold start of the process (context, kernel
 * builds, FFT plans); the others then run on N threads, one pipeline each
 * at a time. At the end one line is printed to stdout:
 *
 *   AFET_BATCH {"init_s":..., "first_s":..., "rest_s":..., "total_s":...,
 *               "files":..., "frames":..., "dims":..., "device":"..."}
 *
 * init_s: gst_init (plugin registry); first_s: the first file; rest_s: all
 * the others (wall clock); total_s: from main() to the end.
 *
 * Build (bench.py does this):
 *   cc -O2 -o afet-batch afet-batch.c $(pkg-config --cflags --libs gstreamer-1.0)
 */

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  gchar *in;
  gchar *out;
} Job;

typedef struct
{
  const gchar *element;
  gchar **props;                /* NULL-terminated "key=value" */
  Job *jobs;
  guint n_jobs;
  gint next;                    /* atomic index of the next job */
  gint failed;                  /* atomic */
  GMutex lock;
  gint64 frames;
  gint dims;
  gchar *device;
} Batch;

static gchar *
json_escape (const gchar * s)
{
  GString *o = g_string_new (NULL);
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\')
      g_string_append_printf (o, "\\%c", *s);
    else if ((guchar) * s < 0x20)
      g_string_append_printf (o, "\\u%04x", (guchar) * s);
    else
      g_string_append_c (o, *s);
  }
  return g_string_free (o, FALSE);
}

static GstElement *
make (const gchar * factory, const gchar * name)
{
  GstElement *e = gst_element_factory_make (factory, name);
  if (!e)
    g_printerr ("afet-batch: no element \"%s\" (GST_PLUGIN_PATH=%s)\n",
        factory, g_getenv ("GST_PLUGIN_PATH") ? g_getenv ("GST_PLUGIN_PATH")
        : "");
  return e;
}

/* Runs one file to EOS. Returns TRUE on success. */
static gboolean
run_one (Batch * b, const Job * job)
{
  GstElement *pipe = gst_pipeline_new (NULL);
  GstElement *src = make ("filesrc", NULL);
  GstElement *parse = make ("wavparse", NULL);
  GstElement *feat = make (b->element, NULL);
  GstElement *sink = make ("filesink", NULL);
  gboolean ok = FALSE;

  if (!src || !parse || !feat || !sink) {
    g_clear_object (&src);
    g_clear_object (&parse);
    g_clear_object (&feat);
    g_clear_object (&sink);
    gst_object_unref (pipe);
    return FALSE;
  }
  g_object_set (src, "location", job->in, NULL);
  g_object_set (sink, "location", job->out, "sync", FALSE, NULL);
  for (gchar ** p = b->props; p && *p; p++) {
    gchar **kv = g_strsplit (*p, "=", 2);
    if (!kv[0] || !kv[1]) {
      g_printerr ("afet-batch: -s wants PROP=VALUE, got \"%s\"\n", *p);
      g_strfreev (kv);
      gst_object_unref (pipe);
      return FALSE;
    }
    gst_util_set_object_arg (G_OBJECT (feat), kv[0], kv[1]);
    g_strfreev (kv);
  }
  gst_bin_add_many (GST_BIN (pipe), src, parse, feat, sink, NULL);
  if (!gst_element_link_many (src, parse, feat, sink, NULL)) {
    g_printerr ("afet-batch: cannot link the pipeline\n");
    gst_object_unref (pipe);
    return FALSE;
  }

  GstBus *bus = gst_element_get_bus (pipe);
  /* On a failed state change the error is on the bus already. */
  gboolean started = gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE;
  GstMessage *msg = gst_bus_timed_pop_filtered (bus,
      started ? GST_CLOCK_TIME_NONE : 0,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!started && !msg)
    g_printerr ("afet-batch: %s: cannot start the pipeline\n", job->in);
  if (!started && msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
    gst_message_unref (msg);
    msg = NULL;
  }
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    g_printerr ("afet-batch: %s: %s (%s)\n", job->in, err->message,
        dbg ? dbg : "");
    g_clear_error (&err);
    g_free (dbg);
  } else if (msg) {
    ok = TRUE;
  }
  if (msg)
    gst_message_unref (msg);

  gint dims = 0;
  gchar *device = NULL;
  if (ok) {
    GstPad *pad = gst_element_get_static_pad (feat, "src");
    GstCaps *caps = gst_pad_get_current_caps (pad);
    if (caps) {
      gst_structure_get_int (gst_caps_get_structure (caps, 0), "dims", &dims);
      gst_caps_unref (caps);
    }
    gst_object_unref (pad);
    if (g_object_class_find_property (G_OBJECT_GET_CLASS (feat),
            "device-name"))
      g_object_get (feat, "device-name", &device, NULL);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);

  if (ok) {
    GStatBuf st;
    gint64 frames = 0;
    if (g_stat (job->out, &st) == 0 && dims > 0)
      frames = (gint64) st.st_size / (gint64) (dims * sizeof (gfloat));
    g_mutex_lock (&b->lock);
    b->frames += frames;
    if (dims > 0)
      b->dims = dims;
    if (device && !b->device)
      b->device = g_strdup (device);
    g_mutex_unlock (&b->lock);
  }
  g_free (device);
  return ok;
}

static gpointer
worker (gpointer data)
{
  Batch *b = data;
  for (;;) {
    gint i = g_atomic_int_add (&b->next, 1);
    if (i >= (gint) b->n_jobs || g_atomic_int_get (&b->failed))
      break;
    if (!run_one (b, &b->jobs[i]))
      g_atomic_int_set (&b->failed, 1);
  }
  return NULL;
}

static gboolean
read_list (const gchar * path, GArray * jobs)
{
  gchar *text = NULL;
  GError *err = NULL;
  gboolean ok;

  if (g_strcmp0 (path, "-") == 0) {
    GString *s = g_string_new (NULL);
    gchar buf[65536];
    size_t n;
    while ((n = fread (buf, 1, sizeof buf, stdin)) > 0)
      g_string_append_len (s, buf, (gssize) n);
    text = g_string_free (s, FALSE);
    ok = TRUE;
  } else {
    ok = g_file_get_contents (path, &text, NULL, &err);
    if (!ok) {
      g_printerr ("afet-batch: %s\n", err->message);
      g_clear_error (&err);
      return FALSE;
    }
  }
  gchar **lines = g_strsplit (text, "\n", -1);
  for (gchar ** l = lines; *l; l++) {
    g_strchomp (*l);
    if (!**l || **l == '#')
      continue;
    gchar **f = g_strsplit (*l, "\t", 2);
    if (!f[0] || !f[1]) {
      g_printerr ("afet-batch: list line without a TAB: \"%s\"\n", *l);
      g_strfreev (f);
      ok = FALSE;
      break;
    }
    Job j = { g_strdup (f[0]), g_strdup (f[1]) };
    g_array_append_val (jobs, j);
    g_strfreev (f);
  }
  g_strfreev (lines);
  g_free (text);
  return ok;
}

int
main (int argc, char **argv)
{
  gint64 t0 = g_get_monotonic_time ();
  gchar *element = NULL;
  gchar **props = NULL;
  gint jobs_n = 1;
  GOptionEntry entries[] = {
    {"element", 'e', 0, G_OPTION_ARG_STRING, &element,
        "Feature element (default afetmfcc)", "NAME"},
    {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &props,
        "Set an element property (repeatable)", "PROP=VALUE"},
    {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs_n,
        "Pipelines running at once after the first file (default 1)", "N"},
    {NULL, 0, 0, G_OPTION_ARG_NONE, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("LIST  - one \"IN<TAB>OUT\" "
      "pair per line; - reads stdin");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *err = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("afet-batch: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (argc != 2) {
    g_printerr ("usage: afet-batch [-e ELEMENT] [-s PROP=VALUE]... [-j N] "
        "LIST\n");
    return 2;
  }
  if (jobs_n < 1)
    jobs_n = 1;

  GArray *jobs = g_array_new (FALSE, FALSE, sizeof (Job));
  if (!read_list (argv[1], jobs) || jobs->len == 0) {
    g_printerr ("afet-batch: no files to process\n");
    return 2;
  }

  gint64 ti = g_get_monotonic_time ();
  gst_init (NULL, NULL);
  gint64 tf = g_get_monotonic_time ();

  Batch b = { 0 };
  b.element = element ? element : "afetmfcc";
  b.props = props;
  b.jobs = (Job *) jobs->data;
  b.n_jobs = jobs->len;
  b.next = 1;
  g_mutex_init (&b.lock);

  gboolean ok = run_one (&b, &b.jobs[0]);
  gint64 t1 = g_get_monotonic_time ();
  if (ok && b.n_jobs > 1) {
    gint n = MIN (jobs_n, (gint) b.n_jobs - 1);
    GThread **threads = g_new0 (GThread *, n);
    for (gint i = 0; i < n; i++)
      threads[i] = g_thread_new ("afet-batch", worker, &b);
    for (gint i = 0; i < n; i++)
      g_thread_join (threads[i]);
    g_free (threads);
    ok = !g_atomic_int_get (&b.failed);
  }
  gint64 t2 = g_get_monotonic_time ();

  gchar *dev = json_escape (b.device ? b.device : "");
  printf ("AFET_BATCH {\"ok\": %s, \"init_s\": %.6f, \"first_s\": %.6f, "
      "\"rest_s\": %.6f, \"total_s\": %.6f, \"files\": %u, "
      "\"frames\": %" G_GINT64_FORMAT ", \"dims\": %d, \"jobs\": %d, "
      "\"device\": \"%s\"}\n", ok ? "true" : "false", (tf - ti) / 1e6,
      (t1 - tf) / 1e6, (t2 - t1) / 1e6, (t2 - t0) / 1e6, b.n_jobs, b.frames,
      b.dims, jobs_n, dev);
  fflush (stdout);
  g_free (dev);
  return ok ? 0 : 1;
}
