/* The afetdtw element: isolated words in an afet feature stream recognised by
 * dynamic time warping against recorded templates.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetdtw
 * @title: afetdtw
 *
 * Recognises isolated words in an afet feature stream by dynamic time
 * warping (DTW) against recorded examples of each word, the classic
 * template-matching recogniser.  It is an example of a consumer written
 * only against afet's public caps API (`gstreamer-afet-features-1.0`): it
 * states what it takes in its sink template (cepstra with deltas and
 * accelerations, normalised), reads the frame layout from the caps (where
 * c0 and the log energy are) and the analysis contract (how c0 relates to
 * decibels), and posts one `afet-word` element message per word:
 *
 * |[
 * afet-word, word=(string)seven, distance=(double)3.75,
 *     runner-up=(string)one, runner-up-distance=(double)6.27,
 *     accepted=(boolean)true, start=(guint64)12300000000,
 *     end=(guint64)12780000000, running-time=(guint64)12300000000,
 *     frames=(uint)48
 * ]|
 *
 * `templates` names a directory of `WORD.wav` or `WORD.N.wav` recordings
 * (any format decodebin reads: .wav .flac .ogg .opus .mp3 .aiff .au), or
 * of afet feature files (`.htk`, `.mfc`, `.npy`, `.ark`; one template per
 * archive entry).  Recordings go through the same afet elements as the
 * input (copied from upstream, or `chain`), so that both sides are the
 * same features; docs/dtw.md explains the choices.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m filesrc location=words.wav ! decodebin ! audioconvert ! \
 *     audioresample ! afetmfcc ! afetdelta ! afetcmvn ! \
 *     afetdtw templates=digits/
 * gst-launch-1.0 -m autoaudiosrc ! audioconvert ! audioresample ! \
 *     afetmfcc ! afetdelta ! afetcmvn scope=sliding ! \
 *     afetdtw templates=digits/
 * ]|
 */

#include "gstafetdtw.h"
#include "afetdtwmodel.h"

#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY (gst_afet_dtw_debug);
#define GST_CAT_DEFAULT gst_afet_dtw_debug

#define DEFAULT_TEMPLATES NULL
#define DEFAULT_CHAIN NULL
#define DEFAULT_SPLIT GST_AFET_DTW_SPLIT_ENERGY
#define DEFAULT_THRESHOLD 12.0
#define DEFAULT_MIN_SPEECH 100
#define DEFAULT_MIN_SILENCE 300
#define DEFAULT_MARGIN 50
#define DEFAULT_MAX_LENGTH 3000
#define DEFAULT_SUBTRACT_MEAN TRUE
#define DEFAULT_WEIGHTING GST_AFET_DTW_WEIGHTING_VARIANCE
#define DEFAULT_BAND 0.3
#define DEFAULT_MAX_DISTANCE 0.0

/* the noise floor's climb (afetdtwcore.c) */
#define FLOOR_RISE_DB_PER_S 3.0
/* a variance-normalised c0 or energy column: one unit taken as 12 dB */
#define DB_PER_STDDEV 12.0

enum
{
  PROP_0,
  PROP_TEMPLATES,
  PROP_CHAIN,
  PROP_SPLIT,
  PROP_THRESHOLD,
  PROP_MIN_SPEECH,
  PROP_MIN_SILENCE,
  PROP_MARGIN,
  PROP_MAX_LENGTH,
  PROP_SUBTRACT_MEAN,
  PROP_WEIGHTING,
  PROP_BAND,
  PROP_MAX_DISTANCE,
  PROP_NUM_TEMPLATES,
  PROP_ACTIVE_CHAIN,
};

struct _GstAfetDtw
{
  GstBaseSink parent;

  /* properties, under the object lock */
  gchar *templates_dir;
  gchar *chain;
  GstAfetDtwSplit split;
  gdouble threshold;
  guint min_speech, min_silence, margin, max_length;    /* ms */
  gboolean subtract_mean;
  GstAfetDtwWeighting weighting;
  gdouble band;
  gdouble max_distance;
  gchar *active_chain;
  guint num_templates;

