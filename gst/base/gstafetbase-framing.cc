/* GstAfetBase's framing part: the framing properties of elements that frame
 * audio, the window and preset enums and their conversions, and the check of
 * framing properties against an incoming frames stream.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetbase-private.h"

#include "afethtkconfig.h"

#define GST_CAT_DEFAULT gst_afet_base_debug

GType
gst_afet_window_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {(gint) afet::Window::HAMMING, "Hamming (0.54 - 0.46 cos)", "hamming"},
    {(gint) afet::Window::HANN, "Hann (0.5 - 0.5 cos)", "hann"},
    {(gint) afet::Window::POVEY, "Povey (Hann to the power 0.85, as Kaldi)",
        "povey"},
    {(gint) afet::Window::RECTANGULAR, "Rectangular (no window)",
        "rectangular"},
    {(gint) afet::Window::BLACKMAN, "Blackman (0.42, 0.5, 0.08)", "blackman"},
    {(gint) afet::Window::HANN_PERIODIC, "Periodic Hann (0.5 - 0.5 cos (2 pi "
          "i / W), torch's and Whisper's)", "hann-periodic"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetWindow", values));
  return (GType) id;
}

GType
gst_afet_preset_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_AFET_PRESET_HTK, "HTK 3.4 HCopy conventions and column order",
        "htk"},
    {GST_AFET_PRESET_KALDI, "Kaldi's compute-mfcc-feats / compute-fbank-"
          "feats (as kaldi-native-fbank): povey window, DC removal, power, "
          "Kaldi's mel bank, energy or c0 first", "kaldi"},
    {GST_AFET_PRESET_WHISPER, "Whisper's log-mel spectrogram: centred "
          "periodic-Hann frames, 400-point FFT, slaney mel bank, log10, "
          "clamped to the maximum - 8, (x + 4) / 4", "whisper"},
    {GST_AFET_PRESET_LHOTSE, "lhotse's Fbank / Mfcc (icefall, sherpa-onnx): "
          "Kaldi's with 80 bins, snip-edges=false, high-freq=-400, samples "
          "in [-1, 1]", "lhotse"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetPreset", values));
  return (GType) id;
}

GType
gst_afet_sample_range_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_AFET_SAMPLE_RANGE_INT16, "16-bit integer scale, -32768 .. 32767 "
          "(HTK, Kaldi)", "int16"},
    {GST_AFET_SAMPLE_RANGE_UNIT, "-1 .. 1 (lhotse, Whisper, torchaudio)",
        "unit"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetSampleRange",
            values));
  return (GType) id;
}

static_assert ((int) afet::Preset::HTK == GST_AFET_PRESET_HTK &&
    (int) afet::Preset::KALDI == GST_AFET_PRESET_KALDI &&
    (int) afet::Preset::WHISPER == GST_AFET_PRESET_WHISPER &&
    (int) afet::Preset::LHOTSE == GST_AFET_PRESET_LHOTSE,
    "the engine's presets are numbered as the caps'");

/* The preset's row of the engine's table (presets.h). */
static const afet::PresetDefaults &
preset_row (GstAfetPreset preset)
{
  return afet::preset_defaults ((afet::Preset) preset);
}

static bool
framing_set (const GstAfetBaseState * p, guint prop)
{
  return (p->framing_set & (1u << (prop - PROP_FRAMING_FIRST))) != 0;
}

