/* The afettraps element: LC-RC TRAPS of a log mel filter bank stream, each
 * band's left and right half-trajectories reduced by a DCT.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afettraps
 * @title: afettraps
 *
 * LC-RC TRAPS: for each band of a log mel filter bank, the trajectory of
 * `length` frames centred on the current frame is split into a left half
 * (frames t-H+1..t) and a right half (t..t+H-1), H = (length + 1) / 2,
 * overlapping at t; each half is weighted by the matching half of a
 * length-point Hamming window and reduced by an orthonormal DCT-II to
 * `num-dct` coefficients (the 0th included). Output frame: for each band,
 * low to high, num-dct left then num-dct right coefficients
 * (bands x num-dct x 2 values, kind=traps).
 *
 * Input: audio (the element computes HTK's log mel filter bank itself, with
 * its framing properties and num-filters) or an fbank stream from
 * `afetmfcc num-ceps=0` (then those properties do not apply; an energy
 * column is ignored). One output frame per input frame; at the stream's
 * start and end the trajectory is completed by repeating the edge frame.
 * Latency: H - 1 frames of look-ahead (plus the analysis window for audio).
 *
 * ## Example launch line (the thesis' setting)
 * |[
 * gst-launch-1.0 filesrc location=speech.wav ! wavparse ! \
 *     afettraps num-filters=15 ! filesink location=speech.traps
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafettraps.h"
#include "mfcc.h"
#include "traps.h"

GST_DEBUG_CATEGORY_STATIC (gst_afet_traps_debug);
#define GST_CAT_DEFAULT gst_afet_traps_debug

#define DEFAULT_NUM_FILTERS 15
#define DEFAULT_LENGTH 31
#define DEFAULT_NUM_DCT 11

enum
{
  PROP_0,
  PROP_NUM_FILTERS,
  PROP_LENGTH,
  PROP_NUM_DCT,
};

/* *INDENT-OFF* */
struct GstAfetTrapsPrivate
{
  guint num_filters = DEFAULT_NUM_FILTERS;
  guint length = DEFAULT_LENGTH;
  guint num_dct = DEFAULT_NUM_DCT;
  std::unique_ptr<afet::MfccStage> fbank;     /* audio input */
  std::unique_ptr<afet::TrapsStage> stage;
};
/* *INDENT-ON* */

struct _GstAfetTraps
{
  GstAfetBase parent;
  GstAfetTrapsPrivate *priv;
};

G_DEFINE_TYPE (GstAfetTraps, gst_afet_traps, GST_TYPE_AFET_BASE);
GST_ELEMENT_REGISTER_DEFINE (afettraps, "afettraps", GST_RANK_NONE,
    GST_TYPE_AFET_TRAPS);

/* bands of the input rows: the filters, or the fbank stream's channels */
static int
input_bands (GstAfetTraps * self, const GstAfetInput * in)
{
  if (in->audio) {
    GST_OBJECT_LOCK (self);
    int m = (int) self->priv->num_filters;
    GST_OBJECT_UNLOCK (self);
    return m;
  }
  return in->features.statics - (in->features.energy_index >= 0 ? 1 : 0);
}

static afet::TrapsConfig
make_config (GstAfetTraps * self, const GstAfetInput * in)
{
  afet::TrapsConfig c;
  GST_OBJECT_LOCK (self);
  c.length = (int) self->priv->length;
  c.num_dct = (int) self->priv->num_dct;
  GST_OBJECT_UNLOCK (self);
  c.bands = input_bands (self, in);
  c.row_stride = in->audio ? c.bands : in->in_dims;
  c.max_batch = in->max_batch;
  return c;
}

static afet::MfccConfig
fbank_config (const GstAfetInput * in, int bands)
{
  afet::MfccConfig c;
  c.framing = gst_afet_base_framing_config (in);
  c.max_batch = in->max_batch;
  c.num_filters = bands;
  c.num_ceps = 0;
  c.c0 = false;
  c.energy = false;
  return c;
}

static gboolean
gst_afet_traps_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetTraps *self = GST_AFET_TRAPS (base);
  if (!in->audio && (in->features.kind != AFET_FEATURES_KIND_FBANK ||
          in->features.delta_order != 0)) {
    *why = g_strdup ("afettraps takes audio or a log mel filter bank "
        "(afetmfcc num-ceps=0)");
    return FALSE;
  }
  if (in->audio && in->preset != GST_AFET_PRESET_HTK) {
    *why = g_strdup ("afettraps frames audio with HTK's conventions only: "
        "for another preset's bands feed it afetmfcc preset=... num-ceps=0");
    return FALSE;
  }
  afet::TrapsConfig c = make_config (self, in);
  afet::Status st = c.validate ();
  if (st.ok () && in->audio)
    st = fbank_config (in, c.bands).validate ();
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  afet_features_info_set_format (out, AFET_FEATURES_KIND_TRAPS, in->rate,
      in->W, in->S, c.dims (), 0);
  out->window = gst_afet_base_caps_window (in->window);
  out->preset = in->audio ? AFET_FEATURES_PRESET_HTK : in->features.preset;
  return TRUE;
}

