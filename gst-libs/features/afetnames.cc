/* Names of a feature stream's layout: HTK's parameter kind names (MFCC_0_D_A_Z)
 * and each column's name (c1.., c0, E, d(c1)...), for afetfileformat and the
 * Python module.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetfeatures.h"

/* HTK's parameter kinds by code and its qualifier flags (the HTK book,
 * "Parameter kinds"), and the qualifiers in the order HTK prints them: _E
 * and _0 first, then the others in the order of their bits.  The one table
 * of these names: afet_features_htk_kind_name() (a kind code from a file
 * header, afetfileformat's htk_kind_name()) and afet_features_info_htk_name()
 * (a stream's layout, the Python module's FeatureInfo.htk_name()) read it. */
static const gchar *const htk_bases[] = {
  "WAVEFORM", "LPC", "LPREFC", "LPCEPSTRA", "LPDELCEP", "IREFC", "MFCC",
  "FBANK", "MELSPEC", "USER", "DISCRETE", "PLP"
};

enum : guint16
{
  HTK_MFCC = 6, HTK_FBANK = 7, HTK_USER = 9, HTK_PLP = 11,
  HTK_E = 0x40, HTK_N = 0x80, HTK_D = 0x100, HTK_A = 0x200, HTK_C = 0x400,
  HTK_Z = 0x800, HTK_K = 0x1000, HTK_0 = 0x2000, HTK_V = 0x4000,
  HTK_T = 0x8000
};

static const struct
{
  guint16 flag;
  const gchar *name;
} htk_qualifiers[] = {
  {HTK_E, "_E"}, {HTK_0, "_0"}, {HTK_N, "_N"}, {HTK_D, "_D"},
  {HTK_A, "_A"}, {HTK_T, "_T"}, {HTK_C, "_C"}, {HTK_Z, "_Z"},
  {HTK_K, "_K"}, {HTK_V, "_V"}
};

/* Appends the qualifiers of @kind's flags to @s. */
static void
append_htk_qualifiers (GString * s, guint16 kind)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (htk_qualifiers); i++) {
    if (kind & htk_qualifiers[i].flag)
      g_string_append (s, htk_qualifiers[i].name);
  }
}

/**
 * afet_features_htk_kind_name:
 * @kind: an HTK parameter kind: the base kind in the low 6 bits and the
 *   qualifier flags above, as in an HTK file's header
 *
 * HTK's name of a parameter kind with its qualifiers, as HTK prints it:
 * `MFCC_0_D_A_Z` for 6 | 0x2000 | 0x100 | 0x200 | 0x800.  A base kind HTK
 * does not define is named `KIND` and its number.
 *
 * Returns: (transfer full): the name; free it with g_free().
 *
 * Since: 0.1
 */
gchar *
afet_features_htk_kind_name (guint16 kind)
{
  GString *s = g_string_new (NULL);
  guint base = kind & 0x3f;

  if (base < G_N_ELEMENTS (htk_bases))
    g_string_append (s, htk_bases[base]);
  else
    g_string_append_printf (s, "KIND%u", base);
  append_htk_qualifiers (s, kind);

  return g_string_free (s, FALSE);
}

/**
 * afet_features_info_htk_name:
 * @info: a valid #AfetFeaturesInfo
 *
 * An HTK-style name of @info's layout, e.g. `MFCC_0_D_A_Z`: the kind
 * (`MFCC`, `PLP`, `FBANK`, `USER`; kinds HTK has no code for in capitals,
 * e.g. `SPECTROGRAM`), then `_E` for an energy column, `_0` for a c0
 * column, `_D`, `_A`, `_T` for the dynamic blocks, and `_Z` for what HTK
 * means by it: the mean removed from the statics but the energy
 * (%AFET_FEATURES_NORM_COLUMNS_HTK, or
 * %AFET_FEATURES_NORM_COLUMNS_STATICS without an energy column).  Other
 * normalisations, which HTK has no letter for, follow in words:
 * `MFCC_0_D_A (mean over all)`, `FBANK (meanvar over statics)`.  The
 * name does not say where the energy and c0 columns lie: afetenc's
 * HTK writer checks that.
 *
 * Returns: (transfer full) (nullable): the name, to free with g_free(), or
 *   %NULL when @info is not valid (afet_features_info_is_valid()).
 *
 * Since: 0.1
 */
