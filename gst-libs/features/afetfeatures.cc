/* AfetFeaturesInfo: application/x-afet-features caps described, parsed,
 * checked and written (the installed caps API).
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

/**
 * SECTION:afetfeatures
 * @title: AfetFeaturesInfo
 * @short_description: Describing and parsing afet feature stream caps
 *
 * Every afet element that outputs features uses the media type
 * `application/x-afet-features`.  A buffer of such a stream holds a whole
 * number of frames; a frame is `dims` 32-bit little-endian floats.  The
 * caps fields say what the values mean and how frames map to time.
 *
 * #AfetFeaturesInfo is the parsed form of those caps: producers fill one
 * with afet_features_info_set_format() and turn it into caps with
 * afet_features_info_to_caps(); consumers parse the caps of their sink
 * pad with afet_features_info_from_caps().  docs/caps.md in the afet
 * source tree describes the contract in full.
 *
 * This file is C++ but exports a plain C API; nothing in it throws.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetfeatures.h"

#include <string.h>

#ifndef GST_DISABLE_GST_DEBUG
#define GST_CAT_DEFAULT afet_features_debug_category ()

/* Created on first use so that loading the library runs no code. */
static GstDebugCategory *
afet_features_debug_category (void)
{
  static gsize category = 0;

  if (g_once_init_enter (&category)) {
    GstDebugCategory *cat;

    cat = _gst_debug_category_new ("afetfeatures", 0,
        "afet feature stream caps helpers");
    g_once_init_leave (&category, (gsize) cat);
  }

  return (GstDebugCategory *) category;
}
#endif /* GST_DISABLE_GST_DEBUG */

/* Names as they appear in caps, indexed by enum value.  A NULL entry has
 * no string form. */
static const gchar *const kind_names[] = {
  NULL, "frames", "fbank", "mfcc", "plp", "traps", "user", "spectrogram"
};

static const gchar *const norm_names[] = {
  "none", "mean", "meanvar", "minmax"
};

static const gchar *const preset_names[] = {
  "none", "htk", "kaldi", "whisper", "lhotse"
};

static const gchar *const norm_columns_names[] = {
  "all", "statics", "htk"
};

static const gchar *const window_names[] = {
  NULL, "hamming", "hann", "povey", "rectangular", "blackman",
  "hann-periodic"
};

/* Position of @str in @names, or -1. */
static gint
find_name (const gchar * const *names, guint n_names, const gchar * str)
{
  guint i;

  if (str == NULL)
    return -1;

  for (i = 0; i < n_names; i++) {
    if (names[i] != NULL && strcmp (names[i], str) == 0)
      return (gint) i;
  }

  return -1;
}

/* @names[@value], or NULL when @value is out of range. */
static const gchar *
name_of (const gchar * const *names, guint n_names, gint value)
{
  if (value < 0 || (guint) value >= n_names)
    return NULL;

  return names[value];
}

/* afet_features_<name>_from_string() and afet_features_<name>_to_string()
 * over the table <name>_names, whose index is the enum value; a string not
 * in it gives @unknown. */
