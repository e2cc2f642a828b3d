/* libFuzzer target of the caps parser afet_features_info_from_caps ().
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* libFuzzer target for the public caps parser of the gstafetfeatures
 * library, afet_features_info_from_caps().
 *
 * The input bytes are a caps string.  When GStreamer parses them, every
 * structure of the caps (with its caps features) is handed to the parser
 * on its own, and the whole caps once more.  Besides crashes, leaks and
 * undefined behaviour, the target checks the documented contract
 * (docs/caps.md, afetfeatures.cc) and abort()s when it is broken:
 *
 *  - TRUE only for fixed caps of the right media type, and then the info
 *    passes afet_features_info_is_valid();
 *  - FALSE leaves the info untouched (every byte of it);
 *  - caps features are ignored: the same structure without them gives the
 *    same answer and the same info;
 *  - to_caps() of a parsed info gives fixed caps that parse back to an
 *    equal info and that match the pad template of all kinds;
 *  - the enum <-> string helpers agree with each other;
 *  - frames_to_time() / time_to_frames() do not fail for a valid info,
 *    are monotonic, and frame -> time -> frame is the identity whenever a
 *    frame lasts at least 2 ns (below that, nanoseconds cannot tell frames
 *    apart).
 *
 * Build and run: tools/fuzz.sh (see tests/fuzz/meson.build).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>

#include "afetfeatures.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/lsan_interface.h>
#define HAVE_LSAN 1
#endif
#endif

#ifdef HAVE_LSAN
void __asan_init (void);

/* What the shared libraries allocate in their constructors, before main,
 * is set up once and kept.  GLib drops one such block on purpose: its
 * first quark table, replaced by a bigger one once the fuzzed field and
 * structure names (each becomes a quark) outgrow its 2048 entries.  Without debug symbols for GLib, LeakSanitizer's fast
 * unwinder cannot tell that block from a real leak, so allocations are
 * ignored from before the first constructor until LLVMFuzzerInitialize()
 * is done (.preinit_array runs before any constructor). */
static void
lsan_disable_early (void)
{
  __asan_init ();               /* idempotent; it may not have run yet */
  __lsan_disable ();
}

__attribute__((section (".preinit_array"), used))
static void (*const lsan_disable_early_entry) (void) = lsan_disable_early;
#else
#define __lsan_disable() do { } while (0)
#define __lsan_enable() do { } while (0)
#endif

/* longest caps string tried; keep in step with -max_len in tools/fuzz.sh */
#define FUZZ_MAX_LEN 4096

/* a byte pattern no parse writes, to see whether a failed parse wrote */
#define POISON 0xa5

static GstCaps *template_all;   /* AFET_FEATURES_CAPS_MAKE (all kinds) */

/* set while GStreamer parses the fuzzed string or prints parsed caps */
static gboolean in_gstreamer;

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf (stderr, "fuzz_caps: %s:%d: check failed: %s\n",          \
          __FILE__, __LINE__, #cond);                                   \
      abort ();                                                         \
    }                                                                   \
  } while (0)

/* Formats the messages of the afetfeatures debug category and throws them
 * away, so that the format strings of its warnings run on fuzzed values
 * without filling the output. */
static void
swallow_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *text;

  if (strcmp (gst_debug_category_get_name (category), "afetfeatures") != 0)
    return;

  in_gstreamer = TRUE;
  text = gst_debug_message_get (message);
  in_gstreamer = FALSE;
  CHECK (text != NULL);
}

/* GStreamer's parser warns about malformed strings, and 1.22 even emits a
 * critical for an invalid structure name; that is its normal answer to
 * bad input.  It also emits a critical when it prints caps that it parsed
 * but cannot serialize again, such as a list holding a NULL string
 * ("{ a, NULL }"), which happens when the library logs such caps.
 * Anywhere else a warning or critical (from the library's
 * g_return_if_fail checks, or from GLib and GStreamer about how the
 * library called them) means a misuse or a broken invariant: crash, so
 * that libFuzzer keeps the input. */
