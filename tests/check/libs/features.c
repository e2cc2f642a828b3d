/* Unit test of the AfetFeaturesInfo caps API (gstafetfeatures library).
 * Copyright (C) 2026 the afet authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with this library; if not, see
 * <https://www.gnu.org/licenses/>.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/check/gstcheck.h>

#include "afetfeatures.h"

/* A complete, valid description of a 13 + deltas + accelerations MFCC
 * stream.  Failure tests start from it and change a single field. */
#define VALID_MFCC_CAPS                                         \
    AFET_FEATURES_MEDIA_TYPE ", format = (string) F32LE, "      \
    "kind = (string) mfcc, dims = (int) 39, rate = (int) 16000, " \
    "frame-length = (int) 400, frame-shift = (int) 160, "       \
    "framerate = (fraction) 100/1, statics = (int) 13, "        \
    "c0-index = (int) 12, energy-index = (int) -1, "            \
    "delta-order = (int) 2, normalization = (string) none, "    \
    "preset = (string) htk, window = (string) hamming"

/* ---- capture of the afetfeatures debug category ---- */

typedef struct
{
  GstDebugLevel level;
  gchar *text;
} LogLine;

static GPtrArray *log_lines;

static void
log_line_free (gpointer data)
{
  LogLine *line = data;

  g_free (line->text);
  g_free (line);
}

static void
capture_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  LogLine *l;

  if (log_lines == NULL ||
      g_strcmp0 (gst_debug_category_get_name (category), "afetfeatures"))
    return;

  l = g_new0 (LogLine, 1);
  l->level = level;
  l->text = g_strdup (gst_debug_message_get (message));
  g_ptr_array_add (log_lines, l);
}

