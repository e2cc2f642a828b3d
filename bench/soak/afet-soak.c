/* afet-soak: streams hours of audio through live-clocked afet chains and
 * records memory, threads, file descriptors, CPU time and frame counts over
 * time.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Benchmark tool, not a test, not installed. See README.md next to
 * this file.
 *
 * Each of --streams pipelines is
 *
 *   audiotestsrc is-live=true wave=white-noise samplesperbuffer=160
 *       num-buffers=HOURS*360000
 *   ! audio/x-raw,rate=16000,channels=1,format=S16LE
 *   ! CHAIN ! appsink name=out sync=false emit-signals=false
 *
 * and all of them run in this one process on one clock that advances
 * --speed times faster than real time (SoakClock, soak-clock.c), so the live
 * sources deliver audio --speed times faster than a microphone would, but
 * buffer by buffer and evenly paced, as a live source does.
 */

#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <glib-unix.h>
#include <glib/gstdio.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "soak-clock.h"

#define DEFAULT_CHAIN "afetmfcc ! afetdelta ! afetcmvn scope=sliding"
#define SRC_RATE 16000
#define SAMPLES_PER_BUFFER 160
#define MAX_REPORTED 5          /* violations printed per stream and kind */
#define LAT_BIN (100 * GST_USECOND)
#define LAT_BINS 10000          /* up to 1 s */

/* ------------------------------------------------------------------------ */

typedef struct
{
  guint idx;
  GstElement *pipeline;
  GstElement *src;
  GstElement *sink;
  guint bus_watch;

  GMutex lock;                  /* everything below, read by the sampler */
  guint64 src_samples;          /* samples audiotestsrc pushed */
  guint64 src_buffers;
  GstClockTimeDiff src_lag;     /* last: clock running time - buffer end */
  GstClockTimeDiff src_lag_max;  /* largest since the last sample */
  guint64 src_late;             /* buffers pushed more than one buffer
                                 * duration behind the clock */
  guint64 frames;               /* frames received by the appsink */
  guint64 buffers;
  guint64 bad_offset;           /* OFFSET != frames counted so far */
  guint64 bad_pts_back;         /* PTS < previous PTS */
  guint64 bad_pts_value;        /* PTS != first PTS + OFFSET x shift / rate */
  guint64 bad_size;             /* size not a multiple of dims x 4 */
  guint64 nonfinite;            /* NaN or Inf values */
  GstClockTime first_pts, last_pts;
  gint dims, rate, frame_length, frame_shift;
  gchar *caps_str;
  /* added latency of each output frame after the first second: from the
   * push of the source buffer that completes the frame (its own samples
   * and the chain's look-ahead) to the frame reaching the appsink, in
   * bins of LAT_BIN of wall time */
  gint ahead;                   /* look-ahead frames; -1: not known yet */
  GstClockTime chain_latency;   /* the chain's reported minimum latency */
  guint64 *lat_hist;
  guint64 lat_n, lat_over;
  GstClockTimeDiff lat_max;

  /* main thread only */
  gboolean eos, error, done;
  guint n_warnings;
  gint64 done_wall_us;
  /* wall time (from t0_us) when its set_state (PLAYING) was called */
  gint64 set_us;
  /* wall time (from t0_us) of the first source buffer and of the first
   * output; -1 before (under lock) */
  gint64 first_src_us, first_out_us;
} Stream;

typedef struct
{
  /* options */
  gint n_streams;
  gdouble hours;
  gdouble speed;
  gchar *chain;
  gdouble interval;
  gchar *csv_path;
  gdouble warmup;

  gboolean plain_clock;
  gboolean warm_start;
  gboolean brief;

  GstClock *clock;
  Stream *streams;
  GMainLoop *loop;
  FILE *csv;
  guint64 num_buffers;          /* per stream */
  guint n_done;
  guint sigint_count;
  gboolean interrupted;
  gint64 t0_us;                 /* before the first set_state (PLAYING) */
  gint64 playing_us;            /* the last set_state returned (from t0) */
  GstClockTime clock_t0;
  gint64 prev_wall_us;
  GstClockTime prev_clock;

  /* samples */
  gboolean have_warm;
  gdouble warm_wall, warm_audio;
  glong warm_rss;
  gdouble last_audio;
  gdouble prev_audio, prev_src;
  GstClockTimeDiff lag_max, lag_max_warm;
  glong last_rss, last_hwm;
  gdouble clock_rate_min, clock_rate_max;       /* per interval */
  guint n_samples;
  GString *errors;              /* every ERROR and WARNING, for the summary */
} Soak;

static Soak soak;

/* ---- /proc and getrusage ------------------------------------------------ */

typedef struct
{
  glong rss_kb, hwm_kb, threads, fds;
  gdouble cpu_s;
} ProcStats;

