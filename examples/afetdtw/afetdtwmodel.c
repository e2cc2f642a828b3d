/* afetdtw's model (afetdtwmodel.h): each template's word cut out and weighed,
 * and the search for the nearest words.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* A template file holds one word with some
 * silence around it: the end-pointer cuts the word out exactly as it cuts
 * the input's (a file is one run, so it cuts only the silent edges), its
 * statics are re-centred on its own mean when the input's words will be,
 * and the variance of each column over all template frames gives that
 * column's weight in the frame distance. */

#include "afetdtwmodel.h"

GST_DEBUG_CATEGORY_EXTERN (gst_afet_dtw_debug);
#define GST_CAT_DEFAULT gst_afet_dtw_debug

static void
template_free (AfetDtwTemplate * t)
{
  g_free (t->path);
  afet_dtw_seq_free (t->seq);
  g_free (t);
}

void
afet_dtw_model_free (AfetDtwModel * model)
{
  if (!model)
    return;
  g_ptr_array_unref (model->templates);
  g_ptr_array_unref (model->words);
  g_free (model->weights);
  g_free (model);
}

static guint
word_index (AfetDtwModel * model, const gchar * word)
{
  guint i;

  for (i = 0; i < model->words->len; i++)
    if (g_str_equal (g_ptr_array_index (model->words, i), word))
      return i;
  g_ptr_array_add (model->words, g_strdup (word));
  return model->words->len - 1;
}

static void
collect_word (AfetDtwSeq * word, gpointer user_data)
{
  g_ptr_array_add ((GPtrArray *) user_data, word);
}

/* Checks that a template's features are the input's; posts why not. */
static gboolean
check_template_caps (GstElement * element, const AfetDtwFile * file,
    GstCaps * tcaps, GstCaps * input, const AfetFeaturesInfo * info,
    const gchar * chain)
{
  AfetFeaturesInfo t;
  gchar *why = NULL;

  if (!afet_features_info_from_caps (&t, tcaps))
    why = g_strdup ("its caps are not a valid feature stream");
  else if (t.dims != info->dims)
    why = g_strdup_printf ("it has %d values a frame, the input %d",
        t.dims, info->dims);
  else if ((gint64) t.fps_n * info->fps_d != (gint64) info->fps_n * t.fps_d)
    why = g_strdup_printf ("it has %d/%d frames a second, the input %d/%d",
        t.fps_n, t.fps_d, info->fps_n, info->fps_d);
  else if (!file->features)
    why = afet_features_caps_explain_mismatch (tcaps, input);
  if (!why)
    return TRUE;
  if (file->features)
    GST_ELEMENT_ERROR (element, STREAM, FORMAT,
        ("Template %s does not hold the input's features: %s; make it with "
            "the chain that makes the input", file->path, why),
        ("its caps %" GST_PTR_FORMAT, tcaps));
  else
    GST_ELEMENT_ERROR (element, STREAM, FORMAT,
        ("Template %s through '%s' does not give the input's features: %s; "
            "set chain to the elements and settings that made the input "
            "(for features read by afetparse, also set its frame-length and "
            "rate to those they were made with)", file->path, chain, why), ("template caps %" GST_PTR_FORMAT
            ", input caps %" GST_PTR_FORMAT, tcaps, input));
  g_free (why);
  return FALSE;
}

/* One file's templates, added to @model. */
static gboolean
load_file (GstElement * element, AfetDtwModel * model,
    const AfetDtwFile * file, const gchar * chain, GstCaps * input,
    const AfetFeaturesInfo * info, const AfetDtwModelParams * params)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      afet_dtw_seq_free);
  GPtrArray *cut = g_ptr_array_new ();
  AfetDtwEndpointParams p = params->cut;
  AfetDtwEndpointer *ep;
  GstCaps *tcaps = NULL;
  GError *err = NULL;
  guint i, k;

  if (!afet_dtw_extract (file, chain, info, runs, &tcaps, &err)) {
    gchar *dir = g_path_get_dirname (file->path);

    GST_ELEMENT_ERROR (element, STREAM, DECODE, ("%s; remove the file from "
            "%s or replace it with a recording GStreamer can decode",
            err->message, dir), (NULL));
    g_free (dir);
    g_clear_error (&err);
    goto failed;
  }
  if (!check_template_caps (element, file, tcaps, input, info, chain))
    goto failed;

  /* a template file is one word: only its silent edges are cut */
  p.split_on_silence = FALSE;
  p.max_length = G_MAXUINT;
  p.min_speech = 1;
  ep = afet_dtw_endpointer_new (&p, info->dims, params->level_column,
      params->units_per_db, 0, collect_word, cut);
  for (i = 0; i < runs->len; i++) {
    AfetDtwSeq *run = g_ptr_array_index (runs, i);

    for (k = 0; k < run->n_frames; k++)
      afet_dtw_endpointer_push (ep, run->data + (gsize) k * run->dims, 0);
    afet_dtw_endpointer_end_run (ep);
  }
  afet_dtw_endpointer_free (ep);
  if (cut->len == 0) {
    GST_ELEMENT_ERROR (element, STREAM, DECODE, ("Template %s holds no "
            "speech: nothing in it is %.1f dB above its quietest part; record "
            "it again or lower the threshold property", file->path,
            p.threshold_db), (NULL));
    goto failed;
  }
  for (i = 0; i < cut->len; i++) {
    AfetDtwTemplate *t = g_new0 (AfetDtwTemplate, 1);

    t->word = word_index (model, file->word);
    t->path = g_strdup (file->path);
    t->seq = g_ptr_array_index (cut, i);
    if (params->subtract_mean)
      afet_dtw_seq_subtract_mean (t->seq, info->statics);
    model->n_frames += t->seq->n_frames;
    g_ptr_array_add (model->templates, t);
  }
  g_ptr_array_free (cut, TRUE);
  g_ptr_array_unref (runs);
  gst_caps_unref (tcaps);
  return TRUE;

