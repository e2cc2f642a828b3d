/* The bad-input and stream-event matrix (docs/reliability.md lists each case
 * and what the user gets).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Formats and channel counts, rates, empty and short streams, empty buffers,
 * silence, clipping, non-finite and denormal samples, timestamp gaps, buffers
 * without timestamps, property changes in every state, absurd values, caps
 * changes, state cycles, many pipelines on many threads.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

/* The elements that take audio, each in a setting that gives a stream of
 * one frame per 10 ms at the default framing. */
static const gchar *audio_elements[] = {
  "afetframer", "afetmfcc", "afetplp", "afettraps", "afetmfcc num-ceps=0",
};

/* Chains ending in each element that takes features. */
static const gchar *feature_chains[] = {
  "afetmfcc ! afetdelta", "afetmfcc ! afetcmvn",
  "afetmfcc ! afetcmvn scope=sliding", "afetplp ! afetcmvn scope=running",
  "afetframer ! afetmfcc", "afetframer ! afetplp",
};

static gdouble *
noise (gint n, guint seed, gdouble amp)
{
  gdouble *x = g_new (gdouble, n);
  guint64 r = seed * 0x9E3779B97F4A7C15ull + 3;
  for (gint i = 0; i < n; i++) {
    r ^= r << 13;
    r ^= r >> 7;
    r ^= r << 17;
    x[i] = (gdouble) ((gint64) (r % (guint64) (2 * amp + 1)) - (gint64) amp);
  }
  return x;
}

static gint
frames_for (gint n, gint rate)
{
  gint W = (gint) (0.025 * rate + 1e-9), S = (gint) (0.010 * rate + 1e-9);
  /* HTK's truncation of the sample period (tests/reference/afetref) */
  W = afetref_num_frames (n, W, S) >= 0 ? W : W;
  return afetref_num_frames (n, W, S);
}

/* Pushes n samples (fmt) in buffers of 1000 through launch, EOS; the
 * frames out, checked finite; the bus's first error (or NULL) and warning
 * count. */
static gint
run_samples (const gchar * launch, AfetCheckFormat fmt, gint rate,
    const gdouble * x, gint n, gchar ** error, guint * warnings,
    AfetCheckRuns * keep)
{
  static const gint sizes[] = { 1000 };
  GstHarness *h = gst_harness_new_parse (launch);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_live (h, FALSE);
  afetcheck_set_audio_caps (h, fmt, rate);
  afetcheck_push_samples (h, fmt, rate, x, n, sizes, 1, 0, TRUE);
  gst_harness_push_event (h, gst_event_new_eos ());
  AfetCheckRuns runs = { 0 };
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  if (caps) {
    gst_caps_unref (caps);
    afetcheck_pull_runs (h, &runs);
  }
  for (gint i = 0; i < runs.n_frames * runs.dims; i++)
    fail_unless (isfinite (runs.data[i]), "%s: value %d is not finite",
        launch, i);
  *error = afetcheck_pop_error (bus, NULL, warnings, NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  gint frames = runs.n_frames;
  if (keep)
    *keep = runs;
  else
    afetcheck_runs_clear (&runs);
  return frames;
}

/* ---- formats and channels -------------------------------------------- */

GST_START_TEST (test_formats_refused)
{
  static const gchar *bad[][2] = {
    {"format=U8, channels=1", "S16LE, S32LE, F32LE or F64LE"},
    {"format=S24LE, channels=1", "S16LE, S32LE, F32LE or F64LE"},
    {"format=S16BE, channels=1", "S16LE, S32LE, F32LE or F64LE"},
    {"format=S16LE, channels=2", "mono"},
    {"format=F32LE, channels=6", "mono"},
  };
  for (guint e = 0; e < G_N_ELEMENTS (audio_elements); e++)
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
      GstHarness *h = gst_harness_new_parse (audio_elements[e]);
      GstBus *bus = gst_bus_new ();
      gst_element_set_bus (h->element, bus);
      gchar *caps = g_strdup_printf ("audio/x-raw, %s, rate=16000, "
          "layout=interleaved", bad[i][0]);
      gst_harness_set_src_caps_str (h, caps);
      GstBuffer *b = gst_buffer_new_allocate (NULL, 4800, NULL);
      gst_buffer_memset (b, 0, 0, 4800);
      fail_if (gst_harness_push (h, b) == GST_FLOW_OK);
      guint errors = 0, warnings = 0;
      gchar *error = afetcheck_pop_error (bus, &errors, &warnings, NULL);
      fail_unless (error && strstr (error, bad[i][1]) &&
          strstr (error, "audioconvert"), "%s with %s: %s",
          audio_elements[e], caps, error);
      fail_unless_equals_int (errors, 1);
      g_free (error);
      g_free (caps);
      gst_element_set_bus (h->element, NULL);
      gst_object_unref (bus);
      gst_harness_teardown (h);
    }
}

GST_END_TEST;

/* Feature elements do not link to audio, and every element refuses a
 * feature kind it cannot take, naming itself. */
GST_START_TEST (test_wrong_streams_refused)
{
  /* kinds no template takes: the pads do not link */
  static const gchar *unlinkable[][2] = {
    {"audiotestsrc ! wavenc ! wavparse ! afetdelta", "afetdelta"},
    {"audiotestsrc ! wavenc ! wavparse ! afetcmvn", "afetcmvn"},
    {"audiotestsrc ! afetmfcc ! afetmfcc name=second", "second"},
    {"audiotestsrc ! afetplp ! afettraps", "afettraps"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (unlinkable); i++) {
    gchar *launch = g_strdup_printf ("%s ! fakesink", unlinkable[i][0]);
    GError *err = NULL;
    GstElement *pipe = gst_parse_launch_full (launch, NULL,
        GST_PARSE_FLAG_FATAL_ERRORS, &err);
    fail_unless (pipe == NULL && err && strstr (err->message, "link") &&
        strstr (err->message, unlinkable[i][1]), "%s: %s", launch,
        err ? err->message : "linked");
    g_clear_error (&err);
    g_free (launch);
  }
  /* a stream the template takes but the element cannot: an error at the
   * caps naming the element that cannot take it */
  static const gchar *refused[][2] = {
    {"afetmfcc ! afetdelta ! afetdelta name=second", "second"},
    {"afetmfcc num-ceps=0 ! afetdelta ! afettraps name=t", "t "},

  };
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++) {
    gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=2 ! "
        "audio/x-raw,channels=1 ! %s ! fakesink", refused[i][0]);
    gchar *error = NULL;
    fail_if (afetcheck_run_launch (launch, &error), "%s", launch);
    fail_unless (error && strstr (error, refused[i][1]), "%s: %s", launch,
        error);
    g_free (error);
    g_free (launch);
  }
}

GST_END_TEST;

/* ---- rates ------------------------------------------------------------ */

static const gint rates[] = { 8000, 11025, 16000, 22050, 32000, 44100,
  48000, 96000, 192000
};

GST_START_TEST (test_rates)
{
  const gint rate = rates[__i__];
  const gint n = rate / 2;
  gdouble *x = noise (n, (guint) rate, 3000);
  for (guint e = 0; e < G_N_ELEMENTS (audio_elements); e++) {
    gchar *error = NULL;
    guint warnings = 0;
    gint frames = run_samples (audio_elements[e], AFETCHECK_S16, rate, x, n,
        &error, &warnings, NULL);
    fail_unless (error == NULL, "%s at %d Hz: %s", audio_elements[e], rate,
        error);
    /* TRAPS needs its context; the others give one frame a shift */
    if (!g_str_has_prefix (audio_elements[e], "afettraps"))
      fail_unless (frames > 0 && abs (frames - frames_for (n, rate)) <= 1,
          "%s at %d Hz: %d frames, expected %d", audio_elements[e], rate,
          frames, frames_for (n, rate));
    else
      fail_unless (frames > 0);
  }
  g_free (x);
}

GST_END_TEST;

/* ---- empty, short, empty buffers -------------------------------------- */