static void
read_proc (ProcStats * ps)
{
  memset (ps, 0, sizeof *ps);
  ps->rss_kb = ps->hwm_kb = ps->threads = ps->fds = -1;
  FILE *f = fopen ("/proc/self/status", "r");
  if (f) {
    char line[256];
    while (fgets (line, sizeof line, f)) {
      if (!strncmp (line, "VmRSS:", 6))
        ps->rss_kb = strtol (line + 6, NULL, 10);
      else if (!strncmp (line, "VmHWM:", 6))
        ps->hwm_kb = strtol (line + 6, NULL, 10);
      else if (!strncmp (line, "Threads:", 8))
        ps->threads = strtol (line + 8, NULL, 10);
    }
    fclose (f);
  }
  GDir *d = g_dir_open ("/proc/self/fd", 0, NULL);
  if (d) {
    glong n = 0;
    while (g_dir_read_name (d))
      n++;
    g_dir_close (d);
    ps->fds = n - 1;            /* less the one g_dir_open holds */
  }
  struct rusage ru;
  if (getrusage (RUSAGE_SELF, &ru) == 0)
    ps->cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
        ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* ---- frame arithmetic --------------------------------------------------- */

/* Frames for n samples with frames of length L every S samples and the
 * incomplete last frame dropped (the default pad=false). */
static guint64
frames_for (guint64 n, gint L, gint S)
{
  if (L <= 0 || S <= 0 || n < (guint64) L)
    return 0;
  return (n - (guint64) L) / (guint64) S + 1;
}

/* Framing of the stream: from the output caps once they are known,
 * otherwise the defaults (25 ms / 10 ms at 16 kHz). Called with s->lock. */
static void
framing_of (Stream * s, gint * L, gint * S)
{
  *L = s->frame_length > 0 ? s->frame_length : 400;
  *S = s->frame_shift > 0 ? s->frame_shift : 160;
}

/* ---- streaming-thread callbacks ----------------------------------------- */

static GstPadProbeReturn
src_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Stream *s = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 n = gst_buffer_get_size (buf) / 2;
  GstClockTimeDiff lag = 0;
  GstClockTime pts = GST_BUFFER_PTS (buf);
  GstClockTime dur = gst_util_uint64_scale (n, GST_SECOND, SRC_RATE);
  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    GstClockTime end = pts + dur;
    GstClockTime now = gst_clock_get_time (soak.clock);
    GstClockTime base = gst_element_get_base_time (s->src);
    lag = GST_CLOCK_DIFF (end, now - base);
  }
  g_mutex_lock (&s->lock);
  if (s->first_src_us < 0)
    s->first_src_us = g_get_monotonic_time () - soak.t0_us;
  s->src_samples += n;
  s->src_buffers++;
  s->src_lag = lag;
  if (lag > s->src_lag_max)
    s->src_lag_max = lag;
  if (lag > (GstClockTimeDiff) dur)
    s->src_late++;
  g_mutex_unlock (&s->lock);
  return GST_PAD_PROBE_OK;
}

static void
read_caps (Stream * s, GstCaps * caps)
{
  GstStructure *st = gst_caps_get_structure (caps, 0);
  gint v;
  if (gst_structure_get_int (st, "dims", &v))
    s->dims = v;
  if (gst_structure_get_int (st, "rate", &v))
    s->rate = v;
  if (gst_structure_get_int (st, "frame-length", &v))
    s->frame_length = v;
  if (gst_structure_get_int (st, "frame-shift", &v))
    s->frame_shift = v;
  g_free (s->caps_str);
  s->caps_str = gst_caps_to_string (caps);
}

