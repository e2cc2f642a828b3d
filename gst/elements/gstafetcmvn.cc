/* The afetcmvn element: mean, variance or min/max normalisation of a feature
 * stream over the utterance, the sliding span or running from the start.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetcmvn
 * @title: afetcmvn
 *
 * Normalises a feature stream: subtracts the mean (CMN), also divides by
 * the standard deviation (CVN), or scales into [-1, 1] around the mean
 * (min/max, thesis eq. 4.3), with statistics accumulated in double over
 *
 * - the whole stream (scope=utterance, output at EOS or DISCONT; with
 *   columns=htk this is HTK's _Z; refused on a live source),
 * - Kaldi's sliding span (scope=sliding: apply-cmvn-sliding with
 *   cmn-window, center and min-window),
 * - or everything from the stream's start (scope=running, optionally
 *   starting from statistics read from stats-file), for live use with no
 *   look-ahead.
 *
 * energy-normalise applies HTK's ENORMALISE to the log-energy column (floor
 * at Emax - silence-floor ln(10) / 10, then 1 - (Emax - E) energy-scale);
 * HTK does it before the dynamics, so put afetcmvn before afetdelta then.
 *
 * Live, in the sliding scope, with rows in system memory: the rows of all
 * such streams of one configuration in the process stay in lanes of one
 * device buffer and are computed in shared launches (combine-streams;
 * results unchanged), for many live streams on one device.
 *
 * ## Example launch lines
 * |[
 * ... ! afetmfcc frame-length=20 ! afetdelta delta-window=3 accel-window=3 ! \
 *     afetcmvn columns=htk ! filesink location=s.mfcc        # HTK MFCC_0_D_A_Z
 * ... ! afetmfcc ! afetdelta ! afetcmvn scope=sliding ! ...   # live, Kaldi
 * ... ! afetmfcc device-memory=false ! afetdelta device-memory=false ! \
 *     afetcmvn scope=sliding device-memory=false ! ...  # many live streams
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetcmvn.h"
#include "gstafetdebug.h"
#include "cmvn.h"

#include <cmath>
#include <fstream>
#include <sstream>

GST_DEBUG_CATEGORY_STATIC (gst_afet_cmvn_debug);
#define GST_CAT_DEFAULT gst_afet_cmvn_debug

#define DEFAULT_MODE GST_AFET_CMVN_MODE_MEAN
#define DEFAULT_SCOPE GST_AFET_CMVN_SCOPE_UTTERANCE
#define DEFAULT_CMN_WINDOW 600
#define DEFAULT_CENTER FALSE
#define DEFAULT_MIN_WINDOW 100
#define DEFAULT_COLUMNS GST_AFET_CMVN_COLUMNS_ALL
#define DEFAULT_ENERGY_NORMALISE FALSE
#define DEFAULT_ENERGY_SCALE 0.1
#define DEFAULT_SILENCE_FLOOR 50.0
#define DEFAULT_STATS_FILE nullptr

enum
{
  PROP_0,
  PROP_MODE,
  PROP_SCOPE,
  PROP_CMN_WINDOW,
  PROP_CENTER,
  PROP_MIN_WINDOW,
  PROP_COLUMNS,
  PROP_ENERGY_NORMALISE,
  PROP_ENERGY_SCALE,
  PROP_SILENCE_FLOOR,
  PROP_STATS_FILE,
};

GST_AFET_DEFINE_ENUM (gst_afet_cmvn_mode_get_type, "GstAfetCmvnMode",
    {GST_AFET_CMVN_MODE_NONE, "No normalisation", "none"},
    {GST_AFET_CMVN_MODE_MEAN, "Zero mean (CMN)", "mean"},
    {GST_AFET_CMVN_MODE_MEANVAR, "Zero mean, unit variance (CVN)",
        "meanvar"},
    {GST_AFET_CMVN_MODE_MINMAX, "Zero mean, within [-1, 1] (min/max)",
        "minmax"});
GST_AFET_DEFINE_ENUM (gst_afet_cmvn_scope_get_type, "GstAfetCmvnScope",
    {GST_AFET_CMVN_SCOPE_UTTERANCE, "The whole stream (up to EOS or DISCONT)",
        "utterance"},
    {GST_AFET_CMVN_SCOPE_SLIDING, "Kaldi's sliding span", "sliding"},
    {GST_AFET_CMVN_SCOPE_RUNNING, "Everything from the stream's start",
        "running"});
GST_AFET_DEFINE_ENUM (gst_afet_cmvn_columns_get_type, "GstAfetCmvnColumns",
    {GST_AFET_CMVN_COLUMNS_ALL, "Every column", "all"},
    {GST_AFET_CMVN_COLUMNS_STATICS, "The static block", "statics"},
    {GST_AFET_CMVN_COLUMNS_HTK, "The statics but log energy (HTK _Z)",
        "htk"});

/* *INDENT-OFF* */
struct GstAfetCmvnPrivate
{
  GstAfetCmvnMode mode = DEFAULT_MODE;
  GstAfetCmvnScope scope = DEFAULT_SCOPE;
  guint cmn_window = DEFAULT_CMN_WINDOW;
  gboolean center = DEFAULT_CENTER;
  guint min_window = DEFAULT_MIN_WINDOW;
  GstAfetCmvnColumns columns = DEFAULT_COLUMNS;
  gboolean energy_normalise = DEFAULT_ENERGY_NORMALISE;
  gdouble energy_scale = DEFAULT_ENERGY_SCALE;
  gdouble silence_floor = DEFAULT_SILENCE_FLOOR;
  std::string stats_file;
  std::unique_ptr<afet::CmvnStage> stage;
};
/* *INDENT-ON* */