gchar *
afet_features_info_htk_name (const AfetFeaturesInfo * info)
{
  GString *s;
  guint16 quals = 0;

  g_return_val_if_fail (info != NULL, NULL);

  if (!afet_features_info_is_valid (info))
    return NULL;

  s = g_string_new (NULL);
  switch (info->kind) {
    case AFET_FEATURES_KIND_MFCC:
      g_string_append (s, htk_bases[HTK_MFCC]);
      break;
    case AFET_FEATURES_KIND_FBANK:
      g_string_append (s, htk_bases[HTK_FBANK]);
      break;
    case AFET_FEATURES_KIND_PLP:
      g_string_append (s, htk_bases[HTK_PLP]);
      break;
    case AFET_FEATURES_KIND_USER:
      g_string_append (s, htk_bases[HTK_USER]);
      break;
    default:{
      gchar *up = g_ascii_strup (afet_features_kind_to_string (info->kind),
          -1);
      g_string_append (s, up);
      g_free (up);
      break;
    }
  }

  if (info->energy_index >= 0)
    quals |= HTK_E;
  if (info->c0_index >= 0)
    quals |= HTK_0;
  if (info->delta_order >= 1)
    quals |= HTK_D;
  if (info->delta_order >= 2)
    quals |= HTK_A;
  if (info->delta_order >= 3)
    quals |= HTK_T;
  /* HTK's _Z leaves the energy alone: statics-only mean removal is _Z when
   * there is no energy column to tell the two apart */
  if (info->normalization == AFET_FEATURES_NORM_MEAN &&
      (info->norm_columns == AFET_FEATURES_NORM_COLUMNS_HTK ||
          (info->norm_columns == AFET_FEATURES_NORM_COLUMNS_STATICS &&
              info->energy_index < 0)))
    quals |= HTK_Z;
  append_htk_qualifiers (s, quals);

  if (info->normalization != AFET_FEATURES_NORM_NONE && !(quals & HTK_Z))
    g_string_append_printf (s, " (%s over %s)",
        afet_features_norm_to_string (info->normalization),
        afet_features_norm_columns_to_string (info->norm_columns));

  return g_string_free (s, FALSE);
}

/**
 * afet_features_info_column_name:
 * @info: a valid #AfetFeaturesInfo
 * @column: a column, below @info's dims
 *
 * The name of a column of @info's frames.  Static columns: `E` at the
 * energy index, `c0` at the c0 index, otherwise `c1`, `c2`, ... for
 * cepstra (mfcc, plp), `ch1`, `ch2`, ... for filter-bank channels (fbank),
 * counting only these columns, `bin0`, `bin1`, ... for spectrogram bins
 * and `x0`, `x1`, ... for other kinds, numbered by column.  A column of
 * dynamic block k (1 deltas, 2 accelerations, 3 third differences) is its
 * static's name in `d(...)`, `dd(...)`, `ddd(...)`.
 *
 * Returns: (transfer full) (nullable): the name, to free with g_free(), or
 *   %NULL when @info is not valid or @column is not below its dims.
 *
 * Since: 0.1
 */
gchar *
afet_features_info_column_name (const AfetFeaturesInfo * info, guint column)
{
  gchar *name, *out;
  guint j, k, i, n;

  g_return_val_if_fail (info != NULL, NULL);

  if (!afet_features_info_is_valid (info) || column >= (guint) info->dims)
    return NULL;

  j = column % (guint) info->statics;
  k = column / (guint) info->statics;

  if ((gint) j == info->energy_index) {
    name = g_strdup ("E");
  } else if ((gint) j == info->c0_index) {
    name = g_strdup ("c0");
  } else {
    /* cepstra and channels count from 1 past the energy and c0 columns */
    for (i = 0, n = 0; i <= j; i++) {
      if ((gint) i != info->energy_index && (gint) i != info->c0_index)
        n++;
    }
    switch (info->kind) {
      case AFET_FEATURES_KIND_MFCC:
      case AFET_FEATURES_KIND_PLP:
        name = g_strdup_printf ("c%u", n);
        break;
      case AFET_FEATURES_KIND_FBANK:
        name = g_strdup_printf ("ch%u", n);
        break;
      case AFET_FEATURES_KIND_SPECTROGRAM:
        name = g_strdup_printf ("bin%u", j);
        break;
      default:
        name = g_strdup_printf ("x%u", j);
        break;
    }
  }

  if (k == 0)
    return name;

  {
    gchar *d = g_strnfill (k, 'd');

    out = g_strdup_printf ("%s(%s)", d, name);
    g_free (d);
    g_free (name);
  }

  return out;
}