GST_START_TEST (test_empty_and_short)
{
  gdouble x[300];
  for (gint i = 0; i < 300; i++)
    x[i] = (i * 37) % 200 - 100;
  for (guint e = 0; e < G_N_ELEMENTS (audio_elements); e++) {
    gchar *error = NULL;
    guint warnings = 0;
    /* no samples at all: EOS, no frames, no error */
    fail_unless_equals_int (run_samples (audio_elements[e], AFETCHECK_S16,
            16000, x, 0, &error, &warnings, NULL), 0);
    fail_unless (error == NULL, "%s", error);
    /* shorter than one frame (400 samples): no frames */
    fail_unless_equals_int (run_samples (audio_elements[e], AFETCHECK_S16,
            16000, x, 300, &error, &warnings, NULL), 0);
    fail_unless (error == NULL, "%s", error);
  }
  /* with pad=true the short stream gives its one zero-filled frame */
  gchar *error = NULL;
  guint warnings = 0;
  fail_unless_equals_int (run_samples ("afetmfcc pad=true", AFETCHECK_S16,
          16000, x, 300, &error, &warnings, NULL), 1);
  fail_unless (error == NULL);
  /* a stream with no buffers at all, through every chain */
  for (guint c = 0; c < G_N_ELEMENTS (feature_chains); c++) {
    gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=0 ! "
        "audio/x-raw,rate=16000,channels=1 ! %s ! fakesink",
        feature_chains[c]);
    fail_unless (afetcheck_run_launch (launch, &error), "%s: %s", launch,
        error);
    g_free (launch);
  }
}

GST_END_TEST;

/* Zero-size buffers anywhere change nothing. */
GST_START_TEST (test_zero_size_buffers)
{
  const gint n = 9000;
  gdouble *x = noise (n, 9, 5000);
  for (guint c = 0; c < G_N_ELEMENTS (feature_chains); c++) {
    AfetCheckRuns want = { 0 }, got = { 0 };
    gchar *error = NULL;
    guint warnings = 0;
    run_samples (feature_chains[c], AFETCHECK_S16, 16000, x, n, &error,
        &warnings, &want);
    GstHarness *h = gst_harness_new_parse (feature_chains[c]);
    gst_harness_set_live (h, FALSE);
    afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
    for (gint done = 0; done < n; done += 700) {
      gst_harness_push (h, gst_buffer_new ());
      afetcheck_push_samples (h, AFETCHECK_S16, 16000, x + done,
          MIN (700, n - done), NULL, 0, gst_util_uint64_scale (done,
              GST_SECOND, 16000), done == 0);
    }
    gst_harness_push (h, gst_buffer_new ());
    gst_harness_push_event (h, gst_event_new_eos ());
    afetcheck_pull_runs (h, &got);
    gst_harness_teardown (h);
    fail_unless_equals_int (got.n_frames, want.n_frames);
    fail_unless (afetcheck_max_rel_diff (got.data, want.data,
            (gsize) got.n_frames * got.dims) < 1e-6, "%s", feature_chains[c]);
    afetcheck_runs_clear (&got);
    afetcheck_runs_clear (&want);
  }
  g_free (x);
}

GST_END_TEST;

/* Buffers that end inside a sample (odd byte counts): the bytes wait for
 * the next buffer; the output equals one buffer's. */
GST_START_TEST (test_split_samples)
{
  const gint n = 16000;
  gdouble *x = noise (n, 17, 6000);
  const struct
  {
    AfetCheckFormat fmt;
    gint bytes;
    gint chunks[3];
  } cases[] = {
    {AFETCHECK_S16, 2, {4097, 4097, 4097}},
    {AFETCHECK_S16, 2, {3, 1, 5}},
    {AFETCHECK_F32, 4, {6, 4001, 7}},
    {AFETCHECK_F64, 8, {13, 8191, 3}},
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    AfetCheckRuns want = { 0 }, got = { 0 };
    gchar *error = NULL;
    guint warnings = 0;
    run_samples ("afetmfcc", cases[c].fmt, 16000, x, n, &error, &warnings,
        &want);
    /* the same samples as one byte string, pushed in odd pieces */
    GstHarness *one = gst_harness_new ("identity");
    afetcheck_set_audio_caps (one, cases[c].fmt, 16000);
    afetcheck_push_samples (one, cases[c].fmt, 16000, x, n, NULL, 0, 0, TRUE);
    GstBuffer *all = gst_harness_pull (one);
    GstMapInfo map;
    gst_buffer_map (all, &map, GST_MAP_READ);
    fail_unless_equals_uint64 (map.size, (guint64) n * cases[c].bytes);
    GstHarness *h = gst_harness_new ("afetmfcc");
    gst_harness_set_live (h, FALSE);
    afetcheck_set_audio_caps (h, cases[c].fmt, 16000);
    gsize done = 0;
    for (gint k = 0; done < map.size; k++) {
      gsize len = MIN ((gsize) cases[c].chunks[k % 3], map.size - done);
      GstBuffer *b = gst_buffer_new_memdup (map.data + done, len);
      if (done == 0)
        GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
      GST_BUFFER_PTS (b) = done == 0 ? 0 : GST_CLOCK_TIME_NONE;
      fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
      done += len;
    }
    gst_harness_push_event (h, gst_event_new_eos ());
    afetcheck_pull_runs (h, &got);
    gst_harness_teardown (h);
    gst_buffer_unmap (all, &map);
    gst_buffer_unref (all);
    gst_harness_teardown (one);
    fail_unless_equals_int (got.n_frames, want.n_frames);
    fail_unless (memcmp (got.data, want.data, (gsize) got.n_frames *
            got.dims * sizeof (gfloat)) == 0, "case %u differs", c);
    afetcheck_runs_clear (&got);
    afetcheck_runs_clear (&want);
  }
  g_free (x);
}

GST_END_TEST;

/* ---- signal content ----------------------------------------------------- */

/* Silence, full-scale clipping and denormal floats: finite everywhere, no
 * warning. */
GST_START_TEST (test_silence_clipping_denormals)
{
  const gint n = 8000;
  gdouble *silence = g_new0 (gdouble, n);
  gdouble *clip = g_new (gdouble, n);
  gdouble *tiny = g_new (gdouble, n);
  for (gint i = 0; i < n; i++) {
    clip[i] = (i / 20) % 2 ? 32767 : -32768;
    /* 1e-41 / 32768: denormal in float once scaled back by the harness */
    tiny[i] = (i % 3 - 1) * 1e-41 * 32768;
  }
  const gchar *chains[] = { "afetframer energy=true", "afetmfcc energy=true",
    "afetplp energy=true", "afettraps", "afetmfcc ! afetdelta ! afetcmvn",
    "afetmfcc ! afetcmvn mode=meanvar scope=sliding",
  };
  const gdouble *signals[] = { silence, clip, tiny };
  const AfetCheckFormat fmts[] = { AFETCHECK_S16, AFETCHECK_S16,
    AFETCHECK_F32
  };
  for (guint c = 0; c < G_N_ELEMENTS (chains); c++)
    for (guint s = 0; s < G_N_ELEMENTS (signals); s++) {
      gchar *error = NULL;
      guint warnings = 0;
      gint frames = run_samples (chains[c], fmts[s], 16000, signals[s], n,
          &error, &warnings, NULL);
      fail_unless (error == NULL, "%s: %s", chains[c], error);
      fail_unless_equals_int (warnings, 0);
      fail_unless (frames > 0);
    }
  g_free (silence);
  g_free (clip);
  g_free (tiny);
}

GST_END_TEST;

/* ---- timestamps --------------------------------------------------------- */

/* A gap in PTS without DISCONT is not a new run: frames keep counting
 * samples from the run's start (put audiorate before afet to fill gaps);
 * with DISCONT the new run starts at the new PTS (reliability.c). */
GST_START_TEST (test_timestamp_gap_without_discont)
{
  const gint n = 8000;
  gdouble *x = noise (2 * n, 11, 4000);
  GstHarness *h = gst_harness_new_parse ("afetmfcc ! afetdelta");
  gst_harness_set_live (h, FALSE);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  afetcheck_push_samples (h, AFETCHECK_S16, 16000, x, n, NULL, 0, 0, TRUE);
  afetcheck_push_samples (h, AFETCHECK_S16, 16000, x + n, n, NULL, 0,
      3 * GST_SECOND, FALSE);
  gst_harness_push_event (h, gst_event_new_eos ());
  AfetCheckRuns runs = { 0 };
  afetcheck_pull_runs (h, &runs);
  gst_harness_teardown (h);
  fail_unless_equals_int (runs.n_runs, 1);
  fail_unless_equals_int (runs.n_frames, afetref_num_frames (2 * n, 400,
          160));
  afetcheck_runs_clear (&runs);
  g_free (x);
}

GST_END_TEST;

/* ---- properties in every state ----------------------------------------- */

/* Setting a property in any state is safe; a running stream keeps the
 * settings it was negotiated with, and the new value applies from the next
 * start. */