struct _GstAfetCmvn
{
  GstAfetBase parent;
  GstAfetCmvnPrivate *priv;
};

G_DEFINE_TYPE (GstAfetCmvn, gst_afet_cmvn, GST_TYPE_AFET_BASE);
GST_ELEMENT_REGISTER_DEFINE (afetcmvn, "afetcmvn", GST_RANK_NONE,
    GST_TYPE_AFET_CMVN);

/* stats-file: "count", then the means, then optionally the variances, as
 * whitespace-separated numbers (one line each is customary) */
static bool
read_stats (const std::string & path, afet::CmvnConfig * c, gchar ** why)
{
  std::ifstream in (path);
  if (!in || !g_file_test (path.c_str (), G_FILE_TEST_IS_REGULAR)) {
    *why = g_strdup_printf ("cannot read stats-file %s", path.c_str ());
    return false;
  }
  std::vector<double> v;
  std::string word;
  while (in >> word) {
    gchar *end = nullptr;
    double x = g_ascii_strtod (word.c_str (), &end);
    if (end == word.c_str () || *end || !std::isfinite (x)) {
      *why = g_strdup_printf ("stats-file %s: \"%s\" (number %zu) is not a "
          "finite number", path.c_str (), word.c_str (), v.size () + 1);
      return false;
    }
    v.push_back (x);
  }
  size_t d = (size_t) c->dims;
  if (v.size () != 1 + d && v.size () != 1 + 2 * d) {
    *why = g_strdup_printf ("stats-file %s holds %zu numbers; expected a "
        "frame count and %zu means (and %zu variances)", path.c_str (),
        v.size (), d, d);
    return false;
  }
  c->initial_count = v[0];
  c->initial_mean.assign (v.begin () + 1, v.begin () + 1 + d);
  if (v.size () == 1 + 2 * d)
    c->initial_var.assign (v.begin () + 1 + d, v.end ());
  return true;
}

/* with_stats: read stats-file too (configure; describe, which runs at
 * every caps query, does not need the numbers) */
static bool
make_config (GstAfetCmvn * self, const GstAfetInput * in,
    afet::CmvnConfig * c, gchar ** why, bool with_stats)
{
  GstAfetCmvnPrivate *p = self->priv;
  const AfetFeaturesInfo *f = &in->features;
  GST_OBJECT_LOCK (self);
  c->mode = (afet::CmvnMode) p->mode;
  c->scope = (afet::CmvnScope) p->scope;
  c->cmn_window = (int) p->cmn_window;
  c->center = p->center;
  c->min_window = (int) p->min_window;
  c->energy_normalise = p->energy_normalise;
  c->energy_scale = (float) p->energy_scale;
  c->silence_floor = (float) p->silence_floor;
  GstAfetCmvnColumns columns = p->columns;
  std::string stats_file = p->stats_file;
  GST_OBJECT_UNLOCK (self);

  c->dims = f->dims;
  c->row_stride = in->in_dims;
  c->max_batch = in->max_batch;
  c->energy_column = f->energy_index;
  c->mask.assign (f->dims, 0);
  for (int i = 0; i < f->dims; i++) {
    bool on = columns == GST_AFET_CMVN_COLUMNS_ALL || i < f->statics;
    if (columns == GST_AFET_CMVN_COLUMNS_HTK && i == f->energy_index)
      on = false;
    c->mask[i] = on ? 1 : 0;
  }
  if (with_stats && !stats_file.empty () && !read_stats (stats_file, c, why))
    return false;
  afet::Status st = c->validate ();
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return false;
  }
  return true;
}

