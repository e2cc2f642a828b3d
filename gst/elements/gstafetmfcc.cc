/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetmfcc
 * @title: afetmfcc
 *
 * Mel-frequency cepstral coefficients, or the log mel filter bank
 * (num-ceps=0), computed on an OpenCL device with HTK's algorithm: HTK's
 * in-frame pre-emphasis and window, zero-padded FFT of the next power of two,
 * magnitude (or power) spectrum without the DC and Nyquist bins, HTK's mel
 * filter bank and log floor of 1.0, DCT-II with sqrt(2/M) scaling and
 * sinusoidal lifter. Columns in HTK order: c1..cN, c0, E.
 *
 * Takes mono audio (and frames it on the device) or afetframer's frames.
 *
 * ## Example launch line (HTK's MFCC_0 with 20 ms frames at 16 kHz)
 * |[
 * gst-launch-1.0 filesrc location=speech.wav ! wavparse ! audioconvert ! \
 *     audioresample ! afetmfcc frame-length=20 num-filters=23 ! \
 *     filesink location=speech.mfcc
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetmfcc.h"
#include "stages.h"

GST_DEBUG_CATEGORY_STATIC (gst_afet_mfcc_debug);
#define GST_CAT_DEFAULT gst_afet_mfcc_debug

#define DEFAULT_NUM_FILTERS 23
#define DEFAULT_NUM_CEPS 12
#define DEFAULT_LOW_FREQ 0.0
#define DEFAULT_HIGH_FREQ 0.0
#define DEFAULT_LIFTER 22
#define DEFAULT_USE_POWER FALSE
#define DEFAULT_C0 TRUE
#define DEFAULT_ENERGY FALSE
#define DEFAULT_PRESET GST_AFET_PRESET_HTK
#define DEFAULT_DCT_METHOD GST_AFET_DCT_FUSED

enum
{
  PROP_0,
  PROP_NUM_FILTERS,
  PROP_NUM_CEPS,
  PROP_LOW_FREQ,
  PROP_HIGH_FREQ,
  PROP_LIFTER,
  PROP_USE_POWER,
  PROP_C0,
  PROP_ENERGY,
  PROP_PRESET,
  PROP_DCT_METHOD,
};

GType
gst_afet_dct_method_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_AFET_DCT_FUSED, "Filter bank, log and DCT in one kernel", "fused"},
    {GST_AFET_DCT_GEMM, "Filter-bank kernel, then a CLBlast SGEMM", "gemm"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetDctMethod",
            values));
  return (GType) id;
}

/* *INDENT-OFF* */
struct GstAfetMfccPrivate
{
  guint num_filters = DEFAULT_NUM_FILTERS;
  guint num_ceps = DEFAULT_NUM_CEPS;
  gdouble low_freq = DEFAULT_LOW_FREQ;
  gdouble high_freq = DEFAULT_HIGH_FREQ;
  guint lifter = DEFAULT_LIFTER;
  gboolean use_power = DEFAULT_USE_POWER;
  gboolean c0 = DEFAULT_C0;
  gboolean energy = DEFAULT_ENERGY;
  GstAfetPreset preset = DEFAULT_PRESET;
  GstAfetDctMethod dct_method = DEFAULT_DCT_METHOD;

  std::unique_ptr<afet::MfccStage> stage;
};
/* *INDENT-ON* */

struct _GstAfetMfcc
{
  GstAfetBase parent;
  GstAfetMfccPrivate *priv;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_AFET_AUDIO_CAPS "; "
        GST_AFET_FEATURES_CAPS ("frames")));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_AFET_FEATURES_CAPS ("{ mfcc, fbank }")));

G_DEFINE_TYPE (GstAfetMfcc, gst_afet_mfcc, GST_TYPE_AFET_BASE);
GST_ELEMENT_REGISTER_DEFINE (afetmfcc, "afetmfcc", GST_RANK_NONE,
    GST_TYPE_AFET_MFCC);