static gboolean
gst_afet_traps_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetTraps *self = GST_AFET_TRAPS (base);
  afet::TrapsConfig c = make_config (self, in);
  auto stage = std::make_unique<afet::TrapsStage> ();
  afet::Status st = stage->init (env->device, c, env->queue);
  std::unique_ptr<afet::MfccStage> fbank;
  if (st.ok () && in->audio) {
    fbank = std::make_unique<afet::MfccStage> ();
    st = fbank->init (env->device, fbank_config (in, c.bands),
        env->queue, env->stats);
  }
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  gst_afet_needs_context (needs, c.ahead (), c.ahead (), c.row_stride);
  gst_afet_needs_lanes (needs, stage.get ());
  self->priv->stage = std::move (stage);
  self->priv->fbank = std::move (fbank);
  GST_DEBUG_OBJECT (self, "%d bands, length %d, %d DCT coefficients, %s "
      "input", c.bands, c.length, c.num_dct, in->audio ? "audio" : "fbank");
  return TRUE;
}

static gboolean
gst_afet_traps_pre_process (GstAfetBase * base, const GstAfetBatch * in,
    gint n, cl_mem out, gsize out_row, gchar ** why)
{
  afet::Status st = GST_AFET_TRAPS (base)->priv->fbank->enqueue_samples
      (in->host, n, out, out_row);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_afet_traps_process (GstAfetBase * base, const GstAfetBatch * in, gint n,
    cl_mem out, gsize out_row, gchar ** why)
{
  GstAfetTraps *self = GST_AFET_TRAPS (base);
  afet::Status st = self->priv->stage->enqueue (in->block, in->out_first, n,
      out, out_row);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

static void
gst_afet_traps_release (GstAfetBase * base)
{
  GstAfetTraps *self = GST_AFET_TRAPS (base);
  self->priv->stage.reset ();
  self->priv->fbank.reset ();
}

static void
gst_afet_traps_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetTraps *self = GST_AFET_TRAPS (object);
  if (gst_afet_base_set_framing_property (object, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_NUM_FILTERS:
      self->priv->num_filters = g_value_get_uint (value);
      break;
    case PROP_LENGTH:
      self->priv->length = g_value_get_uint (value);
      break;
    case PROP_NUM_DCT:
      self->priv->num_dct = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_traps_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetTraps *self = GST_AFET_TRAPS (object);
  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_NUM_FILTERS:
      g_value_set_uint (value, self->priv->num_filters);
      break;
    case PROP_LENGTH:
      g_value_set_uint (value, self->priv->length);
      break;
    case PROP_NUM_DCT:
      g_value_set_uint (value, self->priv->num_dct);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_traps_finalize (GObject * object)
{
  delete GST_AFET_TRAPS (object)->priv;
  G_OBJECT_CLASS (gst_afet_traps_parent_class)->finalize (object);
}

static void
gst_afet_traps_class_init (GstAfetTrapsClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_traps_debug, "afettraps", 0,
      "afet TRAPS");

  gobject_class->set_property = gst_afet_traps_set_property;
  gobject_class->get_property = gst_afet_traps_get_property;
  gobject_class->finalize = gst_afet_traps_finalize;

  gst_afet_base_class_install_framing_properties (gobject_class);
  gst_afet_base_class_install_combine (gobject_class);
  g_object_class_install_property (gobject_class, PROP_NUM_FILTERS,
      g_param_spec_uint ("num-filters", "Filters",
          "Mel bands computed from audio input (ignored for an fbank "
          "stream, whose channels are used)", 1, 256, DEFAULT_NUM_FILTERS,
          flags));
  g_object_class_install_property (gobject_class, PROP_LENGTH,
      g_param_spec_uint ("length", "Length",
          "Trajectory length in frames, odd: the halves t-H+1..t and "
          "t..t+H-1 with H = (length + 1) / 2", 3, 301, DEFAULT_LENGTH,
          flags));
  g_object_class_install_property (gobject_class, PROP_NUM_DCT,
      g_param_spec_uint ("num-dct", "DCT coefficients",
          "Orthonormal DCT-II coefficients kept per half, the 0th included "
          "(at most (length + 1) / 2)", 1, 151, DEFAULT_NUM_DCT, flags));

  gst_afet_base_class_set_element (element_class,
      GST_AFET_AUDIO_CAPS "; " GST_AFET_FEATURES_CAPS ("fbank"),
      GST_AFET_FEATURES_CAPS ("traps"), "afet TRAPS",
      "LC-RC TRAPS of log mel band trajectories on an OpenCL device");

  base_class->describe = gst_afet_traps_describe;
  base_class->configure = gst_afet_traps_configure;
  base_class->process = gst_afet_traps_process;
  base_class->pre_process = gst_afet_traps_pre_process;
  base_class->release = gst_afet_traps_release;
}

static void
gst_afet_traps_init (GstAfetTraps * self)
{
  self->priv = new GstAfetTrapsPrivate ();
}
