/* The afetplp element: PLP cepstra of mono audio on the device, as HTK's
 * HCopy or Kaldi compute them.
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
 * With preset=kaldi it computes Kaldi's compute-plp-feats instead: Kaldi's
 * mel filter bank with no floor, compression 0.33333 (unless set), each
 * Levinson-Durbin step's 1 - k^2 floored at 1e-5, c0 = max(ln error,
 * FLT_MIN), cepstral-scale, and Kaldi's columns: the raw log energy (its
 * use-energy, the default) or c0 in column 0, then c1..cN (num-ceps=12 is
 * Kaldi's --num-ceps=13); htk-compat=true moves column 0 last. lhotse and
 * Whisper have no PLP: preset=lhotse and preset=whisper are refused.
 *
 * Frames of digital silence give finite features (every channel is floored
 * at 1.0); a singular autocorrelation stops the recursion with the
 * coefficients found so far. See docs/htk-compatibility.md. Under
 * preset=kaldi an all-zero frame (NaN in Kaldi, 0/0 in Durbin) gives
 * cepstra 0 and c0 = FLT_MIN.
 *
 * With a live source, the small batches of all afetmfcc / afetplp streams
 * of one configuration in the process are computed in one launch
 * (combine-streams, on by default; results unchanged), so that one device
 * serves many live streams.
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
#include "presets.h"

GST_DEBUG_CATEGORY_STATIC (gst_afet_plp_debug);
#define GST_CAT_DEFAULT gst_afet_plp_debug

#define DEFAULT_FILTER_SHAPE afet::PlpFilterShape::MEL

/* the shared properties' words (their defaults: the preset's PLP ones,
 * HTK's PLP_0 shown) */
static const GstAfetSpectralSpec spec = {
  TRUE, "Critical-band channels, without the two copied edge bands (HTK "
      "NUMCHANS)",
  1, afet::kMaxPlpCeps, "Cepstral coefficients c1..cN (HTK NUMCEPS); "
      "may exceed lpc-order",
  "Cepstral lifter L (HTK CEPLIFTER); 0 = none",
  "Filter the power spectrum |X|^2 (HTK USEPOWER; PLP's default) "
      "instead of the magnitude",
  "Add c0 = ln(prediction error) after cN (HTK _0; in column 0 under "
      "preset=kaldi unless htk-compat)",
  "Add the log energy of each frame (HTK _E, RAWENERGY=T, "
      "ENORMALISE=F): last, or in column 0 under preset=kaldi unless "
      "htk-compat",
};

enum
{
  PROP_0,
  PROP_LPC_ORDER,
  PROP_COMPRESSION,
  PROP_FILTER_SHAPE,
  PROP_CEPSTRAL_SCALE,
};

/* filter-shape: the engine's afet::PlpFilterShape */
#define GST_TYPE_AFET_FILTER_SHAPE (gst_afet_filter_shape_get_type ())
static GType
gst_afet_filter_shape_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {(gint) afet::PlpFilterShape::MEL, "HTK's triangular mel filter bank",
        "htk-mel"},
    {(gint) afet::PlpFilterShape::BARK, "Hermansky's critical bands on the "
          "Bark scale", "bark"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetFilterShape",
            values));
  return (GType) id;
}

struct _GstAfetPlp
{
  GstAfetSpectral parent;
  /* lpc-order, compression, cepstral-scale: as set, read only where set
   * says so, else the preset's (effective_values) */
  guint lpc_order;
  gdouble compression;
  gdouble cepstral_scale;
  guint set;                    /* 1 << prop */
  afet::PlpFilterShape filter_shape;
};

/* The PLP properties a preset sets, in effect. */
struct PlpValues
{
  guint lpc_order;
  gdouble compression, cepstral_scale;
};

G_DEFINE_TYPE (GstAfetPlp, gst_afet_plp, GST_TYPE_AFET_SPECTRAL);
GST_ELEMENT_REGISTER_DEFINE (afetplp, "afetplp", GST_RANK_NONE,
    GST_TYPE_AFET_PLP);

/* The PLP properties in effect under a preset: set, or the preset's
 * (Kaldi's compress-factor under preset=kaldi). Object lock held. */
static PlpValues
effective_values (GstAfetPlp * self, GstAfetPreset preset)
{
  const afet::PresetDefaults &d =
      afet::preset_defaults ((afet::Preset) preset);
  auto pick = [self](guint prop, auto set, auto preset) {
    return (self->set & (1u << prop)) != 0 ? set : preset;
  };
  PlpValues v;
  v.lpc_order = pick (PROP_LPC_ORDER, self->lpc_order,
      (guint) d.plp.lpc_order);
  v.compression = pick (PROP_COMPRESSION, self->compression,
      d.plp.compression);
  v.cepstral_scale = pick (PROP_CEPSTRAL_SCALE, self->cepstral_scale,
      d.plp.cepstral_scale);
  return v;
}

/* Which PLP the preset of the input computes; an error naming the preset
 * for those without one. */
static afet::Status
plp_variant (GstAfetPlp * self, afet::PlpVariant * variant)
{
  const afet::PresetDefaults &d = afet::preset_defaults ((afet::Preset)
      gst_afet_spectral_input_preset (GST_AFET_SPECTRAL (self)));
  *variant = d.plp.variant;
  if (d.plp.refused)
    return afet::Status (afet::Status::BAD_CONFIG, d.plp.refused);
  return afet::Status::Ok ();
}

