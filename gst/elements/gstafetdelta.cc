/* The afetdelta element: regression deltas, accelerations and third order
 * appended to a feature stream, with HTK's edges.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetdelta
 * @title: afetdelta
 *
 * Appends regression-based dynamic coefficients to a feature stream:
 * d_t = sum_{k=1..N} k (c_{t+k} - c_{t-k}) / (2 sum k^2), with HTK's edge
 * handling: deltas from the statics with indices clamped to the stream (the
 * first and last frames repeat), accelerations (and third-order) by the
 * same formula over the previous order's sequence, its indices clamped too.
 * Output frame: statics, deltas, accelerations, third: statics x (order + 1)
 * values; the caps' delta-order says how many blocks follow the statics.
 *
 * preset=kaldi computes Kaldi's add-deltas instead (--delta-order is order,
 * --delta-window is delta-window, for every order; accel-window is not
 * used): block o is one filter of 2 o N + 1 taps over the statics (the
 * delta filter convolved with itself o times), their indices clamped. The
 * interior frames are HTK's; accelerations and third order differ within
 * o N frames of each end, where HTK clamps each order's sequence rather
 * than the statics. The caps' deltas field says which (htk or kaldi).
 *
 * Streaming: frame t is computed once frame t + N (+ A per extra order) has
 * arrived; the element reports that look-ahead in the latency query. At EOS
 * or a DISCONT it computes the remaining frames with the stream's end known.
 * Live, with rows in system memory, all such streams of one configuration
 * in the process share launches (combine-streams; results unchanged).
 *
 * ## Example launch lines (HTK's MFCC_E_D_A; Kaldi's add-deltas)
 * |[
 * gst-launch-1.0 filesrc location=speech.wav ! wavparse ! \
 *     afetmfcc frame-length=20 c0=false energy=true ! \
 *     afetdelta delta-window=3 accel-window=3 ! filesink location=s.mfcc
 * gst-launch-1.0 filesrc location=feats.ark ! afetparse ! \
 *     afetdelta preset=kaldi ! afetenc format=kaldi ! \
 *     filesink location=deltas.ark
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetdelta.h"
#include "gstafetdebug.h"
#include "delta.h"

GST_DEBUG_CATEGORY_STATIC (gst_afet_delta_debug);
#define GST_CAT_DEFAULT gst_afet_delta_debug

#define DEFAULT_ORDER 2
#define DEFAULT_DELTA_WINDOW 2
#define DEFAULT_ACCEL_WINDOW 2
#define DEFAULT_PRESET GST_AFET_DELTA_PRESET_HTK

/* whose deltas: the caps' deltas field takes the nick */
typedef enum
{
  GST_AFET_DELTA_PRESET_HTK = 0,
  GST_AFET_DELTA_PRESET_KALDI,
} GstAfetDeltaPreset;

GST_AFET_DEFINE_ENUM (gst_afet_delta_preset_get_type, "GstAfetDeltaPreset",
    {GST_AFET_DELTA_PRESET_HTK, "HTK's: each order the regression of the "
          "previous order's sequence, its ends replicated", "htk"},
    {GST_AFET_DELTA_PRESET_KALDI, "Kaldi's add-deltas: each order a "
          "convolved filter over the statics, their ends replicated",
        "kaldi"});

enum
{
  PROP_0,
  PROP_ORDER,
  PROP_DELTA_WINDOW,
  PROP_ACCEL_WINDOW,
  PROP_PRESET,
};

/* *INDENT-OFF* */
struct GstAfetDeltaPrivate
{
  guint order = DEFAULT_ORDER;
  guint delta_window = DEFAULT_DELTA_WINDOW;
  guint accel_window = DEFAULT_ACCEL_WINDOW;
  GstAfetDeltaPreset preset = DEFAULT_PRESET;
  std::unique_ptr<afet::DeltaStage> stage;
};
/* *INDENT-ON* */

struct _GstAfetDelta
{
  GstAfetBase parent;
  GstAfetDeltaPrivate *priv;
};

