/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* GstAfetSpectral (see gstafetspectral.h): what afetmfcc, afetplp and the
 * spectral kinds to come share, written once. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetspectral.h"

#include "combine.h"

/* the base class' category: this is the base of the spectral elements */
GST_DEBUG_CATEGORY_EXTERN (gst_afet_base_debug);
#define GST_CAT_DEFAULT gst_afet_base_debug

#define DEFAULT_LOW_FREQ 0.0
#define DEFAULT_HIGH_FREQ 0.0
#define DEFAULT_PRESET GST_AFET_PRESET_HTK
#define DEFAULT_COMBINE_STREAMS TRUE
/* batches this small (live input) go through the shared combiner */
#define COMBINE_MAX_FRAMES 64
/* the most frames a combined launch computes at once */
#define COMBINE_LAUNCH_FRAMES 4096

/* after the framing properties (0x1000..), before the subclass' own */
enum
{
  PROP_SPECTRAL_FIRST = 0x2000,
  PROP_NUM_FILTERS = PROP_SPECTRAL_FIRST,
  PROP_NUM_CEPS,
  PROP_LOW_FREQ,
  PROP_HIGH_FREQ,
  PROP_LIFTER,
  PROP_USE_POWER,
  PROP_C0,
  PROP_ENERGY,
  PROP_PRESET,
  PROP_COMBINE_STREAMS,
  PROP_MERGED_BATCHES,
};

/* *INDENT-OFF* */
struct GstAfetSpectralState
{
  guint num_filters = 0;
  guint num_ceps = 0;
  gdouble low_freq = DEFAULT_LOW_FREQ;
  gdouble high_freq = DEFAULT_HIGH_FREQ;
  guint lifter = 0;
  gboolean use_power = FALSE;
  gboolean c0 = FALSE;
  gboolean energy = FALSE;
  GstAfetPreset preset = DEFAULT_PRESET;
  gboolean combine_streams = DEFAULT_COMBINE_STREAMS;

  std::unique_ptr<afet::SpectralStage> stage;
  /* audio input: small batches through the process' combiner for this
   * configuration (whole frames copied into frames) */
  std::shared_ptr<afet::StageCombiner> combiner;
  std::vector<guint8> frames;
  afet::TransferStats *stats = nullptr;
  guint64 merged_batches = 0;   /* under the object lock */
};
/* *INDENT-ON* */

typedef struct
{
  GstAfetSpectralState *state;  /* C++ state: new in init, delete in finalize */
} GstAfetSpectralPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstAfetSpectral, gst_afet_spectral,
    GST_TYPE_AFET_BASE);

#define STATE(self) (((GstAfetSpectralPrivate *) \
      gst_afet_spectral_get_instance_private (GST_AFET_SPECTRAL (self)))->state)

/* The engine config for an input: the input's part and the shared
 * properties. */
static afet::SpectralConfig
common_config (GstAfetSpectral * self, const GstAfetInput * in)
{
  GstAfetSpectralState *p = STATE (self);
  afet::SpectralConfig c;
  c.framing = gst_afet_base_framing_config (in);
  c.max_batch = in->max_batch;
  c.frames_input = !in->audio;
  c.input_has_energy = !in->audio && in->features.energy_index == in->W;
  GST_OBJECT_LOCK (self);
  c.num_filters = (int) p->num_filters;
  c.num_ceps = (int) p->num_ceps;
  c.low_freq = p->low_freq;
  c.high_freq = p->high_freq;
  c.lifter = (int) p->lifter;
  c.use_power = p->use_power;
  c.c0 = p->c0;
  c.energy = p->energy;
  GST_OBJECT_UNLOCK (self);
  return c;
}

static afet::Status
setup (GstAfetSpectral * self, const GstAfetInput * in,
    GstAfetSpectralOutput * out, const GstAfetEnv * env)
{
  GstAfetSpectralClass *klass = GST_AFET_SPECTRAL_GET_CLASS (self);
  return klass->setup (self, common_config (self, in), out, env,
      &STATE (self)->stage);
}

static gboolean
gst_afet_spectral_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetSpectral *self = GST_AFET_SPECTRAL (base);
  if (!gst_afet_base_check_frames_input (base, in, why))
    return FALSE;
  GstAfetSpectralOutput o;
  afet::Status st = setup (self, in, &o, nullptr);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  afet_features_info_set_format (out, o.kind, in->rate, in->W, in->S, o.dims,
      0);
  out->c0_index = o.c0_index;
  out->energy_index = o.energy_index;
  out->window = gst_afet_base_caps_window (in->window);
  GST_OBJECT_LOCK (self);
  out->preset = (AfetFeaturesPreset) STATE (self)->preset;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* The process' combiner for this input's configuration: the same config
 * with S = W (frames come whole), its stage on a queue of its own. */
