/* GstAfetSpectral (see gstafetspectral.h): what afetmfcc, afetplp and the
 * spectral kinds to come share, written once.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetspectral.h"

#include "clamp.h"
#include "combine.h"
#include "presets.h"

#include <atomic>

/* the base class' category: this is the base of the spectral elements */
GST_DEBUG_CATEGORY_EXTERN (gst_afet_base_debug);
#define GST_CAT_DEFAULT gst_afet_base_debug

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
  PROP_HTK_COMPAT,
  PROP_ENERGY_FLOOR,
  PROP_CLAMP,
  PROP_WARP_FACTOR,
  PROP_WARP_LOW,
  PROP_WARP_HIGH,
  PROP_RAW_ENERGY,
  PROP_SPECTRAL_LAST = PROP_RAW_ENERGY, /* the ones a preset sets */
};

/* clamp: Whisper's dynamic-range clamp of the log-mel values */
typedef enum
{
  GST_AFET_CLAMP_NONE = 0,
  GST_AFET_CLAMP_UTTERANCE = 1 + (int) afet::ClampScope::UTTERANCE,
  GST_AFET_CLAMP_RUNNING = 1 + (int) afet::ClampScope::RUNNING,
} GstAfetClamp;

#define GST_TYPE_AFET_CLAMP (gst_afet_clamp_get_type ())
static GType
gst_afet_clamp_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_AFET_CLAMP_NONE, "No clamp", "none"},
    {GST_AFET_CLAMP_UTTERANCE, "Clamp at the maximum of the run (until EOS "
          "or DISCONT) - 8, as Whisper does; output waits for the run's end",
        "utterance"},
    {GST_AFET_CLAMP_RUNNING, "Clamp at the maximum so far - 8 (live input; "
          "equal to utterance from the frame with the run's maximum on)",
        "running"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetClamp", values));
  return (GType) id;
}

/* The shared properties in effect for a preset: those set, else the
 * preset's (presets.h). */
struct SpectralValues
{
  guint num_filters, num_ceps;
  gdouble low_freq, high_freq;
  guint lifter;
  gboolean use_power, c0, energy, htk_compat;
  gdouble energy_floor;
  GstAfetClamp clamp;
  gdouble warp, warp_low, warp_high;
  gboolean raw_energy;
};

/* *INDENT-OFF* */
struct GstAfetSpectralState
{
  /* the properties as set: read only where set says so, the others are
   * the preset's (effective_values) */
  guint num_filters = 0;
  guint num_ceps = 0;
  gdouble low_freq = 0, high_freq = 0;
  guint lifter = 0;
  gboolean use_power = FALSE;
  gboolean c0 = FALSE;
  gboolean energy = FALSE;
  gboolean htk_compat = FALSE;
  gdouble energy_floor = 0;
  GstAfetClamp clamp = GST_AFET_CLAMP_NONE;
  gdouble warp = 0, warp_low = 0, warp_high = 0;
  gboolean raw_energy = FALSE;
  guint set = 0;                /* 1 << (prop - PROP_SPECTRAL_FIRST) */
  /* the preset of the input being set up (gst_afet_spectral_input_preset) */
  std::atomic<int> input_preset {GST_AFET_PRESET_HTK};

