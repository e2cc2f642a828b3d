/* Regression tests for failures that once lost or corrupted data silently,
 * and for the clarity of the errors.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Errors at EOS, DISCONT in chains, large frames, the application's locale,
 * non-finite samples, runs without timestamps; and the clarity of the errors
 * (once, as errors, naming the cause).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <glib/gstdio.h>

#include <dlfcn.h>
#include <locale.h>
#include <math.h>
#include <string.h>

/* Deterministic speech-like test signal in 16-bit scale (integral). */
static gdouble *
make_signal (gint n, guint seed)
{
  gdouble *x = g_new (gdouble, n);
  guint64 r = seed * 0x9E3779B97F4A7C15ull + 7;
  for (gint i = 0; i < n; i++) {
    r ^= r << 13;
    r ^= r >> 7;
    r ^= r << 17;
    gdouble env = 0.5 + 0.5 * sin (2 * G_PI * 3.0 * i / 16000.0 + seed);
    gdouble v = 6000 * env * sin (2 * G_PI * (180 + 40 * seed) * i / 16000.0)
        + 2500 * sin (2 * G_PI * 1250.0 * i / 16000.0)
        + (gdouble) (gint) (r % 801) - 400;
    x[i] = (gdouble) (gint) v;
  }
  return x;
}

static const gint splits[] = { 160, 37, 1000, 1, 4096, 333 };

/* One run of samples through launch in a fresh harness. */
static void
run_alone (const gchar * launch, gboolean live, const gdouble * x, gint n,
    GstClockTime t0, AfetCheckRuns * out)
{
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_live (h, live);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, 16000,
          x, n, splits, G_N_ELEMENTS (splits), t0, TRUE), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  afetcheck_pull_runs (h, out);
  gst_harness_teardown (h);
}

/* ---- 1. errors while draining at EOS reach the bus ------------------- */

GST_START_TEST (test_eos_error_not_lost)
{
  static const gchar *cases[][2] = {
    {"afetmfcc ! afetdelta ! afettraps", "afettraps"},
    {"afetmfcc ! afetcmvn ! application/x-afet-features,dims=40",
        "capsfilter"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=5 "
        "samplesperbuffer=1600 ! audio/x-raw,rate=16000,channels=1 ! %s ! "
        "fakesink", cases[i][0]);
    gchar *error = NULL;
    fail_if (afetcheck_run_launch (launch, &error), "%s ended with EOS",
        launch);
    fail_unless (error && strstr (error, cases[i][1]),
        "%s: the error does not name %s: %s", launch, cases[i][1], error);
    g_free (error);
    g_free (launch);
  }
}

GST_END_TEST;

/* ---- 2. a DISCONT in a chain equals the two halves run apart ---------- */

static const gchar *discont_chains[] = {
  "afetmfcc ! afetdelta",
  "afetmfcc ! afetcmvn scope=sliding",
  "afetmfcc ! afetcmvn scope=running",
  "afetmfcc ! afetdelta ! afetcmvn scope=sliding",
  "afetframer ! afetmfcc",
  "afetplp ! afetdelta ! afetcmvn scope=running",
  "afettraps",
  "afetmfcc num-ceps=0 ! afettraps",
  "afetmfcc ! afetdelta ! afetcmvn",   /* utterance: not live */
};

static void
check_discont_chain (const gchar * launch, gboolean live)
{
  const gint na = 20800, nb = 14500;
  const GstClockTime tb = 5 * GST_SECOND;
  gdouble *a = make_signal (na, 1), *b = make_signal (nb, 2);
  AfetCheckRuns ra = { 0 }, rb = { 0 }, both = { 0 };
  run_alone (launch, live, a, na, 0, &ra);
  run_alone (launch, live, b, nb, tb, &rb);

  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_live (h, live);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, 16000,
          a, na, splits, G_N_ELEMENTS (splits), 0, TRUE), GST_FLOW_OK);
  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, 16000,
          b, nb, splits + 2, 3, tb, TRUE), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  afetcheck_pull_runs (h, &both);
  gst_harness_teardown (h);

  fail_unless_equals_int (ra.n_runs, 1);
  fail_unless_equals_int (both.n_runs, 2);
  fail_unless_equals_int (both.n_discont, 2);
  fail_unless_equals_int (both.run_frames[0], ra.n_frames);
  fail_unless_equals_int (both.run_frames[1], rb.n_frames);
  fail_unless_equals_uint64 (both.run_pts[1], tb);
  gdouble ea = afetcheck_max_rel_diff (both.data, ra.data,
      (gsize) ra.n_frames * ra.dims);
  gdouble eb = afetcheck_max_rel_diff (both.data + (gsize) both.run_start[1]
      * both.dims, rb.data, (gsize) rb.n_frames * rb.dims);
  GST_INFO ("%s (%s): runs differ by %g / %g", launch, live ? "live" :
      "offline", ea, eb);
  fail_unless (ea < 1e-5 && eb < 1e-5, "%s (%s): the runs of a DISCONT "
      "stream differ from the runs apart by %g / %g", launch,
      live ? "live" : "offline", ea, eb);
  afetcheck_runs_clear (&ra);
  afetcheck_runs_clear (&rb);
  afetcheck_runs_clear (&both);
  g_free (a);
  g_free (b);
}