/* Called once, before the tests run (and fork). */
static void
install_log_capture (void)
{
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("afetfeatures", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (capture_log, NULL, NULL);
  /* expected failures would fill the output with warnings; keep the
   * default printer only when the user asked for debug output */
  if (g_getenv ("GST_DEBUG") == NULL)
    gst_debug_remove_log_function (gst_debug_log_default);
}

static void
setup (void)
{
  log_lines = g_ptr_array_new_with_free_func (log_line_free);
}

static void
teardown (void)
{
  g_ptr_array_unref (log_lines);
  log_lines = NULL;
}

static void
clear_log (void)
{
  g_ptr_array_set_size (log_lines, 0);
}

static guint
count_lines (GstDebugLevel level)
{
  guint i, n = 0;

  for (i = 0; i < log_lines->len; i++) {
    LogLine *l = g_ptr_array_index (log_lines, i);
    if (l->level == level)
      n++;
  }
  return n;
}

/* Asserts that exactly one line of @level was logged since clear_log() and
 * that it contains @needle. */
static void
assert_one_line (GstDebugLevel level, const gchar * needle)
{
  guint i;

#ifdef GST_DISABLE_GST_DEBUG
  return;
#endif

  fail_unless_equals_int (count_lines (level), 1);
  for (i = 0; i < log_lines->len; i++) {
    LogLine *l = g_ptr_array_index (log_lines, i);
    if (l->level == level) {
      fail_unless (strstr (l->text, needle) != NULL,
          "log line '%s' does not mention '%s'", l->text, needle);
    }
  }
}

/* ---- helpers ---- */

static GstCaps *
valid_caps (void)
{
  GstCaps *caps = gst_caps_from_string (VALID_MFCC_CAPS);

  fail_unless (caps != NULL);
  return caps;
}

/* An info filled with values that no parse produces, to detect writes. */
static void
poison_info (AfetFeaturesInfo * info)
{
  memset (info, 0x5a, sizeof (*info));
}

/* from_caps must reject @caps (taking ownership), leave the info alone
 * and log one warning that mentions @needle. */
static void
assert_rejected (GstCaps * caps, const gchar * needle)
{
  AfetFeaturesInfo info, before;

  poison_info (&info);
  before = info;
  clear_log ();
  fail_if (afet_features_info_from_caps (&info, caps),
      "caps were accepted: %" GST_PTR_FORMAT, caps);
  fail_unless (memcmp (&info, &before, sizeof (info)) == 0,
      "info was modified by a failed parse");
  assert_one_line (GST_LEVEL_WARNING, needle);
  gst_caps_unref (caps);
}

/* valid_caps() with @field set to a value */
static GstCaps *
valid_caps_with (const gchar * field, GType type, ...)
{
  GstCaps *caps = valid_caps ();
  GstStructure *s = gst_caps_get_structure (caps, 0);
  va_list args;

  va_start (args, type);
  if (type == GST_TYPE_FRACTION) {
    gint n = va_arg (args, gint);
    gint d = va_arg (args, gint);
    gst_structure_set (s, field, type, n, d, NULL);
  } else if (type == G_TYPE_INT) {
    gst_structure_set (s, field, type, va_arg (args, gint), NULL);
  } else if (type == G_TYPE_STRING) {
    gst_structure_set (s, field, type, va_arg (args, const gchar *), NULL);
  } else {
    g_assert_not_reached ();
  }
  va_end (args);

  return caps;
}

static GstCaps *
valid_caps_without (const gchar * field)
{
  GstCaps *caps = valid_caps ();

  gst_structure_remove_field (gst_caps_get_structure (caps, 0), field);
  return caps;
}

/* to_caps, from_caps, compare; returns the caps for further checks */
static GstCaps *
round_trip (const AfetFeaturesInfo * info)
{
  AfetFeaturesInfo parsed;
  GstCaps *caps;

  fail_unless (afet_features_info_is_valid (info));
  caps = afet_features_info_to_caps (info);
  fail_unless (caps != NULL);
  fail_unless (gst_caps_is_fixed (caps));

  poison_info (&parsed);
  clear_log ();
  fail_unless (afet_features_info_from_caps (&parsed, caps),
      "could not parse %" GST_PTR_FORMAT, caps);
  fail_unless_equals_int (count_lines (GST_LEVEL_WARNING), 0);
  fail_unless (afet_features_info_is_equal (info, &parsed),
      "round trip changed the info, caps %" GST_PTR_FORMAT, caps);
  fail_unless (afet_features_info_is_equal (&parsed, info));

  return caps;
}

/* ---- tests ---- */

GST_START_TEST (test_kind_strings)
{
  static const struct
  {
    AfetFeaturesKind kind;
    const gchar *name;
  } kinds[] = {
    {AFET_FEATURES_KIND_FRAMES, "frames"},
    {AFET_FEATURES_KIND_FBANK, "fbank"},
    {AFET_FEATURES_KIND_MFCC, "mfcc"},
    {AFET_FEATURES_KIND_PLP, "plp"},
    {AFET_FEATURES_KIND_TRAPS, "traps"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (kinds); i++) {
    fail_unless_equals_string (afet_features_kind_to_string (kinds[i].kind),
        kinds[i].name);
    fail_unless_equals_int (afet_features_kind_from_string (kinds[i].name),
        kinds[i].kind);
  }
  fail_unless (afet_features_kind_to_string (AFET_FEATURES_KIND_UNKNOWN)
      == NULL);
  fail_unless (afet_features_kind_to_string ((AfetFeaturesKind) 99) == NULL);
  fail_unless_equals_int (afet_features_kind_from_string ("MFCC"),
      AFET_FEATURES_KIND_UNKNOWN);
  fail_unless_equals_int (afet_features_kind_from_string ("lpc"),
      AFET_FEATURES_KIND_UNKNOWN);
  fail_unless_equals_int (afet_features_kind_from_string (NULL),
      AFET_FEATURES_KIND_UNKNOWN);
}

GST_END_TEST;

GST_START_TEST (test_other_strings)
{
  static const gchar *norms[] = { "none", "mean", "meanvar", "minmax" };
  static const gchar *presets[] = { "none", "htk", "kaldi", "whisper" };
  static const gchar *windows[] = { NULL, "hamming", "hann", "povey",
    "rectangular", "blackman"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (norms); i++) {
    fail_unless_equals_string (afet_features_norm_to_string (i), norms[i]);
    fail_unless_equals_int (afet_features_norm_from_string (norms[i]), i);
  }
  fail_unless_equals_int (AFET_FEATURES_NORM_NONE, 0);
  fail_unless_equals_int (afet_features_norm_from_string ("cmvn"),
      AFET_FEATURES_NORM_UNKNOWN);
  fail_unless (afet_features_norm_to_string (AFET_FEATURES_NORM_UNKNOWN)
      == NULL);

  for (i = 0; i < G_N_ELEMENTS (presets); i++) {
    fail_unless_equals_string (afet_features_preset_to_string (i),
        presets[i]);
    fail_unless_equals_int (afet_features_preset_from_string (presets[i]), i);
  }
  fail_unless_equals_int (afet_features_preset_from_string ("sphinx"),
      AFET_FEATURES_PRESET_NONE);
  fail_unless (afet_features_preset_to_string ((AfetFeaturesPreset) 42)
      == NULL);

  for (i = 1; i < G_N_ELEMENTS (windows); i++) {
    fail_unless_equals_string (afet_features_window_to_string (i),
        windows[i]);
    fail_unless_equals_int (afet_features_window_from_string (windows[i]), i);
  }
  fail_unless (afet_features_window_to_string (AFET_FEATURES_WINDOW_UNKNOWN)
      == NULL);
  fail_unless_equals_int (afet_features_window_from_string ("kaiser"),
      AFET_FEATURES_WINDOW_UNKNOWN);
}

GST_END_TEST;

GST_START_TEST (test_init_and_set_format)
{
  AfetFeaturesInfo info;

  poison_info (&info);
  afet_features_info_init (&info);
  fail_unless_equals_int (info.kind, AFET_FEATURES_KIND_UNKNOWN);
  fail_unless_equals_int (info.dims, 0);
  fail_unless_equals_int (info.c0_index, -1);
  fail_unless_equals_int (info.energy_index, -1);
  fail_unless_equals_int (info.fps_d, 1);
  fail_unless_equals_int (info.window, AFET_FEATURES_WINDOW_UNKNOWN);
  fail_if (afet_features_info_is_valid (&info));

  poison_info (&info);
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_MFCC, 16000, 400,
      160, 13, 2);
  fail_unless_equals_int (info.kind, AFET_FEATURES_KIND_MFCC);
  fail_unless_equals_int (info.rate, 16000);
  fail_unless_equals_int (info.frame_length, 400);
  fail_unless_equals_int (info.frame_shift, 160);
  fail_unless_equals_int (info.statics, 13);
  fail_unless_equals_int (info.delta_order, 2);
  fail_unless_equals_int (info.dims, 39);
  fail_unless_equals_int (info.fps_n, 100);
  fail_unless_equals_int (info.fps_d, 1);
  fail_unless_equals_int (info.c0_index, -1);
  fail_unless_equals_int (info.energy_index, -1);
  fail_unless_equals_int (info.normalization, AFET_FEATURES_NORM_NONE);
  fail_unless_equals_int (info.preset, AFET_FEATURES_PRESET_NONE);
  fail_unless (afet_features_info_is_valid (&info));
  fail_unless_equals_int (AFET_FEATURES_INFO_FRAME_BYTES (&info), 39 * 4);

  /* a framerate that is not an integer, reduced */
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_FBANK, 22050, 512,
      256, 41, 0);
  fail_unless_equals_int (info.fps_n, 11025);
  fail_unless_equals_int (info.fps_d, 128);
  fail_unless_equals_int (info.dims, 41);
  fail_unless (afet_features_info_is_valid (&info));

  /* programming errors */
  ASSERT_CRITICAL (afet_features_info_set_format (&info,
          AFET_FEATURES_KIND_UNKNOWN, 16000, 400, 160, 13, 0));
  ASSERT_CRITICAL (afet_features_info_set_format (&info,
          AFET_FEATURES_KIND_MFCC, 16000, 400, 0, 13, 0));
  ASSERT_CRITICAL (afet_features_info_set_format (&info,
          AFET_FEATURES_KIND_MFCC, 16000, 400, 160, 13, 4));
}