GST_START_TEST (test_property_changes_in_every_state)
{
  GstElement *pipe = gst_parse_launch ("audiotestsrc is-live=true "
      "samplesperbuffer=160 num-buffers=60 ! "
      "audio/x-raw,rate=16000,channels=1 ! afetmfcc name=m ! "
      "afetdelta name=d ! afetcmvn name=c scope=sliding ! "
      "appsink name=sink sync=false", NULL);
  GstElement *m = gst_bin_get_by_name (GST_BIN (pipe), "m");
  GstElement *d = gst_bin_get_by_name (GST_BIN (pipe), "d");
  GstElement *c = gst_bin_get_by_name (GST_BIN (pipe), "c");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  const GstState states[] = { GST_STATE_NULL, GST_STATE_READY,
    GST_STATE_PAUSED, GST_STATE_PLAYING
  };
  for (guint s = 0; s < G_N_ELEMENTS (states); s++) {
    gst_element_set_state (pipe, states[s]);
    gst_element_get_state (pipe, NULL, NULL, 10 * GST_SECOND);
    g_object_set (m, "num-ceps", 12 - (gint) s, "num-filters", 24,
        "frame-length", 25.0, "max-batch", 64, "device-memory", s % 2 == 0,
        NULL);
    g_object_set (d, "delta-window", 2 + (gint) s % 2, NULL);
    g_object_set (c, "cmn-window", 300 + (gint) s, NULL);
  }
  /* the stream negotiated in PAUSED goes on with 13 - 2 = 11 statics */
  GstSample *sample = NULL;
  g_signal_emit_by_name (sink, "pull-sample", &sample);
  fail_unless (sample != NULL);
  AfetFeaturesInfo info;
  fail_unless (afet_features_info_from_caps (&info,
          gst_sample_get_caps (sample)));
  fail_unless_equals_int (info.statics, 11);
  gst_sample_unref (sample);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  g_signal_emit_by_name (sink, "pull-sample", &sample);
  fail_unless (sample != NULL);
  fail_unless (afet_features_info_from_caps (&info,
          gst_sample_get_caps (sample)));
  fail_unless_equals_int (info.statics, 10);
  gst_sample_unref (sample);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (m);
  gst_object_unref (d);
  gst_object_unref (c);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* ---- absurd values -------------------------------------------------------- */

/* Every value in a property's range either runs or is refused with an
 * error naming the property to change. */
GST_START_TEST (test_absurd_values)
{
  static const struct
  {
    gint rate;
    const gchar *chain;
    const gchar *refused;       /* NULL: runs */
  } cases[] = {
    {8000, "afetmfcc frame-length=1 frame-shift=0.1", "frame-length"},
    {8000, "afetmfcc frame-length=1000 frame-shift=1000", NULL},
    {192000, "afetmfcc frame-length=341 frame-shift=1000", NULL},
    {192000, "afetmfcc frame-length=1000", "frame-length"},
    {192000, "afetplp frame-length=500", "frame-length"},
    {192000, "afettraps frame-length=500", "frame-length"},
    {8000, "afetmfcc num-filters=256", "filters"},
    {16000, "afetmfcc num-filters=120 frame-length=64", NULL},
    {8000, "afetmfcc num-filters=20 num-ceps=30", "num-ceps"},
    {8000, "afetmfcc high-freq=6000", "high-freq"},
    {8000, "afetmfcc low-freq=3000 high-freq=2000", "low-freq"},
    {16000, "afetmfcc max-batch=8", NULL},
    {16000, "afetmfcc max-batch=1048576", NULL},
    {16000, "afetmfcc ! afetdelta delta-window=50 accel-window=50 order=3",
        NULL},
    {16000, "afetmfcc ! afetcmvn scope=sliding cmn-window=100000 "
          "min-window=100000", NULL},
    {16000, "afetplp lpc-order=60 num-filters=20", "lpc-order"},
    {16000, "afetframer frame-length=1000 frame-shift=0.1", NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=8 "
        "samplesperbuffer=%d ! audio/x-raw,rate=%d,channels=1 ! %s ! "
        "fakesink", cases[i].rate / 4, cases[i].rate, cases[i].chain);
    gchar *error = NULL;
    gboolean eos = afetcheck_run_launch (launch, &error);
    if (cases[i].refused)
      fail_unless (!eos && strstr (error, cases[i].refused), "%s: %s",
          launch, error);
    else
      fail_unless (eos, "%s: %s", launch, error);
    g_free (error);
    g_free (launch);
  }
}

GST_END_TEST;

/* afetcmvn's initial statistics are checked: a bad file is an error naming
 * it, never statistics that poison the output. */
GST_START_TEST (test_stats_file_checked)
{
  gchar *dir = g_dir_make_tmp ("afet-stats-XXXXXX", NULL);
  GString *means = g_string_new ("");
  for (gint i = 0; i < 12; i++)    /* the 13th comes from the case */
    g_string_append (means, " 1.5");
  static const struct
  {
    const gchar *count, *extra, *scope, *refused;
  } cases[] = {
    {"100", " 1.5", "running", NULL},
    {"-5", " 1.5", "running", "count"},
    {"0", " 1.5", "running", "count"},
    {"100", " 1e39", "running", "mean"},
    {"100", " 1.5 7", "running", "numbers"},
    {"100 garbage", " 1.5", "running", "garbage"},
    {"nan", " 1.5", "running", "nan"},
    {"100", " 1.5", "utterance", "scope=running"},
    {"100", " 1.5", "sliding", "scope=running"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *path = g_strdup_printf ("%s/stats%u", dir, i);
    gchar *text = g_strdup_printf ("%s%s%s\n", cases[i].count, means->str,
        cases[i].extra);
    fail_unless (g_file_set_contents (path, text, -1, NULL));
    gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=20 ! "
        "audio/x-raw,rate=16000,channels=1 ! afetmfcc ! afetcmvn scope=%s "
        "stats-file=%s ! fakesink", cases[i].scope, path);
    gchar *error = NULL;
    gboolean eos = afetcheck_run_launch (launch, &error);
    if (cases[i].refused)
      fail_unless (!eos && strstr (error, cases[i].refused), "%s: %s",
          text, error);
    else
      fail_unless (eos, "%s: %s", text, error);
    g_free (error);
    g_free (launch);
    g_free (text);
    g_unlink (path);
    g_free (path);
  }
  /* a directory is not a statistics file */
  gchar *error = NULL;
  gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=20 ! "
      "audio/x-raw,rate=16000,channels=1 ! afetmfcc ! afetcmvn scope=running "
      "stats-file=%s ! fakesink", dir);
  fail_if (afetcheck_run_launch (launch, &error));
  fail_unless (strstr (error, "cannot read stats-file"), "%s", error);
  g_free (error);
  g_free (launch);
  g_rmdir (dir);
  g_free (dir);
  g_string_free (means, TRUE);
}

GST_END_TEST;

/* ---- caps changes in every element ---------------------------------------- */

GST_START_TEST (test_caps_change_every_element)
{
  gdouble *x = noise (16000, 13, 4000);
  const gchar *chains[] = { "afetframer", "afetmfcc", "afetplp", "afettraps",
    "afetmfcc ! afetdelta", "afetmfcc ! afetcmvn",
    "afetmfcc ! afetcmvn scope=sliding",
  };
  for (guint c = 0; c < G_N_ELEMENTS (chains); c++) {
    GstHarness *h = gst_harness_new_parse (chains[c]);
    gst_harness_set_live (h, FALSE);
    afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
    afetcheck_push_samples (h, AFETCHECK_S16, 16000, x, 16000, NULL, 0, 0,
        TRUE);
    AfetCheckRuns a = { 0 }, b = { 0 };
    /* afetframer's frame size follows the rate: change only the sample
     * format there, so that one row width reads both runs */
    const gint rate2 = c == 0 ? 16000 : 8000;
    afetcheck_set_audio_caps (h, AFETCHECK_F32, rate2);
    /* the first run is drained at the change, in the old format */
    afetcheck_pull_runs (h, &a);
    fail_unless_equals_int (a.n_runs, 1);
    afetcheck_push_samples (h, AFETCHECK_F32, rate2, x, rate2, NULL, 0,
        GST_SECOND, TRUE);
    gst_harness_push_event (h, gst_event_new_eos ());
    afetcheck_pull_runs (h, &b);
    fail_unless_equals_int (b.n_runs, 1);
    fail_unless (a.n_frames > 90 && b.n_frames > 90, "%s: %d / %d",
        chains[c], a.n_frames, b.n_frames);
    fail_unless_equals_uint64 (b.run_pts[0], GST_SECOND);
    afetcheck_runs_clear (&a);
    afetcheck_runs_clear (&b);
    gst_harness_teardown (h);
  }
  g_free (x);
}

GST_END_TEST;