static afet::Status
get_combiner (GstAfetSpectral * self, const GstAfetInput * in,
    const GstAfetEnv * env, std::shared_ptr<afet::StageCombiner> *out)
{
  GstAfetSpectralClass *klass = GST_AFET_SPECTRAL_GET_CLASS (self);
  afet::SpectralConfig c = common_config (self, in);
  c.framing.S = c.framing.W;
  GstAfetSpectralOutput o;
  AFET_RETURN_IF_ERROR (klass->setup (self, c, &o, nullptr, nullptr));
  /* the launch size of every stream that shares it, not this element's
   * max-batch: the default, or what the device allocates (rows of the
   * FFT, twice, as the base class counts them) */
  const size_t row_floats = (size_t) MAX (o.dims,
      afet::next_pow2 (c.framing.W) + 2);
  c.max_batch = env->device->info ().batch_limit (2 * row_floats *
      sizeof (float), COMBINE_LAUNCH_FRAMES);
  GstAfetEnv own;
  own.device = env->device;
  return afet::StageCombiner::get (env->device, o.key,
      [&](std::unique_ptr<afet::SpectralStage> *stage) {
        GstAfetSpectralOutput unused;
        return klass->setup (self, c, &unused, &own, stage);
      }, out);
}

static gboolean
gst_afet_spectral_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetSpectral *self = GST_AFET_SPECTRAL (base);
  GstAfetSpectralState *p = STATE (self);
  GstAfetSpectralOutput o;
  afet::Status st = setup (self, in, &o, env);
  GST_OBJECT_LOCK (self);
  gboolean combine = p->combine_streams;
  GST_OBJECT_UNLOCK (self);
  p->combiner.reset ();
  p->stats = env->stats;
  if (st.ok () && in->audio && combine)
    st = get_combiner (self, in, env, &p->combiner);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "%s input, W %d S %d at %d Hz, %s of %d columns",
      in->audio ? "audio" : "frames", in->W, in->S, in->rate,
      afet_features_kind_to_string (o.kind), o.dims);
  return TRUE;
}