  /* from start () on */
  GPtrArray *files;             /* AfetDtwFile */

  /* streaming thread */
  AfetFeaturesInfo info;
  GstCaps *caps;                /* the input's */
  gchar *model_key;             /* what the model was made for */
  AfetDtwModel *model;
  AfetDtwEndpointer *ep;
  gchar *last_refusal;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (AFET_FEATURES_CAPS_MAKE ("{ mfcc, plp }") ", "
        "delta-order = (int) [ 2, 3 ], "
        "normalization = (string) { mean, meanvar }"));

#define gst_afet_dtw_parent_class parent_class
G_DEFINE_TYPE (GstAfetDtw, gst_afet_dtw, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE (afetdtw, "afetdtw", GST_RANK_NONE,
    GST_TYPE_AFET_DTW);

static GType
gst_afet_dtw_split_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AFET_DTW_SPLIT_ENERGY, "Words end at silence (energy end-pointer), "
          "DISCONT, GAP and EOS", "energy"},
    {GST_AFET_DTW_SPLIT_DISCONT, "Each run up to a DISCONT, GAP or EOS is "
          "one word (its silent edges cut)", "discont"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstAfetDtwSplit",
            values));
  return type;
}

static GType
gst_afet_dtw_weighting_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AFET_DTW_WEIGHTING_NONE, "Plain Euclidean distance", "none"},
    {GST_AFET_DTW_WEIGHTING_VARIANCE, "Each column by the inverse of its "
          "variance over the templates", "variance"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstAfetDtwWeighting",
            values));
  return type;
}

static void
clear_model (GstAfetDtw * self)
{
  g_clear_pointer (&self->model, afet_dtw_model_free);
  g_clear_pointer (&self->model_key, g_free);
  GST_OBJECT_LOCK (self);
  self->num_templates = 0;
  GST_OBJECT_UNLOCK (self);
}

/* ---- negotiation ------------------------------------------------------ */

/* Whether @caps is what upstream is sending now (its sticky CAPS event)
 * rather than a format it only asks about. */
static gboolean
caps_being_sent (GstAfetDtw * self, GstCaps * caps)
{
  GstPad *peer = gst_pad_get_peer (GST_BASE_SINK_PAD (self));
  gboolean same = FALSE;
  gint depth;

  for (depth = 0; peer && !same && depth < 8; depth++) {
    GstEvent *ev = gst_pad_get_sticky_event (peer, GST_EVENT_CAPS, 0);
    GstPad *next = NULL;

    if (ev) {
      GstCaps *sent;

      gst_event_parse_caps (ev, &sent);
      same = gst_caps_is_equal (sent, caps);
      gst_event_unref (ev);
    }
    if (!same && GST_IS_PROXY_PAD (peer)) {
      GstProxyPad *ghost = gst_proxy_pad_get_internal (GST_PROXY_PAD (peer));

      if (ghost) {
        next = gst_pad_get_peer (GST_PAD (ghost));
        gst_object_unref (ghost);
      }
    }
    gst_object_unref (peer);
    peer = next;
  }
  if (peer)
    gst_object_unref (peer);
  return same;
}

/* Posts, once for each reason, why a stream cannot be recognised. */
static void
post_refusal (GstAfetDtw * self, GstCaps * caps, const gchar * why)
{
  if (self->last_refusal && g_str_equal (self->last_refusal, why))
    return;
  g_free (self->last_refusal);
  self->last_refusal = g_strdup (why);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("%s cannot recognise this stream: %s. It takes MFCC or PLP with "
          "deltas and accelerations, normalised: e.g. afetmfcc ! afetdelta ! "
          "afetcmvn", GST_ELEMENT_NAME (self), why),
      ("input caps %" GST_PTR_FORMAT, caps));
}

