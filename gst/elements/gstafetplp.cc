/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetplp
 * @title: afetplp
 *
 * Perceptual linear prediction cepstra computed on an OpenCL device as HTK's
 * HCopy computes PLP_0 / PLP_E: power spectrum, HTK's mel filter bank (or
 * Hermansky's Bark-scale critical bands) floored at 1.0, equal-loudness
 * weighting, intensity-loudness compression, the two edge bands copied
 * outward, autocorrelation by inverse DFT (a CLBlast GEMM), Levinson-Durbin
 * to an all-pole model, LPC to cepstra, cepstral lifter; c0 = ln of the
 * prediction error. Columns in HTK order: c1..cN, c0, E.
 *
 * Frames of digital silence give finite features (every channel is floored
 * at 1.0); a singular autocorrelation stops the recursion with the
 * coefficients found so far. See docs/htk-compatibility.md.
 *
 * ## Example launch line (HTK's PLP_0 at 16 kHz)
 * |[
 * gst-launch-1.0 filesrc location=speech.wav ! wavparse ! audioconvert ! \
 *     audioresample ! afetplp frame-length=20 ! filesink location=speech.plp
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetplp.h"
#include "plp.h"

GST_DEBUG_CATEGORY_STATIC (gst_afet_plp_debug);
#define GST_CAT_DEFAULT gst_afet_plp_debug

#define DEFAULT_NUM_FILTERS 23
#define DEFAULT_NUM_CEPS 12
#define DEFAULT_LPC_ORDER 12
#define DEFAULT_COMPRESSION 0.33
#define DEFAULT_LOW_FREQ 0.0
#define DEFAULT_HIGH_FREQ 0.0
#define DEFAULT_USE_POWER TRUE
#define DEFAULT_LIFTER 22
#define DEFAULT_C0 TRUE
#define DEFAULT_ENERGY FALSE
#define DEFAULT_PRESET GST_AFET_PRESET_HTK
#define DEFAULT_FILTER_SHAPE GST_AFET_FILTER_SHAPE_HTK_MEL

enum
{
  PROP_0,
  PROP_NUM_FILTERS,
  PROP_NUM_CEPS,
  PROP_LPC_ORDER,
  PROP_COMPRESSION,
  PROP_LOW_FREQ,
  PROP_HIGH_FREQ,
  PROP_USE_POWER,
  PROP_LIFTER,
  PROP_C0,
  PROP_ENERGY,
  PROP_PRESET,
  PROP_FILTER_SHAPE,
};

GType
gst_afet_filter_shape_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_AFET_FILTER_SHAPE_HTK_MEL, "HTK's triangular mel filter bank",
        "htk-mel"},
    {GST_AFET_FILTER_SHAPE_BARK, "Hermansky's critical bands on the Bark "
          "scale", "bark"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetFilterShape",
            values));
  return (GType) id;
}

/* *INDENT-OFF* */
struct GstAfetPlpPrivate
{
  guint num_filters = DEFAULT_NUM_FILTERS;
  guint num_ceps = DEFAULT_NUM_CEPS;
  guint lpc_order = DEFAULT_LPC_ORDER;
  gdouble compression = DEFAULT_COMPRESSION;
  gdouble low_freq = DEFAULT_LOW_FREQ;
  gdouble high_freq = DEFAULT_HIGH_FREQ;
  gboolean use_power = DEFAULT_USE_POWER;
  guint lifter = DEFAULT_LIFTER;
  gboolean c0 = DEFAULT_C0;
  gboolean energy = DEFAULT_ENERGY;
  GstAfetPreset preset = DEFAULT_PRESET;
  GstAfetFilterShape filter_shape = DEFAULT_FILTER_SHAPE;

  std::unique_ptr<afet::PlpStage> stage;
};
/* *INDENT-ON* */

struct _GstAfetPlp
{
  GstAfetBase parent;
  GstAfetPlpPrivate *priv;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_AFET_AUDIO_CAPS "; "
        GST_AFET_FEATURES_CAPS ("frames")));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_AFET_FEATURES_CAPS
        ("plp")));

G_DEFINE_TYPE (GstAfetPlp, gst_afet_plp, GST_TYPE_AFET_BASE);
GST_ELEMENT_REGISTER_DEFINE (afetplp, "afetplp", GST_RANK_NONE,
    GST_TYPE_AFET_PLP);