#define AFET_FEATURES_DEFINE_STRINGS(Type, name, unknown)                    \
  Type                                                                      \
  afet_features_##name##_from_string (const gchar * str)                    \
  {                                                                         \
    gint v = find_name (name##_names, G_N_ELEMENTS (name##_names), str);    \
    return v < 0 ? unknown : (Type) v;                                      \
  }                                                                         \
                                                                            \
  const gchar *                                                             \
  afet_features_##name##_to_string (Type value)                             \
  {                                                                         \
    return name_of (name##_names, G_N_ELEMENTS (name##_names),              \
        (gint) value);                                                      \
  }

/**
 * afet_features_kind_from_string:
 * @str: (nullable): a `kind` caps value such as "mfcc"
 *
 * Returns: the kind named by @str, or %AFET_FEATURES_KIND_UNKNOWN when
 *   @str is %NULL or not a known kind.
 *
 * Since: 0.1
 */

/**
 * afet_features_kind_to_string:
 * @kind: an #AfetFeaturesKind
 *
 * Returns: (nullable): the caps string of @kind, or %NULL for
 *   %AFET_FEATURES_KIND_UNKNOWN and values out of range.
 *
 * Since: 0.1
 */
AFET_FEATURES_DEFINE_STRINGS (AfetFeaturesKind, kind,
    AFET_FEATURES_KIND_UNKNOWN)

/**
 * afet_features_norm_from_string:
 * @str: (nullable): a `normalization` caps value such as "meanvar"
 *
 * Returns: the normalisation named by @str, or
 *   %AFET_FEATURES_NORM_UNKNOWN when @str is %NULL or not known.
 *
 * Since: 0.1
 */

/**
 * afet_features_norm_to_string:
 * @norm: an #AfetFeaturesNorm
 *
 * Returns: (nullable): the caps string of @norm ("none" for
 *   %AFET_FEATURES_NORM_NONE), or %NULL for %AFET_FEATURES_NORM_UNKNOWN
 *   and values out of range.
 *
 * Since: 0.1
 */
AFET_FEATURES_DEFINE_STRINGS (AfetFeaturesNorm, norm,
    AFET_FEATURES_NORM_UNKNOWN)

/**
 * afet_features_preset_from_string:
 * @str: (nullable): a `preset` caps value such as "htk"
 *
 * Returns: the preset named by @str; %AFET_FEATURES_PRESET_NONE when
 *   @str is %NULL, "none" or a preset this version does not know.
 *
 * Since: 0.1
 */

/**
 * afet_features_preset_to_string:
 * @preset: an #AfetFeaturesPreset
 *
 * Returns: (nullable): the string form of @preset ("none" for
 *   %AFET_FEATURES_PRESET_NONE), or %NULL for values out of range.
 *
 * Since: 0.1
 */
AFET_FEATURES_DEFINE_STRINGS (AfetFeaturesPreset, preset,
    AFET_FEATURES_PRESET_NONE)

/**
 * afet_features_window_from_string:
 * @str: (nullable): a `window` caps value such as "hamming"
 *
 * Returns: the window named by @str, or %AFET_FEATURES_WINDOW_UNKNOWN
 *   when @str is %NULL or not a known window.
 *
 * Since: 0.1
 */

/**
 * afet_features_window_to_string:
 * @window: an #AfetFeaturesWindow
 *
 * Returns: (nullable): the caps string of @window, or %NULL for
 *   %AFET_FEATURES_WINDOW_UNKNOWN and values out of range.
 *
 * Since: 0.1
 */
AFET_FEATURES_DEFINE_STRINGS (AfetFeaturesWindow, window,
    AFET_FEATURES_WINDOW_UNKNOWN)

/**
 * afet_features_norm_columns_from_string:
 * @str: (nullable): a `normalization-columns` caps value such as "htk"
 *
 * Returns: the column set named by @str, or
 *   %AFET_FEATURES_NORM_COLUMNS_UNKNOWN when @str is %NULL or not known.
 *
 * Since: 0.1
 */

/**
 * afet_features_norm_columns_to_string:
 * @columns: an #AfetFeaturesNormColumns
 *
 * Returns: (nullable): the caps string of @columns, or %NULL for
 *   %AFET_FEATURES_NORM_COLUMNS_UNKNOWN and values out of range.
 *
 * Since: 0.1
 */
AFET_FEATURES_DEFINE_STRINGS (AfetFeaturesNormColumns, norm_columns,
    AFET_FEATURES_NORM_COLUMNS_UNKNOWN)

G_DEFINE_BOXED_TYPE (AfetFeaturesInfo, afet_features_info,
    (GBoxedCopyFunc) afet_features_info_copy,
    (GBoxedFreeFunc) afet_features_info_free);

/**
 * afet_features_info_init:
 * @info: an #AfetFeaturesInfo
 *
 * Resets @info to the empty state: unknown kind, all sizes 0, framerate
 * 0/1, no c0 or energy column, no deltas, no normalisation, no preset and
 * an unknown window.  The result is not valid until the format is set.
 *
 * Since: 0.1
 */
void
afet_features_info_init (AfetFeaturesInfo * info)
{
  g_return_if_fail (info != NULL);

  memset (info, 0, sizeof (*info));
  info->kind = AFET_FEATURES_KIND_UNKNOWN;
  info->fps_n = 0;
  info->fps_d = 1;
  info->c0_index = -1;
  info->energy_index = -1;
  info->delta_order = 0;
  info->normalization = AFET_FEATURES_NORM_NONE;
  info->preset = AFET_FEATURES_PRESET_NONE;
  info->window = AFET_FEATURES_WINDOW_UNKNOWN;
  info->norm_columns = AFET_FEATURES_NORM_COLUMNS_ALL;
}

/**
 * afet_features_info_new:
 *
 * Allocates an #AfetFeaturesInfo initialised with
 * afet_features_info_init().
 *
 * Returns: (transfer full): a new #AfetFeaturesInfo; free it with
 *   afet_features_info_free().
 *
 * Since: 0.1
 */
AfetFeaturesInfo *
afet_features_info_new (void)
{
  AfetFeaturesInfo *info = g_new (AfetFeaturesInfo, 1);

  afet_features_info_init (info);

  return info;
}

/**
 * afet_features_info_copy:
 * @info: an #AfetFeaturesInfo
 *
 * Returns: (transfer full): a newly allocated copy of @info.
 *
 * Since: 0.1
 */
AfetFeaturesInfo *
afet_features_info_copy (const AfetFeaturesInfo * info)
{
  AfetFeaturesInfo *copy;

  g_return_val_if_fail (info != NULL, NULL);

  copy = g_new (AfetFeaturesInfo, 1);
  *copy = *info;

  return copy;
}

/**
 * afet_features_info_free:
 * @info: (nullable) (transfer full): an #AfetFeaturesInfo allocated with
 *   afet_features_info_new() or afet_features_info_copy()
 *
 * Frees @info.  Does nothing when @info is %NULL.
 *
 * Since: 0.1
 */
void
afet_features_info_free (AfetFeaturesInfo * info)
{
  g_free (info);
}

/**
 * afet_features_info_set_format:
 * @info: an #AfetFeaturesInfo
 * @kind: what the values represent
 * @rate: sample rate of the source audio in Hz, at least 1
 * @frame_length: window length W in samples, at least 1
 * @frame_shift: frame shift S in samples, at least 1
 * @statics: number of static values per frame, at least 1
 * @delta_order: number of dynamic blocks, 0 to
 *   %AFET_FEATURES_MAX_DELTA_ORDER
 *
 * Initialises @info with afet_features_info_init() and then fills in the
 * format: @dims becomes @statics * (@delta_order + 1) and the framerate
 * becomes @rate / @frame_shift in lowest terms.  The c0 and energy columns
 * are left at -1; set them, and the other optional members, afterwards.
 *
 * Since: 0.1
 */
void
afet_features_info_set_format (AfetFeaturesInfo * info,
    AfetFeaturesKind kind, gint rate, gint frame_length, gint frame_shift,
    gint statics, gint delta_order)
{
  gint gcd;

  g_return_if_fail (info != NULL);
  g_return_if_fail (afet_features_kind_to_string (kind) != NULL);
  g_return_if_fail (rate >= 1);
  g_return_if_fail (frame_length >= 1);
  g_return_if_fail (frame_shift >= 1);
  g_return_if_fail (delta_order >= 0
      && delta_order <= AFET_FEATURES_MAX_DELTA_ORDER);
  g_return_if_fail (statics >= 1 && statics <= G_MAXINT / (delta_order + 1));

  afet_features_info_init (info);

  gcd = gst_util_greatest_common_divisor (rate, frame_shift);

  info->kind = kind;
  info->rate = rate;
  info->frame_length = frame_length;
  info->frame_shift = frame_shift;
  info->fps_n = rate / gcd;
  info->fps_d = frame_shift / gcd;
  info->statics = statics;
  info->delta_order = delta_order;
  info->dims = statics * (delta_order + 1);
}

/* An enum field of a struct filled in by C code, as the int it holds: in
 * C++, loading an enum object whose value lies outside the enumerators'
 * range is undefined, and a caller's struct may hold anything. */
template <typename E>
static gint
raw_enum (const E & field)
{
  static_assert (sizeof (E) == sizeof (gint), "C enums are ints here");
  gint v;
  memcpy (&v, &field, sizeof v);
  return v;
}

/* The consistency rules of the contract.  Logs the first broken rule at
 * @level, naming the caps field, and returns FALSE; TRUE when all hold. */
static gboolean
validate_info (const AfetFeaturesInfo * info, GstDebugLevel level)
{
  const gint kind = raw_enum (info->kind), norm = raw_enum (info->normalization),
      preset = raw_enum (info->preset), window = raw_enum (info->window),
      columns = raw_enum (info->norm_columns);
  /* kind_names is the one list of kinds */
  if (afet_features_kind_to_string ((AfetFeaturesKind) kind) == NULL) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'kind': %d is not a known kind", kind);
    return FALSE;
  }
  if (norm < AFET_FEATURES_NORM_UNKNOWN || norm > AFET_FEATURES_NORM_MINMAX) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'normalization': %d is not a known normalisation", norm);
    return FALSE;
  }
  if (afet_features_norm_columns_to_string ((AfetFeaturesNormColumns)
          columns) == NULL) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'normalization-columns': %d is not a known column set",
        columns);
    return FALSE;
  }
  if (preset < AFET_FEATURES_PRESET_NONE ||
      preset > AFET_FEATURES_PRESET_LHOTSE) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'preset': %d is not a known preset", preset);
    return FALSE;
  }
  if (window < AFET_FEATURES_WINDOW_UNKNOWN ||
      window > AFET_FEATURES_WINDOW_HANN_PERIODIC) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'window': %d is not a known window", window);
    return FALSE;
  }
  if (info->dims < 1) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'dims': %d, must be at least 1", info->dims);
    return FALSE;
  }
  if (info->rate < 1) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'rate': %d, must be at least 1", info->rate);
    return FALSE;
  }
  if (info->frame_length < 1) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'frame-length': %d, must be at least 1", info->frame_length);
    return FALSE;
  }
  if (info->frame_shift < 1) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'frame-shift': %d, must be at least 1", info->frame_shift);
    return FALSE;
  }
  /* fps_n / fps_d == rate / frame_shift, compared without rounding;
   * the products of two gints cannot overflow a gint64 */
  if (info->fps_n < 1 || info->fps_d < 1 ||
      (gint64) info->fps_n * info->frame_shift !=
      (gint64) info->rate * info->fps_d) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'framerate': %d/%d differs from rate/frame-shift = %d/%d",
        info->fps_n, info->fps_d, info->rate, info->frame_shift);
    return FALSE;
  }
  if (info->statics < 0) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'statics': %d, must not be negative", info->statics);
    return FALSE;
  }
  if (info->delta_order < 0 ||
      info->delta_order > AFET_FEATURES_MAX_DELTA_ORDER) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'delta-order': %d, must be between 0 and %d",
        info->delta_order, AFET_FEATURES_MAX_DELTA_ORDER);
    return FALSE;
  }
  if ((gint64) info->statics * (info->delta_order + 1) != info->dims) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'dims': %d, must equal statics * (delta-order + 1) = "
        "%d * %d", info->dims, info->statics, info->delta_order + 1);
    return FALSE;
  }
  if (info->c0_index < -1 || info->c0_index >= info->statics) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'c0-index': %d, must be -1 or below statics (%d)",
        info->c0_index, info->statics);
    return FALSE;
  }
  if (info->energy_index < -1 || info->energy_index >= info->statics) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'energy-index': %d, must be -1 or below statics (%d)",
        info->energy_index, info->statics);
    return FALSE;
  }
  if (info->c0_index >= 0 && info->c0_index == info->energy_index) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'energy-index': %d, is also the c0-index", info->energy_index);
    return FALSE;
  }
  if (afet_features_norm_to_string (info->normalization) == NULL) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'normalization': %d is not a known normalization",
        (gint) info->normalization);
    return FALSE;
  }
  if (afet_features_preset_to_string (info->preset) == NULL) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'preset': %d is not a known preset", (gint) info->preset);
    return FALSE;
  }
  if (info->window != AFET_FEATURES_WINDOW_UNKNOWN &&
      afet_features_window_to_string (info->window) == NULL) {
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, NULL,
        "field 'window': %d is not a known window", (gint) info->window);
    return FALSE;
  }

  return TRUE;
}