static void
log_handler (const gchar * domain, GLogLevelFlags level, const gchar * msg,
    gpointer user_data)
{
  if (in_gstreamer)
    return;

  fprintf (stderr, "fuzz_caps: unexpected %s from %s: %s\n",
      (level & G_LOG_LEVEL_WARNING) ? "warning" : "critical",
      domain ? domain : "afet", msg);
  abort ();
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  static const gchar *const domains[] = {
    NULL /* afetfeatures.cc */ , "GStreamer", "GLib", "GLib-GObject"
  };
  guint i;

  /* GSlice keeps freed blocks in per-thread magazines that LeakSanitizer
   * cannot see through: plain malloc for every slice (GLib < 2.76) */
  g_setenv ("G_SLICE", "always-malloc", TRUE);
  /* no plugin is needed for caps: skip the registry and its scan */
  g_setenv ("GST_REGISTRY_DISABLE", "yes", FALSE);
  g_setenv ("GST_PLUGIN_SYSTEM_PATH_1_0", "", FALSE);
  g_setenv ("GST_PLUGIN_PATH_1_0", "", FALSE);

  /* LeakSanitizer is off until the end of this function (see
   * lsan_disable_early()): what GStreamer sets up once and keeps (types,
   * quarks, the lists of log functions it replaces and never frees) is not
   * a leak */
  gst_init (NULL, NULL);

  for (i = 0; i < G_N_ELEMENTS (domains); i++)
    g_log_set_handler (domains[i], G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL |
        G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, log_handler, NULL);

  if (g_getenv ("GST_DEBUG") == NULL) {
    gst_debug_set_active (TRUE);
    gst_debug_set_threshold_for_name ("afetfeatures", GST_LEVEL_LOG);
    gst_debug_remove_log_function (gst_debug_log_default);
    gst_debug_add_log_function (swallow_log, NULL, NULL);
  }

  template_all = gst_caps_from_string (AFET_FEATURES_CAPS_MAKE
      (AFET_FEATURES_KINDS_ALL));
  CHECK (template_all != NULL);

  /* one rejected and one accepted parse: creates the library's debug
   * category and the quarks of every field name it looks up */
  {
    AfetFeaturesInfo info;
    GstCaps *caps, *caps2;

    CHECK (!afet_features_info_from_caps (&info, template_all));
    caps = gst_caps_from_string (AFET_FEATURES_MEDIA_TYPE
        ", format=(string)F32LE, kind=(string)mfcc, dims=(int)39, "
        "rate=(int)16000, frame-length=(int)400, frame-shift=(int)160, "
        "framerate=(fraction)100/1, statics=(int)13, c0-index=(int)12, "
        "energy-index=(int)-1, delta-order=(int)2, "
        "normalization=(string)none, preset=(string)htk, "
        "window=(string)hamming");
    CHECK (caps != NULL);
    CHECK (afet_features_info_from_caps (&info, caps));
    caps2 = afet_features_info_to_caps (&info);
    CHECK (caps2 != NULL);
    gst_caps_unref (caps2);
    gst_caps_unref (caps);
  }

  __lsan_enable ();

  return 0;
}

/* FNV-1a, to derive arbitrary but reproducible arguments from the input */
static guint64
hash_bytes (const guint8 * data, size_t size)
{
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  size_t i;

  for (i = 0; i < size; i++) {
    h ^= data[i];
    h *= G_GUINT64_CONSTANT (0x100000001b3);
  }

  return h;
}

static void
check_strings (const AfetFeaturesInfo * info)
{
  const gchar *s;

  s = afet_features_kind_to_string (info->kind);
  CHECK (s != NULL);
  CHECK (afet_features_kind_from_string (s) == info->kind);

  s = afet_features_norm_to_string (info->normalization);
  CHECK (s != NULL);
  CHECK (afet_features_norm_from_string (s) == info->normalization);

  s = afet_features_preset_to_string (info->preset);
  CHECK (s != NULL);
  CHECK (afet_features_preset_from_string (s) == info->preset);

  s = afet_features_window_to_string (info->window);
  if (info->window == AFET_FEATURES_WINDOW_UNKNOWN)
    CHECK (s == NULL);
  else
    CHECK (s != NULL && afet_features_window_from_string (s) == info->window);
}

/* frame -> time -> frame for @n; and monotonicity between @n and @n + 1 */
static void
check_frame (const AfetFeaturesInfo * info, guint64 n)
{
  GstClockTime t, t1;
  guint64 back;

  t = afet_features_info_frames_to_time (info, n);
  if (t == GST_CLOCK_TIME_NONE) {
    /* does not fit; neither does any later frame */
    if (n < G_MAXUINT64)
      CHECK (afet_features_info_frames_to_time (info, n + 1) ==
          GST_CLOCK_TIME_NONE);
    return;
  }

  back = afet_features_info_time_to_frames (info, t);
  /* t is n * S / R rounded down by less than 1 ns, so rounding back to
   * the nearest frame gives n when R / (S * 1e9) <= 1/2 */
  if (2 * (guint64) info->rate <= (guint64) info->frame_shift * GST_SECOND)
    CHECK (back == n);

  if (n < G_MAXUINT64) {
    t1 = afet_features_info_frames_to_time (info, n + 1);
    CHECK (t1 == GST_CLOCK_TIME_NONE || t1 >= t);
  }
}

