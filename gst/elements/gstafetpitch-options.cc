/* afetpitch's Kaldi options as GObject properties (gstafetpitch-options.h):
 * where each lives in the two configs, its range, its default.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetpitch-options.h"

#include <cstddef>

namespace
{

/* Kaldi's options as properties: where each lives in the two configs, its
 * range, and the default the configs' initialisers give (Kaldi's). */
enum class OptType
{ FLOAT, INT, BOOL, UINT };

struct KaldiOption
{
  const char *name, *nick, *blurb;
  OptType type;
  bool process;                 /* in ProcessPitchConfig, else PitchConfig */
  size_t offset;
  double min, max;
};

#define PO(f) false, offsetof (afet::PitchConfig, f)
#define PP(f) true, offsetof (afet::ProcessPitchConfig, f)

static const KaldiOption kaldi_options[] = {
  {"frame-length", "Frame length", "Frame length in milliseconds "
        "(Kaldi --frame-length)", OptType::FLOAT, PO (frame_length_ms), 1.0,
      1000.0},
  {"frame-shift", "Frame shift", "Frame shift in milliseconds "
        "(Kaldi --frame-shift)", OptType::FLOAT, PO (frame_shift_ms), 1.0,
      1000.0},
  {"preemphasis-coefficient", "Pre-emphasis", "Pre-emphasis of the "
        "resampled signal (Kaldi --preemphasis-coefficient)", OptType::FLOAT,
      PO (preemph_coeff), 0.0, 1.0},
  {"min-f0", "Minimum f0", "Lowest pitch searched, Hz (Kaldi --min-f0)",
      OptType::FLOAT, PO (min_f0), 1.0, 10000.0},
  {"max-f0", "Maximum f0", "Highest pitch searched, Hz (Kaldi --max-f0)",
      OptType::FLOAT, PO (max_f0), 1.0, 10000.0},
  {"soft-min-f0", "Soft minimum f0", "Minimum f0 applied in a soft way: "
        "lower pitches cost more (Kaldi --soft-min-f0)", OptType::FLOAT,
      PO (soft_min_f0), 0.0, 10000.0},
  {"penalty-factor", "Penalty factor", "Cost of changing the pitch from "
        "frame to frame (Kaldi --penalty-factor)", OptType::FLOAT,
      PO (penalty_factor), 0.0, 1000.0},
  {"lowpass-cutoff", "Low-pass cutoff", "Cutoff of the resampling filter, "
        "Hz (Kaldi --lowpass-cutoff)", OptType::FLOAT, PO (lowpass_cutoff),
      1.0, 100000.0},
  {"resample-frequency", "Resample frequency", "Rate the signal is "
        "resampled to before the NCCF, Hz (Kaldi --resample-frequency)",
      OptType::FLOAT, PO (resample_freq), 100.0, 192000.0},
  {"delta-pitch", "Delta pitch", "Step of the lag grid: lags grow by a "
        "factor 1 + delta-pitch (Kaldi --delta-pitch)", OptType::FLOAT,
      PO (delta_pitch), 1e-5, 1.0},
  {"nccf-ballast", "NCCF ballast", "Increasing it lowers the NCCF of quiet "
        "frames (Kaldi --nccf-ballast)", OptType::FLOAT, PO (nccf_ballast),
      0.0, 1e12},
  {"lowpass-filter-width", "Low-pass filter width", "Zero crossings of the "
        "resampling filter on each side (Kaldi --lowpass-filter-width)",
      OptType::INT, PO (lowpass_filter_width), 1, 1000},
  {"upsample-filter-width", "Upsample filter width", "Zero crossings of "
        "the NCCF upsampling filter on each side (Kaldi "
        "--upsample-filter-width)", OptType::INT, PO (upsample_filter_width),
      1, 1000},
  {"max-frames-latency", "Maximum frames latency", "Online only: frames "
        "the traceback may hold back (Kaldi --max-frames-latency; no effect "
        "offline)", OptType::INT, PO (max_frames_latency), 0, 100000},
  {"frames-per-chunk", "Frames per chunk", "Online pitch in chunks of "
        "this many frames' samples, as Kaldi --frames-per-chunk (0: offline, "
        "each utterance whole; a live source runs with 10)", OptType::INT,
      PO (frames_per_chunk), 0, 100000},
  {"simulate-first-pass-online", "Simulate first pass online", "Online: "
        "push each frame as it is first ready, as Kaldi "
        "--simulate-first-pass-online (FALSE: the final traceback's frames at "
        "the end of the utterance; a live source always gets the first "
        "pass); needs frames-per-chunk > 0", OptType::BOOL,
      PO (simulate_first_pass_online), 0, 1},
  {"recompute-frame", "Recompute frame", "Frame by which the energy "
        "estimate of the ballast is settled and earlier frames rescaled "
        "(Kaldi --recompute-frame)", OptType::INT, PO (recompute_frame), 0,
      1000000},
  {"nccf-ballast-online", "NCCF ballast online", "Take each frame's "
        "ballast from the signal up to it (Kaldi --nccf-ballast-online)",
      OptType::BOOL, PO (nccf_ballast_online), 0, 1},
  {"snip-edges", "Snip edges", "Only frames that fit in the signal; else "
        "frames centred on multiples of the shift (Kaldi --snip-edges)",
      OptType::BOOL, PO (snip_edges), 0, 1},
  {"pitch-scale", "Pitch scale", "Scale of the normalised log pitch (Kaldi "
        "--pitch-scale)", OptType::FLOAT, PP (pitch_scale), -1e6, 1e6},
  {"pov-scale", "POV scale", "Scale of the POV feature (Kaldi --pov-scale)",
      OptType::FLOAT, PP (pov_scale), -1e6, 1e6},
  {"pov-offset", "POV offset", "Added to the POV feature after its scale "
        "(Kaldi --pov-offset)", OptType::FLOAT, PP (pov_offset), -1e6, 1e6},
  {"delta-pitch-scale", "Delta pitch scale", "Scale of the delta pitch "
        "(Kaldi --delta-pitch-scale)", OptType::FLOAT, PP (delta_pitch_scale),
      -1e6, 1e6},
  {"delta-pitch-noise-stddev", "Delta pitch noise", "Stddev of the "
        "Gaussian noise added to the delta pitch (Kaldi "
        "--delta-pitch-noise-stddev; Kaldi's default 0.005 kept; 0: "
        "deterministic, as Kaldi with 0)", OptType::FLOAT,
      PP (delta_pitch_noise_stddev), 0.0, 1e6},
  {"normalization-left-context", "Normalisation left context", "Frames "
        "before a frame in the POV-weighted mean of the log pitch (Kaldi "
        "--normalization-left-context)", OptType::INT,
      PP (normalization_left_context), 0, 1000000},
  {"normalization-right-context", "Normalisation right context", "Frames "
        "after a frame in the POV-weighted mean of the log pitch (Kaldi "
        "--normalization-right-context)", OptType::INT,
      PP (normalization_right_context), 0, 1000000},
  {"delta-window", "Delta window", "Frames each side in the delta pitch "
        "(Kaldi --delta-window)", OptType::INT, PP (delta_window), 1, 1000},
  {"delay", "Delay", "Frames the processed features are delayed by, the "
        "first repeated (Kaldi --delay)", OptType::INT, PP (delay), 0,
      100000},
  {"add-pov-feature", "Add POV feature", "Output the POV feature (Kaldi "
        "--add-pov-feature)", OptType::BOOL, PP (add_pov_feature), 0, 1},
  {"add-normalized-log-pitch", "Add normalised log pitch", "Output the "
        "normalised log pitch (Kaldi --add-normalized-log-pitch)",
      OptType::BOOL, PP (add_normalized_log_pitch), 0, 1},
  {"add-delta-pitch", "Add delta pitch", "Output the delta pitch (Kaldi "
        "--add-delta-pitch)", OptType::BOOL, PP (add_delta_pitch), 0, 1},
  {"add-raw-log-pitch", "Add raw log pitch", "Output the log pitch "
        "(Kaldi --add-raw-log-pitch)", OptType::BOOL, PP (add_raw_log_pitch),
      0, 1},
  {"srand", "Seed", "Seed of the delta-pitch noise (Kaldi --srand of "
        "process-kaldi-pitch-feats; another generator than Kaldi's)",
      OptType::UINT, PP (srand), 0, G_MAXUINT},
};

