/* GstAfetSpectral, the base class of the elements on an engine spectral stage
 * (afetmfcc, afetplp): their shared properties and what a subclass provides.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetbase.h"

#include <memory>
#include <string>

G_BEGIN_DECLS

/* GstAfetSpectral: the elements on an afet::SpectralStage (afetmfcc,
 * afetplp, and the kinds to come). It owns what they share: the framing
 * properties, the filter-bank and cepstrum properties (num-filters,
 * num-ceps, low-freq, high-freq, lifter, use-power, c0, energy, preset),
 * the stage, and describe / configure / process / release. A subclass
 * installs the shared properties with its own defaults and words
 * (gst_afet_spectral_class_install_properties), forwards them from its
 * set/get_property, and implements @setup. */
#define GST_TYPE_AFET_SPECTRAL (gst_afet_spectral_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstAfetSpectral, gst_afet_spectral, GST,
    AFET_SPECTRAL, GstAfetBase);

G_END_DECLS

/* What differs between the kinds' shared properties: the range of
 * num-ceps and the blurbs that speak of the kind. Their defaults are the
 * preset's (presets.h; HTK's shown), PLP's where they differ (plp). */
struct GstAfetSpectralSpec
{
  gboolean plp;
  const gchar *num_filters_blurb;
  guint min_ceps, max_ceps;
  const gchar *num_ceps_blurb;
  const gchar *lifter_blurb;
  const gchar *use_power_blurb;
  const gchar *c0_blurb;
  const gchar *energy_blurb;
};

/* The output of a kind for one configuration. */
struct GstAfetSpectralOutput
{
  AfetFeaturesKind kind = AFET_FEATURES_KIND_UNKNOWN;
  gint dims = 0;
  gint c0_index = -1;
  gint energy_index = -1;
  std::string key;              /* the config's key () (equal: same rows) */
};

/**
 * GstAfetSpectralClass:
 * @spec: set by gst_afet_spectral_class_install_properties()
 * @setup: completes @c (the input's part and the shared properties, filled
 *   in) with the element's own properties, fills @out, and returns whether
 *   the configuration is valid; when @env is not NULL, also makes the
 *   kind's stage on it into *@stage (gst_afet_spectral_make_stage does
 *   both ends of this).
 */
struct _GstAfetSpectralClass
{
  GstAfetBaseClass parent_class;

  const GstAfetSpectralSpec *spec;
  afet::Status (*setup) (GstAfetSpectral * self,
      const afet::SpectralConfig & c, GstAfetSpectralOutput * out,
      const GstAfetEnv * env, std::unique_ptr<afet::SpectralStage> * stage);
};

/* The preset in effect for the input being set up (the element's, or its
 * frames' when it has none of its own): valid inside @setup. */
GstAfetPreset gst_afet_spectral_input_preset (GstAfetSpectral * self);

/* Installs the framing and the shared spectral properties on a subclass,
 * with the defaults and words of @spec (static: it is kept). */
void gst_afet_spectral_class_install_properties (GObjectClass * klass,
    const GstAfetSpectralSpec * spec);
/* The subclass' set/get_property forward to these first; FALSE for
 * properties of its own. */
gboolean gst_afet_spectral_set_property (GObject * object, guint prop_id,
    const GValue * value);
gboolean gst_afet_spectral_get_property (GObject * object, guint prop_id,
    GValue * value);

/* The end of a @setup: @c's validity, and with @env, a Stage made from it
 * on env's device, queue and counters. */
template <typename Stage, typename Config>
afet::Status
gst_afet_spectral_make_stage (const Config & c, const GstAfetEnv * env,
    std::unique_ptr<afet::SpectralStage> * stage)
{
  if (env == nullptr)
    return c.validate ();
  auto s = std::make_unique<Stage> ();
  AFET_RETURN_IF_ERROR (s->init (env->device, c, env->queue, env->stats));
  *stage = std::move (s);
  return afet::Status::Ok ();
}