/* ---- 1000 state cycles ------------------------------------------------------ */

static volatile gint engine_builds = 0;

static void
count_builds (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (strcmp (gst_debug_category_get_name (category), "afetengine") == 0 &&
      g_str_has_prefix (gst_debug_message_get (message), "cache:"))
    g_atomic_int_inc (&engine_builds);
}

/* Memory the process holds through malloc, in kB: what a leak grows.
 * (RSS also counts freed pages the allocator keeps, which meson's
 * MALLOC_PERTURB_ dirties.) */
static glong
heap_kb (void)
{
  struct mallinfo2 mi = mallinfo2 ();
  return (glong) ((mi.uordblks + mi.hblkhd) / 1024);
}

GST_START_TEST (test_state_cycles)
{
  GstElement *pipe = gst_parse_launch ("audiotestsrc num-buffers=3 "
      "samplesperbuffer=1600 ! audio/x-raw,rate=16000,channels=1 ! afetmfcc "
      "! afetdelta ! afetcmvn scope=sliding ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_debug_set_threshold_for_name ("afetengine", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (count_builds, NULL, NULL);
  glong before = 0;
  const gint cycles = 1000, warm = 50;
  for (gint i = 0; i < cycles; i++) {
    if (i == warm) {
      before = heap_kb ();
      g_atomic_int_set (&engine_builds, 0);
    }
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "cycle %d",
        i);
    gst_message_unref (m);
    gst_element_set_state (pipe, GST_STATE_NULL);
  }
  glong after = heap_kb ();
  gst_debug_remove_log_function (count_builds);
  printf ("state cycles: heap in use %ld kB after %d, %ld kB after %d; %d "
      "program "
      "or plan loads after the warm-up\n", before, warm, after, cycles,
      g_atomic_int_get (&engine_builds));
  /* no recompilation, and no growth beyond allocator noise (1 MiB for 950
   * cycles is about 1 kB a cycle) */
  fail_unless_equals_int (g_atomic_int_get (&engine_builds), 0);
  /* the leaks tracer keeps records of its own: memory is checked in the
   * run without it (meson test matrix-cycles) */
  const gchar *tracers = g_getenv ("GST_TRACERS");
  if (tracers && *tracers)
    printf ("state cycles: memory not checked under GST_TRACERS=%s\n",
        tracers);
  else
    fail_unless (after - before < 1024, "the heap grew by %ld kB over %d "
        "cycles",
        after - before, cycles - warm);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* ---- 32 pipelines on 32 threads ------------------------------------------- */

typedef struct
{
  gint index;
  gfloat *data;
  gsize n;
} Job;

/* Every float an appsink gets until EOS; their count in *n. */
static gfloat *
pull_floats (GstElement * sink, gsize * n)
{
  GByteArray *bytes = g_byte_array_new ();
  for (;;) {
    GstSample *sample = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (!sample)
      break;
    GstMapInfo map;
    GstBuffer *b = gst_sample_get_buffer (sample);
    gst_buffer_map (b, &map, GST_MAP_READ);
    g_byte_array_append (bytes, map.data, map.size);
    gst_buffer_unmap (b, &map);
    gst_sample_unref (sample);
  }
  *n = bytes->len / sizeof (gfloat);
  return (gfloat *) g_byte_array_free (bytes, FALSE);
}

/* ---- the engine kept from run to run ---------------------------------------- */

static guint64
builds_of (GstElement * pipe, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  guint64 n = 0;
  g_object_get (e, "engine-builds", &n, NULL);
  gst_object_unref (e);
  return n;
}

/* One run of pipe to EOS: every float its appsink got; then READY (or
 * the state given). */
static gfloat *
run_to (GstElement * pipe, GstState after, gsize * n)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  gfloat *data = pull_floats (sink, n);
  gst_element_set_state (pipe, after);
  /* appsink keeps its end of stream through READY (GStreamer 1.22): it
   * alone goes to NULL */
  gst_element_set_state (sink, GST_STATE_NULL);
  gst_object_unref (sink);
  fail_unless (*n > 0);
  return data;
}

static gchar *
audio_file (const gchar * name)
{
  return g_build_filename (afetcheck_testdata_dir (), "audio", name, NULL);
}

/* A pipeline set to READY between inputs (afet-extract's way) builds its
 * elements' device work once; what comes out is what a fresh pipeline
 * gives for the same input (the running clamp and CMVN start again); a
 * property, the caps or NULL make them build again. */
GST_START_TEST (test_engine_kept_between_runs)
{
  const gchar *names[] = { "m", "d", "c" };
  /* (rawaudioparse: its pads stay linked from run to run, wavparse's do
   * not; the WAV header is read as two dozen samples) */
  const gchar *launch = "filesrc name=src ! rawaudioparse name=parse "
      "format=pcm pcm-format=s16le sample-rate=16000 num-channels=1 ! "
      "afetmfcc name=m "
      "num-ceps=0 clamp=running ! afetdelta name=d ! afetcmvn name=c "
      "scope=running ! appsink name=sink sync=false";
  gchar *s1 = audio_file ("s01_16k.wav"), *s2 = audio_file ("s02_16k.wav");
  gchar *s3 = audio_file ("s03_8k.wav");
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  gsize n1, n2, n3, nf;
  g_object_set (src, "location", s1, NULL);
  gfloat *a = run_to (pipe, GST_STATE_READY, &n1);
  /* another input, same format: the engine is kept */
  g_object_set (src, "location", s2, NULL);
  gfloat *b = run_to (pipe, GST_STATE_READY, &n2);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    fail_unless_equals_uint64 (builds_of (pipe, names[i]), 1);
  /* ... and gives what a fresh pipeline gives for it, bit for bit */
  GstElement *fresh = gst_parse_launch (launch, NULL);
  GstElement *fsrc = gst_bin_get_by_name (GST_BIN (fresh), "src");
  g_object_set (fsrc, "location", s2, NULL);
  gfloat *f = run_to (fresh, GST_STATE_NULL, &nf);
  fail_unless_equals_uint64 (n2, nf);
  fail_unless (memcmp (b, f, nf * sizeof (gfloat)) == 0,
      "a kept engine's run differs from a fresh pipeline's");
  fail_if (n1 == n2 && memcmp (a, b, n1 * sizeof (gfloat)) == 0);
  /* a property of the first element: every element builds again (the
   * caps change down the chain) */
  GstElement *m = gst_bin_get_by_name (GST_BIN (pipe), "m");
  g_object_set (m, "num-filters", 20, NULL);
  gfloat *c = run_to (pipe, GST_STATE_READY, &n3);
  fail_unless_equals_uint64 (n3 * 23, n2 * 20);      /* 23 filters before */
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    fail_unless_equals_uint64 (builds_of (pipe, names[i]), 2);
  /* a property of the last one alone: only it builds again */
  GstElement *cm = gst_bin_get_by_name (GST_BIN (pipe), "c");
  gst_util_set_object_arg (G_OBJECT (cm), "mode", "meanvar");
  g_free (run_to (pipe, GST_STATE_READY, &n3));
  fail_unless_equals_uint64 (builds_of (pipe, "m"), 2);
  fail_unless_equals_uint64 (builds_of (pipe, "c"), 3);
  /* another rate: all of them */
  GstElement *parse = gst_bin_get_by_name (GST_BIN (pipe), "parse");
  g_object_set (src, "location", s3, NULL);
  g_object_set (parse, "sample-rate", 8000, NULL);
  gst_object_unref (parse);
  g_free (run_to (pipe, GST_STATE_READY, &n3));
  fail_unless_equals_uint64 (builds_of (pipe, "m"), 3);
  fail_unless_equals_uint64 (builds_of (pipe, "d"), 3);
  fail_unless_equals_uint64 (builds_of (pipe, "c"), 4);
  /* NULL gives everything back */
  gst_element_set_state (pipe, GST_STATE_NULL);
  g_free (run_to (pipe, GST_STATE_NULL, &n3));
  fail_unless_equals_uint64 (builds_of (pipe, "m"), 4);
  fail_unless_equals_uint64 (builds_of (pipe, "c"), 5);
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (f);
  g_free (s1);
  g_free (s2);
  g_free (s3);
  gst_object_unref (cm);
  gst_object_unref (m);
  gst_object_unref (fsrc);
  gst_object_unref (src);
  gst_object_unref (fresh);
  gst_object_unref (pipe);
}

GST_END_TEST;