static void
check_queries (const AfetFeaturesInfo * info, guint64 h)
{
  AfetFeaturesInfo *copy;
  GstClockTime t;
  guint64 frames;

  CHECK (afet_features_info_is_valid (info));
  CHECK (afet_features_info_is_equal (info, info));
  CHECK (AFET_FEATURES_INFO_FRAME_BYTES (info) ==
      (gsize) info->dims * sizeof (gfloat));
  CHECK (info->fps_n >= 1 && info->fps_d >= 1);
  CHECK (gst_util_greatest_common_divisor (info->fps_n, info->fps_d) == 1);

  copy = afet_features_info_copy (info);
  CHECK (afet_features_info_is_equal (info, copy));
  CHECK (afet_features_info_is_valid (copy));
  afet_features_info_free (copy);

  check_strings (info);

  CHECK (afet_features_info_frames_to_time (info, 0) == 0);
  CHECK (afet_features_info_time_to_frames (info, 0) == 0);
  CHECK (afet_features_info_time_to_frames (info, GST_CLOCK_TIME_NONE) ==
      G_MAXUINT64);

  check_frame (info, 1);
  check_frame (info, info->fps_n);
  check_frame (info, h & 0xffffffff);
  check_frame (info, h >> 11);
  check_frame (info, h);
  check_frame (info, G_MAXUINT64);

  /* fps_n frames span fps_d seconds exactly */
  t = afet_features_info_frames_to_time (info, info->fps_n);
  CHECK (t == (GstClockTime) info->fps_d * GST_SECOND);

  /* arbitrary times, including the largest valid one */
  frames = afet_features_info_time_to_frames (info, h >> 1);
  (void) frames;
  frames = afet_features_info_time_to_frames (info, G_MAXUINT64 - 1);
  (void) frames;
  t = afet_features_info_frames_to_time (info,
      afet_features_info_time_to_frames (info, h % (G_GUINT64_CONSTANT (1)
              << 40)));
  (void) t;
}

/* Parses @caps, checks the answer and, on success, the round trip and the
 * query functions.  Returns the parse result; *@out gets the info. */
static gboolean
parse_and_check (const GstCaps * caps, AfetFeaturesInfo * out, guint64 h)
{
  AfetFeaturesInfo info, poisoned, again;
  GstCaps *caps2;
  gboolean ok;

  memset (&info, POISON, sizeof (info));
  memcpy (&poisoned, &info, sizeof (info));

  ok = afet_features_info_from_caps (&info, caps);
  if (!ok) {
    CHECK (memcmp (&info, &poisoned, sizeof (info)) == 0);
    return FALSE;
  }

  CHECK (gst_caps_is_fixed (caps));
  CHECK (gst_structure_has_name (gst_caps_get_structure (caps, 0),
          AFET_FEATURES_MEDIA_TYPE));

  check_queries (&info, h);

  caps2 = afet_features_info_to_caps (&info);
  CHECK (caps2 != NULL);
  CHECK (gst_caps_is_fixed (caps2));
  CHECK (gst_caps_is_subset (caps2, template_all));

  memset (&again, POISON, sizeof (again));
  CHECK (afet_features_info_from_caps (&again, caps2));
  CHECK (afet_features_info_is_equal (&info, &again));
  CHECK (afet_features_info_is_equal (&again, &info));
  gst_caps_unref (caps2);

  *out = info;
  return TRUE;
}

/* The same structure without caps features must give the same answer. */
static void
check_features_ignored (const GstCaps * one, gboolean ok,
    const AfetFeaturesInfo * info, guint64 h)
{
  GstCapsFeatures *features = gst_caps_get_features (one, 0);
  AfetFeaturesInfo plain_info;
  GstCaps *plain;

  if (features == NULL ||
      gst_caps_features_is_equal (features,
          GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
    return;
  /* ANY features make caps unfixed, and so unacceptable */
  if (gst_caps_features_is_any (features)) {
    CHECK (!ok);
    return;
  }

  plain = gst_caps_copy (one);
  gst_caps_set_features (plain, 0, NULL);
  CHECK (parse_and_check (plain, &plain_info, h) == ok);
  if (ok)
    CHECK (afet_features_info_is_equal (info, &plain_info));
  gst_caps_unref (plain);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  AfetFeaturesInfo info;
  GstCaps *parsed, *caps;
  gchar *str;
  guint i, n;
  guint64 h;
  gboolean ok;

  if (size > FUZZ_MAX_LEN)
    return 0;

  str = g_malloc (size + 1);
  memcpy (str, data, size);
  str[size] = '\0';
  /* GStreamer 1.22's parser leaks the list or array it was filling when
   * a value inside fails to parse ("a, b={ c", "a, b={ 1 2 }"): not
   * afet's leak, so LeakSanitizer ignores what the parser allocates.
   * Work on a copy made outside that window, so that a leak of the caps
   * below is still reported. */
  __lsan_disable ();
  in_gstreamer = TRUE;
  parsed = gst_caps_from_string (str);
  in_gstreamer = FALSE;
  __lsan_enable ();
  g_free (str);
  if (parsed == NULL)
    return 0;
  caps = gst_caps_copy (parsed);
  gst_caps_unref (parsed);

  h = hash_bytes (data, size);

  /* the caps as given: accepted only if fixed (one structure) */
  ok = parse_and_check (caps, &info, h);
  n = gst_caps_get_size (caps);
  if (ok)
    CHECK (n == 1);

  /* each structure on its own, with its features */
  for (i = 0; i < n; i++) {
    AfetFeaturesInfo one_info;
    GstCaps *one = gst_caps_copy_nth (caps, i);
    gboolean one_ok;

    one_ok = parse_and_check (one, &one_info, h);
    if (n == 1) {
      CHECK (one_ok == ok);
      if (ok)
        CHECK (afet_features_info_is_equal (&info, &one_info));
    }
    check_features_ignored (one, one_ok, &one_info, h);
    gst_caps_unref (one);
  }

  gst_caps_unref (caps);
  return 0;
}
