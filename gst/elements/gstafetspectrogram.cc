/* The afetspectrogram element: Kaldi's compute-spectrogram-feats (log power
 * spectra, column 0 the log energy) of mono audio on the device.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetspectrogram
 * @title: afetspectrogram
 *
 * Kaldi's compute-spectrogram-feats on an OpenCL device: for each frame of
 * mono audio, the natural log of the power spectrum ln(max(|X_k|^2,
 * FLT_EPSILON)) of bins k = 0 .. N/2 (N / 2 + 1 columns, N the FFT size),
 * with column 0 replaced by the frame's log energy, as Kaldi always does:
 * the raw energy ln(max(sum x^2, FLT_EPSILON)) of the frame after DC
 * removal and before pre-emphasis and window (raw-energy=true, Kaldi's
 * default), or that of the windowed, pre-emphasised frame
 * (raw-energy=false); then at least ln(energy-floor) when energy-floor > 0.
 * Output: `kind=spectrogram`, energy-index 0.
 *
 * The framing properties apply; preset=kaldi gives Kaldi's conventions
 * (povey window, DC removal, pre-emphasis 0.97, 25/10 ms, snip-edges, FFT
 * rounded up to a power of two). Under another preset its framing applies
 * (Whisper's: a W-point FFT), while the spectrogram and its energy stay
 * Kaldi's.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=speech.wav ! wavparse ! \
 *     afetspectrogram preset=kaldi ! afetenc format=npy ! \
 *     filesink location=speech.npy
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetspectrogram.h"
#include "presets.h"
#include "spectrogram.h"

GST_DEBUG_CATEGORY_STATIC (gst_afet_spectrogram_debug);
#define GST_CAT_DEFAULT gst_afet_spectrogram_debug

/* the spectrogram and its energy are Kaldi's under every preset: so are
 * energy-floor's and raw-energy's defaults */
#define KALDI_ROW afet::preset_defaults (afet::Preset::KALDI)

enum
{
  PROP_0,
  PROP_ENERGY_FLOOR,
  PROP_RAW_ENERGY,
};

/* *INDENT-OFF* */
struct GstAfetSpectrogramPrivate
{
  gdouble energy_floor = KALDI_ROW.energy_floor;
  gboolean raw_energy = KALDI_ROW.raw_energy;
  std::unique_ptr<afet::SpectrogramStage> stage;
};
/* *INDENT-ON* */

struct _GstAfetSpectrogram
{
  GstAfetBase parent;
  GstAfetSpectrogramPrivate *priv;
};

G_DEFINE_TYPE (GstAfetSpectrogram, gst_afet_spectrogram, GST_TYPE_AFET_BASE);
GST_ELEMENT_REGISTER_DEFINE (afetspectrogram, "afetspectrogram",
    GST_RANK_NONE, GST_TYPE_AFET_SPECTROGRAM);

/* The engine config for an input: the preset's framing with Kaldi's energy
 * formula, and the element's properties. */
static afet::SpectrogramConfig
make_config (GstAfetSpectrogram * self, const GstAfetInput * in)
{
  afet::SpectrogramConfig c;
  c.framing = gst_afet_base_framing_config (in);
  c.framing.energy_mode = KALDI_ROW.energy_mode;
  GST_OBJECT_LOCK (self);
  c.framing.energy_floor = self->priv->energy_floor;
  c.raw_energy = self->priv->raw_energy;
  c.framing.energy_windowed = !c.raw_energy;
  GST_OBJECT_UNLOCK (self);
  if (afet::preset_defaults ((afet::Preset) in->preset).fft_unpadded)
    c.fft_points = in->W;
  c.max_batch = in->max_batch;
  return c;
}

static gboolean
gst_afet_spectrogram_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetSpectrogram *self = GST_AFET_SPECTROGRAM (base);
  if (!in->audio) {
    *why = g_strdup ("afetspectrogram takes audio");
    return FALSE;
  }
  afet::SpectrogramConfig c = make_config (self, in);
  afet::Status st = c.validate ();
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  afet_features_info_set_format (out, AFET_FEATURES_KIND_SPECTROGRAM,
      in->rate, in->W, in->S, c.dims (), 0);
  out->energy_index = 0;
  out->window = gst_afet_base_caps_window (in->window);
  out->preset = (AfetFeaturesPreset) in->preset;
  return TRUE;
}