#undef PO
#undef PP

/* the field of option o in the two configs */
const void *
option_field (const afet::PitchConfig * pc,
    const afet::ProcessPitchConfig * proc, const KaldiOption * o)
{
  const char *base = o->process ? (const char *) proc : (const char *) pc;
  return base + o->offset;
}

}                               /* namespace */

void
gst_afet_pitch_install_options (GObjectClass * klass, guint first_prop_id,
    GParamFlags flags)
{
  const afet::PitchConfig pc;
  const afet::ProcessPitchConfig proc;
  for (guint i = 0; i < G_N_ELEMENTS (kaldi_options); i++) {
    const KaldiOption *o = &kaldi_options[i];
    const void *f = option_field (&pc, &proc, o);
    GParamSpec *spec = nullptr;
    switch (o->type) {
      case OptType::FLOAT:
        spec = g_param_spec_double (o->name, o->nick, o->blurb, o->min,
            o->max, *(const float *) f, flags);
        break;
      case OptType::INT:
        spec = g_param_spec_int (o->name, o->nick, o->blurb, (gint) o->min,
            (gint) o->max, *(const int *) f, flags);
        break;
      case OptType::UINT:
        spec = g_param_spec_uint (o->name, o->nick, o->blurb, (guint) o->min,
            (guint) o->max, *(const unsigned *) f, flags);
        break;
      case OptType::BOOL:
        spec = g_param_spec_boolean (o->name, o->nick, o->blurb,
            *(const bool *) f, flags);
        break;
    }
    g_object_class_install_property (klass, first_prop_id + i, spec);
  }
}