/**
 * afet_features_info_is_valid:
 * @info: an #AfetFeaturesInfo
 *
 * Checks @info against the same rules that afet_features_info_from_caps()
 * applies: a known kind; dims, rate, frame length and frame shift of at
 * least 1; a framerate equal to rate / frame shift; a delta order of 0 to
 * %AFET_FEATURES_MAX_DELTA_ORDER; dims equal to statics * (delta order +
 * 1); c0 and energy columns that are -1 or inside the statics and not the
 * same column; and known normalisation, preset and window values.  The
 * first broken rule is logged at DEBUG level.
 *
 * Returns: %TRUE if @info describes a valid feature stream.
 *
 * Since: 0.1
 */
gboolean
afet_features_info_is_valid (const AfetFeaturesInfo * info)
{
  g_return_val_if_fail (info != NULL, FALSE);

  return validate_info (info, GST_LEVEL_DEBUG);
}

/* Reads @field as an int into @value.  An absent optional field leaves
 * @value alone; an absent required field or a field of another type is
 * logged and fails. */
static gboolean
read_int (const GstStructure * s, const gchar * field, gboolean required,
    gint * value)
{
  if (!gst_structure_has_field (s, field)) {
    if (!required)
      return TRUE;
    GST_WARNING ("field '%s': required but missing", field);
    return FALSE;
  }
  if (!gst_structure_get_int (s, field, value)) {
    GST_WARNING ("field '%s': has type %s, expected a fixed int", field,
        g_type_name (gst_structure_get_field_type (s, field)));
    return FALSE;
  }

  return TRUE;
}