G_DEFINE_TYPE (GstAfetDelta, gst_afet_delta, GST_TYPE_AFET_BASE);
GST_ELEMENT_REGISTER_DEFINE (afetdelta, "afetdelta", GST_RANK_NONE,
    GST_TYPE_AFET_DELTA);

static afet::DeltaConfig
make_config (GstAfetDelta * self, const GstAfetInput * in)
{
  afet::DeltaConfig c;
  GST_OBJECT_LOCK (self);
  c.order = (int) self->priv->order;
  c.delta_window = (int) self->priv->delta_window;
  c.accel_window = (int) self->priv->accel_window;
  c.kaldi = self->priv->preset == GST_AFET_DELTA_PRESET_KALDI;
  GST_OBJECT_UNLOCK (self);
  c.statics = in->features.statics;
  c.row_stride = in->in_dims;
  c.max_batch = in->max_batch;
  return c;
}

static gboolean
gst_afet_delta_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetDelta *self = GST_AFET_DELTA (base);
  if (in->features.delta_order != 0) {
    *why = g_strdup ("the stream already has dynamic coefficients "
        "(delta-order > 0): put afetdelta before anything that adds them");
    return FALSE;
  }
  afet::DeltaConfig c = make_config (self, in);
  afet::Status st = c.validate ();
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  gchar *htk_config = nullptr;
  g_object_get (self, "htk-config", &htk_config, nullptr);
  gboolean clash = c.kaldi && htk_config && *htk_config;
  g_free (htk_config);
  if (clash) {
    /* the HCopy file sets HTK's windows: its deltas are HTK's */
    *why = g_strdup ("htk-config describes HCopy's deltas, preset=kaldi "
        "Kaldi's: leave preset at htk, or htk-config unset");
    return FALSE;
  }
  *out = in->features;
  out->delta_order = c.order;
  out->dims = c.dims ();
  /* what was normalised is now the static block only */
  if (out->norm_columns == AFET_FEATURES_NORM_COLUMNS_ALL)
    out->norm_columns = AFET_FEATURES_NORM_COLUMNS_STATICS;
  return TRUE;
}

/* The caps' deltas and delta-windows fields (docs/caps.md): whose dynamic
 * blocks these are, and each order's window. */
static void
gst_afet_delta_describe_analysis (GstAfetBase * base, const GstAfetInput * in,
    GstStructure * s)
{
  afet::DeltaConfig c = make_config (GST_AFET_DELTA (base), in);
  std::string windows;
  for (int o = 1; o <= c.order; o++) {
    if (o > 1)
      windows += ',';
    windows += std::to_string (c.kaldi || o == 1 ? c.delta_window :
        c.accel_window);
  }
  gst_structure_set (s, "deltas", G_TYPE_STRING, c.kaldi ? "kaldi" : "htk",
      "delta-windows", G_TYPE_STRING, windows.c_str (), nullptr);
}

static gboolean
gst_afet_delta_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetDelta *self = GST_AFET_DELTA (base);
  afet::DeltaConfig c = make_config (self, in);
  auto stage = std::make_unique<afet::DeltaStage> ();
  afet::Status st = stage->init (env->device, c, env->queue);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  gst_afet_needs_context (needs, c.ahead (), c.ahead (), in->in_dims);
  gst_afet_needs_lanes (needs, stage.get ());
  self->priv->stage = std::move (stage);
  GST_DEBUG_OBJECT (self, "%s deltas: %d statics, order %d, windows %d/%d, "
      "look-ahead %d frames", c.kaldi ? "Kaldi's" : "HTK's", c.statics,
      c.order, c.delta_window, c.kaldi ? c.delta_window : c.accel_window,
      c.ahead ());
  return TRUE;
}