static afet::PlpConfig
make_config (GstAfetPlp * self, const GstAfetInput * in)
{
  GstAfetPlpPrivate *p = self->priv;
  afet::PlpConfig c;
  gst_afet_base_spectral_input (in, &c);
  GST_OBJECT_LOCK (self);
  c.num_filters = (int) p->num_filters;
  c.num_ceps = (int) p->num_ceps;
  c.lpc_order = (int) p->lpc_order;
  c.compression = p->compression;
  c.low_freq = p->low_freq;
  c.high_freq = p->high_freq;
  c.use_power = p->use_power;
  c.lifter = (int) p->lifter;
  c.c0 = p->c0;
  c.energy = p->energy;
  c.filter_shape = p->filter_shape == GST_AFET_FILTER_SHAPE_BARK ?
      afet::PlpFilterShape::BARK : afet::PlpFilterShape::MEL;
  GST_OBJECT_UNLOCK (self);
  return c;
}

static gboolean
gst_afet_plp_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  afet::PlpConfig c = make_config (GST_AFET_PLP (base), in);
  return gst_afet_base_spectral_describe (base, in, c.validate (),
      AFET_FEATURES_KIND_PLP, c.dims (), c.c0_index (), c.energy_index (),
      out, why);
}

static gboolean
gst_afet_plp_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetPlp *self = GST_AFET_PLP (base);
  afet::PlpConfig c = make_config (self, in);
  GST_DEBUG_OBJECT (self, "%s input, W %d S %d at %d Hz, %d filters, order "
      "%d, %d columns", in->audio ? "audio" : "frames", in->W, in->S,
      in->rate, c.num_filters, c.lpc_order, c.dims ());
  return gst_afet_base_spectral_configure (&self->priv->stage, env, c, why);
}

static gboolean
gst_afet_plp_process (GstAfetBase * base, const GstAfetBatch * in, gint n,
    cl_mem out, gsize out_row, gchar ** why)
{
  return gst_afet_base_spectral_process (GST_AFET_PLP (base)->priv->
      stage.get (), in, n, out, out_row, why);
}

static void
gst_afet_plp_release (GstAfetBase * base)
{
  GST_AFET_PLP (base)->priv->stage.reset ();
}