/* Like read_int() for strings; *@value stays NULL for an absent optional
 * field. */
static gboolean
read_string (const GstStructure * s, const gchar * field, gboolean required,
    const gchar ** value)
{
  *value = NULL;

  if (!gst_structure_has_field (s, field)) {
    if (!required)
      return TRUE;
    GST_WARNING ("field '%s': required but missing", field);
    return FALSE;
  }
  *value = gst_structure_get_string (s, field);
  if (*value == NULL) {
    GST_WARNING ("field '%s': has type %s, expected a fixed string", field,
        g_type_name (gst_structure_get_field_type (s, field)));
    return FALSE;
  }

  return TRUE;
}

/**
 * afet_features_info_from_caps:
 * @info: (out caller-allocates): an #AfetFeaturesInfo to fill in
 * @caps: fixed `application/x-afet-features` caps
 *
 * Parses @caps into @info.  Any caps features (such as
 * %AFET_CAPS_FEATURE_MEMORY_CL) are accepted and ignored.  The optional
 * fields take their defaults when absent: `statics` = `dims`, `c0-index`
 * and `energy-index` = -1, `delta-order` = 0, `normalization` = none,
 * `preset` = none and an unknown `window`.  A `preset` or `window` value
 * this version does not know is mapped to none / unknown; an unknown
 * `kind`, `format` or `normalization` is an error.
 *
 * On failure one WARNING line in the `afetfeatures` debug category names
 * the offending field, and @info is not modified.
 *
 * Returns: %TRUE if @caps are fixed, of the right media type and pass the
 *   checks of afet_features_info_is_valid().
 *
 * Since: 0.1
 */