static GstFlowReturn
on_new_sample (GstAppSink * sink, gpointer user_data)
{
  Stream *s = user_data;
  GstSample *sample = gst_app_sink_pull_sample (sink);
  if (!sample)
    return GST_FLOW_EOS;
  GstBuffer *buf = gst_sample_get_buffer (sample);
  GstCaps *caps = gst_sample_get_caps (sample);

  /* count non-finite values outside the lock */
  guint64 nonfinite = 0;
  GstMapInfo map;
  if (buf && gst_buffer_map (buf, &map, GST_MAP_READ)) {
    const float *x = (const float *) map.data;
    for (gsize i = 0; i < map.size / sizeof (float); i++)
      if (!isfinite (x[i]))
        nonfinite++;
    gst_buffer_unmap (buf, &map);
  }

  g_mutex_lock (&s->lock);
  if (s->first_out_us < 0)
    s->first_out_us = g_get_monotonic_time () - soak.t0_us;
  if (caps && (s->dims <= 0 || s->buffers == 0))
    read_caps (s, caps);
  if (s->ahead < 0 && s->frame_shift > 0 && s->rate > 0) {
    /* the chain's look-ahead, from its latency minus the source's (one
     * buffer) and the frame itself */
    GstQuery *q = gst_query_new_latency ();
    GstPad *pad = gst_element_get_static_pad (s->sink, "sink");
    gboolean live;
    GstClockTime min = 0, max;
    if (gst_pad_peer_query (pad, q))
      gst_query_parse_latency (q, &live, &min, &max);
    gst_object_unref (pad);
    gst_query_unref (q);
    GstClockTime src_lat = gst_util_uint64_scale (SAMPLES_PER_BUFFER,
        GST_SECOND, SRC_RATE);
    s->chain_latency = min > src_lat ? min - src_lat : 0;
    gint64 extra = (gint64) gst_util_uint64_scale (s->chain_latency,
        (guint64) s->rate, GST_SECOND) - s->frame_length;
    s->ahead = extra > 0 ? (gint) ((extra + s->frame_shift / 2) /
        s->frame_shift) : 0;
  }
  if (buf && s->ahead >= 0 && GST_CLOCK_TIME_IS_VALID (s->first_pts)) {
    GstClockTime now = gst_clock_get_time (soak.clock) -
        gst_element_get_base_time (s->sink);
    guint64 n = gst_buffer_get_size (buf) / ((gsize) MAX (s->dims, 1) *
        sizeof (float));
    for (guint64 i = 0; i < n; i++) {
      guint64 t = s->frames + i;
      guint64 e = (t + (guint64) s->ahead) * (guint64) s->frame_shift +
          (guint64) s->frame_length;
      /* audiotestsrc pushes a live buffer at its PTS (its start) */
      guint64 start = (e - 1) / SAMPLES_PER_BUFFER * SAMPLES_PER_BUFFER;
      GstClockTime arrival = s->first_pts + gst_util_uint64_scale (start,
          GST_SECOND, SRC_RATE);
      if (arrival < s->first_pts + GST_SECOND)
        continue;
      GstClockTimeDiff d = (GstClockTimeDiff) ((GST_CLOCK_DIFF (arrival, now))
          / soak.speed);
      if (d < 0)
        d = 0;
      if (d > s->lat_max)
        s->lat_max = d;
      if (d / LAT_BIN < LAT_BINS)
        s->lat_hist[d / LAT_BIN]++;
      else
        s->lat_over++;
      s->lat_n++;
    }
  }
  if (buf) {
    gsize size = gst_buffer_get_size (buf);
    gsize row = (gsize) MAX (s->dims, 1) * sizeof (float);
    guint64 n = size / row;
    guint64 off = GST_BUFFER_OFFSET (buf);
    GstClockTime pts = GST_BUFFER_PTS (buf);

    if (size % row) {
      if (s->bad_size++ < MAX_REPORTED)
        g_printerr ("afet-soak: stream %u: buffer %" G_GUINT64_FORMAT
            " of %" G_GSIZE_FORMAT " bytes is not whole frames of %d "
            "floats\n", s->idx, s->buffers, size, s->dims);
    }
    if (off != s->frames) {
      if (s->bad_offset++ < MAX_REPORTED)
        g_printerr ("afet-soak: stream %u: buffer %" G_GUINT64_FORMAT
            " has offset %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT
            "\n", s->idx, s->buffers, off, s->frames);
    }
    if (GST_CLOCK_TIME_IS_VALID (pts)) {
      if (GST_CLOCK_TIME_IS_VALID (s->last_pts) && pts < s->last_pts) {
        if (s->bad_pts_back++ < MAX_REPORTED)
          g_printerr ("afet-soak: stream %u: buffer %" G_GUINT64_FORMAT
              " PTS %" GST_TIME_FORMAT " < previous %" GST_TIME_FORMAT "\n",
              s->idx, s->buffers, GST_TIME_ARGS (pts),
              GST_TIME_ARGS (s->last_pts));
      }
      if (!GST_CLOCK_TIME_IS_VALID (s->first_pts))
        s->first_pts = pts;
      else if (s->rate > 0 && s->frame_shift > 0) {
        GstClockTime want = s->first_pts + gst_util_uint64_scale (s->frames *
            (guint64) s->frame_shift, GST_SECOND, (guint64) s->rate);
        if (GST_CLOCK_DIFF (want, pts) > GST_USECOND ||
            GST_CLOCK_DIFF (pts, want) > GST_USECOND) {
          if (s->bad_pts_value++ < MAX_REPORTED)
            g_printerr ("afet-soak: stream %u: buffer %" G_GUINT64_FORMAT
                " PTS %" GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT
                " (first PTS + frames x shift)\n", s->idx, s->buffers,
                GST_TIME_ARGS (pts), GST_TIME_ARGS (want));
        }
      }
      s->last_pts = pts;
    }
    s->nonfinite += nonfinite;
    s->frames += n;
    s->buffers++;
  }
  g_mutex_unlock (&s->lock);
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

/* ---- sampling ----------------------------------------------------------- */

static gdouble
wall_now (void)
{
  return (g_get_monotonic_time () - soak.t0_us) / 1e6;
}

/* Takes one sample: prints it and appends it to the CSV file. */
static void
take_sample (const char *tag)
{
  ProcStats ps;
  read_proc (&ps);
  gint64 now_us = g_get_monotonic_time ();
  gdouble wall = (now_us - soak.t0_us) / 1e6;
  GstClockTime clk = gst_clock_get_time (soak.clock);
  gdouble clock_s = GST_CLOCK_DIFF (soak.clock_t0, clk) / 1e9;

  guint64 frames = 0, expected = 0, buffers = 0;
  gdouble audio_min = -1, src_min = -1;
  GstClockTimeDiff lag_max = 0;
  for (gint i = 0; i < soak.n_streams; i++) {
    Stream *s = &soak.streams[i];
    gint L, S;
    g_mutex_lock (&s->lock);
    framing_of (s, &L, &S);
    if (s->src_lag_max > lag_max)
      lag_max = s->src_lag_max;
    s->src_lag_max = 0;
    gint rate = s->rate > 0 ? s->rate : SRC_RATE;
    gdouble audio = (gdouble) s->frames * S / rate;
    gdouble src = (gdouble) s->src_samples / SRC_RATE;
    frames += s->frames;
    buffers += s->buffers;
    expected += frames_for (s->src_samples, L, S);
    g_mutex_unlock (&s->lock);
    if (audio_min < 0 || audio < audio_min)
      audio_min = audio;
    if (src_min < 0 || src < src_min)
      src_min = src;
  }

  /* clock rate over the last interval, to show the acceleration holds */
  gdouble dwall = (now_us - soak.prev_wall_us) / 1e6;
  gdouble clock_x = dwall > 0.05 ?
      GST_CLOCK_DIFF (soak.prev_clock, clk) / 1e9 / dwall : 0;
  if (dwall > 0.5) {
    if (soak.n_samples == 0 || clock_x < soak.clock_rate_min)
      soak.clock_rate_min = clock_x;
    if (soak.n_samples == 0 || clock_x > soak.clock_rate_max)
      soak.clock_rate_max = clock_x;
    soak.n_samples++;
  }
  /* audio rate over the last interval: output and sources */
  gdouble xrt = dwall > 0.05 ? (audio_min - soak.prev_audio) / dwall : 0;
  gdouble src_xrt = dwall > 0.05 ? (src_min - soak.prev_src) / dwall : 0;
  soak.prev_wall_us = now_us;
  soak.prev_clock = clk;
  soak.prev_audio = audio_min;
  soak.prev_src = src_min;
  if (lag_max > soak.lag_max)
    soak.lag_max = lag_max;
  if (soak.have_warm && lag_max > soak.lag_max_warm)
    soak.lag_max_warm = lag_max;

  printf ("%-5s wall %7.1f s  audio %8.1f s  x %5.1f (src %5.1f, clock %5.2f)"
      "  frames %10" G_GUINT64_FORMAT "/%-10" G_GUINT64_FORMAT "  RSS %7ld kB"
      "  HWM %7ld kB  thr %3ld  fds %3ld  cpu %7.1f s  lag %6.1f ms\n", tag,
      wall, audio_min, xrt, src_xrt, clock_x, frames, expected, ps.rss_kb,
      ps.hwm_kb, ps.threads, ps.fds, ps.cpu_s, lag_max / 1e6);
  fflush (stdout);
  if (soak.csv) {
    fprintf (soak.csv, "%.3f,%.3f,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%ld,%ld,%ld,%ld,%.3f,%.3f,%.3f,%.3f,%" G_GUINT64_FORMAT ",%s\n",
        wall, audio_min, frames, expected, ps.rss_kb, ps.hwm_kb, ps.threads,
        ps.fds, ps.cpu_s, src_min, clock_s, lag_max / 1e6, buffers, tag);
    fflush (soak.csv);
  }

  if (!soak.have_warm && audio_min >= soak.warmup * soak.hours * 3600.0) {
    soak.have_warm = TRUE;
    soak.warm_wall = wall;
    soak.warm_audio = audio_min;
    soak.warm_rss = ps.rss_kb;
  }
  soak.last_audio = audio_min;
  soak.last_rss = ps.rss_kb;
  soak.last_hwm = ps.hwm_kb;
}

static gboolean
on_interval (gpointer user_data)
{
  take_sample ("run");
  return G_SOURCE_CONTINUE;
}

/* ---- bus, EOS, SIGINT --------------------------------------------------- */

static void
stream_done (Stream * s)
{
  if (s->done)
    return;
  s->done = TRUE;
  s->done_wall_us = g_get_monotonic_time ();
  if (++soak.n_done == (guint) soak.n_streams)
    g_main_loop_quit (soak.loop);
}

static gboolean
on_bus (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Stream *s = user_data;
  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_EOS:
      s->eos = TRUE;
      printf ("afet-soak: stream %u: EOS after %.1f s\n", s->idx,
          wall_now ());
      fflush (stdout);
      stream_done (s);
      break;
    case GST_MESSAGE_ERROR:
    case GST_MESSAGE_WARNING:{
      GError *err = NULL;
      gchar *dbg = NULL;
      gboolean is_error = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR;
      if (is_error)
        gst_message_parse_error (msg, &err, &dbg);
      else
        gst_message_parse_warning (msg, &err, &dbg);
      gchar *line = g_strdup_printf ("stream %u: %s at %.1f s from %s: %s%s%s",
          s->idx, is_error ? "ERROR" : "WARNING", wall_now (),
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message,
          dbg ? " -- " : "", dbg ? dbg : "");
      g_printerr ("afet-soak: %s\n", line);
      g_string_append_printf (soak.errors, "  %s\n", line);
      g_free (line);
      g_clear_error (&err);
      g_free (dbg);
      if (is_error) {
        s->error = TRUE;
        stream_done (s);
      } else {
        s->n_warnings++;
      }
      break;
    }
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigint (gpointer user_data)
{
  soak.sigint_count++;
  soak.interrupted = TRUE;
  if (soak.sigint_count == 1) {
    g_printerr ("afet-soak: interrupted: sending EOS to every pipeline "
        "(again to stop at once)\n");
    for (gint i = 0; i < soak.n_streams; i++)
      if (!soak.streams[i].done)
        gst_element_send_event (soak.streams[i].pipeline,
            gst_event_new_eos ());
  } else {
    g_printerr ("afet-soak: stopping without waiting for EOS\n");
    g_main_loop_quit (soak.loop);
  }
  return G_SOURCE_CONTINUE;
}

/* ---- set-up ------------------------------------------------------------- */

/* --warm-start: one second of live audio through the chain, to its end,
 * before the clock starts; what a server that has served a live stream has
 * done (the OpenCL driver, the device, the program cache open) */
static gboolean
warm_start (void)
{
  GError *err = NULL;
  gchar *desc = g_strdup_printf ("audiotestsrc is-live=true wave=white-noise "
      "samplesperbuffer=%d num-buffers=100 ! audio/x-raw,rate=%d,channels=1,"
      "format=S16LE ! %s ! fakesink sync=false", SAMPLES_PER_BUFFER, SRC_RATE,
      soak.chain);
  GstElement *p = gst_parse_launch_full (desc, NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, &err);
  g_free (desc);
  if (!p) {
    g_printerr ("afet-soak: --warm-start: %s\n", err ? err->message : "?");
    g_clear_error (&err);
    return FALSE;
  }
  gint64 t = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gboolean ok = m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
  if (!m) {
    g_printerr ("afet-soak: --warm-start: the chain did not reach EOS "
        "within 60 s\n");
  } else if (!ok) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (m, &e, &dbg);
    g_printerr ("afet-soak: --warm-start: %s: %s (%s)\n",
        GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), e ? e->message : "?",
        dbg ? dbg : "");
    g_clear_error (&e);
    g_free (dbg);
  }
  if (m)
    gst_message_unref (m);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  if (ok)
    printf ("afet-soak: warm start: one pipeline of the chain ran in %.3f s "
        "before the timed start\n", (g_get_monotonic_time () - t) / 1e6);
  return ok;
}