GST_START_TEST (test_discont_chain_offline)
{
  check_discont_chain (discont_chains[__i__], FALSE);
}

GST_END_TEST;

GST_START_TEST (test_discont_chain_live)
{
  /* the utterance scope is refused on live sources (afetcmvn's tests) */
  if (__i__ == G_N_ELEMENTS (discont_chains) - 1)
    return;
  check_discont_chain (discont_chains[__i__], TRUE);
}

GST_END_TEST;

/* ---- 3. large frames: work or refused naming the property ------------- */

GST_START_TEST (test_large_frames)
{
  gchar *error = NULL;
  fail_if (afetcheck_run_launch ("audiotestsrc num-buffers=4 "
          "samplesperbuffer=19200 ! audio/x-raw,rate=192000,channels=1 ! "
          "afetmfcc frame-length=400 max-batch=8 ! fakesink", &error));
  fail_unless (error && strstr (error, "frame-length") &&
      strstr (error, "341 ms"), "%s", error);
  g_free (error);

  /* max-batch far beyond what one buffer can hold is clamped */
  fail_unless (afetcheck_run_launch ("audiotestsrc num-buffers=4 "
          "samplesperbuffer=19200 ! audio/x-raw,rate=192000,channels=1 ! "
          "afetframer frame-length=1000 frame-shift=100 max-batch=1048576 ! "
          "fakesink", &error), "%s", error);
}

GST_END_TEST;

/* ---- 4. the application's locale ------------------------------------- */

static volatile gint locale_sets = 0;
static volatile gboolean counting = FALSE;

/* Every setlocale of the process comes here while the test counts (the
 * executable is linked with -rdynamic, so it interposes libc's). */
char *
setlocale (int category, const char *locale)
{
  static char *(*real) (int, const char *) = NULL;
  if (!real)
    real = (char *(*)(int, const char *)) dlsym (RTLD_NEXT, "setlocale");
  if (counting && locale)
    g_atomic_int_inc (&locale_sets);
  return real (category, locale);
}

GST_START_TEST (test_locale_untouched)
{
  /* a fresh FFT plan is built (no cache, a size no other test uses) */
  g_setenv ("AFET_CACHE_DIR", "disabled", TRUE);
  fail_unless (setlocale (LC_ALL, "C.UTF-8") != NULL);
  counting = TRUE;
  gchar *error = NULL;
  fail_unless (afetcheck_run_launch ("audiotestsrc num-buffers=3 ! "
          "audio/x-raw,rate=22050,channels=1 ! afetmfcc frame-length=30 ! "
          "fakesink", &error), "%s", error);
  fail_unless (afetcheck_run_launch ("audiotestsrc num-buffers=3 ! "
          "audio/x-raw,rate=22050,channels=1 ! afetplp frame-length=35 ! "
          "fakesink", &error), "%s", error);
  counting = FALSE;
  fail_unless_equals_int (g_atomic_int_get (&locale_sets), 0);
  fail_unless_equals_string (setlocale (LC_ALL, NULL), "C.UTF-8");
}

GST_END_TEST;

/* ---- 5. non-finite samples ------------------------------------------- */