static void
explain_template_refusal (GstAfetDtw * self, GstCaps * caps)
{
  GstCaps *want = gst_pad_get_pad_template_caps (GST_BASE_SINK_PAD (self));
  gchar *why = afet_features_caps_explain_mismatch (caps, want);

  post_refusal (self, caps, why ? why : "the caps do not fit");
  g_free (why);
  gst_caps_unref (want);
}

static gboolean
gst_afet_dtw_query (GstBaseSink * sink, GstQuery * query)
{
  GstAfetDtw *self = GST_AFET_DTW (sink);
  gboolean ret = GST_BASE_SINK_CLASS (parent_class)->query (sink, query);

  if (ret && GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS) {
    GstCaps *caps;
    gboolean accepted;

    gst_query_parse_accept_caps (query, &caps);
    gst_query_parse_accept_caps_result (query, &accepted);
    /* upstream is sending caps we refuse: say why, not just
     * "not-negotiated" */
    if (!accepted && gst_caps_is_fixed (caps) && caps_being_sent (self, caps))
      explain_template_refusal (self, caps);
  }
  return ret;
}

/* The dB scale of the level column, from the analysis contract. */
static gdouble
level_units_per_db (const GstStructure * s, const AfetFeaturesInfo * info,
    gint column, gboolean * assumed)
{
  const gchar *log = gst_structure_get_string (s, "log");
  const gchar *spectrum = gst_structure_get_string (s, "spectrum");
  gdouble per_db = log && g_str_equal (log, "log10") ? 0.1 : G_LN10 / 10.0;
  gboolean covered = FALSE;
  gint filters = 0;

  *assumed = FALSE;
  if (info->normalization == AFET_FEATURES_NORM_MEANVAR) {
    covered = info->norm_columns != AFET_FEATURES_NORM_COLUMNS_HTK ||
        column != info->energy_index;
    if (covered) {
      *assumed = TRUE;
      return 1.0 / DB_PER_STDDEV;
    }
  }
  if (column == info->energy_index || info->kind == AFET_FEATURES_KIND_PLP)
    return per_db;
  /* c0 = norm x sum of the filters' logs: HTK's DCT sqrt(2/M), Kaldi's
   * sqrt(1/M); of magnitudes, half the power's */
  if (!gst_structure_get_int (s, "num-filters", &filters) || filters < 1) {
    filters = 23;
    *assumed = TRUE;
  }
  if (info->preset == AFET_FEATURES_PRESET_KALDI ||
      info->preset == AFET_FEATURES_PRESET_LHOTSE)
    per_db *= sqrt ((gdouble) filters);
  else
    per_db *= sqrt (2.0 * filters);
  if (spectrum && g_str_equal (spectrum, "magnitude"))
    per_db *= 0.5;
  return per_db;
}

static guint
ms_to_frames (const AfetFeaturesInfo * info, guint ms)
{
  return (guint) gst_util_uint64_scale_round (ms, info->fps_n,
      (guint64) info->fps_d * 1000);
}

static gint
level_column (const AfetFeaturesInfo * info)
{
  return info->energy_index >= 0 ? info->energy_index : info->c0_index;
}

/* End-pointer settings from the properties, in frames of @info. */
static void
endpoint_params (GstAfetDtw * self, const AfetFeaturesInfo * info,
    AfetDtwEndpointParams * p)
{
  GST_OBJECT_LOCK (self);
  p->split_on_silence = self->split == GST_AFET_DTW_SPLIT_ENERGY;
  p->threshold_db = self->threshold;
  p->rise_db = FLOOR_RISE_DB_PER_S * info->fps_d / info->fps_n;
  p->min_speech = ms_to_frames (info, self->min_speech);
  p->min_silence = MAX (ms_to_frames (info, self->min_silence), 1);
  p->margin = ms_to_frames (info, self->margin);
  p->max_length = MAX (ms_to_frames (info, self->max_length), 1);
  GST_OBJECT_UNLOCK (self);
}