void
afet_base_effective_framing (GstAfetBaseState * p, GstAfetInput * in,
    double *length, double *shift)
{
  const afet::PresetDefaults &d = preset_row (p->preset);
  auto pick = [p](guint prop, auto set, auto preset) {
    return framing_set (p, prop) ? set : preset;
  };
  *length = pick (PROP_FRAME_LENGTH, p->frame_length, d.frame_length);
  *shift = pick (PROP_FRAME_SHIFT, p->frame_shift, d.frame_shift);
  in->window = pick (PROP_WINDOW, p->window, d.window);
  in->preemph = (float) pick (PROP_PREEMPHASIS, p->preemphasis,
      d.preemphasis);
  in->pad = p->pad;
  in->preset = p->preset;
  in->remove_dc = pick (PROP_REMOVE_DC, (bool) p->remove_dc, d.remove_dc);
  gboolean snip = pick (PROP_SNIP_EDGES, (bool) p->snip_edges,
      d.snip_edges);
  in->edges = snip ? afet::Edges::SNIP : d.unsnipped;
  in->scale = pick (PROP_SAMPLE_RANGE, p->sample_range, d.unit_range ?
      GST_AFET_SAMPLE_RANGE_UNIT : GST_AFET_SAMPLE_RANGE_INT16) ==
      GST_AFET_SAMPLE_RANGE_UNIT ? 1.0f / 32768.0f : 1.0f;
  in->dither = (float) pick (PROP_DITHER, p->dither, d.dither);
  in->dither_seed = p->dither_seed;
}

/* A float property value as the double it was set from (0.97f -> 0.97),
 * so that caps compare equal to a template written in decimal. */
static double
as_set (float v)
{
  gchar buf[32];
  g_ascii_formatd (buf, sizeof buf, "%.7g", v);
  return g_ascii_strtod (buf, nullptr);
}

void
afet_base_write_framing_analysis (const GstAfetInput * in, GstStructure * s)
{
  gst_structure_set (s, "preemphasis", G_TYPE_DOUBLE, as_set (in->preemph),
      "remove-dc", G_TYPE_BOOLEAN, (gboolean) in->remove_dc, "snip-edges",
      G_TYPE_BOOLEAN, (gboolean) (in->edges == afet::Edges::SNIP), "dither",
      G_TYPE_DOUBLE, as_set (in->dither), "sample-range", G_TYPE_STRING,
      in->scale == 1.0f ? "int16" : "unit", nullptr);
}

GstAfetPreset
gst_afet_base_get_preset (GstAfetBase * self)
{
  GST_OBJECT_LOCK (self);
  GstAfetPreset preset = PRIV (self)->preset;
  GST_OBJECT_UNLOCK (self);
  return preset;
}

gboolean
gst_afet_base_framing_is_set (GstAfetBase * self, const gchar * prop_name)
{
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (self),
      prop_name);
  if (!spec || spec->param_id < PROP_FRAMING_FIRST ||
      spec->param_id > PROP_FRAMING_LAST)
    return FALSE;
  GST_OBJECT_LOCK (self);
  gboolean set = framing_set (PRIV (self), spec->param_id);
  GST_OBJECT_UNLOCK (self);
  return set;
}