static gboolean
gst_afet_cmvn_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetCmvn *self = GST_AFET_CMVN (base);
  afet::CmvnConfig c;
  if (!make_config (self, in, &c, why, false))
    return FALSE;
  *out = in->features;
  static const AfetFeaturesNorm norms[] = { AFET_FEATURES_NORM_NONE,
    AFET_FEATURES_NORM_MEAN, AFET_FEATURES_NORM_MEANVAR,
    AFET_FEATURES_NORM_MINMAX
  };
  out->normalization = norms[(int) c.mode];
  /* the columns this element normalised, as the caps name them; energy
   * normalisation alone (mode none) leaves the field unwritten */
  GST_OBJECT_LOCK (self);
  GstAfetCmvnColumns columns = self->priv->columns;
  GST_OBJECT_UNLOCK (self);
  static const AfetFeaturesNormColumns sets[] = {
    AFET_FEATURES_NORM_COLUMNS_ALL, AFET_FEATURES_NORM_COLUMNS_STATICS,
    AFET_FEATURES_NORM_COLUMNS_HTK
  };
  out->norm_columns = sets[(int) columns];
  if (out->norm_columns == AFET_FEATURES_NORM_COLUMNS_ALL &&
      out->delta_order == 0)
    out->norm_columns = AFET_FEATURES_NORM_COLUMNS_STATICS;
  if (out->norm_columns == AFET_FEATURES_NORM_COLUMNS_HTK &&
      out->energy_index < 0)
    out->norm_columns = AFET_FEATURES_NORM_COLUMNS_STATICS;
  return TRUE;
}

static gboolean
gst_afet_cmvn_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetCmvn *self = GST_AFET_CMVN (base);
  afet::CmvnConfig c;
  if (!make_config (self, in, &c, why, true))
    return FALSE;
  auto stage = std::make_unique<afet::CmvnStage> ();
  afet::Status st = stage->init (env->device, c, env->queue);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  gst_afet_needs_context (needs, c.back (), c.ahead (), in->in_dims,
      c.start_need ());
  gst_afet_needs_lanes (needs, stage.get ());
  self->priv->stage = std::move (stage);
  return TRUE;
}