GST_END_TEST;

GST_START_TEST (test_round_trip_each_kind)
{
  AfetFeaturesInfo info;
  GstCaps *caps;
  const GstStructure *s;

  /* windowed samples: W = 400, raw energy appended at column W */
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_FRAMES, 16000, 400,
      160, 401, 0);
  info.energy_index = 400;
  info.window = AFET_FEATURES_WINDOW_POVEY;
  info.preset = AFET_FEATURES_PRESET_KALDI;
  caps = round_trip (&info);
  s = gst_caps_get_structure (caps, 0);
  fail_unless_equals_string (gst_structure_get_string (s, "kind"), "frames");
  fail_unless_equals_string (gst_structure_get_string (s, "window"), "povey");
  gst_caps_unref (caps);

  /* 23 filters + energy, mean normalised */
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_FBANK, 16000, 400,
      160, 24, 0);
  info.energy_index = 23;
  info.normalization = AFET_FEATURES_NORM_MEAN;
  caps = round_trip (&info);
  fail_unless_equals_string (gst_structure_get_string (gst_caps_get_structure
          (caps, 0), "kind"), "fbank");
  gst_caps_unref (caps);

  /* HTK style MFCC_0_D_A_Z */
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_MFCC, 16000, 400,
      160, 13, 2);
  info.c0_index = 12;
  info.normalization = AFET_FEATURES_NORM_MEAN;
  info.preset = AFET_FEATURES_PRESET_HTK;
  info.window = AFET_FEATURES_WINDOW_HAMMING;
  caps = round_trip (&info);
  s = gst_caps_get_structure (caps, 0);
  fail_unless_equals_string (gst_structure_get_string (s, "kind"), "mfcc");
  fail_unless_equals_string (gst_structure_get_string (s, "preset"), "htk");
  gst_caps_unref (caps);

  /* PLP at 8 kHz with c0 and energy, all three delta blocks */
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_PLP, 8000, 200,
      80, 14, 3);
  info.c0_index = 0;
  info.energy_index = 13;
  info.normalization = AFET_FEATURES_NORM_MEANVAR;
  info.window = AFET_FEATURES_WINDOW_HANN;
  caps = round_trip (&info);
  fail_unless_equals_string (gst_structure_get_string (gst_caps_get_structure
          (caps, 0), "kind"), "plp");
  gst_caps_unref (caps);

  /* TRAPS with a framerate that is not a whole number */
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_TRAPS, 44100, 1024,
      441 * 3, 51, 0);
  info.normalization = AFET_FEATURES_NORM_MINMAX;
  info.window = AFET_FEATURES_WINDOW_BLACKMAN;
  info.preset = AFET_FEATURES_PRESET_WHISPER;
  caps = round_trip (&info);
  {
    gint n, d;
    fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
            "framerate", &n, &d));
    fail_unless_equals_int (n, 100);
    fail_unless_equals_int (d, 3);
  }
  gst_caps_unref (caps);

  /* rectangular window, no preset */
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_FRAMES, 16000, 400,
      160, 400, 0);
  info.window = AFET_FEATURES_WINDOW_RECTANGULAR;
  caps = round_trip (&info);
  fail_if (gst_structure_has_field (gst_caps_get_structure (caps, 0),
          "preset"));
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_to_caps_fields)
{
  AfetFeaturesInfo info;
  GstCaps *caps, *expected;

  afet_features_info_set_format (&info, AFET_FEATURES_KIND_MFCC, 16000, 400,
      160, 13, 2);
  info.c0_index = 12;
  info.preset = AFET_FEATURES_PRESET_HTK;
  info.window = AFET_FEATURES_WINDOW_HAMMING;
  caps = afet_features_info_to_caps (&info);
  expected = gst_caps_from_string (VALID_MFCC_CAPS);
  fail_unless (gst_caps_is_equal (caps, expected),
      "got %" GST_PTR_FORMAT, caps);
  gst_caps_unref (expected);
  gst_caps_unref (caps);

  /* optional fields are always written; preset and window only when set */
  info.preset = AFET_FEATURES_PRESET_NONE;
  info.window = AFET_FEATURES_WINDOW_UNKNOWN;
  caps = afet_features_info_to_caps (&info);
  expected = gst_caps_from_string (VALID_MFCC_CAPS);
  gst_structure_remove_fields (gst_caps_get_structure (expected, 0),
      "preset", "window", NULL);
  fail_unless (gst_caps_is_equal (caps, expected),
      "got %" GST_PTR_FORMAT, caps);
  gst_caps_unref (expected);
  gst_caps_unref (caps);

  /* an invalid info gives no caps */
  info.dims = 40;
  ASSERT_CRITICAL (caps = afet_features_info_to_caps (&info));
  fail_unless (caps == NULL);
}

GST_END_TEST;