/* Makes the model for @caps, or keeps the one made for the same. */
static gboolean
make_model (GstAfetDtw * self, GstCaps * caps, const AfetFeaturesInfo * info)
{
  AfetDtwModelParams mp;
  gchar *chain = NULL, *key;
  gboolean changed = FALSE, assumed, any_audio = FALSE;
  guint i;

  /* the chain the template recordings go through */
  for (i = 0; i < self->files->len; i++)
    any_audio |= !((AfetDtwFile *) g_ptr_array_index (self->files,
            i))->features;
  GST_OBJECT_LOCK (self);
  chain = g_strdup (self->chain);
  mp.subtract_mean = self->subtract_mean;
  mp.weigh = self->weighting == GST_AFET_DTW_WEIGHTING_VARIANCE;
  GST_OBJECT_UNLOCK (self);
  if (!chain && any_audio) {
    chain = afet_dtw_chain_from_upstream (GST_BASE_SINK_PAD (self), &changed);
    if (chain)
      GST_INFO_OBJECT (self, "templates through the upstream chain '%s'%s",
          chain, changed ? " (normalised per file)" : "");
    else
      chain = g_strdup (AFET_DTW_DEFAULT_CHAIN);
  }
  GST_OBJECT_LOCK (self);
  g_free (self->active_chain);
  self->active_chain = g_strdup (chain);
  GST_OBJECT_UNLOCK (self);

  /* made again only when what the templates depend on changed */
  key = g_strdup_printf ("%s|%d|%d|%d|%d|%d|%d|%d", chain ? chain : "",
      info->rate, info->frame_shift, info->frame_length, info->dims,
      info->statics, info->c0_index, info->energy_index);
  if (self->model_key && g_str_equal (key, self->model_key)) {
    /* made, or failed and said why: not again */
    g_free (key);
    g_free (chain);
    return self->model != NULL;
  }
  clear_model (self);
  endpoint_params (self, info, &mp.cut);
  mp.level_column = level_column (info);
  mp.units_per_db = level_units_per_db (gst_caps_get_structure (caps, 0),
      info, mp.level_column, &assumed);
  self->model = afet_dtw_model_load (GST_ELEMENT (self), self->files, chain,
      caps, info, &mp);
  g_free (chain);
  self->model_key = key;
  if (!self->model)
    return FALSE;
  GST_OBJECT_LOCK (self);
  self->num_templates = self->model->templates->len;
  GST_OBJECT_UNLOCK (self);
  if (self->model->words->len < 2)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("Only one word (%s) in "
            "the templates: every input is that word", (gchar *)
            g_ptr_array_index (self->model->words, 0)), (NULL));
  return TRUE;
}

/* ---- recognition ------------------------------------------------------ */