static gboolean
make_stream (Stream * s, guint idx)
{
  GError *err = NULL;
  memset (s, 0, sizeof *s);
  s->idx = idx;
  g_mutex_init (&s->lock);
  s->first_pts = s->last_pts = GST_CLOCK_TIME_NONE;
  s->first_src_us = s->first_out_us = -1;
  s->ahead = -1;
  s->lat_hist = g_new0 (guint64, LAT_BINS);

  gchar *desc = g_strdup_printf ("audiotestsrc name=src is-live=true "
      "wave=white-noise samplesperbuffer=%d num-buffers=%" G_GUINT64_FORMAT
      " ! audio/x-raw,rate=%d,channels=1,format=S16LE ! %s ! appsink "
      "name=out sync=false emit-signals=false", SAMPLES_PER_BUFFER,
      soak.num_buffers, SRC_RATE, soak.chain);
  if (idx == 0)
    printf ("afet-soak: pipeline: %s\n", desc);
  s->pipeline = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      &err);
  g_free (desc);
  if (!s->pipeline) {
    g_printerr ("afet-soak: cannot build the pipeline: %s (GST_PLUGIN_PATH=%s)"
        "\n", err ? err->message : "?", g_getenv ("GST_PLUGIN_PATH") ?
        g_getenv ("GST_PLUGIN_PATH") : "");
    g_clear_error (&err);
    return FALSE;
  }
  gchar *name = g_strdup_printf ("soak%u", idx);
  gst_object_set_name (GST_OBJECT (s->pipeline), name);
  g_free (name);

  s->src = gst_bin_get_by_name (GST_BIN (s->pipeline), "src");
  s->sink = gst_bin_get_by_name (GST_BIN (s->pipeline), "out");
  GstPad *pad = gst_element_get_static_pad (s->src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, src_probe, s, NULL);
  gst_object_unref (pad);

  GstAppSinkCallbacks cb = { 0 };
  cb.new_sample = on_new_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (s->sink), &cb, s, NULL);

  gst_pipeline_use_clock (GST_PIPELINE (s->pipeline), soak.clock);
  GstBus *bus = gst_pipeline_get_bus (GST_PIPELINE (s->pipeline));
  s->bus_watch = gst_bus_add_watch (bus, on_bus, s);
  gst_object_unref (bus);
  return TRUE;
}