GST_START_TEST (test_from_caps_with_caps_features)
{
  AfetFeaturesInfo info, plain;
  GstCaps *caps;

  caps = valid_caps ();
  fail_unless (afet_features_info_from_caps (&plain, caps));
  gst_caps_set_features (caps, 0,
      gst_caps_features_new (AFET_CAPS_FEATURE_MEMORY_CL, NULL));
  fail_unless (afet_features_info_from_caps (&info, caps));
  fail_unless (afet_features_info_is_equal (&info, &plain));
  gst_caps_unref (caps);

  caps = valid_caps ();
  gst_caps_set_features (caps, 0,
      gst_caps_features_new ("memory:SomethingElse", "meta:Foo", NULL));
  fail_unless (afet_features_info_from_caps (&info, caps));
  fail_unless (afet_features_info_is_equal (&info, &plain));
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_from_caps_valid_reference)
{
  AfetFeaturesInfo info;
  GstCaps *caps = valid_caps ();

  /* the base of the failure tests must itself parse */
  clear_log ();
  fail_unless (afet_features_info_from_caps (&info, caps));
  fail_unless_equals_int (count_lines (GST_LEVEL_WARNING), 0);
  fail_unless_equals_int (info.kind, AFET_FEATURES_KIND_MFCC);
  fail_unless_equals_int (info.dims, 39);
  fail_unless_equals_int (info.statics, 13);
  fail_unless_equals_int (info.delta_order, 2);
  fail_unless_equals_int (info.c0_index, 12);
  fail_unless_equals_int (info.energy_index, -1);
  fail_unless_equals_int (info.rate, 16000);
  fail_unless_equals_int (info.frame_length, 400);
  fail_unless_equals_int (info.frame_shift, 160);
  fail_unless_equals_int (info.fps_n, 100);
  fail_unless_equals_int (info.fps_d, 1);
  fail_unless_equals_int (info.normalization, AFET_FEATURES_NORM_NONE);
  fail_unless_equals_int (info.preset, AFET_FEATURES_PRESET_HTK);
  fail_unless_equals_int (info.window, AFET_FEATURES_WINDOW_HAMMING);
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_from_caps_failures)
{
  GstCaps *caps;

  /* wrong media type */
  caps = valid_caps ();
  gst_structure_set_name (gst_caps_get_structure (caps, 0), "audio/x-raw");
  assert_rejected (caps, "media type");

  /* not fixed: a range, a list, two structures, ANY, EMPTY */
  caps = valid_caps ();
  gst_structure_set (gst_caps_get_structure (caps, 0), "dims",
      GST_TYPE_INT_RANGE, 1, 100, NULL);
  assert_rejected (caps, "not fixed");
  caps = gst_caps_from_string (AFET_FEATURES_CAPS_MAKE ("{ fbank, mfcc }"));
  assert_rejected (caps, "not fixed");
  caps = valid_caps ();
  gst_caps_append (caps, valid_caps ());
  assert_rejected (caps, "not fixed");
  assert_rejected (gst_caps_new_any (), "not fixed");
  assert_rejected (gst_caps_new_empty (), "not fixed");

  /* required fields missing or of the wrong type */
  assert_rejected (valid_caps_without ("dims"), "'dims'");
  assert_rejected (valid_caps_with ("dims", G_TYPE_STRING, "39"), "'dims'");
  assert_rejected (valid_caps_without ("rate"), "'rate'");
  assert_rejected (valid_caps_without ("frame-length"), "'frame-length'");
  assert_rejected (valid_caps_without ("frame-shift"), "'frame-shift'");
  assert_rejected (valid_caps_without ("framerate"), "'framerate'");
  assert_rejected (valid_caps_with ("framerate", G_TYPE_INT, 100),
      "'framerate'");
  assert_rejected (valid_caps_without ("kind"), "'kind'");
  assert_rejected (valid_caps_without ("format"), "'format'");
  assert_rejected (valid_caps_with ("statics", G_TYPE_STRING, "13"),
      "'statics'");

  /* out of range values */
  assert_rejected (valid_caps_with ("dims", G_TYPE_INT, 0), "'dims'");
  assert_rejected (valid_caps_with ("rate", G_TYPE_INT, 0), "'rate'");
  assert_rejected (valid_caps_with ("frame-length", G_TYPE_INT, 0),
      "'frame-length'");
  assert_rejected (valid_caps_with ("frame-shift", G_TYPE_INT, -160),
      "'frame-shift'");
  assert_rejected (valid_caps_with ("delta-order", G_TYPE_INT, 4),
      "'delta-order'");
  assert_rejected (valid_caps_with ("delta-order", G_TYPE_INT, -1),
      "'delta-order'");
  assert_rejected (valid_caps_with ("statics", G_TYPE_INT, -13),
      "'statics'");

  /* framerate inconsistent with rate / frame-shift */
  assert_rejected (valid_caps_with ("framerate", GST_TYPE_FRACTION, 99, 1),
      "'framerate'");
  assert_rejected (valid_caps_with ("framerate", GST_TYPE_FRACTION, 0, 1),
      "'framerate'");
  assert_rejected (valid_caps_with ("frame-shift", G_TYPE_INT, 320),
      "'framerate'");
  assert_rejected (valid_caps_with ("rate", G_TYPE_INT, 8000), "'framerate'");

  /* dims != statics * (delta-order + 1) */
  assert_rejected (valid_caps_with ("dims", G_TYPE_INT, 40), "'dims'");
  assert_rejected (valid_caps_with ("statics", G_TYPE_INT, 12), "'dims'");
  assert_rejected (valid_caps_with ("delta-order", G_TYPE_INT, 1), "'dims'");
  assert_rejected (valid_caps_with ("statics", G_TYPE_INT, 0), "'dims'");

  /* unknown strings where the meaning of the values depends on them */
  assert_rejected (valid_caps_with ("kind", G_TYPE_STRING, "lpcc"),
      "'kind'");
  assert_rejected (valid_caps_with ("format", G_TYPE_STRING, "F32BE"),
      "'format'");
  assert_rejected (valid_caps_with ("normalization", G_TYPE_STRING, "cmvn"),
      "'normalization'");

  /* column indices outside the statics */
  assert_rejected (valid_caps_with ("c0-index", G_TYPE_INT, 13),
      "'c0-index'");
  assert_rejected (valid_caps_with ("c0-index", G_TYPE_INT, -2),
      "'c0-index'");
  assert_rejected (valid_caps_with ("energy-index", G_TYPE_INT, 13),
      "'energy-index'");
  assert_rejected (valid_caps_with ("energy-index", G_TYPE_INT, 39),
      "'energy-index'");
  /* c0 and energy in the same column */
  assert_rejected (valid_caps_with ("energy-index", G_TYPE_INT, 12),
      "'energy-index'");
}