static void
recognise (AfetDtwSeq * word, gpointer user_data)
{
  GstAfetDtw *self = GST_AFET_DTW (user_data);
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  gdouble band, max_distance;
  AfetDtwMatch m;
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  band = self->band;
  max_distance = self->max_distance;
  if (word->start != G_MAXUINT64)
    running_time = gst_segment_to_running_time (&GST_BASE_SINK (self)->segment,
        GST_FORMAT_TIME, word->start);
  GST_OBJECT_UNLOCK (self);

  afet_dtw_model_match (self->model, word, band, &m);
  s = gst_structure_new ("afet-word",
      "word", G_TYPE_STRING, m.word ? m.word : "",
      "distance", G_TYPE_DOUBLE, m.distance,
      "runner-up", G_TYPE_STRING, m.runner_up ? m.runner_up : "",
      "runner-up-distance", G_TYPE_DOUBLE, m.runner_up_distance,
      "accepted", G_TYPE_BOOLEAN, m.word && (max_distance <= 0 ||
          m.distance <= max_distance),
      "start", G_TYPE_UINT64, (guint64) word->start,
      "end", G_TYPE_UINT64, (guint64) word->end,
      "running-time", G_TYPE_UINT64, (guint64) running_time,
      "frames", G_TYPE_UINT, word->n_frames, NULL);
  GST_INFO_OBJECT (self, "%" GST_PTR_FORMAT, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
  afet_dtw_seq_free (word);
}

static gboolean
gst_afet_dtw_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  GstAfetDtw *self = GST_AFET_DTW (sink);
  GstCaps *want = gst_pad_get_pad_template_caps (GST_BASE_SINK_PAD (self));
  AfetFeaturesInfo info;
  AfetDtwEndpointParams p;
  gboolean assumed, fits;
  gdouble units;

  /* the same caps again: nothing changes, the word under way goes on */
  if (self->ep && self->caps && gst_caps_is_equal (caps, self->caps)) {
    gst_caps_unref (want);
    return TRUE;
  }
  fits = gst_caps_can_intersect (caps, want);
  gst_caps_unref (want);
  if (!fits) {
    explain_template_refusal (self, caps);
    return FALSE;
  }
  if (!afet_features_info_from_caps (&info, caps)) {
    post_refusal (self, caps, "the caps are not a valid feature stream "
        "(GST_DEBUG=afetfeatures:4 names the field)");
    return FALSE;
  }
  /* the word under way belongs to the old format and model */
  if (self->ep) {
    afet_dtw_endpointer_end_run (self->ep);
    g_clear_pointer (&self->ep, afet_dtw_endpointer_free);
  }
  if (!make_model (self, caps, &info))
    return FALSE;

  if (level_column (&info) < 0)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("The stream has neither c0 "
            "nor a log energy column: words are cut at DISCONT, GAP and EOS "
            "only"), ("set c0=true or energy=true on afetmfcc"));
  units = level_units_per_db (gst_caps_get_structure (caps, 0), &info,
      level_column (&info), &assumed);
  GST_INFO_OBJECT (self, "level: column %d, %g units a dB%s",
      level_column (&info), units, assumed ? " (assumed)" : "");
  self->info = info;
  gst_caps_replace (&self->caps, caps);
  endpoint_params (self, &info, &p);
  self->ep = afet_dtw_endpointer_new (&p, info.dims, level_column (&info),
      units, afet_features_info_frames_to_time (&info, 1), recognise, self);
  return TRUE;
}

static GstFlowReturn
gst_afet_dtw_render (GstBaseSink * sink, GstBuffer * buf)
{
  GstAfetDtw *self = GST_AFET_DTW (sink);
  gsize frame_bytes, n, i;
  GstMapInfo map;

  if (!self->ep)
    return GST_FLOW_NOT_NEGOTIATED;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL), ("cannot map a buffer"));
    return GST_FLOW_ERROR;
  }
  frame_bytes = AFET_FEATURES_INFO_FRAME_BYTES (&self->info);
  if (map.size % frame_bytes != 0) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
        ("buffer of %" G_GSIZE_FORMAT " bytes is not a whole number of "
            "%" G_GSIZE_FORMAT "-byte frames", map.size, frame_bytes));
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_ERROR;
  }
  if (GST_BUFFER_IS_DISCONT (buf))
    afet_dtw_endpointer_end_run (self->ep);
  n = map.size / frame_bytes;
  for (i = 0; i < n; i++) {
    guint64 t = G_MAXUINT64;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
    const gfloat *frame = (const gfloat *) (map.data + i * frame_bytes);
#else
    gfloat frame[self->info.dims];

    for (gint k = 0; k < self->info.dims; k++)
      frame[k] = GST_READ_FLOAT_LE (map.data + i * frame_bytes + 4 * k);
#endif
    if (GST_BUFFER_PTS_IS_VALID (buf))
      t = GST_BUFFER_PTS (buf) + afet_features_info_frames_to_time (&self->info,
          i);
    afet_dtw_endpointer_push (self->ep, frame, t);
  }
  gst_buffer_unmap (buf, &map);
  return GST_FLOW_OK;
}