gboolean
gst_afet_pitch_set_option (afet::PitchConfig * pc,
    afet::ProcessPitchConfig * proc, guint index, const GValue * value)
{
  if (index >= G_N_ELEMENTS (kaldi_options))
    return FALSE;
  const KaldiOption *o = &kaldi_options[index];
  void *f = const_cast<void *> (option_field (pc, proc, o));
  switch (o->type) {
    case OptType::FLOAT:
      *(float *) f = (float) g_value_get_double (value);
      break;
    case OptType::INT:
      *(int *) f = g_value_get_int (value);
      break;
    case OptType::UINT:
      *(unsigned *) f = g_value_get_uint (value);
      break;
    case OptType::BOOL:
      *(bool *) f = g_value_get_boolean (value);
      break;
  }
  return TRUE;
}

gboolean
gst_afet_pitch_get_option (const afet::PitchConfig * pc,
    const afet::ProcessPitchConfig * proc, guint index, GValue * value)
{
  if (index >= G_N_ELEMENTS (kaldi_options))
    return FALSE;
  const KaldiOption *o = &kaldi_options[index];
  const void *f = option_field (pc, proc, o);
  switch (o->type) {
    case OptType::FLOAT:
      g_value_set_double (value, *(const float *) f);
      break;
    case OptType::INT:
      g_value_set_int (value, *(const int *) f);
      break;
    case OptType::UINT:
      g_value_set_uint (value, *(const unsigned *) f);
      break;
    case OptType::BOOL:
      g_value_set_boolean (value, *(const bool *) f);
      break;
  }
  return TRUE;
}