GST_END_TEST;

GST_START_TEST (test_optional_defaults)
{
  AfetFeaturesInfo info;
  GstCaps *caps;

  caps = gst_caps_from_string (AFET_FEATURES_MEDIA_TYPE
      ", format = (string) F32LE, kind = (string) fbank, dims = (int) 40, "
      "rate = (int) 16000, frame-length = (int) 400, "
      "frame-shift = (int) 160, framerate = (fraction) 100/1");
  fail_unless (caps != NULL);
  poison_info (&info);
  fail_unless (afet_features_info_from_caps (&info, caps));
  fail_unless_equals_int (info.kind, AFET_FEATURES_KIND_FBANK);
  fail_unless_equals_int (info.dims, 40);
  fail_unless_equals_int (info.statics, 40);
  fail_unless_equals_int (info.c0_index, -1);
  fail_unless_equals_int (info.energy_index, -1);
  fail_unless_equals_int (info.delta_order, 0);
  fail_unless_equals_int (info.normalization, AFET_FEATURES_NORM_NONE);
  fail_unless_equals_int (info.preset, AFET_FEATURES_PRESET_NONE);
  fail_unless_equals_int (info.window, AFET_FEATURES_WINDOW_UNKNOWN);
  gst_caps_unref (caps);

  /* without statics, the default statics = dims conflicts with deltas */
  caps = valid_caps_without ("statics");
  assert_rejected (caps, "'dims'");

  /* fields and values from newer producers */
  caps = valid_caps_with ("some-future-field", G_TYPE_STRING, "x");
  gst_structure_set (gst_caps_get_structure (caps, 0),
      "preset", G_TYPE_STRING, "future-toolkit",
      "window", G_TYPE_STRING, "kaiser", NULL);
  poison_info (&info);
  clear_log ();
  fail_unless (afet_features_info_from_caps (&info, caps));
  fail_unless_equals_int (count_lines (GST_LEVEL_WARNING), 0);
  fail_unless_equals_int (info.dims, 39);
  fail_unless_equals_int (info.preset, AFET_FEATURES_PRESET_NONE);
  fail_unless_equals_int (info.window, AFET_FEATURES_WINDOW_UNKNOWN);
  gst_caps_unref (caps);

  /* an unreduced framerate is accepted and stored reduced */
  caps = valid_caps_with ("framerate", GST_TYPE_FRACTION, 200, 2);
  fail_unless (afet_features_info_from_caps (&info, caps));
  fail_unless_equals_int (info.fps_n, 100);
  fail_unless_equals_int (info.fps_d, 1);
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_is_valid)
{
  AfetFeaturesInfo good, info;

  afet_features_info_set_format (&good, AFET_FEATURES_KIND_MFCC, 16000, 400,
      160, 13, 2);
  good.c0_index = 12;
  fail_unless (afet_features_info_is_valid (&good));

#define CHECK_INVALID(member, value, field)                     \
  G_STMT_START {                                                \
    info = good;                                                \
    info.member = value;                                        \
    clear_log ();                                               \
    fail_if (afet_features_info_is_valid (&info),               \
        "accepted " #member " = " #value);                      \
    assert_one_line (GST_LEVEL_DEBUG, field);                   \
  } G_STMT_END

  CHECK_INVALID (kind, AFET_FEATURES_KIND_UNKNOWN, "'kind'");
  CHECK_INVALID (kind, (AfetFeaturesKind) 17, "'kind'");
  CHECK_INVALID (dims, 0, "'dims'");
  CHECK_INVALID (dims, 26, "'dims'");
  CHECK_INVALID (rate, 0, "'rate'");
  CHECK_INVALID (frame_length, 0, "'frame-length'");
  CHECK_INVALID (frame_shift, 0, "'frame-shift'");
  CHECK_INVALID (frame_shift, 80, "'framerate'");
  CHECK_INVALID (fps_n, 50, "'framerate'");
  CHECK_INVALID (fps_d, 0, "'framerate'");
  CHECK_INVALID (statics, -1, "'statics'");
  CHECK_INVALID (statics, 12, "'dims'");
  CHECK_INVALID (delta_order, 4, "'delta-order'");
  CHECK_INVALID (c0_index, 13, "'c0-index'");
  CHECK_INVALID (energy_index, 13, "'energy-index'");
  CHECK_INVALID (energy_index, -7, "'energy-index'");
  CHECK_INVALID (energy_index, 12, "'energy-index'");
  CHECK_INVALID (normalization, AFET_FEATURES_NORM_UNKNOWN,
      "'normalization'");
  CHECK_INVALID (preset, (AfetFeaturesPreset) 9, "'preset'");
  CHECK_INVALID (window, (AfetFeaturesWindow) 9, "'window'");

#undef CHECK_INVALID

  /* equal fractions are fine */
  info = good;
  info.fps_n = 200;
  info.fps_d = 2;
  fail_unless (afet_features_info_is_valid (&info));
}

GST_END_TEST;

GST_START_TEST (test_is_equal)
{
  AfetFeaturesInfo a, b;

  afet_features_info_set_format (&a, AFET_FEATURES_KIND_FBANK, 16000, 400,
      160, 24, 1);
  a.energy_index = 23;
  b = a;
  fail_unless (afet_features_info_is_equal (&a, &b));
  fail_unless (afet_features_info_is_equal (&a, &a));

  b.fps_n = 300;
  b.fps_d = 3;
  fail_unless (afet_features_info_is_equal (&a, &b));
  b.fps_n = 301;
  fail_if (afet_features_info_is_equal (&a, &b));

#define CHECK_DIFFERS(member, value)                    \
  G_STMT_START {                                        \
    b = a;                                              \
    b.member = value;                                   \
    fail_if (afet_features_info_is_equal (&a, &b),      \
        #member " difference not seen");                \
    fail_if (afet_features_info_is_equal (&b, &a));     \
  } G_STMT_END

  CHECK_DIFFERS (kind, AFET_FEATURES_KIND_MFCC);
  CHECK_DIFFERS (dims, 24);
  CHECK_DIFFERS (rate, 8000);
  CHECK_DIFFERS (frame_length, 512);
  CHECK_DIFFERS (frame_shift, 80);
  CHECK_DIFFERS (statics, 23);
  CHECK_DIFFERS (c0_index, 0);
  CHECK_DIFFERS (energy_index, -1);
  CHECK_DIFFERS (delta_order, 0);
  CHECK_DIFFERS (normalization, AFET_FEATURES_NORM_MEANVAR);
  CHECK_DIFFERS (preset, AFET_FEATURES_PRESET_KALDI);
  CHECK_DIFFERS (window, AFET_FEATURES_WINDOW_HANN);
  CHECK_DIFFERS (fps_d, 0);

#undef CHECK_DIFFERS
}

GST_END_TEST;

GST_START_TEST (test_boxed)
{
  AfetFeaturesInfo *info, *copy;
  GType type;

  type = afet_features_info_get_type ();
  fail_unless (G_TYPE_IS_BOXED (type));
  fail_unless_equals_string (g_type_name (type), "AfetFeaturesInfo");
  fail_unless (AFET_TYPE_FEATURES_INFO == type);

  info = afet_features_info_new ();
  fail_unless_equals_int (info->c0_index, -1);
  fail_unless_equals_int (info->kind, AFET_FEATURES_KIND_UNKNOWN);
  afet_features_info_set_format (info, AFET_FEATURES_KIND_PLP, 16000, 400,
      160, 13, 1);
  info->window = AFET_FEATURES_WINDOW_HANN;

  copy = g_boxed_copy (type, info);
  fail_unless (copy != info);
  fail_unless (afet_features_info_is_equal (copy, info));
  g_boxed_free (type, copy);

  copy = afet_features_info_copy (info);
  fail_unless (afet_features_info_is_equal (copy, info));
  afet_features_info_free (copy);
  afet_features_info_free (info);
  afet_features_info_free (NULL);

  {
    g_autoptr (AfetFeaturesInfo) scoped = afet_features_info_new ();
    fail_unless (scoped != NULL);
  }
}

GST_END_TEST;

GST_START_TEST (test_time_conversion)
{
  AfetFeaturesInfo info;
  guint64 n;

  afet_features_info_set_format (&info, AFET_FEATURES_KIND_MFCC, 16000, 400,
      160, 13, 0);
  fail_unless_equals_uint64 (afet_features_info_frames_to_time (&info, 0), 0);
  fail_unless_equals_uint64 (afet_features_info_frames_to_time (&info, 3),
      30 * GST_MSECOND);
  fail_unless_equals_uint64 (afet_features_info_frames_to_time (&info, 100),
      GST_SECOND);
  fail_unless_equals_uint64 (afet_features_info_time_to_frames (&info,
          30 * GST_MSECOND), 3);
  fail_unless_equals_uint64 (afet_features_info_time_to_frames (&info,
          GST_CLOCK_TIME_NONE), G_MAXUINT64);
  /* nearest frame */
  fail_unless_equals_uint64 (afet_features_info_time_to_frames (&info,
          34 * GST_MSECOND), 3);
  fail_unless_equals_uint64 (afet_features_info_time_to_frames (&info,
          36 * GST_MSECOND), 4);

  afet_features_info_set_format (&info, AFET_FEATURES_KIND_FBANK, 44100, 1102,
      441, 40, 0);
  fail_unless_equals_uint64 (afet_features_info_frames_to_time (&info, 100),
      GST_SECOND);
  fail_unless_equals_uint64 (afet_features_info_frames_to_time (&info, 1),
      10 * GST_MSECOND);
  fail_unless_equals_uint64 (afet_features_info_time_to_frames (&info,
          GST_SECOND), 100);

  /* 44.1 kHz, S = 512: 11.609977... ms per frame, rounded down */
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_FBANK, 44100, 1024,
      512, 40, 0);
  fail_unless_equals_uint64 (afet_features_info_frames_to_time (&info, 1),
      11609977);
  fail_unless_equals_uint64 (afet_features_info_frames_to_time (&info, 44100),
      512 * GST_SECOND);
  /* one hour of frames, and back */
  for (n = 0; n < 310078; n += 997) {
    GstClockTime t = afet_features_info_frames_to_time (&info, n);
    fail_unless_equals_uint64 (afet_features_info_time_to_frames (&info, t),
        n);
  }
  /* frames * shift * GST_SECOND does not fit in 64 bits here */
  fail_unless_equals_uint64 (afet_features_info_frames_to_time (&info,
          G_GUINT64_CONSTANT (44100) << 20),
      (G_GUINT64_CONSTANT (512) << 20) * GST_SECOND);
  fail_unless_equals_uint64 (afet_features_info_frames_to_time (&info,
          G_MAXUINT64), GST_CLOCK_TIME_NONE);
}

GST_END_TEST;

GST_START_TEST (test_caps_make)
{
  AfetFeaturesInfo info;
  GstCaps *templ, *templ_cl, *templ_all, *concrete, *concrete_cl;
  const gchar *kinds[] = { "frames", "fbank", "mfcc", "plp", "traps" };
  guint i;

  templ = gst_caps_from_string (AFET_FEATURES_CAPS_MAKE ("mfcc"));
  fail_unless (templ != NULL, "cannot parse: %s",
      AFET_FEATURES_CAPS_MAKE ("mfcc"));
  fail_if (gst_caps_is_fixed (templ));
  fail_unless_equals_int (gst_caps_get_size (templ), 1);

  templ_all = gst_caps_from_string (AFET_FEATURES_CAPS_MAKE
      (AFET_FEATURES_KINDS_ALL));
  fail_unless (templ_all != NULL);

  templ_cl = gst_caps_from_string (AFET_FEATURES_CAPS_MAKE_WITH_FEATURES
      (AFET_CAPS_FEATURE_MEMORY_CL, "{ fbank, mfcc }"));
  fail_unless (templ_cl != NULL);
  fail_unless (gst_caps_features_contains (gst_caps_get_features (templ_cl,
              0), AFET_CAPS_FEATURE_MEMORY_CL));

  afet_features_info_set_format (&info, AFET_FEATURES_KIND_MFCC, 16000, 400,
      160, 13, 2);
  info.c0_index = 12;
  info.preset = AFET_FEATURES_PRESET_HTK;
  concrete = afet_features_info_to_caps (&info);
  fail_unless (gst_caps_can_intersect (templ, concrete));
  fail_unless (gst_caps_is_subset (concrete, templ));
  fail_unless (gst_caps_can_intersect (templ_all, concrete));
  /* system memory does not meet the device memory template */
  fail_if (gst_caps_can_intersect (templ_cl, concrete));

  concrete_cl = gst_caps_copy (concrete);
  gst_caps_set_features (concrete_cl, 0,
      gst_caps_features_new (AFET_CAPS_FEATURE_MEMORY_CL, NULL));
  fail_unless (gst_caps_can_intersect (templ_cl, concrete_cl));
  fail_if (gst_caps_can_intersect (templ, concrete_cl));
  gst_caps_unref (concrete_cl);
  gst_caps_unref (concrete);

  /* a kind that the template does not list */
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_FBANK, 16000, 400,
      160, 24, 0);
  concrete = afet_features_info_to_caps (&info);
  fail_if (gst_caps_can_intersect (templ, concrete));
  gst_caps_unref (concrete);

  /* every kind and an odd framerate fit the all-kinds template */
  for (i = 0; i < G_N_ELEMENTS (kinds); i++) {
    afet_features_info_set_format (&info,
        afet_features_kind_from_string (kinds[i]), 22050, 551, 256, 20, 1);
    concrete = afet_features_info_to_caps (&info);
    fail_unless (gst_caps_can_intersect (templ_all, concrete),
        "%s does not fit the template", kinds[i]);
    gst_caps_unref (concrete);
  }

  gst_caps_unref (templ);
  gst_caps_unref (templ_all);
  gst_caps_unref (templ_cl);
}