void
gst_afet_base_class_install_htk_config (GObjectClass * klass)
{
  g_object_class_install_property (klass, PROP_HTK_CONFIG,
      g_param_spec_string ("htk-config", "HTK configuration",
          "An HCopy configuration file: the settings it makes for this "
          "element's part of the chain (TARGETKIND, WINDOWSIZE, NUMCHANS, "
          "DELTAWINDOW, ...) are applied when the input is negotiated, over "
          "the same properties set here; what afet cannot reproduce is "
          "refused, naming the key (docs/htk-compatibility.md)", nullptr,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
}

/* The properties of one role of the htk-config file; FALSE with the
 * reader's reason. */
static gboolean
htk_role_properties (const std::string & path, const char *name,
    afet::HtkRole role, afet::HtkProperties * props, gchar ** why)
{
  afet::Status st = afet::htk_config_element_properties (path, name, role,
      props);
  if (!st.ok ())
    *why = g_strdup_printf ("htk-config: %s", st.message ().c_str ());
  return st.ok ();
}

gboolean
afet_base_apply_htk_config (GstAfetBase * self, const GstAfetInput * in,
    gchar ** why)
{
  GST_OBJECT_LOCK (self);
  std::string path = PRIV (self)->htk_config;
  GST_OBJECT_UNLOCK (self);
  if (path.empty ())
    return TRUE;
  GstElementFactory *f = gst_element_get_factory (GST_ELEMENT (self));
  const char *name = f ? GST_OBJECT_NAME (f) : "";
  afet::HtkProperties props;
  if (g_str_equal (name, "afetcmvn")) {
    /* before afetdelta: HTK's energy normalisation; after it: _Z. Without
     * _D in the file there is one place for both, which commute (_Z leaves
     * the energy column alone): this element does both. */
    afet::HtkConfig cfg;
    afet::Status st = afet::htk_config_read (path, &cfg);
    if (!st.ok ()) {
      *why = g_strdup_printf ("htk-config: %s", st.message ().c_str ());
      return FALSE;
    }
    bool after = !in->audio && in->features.delta_order > 0;
    if (!htk_role_properties (path, name, after ? afet::HtkRole::MEAN_NORM :
            afet::HtkRole::ENERGY_NORM, &props, why))
      return FALSE;
    afet::HtkProperties mean;
    if (!after && cfg.delta_order == 0 && !in->audio &&
        in->features.normalization != AFET_FEATURES_NORM_NONE) {
      *why = g_strdup ("htk-config: this stream is normalised already: "
          "without _D in the file one afetcmvn does both HTK's energy "
          "normalisation and _Z; remove the second");
      return FALSE;
    }
    if (!after && cfg.delta_order == 0) {
      if (!htk_role_properties (path, name, afet::HtkRole::MEAN_NORM, &mean,
              why))
        return FALSE;
      for (const auto &kv : mean)
        if (!g_str_has_prefix (kv.first.c_str (), "energy-") &&
            kv.first != "silence-floor")
          props.push_back (kv);
    }
  } else {
    afet::HtkRole role = g_str_equal (name, "afetframer") ?
        afet::HtkRole::FRAMER : g_str_equal (name, "afetdelta") ?
        afet::HtkRole::DELTA : afet::HtkRole::ANALYSIS;
    if (!htk_role_properties (path, name, role, &props, why))
      return FALSE;
  }
  afet_base_applying_config (self, TRUE);
  for (const auto &kv : props) {
    GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS
        (self), kv.first.c_str ());
    /* fed frames: they were cut upstream (by an afetframer given the same
     * file); only the element's own steps apply */
    if (!in->audio && spec && spec->param_id >= PROP_FRAMING_FIRST &&
        spec->param_id < PROP_PRESET)
      continue;
    GST_DEBUG_OBJECT (self, "htk-config: %s=%s", kv.first.c_str (),
        kv.second.c_str ());
    gst_util_set_object_arg (G_OBJECT (self), kv.first.c_str (),
        kv.second.c_str ());
  }
  afet_base_applying_config (self, FALSE);
  return TRUE;
}

void
gst_afet_base_class_install_framing_properties (GObjectClass * klass)
{
  GstAfetBaseClass *base = (GstAfetBaseClass *) klass;
  base->takes_audio = TRUE;

  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  gst_afet_base_class_install_htk_config (klass);
  /* the defaults shown are HTK's; a property left unset follows the
   * preset (docs/compat.md), and reads back what is in effect */
  const afet::PresetDefaults &htk = preset_row (DEFAULT_FRAMING_PRESET);
  g_object_class_install_property (klass, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset",
          "Conventions: the defaults of the other properties, the formulas, "
          "column order and quirks of this tool; properties set explicitly "
          "still win (the caps' preset field)", GST_TYPE_AFET_PRESET,
          DEFAULT_FRAMING_PRESET, flags));
  /* the two durations, in ms, truncated to samples as HTK does */
  const struct
  {
    guint id;
    const gchar *name, *nick, *blurb;
    gdouble min, def;
  } durations[] = {
    {PROP_FRAME_LENGTH, "frame-length", "Frame length", "Analysis window "
          "in milliseconds; W = (int) (ms x rate / 1000) samples, as HTK "
          "truncates it", 1.0, htk.frame_length},
    {PROP_FRAME_SHIFT, "frame-shift", "Frame shift", "Frame period in "
          "milliseconds; S = (int) (ms x rate / 1000) samples", 0.1,
        htk.frame_shift},
  };
  for (const auto &d : durations)
    g_object_class_install_property (klass, d.id, g_param_spec_double (d.name,
            d.nick, d.blurb, d.min, 1000.0, d.def, flags));
  g_object_class_install_property (klass, PROP_WINDOW,
      g_param_spec_enum ("window", "Window", "Window function (default: "
          "the preset's)", GST_TYPE_AFET_WINDOW, (gint) htk.window,
          flags));
  g_object_class_install_property (klass, PROP_PREEMPHASIS,
      g_param_spec_double ("preemphasis", "Pre-emphasis",
          "Pre-emphasis coefficient k, applied inside each frame as HTK "
          "and Kaldi do: y[i] = x[i] - k x[i-1], y[0] = (1 - k) x[0]; 0 = "
          "none (Whisper's)", 0.0, 1.0, htk.preemphasis, flags));
  g_object_class_install_property (klass, PROP_PAD,
      g_param_spec_boolean ("pad", "Pad",
          "At EOS or DISCONT, zero-fill the incomplete last frame and emit "
          "it (false: drop it, as HTK does); only with snip-edges=true",
          DEFAULT_PAD, flags));
  g_object_class_install_property (klass, PROP_REMOVE_DC,
      g_param_spec_boolean ("remove-dc", "Remove DC",
          "Subtract each frame's mean before its energy and pre-emphasis "
          "(Kaldi's remove-dc-offset, HTK's ZMEANSOURCE; default: the "
          "preset's, true for kaldi and lhotse)", htk.remove_dc, flags));
  g_object_class_install_property (klass, PROP_SNIP_EDGES,
      g_param_spec_boolean ("snip-edges", "Snip edges",
          "true: only frames that fit in the run, from its first sample "
          "(HTK, Kaldi's default); false: frames over the run's edges with "
          "the samples outside mirrored, Kaldi's and lhotse's way ((N + S/2) "
          "/ S frames, frame t centred near t S + S/2), or under "
          "preset=whisper reflected and centred on t S (N / S frames)",
          htk.snip_edges, flags));
  g_object_class_install_property (klass, PROP_DITHER,
      g_param_spec_double ("dither", "Dither",
          "Standard deviation of Gaussian noise added to each sample (in "
          "sample-range's units) before framing's other steps, as Kaldi's "
          "dither; reproducible: drawn from (dither-seed, the sample's "
          "position in the run), whatever the buffer sizes; 0 = none",
          0.0, 1e6, htk.dither, flags));
  g_object_class_install_property (klass, PROP_DITHER_SEED,
      g_param_spec_uint64 ("dither-seed", "Dither seed",
          "Seed of the dither's generator", 0, G_MAXUINT64,
          DEFAULT_DITHER_SEED, flags));
  g_object_class_install_property (klass, PROP_SAMPLE_RANGE,
      g_param_spec_enum ("sample-range", "Sample range",
          "The scale samples are taken in, whatever their format: 16-bit "
          "integer (HTK, Kaldi) or [-1, 1] (lhotse, Whisper); default: the "
          "preset's", GST_TYPE_AFET_SAMPLE_RANGE, htk.unit_range ?
          GST_AFET_SAMPLE_RANGE_UNIT : GST_AFET_SAMPLE_RANGE_INT16, flags));
}

