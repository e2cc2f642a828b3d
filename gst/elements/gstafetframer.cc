/* The afetframer element: mono audio cut into pre-emphasised, windowed frames
 * on the device, output as a kind=frames feature stream.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetframer
 * @title: afetframer
 *
 * Cuts mono audio into overlapping frames of W samples every S samples,
 * applies HTK's in-frame pre-emphasis and the window on the OpenCL device,
 * and outputs them as an `application/x-afet-features, kind=frames` stream
 * (W floats a frame, optionally followed by the frame's raw log energy).
 * Samples are taken in 16-bit integer scale whatever the input format.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=speech.wav ! wavparse ! audioconvert ! \
 *     audioresample ! afetframer energy=true ! afetmfcc energy=true ! \
 *     filesink location=speech.mfcc
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetframer.h"
#include "framing.h"

GST_DEBUG_CATEGORY_STATIC (gst_afet_framer_debug);
#define GST_CAT_DEFAULT gst_afet_framer_debug

#define DEFAULT_ENERGY FALSE

enum
{
  PROP_0,
  PROP_ENERGY,
};

/* *INDENT-OFF* */
struct GstAfetFramerPrivate
{
  gboolean energy = DEFAULT_ENERGY;
  afet::FramerStage stage;
};
/* *INDENT-ON* */

struct _GstAfetFramer
{
  GstAfetBase parent;
  GstAfetFramerPrivate *priv;
};

G_DEFINE_TYPE (GstAfetFramer, gst_afet_framer, GST_TYPE_AFET_BASE);
GST_ELEMENT_REGISTER_DEFINE (afetframer, "afetframer", GST_RANK_NONE,
    GST_TYPE_AFET_FRAMER);

static gboolean
gst_afet_framer_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetFramer *self = GST_AFET_FRAMER (base);
  GST_OBJECT_LOCK (self);
  gboolean energy = self->priv->energy;
  GST_OBJECT_UNLOCK (self);

  afet_features_info_set_format (out, AFET_FEATURES_KIND_FRAMES, in->rate,
      in->W, in->S, in->W + (energy ? 1 : 0), 0);
  out->energy_index = energy ? in->W : -1;
  out->window = gst_afet_base_caps_window (in->window);
  out->preset = (AfetFeaturesPreset) in->preset;
  return TRUE;
}

static gboolean
gst_afet_framer_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetFramer *self = GST_AFET_FRAMER (base);
  afet::FramerConfig cfg;
  cfg.framing = gst_afet_base_framing_config (in);
  cfg.energy = out->energy_index >= 0;
  cfg.max_batch = in->max_batch;
  afet::Status st = self->priv->stage.init (env->device, cfg, env->queue,
      env->stats);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "W %d S %d at %d Hz, %d floats a frame", in->W,
      in->S, in->rate, cfg.dims ());
  return TRUE;
}

static gboolean
gst_afet_framer_process (GstAfetBase * base, const GstAfetBatch * in, gint n,
    cl_mem out, gsize out_row, gchar ** why)
{
  GstAfetFramer *self = GST_AFET_FRAMER (base);
  afet::Status st = self->priv->stage.enqueue (in->host, n, out, out_row,
      in->out_first);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

static void
gst_afet_framer_release (GstAfetBase * base)
{
  GstAfetFramer *self = GST_AFET_FRAMER (base);
  self->priv->stage = afet::FramerStage ();
}

static void
gst_afet_framer_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetFramer *self = GST_AFET_FRAMER (object);
  if (gst_afet_base_set_framing_property (object, prop_id, value))
    return;
  switch (prop_id) {
    case PROP_ENERGY:
      GST_OBJECT_LOCK (self);
      self->priv->energy = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_afet_framer_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAfetFramer *self = GST_AFET_FRAMER (object);
  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return;
  switch (prop_id) {
    case PROP_ENERGY:
      GST_OBJECT_LOCK (self);
      g_value_set_boolean (value, self->priv->energy);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_afet_framer_finalize (GObject * object)
{
  delete GST_AFET_FRAMER (object)->priv;
  G_OBJECT_CLASS (gst_afet_framer_parent_class)->finalize (object);
}

static void
gst_afet_framer_class_init (GstAfetFramerClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_afet_framer_debug, "afetframer", 0,
      "afet framer");

  gobject_class->set_property = gst_afet_framer_set_property;
  gobject_class->get_property = gst_afet_framer_get_property;
  gobject_class->finalize = gst_afet_framer_finalize;

  gst_afet_base_class_install_framing_properties (gobject_class);
  g_object_class_install_property (gobject_class, PROP_ENERGY,
      g_param_spec_boolean ("energy", "Energy",
          "Append each frame's raw log energy ln(sum x^2), taken before "
          "pre-emphasis and window (HTK RAWENERGY), as column W",
          DEFAULT_ENERGY, (GParamFlags) (G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));

  gst_afet_base_class_set_element (element_class, GST_AFET_AUDIO_CAPS,
      GST_AFET_FEATURES_CAPS ("frames"), "afet framer",
      "Cuts audio into pre-emphasised, windowed frames on an OpenCL device");

  base_class->describe = gst_afet_framer_describe;
  base_class->configure = gst_afet_framer_configure;
  base_class->process = gst_afet_framer_process;
  base_class->release = gst_afet_framer_release;
}

static void
gst_afet_framer_init (GstAfetFramer * self)
{
  self->priv = new GstAfetFramerPrivate ();
}