static gpointer
run_job (gpointer user_data)
{
  Job *job = (Job *) user_data;
  /* each pipeline its own signal: frequency, volume and wave (sine,
   * square, saw, triangle: deterministic) by index */
  gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=40 "
      "samplesperbuffer=%d wave=%d freq=%d volume=0.%d ! "
      "audio/x-raw,rate=16000,channels=1 ! afetmfcc ! afetdelta ! "
      "afetcmvn scope=sliding ! appsink name=sink sync=false", 160 + 37 *
      (job->index % 5), job->index % 4, 200 + 50 * job->index,
      1 + job->index % 9);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  job->data = pull_floats (sink, &job->n);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  return NULL;
}

GST_START_TEST (test_threads_share_one_device)
{
  enum
  { N = 32 };
  Job alone[N], together[N];
  for (gint i = 0; i < N; i++) {
    alone[i].index = together[i].index = i;
    run_job (&alone[i]);
  }
  GThread *threads[N];
  for (gint i = 0; i < N; i++)
    threads[i] = g_thread_new ("job", run_job, &together[i]);
  for (gint i = 0; i < N; i++)
    g_thread_join (threads[i]);
  for (gint i = 0; i < N; i++) {
    fail_unless (alone[i].n > 0);
    fail_unless_equals_uint64 (together[i].n, alone[i].n);
    fail_unless (memcmp (together[i].data, alone[i].data,
            alone[i].n * sizeof (gfloat)) == 0,
        "pipeline %d differs when run beside 31 others", i);
    g_free (alone[i].data);
    g_free (together[i].data);
  }
}

GST_END_TEST;

/* ---- live streams combined ------------------------------------------------ */

typedef struct
{
  gint index;
  gboolean live;
  gfloat *data;
  gsize n;
  guint64 combined;
} LiveJob;

/* afetmfcc (two configurations) and afetplp on live 10 ms buffers:
 * small batches, which the streams of one configuration compute together
 * (combine-streams); alone and not live, each computes its own. Each
 * buffer is computed as it comes (latency-budget=0: the budget makes fewer,
 * larger launches, and so fewer chances to meet another stream's; it has
 * tests of its own, budget.c). */
static gpointer
run_live_job (gpointer user_data)
{
  LiveJob *job = (LiveJob *) user_data;
  const gchar *element[] = { "afetmfcc", "afetmfcc energy=true num-ceps=0",
    "afetplp"
  };
  gchar *launch = g_strdup_printf ("audiotestsrc is-live=%s num-buffers=40 "
      "samplesperbuffer=160 wave=%d freq=%d volume=0.%d ! "
      "audio/x-raw,rate=16000,channels=1,format=S16LE ! %s name=e "
      "combine-streams=%s latency-budget=0 ! appsink name=sink sync=false",
      job->live ? "true" : "false", job->index % 4, 300 + 70 * job->index,
      1 + job->index % 9, element[job->index % 3],
      job->live ? "true" : "false");
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), "e");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  job->data = pull_floats (sink, &job->n);
  g_object_get (e, "merged-batches", &job->combined, NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (e);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  return NULL;
}

GST_START_TEST (test_live_streams_combined)
{
  enum
  { N = 12 };
  LiveJob alone[N], together[N];
  for (gint i = 0; i < N; i++) {
    alone[i].index = together[i].index = i;
    alone[i].live = FALSE;
    together[i].live = TRUE;
    run_live_job (&alone[i]);
  }
  /* whether two streams' batches meet in one launch depends on their
   * sources' phases (a launch on PoCL takes well under a buffer's 10 ms):
   * rounds until some did, each stream checked in every round */
  guint64 combined = 0;
  for (gint round = 0; round < 5 && combined == 0; round++) {
    GThread *threads[N];
    for (gint i = 0; i < N; i++)
      threads[i] = g_thread_new ("live", run_live_job, &together[i]);
    for (gint i = 0; i < N; i++)
      g_thread_join (threads[i]);
    for (gint i = 0; i < N; i++) {
      fail_unless_equals_uint64 (together[i].n, alone[i].n);
      fail_unless (memcmp (together[i].data, alone[i].data,
              alone[i].n * sizeof (gfloat)) == 0,
          "live stream %d differs from its own run", i);
      combined += together[i].combined;
      g_free (together[i].data);
    }
  }
  for (gint i = 0; i < N; i++) {
    fail_unless (alone[i].n > 0);
    fail_unless_equals_uint64 (alone[i].combined, 0);
    g_free (alone[i].data);
  }
  GST_INFO ("%" G_GUINT64_FORMAT " batches combined", combined);
  fail_unless (combined > 0, "no batch of %d live streams was combined", N);
}

GST_END_TEST;

/* ---- live context elements combined (lanes) ------------------------------ */

/* The context elements of live chains in system memory: every stream's
 * rows in a lane of one combiner per configuration (deltas, TRAPS, sliding
 * CMVN, centred or not); buffers of 2.3 ms to 750 ms (a call takes at most
 * 64 rows, so the long ones are split); each stream runs twice, the
 * second run taking a lane another stream may have left. Alone and not
 * live, each element computes its own history. */
static const gchar *const lane_chains[] = {
  "afetmfcc latency-budget=0 %s ! afetdelta name=e %s ! afetcmvn name=f "
      "scope=sliding %s",
  "afetmfcc latency-budget=0 %s ! afetdelta name=e order=3 delta-window=1 "
      "%s ! afetcmvn name=f scope=sliding center=true cmn-window=41 %s",
  "afetmfcc latency-budget=0 num-ceps=0 c0=false num-filters=15 %s ! "
      "afettraps name=e "
      "length=11 num-dct=4 %s ! afetcmvn name=f scope=sliding "
      "cmn-window=30 min-window=7 mode=meanvar %s",
};

typedef struct
{
  gint index;
  gboolean live;
  gfloat *data[2];
  gsize n[2];
  guint64 combined;
} LaneJob;

static gpointer
run_lane_job (gpointer user_data)
{
  LaneJob *job = (LaneJob *) user_data;
  const gchar *opts = job->live ? "device-memory=false" :
      "device-memory=false combine-streams=false";
  const gint spb[] = { 37, 160, 480, 1601, 12000 };
  gchar *chain = g_strdup_printf (lane_chains[job->index % 3], opts, opts,
      opts);
  gchar *launch = g_strdup_printf ("audiotestsrc is-live=%s num-buffers=%d "
      "samplesperbuffer=%d wave=%d freq=%d volume=0.%d ! "
      "audio/x-raw,rate=16000,channels=1,format=S16LE ! %s ! "
      "appsink name=sink sync=false", job->live ? "true" : "false",
      1 + 8000 / spb[job->index % 5], spb[job->index % 5], job->index % 4,
      300 + 70 * job->index, 1 + job->index % 9, chain);
  job->combined = 0;
  for (gint run = 0; run < 2; run++) {
    GstElement *pipe = gst_parse_launch (launch, NULL);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    job->data[run] = pull_floats (sink, &job->n[run]);
    for (gint k = 0; k < 2; k++) {
      guint64 combined = 0;
      GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), k ? "f" : "e");
      g_object_get (e, "merged-batches", &combined, NULL);
      job->combined += combined;
      gst_object_unref (e);
    }
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (pipe);
  }
  g_free (launch);
  g_free (chain);
  return NULL;
}

GST_START_TEST (test_live_context_lanes)
{
  enum
  { N = 15 };
  LaneJob alone[N], together[N];
  for (gint i = 0; i < N; i++) {
    alone[i].index = together[i].index = i;
    alone[i].live = FALSE;
    together[i].live = TRUE;
    run_lane_job (&alone[i]);
  }
  /* whether two streams' batches meet in one launch depends on timing (a
   * fast GPU may serve them one by one): rounds until some did */
  guint64 combined = 0;
  for (gint round = 0; round < 5 && combined == 0; round++) {
    GThread *threads[N];
    for (gint i = 0; i < N; i++)
      threads[i] = g_thread_new ("lanes", run_lane_job, &together[i]);
    for (gint i = 0; i < N; i++)
      g_thread_join (threads[i]);
    for (gint i = 0; i < N; i++) {
      for (gint run = 0; run < 2; run++) {
        fail_unless_equals_uint64 (together[i].n[run], alone[i].n[run]);
        fail_unless (memcmp (together[i].data[run], alone[i].data[run],
                alone[i].n[run] * sizeof (gfloat)) == 0,
            "live stream %d (run %d) differs from its own run", i, run);
        g_free (together[i].data[run]);
      }
      combined += together[i].combined;
    }
    GST_INFO ("round %d: %" G_GUINT64_FORMAT " context batches combined",
        round, combined);
  }
  for (gint i = 0; i < N; i++) {
    fail_unless_equals_uint64 (alone[i].combined, 0);
    for (gint run = 0; run < 2; run++) {
      fail_unless (alone[i].n[run] > 0);
      fail_unless_equals_uint64 (alone[i].n[run], alone[i].n[0]);
      g_free (alone[i].data[run]);
    }
  }
  fail_unless (combined > 0, "no context batch of %d live streams was "
      "combined in 5 rounds", N);
}