gboolean
gst_afet_base_set_framing_property (GObject * object, guint prop_id,
    const GValue * value)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);
  gboolean handled = TRUE;

  GST_OBJECT_LOCK (self);
  if (prop_id >= PROP_FRAMING_FIRST && prop_id <= PROP_FRAMING_LAST)
    p->framing_set |= 1u << (prop_id - PROP_FRAMING_FIRST);
  switch (prop_id) {
    case PROP_FRAME_LENGTH:
      p->frame_length = g_value_get_double (value);
      break;
    case PROP_FRAME_SHIFT:
      p->frame_shift = g_value_get_double (value);
      break;
    case PROP_WINDOW:
      p->window = (afet::Window) g_value_get_enum (value);
      break;
    case PROP_PREEMPHASIS:
      p->preemphasis = g_value_get_double (value);
      break;
    case PROP_PAD:
      p->pad = g_value_get_boolean (value);
      break;
    case PROP_REMOVE_DC:
      p->remove_dc = g_value_get_boolean (value);
      break;
    case PROP_SNIP_EDGES:
      p->snip_edges = g_value_get_boolean (value);
      break;
    case PROP_DITHER:
      p->dither = g_value_get_double (value);
      break;
    case PROP_DITHER_SEED:
      p->dither_seed = g_value_get_uint64 (value);
      break;
    case PROP_SAMPLE_RANGE:
      p->sample_range = (GstAfetSampleRange) g_value_get_enum (value);
      break;
    case PROP_PRESET:
      p->preset = (GstAfetPreset) g_value_get_enum (value);
      break;
    case PROP_HTK_CONFIG:{
      const gchar *path = g_value_get_string (value);
      p->htk_config = path ? path : "";
      break;
    }
    case PROP_COMBINE_STREAMS:
      p->combine_streams = g_value_get_boolean (value);
      break;
    case PROP_LATENCY_BUDGET:
      p->latency_budget = g_value_get_int64 (value);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (self);
  return handled;
}