GST_START_TEST (test_nonfinite_samples)
{
  const gint n = 16000;
  const gchar *chains[] = { "afetmfcc", "afetmfcc ! afetcmvn",
    "afetplp ! afetdelta ! afetcmvn scope=sliding"
  };
  gdouble *x = make_signal (n, 3);
  gdouble *clean = g_memdup2 (x, n * sizeof (gdouble));
  x[5000] = NAN;
  x[9000] = INFINITY;
  x[9001] = -INFINITY;
  x[12000] = 1e300;             /* finite, but not in float 16-bit scale */
  x[13000] = 1e15 * 32768;      /* a float sample of 1e15: the spectrum
                                 * would overflow */
  x[14000] = -2147480000.0;     /* inside the limit (2^31): kept */
  clean[14000] = x[14000];
  clean[5000] = clean[9000] = clean[9001] = clean[12000] = clean[13000] = 0;

  for (guint c = 0; c < G_N_ELEMENTS (chains); c++) {
    AfetCheckRuns got = { 0 }, want = { 0 };
    GstHarness *h = gst_harness_new_parse (chains[c]);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    gst_harness_set_live (h, FALSE);
    afetcheck_set_audio_caps (h, AFETCHECK_F64, 16000);
    fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_F64, 16000,
            x, n, splits, G_N_ELEMENTS (splits), 0, TRUE), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    afetcheck_pull_runs (h, &got);
    guint errors = 0, warnings = 0;
    gchar *warning = NULL;
    gchar *error = afetcheck_pop_error (bus, &errors, &warnings, &warning);
    fail_unless (error == NULL, "%s", error);
    fail_unless_equals_int (warnings, 1);
    fail_unless (strstr (warning, "NaN") && strstr (warning, "0:00:00.3125"),
        "%s", warning);
    g_free (warning);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);

    h = gst_harness_new_parse (chains[c]);
    gst_harness_set_live (h, FALSE);
    afetcheck_set_audio_caps (h, AFETCHECK_F64, 16000);
    afetcheck_push_samples (h, AFETCHECK_F64, 16000, clean, n, NULL, 0, 0,
        TRUE);
    gst_harness_push_event (h, gst_event_new_eos ());
    afetcheck_pull_runs (h, &want);
    gst_harness_teardown (h);

    fail_unless_equals_int (got.n_frames, want.n_frames);
    for (gint i = 0; i < got.n_frames * got.dims; i++)
      fail_unless (isfinite (got.data[i]), "%s: frame %d is not finite",
          chains[c], i / got.dims);
    fail_unless (afetcheck_max_rel_diff (got.data, want.data,
            (gsize) got.n_frames * got.dims) < 1e-6, "%s", chains[c]);
    afetcheck_runs_clear (&got);
    afetcheck_runs_clear (&want);
  }
  g_free (x);
  g_free (clean);
}

GST_END_TEST;

/* ---- 6. runs without timestamps: time goes on ------------------------ */

static void
push_untimed (GstHarness * h, const gdouble * x, gint n, gboolean discont)
{
  for (gint done = 0; done < n; done += 1000) {
    gint len = MIN (1000, n - done);
    GstBuffer *buf = gst_buffer_new_allocate (NULL, len * 2, NULL);
    GstMapInfo map;
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (gint i = 0; i < len; i++) {
      gint16 v = GINT16_TO_LE ((gint16) x[done + i]);
      memcpy (map.data + 2 * i, &v, 2);
    }
    gst_buffer_unmap (buf, &map);
    if (done == 0 && discont)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
}

GST_START_TEST (test_untimed_discont)
{
  const gint na = 16080, nb = 8000;
  gdouble *a = make_signal (na, 4), *b = make_signal (nb, 5);
  GstHarness *h = gst_harness_new_parse ("afetmfcc ! afetdelta");
  gst_harness_set_live (h, FALSE);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  push_untimed (h, a, na, TRUE);
  push_untimed (h, b, nb, TRUE);
  push_untimed (h, a, na, TRUE);
  gst_harness_push_event (h, gst_event_new_eos ());
  AfetCheckRuns runs = { 0 };
  afetcheck_pull_runs (h, &runs);
  gst_harness_teardown (h);
  fail_unless_equals_int (runs.n_runs, 3);
  fail_unless_equals_uint64 (runs.run_pts[0], 0);
  /* each run starts where the previous run's samples ended */
  fail_unless_equals_uint64 (runs.run_pts[1], gst_util_uint64_scale (na,
          GST_SECOND, 16000));
  fail_unless_equals_uint64 (runs.run_pts[2], gst_util_uint64_scale (na + nb,
          GST_SECOND, 16000));
  afetcheck_runs_clear (&runs);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* ---- clear errors ----------------------------------------------------- */

/* Settings the engine refuses at configure time: one ERROR however many
 * buffers follow, and no second error about downstream. */
GST_START_TEST (test_configure_refusal_once)
{
  GstHarness *h = gst_harness_new ("afetmfcc");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set (h, "afetmfcc", "num-filters", 256, NULL);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 8000);
  for (gint i = 0; i < 10; i++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, 1600, NULL);
    gst_buffer_memset (buf, 0, 0, 1600);
    fail_if (gst_harness_push (h, buf) == GST_FLOW_OK);
  }
  guint errors = 0, warnings = 0;
  gchar *error = afetcheck_pop_error (bus, &errors, &warnings, NULL);
  fail_unless (error && strstr (error, "filters"), "%s", error);
  fail_unless_equals_int (errors, 1);
  g_free (error);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A refused format is one ERROR naming the cause and the fix. */
GST_START_TEST (test_refusal_once)
{
  GstHarness *h = gst_harness_new ("afetmfcc");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "audio/x-raw, format=S16LE, "
      "layout=interleaved, rate=16000, channels=2");
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 6400, NULL);
  gst_buffer_memset (buf, 0, 0, 6400);
  fail_if (gst_harness_push (h, buf) == GST_FLOW_OK);
  guint errors = 0, warnings = 0;
  gchar *error = afetcheck_pop_error (bus, &errors, &warnings, NULL);
  fail_unless (error && strstr (error, "mono") &&
      strstr (error, "audioconvert"), "%s", error);
  fail_unless_equals_int (errors, 1);
  fail_unless_equals_int (warnings, 0);
  g_free (error);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_device_variable_named)
{
  g_setenv ("AFET_DEVICE", "nonsense-device", TRUE);
  gchar *error = NULL;
  fail_if (afetcheck_run_launch ("audiotestsrc num-buffers=2 ! "
          "audio/x-raw,rate=16000,channels=1 ! afetmfcc ! fakesink", &error));
  fail_unless (error && strstr (error, "AFET_DEVICE=\"nonsense-device\""),
      "%s", error);
  g_free (error);
  g_unsetenv ("AFET_DEVICE");
}