GST_END_TEST;

/* ---- live streams of the default chain ---------------------------------- */

/* The chain a server writes: afetmfcc ! afetdelta ! afetcmvn scope=sliding.
 * With device-memory not set, live input gets system memory between the
 * afet elements and input that is not live device memory (the elements
 * choose from the upstream latency query before their first caps); set,
 * device-memory=true keeps device memory for live input too (the spectral
 * element's rows stay on the device, the context elements read them
 * there). Either way many live streams of it combine their launches at
 * every element (merged-batches) and each stream's frames are those of its
 * own run, not live, in device memory. A quarter of them end in
 * scope=running, which computes each stream alone (from the rows afetdelta
 * left in its combined launch's buffer, in device memory). */
typedef struct
{
  gint index;
  gboolean live;
  const gchar *props;           /* on each of the three elements */
  gfloat *data;
  gsize n;
  guint64 merged[3];
  guint64 chained[3];
  gboolean device[2];           /* memory:AfetCLMemory after m, after d */
} ChainJob;

static const gchar *const chain_names[] = { "m", "d", "c" };

static gboolean
pad_has_cl_memory (GstElement * pipe, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  GstPad *pad = gst_element_get_static_pad (e, "src");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean yes = caps && gst_caps_features_contains (gst_caps_get_features
      (caps, 0), "memory:AfetCLMemory");
  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (e);
  return yes;
}

static gpointer
run_chain_job (gpointer user_data)
{
  ChainJob *job = (ChainJob *) user_data;
  const gchar *props = job->props ? job->props : "";
  gchar *launch = g_strdup_printf ("audiotestsrc is-live=%s num-buffers=60 "
      "samplesperbuffer=160 wave=%d freq=%d volume=0.%d ! "
      "audio/x-raw,rate=16000,channels=1,format=S16LE ! afetmfcc name=m %s ! "
      "afetdelta name=d %s ! afetcmvn name=c scope=%s %s ! "
      "appsink name=sink sync=false", job->live ? "true" : "false",
      job->index % 4, 300 + 70 * job->index, 1 + job->index % 9, props,
      props, job->index % 4 == 3 ? "running" : "sliding", props);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  job->data = pull_floats (sink, &job->n);
  for (gint k = 0; k < 3; k++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), chain_names[k]);
    g_object_get (e, "merged-batches", &job->merged[k], "chained-batches",
        &job->chained[k], NULL);
    gst_object_unref (e);
  }
  job->device[0] = pad_has_cl_memory (pipe, "m");
  job->device[1] = pad_has_cl_memory (pipe, "d");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  return NULL;
}

/* N live streams of the chain with props, in threads, against each stream
 * alone and not live with default properties (device memory between: the
 * corpus path); live_device: the memory expected between the live
 * streams' elements. */
static void
check_live_chain (const gchar * props, gboolean live_device)
{
  enum
  { N = 12 };
  ChainJob alone[N], together[N];
  memset (alone, 0, sizeof (alone));
  memset (together, 0, sizeof (together));
  for (gint i = 0; i < N; i++) {
    alone[i].index = together[i].index = i;
    alone[i].live = FALSE;
    together[i].live = TRUE;
    together[i].props = props;
    run_chain_job (&alone[i]);
    fail_unless (alone[i].n > 0);
    fail_unless (alone[i].device[0] && alone[i].device[1],
        "stream %d not live, default properties: no device memory between "
        "the afet elements", i);
  }
  /* whether two streams' batches meet in one launch depends on timing:
   * rounds until every element's did */
  guint64 merged[3] = { 0, 0, 0 };
  for (gint round = 0; round < 5 && (merged[0] == 0 || merged[1] == 0 ||
          merged[2] == 0); round++) {
    GThread *threads[N];
    for (gint i = 0; i < N; i++)
      threads[i] = g_thread_new ("chain", run_chain_job, &together[i]);
    for (gint i = 0; i < N; i++)
      g_thread_join (threads[i]);
    for (gint i = 0; i < N; i++) {
      fail_unless (together[i].device[0] == live_device &&
          together[i].device[1] == live_device, "live stream %d (\"%s\"): "
          "%s memory between the afet elements, expected %s", i, props,
          together[i].device[0] ? "device" : "system",
          live_device ? "device" : "system");
      fail_unless_equals_uint64 (together[i].n, alone[i].n);
      fail_unless (memcmp (together[i].data, alone[i].data,
              alone[i].n * sizeof (gfloat)) == 0,
          "live stream %d (\"%s\") differs from its own run", i, props);
      GST_INFO ("round %d stream %d: merged-batches afetmfcc %"
          G_GUINT64_FORMAT ", afetdelta %" G_GUINT64_FORMAT ", afetcmvn %"
          G_GUINT64_FORMAT, round, i, together[i].merged[0],
          together[i].merged[1], together[i].merged[2]);
      /* the live chain (system memory between the elements): afetmfcc
       * computes afetdelta's rows and afetcmvn's (sliding; running keeps
       * its own sums) in its pass */
      if (live_device) {
        for (gint k = 0; k < 3; k++)
          fail_unless_equals_uint64 (together[i].chained[k], 0);
      } else {
        fail_unless (together[i].chained[0] > 0 &&
            together[i].chained[1] > 0, "live stream %d (\"%s\"): "
            "afetmfcc %" G_GUINT64_FORMAT " and afetdelta %"
            G_GUINT64_FORMAT " batches in the chain's pass", i, props,
            together[i].chained[0], together[i].chained[1]);
        if (i % 4 == 3) {
          fail_unless_equals_uint64 (together[i].chained[2], 0);
        } else {
          fail_unless (together[i].chained[2] > 0, "live stream %d: "
              "afetcmvn scope=sliding not in the chain's pass", i);
        }
      }
      for (gint k = 0; k < 3; k++)
        merged[k] += together[i].merged[k];
      g_free (together[i].data);
    }
  }
  for (gint i = 0; i < N; i++) {
    for (gint k = 0; k < 3; k++) {
      fail_unless_equals_uint64 (alone[i].merged[k], 0);
      fail_unless_equals_uint64 (alone[i].chained[k], 0);
    }
    g_free (alone[i].data);
  }
  GST_INFO ("\"%s\": merged-batches of %d streams: afetmfcc %"
      G_GUINT64_FORMAT ", afetdelta %" G_GUINT64_FORMAT ", afetcmvn %"
      G_GUINT64_FORMAT, props, N, merged[0], merged[1], merged[2]);
  for (gint k = 0; k < 3; k++)
    fail_unless (merged[k] > 0, "no batch of afet%s in %d live streams of "
        "the chain (\"%s\", %s memory between) was combined in 5 rounds",
        k == 0 ? "mfcc" : k == 1 ? "delta" : "cmvn", N, props,
        live_device ? "device" : "system");
}

/* device-memory set: live streams keep device memory between the afet
 * elements and still combine (matrix-poison runs this one) */
GST_START_TEST (test_live_device_chain_combined)
{
  check_live_chain ("device-memory=true", TRUE);
}

GST_END_TEST;

/* No property set: live input chooses system memory between the afet
 * elements by itself, input that is not live device memory (issue 29:
 * defaults that scale) */
GST_START_TEST (test_live_default_chain_system_memory)
{
  check_live_chain ("", FALSE);
}

GST_END_TEST;

/* ---- live chains: one pass for afetmfcc ! afetdelta ! afetcmvn ----------- */

/* What a sink got, buffer by buffer: timestamps, offsets, flags, bytes. */
typedef struct
{
  GstClockTime pts, duration;
  guint64 offset, offset_end;
  gboolean discont;
  gsize size;
} BufferInfo;

typedef struct
{
  gint index;
  const gchar *between;         /* an element between afetmfcc and afetdelta */
  const gchar *props;           /* on each afet element */
  gint discont_every;           /* afetmfcc's input: every nth buffer */
  GArray *buffers;              /* BufferInfo */
  GByteArray *bytes;
  GByteArray *inner[2];         /* afetmfcc's and afetdelta's rows, read
                                 * by a probe on their src pads */
  gint cl_buffers[2];           /* of them, buffers in device memory */
  gboolean cpu;                 /* the elements' device is a CPU device */
  guint64 chained[3];
  gint seen;
  gchar *error;                 /* what went wrong (checked in the main
                                 * thread: no check assertion in threads) */
} ChainRun;

