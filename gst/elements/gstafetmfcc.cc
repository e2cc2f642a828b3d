/* The afetmfcc element: MFCCs, or the log mel filter bank, of mono audio on
 * the device, with HTK's, Kaldi's or the other presets' conventions.
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
 * With a live source, the small batches of all afetmfcc / afetplp streams
 * of one configuration in the process are computed in one launch
 * (combine-streams, on by default; results unchanged), so that one device
 * serves many live streams; afetdelta and afetcmvn scope=sliding do the
 * same for rows in system memory (device-memory=false).
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
#include "mfcc.h"

GST_DEBUG_CATEGORY_STATIC (gst_afet_mfcc_debug);
#define GST_CAT_DEFAULT gst_afet_mfcc_debug

#define DEFAULT_DCT_METHOD afet::DctMode::FUSED

/* the shared properties' words (their defaults: the preset's) */
static const GstAfetSpectralSpec spec = {
  FALSE, "Number of mel filter-bank channels (HTK NUMCHANS)",
  0, afet::kMaxFilters, "Cepstral coefficients c1..cN (HTK NUMCEPS); "
      "0 = output the log mel filter bank (HTK FBANK) instead, without c0",
  "Cepstral lifter L: c_j *= 1 + L/2 sin(pi j / L) (HTK CEPLIFTER); "
      "0 = none",
  "Filter the power spectrum |X|^2 instead of the magnitude |X| "
      "(HTK USEPOWER)",
  "Add c0 = sqrt(2/M) sum of the log filter bank after cN (HTK "
      "_0; in column 0 with Kaldi's sqrt(1/M) under presets kaldi and "
      "lhotse unless htk-compat); ignored when num-ceps=0",
  "Add the log energy ln(sum x^2) of each frame, before pre-emphasis "
      "(HTK _E with RAWENERGY=T, ENORMALISE=F): last, or in column 0 under "
      "presets kaldi and lhotse unless htk-compat. With frames input, "
      "afetframer must have energy=true",
};

enum
{
  PROP_0,
  PROP_DCT_METHOD,
};

/* dct-method: the engine's afet::DctMode */
#define GST_TYPE_AFET_DCT_METHOD (gst_afet_dct_method_get_type ())
static GType
gst_afet_dct_method_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {(gint) afet::DctMode::FUSED, "Filter bank, log and DCT in one kernel",
        "fused"},
    {(gint) afet::DctMode::GEMM, "Filter-bank kernel, then a CLBlast SGEMM",
        "gemm"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetDctMethod",
            values));
  return (GType) id;
}

struct _GstAfetMfcc
{
  GstAfetSpectral parent;
  afet::DctMode dct_method;
};

G_DEFINE_TYPE (GstAfetMfcc, gst_afet_mfcc, GST_TYPE_AFET_SPECTRAL);
GST_ELEMENT_REGISTER_DEFINE (afetmfcc, "afetmfcc", GST_RANK_NONE,
    GST_TYPE_AFET_MFCC);

static afet::Status
gst_afet_mfcc_setup (GstAfetSpectral * base, const afet::SpectralConfig & common,
    GstAfetSpectralOutput * out, const GstAfetEnv * env,
    std::unique_ptr<afet::SpectralStage> * stage)
{
  GstAfetMfcc *self = GST_AFET_MFCC (base);
  afet::MfccConfig c;
  static_cast<afet::SpectralConfig &> (c) = common;
  GST_OBJECT_LOCK (self);
  c.dct = self->dct_method;
  GST_OBJECT_UNLOCK (self);
  /* HTK: with num-ceps = 0 (FBANK) there is no c0 */
  if (c.num_ceps == 0)
    c.c0 = false;
  out->kind = c.num_ceps > 0 ? AFET_FEATURES_KIND_MFCC :
      AFET_FEATURES_KIND_FBANK;
  out->dims = c.dims ();
  out->c0_index = c.c0_index ();
  out->energy_index = c.energy_index ();
  out->key = c.key ();
  if (env)
    GST_DEBUG_OBJECT (self, "FFT %d, %d filters, DCT %s", c.fft_size (),
        c.num_filters, c.dct == afet::DctMode::GEMM ? "gemm" : "fused");
  return gst_afet_spectral_make_stage<afet::MfccStage> (c, env, stage);
}

static void
gst_afet_mfcc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetMfcc *self = GST_AFET_MFCC (object);

  if (gst_afet_spectral_set_property (object, prop_id, value))
    return;
  switch (prop_id) {
    case PROP_DCT_METHOD:
      GST_OBJECT_LOCK (self);
      self->dct_method = (afet::DctMode) g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_afet_mfcc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetMfcc *self = GST_AFET_MFCC (object);

  if (gst_afet_spectral_get_property (object, prop_id, value))
    return;
  switch (prop_id) {
    case PROP_DCT_METHOD:
      GST_OBJECT_LOCK (self);
      g_value_set_enum (value, (gint) self->dct_method);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_afet_mfcc_class_init (GstAfetMfccClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetSpectralClass *spectral_class = GST_AFET_SPECTRAL_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_afet_mfcc_debug, "afetmfcc", 0,
      "afet MFCC / filter bank");

  gobject_class->set_property = gst_afet_mfcc_set_property;
  gobject_class->get_property = gst_afet_mfcc_get_property;

  gst_afet_spectral_class_install_properties (gobject_class, &spec);
  g_object_class_install_property (gobject_class, PROP_DCT_METHOD,
      g_param_spec_enum ("dct-method", "DCT method",
          "How the filter bank, log and DCT are computed on the device "
          "(same results; see docs/benchmarks.md for speed)",
          GST_TYPE_AFET_DCT_METHOD, (gint) DEFAULT_DCT_METHOD,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));

  gst_afet_base_class_set_element (element_class,
      GST_AFET_AUDIO_CAPS "; " GST_AFET_FEATURES_CAPS ("frames"),
      GST_AFET_FEATURES_CAPS ("{ mfcc, fbank }"), "afet MFCC",
      "HTK-exact MFCC and log mel filter bank on an OpenCL device");

  spectral_class->setup = gst_afet_mfcc_setup;

  gst_type_mark_as_plugin_api (GST_TYPE_AFET_DCT_METHOD,
      (GstPluginAPIFlags) 0);
}

static void
gst_afet_mfcc_init (GstAfetMfcc * self)
{
  self->dct_method = DEFAULT_DCT_METHOD;
}
