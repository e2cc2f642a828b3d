/* afet-live-cpu: what live streams cost the CPU, afet chains against identity
 * in one process at real speed.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * N pipelines
 *
 *   audiotestsrc is-live=true wave=white-noise samplesperbuffer=160
 *     num-buffers=SECONDS*100 ! audio/x-raw,rate=16000,channels=1,
 *     format=S16LE ! CHAIN ! filesink location=/dev/null sync=false
 *
 * run in this process at real speed, after one warm-up pipeline of the same
 * chain (1 s of audio); the process' CPU time (user + sys, getrusage) from
 * the switch to PLAYING to the last EOS is measured, and the same with
 * identity as CHAIN in the same round; the difference per stream and second
 * of audio, the median over R rounds, is the chain's cost, in % of one
 * core. Real time: every stream reaches EOS
 * within SECONDS + 2 s of the switch to PLAYING. Prints one line a chain;
 * exit status 1 when a pipeline fails or falls behind.
 *
 *   afet-live-cpu [--streams N] [--seconds S] [--repeats R] CHAIN...
 */
#include <gst/gst.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

typedef struct
{
  GstElement *pipe;
  gboolean eos;
  gdouble eos_at;
} Stream;

typedef struct
{
  GMainLoop *loop;
  Stream *streams;
  gint n;
  gint left;
  gdouble t0;
  gboolean failed;
} Run;

static gdouble
now_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

static gdouble
cpu_s (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Run *run = data;
  Stream *s = g_object_get_data (G_OBJECT (bus), "stream");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("afet-live-cpu: %s: %s\n", GST_OBJECT_NAME (msg->src),
        err->message);
    g_clear_error (&err);
    run->failed = TRUE;
    g_main_loop_quit (run->loop);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS && !s->eos) {
    s->eos = TRUE;
    s->eos_at = now_s () - run->t0;
    if (--run->left == 0)
      g_main_loop_quit (run->loop);
  }
  return TRUE;
}

/* Runs n pipelines of chain for seconds of audio; their CPU time, the
 * latest EOS (s after PLAYING) in *late; -1 on failure. */