  std::unique_ptr<afet::SpectralStage> stage;
  std::unique_ptr<afet::ClampStage> clamp_stage;  /* clamp != none */
  /* audio input: small batches through the process' combiner for this
   * configuration (whole frames copied into frames) */
  std::shared_ptr<afet::SpectralCombiner> combiner;
  std::vector<guint8> frames;
  afet::TransferStats *stats = nullptr;
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

/* The preset's row of the engine's table. */
static const afet::PresetDefaults &
preset_row (GstAfetPreset preset)
{
  return afet::preset_defaults ((afet::Preset) preset);
}

/* The shared properties in effect under a preset. Object lock held. */
static void
effective_values (GstAfetSpectral * self, GstAfetPreset preset,
    SpectralValues * v)
{
  const GstAfetSpectralSpec *spec = GST_AFET_SPECTRAL_GET_CLASS (self)->spec;
  GstAfetSpectralState *p = STATE (self);
  const afet::PresetDefaults &d = preset_row (preset);
  auto pick = [p](guint prop, auto set, auto preset) {
    return (p->set & (1u << (prop - PROP_SPECTRAL_FIRST))) != 0 ? set :
        preset;
  };
  v->num_ceps = pick (PROP_NUM_CEPS, p->num_ceps, (guint) d.num_ceps);
  v->num_filters = pick (PROP_NUM_FILTERS, p->num_filters,
      (guint) d.filters ((int) v->num_ceps));
  v->low_freq = pick (PROP_LOW_FREQ, p->low_freq, d.low_freq);
  v->high_freq = pick (PROP_HIGH_FREQ, p->high_freq, d.high_freq);
  v->lifter = pick (PROP_LIFTER, p->lifter, (guint) d.lifter);
  v->use_power = pick (PROP_USE_POWER, (bool) p->use_power, spec->plp ?
      d.plp.use_power : d.use_power);
  /* Kaldi's use-energy (its MFCC default): the energy takes c0's column,
   * unless c0 is asked for */
  bool c0_asked = pick (PROP_C0, (bool) p->c0, false);
  v->energy = pick (PROP_ENERGY, (bool) p->energy, d.energy &&
      v->num_ceps > 0 && !c0_asked);
  v->c0 = pick (PROP_C0, (bool) p->c0, d.c0 && !(d.energy_replaces_c0 &&
          v->energy));
  v->htk_compat = pick (PROP_HTK_COMPAT, (bool) p->htk_compat,
      d.htk_compat);
  v->energy_floor = pick (PROP_ENERGY_FLOOR, p->energy_floor,
      d.energy_floor);
  v->clamp = pick (PROP_CLAMP, p->clamp, d.clamp ? GST_AFET_CLAMP_UTTERANCE :
      GST_AFET_CLAMP_NONE);
  v->warp = pick (PROP_WARP_FACTOR, p->warp, d.warp);
  v->warp_low = pick (PROP_WARP_LOW, p->warp_low, d.warp_low);
  v->warp_high = pick (PROP_WARP_HIGH, p->warp_high, d.warp_high);
  v->raw_energy = pick (PROP_RAW_ENERGY, (bool) p->raw_energy,
      d.raw_energy);
}

/* The preset that applies to an input: the element's, or, when it was not
 * set and frames arrive, the one they were cut with. FALSE (with a reason)
 * when both are set and differ. */
static gboolean
input_preset (GstAfetSpectral * self, const GstAfetInput * in,
    GstAfetPreset * preset, gchar ** why)
{
  *preset = in->preset;
  if (in->audio)
    return TRUE;
  AfetFeaturesPreset theirs = in->features.preset;
  if (theirs == AFET_FEATURES_PRESET_NONE)
    return TRUE;
  if (!gst_afet_base_framing_is_set (GST_AFET_BASE (self), "preset")) {
    *preset = (GstAfetPreset) theirs;
    return TRUE;
  }
  if ((AfetFeaturesPreset) * preset == theirs)
    return TRUE;
  *why = g_strdup_printf ("%s has preset=%s, but its frames were cut with "
      "preset=%s: set the same preset on both elements",
      GST_ELEMENT_NAME (self), afet_features_preset_to_string (
          (AfetFeaturesPreset) * preset),
      afet_features_preset_to_string (theirs));
  return FALSE;
}

/* The engine config for an input: the input's part, the shared properties
 * and the preset's conventions. */
static afet::SpectralConfig
common_config (GstAfetSpectral * self, const GstAfetInput * in,
    GstAfetPreset preset)
{
  afet::SpectralConfig c;
  c.framing = gst_afet_base_framing_config (in);
  c.max_batch = in->max_batch;
  c.frames_input = !in->audio;
  c.input_has_energy = !in->audio && in->features.energy_index == in->W;
  SpectralValues v;
  GST_OBJECT_LOCK (self);
  effective_values (self, preset, &v);
  GST_OBJECT_UNLOCK (self);
  c.num_filters = (int) v.num_filters;
  c.num_ceps = (int) v.num_ceps;
  c.low_freq = v.low_freq;
  c.high_freq = v.high_freq;
  c.lifter = (int) v.lifter;
  c.use_power = v.use_power;
  c.c0 = v.c0;
  c.energy = v.energy;
  c.framing.energy_floor = v.energy_floor;
  c.warp = v.warp;
  c.warp_low = v.warp_low;
  c.warp_high = v.warp_high;
  c.framing.energy_windowed = !v.raw_energy;
  /* the preset's conventions */
  const afet::PresetDefaults &d = preset_row (preset);
  c.htk_period_quirk = d.htk_period_quirk;
  c.mel_layout = d.mel_layout;
  if (d.fft_unpadded)
    c.fft_points = in->W;
  c.log_floor = d.log_floor;
  c.log10 = d.log10;
  c.leading = d.leading && !v.htk_compat;
  return c;
}

GstAfetPreset
gst_afet_spectral_input_preset (GstAfetSpectral * self)
{
  return (GstAfetPreset) STATE (self)->input_preset.load ();
}

/* The clamp in effect (a property under the lock). */
static GstAfetClamp
effective_clamp (GstAfetSpectral * self, GstAfetPreset preset)
{
  SpectralValues v;
  GST_OBJECT_LOCK (self);
  effective_values (self, preset, &v);
  GST_OBJECT_UNLOCK (self);
  return v.clamp;
}

static afet::Status
setup (GstAfetSpectral * self, const GstAfetInput * in,
    GstAfetPreset preset, GstAfetSpectralOutput * out,
    const GstAfetEnv * env)
{
  GstAfetSpectralClass *klass = GST_AFET_SPECTRAL_GET_CLASS (self);
  STATE (self)->input_preset = preset;
  AFET_RETURN_IF_ERROR (klass->setup (self, common_config (self, in, preset),
          out, env, &STATE (self)->stage));
  GstAfetClamp clamp = effective_clamp (self, preset);
  if (clamp == GST_AFET_CLAMP_NONE)
    return afet::Status::Ok ();
  if (out->kind != AFET_FEATURES_KIND_FBANK || out->energy_index >= 0)
    return afet::Status (afet::Status::BAD_CONFIG, "clamp applies to a log "
        "filter bank without energy (num-ceps=0, energy=false): set "
        "clamp=none");
  if (!in->audio)
    return afet::Status (afet::Status::BAD_CONFIG, "clamp needs audio "
        "input: feed this element audio, not frames, or set clamp=none");
  return afet::Status::Ok ();
}

static gboolean
gst_afet_spectral_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetSpectral *self = GST_AFET_SPECTRAL (base);
  GstAfetPreset preset;
  if (!gst_afet_base_check_frames_input (base, in, why) ||
      !input_preset (self, in, &preset, why))
    return FALSE;
  GstAfetSpectralOutput o;
  afet::Status st = setup (self, in, preset, &o, nullptr);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  afet_features_info_set_format (out, o.kind, in->rate, in->W, in->S, o.dims,
      0);
  out->c0_index = o.c0_index;
  out->energy_index = o.energy_index;
  out->window = gst_afet_base_caps_window (in->window);
  out->preset = (AfetFeaturesPreset) preset;
  return TRUE;
}