static void
gst_afet_spectrogram_describe_analysis (GstAfetBase * base,
    const GstAfetInput * in, GstStructure * s)
{
  afet::SpectrogramConfig c = make_config (GST_AFET_SPECTROGRAM (base), in);
  gst_structure_set (s, "spectrum", G_TYPE_STRING, "power", "log",
      G_TYPE_STRING, "ln", nullptr);
  if (c.framing.energy_floor > 0)
    gst_structure_set (s, "energy-floor", G_TYPE_DOUBLE,
        c.framing.energy_floor, nullptr);
}

static gboolean
gst_afet_spectrogram_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetSpectrogram *self = GST_AFET_SPECTROGRAM (base);
  afet::SpectrogramConfig c = make_config (self, in);
  auto stage = std::make_unique<afet::SpectrogramStage> ();
  afet::Status st = stage->init (env->device, c, env->queue, env->stats);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  self->priv->stage = std::move (stage);
  GST_DEBUG_OBJECT (self, "W %d S %d at %d Hz, FFT %d, %d columns, %s "
      "energy", in->W, in->S, in->rate, c.fft_size (), c.dims (),
      c.raw_energy ? "raw" : "windowed");
  return TRUE;
}

static gboolean
gst_afet_spectrogram_process (GstAfetBase * base, const GstAfetBatch * in,
    gint n, cl_mem out, gsize out_row, gchar ** why)
{
  GstAfetSpectrogram *self = GST_AFET_SPECTROGRAM (base);
  afet::Status st = self->priv->stage->enqueue_samples (in->host, n, out,
      out_row, in->out_first);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

static void
gst_afet_spectrogram_release (GstAfetBase * base)
{
  GST_AFET_SPECTROGRAM (base)->priv->stage.reset ();
}

static void
gst_afet_spectrogram_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetSpectrogram *self = GST_AFET_SPECTROGRAM (object);
  if (gst_afet_base_set_framing_property (object, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ENERGY_FLOOR:
      self->priv->energy_floor = g_value_get_double (value);
      break;
    case PROP_RAW_ENERGY:
      self->priv->raw_energy = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_spectrogram_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAfetSpectrogram *self = GST_AFET_SPECTROGRAM (object);
  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ENERGY_FLOOR:
      g_value_set_double (value, self->priv->energy_floor);
      break;
    case PROP_RAW_ENERGY:
      g_value_set_boolean (value, self->priv->raw_energy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_spectrogram_finalize (GObject * object)
{
  delete GST_AFET_SPECTROGRAM (object)->priv;
  G_OBJECT_CLASS (gst_afet_spectrogram_parent_class)->finalize (object);
}

static void
gst_afet_spectrogram_class_init (GstAfetSpectrogramClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_spectrogram_debug, "afetspectrogram", 0,
      "afet spectrogram");

  gobject_class->set_property = gst_afet_spectrogram_set_property;
  gobject_class->get_property = gst_afet_spectrogram_get_property;
  gobject_class->finalize = gst_afet_spectrogram_finalize;

  gst_afet_base_class_install_framing_properties (gobject_class);
  g_object_class_install_property (gobject_class, PROP_ENERGY_FLOOR,
      g_param_spec_double ("energy-floor", "Energy floor",
          "Kaldi's energy-floor: the log energy in column 0 is at least "
          "ln(energy-floor) (0 = no floor)", 0.0, G_MAXDOUBLE,
          KALDI_ROW.energy_floor, flags));
  g_object_class_install_property (gobject_class, PROP_RAW_ENERGY,
      g_param_spec_boolean ("raw-energy", "Raw energy",
          "Kaldi's raw-energy: column 0 holds the log energy of the frame "
          "before pre-emphasis and window (after DC removal); false: that "
          "of the windowed, pre-emphasised frame", KALDI_ROW.raw_energy,
          flags));

  gst_afet_base_class_set_element (element_class, GST_AFET_AUDIO_CAPS,
      GST_AFET_FEATURES_CAPS ("spectrogram"), "afet spectrogram",
      "Kaldi's log power spectrogram (compute-spectrogram-feats) on an "
      "OpenCL device");

  base_class->describe = gst_afet_spectrogram_describe;
  base_class->describe_analysis = gst_afet_spectrogram_describe_analysis;
  base_class->configure = gst_afet_spectrogram_configure;
  base_class->process = gst_afet_spectrogram_process;
  base_class->release = gst_afet_spectrogram_release;
}

static void
gst_afet_spectrogram_init (GstAfetSpectrogram * self)
{
  self->priv = new GstAfetSpectrogramPrivate ();
}