/* ---- summary ------------------------------------------------------------ */

static gboolean
summary (void)
{
  gboolean ok = TRUE;
  gint64 end_us = g_get_monotonic_time ();
  gdouble wall = (end_us - soak.t0_us) / 1e6;
  ProcStats ps;
  read_proc (&ps);

  printf ("\n== afet-soak summary ==\n");
  printf ("streams %d, %.4g h of audio each (%" G_GUINT64_FORMAT " buffers of "
      "%d samples), speed %.4gx, chain: %s\n", soak.n_streams, soak.hours,
      soak.num_buffers, SAMPLES_PER_BUFFER, soak.speed, soak.chain);
  if (soak.interrupted)
    printf ("INTERRUPTED (SIGINT): partial run; expected counts are for the "
        "audio the sources produced\n");

  gdouble src_min = -1;
  guint64 late = 0, src_buffers = 0;
  /* each stream from its own set_state to its end of stream: what a
   * stream that joins a running server gets (the clock line's figure also
   * counts the start of every pipeline set PLAYING before it); streams
   * that ended in an error or not at all are left out */
  gdouble own_min = -1;
  gint own_idx = -1, below = 0, left_out = 0;
  for (gint i = 0; i < soak.n_streams; i++) {
    Stream *s = &soak.streams[i];
    gint L, S;
    g_mutex_lock (&s->lock);
    framing_of (s, &L, &S);
    guint64 want = frames_for (s->src_samples, L, S);
    guint64 nominal = frames_for (soak.num_buffers * SAMPLES_PER_BUFFER, L, S);
    guint64 viol = s->bad_offset + s->bad_pts_back + s->bad_pts_value +
        s->bad_size + s->nonfinite;
    gboolean short_src = !soak.interrupted && s->eos &&
        s->src_samples != soak.num_buffers * SAMPLES_PER_BUFFER;
    gboolean s_ok = s->eos && !s->error && s->frames == want && viol == 0 &&
        !short_src && (soak.interrupted || s->frames == nominal);
    gdouble src = (gdouble) s->src_samples / SRC_RATE;
    if (src_min < 0 || src < src_min)
      src_min = src;
    late += s->src_late;
    src_buffers += s->src_buffers;
    if (s->done && s->eos && !s->error) {
      gdouble span = (s->done_wall_us - soak.t0_us - s->set_us) / 1e6;
      gdouble own = span > 0 ? src / span : 0;
      below += own < 0.98 * soak.speed;
      if (own_min < 0 || own < own_min) {
        own_min = own;
        own_idx = i;
      }
    } else {
      left_out++;
    }
    gdouble run_s = s->done ? (s->done_wall_us - soak.t0_us) / 1e6 : wall;
    gchar nom[64] = "";
    if (!soak.interrupted && want != nominal)
      g_snprintf (nom, sizeof nom, " (nominal %" G_GUINT64_FORMAT ")",
          nominal);
    if (!soak.brief || !s_ok || i < 3)
      printf ("stream %u: frames %" G_GUINT64_FORMAT " / expected %"
        G_GUINT64_FORMAT " (%+" G_GINT64_FORMAT ")%s, buffers %"
        G_GUINT64_FORMAT ", source %" G_GUINT64_FORMAT " samples = %.1f s in "
        "%.1f s (%.2fx RT), violations: offset %" G_GUINT64_FORMAT
        " pts-backwards %" G_GUINT64_FORMAT " pts-value %" G_GUINT64_FORMAT
        " size %" G_GUINT64_FORMAT " non-finite %" G_GUINT64_FORMAT
        ", warnings %u, %s -> %s\n", s->idx, s->frames, want,
        (gint64) s->frames - (gint64) want, nom,
        s->buffers, s->src_samples, src, run_s, run_s > 0 ? src / run_s : 0,
        s->bad_offset, s->bad_pts_back, s->bad_pts_value, s->bad_size,
        s->nonfinite, s->n_warnings,
        s->error ? "ERROR" : s->eos ? "EOS" : "no EOS", s_ok ? "OK" : "FAIL");
    if (i == 0 && s->caps_str)
      printf ("  output caps: %s\n", s->caps_str);
    g_mutex_unlock (&s->lock);
    if (!s_ok)
      ok = FALSE;
  }
  if (soak.errors->len) {
    printf ("bus errors and warnings:\n%s", soak.errors->str);
  } else {
    printf ("bus errors and warnings: none\n");
  }

  printf ("clock (%s): %.3fx wall over the run (per interval %.3f..%.3fx); "
      "the sources delivered %.1f s of audio each in %.1f s = %.2fx real time "
      "(slowest stream, start-up included)\n", soak.plain_clock ?
      "plain GstSystemClock" : "SoakClock", GST_CLOCK_DIFF (soak.clock_t0,
          gst_clock_get_time (soak.clock)) / 1e9 / wall,
      soak.clock_rate_min, soak.clock_rate_max, src_min, wall,
      wall > 0 ? src_min / wall : 0);
  /* audio seconds a wall second, as the clock line's (K times real time
   * at --speed K) */
  if (own_idx >= 0)
    printf ("each stream from its own set_state to its end of stream: "
        "slowest %.3fx real time (stream %d, set PLAYING at %.2f s); %d "
        "of %d below 0.98x the clock's rate%s\n", own_min, own_idx,
        soak.streams[own_idx].set_us / 1e6, below,
        soak.n_streams - left_out, left_out ? " (streams that ended in "
        "an error or not at all left out)" : "");
  gchar warm_lag[64] = "no sample after warm-up";
  if (soak.have_warm)
    g_snprintf (warm_lag, sizeof warm_lag, "%.1f ms after warm-up",
        soak.lag_max_warm / 1e6);
  printf ("source pacing: %.2f%% of the buffers were pushed more than one "
      "buffer (%.0f ms) behind the clock, without waiting; largest lag behind "
      "the clock %.1f ms of stream time = %.1f ms of wall time (%s)\n",
      src_buffers ? 100.0 * late / src_buffers : 0.0,
      1e3 * SAMPLES_PER_BUFFER / SRC_RATE, soak.lag_max / 1e6,
      soak.lag_max / 1e6 / soak.speed, warm_lag);

  {
    /* start-up: what the slowest stream's real time includes */
    gint64 src_last = -1, out_last = -1, out_gap = 0;
    gint no_src = 0, no_out = 0;
    for (gint i = 0; i < soak.n_streams; i++) {
      Stream *s = &soak.streams[i];
      g_mutex_lock (&s->lock);
      no_src += s->first_src_us < 0;
      no_out += s->first_out_us < 0;
      src_last = MAX (src_last, s->first_src_us);
      out_last = MAX (out_last, s->first_out_us);
      if (s->first_src_us >= 0 && s->first_out_us >= 0)
        out_gap = MAX (out_gap, s->first_out_us - s->first_src_us);
      g_mutex_unlock (&s->lock);
    }
    printf ("start-up (wall s from the first set_state): every pipeline set "
        "PLAYING by %.2f, every source's first buffer by %.2f, every "
        "stream's first output by %.2f (largest wait from a stream's first "
        "buffer to its first output %.3f)\n", soak.playing_us / 1e6,
        src_last / 1e6, out_last / 1e6, out_gap / 1e6);
    if (no_src || no_out)
      printf ("start-up: %d of %d sources pushed no buffer, %d streams gave "
          "no output (left out of the line above)\n", no_src,
          soak.n_streams, no_out);
  }

  {
    /* the added latency over all streams */
    guint64 *h = g_new0 (guint64, LAT_BINS);
    guint64 total = 0, over = 0;
    GstClockTimeDiff lmax = 0;
    gint ahead = -1;
    GstClockTime chain = 0;
    for (gint i = 0; i < soak.n_streams; i++) {
      Stream *s = &soak.streams[i];
      g_mutex_lock (&s->lock);
      for (gint b = 0; b < LAT_BINS; b++)
        h[b] += s->lat_hist[b];
      total += s->lat_n;
      over += s->lat_over;
      lmax = MAX (lmax, s->lat_max);
      if (i == 0) {
        ahead = s->ahead;
        chain = s->chain_latency;
      }
      g_mutex_unlock (&s->lock);
    }
    const gdouble qs[] = { 0.5, 0.9, 0.99, 0.999 };
    gdouble at[4] = { -1, -1, -1, -1 };
    guint64 acc = 0;
    gint k = 0;
    for (gint b = 0; b < LAT_BINS && k < 4; b++) {
      acc += h[b];
      while (k < 4 && total > 0 && acc >= qs[k] * total)
        at[k++] = (b + 1) * LAT_BIN / 1e6;
    }
    gchar pq[4][32];
    for (k = 0; k < 4; k++) {
      if (at[k] < 0)
        g_snprintf (pq[k], sizeof pq[k], ">1000");
      else
        g_snprintf (pq[k], sizeof pq[k], "%.1f", at[k]);
    }
    printf ("added latency (wall ms, %" G_GUINT64_FORMAT " frames after each "
        "stream's first second; from the push of the buffer completing a "
        "frame and its look-ahead of %d frames to the appsink): p50 %s, "
        "p90 %s, p99 %s, p99.9 %s, max %.1f%s; the chain reports %.1f ms "
        "of latency (frame and look-ahead)\n", total, ahead, pq[0], pq[1],
        pq[2], pq[3], lmax / 1e6, over ? " (some beyond 1 s)" : "",
        chain / 1e6);
    g_free (h);
  }

  printf ("cpu: %.1f s over %.1f s wall = %.1f%% of one core; %.1f%% of a "
      "core per stream; %.1f CPU s per hour of audio per stream\n", ps.cpu_s,
      wall, 100.0 * ps.cpu_s / wall, 100.0 * ps.cpu_s / wall / soak.n_streams,
      src_min > 0 ? ps.cpu_s / soak.n_streams / (src_min / 3600.0) : 0);

  if (soak.have_warm) {
    gdouble dh = (soak.last_audio - soak.warm_audio) / 3600.0;
    glong d = soak.last_rss - soak.warm_rss;
    printf ("memory: RSS %ld kB after warm-up (wall %.1f s, %.1f s of audio), "
        "%ld kB at the end (%.1f s of audio): %+ld kB", soak.warm_rss,
        soak.warm_wall, soak.warm_audio, soak.last_rss, soak.last_audio, d);
    if (dh > 0)
      printf (" = %+.1f kB per hour of audio (per stream; %d streams in "
          "parallel)", d / dh, soak.n_streams);
    printf ("; peak (VmHWM) %ld kB\n", soak.last_hwm);
  } else {
    printf ("memory: no sample after warm-up (%.0f%% of the run); RSS at "
        "the end %ld kB, peak %ld kB\n", soak.warmup * 100, soak.last_rss,
        soak.last_hwm);
  }
  return ok;
}