static gboolean
gst_afet_dtw_event (GstBaseSink * sink, GstEvent * event)
{
  GstAfetDtw *self = GST_AFET_DTW (sink);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
    case GST_EVENT_GAP:
    case GST_EVENT_STREAM_START:
      /* the run ends: the word under way is recognised (before EOS is
       * posted) */
      if (self->ep)
        afet_dtw_endpointer_end_run (self->ep);
      break;
    case GST_EVENT_FLUSH_STOP:
      if (self->ep)
        afet_dtw_endpointer_reset (self->ep);
      break;
    default:
      break;
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

/* READY -> PAUSED: the directory is read now, so that a wrong one fails the
 * state change; the files are decoded once the input format is known. */
static gboolean
gst_afet_dtw_start (GstBaseSink * sink)
{
  GstAfetDtw *self = GST_AFET_DTW (sink);
  GError *err = NULL;
  gchar *dir;

  GST_OBJECT_LOCK (self);
  dir = g_strdup (self->templates_dir);
  GST_OBJECT_UNLOCK (self);
  g_free (self->last_refusal);
  self->last_refusal = NULL;

  if (!dir || !*dir) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("No templates: set the "
            "templates property to a directory of WORD.wav (or WORD.N.wav) "
            "recordings"), (NULL));
    g_free (dir);
    return FALSE;
  }
  g_clear_pointer (&self->files, g_ptr_array_unref);
  self->files = afet_dtw_list_templates (dir, &err);
  if (!self->files) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("Cannot read the template "
            "directory %s: %s; set templates to a readable directory of "
            "WORD.wav recordings", dir, err->message), (NULL));
    g_clear_error (&err);
    g_free (dir);
    return FALSE;
  }
  if (self->files->len == 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("The template directory "
            "%s holds no templates: put recordings of each word there, named "
            "WORD.wav or WORD.N.wav (also .flac .ogg .opus .mp3), or feature "
            "files WORD.htk, .mfc, .npy, .ark", dir), (NULL));
    g_clear_pointer (&self->files, g_ptr_array_unref);
    g_free (dir);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "%u template files in %s", self->files->len, dir);
  g_free (dir);
  return TRUE;
}

static gboolean
gst_afet_dtw_stop (GstBaseSink * sink)
{
  GstAfetDtw *self = GST_AFET_DTW (sink);

  g_clear_pointer (&self->ep, afet_dtw_endpointer_free);
  g_clear_pointer (&self->files, g_ptr_array_unref);
  gst_caps_replace (&self->caps, NULL);
  clear_model (self);
  return TRUE;
}

/* ---- properties ------------------------------------------------------- */