GST_END_TEST;

/* The analysis contract: fields passed on, and a mismatch named. */
GST_START_TEST (test_analysis_contract)
{
  GstCaps *have = gst_caps_from_string ("application/x-afet-features, "
      "kind=fbank, dims=80, preset=kaldi, snip-edges=true, "
      "high-freq=8000.0, num-filters=80");
  GstCaps *want = gst_caps_from_string ("application/x-afet-features, "
      "kind=fbank, num-filters=80, snip-edges=false; audio/x-raw");
  gchar *why = afet_features_caps_explain_mismatch (have, want);
  fail_unless (why != NULL);
  fail_unless (strstr (why, "field 'snip-edges' is true, wanted false") !=
      NULL, "%s", why);
  g_free (why);
  /* a field the stream does not state matches any value, and is not named
   * before the one that differs */
  GstCaps *lacks = gst_caps_from_string ("application/x-afet-features, "
      "warp=1.0, num-filters=40");
  why = afet_features_caps_explain_mismatch (have, lacks);
  fail_unless (why && strstr (why, "field 'num-filters' is 80, wanted 40"),
      "%s", why);
  g_free (why);
  GstCaps *fits = gst_caps_from_string ("application/x-afet-features, "
      "num-filters=[ 40, 128 ], preset={ kaldi, lhotse }");
  why = afet_features_caps_explain_mismatch (have, fits);
  fail_unless (why == NULL, "%s", why);

  /* passed on: the analysis fields only, never over the element's own */
  GstStructure *dst = gst_structure_from_string ("application/x-afet-"
      "features, kind=fbank, num-filters=23", NULL);
  afet_features_copy_analysis (dst, gst_caps_get_structure (have, 0));
  gboolean snip = FALSE;
  gint filters = 0;
  fail_unless (gst_structure_get_boolean (dst, "snip-edges", &snip) && snip);
  fail_unless (gst_structure_get_int (dst, "num-filters", &filters));
  fail_unless_equals_int (filters, 23);
  fail_if (gst_structure_has_field (dst, "dims"));
  gst_structure_free (dst);
  gst_caps_unref (have);
  gst_caps_unref (want);
  gst_caps_unref (lacks);
  gst_caps_unref (fits);
}