/* afetmfcc's (k 0) or afetdelta's (k 1) output as any reader of its pad
 * sees it (in the chain's pass on a CPU device, device memory: the map
 * downloads it) */
static void
read_inner (ChainRun * run, gint k, GstBuffer * b)
{
  GstMapInfo map;
  if (gst_buffer_n_memory (b) == 1 && gst_memory_is_type (gst_buffer_peek_memory
          (b, 0), "AfetCLMemory"))
    run->cl_buffers[k]++;
  if (gst_buffer_map (b, &map, GST_MAP_READ)) {
    g_byte_array_append (run->inner[k], map.data, map.size);
    gst_buffer_unmap (b, &map);
  } else if (!run->error) {
    run->error = g_strdup_printf ("the output of %s could not be mapped",
        chain_names[k]);
  }
}

static GstPadProbeReturn
read_m (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  read_inner ((ChainRun *) user_data, 0, GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
read_d (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  read_inner ((ChainRun *) user_data, 1, GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
mark_discont (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  ChainRun *run = (ChainRun *) user_data;
  if (++run->seen % run->discont_every == 0) {
    GstBuffer *b = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
    GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    /* a gap of 30 ms before it, as a source that lost packets makes */
    GST_BUFFER_PTS (b) += 30 * GST_MSECOND * (run->seen / run->discont_every);
    GST_PAD_PROBE_INFO_DATA (info) = b;
  } else if (run->seen > run->discont_every) {
    GstBuffer *b = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
    GST_BUFFER_PTS (b) += 30 * GST_MSECOND * (run->seen / run->discont_every);
    GST_PAD_PROBE_INFO_DATA (info) = b;
  }
  return GST_PAD_PROBE_OK;
}

/* The OpenCL device opened in the test's main thread first: PoCL's LLVM
 * gives the thread that first uses it an alternate signal stack of its own
 * (malloc()ed), which AddressSanitizer cannot unmap when that thread ends
 * ("unable to unmap" at a streaming thread's exit). */
static void
open_device_here (void)
{
  GstElement *pipe = gst_parse_launch ("audiotestsrc num-buffers=1 ! "
      "afetmfcc ! fakesink", NULL);
  fail_unless (pipe != NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      GST_CLOCK_TIME_NONE, (GstMessageType) (GST_MESSAGE_EOS |
          GST_MESSAGE_ERROR));
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

static gpointer
run_chain (gpointer user_data)
{
  ChainRun *run = (ChainRun *) user_data;
  const gchar *props = run->props ? run->props : "";
  gchar *launch = g_strdup_printf ("audiotestsrc is-live=true num-buffers=200 "
      "samplesperbuffer=%d wave=%d freq=%d volume=0.%d ! "
      "audio/x-raw,rate=16000,channels=1,format=S16LE ! afetmfcc name=m %s ! "
      "%s afetdelta name=d %s ! afetcmvn name=c scope=sliding %s ! "
      "appsink name=sink sync=false", 160 + 80 * (run->index % 3),
      run->index % 4, 300 + 70 * run->index, 1 + run->index % 9, props,
      run->between ? run->between : "", props, props);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  run->buffers = g_array_new (FALSE, TRUE, sizeof (BufferInfo));
  run->bytes = g_byte_array_new ();
  run->inner[0] = g_byte_array_new ();
  run->inner[1] = g_byte_array_new ();
  if (!pipe) {
    run->error = g_strdup_printf ("cannot make \"%s\"", launch);
    g_free (launch);
    return NULL;
  }
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  for (gint k = 0; k < 2; k++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), chain_names[k]);
    GstPad *pad = gst_element_get_static_pad (e, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, k ? read_d : read_m,
        run, NULL);
    gst_object_unref (pad);
    gst_object_unref (e);
  }
  if (run->discont_every > 0) {
    GstElement *m = gst_bin_get_by_name (GST_BIN (pipe), "m");
    GstPad *pad = gst_element_get_static_pad (m, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, mark_discont, run,
        NULL);
    gst_object_unref (pad);
    gst_object_unref (m);
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (;;) {
    GstSample *sample = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (!sample)
      break;
    GstBuffer *b = gst_sample_get_buffer (sample);
    BufferInfo bi = { GST_BUFFER_PTS (b), GST_BUFFER_DURATION (b),
      GST_BUFFER_OFFSET (b), GST_BUFFER_OFFSET_END (b),
      GST_BUFFER_IS_DISCONT (b), gst_buffer_get_size (b)
    };
    g_array_append_val (run->buffers, bi);
    GstMapInfo map;
    gst_buffer_map (b, &map, GST_MAP_READ);
    g_byte_array_append (run->bytes, map.data, map.size);
    gst_buffer_unmap (b, &map);
    gst_sample_unref (sample);
  }
  GstMessage *err = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipe),
      GST_MESSAGE_ERROR);
  if (err) {
    run->error = g_strdup_printf ("error on the bus of \"%s\"", launch);
    gst_message_unref (err);
  }
  for (gint k = 0; k < 3; k++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), chain_names[k]);
    g_object_get (e, "chained-batches", &run->chained[k], NULL);
    if (k == 0) {
      /* PoCL's device names start with pthread- or cpu- */
      gchar *name = NULL;
      g_object_get (e, "device-name", &name, NULL);
      run->cpu = name && (g_str_has_prefix (name, "pthread") ||
          g_str_has_prefix (name, "cpu"));
      g_free (name);
    }
    gst_object_unref (e);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  return NULL;
}

/* N live streams from threads, with props and an element between afetmfcc
 * and afetdelta (or none), against the same streams with other props and
 * another element between: the same buffers, timestamps (from each run's
 * first), offsets, DISCONT flags and bytes, and the same afetmfcc and
 * afetdelta rows as a pad probe maps them (in the chain's pass on a CPU
 * device the rows between the elements stay on the device, device memory
 * that the map downloads; elsewhere system memory);
 * chained_a, chained_b: whether the chain's pass is expected at each
 * element. */
static void
check_chain_same (const gchar * props_a, const gchar * between_a,
    gboolean chained_a, const gchar * props_b, const gchar * between_b,
    gboolean chained_b, gint discont_every)
{
  enum
  { N = 8 };
  ChainRun a[N], b[N];
  memset (a, 0, sizeof (a));
  memset (b, 0, sizeof (b));
  GThread *threads[2 * N];
  open_device_here ();
  for (gint i = 0; i < N; i++) {
    a[i].index = b[i].index = i;
    a[i].props = props_a;
    b[i].props = props_b;
    a[i].between = between_a;
    b[i].between = between_b;
    a[i].discont_every = b[i].discont_every = discont_every;
  }
  /* the N streams of each setting together (not both settings at once:
   * 16 pipelines' threads under AddressSanitizer ran out of mappings) */
  for (gint i = 0; i < N; i++)
    threads[i] = g_thread_new ("chain", run_chain, &a[i]);
  for (gint i = 0; i < N; i++)
    g_thread_join (threads[i]);
  for (gint i = 0; i < N; i++)
    threads[N + i] = g_thread_new ("chain", run_chain, &b[i]);
  for (gint i = 0; i < N; i++)
    g_thread_join (threads[N + i]);
  for (gint i = 0; i < N; i++) {
    fail_unless (a[i].error == NULL && b[i].error == NULL, "%s",
        a[i].error ? a[i].error : b[i].error);
    GST_INFO ("\"%s\" stream %d: %u buffers, chained-batches %"
        G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
        " (against %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
        G_GUINT64_FORMAT ")", props_a, i, a[i].buffers->len,
        a[i].chained[0], a[i].chained[1], a[i].chained[2], b[i].chained[0],
        b[i].chained[1], b[i].chained[2]);
    fail_unless (b[i].buffers->len > 3);
    fail_unless_equals_int (a[i].buffers->len, b[i].buffers->len);
    /* a live source stamps from the clock: times from the first buffer's */
    GstClockTime x0 = g_array_index (a[i].buffers, BufferInfo, 0).pts;
    GstClockTime y0 = g_array_index (b[i].buffers, BufferInfo, 0).pts;
    gint disconts = 0;
    for (guint k = 0; k < b[i].buffers->len; k++) {
      BufferInfo *x = &g_array_index (a[i].buffers, BufferInfo, k);
      BufferInfo *y = &g_array_index (b[i].buffers, BufferInfo, k);
      fail_unless (x->pts - x0 == y->pts - y0 &&
          x->duration == y->duration &&
          x->offset == y->offset && x->offset_end == y->offset_end &&
          x->discont == y->discont && x->size == y->size, "stream %d "
          "(\"%s\"), buffer %u: pts %" GST_TIME_FORMAT " offset %"
          G_GUINT64_FORMAT " discont %d size %" G_GSIZE_FORMAT " against %"
          GST_TIME_FORMAT " %" G_GUINT64_FORMAT " %d %" G_GSIZE_FORMAT, i,
          props_a, k, GST_TIME_ARGS (x->pts - x0), x->offset, x->discont,
          x->size, GST_TIME_ARGS (y->pts - y0), y->offset, y->discont,
          y->size);
      disconts += y->discont;
    }
    if (discont_every > 0)
      fail_unless (disconts > 1, "stream %d: %d runs", i, disconts);
    fail_unless_equals_int (a[i].bytes->len, b[i].bytes->len);
    fail_unless (memcmp (a[i].bytes->data, b[i].bytes->data,
            b[i].bytes->len) == 0, "stream %d (\"%s\") differs", i,
        props_a);
    /* and afetmfcc's and afetdelta's own rows, read where they are: on a
     * CPU device the chain's pass leaves them on the device */
    for (gint k = 0; k < 2; k++) {
      fail_unless (b[i].inner[k]->len > 0);
      fail_unless_equals_int (a[i].inner[k]->len, b[i].inner[k]->len);
      fail_unless (memcmp (a[i].inner[k]->data, b[i].inner[k]->data,
              b[i].inner[k]->len) == 0, "stream %d (\"%s\"): the rows of "
          "%s differ", i, props_a, chain_names[k]);
      fail_unless_equals_int (b[i].cl_buffers[k], 0);
      if (chained_a && a[i].cpu)
        fail_unless (a[i].cl_buffers[k] > 0, "stream %d: the chain's pass "
            "on a CPU device left no rows of %s on the device", i,
            chain_names[k]);
      else
        fail_unless_equals_int (a[i].cl_buffers[k], 0);
    }
    for (gint k = 0; k < 3; k++) {
      if (chained_a) {
        fail_unless (a[i].chained[k] > 0, "stream %d (\"%s\"): no batch "
            "of element %d in the chain's pass", i, props_a, k);
      } else {
        fail_unless_equals_uint64 (a[i].chained[k], 0);
      }
      if (chained_b) {
        fail_unless (b[i].chained[k] > 0);
      } else {
        fail_unless_equals_uint64 (b[i].chained[k], 0);
      }
    }
    for (gint k = 0; k < 2; k++) {
      ChainRun *r = k == 0 ? &a[i] : &b[i];
      g_array_free (r->buffers, TRUE);
      g_byte_array_free (r->bytes, TRUE);
      g_byte_array_free (r->inner[0], TRUE);
      g_byte_array_free (r->inner[1], TRUE);
    }
  }
}

/* Default properties, runs restarted by DISCONTs (with gaps): each run's
 * first buffer is computed element by element, the rest in the chain's
 * pass; every buffer is the one the same elements give computing apart
 * (an identity between afetmfcc and afetdelta: no chain, see below). */
GST_START_TEST (test_live_chain_discont)
{
  check_chain_same ("", NULL, TRUE, "", "identity !", FALSE, 60);
}

GST_END_TEST;

/* No chain where it cannot hold: an element between afetmfcc and afetdelta
 * (a link must be the direct peer of the element before it: above), and a
 * latency budget on afetdelta and afetcmvn (they would hold rows back);
 * the same buffers as apart. */
GST_START_TEST (test_live_chain_refused)
{
  check_chain_same ("latency-budget=30000000", NULL, FALSE,
      "latency-budget=30000000", "identity !", FALSE, 0);
  check_chain_same ("", NULL, TRUE, "", "identity !", FALSE, 0);
}

GST_END_TEST;

/* Pipelines stopped (set to NULL from the application's thread) while their
 * live chains stream, among others that run on: the front reads each link's
 * state, and a stopping link leaves its lane, so each must wait for the
 * other (the links' stream locks); no error, no crash, nothing leaked (the
 * leaks tracer; the sanitizer job runs this too). */
typedef struct
{
  gint index;
  gint rounds;
  gint stopped;                 /* pipelines stopped while streaming */
  gint failed;                  /* state changes failed, errors posted */
} StopJob;

static gpointer
run_stopped_chains (gpointer user_data)
{
  StopJob *job = (StopJob *) user_data;
  GRand *rand = g_rand_new_with_seed (17 + job->index);
  for (gint r = 0; r < job->rounds; r++) {
    gchar *launch = g_strdup_printf ("audiotestsrc is-live=true "
        "num-buffers=300 samplesperbuffer=160 freq=%d ! "
        "audio/x-raw,rate=16000,channels=1,format=S16LE ! afetmfcc ! "
        "afetdelta name=d ! afetcmvn scope=sliding ! appsink name=sink "
        "sync=false", 300 + 50 * job->index);
    GstElement *pipe = gst_parse_launch (launch, NULL);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    /* stopped after a few of afetdelta's batches in the chain's pass */
    gint want = g_rand_int_range (rand, 5, 40);
    GstElement *d = gst_bin_get_by_name (GST_BIN (pipe), "d");
    for (gint i = 0; i < 200; i++) {
      guint64 chained = 0;
      g_object_get (d, "chained-batches", &chained, NULL);
      if (chained >= (guint64) want)
        break;
      g_usleep (5000);
    }
    gst_object_unref (d);
    if (gst_element_set_state (pipe, GST_STATE_NULL) !=
        GST_STATE_CHANGE_SUCCESS)
      job->failed++;
    GstMessage *err = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipe),
        GST_MESSAGE_ERROR);
    if (err) {
      job->failed++;
      gst_message_unref (err);
    }
    job->stopped++;
    gst_object_unref (sink);
    gst_object_unref (pipe);
    g_free (launch);
  }
  g_rand_free (rand);
  return NULL;
}