static void
gst_afet_dtw_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetDtw *self = GST_AFET_DTW (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TEMPLATES:
      g_free (self->templates_dir);
      self->templates_dir = g_value_dup_string (value);
      break;
    case PROP_CHAIN:
      g_free (self->chain);
      self->chain = g_value_dup_string (value);
      if (self->chain && !*self->chain)
        g_clear_pointer (&self->chain, g_free);
      break;
    case PROP_SPLIT:
      self->split = g_value_get_enum (value);
      break;
    case PROP_THRESHOLD:
      self->threshold = g_value_get_double (value);
      break;
    case PROP_MIN_SPEECH:
      self->min_speech = g_value_get_uint (value);
      break;
    case PROP_MIN_SILENCE:
      self->min_silence = g_value_get_uint (value);
      break;
    case PROP_MARGIN:
      self->margin = g_value_get_uint (value);
      break;
    case PROP_MAX_LENGTH:
      self->max_length = g_value_get_uint (value);
      break;
    case PROP_SUBTRACT_MEAN:
      self->subtract_mean = g_value_get_boolean (value);
      break;
    case PROP_WEIGHTING:
      self->weighting = g_value_get_enum (value);
      break;
    case PROP_BAND:
      self->band = g_value_get_double (value);
      break;
    case PROP_MAX_DISTANCE:
      self->max_distance = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_dtw_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetDtw *self = GST_AFET_DTW (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TEMPLATES:
      g_value_set_string (value, self->templates_dir);
      break;
    case PROP_CHAIN:
      g_value_set_string (value, self->chain);
      break;
    case PROP_SPLIT:
      g_value_set_enum (value, self->split);
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, self->threshold);
      break;
    case PROP_MIN_SPEECH:
      g_value_set_uint (value, self->min_speech);
      break;
    case PROP_MIN_SILENCE:
      g_value_set_uint (value, self->min_silence);
      break;
    case PROP_MARGIN:
      g_value_set_uint (value, self->margin);
      break;
    case PROP_MAX_LENGTH:
      g_value_set_uint (value, self->max_length);
      break;
    case PROP_SUBTRACT_MEAN:
      g_value_set_boolean (value, self->subtract_mean);
      break;
    case PROP_WEIGHTING:
      g_value_set_enum (value, self->weighting);
      break;
    case PROP_BAND:
      g_value_set_double (value, self->band);
      break;
    case PROP_MAX_DISTANCE:
      g_value_set_double (value, self->max_distance);
      break;
    case PROP_NUM_TEMPLATES:
      g_value_set_uint (value, self->num_templates);
      break;
    case PROP_ACTIVE_CHAIN:
      g_value_set_string (value, self->active_chain);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_dtw_finalize (GObject * object)
{
  GstAfetDtw *self = GST_AFET_DTW (object);

  g_free (self->templates_dir);
  g_free (self->chain);
  g_free (self->active_chain);
  g_free (self->last_refusal);
  afet_dtw_endpointer_free (self->ep);
  if (self->files)
    g_ptr_array_unref (self->files);
  gst_caps_replace (&self->caps, NULL);
  clear_model (self);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_afet_dtw_init (GstAfetDtw * self)
{
  self->templates_dir = g_strdup (DEFAULT_TEMPLATES);
  self->chain = g_strdup (DEFAULT_CHAIN);
  self->split = DEFAULT_SPLIT;
  self->threshold = DEFAULT_THRESHOLD;
  self->min_speech = DEFAULT_MIN_SPEECH;
  self->min_silence = DEFAULT_MIN_SILENCE;
  self->margin = DEFAULT_MARGIN;
  self->max_length = DEFAULT_MAX_LENGTH;
  self->subtract_mean = DEFAULT_SUBTRACT_MEAN;
  self->weighting = DEFAULT_WEIGHTING;
  self->band = DEFAULT_BAND;
  self->max_distance = DEFAULT_MAX_DISTANCE;
  afet_features_info_init (&self->info);
  /* an analyser: it keeps no time, it reports it */
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}

static void
gst_afet_dtw_class_init (GstAfetDtwClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *sink_class = GST_BASE_SINK_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_afet_dtw_set_property;
  gobject_class->get_property = gst_afet_dtw_get_property;
  gobject_class->finalize = gst_afet_dtw_finalize;

  g_object_class_install_property (gobject_class, PROP_TEMPLATES,
      g_param_spec_string ("templates", "Templates",
          "Directory of word recordings WORD.wav / WORD.N.wav (any format "
          "decodebin reads) or feature files WORD.htk/.mfc/.npy/.ark",
          DEFAULT_TEMPLATES, flags));
  g_object_class_install_property (gobject_class, PROP_CHAIN,
      g_param_spec_string ("chain", "Chain",
          "afet elements the template recordings go through, as a launch "
          "line; unset: those upstream (a sliding or running afetcmvn "
          "per file), else '" AFET_DTW_DEFAULT_CHAIN "'", DEFAULT_CHAIN,
          flags));
  g_object_class_install_property (gobject_class, PROP_SPLIT,
      g_param_spec_enum ("split", "Split", "How the input is cut into words",
          gst_afet_dtw_split_get_type (), DEFAULT_SPLIT, flags));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Threshold",
          "Speech: a frame's c0 or log energy this many dB above the noise "
          "floor", 1.0, 100.0, DEFAULT_THRESHOLD, flags));
  g_object_class_install_property (gobject_class, PROP_MIN_SPEECH,
      g_param_spec_uint ("min-speech", "Minimum speech",
          "Shorter bursts of speech (ms) are ignored", 0, 10000,
          DEFAULT_MIN_SPEECH, flags));
  g_object_class_install_property (gobject_class, PROP_MIN_SILENCE,
      g_param_spec_uint ("min-silence", "Minimum silence",
          "Silence (ms) that ends a word with split=energy; also the delay "
          "before a word is reported", 10, 10000, DEFAULT_MIN_SILENCE, flags));
  g_object_class_install_property (gobject_class, PROP_MARGIN,
      g_param_spec_uint ("margin", "Margin",
          "Frames (ms) kept before and after the speech of a word", 0, 1000,
          DEFAULT_MARGIN, flags));
  g_object_class_install_property (gobject_class, PROP_MAX_LENGTH,
      g_param_spec_uint ("max-length", "Maximum length",
          "A word is cut and recognised after this long (ms)", 100, 60000,
          DEFAULT_MAX_LENGTH, flags));
  g_object_class_install_property (gobject_class, PROP_SUBTRACT_MEAN,
      g_param_spec_boolean ("subtract-mean", "Subtract mean",
          "Subtract each word's own mean from its statics (input and "
          "templates), so that differently normalised streams compare",
          DEFAULT_SUBTRACT_MEAN, flags));
  g_object_class_install_property (gobject_class, PROP_WEIGHTING,
      g_param_spec_enum ("weighting", "Weighting",
          "How the columns count in the frame distance",
          gst_afet_dtw_weighting_get_type (), DEFAULT_WEIGHTING, flags));
  g_object_class_install_property (gobject_class, PROP_BAND,
      g_param_spec_double ("band", "Band",
          "How far the warping path may leave the diagonal, as a fraction "
          "of the words' lengths (1: anywhere)", 0.05, 1.0, DEFAULT_BAND,
          flags));
  g_object_class_install_property (gobject_class, PROP_MAX_DISTANCE,
      g_param_spec_double ("max-distance", "Maximum distance",
          "Words farther than this from every template are reported with "
          "accepted=false (0: accept all)", 0.0, G_MAXDOUBLE,
          DEFAULT_MAX_DISTANCE, flags));
  g_object_class_install_property (gobject_class, PROP_NUM_TEMPLATES,
      g_param_spec_uint ("num-templates", "Number of templates",
          "Templates loaded (once the input format is known)", 0, G_MAXUINT,
          0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ACTIVE_CHAIN,
      g_param_spec_string ("active-chain", "Active chain",
          "The chain the template recordings went through", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "afet DTW word recogniser", "Sink/Analyzer/Audio",
      "Recognises isolated words in an afet feature stream by dynamic time "
      "warping against recorded templates", "the afet authors");

  sink_class->start = GST_DEBUG_FUNCPTR (gst_afet_dtw_start);
  sink_class->stop = GST_DEBUG_FUNCPTR (gst_afet_dtw_stop);
  sink_class->set_caps = GST_DEBUG_FUNCPTR (gst_afet_dtw_set_caps);
  sink_class->render = GST_DEBUG_FUNCPTR (gst_afet_dtw_render);
  sink_class->event = GST_DEBUG_FUNCPTR (gst_afet_dtw_event);
  sink_class->query = GST_DEBUG_FUNCPTR (gst_afet_dtw_query);

  gst_type_mark_as_plugin_api (gst_afet_dtw_split_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_afet_dtw_weighting_get_type (), 0);
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  GST_DEBUG_CATEGORY_INIT (gst_afet_dtw_debug, "afetdtw", 0,
      "afet DTW word recogniser");
  return GST_ELEMENT_REGISTER (afetdtw, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, afetdtw,
    "Isolated-word recognition on afet feature streams (an example)",
    plugin_init, AFETDTW_VERSION, "LGPL", "afet",
    "https://github.com/afet-project/afet")