gboolean
afet_features_info_from_caps (AfetFeaturesInfo * info, const GstCaps * caps)
{
  AfetFeaturesInfo tmp;
  const GstStructure *s;
  const gchar *str;
  gint gcd;

  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (GST_IS_CAPS (caps), FALSE);

  if (!gst_caps_is_fixed (caps)) {
    GST_WARNING ("caps are not fixed: %" GST_PTR_FORMAT, caps);
    return FALSE;
  }

  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, AFET_FEATURES_MEDIA_TYPE)) {
    GST_WARNING ("media type is %s, expected " AFET_FEATURES_MEDIA_TYPE,
        gst_structure_get_name (s));
    return FALSE;
  }

  afet_features_info_init (&tmp);

  if (!read_string (s, "format", TRUE, &str))
    return FALSE;
  if (strcmp (str, AFET_FEATURES_FORMAT_F32LE) != 0) {
    GST_WARNING ("field 'format': '%s' is not supported, expected "
        AFET_FEATURES_FORMAT_F32LE, str);
    return FALSE;
  }

  if (!read_string (s, "kind", TRUE, &str))
    return FALSE;
  tmp.kind = afet_features_kind_from_string (str);
  if (tmp.kind == AFET_FEATURES_KIND_UNKNOWN) {
    GST_WARNING ("field 'kind': '%s' is not a known kind", str);
    return FALSE;
  }

  if (!read_int (s, "dims", TRUE, &tmp.dims) ||
      !read_int (s, "rate", TRUE, &tmp.rate) ||
      !read_int (s, "frame-length", TRUE, &tmp.frame_length) ||
      !read_int (s, "frame-shift", TRUE, &tmp.frame_shift))
    return FALSE;

  if (!gst_structure_has_field (s, "framerate")) {
    GST_WARNING ("field 'framerate': required but missing");
    return FALSE;
  }
  if (!gst_structure_get_fraction (s, "framerate", &tmp.fps_n, &tmp.fps_d)) {
    GST_WARNING ("field 'framerate': has type %s, expected a fixed fraction",
        g_type_name (gst_structure_get_field_type (s, "framerate")));
    return FALSE;
  }

  tmp.statics = tmp.dims;
  if (!read_int (s, "statics", FALSE, &tmp.statics) ||
      !read_int (s, "c0-index", FALSE, &tmp.c0_index) ||
      !read_int (s, "energy-index", FALSE, &tmp.energy_index) ||
      !read_int (s, "delta-order", FALSE, &tmp.delta_order))
    return FALSE;

  if (!read_string (s, "normalization", FALSE, &str))
    return FALSE;
  if (str != NULL) {
    tmp.normalization = afet_features_norm_from_string (str);
    if (tmp.normalization == AFET_FEATURES_NORM_UNKNOWN) {
      GST_WARNING ("field 'normalization': '%s' is not a known "
          "normalization", str);
      return FALSE;
    }
  }

  if (!read_string (s, "normalization-columns", FALSE, &str))
    return FALSE;
  if (str != NULL) {
    tmp.norm_columns = afet_features_norm_columns_from_string (str);
    if (tmp.norm_columns == AFET_FEATURES_NORM_COLUMNS_UNKNOWN) {
      GST_WARNING ("field 'normalization-columns': '%s' is not a known "
          "column set", str);
      return FALSE;
    }
  }

  /* preset and window do not change how the values are read, so values
   * from newer producers degrade to none / unknown */
  if (!read_string (s, "preset", FALSE, &str))
    return FALSE;
  if (str != NULL) {
    tmp.preset = afet_features_preset_from_string (str);
    if (tmp.preset == AFET_FEATURES_PRESET_NONE && strcmp (str, "none") != 0)
      GST_DEBUG ("field 'preset': ignoring unknown value '%s'", str);
  }

  if (!read_string (s, "window", FALSE, &str))
    return FALSE;
  if (str != NULL) {
    tmp.window = afet_features_window_from_string (str);
    if (tmp.window == AFET_FEATURES_WINDOW_UNKNOWN)
      GST_DEBUG ("field 'window': ignoring unknown value '%s'", str);
  }

  if (!validate_info (&tmp, GST_LEVEL_WARNING))
    return FALSE;

  /* store the framerate in lowest terms so that equal infos compare equal
   * member by member */
  gcd = gst_util_greatest_common_divisor (tmp.fps_n, tmp.fps_d);
  tmp.fps_n /= gcd;
  tmp.fps_d /= gcd;

  *info = tmp;

  return TRUE;
}