/* ---- main --------------------------------------------------------------- */

int
main (int argc, char **argv)
{
  soak.n_streams = 4;
  soak.hours = 1.0;
  soak.speed = 10;
  soak.interval = 10;
  soak.warmup = 0.1;
  GOptionEntry entries[] = {
    {"streams", 'n', 0, G_OPTION_ARG_INT, &soak.n_streams,
        "Pipelines run side by side in this process (default 4)", "N"},
    {"hours", 'H', 0, G_OPTION_ARG_DOUBLE, &soak.hours,
        "Hours of audio each stream carries (default 1)", "H"},
    {"speed", 'k', 0, G_OPTION_ARG_DOUBLE, &soak.speed,
        "The pipelines' clock runs K times faster than real time, so the "
          "live sources deliver K seconds of audio per second (default 10)",
        "K"},
    {"chain", 'c', 0, G_OPTION_ARG_STRING, &soak.chain,
        "Elements between the caps filter and the appsink (default \""
          DEFAULT_CHAIN "\")", "DESC"},
    {"interval", 'i', 0, G_OPTION_ARG_DOUBLE, &soak.interval,
        "Seconds of wall time between samples (default 10)", "S"},
    {"csv", 'o', 0, G_OPTION_ARG_FILENAME, &soak.csv_path,
        "Write every sample to FILE as CSV (columns: see README.md)", "FILE"},
    {"warmup", 'w', 0, G_OPTION_ARG_DOUBLE, &soak.warmup,
        "Fraction of the run after which RSS is taken as the baseline for "
          "the growth figure (default 0.1)", "F"},
    {"brief", 'b', 0, G_OPTION_ARG_NONE, &soak.brief,
        "Print the first three streams and the failing ones only", NULL},
    {"warm-start", 0, 0, G_OPTION_ARG_NONE, &soak.warm_start,
        "Before the timed start, run one second of live audio through the "
          "chain once in this process (a server that has served a stream: the "
          "OpenCL driver and the device already open)", NULL},
    {"plain-clock", 0, 0, G_OPTION_ARG_NONE, &soak.plain_clock,
        "Use a plain calibrated GstSystemClock instead of SoakClock (its "
          "waits overshoot by K, so sources push in bursts; for comparison)",
        NULL},
    {NULL}
  };
  GError *err = NULL;
  GOptionContext *ctx = g_option_context_new ("- soak afet in live-clocked "
      "pipelines");
  g_option_context_set_summary (ctx, "Streams --hours of white noise through "
      "--streams live pipelines\n  audiotestsrc is-live=true ! audio/x-raw,"
      "rate=16000,channels=1 ! CHAIN ! appsink\non one clock running --speed "
      "times faster than real time, and samples RSS,\nthreads, fds, CPU time "
      "and frame counts every --interval seconds.\nExit status 1 if a stream "
      "lost frames, broke offset/PTS order, posted an\nerror or did not reach "
      "EOS.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("afet-soak: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (!soak.chain)
    soak.chain = g_strdup (DEFAULT_CHAIN);
  if (soak.n_streams < 1 || soak.hours <= 0 || soak.speed < 0.001 ||
      soak.speed > 1e6 || soak.interval <= 0 || soak.warmup < 0 ||
      soak.warmup >= 1) {
    g_printerr ("afet-soak: need --streams >= 1, --hours > 0, "
        "0.001 <= --speed <= 1e6, "
        "--interval > 0, 0 <= --warmup < 1\n");
    return 2;
  }
  soak.num_buffers = (guint64) llround (soak.hours * 3600.0 * SRC_RATE /
      SAMPLES_PER_BUFFER);
  if (soak.num_buffers < 1)
    soak.num_buffers = 1;
  soak.errors = g_string_new (NULL);

  if (soak.csv_path) {
    soak.csv = fopen (soak.csv_path, "w");
    if (!soak.csv) {
      g_printerr ("afet-soak: cannot write %s\n", soak.csv_path);
      return 2;
    }
    fprintf (soak.csv, "wall_s,audio_s,frames_out,frames_expected,rss_kb,"
        "hwm_kb,threads,fds,cpu_s,src_audio_s,clock_s,src_lag_max_ms,buffers_out,"
        "tag\n");
  }

  soak.clock = soak_clock_new (soak.speed, soak.plain_clock);
  if (soak.warm_start && !warm_start ())
    return 2;
  soak.loop = g_main_loop_new (NULL, FALSE);
  soak.streams = g_new0 (Stream, soak.n_streams);
  for (gint i = 0; i < soak.n_streams; i++)
    if (!make_stream (&soak.streams[i], i))
      return 2;

  g_unix_signal_add (SIGINT, on_sigint, NULL);
  g_unix_signal_add (SIGTERM, on_sigint, NULL);

  printf ("afet-soak: %d streams x %.4g h of audio at %.4gx: about %.1f min "
      "of wall time\n", soak.n_streams, soak.hours, soak.speed,
      soak.hours * 60.0 / soak.speed);
  soak.t0_us = soak.prev_wall_us = g_get_monotonic_time ();
  soak.clock_t0 = soak.prev_clock = gst_clock_get_time (soak.clock);
  take_sample ("start");
  for (gint i = 0; i < soak.n_streams; i++) {
    soak.streams[i].set_us = g_get_monotonic_time () - soak.t0_us;
    if (gst_element_set_state (soak.streams[i].pipeline, GST_STATE_PLAYING)
        == GST_STATE_CHANGE_FAILURE) {
      g_printerr ("afet-soak: stream %d: cannot set PLAYING\n", i);
      /* the bus has the ERROR; on_bus marks the stream done */
    }
  }
  soak.playing_us = g_get_monotonic_time () - soak.t0_us;
  guint timer = g_timeout_add ((guint) MAX (soak.interval * 1000.0, 1.0),
      on_interval, NULL);
  if (soak.n_done < (guint) soak.n_streams)
    g_main_loop_run (soak.loop);
  g_source_remove (timer);
  take_sample ("end");

  gboolean ok = summary ();

  for (gint i = 0; i < soak.n_streams; i++) {
    Stream *s = &soak.streams[i];
    gst_element_set_state (s->pipeline, GST_STATE_NULL);
    g_source_remove (s->bus_watch);
    gst_object_unref (s->src);
    gst_object_unref (s->sink);
    gst_object_unref (s->pipeline);
  }
  ProcStats ps;
  read_proc (&ps);
  printf ("after teardown: RSS %ld kB, threads %ld, fds %ld\n", ps.rss_kb,
      ps.threads, ps.fds);
  printf ("result: %s\n", ok ? "PASS" : "FAIL");
  if (soak.csv) {
    fprintf (soak.csv, "%.3f,,,,%ld,%ld,%ld,%ld,%.3f,,,,,teardown\n",
        wall_now (), ps.rss_kb, ps.hwm_kb, ps.threads, ps.fds, ps.cpu_s);
    fclose (soak.csv);
  }
  gst_object_unref (soak.clock);
  return ok ? 0 : 1;
}
