/* afetdtw's model: every template's word cut out of its file as the input's
 * words are cut, the distance weights, and the search for the two nearest
 * words.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __AFET_DTW_MODEL_H__
#define __AFET_DTW_MODEL_H__

#include "afetdtwtemplates.h"

G_BEGIN_DECLS

typedef struct
{
  guint word;                   /* index into the model's words */
  gchar *path;
  AfetDtwSeq *seq;
} AfetDtwTemplate;

typedef struct
{
  GPtrArray *words;             /* gchar *, the vocabulary */
  GPtrArray *templates;         /* AfetDtwTemplate */
  gfloat *weights;              /* one a column */
  guint dims, statics;
  gboolean subtract_mean;
  guint n_frames;               /* of all templates */
} AfetDtwModel;

typedef struct
{
  AfetDtwEndpointParams cut;    /* how the input's words are cut */
  gint level_column;
  gdouble units_per_db;
  gboolean subtract_mean;
  gboolean weigh;               /* inverse-variance weights */
} AfetDtwModelParams;

/* Reads @files through @chain (audio) or afetparse (feature files) into
 * templates for an input of @input caps; NULL after posting an error on
 * @element that names the file and the fix. */
AfetDtwModel *afet_dtw_model_load (GstElement * element, GPtrArray * files,
    const gchar * chain, GstCaps * input, const AfetFeaturesInfo * info,
    const AfetDtwModelParams * params);
void afet_dtw_model_free (AfetDtwModel * model);

typedef struct
{
  const gchar *word, *runner_up;        /* NULL when there is none */
  gdouble distance, runner_up_distance;
} AfetDtwMatch;

/* The two nearest words to @word (whose mean is subtracted first when the
 * model's are). */
void afet_dtw_model_match (const AfetDtwModel * model, AfetDtwSeq * word,
    gdouble band, AfetDtwMatch * match);

G_END_DECLS

#endif /* __AFET_DTW_MODEL_H__ */