/**
 * afet_features_info_to_caps:
 * @info: a valid #AfetFeaturesInfo
 *
 * Describes @info as fixed caps without caps features.  All fields of the
 * contract are written, except `normalization-columns` when the
 * normalisation is %AFET_FEATURES_NORM_NONE, `preset` when it is
 * %AFET_FEATURES_PRESET_NONE and `window` when it is
 * %AFET_FEATURES_WINDOW_UNKNOWN.  The framerate is written in lowest
 * terms.
 *
 * Returns: (transfer full) (nullable): new caps, or %NULL (with a
 *   critical warning) if @info is not valid.
 *
 * Since: 0.1
 */
GstCaps *
afet_features_info_to_caps (const AfetFeaturesInfo * info)
{
  GstCaps *caps;
  gint gcd;

  g_return_val_if_fail (info != NULL, NULL);

  if (!validate_info (info, GST_LEVEL_WARNING))
    g_return_val_if_reached (NULL);

  gcd = gst_util_greatest_common_divisor (info->rate, info->frame_shift);

  caps = gst_caps_new_simple (AFET_FEATURES_MEDIA_TYPE,
      "format", G_TYPE_STRING, AFET_FEATURES_FORMAT_F32LE,
      "kind", G_TYPE_STRING, afet_features_kind_to_string (info->kind),
      "dims", G_TYPE_INT, info->dims,
      "rate", G_TYPE_INT, info->rate,
      "frame-length", G_TYPE_INT, info->frame_length,
      "frame-shift", G_TYPE_INT, info->frame_shift,
      "framerate", GST_TYPE_FRACTION, info->rate / gcd,
      info->frame_shift / gcd,
      "statics", G_TYPE_INT, info->statics,
      "c0-index", G_TYPE_INT, info->c0_index,
      "energy-index", G_TYPE_INT, info->energy_index,
      "delta-order", G_TYPE_INT, info->delta_order,
      "normalization", G_TYPE_STRING,
      afet_features_norm_to_string (info->normalization), nullptr);

  if (info->normalization != AFET_FEATURES_NORM_NONE)
    gst_caps_set_simple (caps, "normalization-columns", G_TYPE_STRING,
        afet_features_norm_columns_to_string (info->norm_columns), nullptr);

  if (info->preset != AFET_FEATURES_PRESET_NONE)
    gst_caps_set_simple (caps, "preset", G_TYPE_STRING,
        afet_features_preset_to_string (info->preset), nullptr);

  if (info->window != AFET_FEATURES_WINDOW_UNKNOWN)
    gst_caps_set_simple (caps, "window", G_TYPE_STRING,
        afet_features_window_to_string (info->window), nullptr);

  return caps;
}