static gboolean
gst_afet_spectral_process (GstAfetBase * base, const GstAfetBatch * in,
    gint n, cl_mem out, gsize out_row, gchar ** why)
{
  afet::SpectralStage *stage = STATE (base)->stage.get ();
  afet::Status st = stage->spectral ().frames_input ?
      stage->enqueue_frames ((const float *) in->host, in->device,
      in->in_row, n, out,
      out_row) : stage->enqueue_samples (in->host, n, out, out_row);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

/* Small batches of audio (live input) through the shared combiner: one
 * launch for the frames of every stream of this configuration that is
 * waiting at the moment. */
static gboolean
gst_afet_spectral_process_host (GstAfetBase * base, const GstAfetBatch * in,
    gint n, float *out, gboolean * handled, gchar ** why)
{
  GstAfetSpectralState *p = STATE (base);
  afet::StageCombiner *combiner = p->combiner.get ();
  if (!combiner || n > COMBINE_MAX_FRAMES)
    return TRUE;
  const afet::FramingConfig & f = p->stage->spectral ().framing;
  const size_t unit = f.sample_bytes ();
  const size_t frame_bytes = (size_t) f.W * unit;
  p->frames.resize ((size_t) n * frame_bytes);
  for (gint t = 0; t < n; t++)
    memcpy (p->frames.data () + (size_t) t * frame_bytes,
        (const guint8 *) in->host + (size_t) t * f.S * unit, frame_bytes);
  bool merged = false;
  afet::Status st = combiner->compute (p->frames.data (), n, out, &merged);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  /* this element's share of the combined copies */
  if (p->stats) {
    p->stats->uploads++;
    p->stats->upload_bytes += (uint64_t) n * frame_bytes;
    p->stats->downloads++;
    p->stats->download_bytes += (uint64_t) n * combiner->dims () *
        sizeof (float);
  }
  if (merged) {
    GST_OBJECT_LOCK (base);
    p->merged_batches++;
    GST_OBJECT_UNLOCK (base);
  }
  *handled = TRUE;
  return TRUE;
}

static void
gst_afet_spectral_release (GstAfetBase * base)
{
  STATE (base)->stage.reset ();
  STATE (base)->combiner.reset ();
}

void
gst_afet_spectral_class_install_properties (GObjectClass * klass,
    const GstAfetSpectralSpec * spec)
{
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_AFET_SPECTRAL_CLASS (klass)->spec = spec;
  gst_afet_base_class_install_framing_properties (klass);
  g_object_class_install_property (klass, PROP_NUM_FILTERS,
      g_param_spec_uint ("num-filters", "Filters", spec->num_filters_blurb,
          1, afet::kMaxFilters, spec->num_filters, flags));
  g_object_class_install_property (klass, PROP_NUM_CEPS,
      g_param_spec_uint ("num-ceps", "Cepstra", spec->num_ceps_blurb,
          spec->min_ceps, spec->max_ceps, spec->num_ceps, flags));
  g_object_class_install_property (klass, PROP_LOW_FREQ,
      g_param_spec_double ("low-freq", "Low cut-off",
          "Lower edge of the filter bank in Hz (HTK LOFREQ)", 0.0, 96000.0,
          DEFAULT_LOW_FREQ, flags));
  g_object_class_install_property (klass, PROP_HIGH_FREQ,
      g_param_spec_double ("high-freq", "High cut-off",
          "Upper edge of the filter bank in Hz (HTK HIFREQ); 0 = Nyquist",
          0.0, 96000.0, DEFAULT_HIGH_FREQ, flags));
  g_object_class_install_property (klass, PROP_LIFTER,
      g_param_spec_uint ("lifter", "Lifter", spec->lifter_blurb, 0, 1000,
          spec->lifter, flags));
  g_object_class_install_property (klass, PROP_USE_POWER,
      g_param_spec_boolean ("use-power", "Use power", spec->use_power_blurb,
          spec->use_power, flags));
  g_object_class_install_property (klass, PROP_C0,
      g_param_spec_boolean ("c0", "c0", spec->c0_blurb, spec->c0, flags));
  g_object_class_install_property (klass, PROP_ENERGY,
      g_param_spec_boolean ("energy", "Energy", spec->energy_blurb,
          spec->energy, flags));
  g_object_class_install_property (klass, PROP_COMBINE_STREAMS,
      g_param_spec_boolean ("combine-streams", "Combine streams",
          "Compute small batches of audio (live input) in one launch with "
          "those of the other afet streams of the same configuration in "
          "this process, for many streams on one device (results "
          "unchanged)", DEFAULT_COMBINE_STREAMS, flags));
  g_object_class_install_property (klass, PROP_MERGED_BATCHES,
      g_param_spec_uint64 ("merged-batches", "Merged batches",
          "Batches of this element computed in one launch with other "
          "streams' frames so far", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (klass, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset",
          "Conventions: formulas, column order and quirks of this tool "
          "(the caps' preset field)", GST_TYPE_AFET_PRESET, DEFAULT_PRESET,
          flags));
}

gboolean
gst_afet_spectral_set_property (GObject * object, guint prop_id,
    const GValue * value)
{
  GstAfetSpectralState *p = STATE (object);
  gboolean handled = TRUE;

  if (gst_afet_base_set_framing_property (object, prop_id, value))
    return TRUE;
  GST_OBJECT_LOCK (object);
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
    case PROP_COMBINE_STREAMS:
      p->combine_streams = g_value_get_boolean (value);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (object);
  return handled;
}

gboolean
gst_afet_spectral_get_property (GObject * object, guint prop_id,
    GValue * value)
{
  GstAfetSpectralState *p = STATE (object);
  gboolean handled = TRUE;

  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return TRUE;
  GST_OBJECT_LOCK (object);
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
    case PROP_COMBINE_STREAMS:
      g_value_set_boolean (value, p->combine_streams);
      break;
    case PROP_MERGED_BATCHES:
      g_value_set_uint64 (value, p->merged_batches);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (object);
  return handled;
}

/* The subclass' defaults: its class is known here, not in instance init. */
static void
gst_afet_spectral_constructed (GObject * object)
{
  const GstAfetSpectralSpec *spec = GST_AFET_SPECTRAL_GET_CLASS (object)->spec;
  GstAfetSpectralState *p = STATE (object);

  p->num_filters = spec->num_filters;
  p->num_ceps = spec->num_ceps;
  p->lifter = spec->lifter;
  p->use_power = spec->use_power;
  p->c0 = spec->c0;
  p->energy = spec->energy;
  G_OBJECT_CLASS (gst_afet_spectral_parent_class)->constructed (object);
}

static void
gst_afet_spectral_finalize (GObject * object)
{
  delete STATE (object);
  G_OBJECT_CLASS (gst_afet_spectral_parent_class)->finalize (object);
}

static void
gst_afet_spectral_class_init (GstAfetSpectralClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);

  gobject_class->constructed = gst_afet_spectral_constructed;
  gobject_class->finalize = gst_afet_spectral_finalize;
  base_class->describe = gst_afet_spectral_describe;
  base_class->configure = gst_afet_spectral_configure;
  base_class->process = gst_afet_spectral_process;
  base_class->release = gst_afet_spectral_release;
  base_class->process_host = gst_afet_spectral_process_host;
  gst_type_mark_as_plugin_api (GST_TYPE_AFET_SPECTRAL, (GstPluginAPIFlags) 0);
}

static void
gst_afet_spectral_init (GstAfetSpectral * self)
{
  ((GstAfetSpectralPrivate *) gst_afet_spectral_get_instance_private (self))->
      state = new GstAfetSpectralState ();
}