GST_END_TEST;

/* Checks afet_features_info_column_name() for every column of @info
 * against @expected (dims names), and that the column past the end has
 * none. */
static void
check_column_names (const AfetFeaturesInfo * info,
    const gchar * const *expected)
{
  gint j;

  for (j = 0; j < info->dims; j++) {
    gchar *name = afet_features_info_column_name (info, j);

    fail_unless_equals_string (name, expected[j]);
    g_free (name);
  }
  fail_unless (afet_features_info_column_name (info, info->dims) == NULL);
}

/* Checks afet_features_info_htk_name() of @info against @expected. */
static void
check_htk_name (const AfetFeaturesInfo * info, const gchar * expected)
{
  gchar *name = afet_features_info_htk_name (info);

  fail_unless_equals_string (name, expected);
  g_free (name);
}

/* The names the Python module's FeatureInfo shows (htk_name(),
 * column_names()) come from here; tests/python's Names checks the same
 * layouts through it. */
GST_START_TEST (test_names)
{
  AfetFeaturesInfo info;
  gchar *name;

  /* HTK's order: 13 cepstra with c0 last, deltas and accelerations */
  afet_features_info_set_format (&info, AFET_FEATURES_KIND_MFCC, 16000, 400,
      160, 3, 2);
  info.c0_index = 2;
  check_htk_name (&info, "MFCC_0_D_A");
  {
    const gchar *const names[] = { "c1", "c2", "c0", "d(c1)", "d(c2)",
      "d(c0)", "dd(c1)", "dd(c2)", "dd(c0)"
    };
    check_column_names (&info, names);
  }

  /* Kaldi's order: the energy first; HTK's _Z leaves it alone */
  info.c0_index = -1;
  info.energy_index = 0;
  info.delta_order = 0;
  info.dims = 3;
  info.normalization = AFET_FEATURES_NORM_MEAN;
  info.norm_columns = AFET_FEATURES_NORM_COLUMNS_HTK;
  check_htk_name (&info, "MFCC_E_Z");
  {
    const gchar *const names[] = { "E", "c1", "c2" };
    check_column_names (&info, names);
  }
  /* the statics with the energy among them: HTK has no letter for it */
  info.norm_columns = AFET_FEATURES_NORM_COLUMNS_STATICS;
  check_htk_name (&info, "MFCC_E (mean over statics)");
  info.energy_index = -1;
  check_htk_name (&info, "MFCC_Z");
  info.normalization = AFET_FEATURES_NORM_MEANVAR;
  info.norm_columns = AFET_FEATURES_NORM_COLUMNS_ALL;
  check_htk_name (&info, "MFCC (meanvar over all)");

  afet_features_info_set_format (&info, AFET_FEATURES_KIND_FBANK, 16000, 400,
      160, 3, 0);
  info.energy_index = 0;
  check_htk_name (&info, "FBANK_E");
  {
    const gchar *const names[] = { "E", "ch1", "ch2" };
    check_column_names (&info, names);
  }

  afet_features_info_set_format (&info, AFET_FEATURES_KIND_SPECTROGRAM,
      16000, 400, 160, 3, 0);
  check_htk_name (&info, "SPECTROGRAM");
  {
    const gchar *const names[] = { "bin0", "bin1", "bin2" };
    check_column_names (&info, names);
  }

  afet_features_info_set_format (&info, AFET_FEATURES_KIND_USER, 16000, 400,
      160, 1, 3);
  check_htk_name (&info, "USER_D_A_T");
  {
    const gchar *const names[] = { "x0", "d(x0)", "dd(x0)", "ddd(x0)" };
    check_column_names (&info, names);
  }

  afet_features_info_set_format (&info, AFET_FEATURES_KIND_PLP, 16000, 400,
      160, 2, 0);
  info.c0_index = 0;
  check_htk_name (&info, "PLP_0");
  {
    const gchar *const names[] = { "c0", "c1" };
    check_column_names (&info, names);
  }

  /* an info that is not valid has no names */
  afet_features_info_init (&info);
  fail_unless (afet_features_info_htk_name (&info) == NULL);
  fail_unless (afet_features_info_column_name (&info, 0) == NULL);

  /* kind codes from HTK file headers share the qualifier table */
  name = afet_features_htk_kind_name (6 | 0x2000 | 0x100 | 0x200 | 0x800);
  fail_unless_equals_string (name, "MFCC_0_D_A_Z");
  g_free (name);
  name = afet_features_htk_kind_name (7 | 0x40 | 0x8000 | 0x400);
  fail_unless_equals_string (name, "FBANK_E_T_C");
  g_free (name);
  name = afet_features_htk_kind_name (40);
  fail_unless_equals_string (name, "KIND40");
  g_free (name);
}

GST_END_TEST;

static Suite *
features_suite (void)
{
  Suite *s = suite_create ("features");
  TCase *tc = tcase_create ("general");

  install_log_capture ();
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_kind_strings);
  tcase_add_test (tc, test_other_strings);
  tcase_add_test (tc, test_init_and_set_format);
  tcase_add_test (tc, test_round_trip_each_kind);
  tcase_add_test (tc, test_to_caps_fields);
  tcase_add_test (tc, test_from_caps_with_caps_features);
  tcase_add_test (tc, test_from_caps_valid_reference);
  tcase_add_test (tc, test_from_caps_failures);
  tcase_add_test (tc, test_optional_defaults);
  tcase_add_test (tc, test_is_valid);
  tcase_add_test (tc, test_is_equal);
  tcase_add_test (tc, test_boxed);
  tcase_add_test (tc, test_time_conversion);
  tcase_add_test (tc, test_caps_make);
  tcase_add_test (tc, test_analysis_contract);
  tcase_add_test (tc, test_names);

  return s;
}

GST_CHECK_MAIN (features);