gboolean
gst_afet_base_get_framing_property (GObject * object, guint prop_id,
    GValue * value)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);
  gboolean handled = TRUE;

  GST_OBJECT_LOCK (self);
  GstAfetInput in;
  double length = 0, shift = 0;
  afet_base_effective_framing (p, &in, &length, &shift);
  switch (prop_id) {
    case PROP_FRAME_LENGTH:
      g_value_set_double (value, length);
      break;
    case PROP_FRAME_SHIFT:
      g_value_set_double (value, shift);
      break;
    case PROP_WINDOW:
      g_value_set_enum (value, (gint) in.window);
      break;
    case PROP_PREEMPHASIS:
      g_value_set_double (value, as_set (in.preemph));
      break;
    case PROP_PAD:
      g_value_set_boolean (value, p->pad);
      break;
    case PROP_REMOVE_DC:
      g_value_set_boolean (value, in.remove_dc);
      break;
    case PROP_SNIP_EDGES:
      g_value_set_boolean (value, in.edges == afet::Edges::SNIP);
      break;
    case PROP_DITHER:
      /* as set (in.dither is a float) */
      g_value_set_double (value, framing_set (p, PROP_DITHER) ? p->dither :
          preset_row (p->preset).dither);
      break;
    case PROP_DITHER_SEED:
      g_value_set_uint64 (value, p->dither_seed);
      break;
    case PROP_SAMPLE_RANGE:
      g_value_set_enum (value, in.scale == 1.0f ?
          GST_AFET_SAMPLE_RANGE_INT16 : GST_AFET_SAMPLE_RANGE_UNIT);
      break;
    case PROP_PRESET:
      g_value_set_enum (value, p->preset);
      break;
    case PROP_HTK_CONFIG:
      g_value_set_string (value, p->htk_config.empty () ? nullptr :
          p->htk_config.c_str ());
      break;
    case PROP_COMBINE_STREAMS:
      g_value_set_boolean (value, p->combine_streams);
      break;
    case PROP_MERGED_BATCHES:
      g_value_set_uint64 (value, p->merged_batches);
      break;
    case PROP_CHAINED_BATCHES:
      g_value_set_uint64 (value, p->chained_batches);
      break;
    case PROP_LATENCY_BUDGET:
      g_value_set_int64 (value, p->latency_budget);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (self);
  return handled;
}