/* The engine configuration for an input and the current properties. */
static afet::MfccConfig
make_config (GstAfetMfcc * self, const GstAfetInput * in)
{
  GstAfetMfccPrivate *p = self->priv;
  afet::MfccConfig c;
  gst_afet_base_spectral_input (in, &c);
  GST_OBJECT_LOCK (self);
  c.num_filters = (int) p->num_filters;
  c.num_ceps = (int) p->num_ceps;
  c.low_freq = p->low_freq;
  c.high_freq = p->high_freq;
  c.lifter = (int) p->lifter;
  c.use_power = p->use_power;
  c.c0 = p->c0;
  c.energy = p->energy;
  c.dct = p->dct_method == GST_AFET_DCT_GEMM ? afet::DctMode::GEMM :
      afet::DctMode::FUSED;
  GST_OBJECT_UNLOCK (self);
  /* HTK: with num-ceps = 0 (FBANK) there is no c0 */
  if (c.num_ceps == 0)
    c.c0 = false;
  return c;
}

static gboolean
gst_afet_mfcc_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  afet::MfccConfig c = make_config (GST_AFET_MFCC (base), in);
  return gst_afet_base_spectral_describe (base, in, c.validate (),
      c.num_ceps > 0 ? AFET_FEATURES_KIND_MFCC : AFET_FEATURES_KIND_FBANK,
      c.dims (), c.c0_index (), c.energy_index (), out, why);
}

static gboolean
gst_afet_mfcc_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetMfcc *self = GST_AFET_MFCC (base);
  afet::MfccConfig c = make_config (self, in);
  GST_DEBUG_OBJECT (self, "%s input, W %d S %d at %d Hz, FFT %d, %d filters,"
      " %d columns, DCT %s", in->audio ? "audio" : "frames", in->W, in->S,
      in->rate, c.fft_size (), c.num_filters, c.dims (),
      c.dct == afet::DctMode::GEMM ? "gemm" : "fused");
  return gst_afet_base_spectral_configure (&self->priv->stage, env, c, why);
}

static gboolean
gst_afet_mfcc_process (GstAfetBase * base, const GstAfetBatch * in, gint n,
    cl_mem out, gsize out_row, gchar ** why)
{
  return gst_afet_base_spectral_process (GST_AFET_MFCC (base)->priv->
      stage.get (), in, n, out, out_row, why);
}

static void
gst_afet_mfcc_release (GstAfetBase * base)
{
  GST_AFET_MFCC (base)->priv->stage.reset ();
}

static void
gst_afet_mfcc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetMfcc *self = GST_AFET_MFCC (object);
  GstAfetMfccPrivate *p = self->priv;

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
    case PROP_LOW_FREQ:
      p->low_freq = g_value_get_double (value);
      break;
    case PROP_HIGH_FREQ:
      p->high_freq = g_value_get_double (value);
      break;
    case PROP_LIFTER:
      p->lifter = g_value_get_uint (value);
      break;
    case PROP_USE_POWER:
      p->use_power = g_value_get_boolean (value);
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
    case PROP_DCT_METHOD:
      p->dct_method = (GstAfetDctMethod) g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_mfcc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetMfcc *self = GST_AFET_MFCC (object);
  GstAfetMfccPrivate *p = self->priv;

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
    case PROP_LOW_FREQ:
      g_value_set_double (value, p->low_freq);
      break;
    case PROP_HIGH_FREQ:
      g_value_set_double (value, p->high_freq);
      break;
    case PROP_LIFTER:
      g_value_set_uint (value, p->lifter);
      break;
    case PROP_USE_POWER:
      g_value_set_boolean (value, p->use_power);
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
    case PROP_DCT_METHOD:
      g_value_set_enum (value, p->dct_method);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_mfcc_finalize (GObject * object)
{
  delete GST_AFET_MFCC (object)->priv;
  G_OBJECT_CLASS (gst_afet_mfcc_parent_class)->finalize (object);
}