GST_END_TEST;

/* A program cache directory others can write is refused, and the user is
 * told on the bus (not only in the debug log): one WARNING naming the
 * directory and the fix; the features are computed all the same. */
GST_START_TEST (test_untrusted_cache_told)
{
  gchar *dir = g_dir_make_tmp ("afet-cache-XXXXXX", NULL);
  fail_unless (dir != NULL);
  fail_unless (g_chmod (dir, 0777) == 0);
  g_setenv ("AFET_CACHE_DIR", dir, TRUE);
  GstElement *pipe = gst_parse_launch ("audiotestsrc num-buffers=4 ! "
      "audio/x-raw,rate=16000,channels=1 ! afetmfcc ! fakesink", NULL);
  fail_unless (pipe != NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipe);
  guint warnings = 0;
  gboolean eos = FALSE;
  while (!eos) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
            GST_MESSAGE_WARNING));
    fail_unless (m != NULL, "neither EOS nor an error in 120 s");
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      GError *e = NULL;
      gst_message_parse_warning (m, &e, NULL);
      fail_unless (strstr (e->message, dir) && strstr (e->message,
              "chmod go-w"), "%s", e->message);
      g_error_free (e);
      warnings++;
    }
    eos = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
    gst_message_unref (m);
  }
  fail_unless_equals_int (warnings, 1);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  /* nothing was stored in it */
  GDir *d = g_dir_open (dir, 0, NULL);
  fail_unless (d != NULL && g_dir_read_name (d) == NULL);
  g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
  g_unsetenv ("AFET_CACHE_DIR");
}

GST_END_TEST;

/* Framing properties on an element fed frames: equal values pass, others
 * are refused naming the property. */
GST_START_TEST (test_framing_on_frames)
{
  static const struct
  {
    const gchar *props;
    const gchar *refused;
  } cases[] = {
    {"frame-length=25 frame-shift=10 window=hamming", NULL},
    {"frame-length=30", "frame-length"},
    {"frame-shift=15", "frame-shift"},
    {"window=hann", "window"},
    {"preemphasis=0.9", "preemphasis"},
    {"pad=true", "pad"},
  };
  const gchar *elements[] = { "afetmfcc", "afetplp" };
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++)
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
      gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=3 ! "
          "audio/x-raw,rate=16000,channels=1 ! afetframer ! %s %s ! "
          "fakesink", elements[e], cases[i].props);
      gchar *error = NULL;
      gboolean eos = afetcheck_run_launch (launch, &error);
      if (!cases[i].refused)
        fail_unless (eos, "%s: %s", launch, error);
      else
        fail_unless (!eos && strstr (error, cases[i].refused) &&
            strstr (error, "afetframer"), "%s: %s", launch, error);
      g_free (error);
      g_free (launch);
    }
}

GST_END_TEST;