/* The analysis windows: the engine's (and the property's) and the caps'. */
static const struct
{
  afet::Window engine;
  AfetFeaturesWindow caps;
} kWindows[] = {
  {afet::Window::HAMMING, AFET_FEATURES_WINDOW_HAMMING},
  {afet::Window::HANN, AFET_FEATURES_WINDOW_HANN},
  {afet::Window::POVEY, AFET_FEATURES_WINDOW_POVEY},
  {afet::Window::RECTANGULAR, AFET_FEATURES_WINDOW_RECTANGULAR},
  {afet::Window::BLACKMAN, AFET_FEATURES_WINDOW_BLACKMAN},
  {afet::Window::HANN_PERIODIC, AFET_FEATURES_WINDOW_HANN_PERIODIC},
};

afet::FramingConfig
gst_afet_base_framing_config (const GstAfetInput * in)
{
  afet::FramingConfig f;
  f.rate = in->rate;
  f.W = in->W;
  f.S = in->S;
  f.window = in->window;
  f.preemph = in->preemph;
  f.samples = in->samples;
  f.scale = in->scale;
  f.remove_dc = in->remove_dc;
  f.dither = in->dither;
  f.dither_seed = in->dither_seed;
  f.edges = in->edges;
  f.energy_mode = preset_row (in->preset).energy_mode;
  return f;
}

/* Framing properties set on an element fed frames: the frames were cut
 * upstream, so a value that differs from theirs (or one the caps do not
 * record) would be silently ignored. NULL if none conflicts. */
static gchar *
framing_conflict (GstAfetBase * self, const GstAfetInput * in)
{
  GstAfetBaseState *p = PRIV (self);
  GST_OBJECT_LOCK (self);
  guint set = p->framing_set;
  double length = p->frame_length, shift = p->frame_shift;
  afet::Window window = p->window;
  GST_OBJECT_UNLOCK (self);
  auto is_set = [set](guint prop) {
    return (set & (1u << (prop - PROP_FRAMING_FIRST))) != 0;
  };
  const char *what = nullptr;
  if (is_set (PROP_FRAME_LENGTH) &&
      afet::frame_samples (length, in->rate) != in->W)
    what = "frame-length";
  else if (is_set (PROP_FRAME_SHIFT) &&
      afet::frame_samples (shift, in->rate) != in->S)
    what = "frame-shift";
  else if (is_set (PROP_WINDOW) && window != in->window)
    what = "window";
  else if (is_set (PROP_PREEMPHASIS))
    what = "preemphasis";
  else if (is_set (PROP_PAD))
    what = "pad";
  else if (is_set (PROP_REMOVE_DC))
    what = "remove-dc";
  else if (is_set (PROP_SNIP_EDGES))
    what = "snip-edges";
  else if (is_set (PROP_DITHER))
    what = "dither";
  else if (is_set (PROP_SAMPLE_RANGE))
    what = "sample-range";
  if (!what)
    return nullptr;
  return g_strdup_printf ("%s is set on %s, but its input is frames already "
      "cut upstream (%d samples every %d at %d Hz), which it would ignore: "
      "set %s on the element that frames the audio (afetframer), or unset "
      "it here", what, GST_ELEMENT_NAME (self), in->W, in->S, in->rate,
      what);
}

gboolean
gst_afet_base_check_frames_input (GstAfetBase * self, const GstAfetInput * in,
    gchar ** why)
{
  if (in->audio)
    return TRUE;
  if (in->features.kind != AFET_FEATURES_KIND_FRAMES ||
      in->features.statics < in->W || in->features.delta_order != 0) {
    *why = g_strdup_printf ("%s takes audio or afetframer's kind=frames "
        "stream", GST_ELEMENT_NAME (self));
    return FALSE;
  }
  *why = framing_conflict (self, in);
  return *why == nullptr;
}

AfetFeaturesWindow
gst_afet_base_caps_window (afet::Window w)
{
  for (const auto &row : kWindows)
    if (row.engine == w)
      return row.caps;
  return AFET_FEATURES_WINDOW_UNKNOWN;
}

afet::Window
afet_base_window_from_caps (AfetFeaturesWindow w)
{
  for (const auto &row : kWindows)
    if (row.caps == w)
      return row.engine;
  /* unknown or absent: HTK's default */
  return afet::Window::HAMMING;
}