/**
 * afet_features_info_is_equal:
 * @a: an #AfetFeaturesInfo
 * @b: another #AfetFeaturesInfo
 *
 * Compares every public member; the framerates are compared as fractions,
 * so 100/1 equals 200/2.
 *
 * Returns: %TRUE if @a and @b describe the same stream format.
 *
 * Since: 0.1
 */
gboolean
afet_features_info_is_equal (const AfetFeaturesInfo * a,
    const AfetFeaturesInfo * b)
{
  g_return_val_if_fail (a != NULL, FALSE);
  g_return_val_if_fail (b != NULL, FALSE);

  if (a == b)
    return TRUE;

  if (a->fps_d == b->fps_d) {
    if (a->fps_n != b->fps_n)
      return FALSE;
  } else if (a->fps_d == 0 || b->fps_d == 0 ||
      (gint64) a->fps_n * b->fps_d != (gint64) b->fps_n * a->fps_d) {
    return FALSE;
  }

  return a->kind == b->kind &&
      a->dims == b->dims &&
      a->rate == b->rate &&
      a->frame_length == b->frame_length &&
      a->frame_shift == b->frame_shift &&
      a->statics == b->statics &&
      a->c0_index == b->c0_index &&
      a->energy_index == b->energy_index &&
      a->delta_order == b->delta_order &&
      a->normalization == b->normalization &&
      (a->normalization == AFET_FEATURES_NORM_NONE ||
      a->norm_columns == b->norm_columns) &&
      a->preset == b->preset && a->window == b->window;
}