static void
gst_afet_plp_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetPlp *self = GST_AFET_PLP (object);
  GstAfetPlpPrivate *p = self->priv;
  if (gst_afet_base_set_framing_property (object, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_NUM_FILTERS:
      p->num_filters = g_value_get_uint (value);
      break;
    case PROP_NUM_CEPS:
      p->num_ceps = g_value_get_uint (value);
      break;
    case PROP_LPC_ORDER:
      p->lpc_order = g_value_get_uint (value);
      break;
    case PROP_COMPRESSION:
      p->compression = g_value_get_double (value);
      break;
    case PROP_LOW_FREQ:
      p->low_freq = g_value_get_double (value);
      break;
    case PROP_HIGH_FREQ:
      p->high_freq = g_value_get_double (value);
      break;
    case PROP_USE_POWER:
      p->use_power = g_value_get_boolean (value);
      break;
    case PROP_LIFTER:
      p->lifter = g_value_get_uint (value);
      break;
    case PROP_C0:
      p->c0 = g_value_get_boolean (value);
      break;
    case PROP_ENERGY:
      p->energy = g_value_get_boolean (value);
      break;
    case PROP_PRESET:
      p->preset = (GstAfetPreset) g_value_get_enum (value);
      break;
    case PROP_FILTER_SHAPE:
      p->filter_shape = (GstAfetFilterShape) g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_plp_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetPlp *self = GST_AFET_PLP (object);
  GstAfetPlpPrivate *p = self->priv;
  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_NUM_FILTERS:
      g_value_set_uint (value, p->num_filters);
      break;
    case PROP_NUM_CEPS:
      g_value_set_uint (value, p->num_ceps);
      break;
    case PROP_LPC_ORDER:
      g_value_set_uint (value, p->lpc_order);
      break;
    case PROP_COMPRESSION:
      g_value_set_double (value, p->compression);
      break;
    case PROP_LOW_FREQ:
      g_value_set_double (value, p->low_freq);
      break;
    case PROP_HIGH_FREQ:
      g_value_set_double (value, p->high_freq);
      break;
    case PROP_USE_POWER:
      g_value_set_boolean (value, p->use_power);
      break;
    case PROP_LIFTER:
      g_value_set_uint (value, p->lifter);
      break;
    case PROP_C0:
      g_value_set_boolean (value, p->c0);
      break;
    case PROP_ENERGY:
      g_value_set_boolean (value, p->energy);
      break;
    case PROP_PRESET:
      g_value_set_enum (value, p->preset);
      break;
    case PROP_FILTER_SHAPE:
      g_value_set_enum (value, p->filter_shape);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_plp_finalize (GObject * object)
{
  delete GST_AFET_PLP (object)->priv;
  G_OBJECT_CLASS (gst_afet_plp_parent_class)->finalize (object);
}

static void
gst_afet_plp_class_init (GstAfetPlpClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_plp_debug, "afetplp", 0, "afet PLP");

  gobject_class->set_property = gst_afet_plp_set_property;
  gobject_class->get_property = gst_afet_plp_get_property;
  gobject_class->finalize = gst_afet_plp_finalize;

  gst_afet_base_class_install_framing_properties (gobject_class);
  g_object_class_install_property (gobject_class, PROP_NUM_FILTERS,
      g_param_spec_uint ("num-filters", "Filters",
          "Critical-band channels, without the two copied edge bands (HTK "
          "NUMCHANS)", 1, 256, DEFAULT_NUM_FILTERS, flags));
  g_object_class_install_property (gobject_class, PROP_NUM_CEPS,
      g_param_spec_uint ("num-ceps", "Cepstra",
          "Cepstral coefficients c1..cN (HTK NUMCEPS); may exceed lpc-order",
          1, 64, DEFAULT_NUM_CEPS, flags));
  g_object_class_install_property (gobject_class, PROP_LPC_ORDER,
      g_param_spec_uint ("lpc-order", "LPC order",
          "Order of the all-pole model (HTK LPCORDER)", 1, 64,
          DEFAULT_LPC_ORDER, flags));
  g_object_class_install_property (gobject_class, PROP_COMPRESSION,
      g_param_spec_double ("compression", "Compression",
          "Intensity-loudness power law exponent (HTK COMPRESSFACT)", 0.01,
          1.0, DEFAULT_COMPRESSION, flags));
  g_object_class_install_property (gobject_class, PROP_LOW_FREQ,
      g_param_spec_double ("low-freq", "Low cut-off",
          "Lower edge of the filter bank in Hz (HTK LOFREQ)", 0.0, 96000.0,
          DEFAULT_LOW_FREQ, flags));
  g_object_class_install_property (gobject_class, PROP_HIGH_FREQ,
      g_param_spec_double ("high-freq", "High cut-off",
          "Upper edge of the filter bank in Hz (HTK HIFREQ); 0 = Nyquist",
          0.0, 96000.0, DEFAULT_HIGH_FREQ, flags));
  g_object_class_install_property (gobject_class, PROP_USE_POWER,
      g_param_spec_boolean ("use-power", "Use power",
          "Filter the power spectrum |X|^2 (HTK USEPOWER; PLP's default) "
          "instead of the magnitude", DEFAULT_USE_POWER, flags));
  g_object_class_install_property (gobject_class, PROP_LIFTER,
      g_param_spec_uint ("lifter", "Lifter",
          "Cepstral lifter L (HTK CEPLIFTER); 0 = none", 0, 1000,
          DEFAULT_LIFTER, flags));
  g_object_class_install_property (gobject_class, PROP_C0,
      g_param_spec_boolean ("c0", "c0",
          "Append c0 = ln(prediction error) after cN (HTK _0)", DEFAULT_C0,
          flags));
  g_object_class_install_property (gobject_class, PROP_ENERGY,
      g_param_spec_boolean ("energy", "Energy",
          "Append the raw log energy of each frame (HTK _E, RAWENERGY=T, "
          "ENORMALISE=F)", DEFAULT_ENERGY, flags));
  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset",
          "Conventions: formulas, column order and quirks of this tool",
          GST_TYPE_AFET_PRESET, DEFAULT_PRESET, flags));
  g_object_class_install_property (gobject_class, PROP_FILTER_SHAPE,
      g_param_spec_enum ("filter-shape", "Filter shape",
          "Critical-band filters: HTK's mel triangles or Hermansky's Bark "
          "curves", GST_TYPE_AFET_FILTER_SHAPE, DEFAULT_FILTER_SHAPE, flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "afet PLP",
      "Filter/Analyzer/Audio",
      "HTK-exact perceptual linear prediction cepstra on an OpenCL device",
      "the afet authors");

  base_class->describe = gst_afet_plp_describe;
  base_class->configure = gst_afet_plp_configure;
  base_class->process = gst_afet_plp_process;
  base_class->release = gst_afet_plp_release;

  gst_type_mark_as_plugin_api (GST_TYPE_AFET_FILTER_SHAPE,
      (GstPluginAPIFlags) 0);
}

static void
gst_afet_plp_init (GstAfetPlp * self)
{
  self->priv = new GstAfetPlpPrivate ();
}