static gboolean
gst_afet_cmvn_process (GstAfetBase * base, const GstAfetBatch * in, gint n,
    cl_mem out, gsize out_row, gchar ** why)
{
  GstAfetCmvn *self = GST_AFET_CMVN (base);
  afet::Status st = self->priv->stage->enqueue (in->block, in->out_first, n,
      out, out_row);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

static void
gst_afet_cmvn_release (GstAfetBase * base)
{
  GST_AFET_CMVN (base)->priv->stage.reset ();
}

static void
gst_afet_cmvn_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  if (gst_afet_base_set_framing_property (object, prop_id, value))
    return;                     /* htk-config */
  GstAfetCmvn *self = GST_AFET_CMVN (object);
  GstAfetCmvnPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      p->mode = (GstAfetCmvnMode) g_value_get_enum (value);
      break;
    case PROP_SCOPE:
      p->scope = (GstAfetCmvnScope) g_value_get_enum (value);
      break;
    case PROP_CMN_WINDOW:
      p->cmn_window = g_value_get_uint (value);
      break;
    case PROP_CENTER:
      p->center = g_value_get_boolean (value);
      break;
    case PROP_MIN_WINDOW:
      p->min_window = g_value_get_uint (value);
      break;
    case PROP_COLUMNS:
      p->columns = (GstAfetCmvnColumns) g_value_get_enum (value);
      break;
    case PROP_ENERGY_NORMALISE:
      p->energy_normalise = g_value_get_boolean (value);
      break;
    case PROP_ENERGY_SCALE:
      p->energy_scale = g_value_get_double (value);
      break;
    case PROP_SILENCE_FLOOR:
      p->silence_floor = g_value_get_double (value);
      break;
    case PROP_STATS_FILE:{
      const gchar *s = g_value_get_string (value);
      p->stats_file = s ? s : "";
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_cmvn_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return;
  GstAfetCmvn *self = GST_AFET_CMVN (object);
  GstAfetCmvnPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, p->mode);
      break;
    case PROP_SCOPE:
      g_value_set_enum (value, p->scope);
      break;
    case PROP_CMN_WINDOW:
      g_value_set_uint (value, p->cmn_window);
      break;
    case PROP_CENTER:
      g_value_set_boolean (value, p->center);
      break;
    case PROP_MIN_WINDOW:
      g_value_set_uint (value, p->min_window);
      break;
    case PROP_COLUMNS:
      g_value_set_enum (value, p->columns);
      break;
    case PROP_ENERGY_NORMALISE:
      g_value_set_boolean (value, p->energy_normalise);
      break;
    case PROP_ENERGY_SCALE:
      g_value_set_double (value, p->energy_scale);
      break;
    case PROP_SILENCE_FLOOR:
      g_value_set_double (value, p->silence_floor);
      break;
    case PROP_STATS_FILE:
      g_value_set_string (value, p->stats_file.empty () ? nullptr :
          p->stats_file.c_str ());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_cmvn_finalize (GObject * object)
{
  delete GST_AFET_CMVN (object)->priv;
  G_OBJECT_CLASS (gst_afet_cmvn_parent_class)->finalize (object);
}

static void
gst_afet_cmvn_class_init (GstAfetCmvnClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_cmvn_debug, "afetcmvn", 0,
      "afet normalisation");

  gobject_class->set_property = gst_afet_cmvn_set_property;
  gobject_class->get_property = gst_afet_cmvn_get_property;
  gobject_class->finalize = gst_afet_cmvn_finalize;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "What to normalise",
          gst_afet_cmvn_mode_get_type (), DEFAULT_MODE, flags));
  g_object_class_install_property (gobject_class, PROP_SCOPE,
      g_param_spec_enum ("scope", "Scope", "Frames the statistics cover",
          gst_afet_cmvn_scope_get_type (), DEFAULT_SCOPE, flags));
  g_object_class_install_property (gobject_class, PROP_CMN_WINDOW,
      g_param_spec_uint ("cmn-window", "CMN window",
          "Frames of the sliding span (Kaldi --cmn-window)", 1, 100000,
          DEFAULT_CMN_WINDOW, flags));
  g_object_class_install_property (gobject_class, PROP_CENTER,
      g_param_spec_boolean ("center", "Center",
          "Centre the sliding span on the frame (look-ahead of half the "
          "span; Kaldi --center)", DEFAULT_CENTER, flags));
  g_object_class_install_property (gobject_class, PROP_MIN_WINDOW,
      g_param_spec_uint ("min-window", "Minimum window",
          "Frames the sliding span covers at a stream's start, looking ahead "
          "if needed (Kaldi --min-cmn-window)", 1, 100000,
          DEFAULT_MIN_WINDOW, flags));
  g_object_class_install_property (gobject_class, PROP_COLUMNS,
      g_param_spec_enum ("columns", "Columns",
          "Columns to normalise, read from the caps' frame layout",
          gst_afet_cmvn_columns_get_type (), DEFAULT_COLUMNS, flags));
  g_object_class_install_property (gobject_class, PROP_ENERGY_NORMALISE,
      g_param_spec_boolean ("energy-normalise", "Energy normalise",
          "HTK's ENORMALISE on the log-energy column (scope=utterance)",
          DEFAULT_ENERGY_NORMALISE, flags));
  g_object_class_install_property (gobject_class, PROP_ENERGY_SCALE,
      g_param_spec_double ("energy-scale", "Energy scale",
          "Scale of the normalised log energy: 1 - (Emax - E) x scale (HTK "
          "ESCALE)", 0.0, 100.0, DEFAULT_ENERGY_SCALE, flags));
  g_object_class_install_property (gobject_class, PROP_SILENCE_FLOOR,
      g_param_spec_double ("silence-floor", "Silence floor",
          "HTK SILFLOOR in dB below the loudest frame", 0.0, 1000.0,
          DEFAULT_SILENCE_FLOOR, flags));
  g_object_class_install_property (gobject_class, PROP_STATS_FILE,
      g_param_spec_string ("stats-file", "Statistics file",
          "Initial statistics for scope=running: a frame count, the means, "
          "optionally the variances (whitespace-separated numbers)",
          DEFAULT_STATS_FILE, flags));

  gst_afet_base_class_install_htk_config (gobject_class);
  gst_afet_base_class_install_combine (gobject_class);
  gst_afet_base_class_set_element (element_class,
      GST_AFET_FEATURES_CAPS (AFET_FEATURES_KINDS_ALL),
      GST_AFET_FEATURES_CAPS (AFET_FEATURES_KINDS_ALL), "afet CMVN",
      "Cepstral mean / variance normalisation on an OpenCL device");

  base_class->describe = gst_afet_cmvn_describe;
  base_class->configure = gst_afet_cmvn_configure;
  base_class->process = gst_afet_cmvn_process;
  base_class->release = gst_afet_cmvn_release;

  gst_type_mark_as_plugin_api (gst_afet_cmvn_mode_get_type (),
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_afet_cmvn_scope_get_type (),
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_afet_cmvn_columns_get_type (),
      (GstPluginAPIFlags) 0);
}

static void
gst_afet_cmvn_init (GstAfetCmvn * self)
{
  self->priv = new GstAfetCmvnPrivate ();
}