/**
 * afet_features_info_frames_to_time:
 * @info: an #AfetFeaturesInfo with rate and frame shift set
 * @frames: a number of frames, or a frame index
 *
 * Converts a frame count into the duration it spans, which is also the
 * offset of frame number @frames from the start of the frame sequence:
 * @frames * frame-shift / rate seconds, rounded down to whole nanoseconds.
 *
 * Returns: the time, or %GST_CLOCK_TIME_NONE if it does not fit or @info
 *   has no rate or frame shift.
 *
 * Since: 0.1
 */
GstClockTime
afet_features_info_frames_to_time (const AfetFeaturesInfo * info,
    guint64 frames)
{
  g_return_val_if_fail (info != NULL, GST_CLOCK_TIME_NONE);
  g_return_val_if_fail (info->rate >= 1, GST_CLOCK_TIME_NONE);
  g_return_val_if_fail (info->frame_shift >= 1, GST_CLOCK_TIME_NONE);

  /* frame_shift * GST_SECOND stays below 2^63, and the scale helper keeps
   * the full precision of frames * frame_shift * GST_SECOND */
  return gst_util_uint64_scale (frames,
      (guint64) info->frame_shift * GST_SECOND, (guint64) info->rate);
}

/**
 * afet_features_info_time_to_frames:
 * @info: an #AfetFeaturesInfo with rate and frame shift set
 * @time: a duration or an offset from the start of the frame sequence
 *
 * The inverse of afet_features_info_frames_to_time(): @time * rate /
 * frame-shift frames, rounded to the nearest integer, so that converting a
 * frame index to time and back gives the same index.
 *
 * Returns: the number of frames, or %G_MAXUINT64 if @time is
 *   %GST_CLOCK_TIME_NONE or @info has no rate or frame shift.
 *
 * Since: 0.1
 */
guint64
afet_features_info_time_to_frames (const AfetFeaturesInfo * info,
    GstClockTime time)
{
  g_return_val_if_fail (info != NULL, G_MAXUINT64);
  g_return_val_if_fail (info->rate >= 1, G_MAXUINT64);
  g_return_val_if_fail (info->frame_shift >= 1, G_MAXUINT64);

  if (!GST_CLOCK_TIME_IS_VALID (time))
    return G_MAXUINT64;

  return gst_util_uint64_scale_round (time, (guint64) info->rate,
      (guint64) info->frame_shift * GST_SECOND);
}