static gboolean
gst_afet_delta_process (GstAfetBase * base, const GstAfetBatch * in, gint n,
    cl_mem out, gsize out_row, gchar ** why)
{
  GstAfetDelta *self = GST_AFET_DELTA (base);
  afet::Status st = self->priv->stage->enqueue (in->block, in->out_first, n,
      out, out_row);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

static void
gst_afet_delta_release (GstAfetBase * base)
{
  GST_AFET_DELTA (base)->priv->stage.reset ();
}

static void
gst_afet_delta_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  if (gst_afet_base_set_framing_property (object, prop_id, value))
    return;                     /* htk-config */
  GstAfetDelta *self = GST_AFET_DELTA (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ORDER:
      self->priv->order = g_value_get_uint (value);
      break;
    case PROP_DELTA_WINDOW:
      self->priv->delta_window = g_value_get_uint (value);
      break;
    case PROP_ACCEL_WINDOW:
      self->priv->accel_window = g_value_get_uint (value);
      break;
    case PROP_PRESET:
      self->priv->preset = (GstAfetDeltaPreset) g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_delta_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return;
  GstAfetDelta *self = GST_AFET_DELTA (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ORDER:
      g_value_set_uint (value, self->priv->order);
      break;
    case PROP_DELTA_WINDOW:
      g_value_set_uint (value, self->priv->delta_window);
      break;
    case PROP_ACCEL_WINDOW:
      g_value_set_uint (value, self->priv->accel_window);
      break;
    case PROP_PRESET:
      g_value_set_enum (value, self->priv->preset);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_delta_finalize (GObject * object)
{
  delete GST_AFET_DELTA (object)->priv;
  G_OBJECT_CLASS (gst_afet_delta_parent_class)->finalize (object);
}

static void
gst_afet_delta_class_init (GstAfetDeltaClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_delta_debug, "afetdelta", 0,
      "afet deltas");
  gst_type_mark_as_plugin_api (gst_afet_delta_preset_get_type (),
      (GstPluginAPIFlags) 0);

  gobject_class->set_property = gst_afet_delta_set_property;
  gobject_class->get_property = gst_afet_delta_get_property;
  gobject_class->finalize = gst_afet_delta_finalize;

  g_object_class_install_property (gobject_class, PROP_ORDER,
      g_param_spec_uint ("order", "Order",
          "Dynamic blocks appended: 1 = deltas, 2 = + accelerations, 3 = + "
          "third order", 1, 3, DEFAULT_ORDER, flags));
  g_object_class_install_property (gobject_class, PROP_DELTA_WINDOW,
      g_param_spec_uint ("delta-window", "Delta window",
          "Regression half-window N of the deltas in frames (HTK "
          "DELTAWINDOW); with preset=kaldi of every order (Kaldi's "
          "--delta-window)", 1, 50, DEFAULT_DELTA_WINDOW, flags));
  g_object_class_install_property (gobject_class, PROP_ACCEL_WINDOW,
      g_param_spec_uint ("accel-window", "Acceleration window",
          "Regression half-window of the accelerations and third order in "
          "frames (HTK ACCWINDOW); not used with preset=kaldi", 1, 50,
          DEFAULT_ACCEL_WINDOW, flags));
  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset", "Whose deltas: HTK's (each "
          "order regresses the previous order's sequence) or Kaldi's "
          "add-deltas (each order one filter over the statics); they differ "
          "only near the ends", gst_afet_delta_preset_get_type (),
          DEFAULT_PRESET, flags));

  gst_afet_base_class_install_htk_config (gobject_class);
  gst_afet_base_class_install_combine (gobject_class);
  gst_afet_base_class_set_element (element_class,
      GST_AFET_FEATURES_CAPS (AFET_FEATURES_KINDS_ALL),
      GST_AFET_FEATURES_CAPS (AFET_FEATURES_KINDS_ALL), "afet deltas",
      "Appends regression deltas and accelerations, HTK's or Kaldi's, on an "
      "OpenCL device");

  base_class->describe = gst_afet_delta_describe;
  base_class->describe_analysis = gst_afet_delta_describe_analysis;
  base_class->configure = gst_afet_delta_configure;
  base_class->process = gst_afet_delta_process;
  base_class->release = gst_afet_delta_release;
}

static void
gst_afet_delta_init (GstAfetDelta * self)
{
  self->priv = new GstAfetDeltaPrivate ();
}