/* ---- device faults (AFET_FAULT, engine/runtime/fault.h) ------------------ */

static const gchar *faults[] = { "alloc:1", "alloc:5", "alloc:3+",
  "build:1+", "build:3+", "enqueue:1", "enqueue:9", "enqueue:40+"
};

GST_START_TEST (test_device_faults)
{
  /* the engine reads AFET_FAULT once a process (fault.cc): each check needs
   * a process of its own. Unforked (tools/sanitize.sh's first rerun after
   * a LeakSanitizer tracer crash) the checks would only see the first
   * check's faults and the programs it cached. */
  if (g_strcmp0 (g_getenv ("CK_FORK"), "no") == 0) {
    GST_INFO ("AFET_FAULT=%s: not checked unforked (CK_FORK=no)",
        faults[__i__]);
    return;
  }
  g_setenv ("AFET_FAULT", faults[__i__], TRUE);
  g_setenv ("AFET_CACHE_DIR", "disabled", TRUE);
  gchar *error = NULL;
  fail_if (afetcheck_run_launch ("audiotestsrc num-buffers=60 "
          "samplesperbuffer=800 ! audio/x-raw,rate=16000,channels=1 ! "
          "afetmfcc max-batch=16 ! afetdelta ! afetcmvn scope=sliding ! "
          "fakesink", &error), "AFET_FAULT=%s: the pipeline ended with EOS",
      faults[__i__]);
  GST_INFO ("AFET_FAULT=%s: %s", faults[__i__], error);
  fail_unless (error && strstr (error, "CL_") && (strstr (error, "clinfo")
          || strstr (error, "max-batch")), "AFET_FAULT=%s: %s",
      faults[__i__], error);
  g_free (error);
}

GST_END_TEST;

/* Every property of every afet element reads, and takes its own value
 * back (GstCheck makes GLib warnings and criticals fatal): afettransform
 * once handed latency-budget, a base-class property, to its own switch ("invalid property
 * id", and g_value_get_string on an int64 when set). */
GST_START_TEST (test_every_property_round_trip)
{
  GList *features = gst_registry_get_feature_list_by_plugin
      (gst_registry_get (), "afet");
  guint elements = 0;
  for (GList * l = features; l; l = l->next) {
    if (!GST_IS_ELEMENT_FACTORY (l->data))
      continue;
    GstElement *e = gst_element_factory_create (GST_ELEMENT_FACTORY
        (l->data), NULL);
    fail_unless (e != NULL);
    elements++;
    guint n = 0;
    GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS
        (e), &n);
    for (guint i = 0; i < n; i++) {
      GParamSpec *ps = specs[i];
      /* (GstObject's name and parent are not the element's settings) */
      if (!(ps->flags & G_PARAM_READABLE) || ps->owner_type == GST_TYPE_OBJECT)
        continue;
      GValue v = G_VALUE_INIT;
      g_value_init (&v, ps->value_type);
      g_object_get_property (G_OBJECT (e), ps->name, &v);
      if ((ps->flags & G_PARAM_WRITABLE) &&
          !(ps->flags & G_PARAM_CONSTRUCT_ONLY))
        g_object_set_property (G_OBJECT (e), ps->name, &v);
      g_value_unset (&v);
    }
    g_free (specs);
    gst_object_unref (e);
  }
  gst_plugin_feature_list_free (features);
  fail_unless (elements >= 10, "only %u afet elements", elements);
}

GST_END_TEST;

static Suite *
reliability_suite (void)
{
  Suite *s = suite_create ("reliability");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_eos_error_not_lost);
  tcase_add_loop_test (tc, test_discont_chain_offline, 0,
      G_N_ELEMENTS (discont_chains));
  tcase_add_loop_test (tc, test_discont_chain_live, 0,
      G_N_ELEMENTS (discont_chains));
  tcase_add_test (tc, test_large_frames);
  tcase_add_test (tc, test_locale_untouched);
  tcase_add_test (tc, test_nonfinite_samples);
  tcase_add_test (tc, test_untimed_discont);
  tcase_add_test (tc, test_refusal_once);
  tcase_add_test (tc, test_configure_refusal_once);
  tcase_add_test (tc, test_device_variable_named);
  tcase_add_test (tc, test_untrusted_cache_told);
  tcase_add_test (tc, test_framing_on_frames);
  tcase_add_test (tc, test_every_property_round_trip);
  tcase_add_loop_test (tc, test_device_faults, 0, G_N_ELEMENTS (faults));
  return s;
}

GST_CHECK_MAIN (reliability);