static gdouble
run_chain (const gchar * chain, gint n, gdouble seconds, gdouble * late)
{
  Run run = { 0 };
  run.loop = g_main_loop_new (NULL, FALSE);
  run.streams = g_new0 (Stream, n);
  run.n = run.left = n;
  gchar *desc = g_strdup_printf ("audiotestsrc is-live=true "
      "wave=white-noise samplesperbuffer=160 num-buffers=%d ! "
      "audio/x-raw,rate=16000,channels=1,format=S16LE ! %s ! "
      "filesink location=/dev/null sync=false", (gint) lround (seconds *
          100.0), chain);
  for (gint i = 0; i < n; i++) {
    GError *err = NULL;
    run.streams[i].pipe = gst_parse_launch (desc, &err);
    if (!run.streams[i].pipe) {
      g_printerr ("afet-live-cpu: %s: %s\n", desc, err->message);
      exit (2);
    }
    GstBus *bus = gst_element_get_bus (run.streams[i].pipe);
    g_object_set_data (G_OBJECT (bus), "stream", &run.streams[i]);
    gst_bus_add_watch (bus, on_message, &run);
    gst_object_unref (bus);
  }
  g_free (desc);
  gdouble c0 = cpu_s ();
  run.t0 = now_s ();
  for (gint i = 0; i < n; i++)
    gst_element_set_state (run.streams[i].pipe, GST_STATE_PLAYING);
  g_main_loop_run (run.loop);
  gdouble cpu = cpu_s () - c0;
  *late = 0.0;
  for (gint i = 0; i < n; i++) {
    *late = MAX (*late, run.streams[i].eos_at);
    gst_element_set_state (run.streams[i].pipe, GST_STATE_NULL);
    GstBus *bus = gst_element_get_bus (run.streams[i].pipe);
    gst_bus_remove_watch (bus);
    gst_object_unref (bus);
    gst_object_unref (run.streams[i].pipe);
  }
  g_free (run.streams);
  g_main_loop_unref (run.loop);
  return run.failed ? -1.0 : cpu;
}

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  gint streams = 1, repeats = 1;
  gdouble seconds = 30.0;
  GOptionEntry entries[] = {
    {"streams", 'n', 0, G_OPTION_ARG_INT, &streams,
        "Live pipelines side by side in this process (default 1)", "N"},
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &seconds,
        "Seconds of audio each stream carries (default 30)", "S"},
    {"repeats", 'r', 0, G_OPTION_ARG_INT, &repeats,
        "Rounds of identity and every chain; the median is reported (default 1)", "R"},
    {NULL}
  };
  GError *err = NULL;
  GOptionContext *ctx = g_option_context_new ("CHAIN... - the CPU cost of "
      "live streams");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err) || argc < 2 ||
      streams < 1 || seconds < 1 || repeats < 1) {
    g_printerr ("usage: afet-live-cpu [--streams N] [--seconds S] "
        "[--repeats R] CHAIN...%s%s\n", err ? ": " : "",
        err ? err->message : "");
    return 2;
  }
  g_option_context_free (ctx);

  /* rounds: identity, then every chain, R times; a chain's cost is the
   * median over the rounds of its CPU less the same round's identity, so
   * that drifts of the machine's load fall on both */
  const gint n = argc;          /* identity and argc - 1 chains */
  gdouble *cpu = g_new0 (gdouble, (gsize) (guint) n * (guint) repeats);
  gdouble *late = g_new0 (gdouble, (guint) n);
  gboolean ok = TRUE;
  g_print ("%d live 16 kHz streams x %.0f s, 10 ms buffers; CPU of one core "
      "per stream, less identity's (median of %d rounds, identity in each)\n",
      streams, seconds, repeats);
  for (gint c = 0; c < n; c++) {
    gdouble l = 0.0;
    run_chain (c == 0 ? "identity" : argv[c], 1, 1.0, &l);      /* warm-up */
  }
  for (gint r = 0; r < repeats && ok; r++) {
    for (gint c = 0; c < n && ok; c++) {
      gdouble l = 0.0;
      gdouble v = run_chain (c == 0 ? "identity" : argv[c], streams, seconds,
          &l);
      if (v < 0)
        ok = FALSE;
      cpu[c * repeats + r] = v;
      late[c] = MAX (late[c], l);
    }
  }
  if (!ok) {
    g_printerr ("a pipeline failed\n");
    return 1;
  }
  gdouble *d = g_new (gdouble, (guint) repeats);
  for (gint c = 0; c < n; c++) {
    const gchar *chain = c == 0 ? "identity" : argv[c];
    for (gint r = 0; r < repeats; r++)
      d[r] = c == 0 ? cpu[r] : cpu[c * repeats + r] - cpu[r];
    qsort (d, (size_t) repeats, sizeof (gdouble), cmp_double);
    gdouble med = repeats % 2 ? d[repeats / 2] :
        (d[repeats / 2 - 1] + d[repeats / 2]) / 2;
    gboolean rt = late[c] <= seconds + 2.0;
    ok = ok && rt;
    const gdouble k = 100.0 / (seconds * streams);
    if (c == 0)
      g_print ("  %-60s %7.2f s CPU (median), last EOS at %.2f s\n", chain,
          med, late[c]);
    else
      g_print ("  %-60s last EOS at %.2f s%s: %.2f %% of a core per stream "
          "(rounds %.2f .. %.2f)\n", chain, late[c], rt ? "" :
          " (behind real time)", k * med, k * d[0], k * d[repeats - 1]);
  }
  g_free (d);
  g_free (cpu);
  g_free (late);
  return ok ? 0 : 1;
}