/* The analysis fields the spectral settings decide (docs/caps.md). */
static void
gst_afet_spectral_describe_analysis (GstAfetBase * base,
    const GstAfetInput * in, GstStructure * s)
{
  GstAfetSpectral *self = GST_AFET_SPECTRAL (base);
  GstAfetPreset preset;
  gchar *why = nullptr;
  if (!input_preset (self, in, &preset, &why)) {
    g_free (why);
    return;
  }
  afet::SpectralConfig c = common_config (self, in, preset);
  static const char *const banks[] = { "htk", "kaldi", "slaney" };
  static const char *const clamps[] = { "none", "utterance", "running" };
  gst_structure_set (s, "filter-bank", G_TYPE_STRING,
      banks[(int) c.mel_layout], "num-filters", G_TYPE_INT, c.num_filters,
      "low-freq", G_TYPE_DOUBLE, c.low_freq, "high-freq", G_TYPE_DOUBLE,
      afet::band_high (c.high_freq, in->rate), "spectrum", G_TYPE_STRING,
      c.use_power ? "power" : "magnitude", "log", G_TYPE_STRING,
      c.log10 ? "log10" : "ln", "clamp", G_TYPE_STRING,
      clamps[effective_clamp (self, preset)], nullptr);
  if (c.num_ceps > 0)
    gst_structure_set (s, "lifter", G_TYPE_INT, c.lifter, nullptr);
  if (c.mel_layout != afet::MelLayout::SLANEY)
    gst_structure_set (s, "warp", G_TYPE_DOUBLE, c.warp, nullptr);
  /* stated even when 0, so that a consumer asking for a floor sees none */
  if (c.energy)
    gst_structure_set (s, "energy-floor", G_TYPE_DOUBLE,
        c.framing.energy_floor, nullptr);
  if (c.energy)
    gst_structure_set (s, "raw-energy", G_TYPE_BOOLEAN,
        (gboolean) ! c.framing.energy_windowed, nullptr);
}