GST_START_TEST (test_live_chain_stopped)
{
  enum
  { N = 6 };
  StopJob jobs[N];
  GThread *threads[N];
  open_device_here ();
  for (gint i = 0; i < N; i++) {
    jobs[i].index = i;
    jobs[i].rounds = 3;
    jobs[i].stopped = 0;
    jobs[i].failed = 0;
    threads[i] = g_thread_new ("stop", run_stopped_chains, &jobs[i]);
  }
  /* streams that run to their end meanwhile, in the same passes */
  ChainRun runs[2];
  memset (runs, 0, sizeof (runs));
  runs[0].index = 1;
  runs[1].index = 2;
  run_chain (&runs[0]);
  run_chain (&runs[1]);
  for (gint i = 0; i < N; i++) {
    g_thread_join (threads[i]);
    fail_unless_equals_int (jobs[i].stopped, 3);
    fail_unless_equals_int (jobs[i].failed, 0);
  }
  for (gint k = 0; k < 2; k++) {
    fail_unless (runs[k].error == NULL, "%s", runs[k].error);
    fail_unless (runs[k].bytes->len > 0);
    fail_unless (runs[k].chained[0] > 0);
    g_array_free (runs[k].buffers, TRUE);
    g_byte_array_free (runs[k].bytes, TRUE);
  }
}

GST_END_TEST;

static Suite *
matrix_suite (void)
{
  Suite *s = suite_create ("matrix");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats_refused);
  tcase_add_test (tc, test_live_streams_combined);
  tcase_add_test (tc, test_live_context_lanes);
  tcase_add_test (tc, test_live_device_chain_combined);
  tcase_add_test (tc, test_live_default_chain_system_memory);
  tcase_add_test (tc, test_live_chain_discont);
  tcase_add_test (tc, test_live_chain_refused);
  tcase_add_test (tc, test_live_chain_stopped);
  tcase_add_test (tc, test_wrong_streams_refused);
  tcase_add_loop_test (tc, test_rates, 0, G_N_ELEMENTS (rates));
  tcase_add_test (tc, test_empty_and_short);
  tcase_add_test (tc, test_zero_size_buffers);
  tcase_add_test (tc, test_split_samples);
  tcase_add_test (tc, test_silence_clipping_denormals);
  tcase_add_test (tc, test_timestamp_gap_without_discont);
  tcase_add_test (tc, test_property_changes_in_every_state);
  tcase_add_test (tc, test_absurd_values);
  tcase_add_test (tc, test_stats_file_checked);
  tcase_add_test (tc, test_caps_change_every_element);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_engine_kept_between_runs);
  tcase_add_test (tc, test_threads_share_one_device);
  return s;
}

GST_CHECK_MAIN (matrix);
