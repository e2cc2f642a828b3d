/* The analysis contract of application/x-afet-features: the fields that say
 * how the numbers were made (AFET_FEATURES_ANALYSIS_FIELDS), copied by the
 * elements that transform a stream, and the sentence naming the first field
 * by which a stream misses what a consumer asks for.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetfeatures.h"

static const gchar *const analysis_fields[] = {
  AFET_FEATURES_ANALYSIS_FIELDS,
  /* the context steps' (deltas, splicing) */
  AFET_FEATURES_CONTEXT_FIELDS,
  /* afettransform's */
  AFET_FEATURES_TRANSFORM_FIELDS,
  nullptr
};

/**
 * afet_features_copy_analysis:
 * @dst: the structure of a stream an element makes from @src's
 * @src: the structure of its input
 *
 * Copies the analysis fields (and AFET_FEATURES_CONTEXT_FIELDS) of @src
 * that @dst does not have: an element that transforms a feature stream
 * (deltas, normalisation) passes on how its input was made.
 *
 * Since: 0.2
 */
void
afet_features_copy_analysis (GstStructure * dst, const GstStructure * src)
{
  g_return_if_fail (dst != NULL && src != NULL);
  for (const gchar *const *f = analysis_fields; *f; f++) {
    const GValue *v = gst_structure_get_value (src, *f);
    if (v && !gst_structure_has_field (dst, *f))
      gst_structure_set_value (dst, *f, v);
  }
}

/* The first field of want whose value have's does not meet; NULL when
 * every field intersects. A field have does not state takes any value (the
 * caps' rule), so it never differs. */
static gchar *
first_difference (const GstStructure * have, const GstStructure * want)
{
  if (!gst_structure_has_name (have, gst_structure_get_name (want)))
    return g_strdup_printf ("the stream is %s, not %s",
        gst_structure_get_name (have), gst_structure_get_name (want));
  for (gint i = 0; i < gst_structure_n_fields (want); i++) {
    const gchar *name = gst_structure_nth_field_name (want, i);
    const GValue *w = gst_structure_get_value (want, name);
    const GValue *h = gst_structure_get_value (have, name);
    if (!h)
      continue;
    gchar *ws = gst_value_serialize (w);
    gchar *why = nullptr;
    if (!gst_value_can_intersect (h, w) ||
        !gst_value_intersect (nullptr, h, w)) {
      gchar *hs = gst_value_serialize (h);
      /* 7600 (an int) never meets 7600.0 (a double): say so */
      GType ht = G_VALUE_TYPE (h), wt = G_VALUE_TYPE (w);
      gboolean lists = GST_VALUE_HOLDS_LIST (w) || GST_VALUE_HOLDS_INT_RANGE
          (w) || GST_VALUE_HOLDS_DOUBLE_RANGE (w);
      if (ht != wt && !lists)
        why = g_strdup_printf ("field '%s' is %s (%s), wanted %s (%s): write "
            "it as a %s", name, hs, g_type_name (ht), ws, g_type_name (wt),
            g_type_name (ht));
      else
        why = g_strdup_printf ("field '%s' is %s, wanted %s", name, hs, ws);
      g_free (hs);
    }
    g_free (ws);
    if (why)
      return why;
  }
  return nullptr;
}

/**
 * afet_features_caps_explain_mismatch:
 * @have: the (fixed) caps of a feature stream
 * @want: the caps a consumer takes, e.g. its sink template
 *
 * Says why @have does not fit @want, naming the first field whose values
 * do not meet, for the structure of @want of the same media type (the
 * first one).  As for any caps, a field @have does not state matches any
 * value: producers state every analysis field that applies to them.
 *
 * Returns: (transfer full) (nullable): the explanation, or %NULL when the
 *   caps intersect.
 *
 * Since: 0.2
 */
gchar *
afet_features_caps_explain_mismatch (const GstCaps * have,
    const GstCaps * want)
{
  g_return_val_if_fail (GST_IS_CAPS (have) && GST_IS_CAPS (want), NULL);
  if (gst_caps_can_intersect (have, want))
    return NULL;
  if (gst_caps_is_empty (have) || gst_caps_is_empty (want))
    return g_strdup ("no format is possible");
  /* the system-memory structure of have: fields do not depend on it */
  const GstStructure *h = gst_caps_get_structure (have,
      gst_caps_get_size (have) - 1);
  gchar *best = nullptr;
  gint best_rank = G_MAXINT;
  for (guint i = 0; i < gst_caps_get_size (want); i++) {
    const GstStructure *w = gst_caps_get_structure (want, i);
    gchar *why = first_difference (h, w);
    /* prefer a structure of the same media type; then the first */
    gint rank = gst_structure_has_name (h, gst_structure_get_name (w)) ?
        (gint) i : 1000 + (gint) i;
    if (!why)
      why = g_strdup ("its memory (caps features) differs");
    if (rank < best_rank) {
      g_free (best);
      best = why;
      best_rank = rank;
    } else {
      g_free (why);
    }
  }
  return best;
}