failed:
  for (i = 0; i < cut->len; i++)
    afet_dtw_seq_free (g_ptr_array_index (cut, i));
  g_ptr_array_free (cut, TRUE);
  g_ptr_array_unref (runs);
  if (tcaps)
    gst_caps_unref (tcaps);
  return FALSE;
}

/* The inverse variance of each column over all template frames. */
static void
make_weights (AfetDtwModel * model, gboolean weigh)
{
  gdouble *sum = g_new0 (gdouble, model->dims);
  gdouble *sum2 = g_new0 (gdouble, model->dims);
  guint i, j, k, n = MAX (model->n_frames, 1);

  model->weights = g_new (gfloat, model->dims);
  for (i = 0; i < model->templates->len; i++) {
    const AfetDtwTemplate *t = g_ptr_array_index (model->templates, i);

    for (j = 0; j < t->seq->n_frames; j++)
      for (k = 0; k < model->dims; k++) {
        gdouble v = t->seq->data[(gsize) j * model->dims + k];

        sum[k] += v;
        sum2[k] += v * v;
      }
  }
  for (k = 0; k < model->dims; k++) {
    gdouble mean = sum[k] / n, var = sum2[k] / n - mean * mean;

    /* a constant column tells no word from another */
    model->weights[k] = !weigh ? 1.0f : var > 1e-12 ? (gfloat) (1.0 / var) :
        0.0f;
  }
  g_free (sum);
  g_free (sum2);
}

AfetDtwModel *
afet_dtw_model_load (GstElement * element, GPtrArray * files,
    const gchar * chain, GstCaps * input, const AfetFeaturesInfo * info,
    const AfetDtwModelParams * params)
{
  AfetDtwModel *model = g_new0 (AfetDtwModel, 1);
  GstClockTime t0 = gst_util_get_timestamp ();
  guint i;

  model->words = g_ptr_array_new_with_free_func (g_free);
  model->templates = g_ptr_array_new_with_free_func ((GDestroyNotify)
      template_free);
  model->dims = info->dims;
  model->statics = info->statics;
  model->subtract_mean = params->subtract_mean;
  for (i = 0; i < files->len; i++) {
    if (!load_file (element, model, g_ptr_array_index (files, i), chain,
            input, info, params)) {
      afet_dtw_model_free (model);
      return NULL;
    }
  }
  make_weights (model, params->weigh);
  GST_INFO_OBJECT (element, "%u templates of %u words (%u frames) in "
      "%.3f s", model->templates->len, model->words->len, model->n_frames,
      (gst_util_get_timestamp () - t0) / (gdouble) GST_SECOND);
  return model;
}

void
afet_dtw_model_match (const AfetDtwModel * model, AfetDtwSeq * word,
    gdouble band, AfetDtwMatch * match)
{
  guint n_words = model->words->len, i, w;
  guint best = G_MAXUINT, second = G_MAXUINT;
  gdouble *dist = g_new (gdouble, n_words);

  if (model->subtract_mean)
    afet_dtw_seq_subtract_mean (word, model->statics);
  for (w = 0; w < n_words; w++)
    dist[w] = G_MAXDOUBLE;
  for (i = 0; i < model->templates->len; i++) {
    const AfetDtwTemplate *t = g_ptr_array_index (model->templates, i);
    /* a template beyond the second-best word cannot change the two */
    gdouble bound = second != G_MAXUINT ? dist[second] : G_MAXDOUBLE;
    gdouble d = afet_dtw_distance (word, t->seq, model->weights, band, bound);

    if (d >= dist[t->word])
      continue;
    dist[t->word] = d;
    best = second = G_MAXUINT;
    for (w = 0; w < n_words; w++) {
      if (dist[w] == G_MAXDOUBLE)
        continue;
      if (best == G_MAXUINT || dist[w] < dist[best]) {
        second = best;
        best = w;
      } else if (second == G_MAXUINT || dist[w] < dist[second]) {
        second = w;
      }
    }
  }
  match->word = best != G_MAXUINT ? g_ptr_array_index (model->words, best) :
      NULL;
  match->distance = best != G_MAXUINT ? dist[best] : -1.0;
  match->runner_up = second != G_MAXUINT ?
      g_ptr_array_index (model->words, second) : NULL;
  match->runner_up_distance = second != G_MAXUINT ? dist[second] : -1.0;
  g_free (dist);
}