static afet::Status
gst_afet_plp_setup (GstAfetSpectral * base, const afet::SpectralConfig & common,
    GstAfetSpectralOutput * out, const GstAfetEnv * env,
    std::unique_ptr<afet::SpectralStage> * stage)
{
  GstAfetPlp *self = GST_AFET_PLP (base);
  afet::PlpConfig c;
  static_cast<afet::SpectralConfig &> (c) = common;
  AFET_RETURN_IF_ERROR (plp_variant (self, &c.variant));
  GST_OBJECT_LOCK (self);
  PlpValues v = effective_values (self,
      gst_afet_spectral_input_preset (base));
  c.lpc_order = (int) v.lpc_order;
  c.compression = v.compression;
  c.filter_shape = self->filter_shape;
  c.cepstral_scale = v.cepstral_scale;
  GST_OBJECT_UNLOCK (self);
  out->kind = AFET_FEATURES_KIND_PLP;
  out->dims = c.dims ();
  out->c0_index = c.c0_index ();
  out->energy_index = c.energy_index ();
  out->key = c.key ();
  if (env)
    GST_DEBUG_OBJECT (self, "%d filters, order %d", c.num_filters,
        c.lpc_order);
  return gst_afet_spectral_make_stage<afet::PlpStage> (c, env, stage);
}

static void
gst_afet_plp_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetPlp *self = GST_AFET_PLP (object);

  if (gst_afet_spectral_set_property (object, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  if (prop_id <= PROP_CEPSTRAL_SCALE)
    self->set |= 1u << prop_id;
  switch (prop_id) {
    case PROP_LPC_ORDER:
      self->lpc_order = g_value_get_uint (value);
      break;
    case PROP_COMPRESSION:
      self->compression = g_value_get_double (value);
      break;
    case PROP_FILTER_SHAPE:
      self->filter_shape = (afet::PlpFilterShape) g_value_get_enum (value);
      break;
    case PROP_CEPSTRAL_SCALE:
      self->cepstral_scale = g_value_get_double (value);
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

  if (gst_afet_spectral_get_property (object, prop_id, value))
    return;
  /* what is in effect: set, or the preset's */
  GstAfetPreset preset = gst_afet_base_get_preset (GST_AFET_BASE (self));
  GST_OBJECT_LOCK (self);
  PlpValues v = effective_values (self, preset);
  switch (prop_id) {
    case PROP_LPC_ORDER:
      g_value_set_uint (value, v.lpc_order);
      break;
    case PROP_COMPRESSION:
      g_value_set_double (value, v.compression);
      break;
    case PROP_FILTER_SHAPE:
      g_value_set_enum (value, (gint) self->filter_shape);
      break;
    case PROP_CEPSTRAL_SCALE:
      g_value_set_double (value, v.cepstral_scale);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_plp_class_init (GstAfetPlpClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetSpectralClass *spectral_class = GST_AFET_SPECTRAL_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_plp_debug, "afetplp", 0, "afet PLP");

  gobject_class->set_property = gst_afet_plp_set_property;
  gobject_class->get_property = gst_afet_plp_get_property;

  gst_afet_spectral_class_install_properties (gobject_class, &spec);
  /* the defaults shown are HTK's (the default preset) */
  const afet::PresetDefaults &htk = afet::preset_defaults (afet::Preset::HTK);
  g_object_class_install_property (gobject_class, PROP_LPC_ORDER,
      g_param_spec_uint ("lpc-order", "LPC order",
          "Order of the all-pole model (HTK LPCORDER)", 1, afet::kMaxPlpOrder,
          htk.plp.lpc_order, flags));
  g_object_class_install_property (gobject_class, PROP_COMPRESSION,
      g_param_spec_double ("compression", "Compression",
          "Intensity-loudness power law exponent (HTK COMPRESSFACT, Kaldi's "
          "compress-factor; default 0.33, under preset=kaldi 0.33333)", 0.01,
          1.0, htk.plp.compression, flags));
  g_object_class_install_property (gobject_class, PROP_FILTER_SHAPE,
      g_param_spec_enum ("filter-shape", "Filter shape",
          "Critical-band filters: HTK's mel triangles or Hermansky's Bark "
          "curves", GST_TYPE_AFET_FILTER_SHAPE, (gint) DEFAULT_FILTER_SHAPE,
          flags));
  g_object_class_install_property (gobject_class, PROP_CEPSTRAL_SCALE,
      g_param_spec_double ("cepstral-scale", "Cepstral scale",
          "Kaldi's cepstral-scale (preset=kaldi): c0..cN (not the energy) "
          "times this", -G_MAXDOUBLE, G_MAXDOUBLE, htk.plp.cepstral_scale,
          flags));

  gst_afet_base_class_set_element (element_class,
      GST_AFET_AUDIO_CAPS "; " GST_AFET_FEATURES_CAPS ("frames"),
      GST_AFET_FEATURES_CAPS ("plp"), "afet PLP",
      "HTK-exact (or Kaldi's) perceptual linear prediction cepstra on an "
      "OpenCL device");

  spectral_class->setup = gst_afet_plp_setup;

  gst_type_mark_as_plugin_api (GST_TYPE_AFET_FILTER_SHAPE,
      (GstPluginAPIFlags) 0);
}

static void
gst_afet_plp_init (GstAfetPlp * self)
{
  self->lpc_order = 0;
  self->compression = 0;
  self->cepstral_scale = 0;
  self->set = 0;
  self->filter_shape = DEFAULT_FILTER_SHAPE;
}