/* The process' combiner for this input's configuration: the same config
 * with S = W (frames come whole), its stage on a queue of its own. */
static afet::Status
get_combiner (GstAfetSpectral * self, const GstAfetInput * in,
    GstAfetPreset preset, const GstAfetEnv * env,
    std::shared_ptr<afet::SpectralCombiner> *out)
{
  GstAfetSpectralClass *klass = GST_AFET_SPECTRAL_GET_CLASS (self);
  afet::SpectralConfig c = common_config (self, in, preset);
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
  return afet::SpectralCombiner::get (env->device, o.key,
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
  GstAfetPreset preset;
  if (!input_preset (self, in, &preset, why))
    return FALSE;
  afet::Status st = setup (self, in, preset, &o, env);
  gboolean combine = gst_afet_base_combine_streams (base);
  GstAfetClamp clamp = effective_clamp (self, preset);
  p->combiner.reset ();
  p->clamp_stage.reset ();
  p->stats = env->stats;
  if (st.ok () && clamp != GST_AFET_CLAMP_NONE) {
    /* the spectral stage's rows go to the base class' history
     * (pre_process), the clamp reads them from there (process) */
    afet::ClampConfig cc;
    cc.dims = o.dims;
    cc.scope = (afet::ClampScope) (clamp - 1);
    cc.max_batch = in->max_batch;
    p->clamp_stage = std::make_unique<afet::ClampStage> ();
    st = p->clamp_stage->init (env->device, cc, env->queue);
    gst_afet_needs_context (needs, 0, 0, o.dims,
        clamp == GST_AFET_CLAMP_UTTERANCE ? -1 : 0);
  } else if (st.ok () && in->audio && combine && in->dither == 0.0f) {
    /* (the combiner computes whole frames apart from their place in the
     * run, which the dither's noise depends on) */
    st = get_combiner (self, in, preset, env, &p->combiner);
  }
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
  GstAfetSpectralState *p = STATE (base);
  afet::SpectralStage *stage = p->stage.get ();
  afet::Status st = p->clamp_stage && in->block.rows ?
      p->clamp_stage->enqueue (in->block, in->out_first, n, out, out_row) :
      stage->spectral ().frames_input ?
      stage->enqueue_frames ((const float *) in->host, in->device,
      in->in_row, n, out,
      out_row) : stage->enqueue_samples (in->host, n, out, out_row,
      in->out_first);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

/* Small batches of audio (live input) through the shared combiner: one
 * launch for the frames of every stream of this configuration that is
 * waiting at the moment; their rows into out, or left on the device
 * (device). */
/* The n frames of a host batch, whole, one after the other (the
 * combiner's layout: S = W), into p->frames; their bytes. */
static size_t
pack_frames (GstAfetSpectralState * p, const GstAfetBatch * in, gint n)
{
  const afet::FramingConfig & f = p->stage->spectral ().framing;
  const size_t unit = f.sample_bytes ();
  const size_t frame_bytes = (size_t) f.W * unit;
  p->frames.resize ((size_t) n * frame_bytes);
  for (gint t = 0; t < n; t++)
    memcpy (p->frames.data () + (size_t) t * frame_bytes,
        (const guint8 *) in->host + (size_t) t * f.S * unit, frame_bytes);
  return frame_bytes;
}

static gboolean
combine (GstAfetBase * base, const GstAfetBatch * in, gint n, float *out,
    afet::DeviceRows * device, gboolean * handled, gchar ** why)
{
  GstAfetSpectralState *p = STATE (base);
  afet::SpectralCombiner *combiner = p->combiner.get ();
  if (!combiner || n > COMBINE_MAX_FRAMES)
    return TRUE;
  const size_t frame_bytes = pack_frames (p, in, n);
  bool combined = false;
  afet::Status st = combiner->compute (p->frames.data (), n, out, &combined,
      device);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  /* this element's share of the combined copies */
  if (p->stats) {
    p->stats->uploads++;
    p->stats->upload_bytes += (uint64_t) n * frame_bytes;
    if (!device) {
      p->stats->downloads++;
      p->stats->download_bytes += (uint64_t) n * combiner->dims () *
          sizeof (float);
    }
  }
  if (combined)
    gst_afet_base_count_combined (base);
  *handled = TRUE;
  return TRUE;
}

static gboolean
gst_afet_spectral_process_host (GstAfetBase * base, const GstAfetBatch * in,
    gint n, float *out, gboolean * handled, gchar ** why)
{
  return combine (base, in, n, out, nullptr, handled, why);
}

/* The same with device-memory output: the rows stay in the combined
 * launch's buffer, a region of which becomes the output buffer's memory
 * (the next afet element reads them there). */
static gboolean
gst_afet_spectral_process_host_device (GstAfetBase * base,
    const GstAfetBatch * in, gint n, afet::DeviceRows * out,
    gboolean * handled, gchar ** why)
{
  return combine (base, in, n, nullptr, out, handled, why);
}

/* A live chain after this element computes in the same pass as its
 * combined launch (gstafetbase-chain.cc): the combiner and the frames. */
static gboolean
gst_afet_spectral_combined_front (GstAfetBase * base, const GstAfetBatch * in,
    gint n, std::shared_ptr<afet::SpectralCombiner> * front,
    const void **frames, gsize * bytes)
{
  GstAfetSpectralState *p = STATE (base);
  if (!p->combiner || n > COMBINE_MAX_FRAMES)
    return FALSE;
  *bytes = (gsize) n * pack_frames (p, in, n);
  *front = p->combiner;
  *frames = p->frames.data ();
  return TRUE;
}

static void
gst_afet_spectral_release (GstAfetBase * base)
{
  STATE (base)->stage.reset ();
  STATE (base)->combiner.reset ();
  STATE (base)->clamp_stage.reset ();
}

void
gst_afet_spectral_class_install_properties (GObjectClass * klass,
    const GstAfetSpectralSpec * spec)
{
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_AFET_SPECTRAL_CLASS (klass)->spec = spec;
  gst_afet_base_class_install_framing_properties (klass);
  /* the defaults shown are HTK's (the default preset); a property left
   * unset follows the preset and reads back what is in effect */
  const afet::PresetDefaults &htk = preset_row (GST_AFET_PRESET_HTK);
  g_object_class_install_property (klass, PROP_NUM_FILTERS,
      g_param_spec_uint ("num-filters", "Filters", spec->num_filters_blurb,
          1, afet::kMaxFilters, htk.filters (htk.num_ceps), flags));
  g_object_class_install_property (klass, PROP_NUM_CEPS,
      g_param_spec_uint ("num-ceps", "Cepstra", spec->num_ceps_blurb,
          spec->min_ceps, spec->max_ceps, htk.num_ceps, flags));
  g_object_class_install_property (klass, PROP_LOW_FREQ,
      g_param_spec_double ("low-freq", "Low cut-off",
          "Lower edge of the filter bank in Hz (HTK LOFREQ)", 0.0, 96000.0,
          htk.low_freq, flags));
  g_object_class_install_property (klass, PROP_HIGH_FREQ,
      g_param_spec_double ("high-freq", "High cut-off",
          "Upper edge of the filter bank in Hz (HTK HIFREQ); 0 = Nyquist, "
          "below 0: that far below the Nyquist frequency (Kaldi's "
          "high-freq; lhotse's -400)", -96000.0, 96000.0, htk.high_freq,
          flags));
  g_object_class_install_property (klass, PROP_LIFTER,
      g_param_spec_uint ("lifter", "Lifter", spec->lifter_blurb, 0, 1000,
          htk.lifter, flags));
  g_object_class_install_property (klass, PROP_USE_POWER,
      g_param_spec_boolean ("use-power", "Use power", spec->use_power_blurb,
          spec->plp ? htk.plp.use_power : htk.use_power, flags));
  g_object_class_install_property (klass, PROP_C0,
      g_param_spec_boolean ("c0", "c0", spec->c0_blurb, htk.c0, flags));
  g_object_class_install_property (klass, PROP_ENERGY,
      g_param_spec_boolean ("energy", "Energy", spec->energy_blurb,
          htk.energy, flags));
  gst_afet_base_class_install_combine (klass);
  g_object_class_install_property (klass, PROP_HTK_COMPAT,
      g_param_spec_boolean ("htk-compat", "HTK compatible order",
          "Kaldi's htk-compat (presets kaldi and lhotse): c0 (scaled as "
          "HTK's) or the energy after the cepstra instead of in column 0",
          htk.htk_compat, flags));
  g_object_class_install_property (klass, PROP_ENERGY_FLOOR,
      g_param_spec_double ("energy-floor", "Energy floor",
          "Kaldi's energy-floor: the raw log energy is at least ln of this "
          "(0 = none; presets kaldi and lhotse, lhotse's default 1e-10)",
          0.0, G_MAXDOUBLE, htk.energy_floor, flags));
  g_object_class_install_property (klass, PROP_CLAMP,
      g_param_spec_enum ("clamp", "Clamp",
          "Whisper's dynamic-range clamp of a log filter bank: values below "
          "the maximum - 8 raised to it, then (x + 4) / 4 (default: "
          "utterance under preset=whisper, else none)", GST_TYPE_AFET_CLAMP,
          htk.clamp ? GST_AFET_CLAMP_UTTERANCE : GST_AFET_CLAMP_NONE, flags));
  g_object_class_install_property (klass, PROP_WARP_FACTOR,
      g_param_spec_double ("warp-factor", "VTLN warp factor",
          "Vocal tract length normalisation of the mel bank, piecewise "
          "linear: frequencies between the cut-offs divided by it; 1 = "
          "none. Kaldi's vtln-warp (presets kaldi, lhotse: the cut-offs "
          "warp-low and warp-high), HCopy's WARPFREQ (preset htk: "
          "WARPLCUTOFF, WARPUCUTOFF, each moved by 2 / (1 + 1/warp))", 0.5,
          2.0, htk.warp, flags));
  g_object_class_install_property (klass, PROP_WARP_LOW,
      g_param_spec_double ("warp-low", "VTLN low cut-off",
          "Lower inflection point of the VTLN warp in Hz (Kaldi's "
          "vtln-low, HCopy's WARPLCUTOFF)", 0.0, 96000.0, htk.warp_low, flags));
  g_object_class_install_property (klass, PROP_WARP_HIGH,
      g_param_spec_double ("warp-high", "VTLN high cut-off",
          "Upper inflection point of the VTLN warp in Hz; below 0: that far "
          "below the Nyquist frequency (Kaldi's vtln-high, default -500; "
          "HCopy's WARPUCUTOFF)",
          -96000.0, 96000.0, htk.warp_high, flags));
  g_object_class_install_property (klass, PROP_RAW_ENERGY,
      g_param_spec_boolean ("raw-energy", "Raw energy",
          "With energy=true: the energy of the frame's samples before "
          "pre-emphasis and window (HTK's RAWENERGY=T, Kaldi's raw-energy, "
          "the default), or false: of the pre-emphasised, windowed frame",
          htk.raw_energy, flags));
  gst_type_mark_as_plugin_api (GST_TYPE_AFET_CLAMP, (GstPluginAPIFlags) 0);
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
  if (prop_id >= PROP_SPECTRAL_FIRST && prop_id <= PROP_SPECTRAL_LAST)
    p->set |= 1u << (prop_id - PROP_SPECTRAL_FIRST);
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
    case PROP_HTK_COMPAT:
      p->htk_compat = g_value_get_boolean (value);
      break;
    case PROP_ENERGY_FLOOR:
      p->energy_floor = g_value_get_double (value);
      break;
    case PROP_CLAMP:
      p->clamp = (GstAfetClamp) g_value_get_enum (value);
      break;
    case PROP_WARP_FACTOR:
      p->warp = g_value_get_double (value);
      break;
    case PROP_WARP_LOW:
      p->warp_low = g_value_get_double (value);
      break;
    case PROP_WARP_HIGH:
      p->warp_high = g_value_get_double (value);
      break;
    case PROP_RAW_ENERGY:
      p->raw_energy = g_value_get_boolean (value);
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
  gboolean handled = TRUE;

  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return TRUE;
  /* what is in effect: set, or the preset's */
  GstAfetPreset preset = gst_afet_base_get_preset (GST_AFET_BASE (object));
  GST_OBJECT_LOCK (object);
  SpectralValues v;
  effective_values (GST_AFET_SPECTRAL (object), preset, &v);
  switch (prop_id) {
    case PROP_NUM_FILTERS:
      g_value_set_uint (value, v.num_filters);
      break;
    case PROP_NUM_CEPS:
      g_value_set_uint (value, v.num_ceps);
      break;
    case PROP_LOW_FREQ:
      g_value_set_double (value, v.low_freq);
      break;
    case PROP_HIGH_FREQ:
      g_value_set_double (value, v.high_freq);
      break;
    case PROP_LIFTER:
      g_value_set_uint (value, v.lifter);
      break;
    case PROP_USE_POWER:
      g_value_set_boolean (value, v.use_power);
      break;
    case PROP_C0:
      g_value_set_boolean (value, v.c0);
      break;
    case PROP_ENERGY:
      g_value_set_boolean (value, v.energy);
      break;
    case PROP_HTK_COMPAT:
      g_value_set_boolean (value, v.htk_compat);
      break;
    case PROP_ENERGY_FLOOR:
      g_value_set_double (value, v.energy_floor);
      break;
    case PROP_CLAMP:
      g_value_set_enum (value, v.clamp);
      break;
    case PROP_WARP_FACTOR:
      g_value_set_double (value, v.warp);
      break;
    case PROP_WARP_LOW:
      g_value_set_double (value, v.warp_low);
      break;
    case PROP_WARP_HIGH:
      g_value_set_double (value, v.warp_high);
      break;
    case PROP_RAW_ENERGY:
      g_value_set_boolean (value, v.raw_energy);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (object);
  return handled;
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

  gobject_class->finalize = gst_afet_spectral_finalize;
  base_class->describe = gst_afet_spectral_describe;
  base_class->describe_analysis = gst_afet_spectral_describe_analysis;
  base_class->configure = gst_afet_spectral_configure;
  base_class->process = gst_afet_spectral_process;
  base_class->pre_process = gst_afet_spectral_process;
  base_class->release = gst_afet_spectral_release;
  base_class->process_host = gst_afet_spectral_process_host;
  base_class->process_host_device = gst_afet_spectral_process_host_device;
  base_class->combined_front = gst_afet_spectral_combined_front;
  gst_type_mark_as_plugin_api (GST_TYPE_AFET_SPECTRAL, (GstPluginAPIFlags) 0);
}

static void
gst_afet_spectral_init (GstAfetSpectral * self)
{
  ((GstAfetSpectralPrivate *) gst_afet_spectral_get_instance_private (self))->
      state = new GstAfetSpectralState ();
}