static void
gst_afet_mfcc_class_init (GstAfetMfccClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_mfcc_debug, "afetmfcc", 0,
      "afet MFCC / filter bank");

  gobject_class->set_property = gst_afet_mfcc_set_property;
  gobject_class->get_property = gst_afet_mfcc_get_property;
  gobject_class->finalize = gst_afet_mfcc_finalize;

  gst_afet_base_class_install_framing_properties (gobject_class);
  g_object_class_install_property (gobject_class, PROP_NUM_FILTERS,
      g_param_spec_uint ("num-filters", "Filters",
          "Number of mel filter-bank channels (HTK NUMCHANS)", 1, 256,
          DEFAULT_NUM_FILTERS, flags));
  g_object_class_install_property (gobject_class, PROP_NUM_CEPS,
      g_param_spec_uint ("num-ceps", "Cepstra",
          "Cepstral coefficients c1..cN (HTK NUMCEPS); 0 = output the log "
          "mel filter bank (HTK FBANK) instead, without c0", 0, 256,
          DEFAULT_NUM_CEPS, flags));
  g_object_class_install_property (gobject_class, PROP_LOW_FREQ,
      g_param_spec_double ("low-freq", "Low cut-off",
          "Lower edge of the filter bank in Hz (HTK LOFREQ)", 0.0, 96000.0,
          DEFAULT_LOW_FREQ, flags));
  g_object_class_install_property (gobject_class, PROP_HIGH_FREQ,
      g_param_spec_double ("high-freq", "High cut-off",
          "Upper edge of the filter bank in Hz (HTK HIFREQ); 0 = Nyquist",
          0.0, 96000.0, DEFAULT_HIGH_FREQ, flags));
  g_object_class_install_property (gobject_class, PROP_LIFTER,
      g_param_spec_uint ("lifter", "Lifter",
          "Cepstral lifter L: c_j *= 1 + L/2 sin(pi j / L) (HTK CEPLIFTER); "
          "0 = none", 0, 1000, DEFAULT_LIFTER, flags));
  g_object_class_install_property (gobject_class, PROP_USE_POWER,
      g_param_spec_boolean ("use-power", "Use power",
          "Filter the power spectrum |X|^2 instead of the magnitude |X| "
          "(HTK USEPOWER)", DEFAULT_USE_POWER, flags));
  g_object_class_install_property (gobject_class, PROP_C0,
      g_param_spec_boolean ("c0", "c0",
          "Append c0 = sqrt(2/M) sum of the log filter bank after cN (HTK "
          "_0); ignored when num-ceps=0", DEFAULT_C0, flags));
  g_object_class_install_property (gobject_class, PROP_ENERGY,
      g_param_spec_boolean ("energy", "Energy",
          "Append the raw log energy ln(sum x^2) of each frame, before "
          "pre-emphasis (HTK _E with RAWENERGY=T, ENORMALISE=F). With frames "
          "input, afetframer must have energy=true", DEFAULT_ENERGY, flags));
  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset",
          "Conventions: formulas, column order and quirks of this tool",
          GST_TYPE_AFET_PRESET, DEFAULT_PRESET, flags));
  g_object_class_install_property (gobject_class, PROP_DCT_METHOD,
      g_param_spec_enum ("dct-method", "DCT method",
          "How the filter bank, log and DCT are computed on the device "
          "(same results; see docs/benchmarks.md for speed)",
          GST_TYPE_AFET_DCT_METHOD, DEFAULT_DCT_METHOD, flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "afet MFCC",
      "Filter/Analyzer/Audio",
      "HTK-exact MFCC and log mel filter bank on an OpenCL device",
      "the afet authors");

  base_class->describe = gst_afet_mfcc_describe;
  base_class->configure = gst_afet_mfcc_configure;
  base_class->process = gst_afet_mfcc_process;
  base_class->release = gst_afet_mfcc_release;

  gst_type_mark_as_plugin_api (GST_TYPE_AFET_DCT_METHOD,
      (GstPluginAPIFlags) 0);
}

static void
gst_afet_mfcc_init (GstAfetMfcc * self)
{
  self->priv = new GstAfetMfccPrivate ();
}
