/* The presets' table (see presets.h): what htk, kaldi, whisper and lhotse
 * set, one row each.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* docs/compat.md's "What each preset sets" states it. */

#include "presets.h"

#include <cfloat>
#include <cstdio>

namespace afet {

/* *INDENT-OFF* */
static const std::vector<PresetDefaults> kPresets = {
  /* afet's historic defaults: HTK 3.4's HCopy conventions */
  {Preset::HTK, "htk",
    25.0, 10.0, Window::HAMMING, 0.97, false, true, Edges::MIRROR, false,
    0.0, EnergyMode::HTK,
    23, 23, 12, 0.0, 0.0, 22, false, false, true, false, 0.0, false, true,
    false, 1.0, 100.0, -500.0,
    MelLayout::HTK, true, false, 1.0f, false, false,
    {nullptr, PlpVariant::HTK, true, 0.33, 12, 1.0}},
  /* Kaldi's compute-mfcc-feats / compute-fbank-feats (as kaldi-native-fbank)
   * and compute-plp-feats, dither 0 */
  {Preset::KALDI, "kaldi",
    25.0, 10.0, Window::POVEY, 0.97, true, true, Edges::MIRROR, false,
    0.0, EnergyMode::KALDI,
    23, 23, 12, 20.0, 0.0, 22, true, true, true, true, 0.0, false, true,
    false, 1.0, 100.0, -500.0,
    MelLayout::KALDI, false, false, FLT_EPSILON, false, true,
    {nullptr, PlpVariant::KALDI, true, 0.33333, 12, 1.0}},
  /* Whisper's log_mel_spectrogram: centred frames, a 400-point FFT, the
   * slaney bank, log10, clamped */
  {Preset::WHISPER, "whisper",
    25.0, 10.0, Window::HANN_PERIODIC, 0.0, false, false, Edges::REFLECT,
    true, 0.0, EnergyMode::KALDI,
    80, 80, 0, 0.0, 0.0, 22, true, false, false, true, 0.0, false, true,
    true, 1.0, 100.0, -500.0,
    MelLayout::SLANEY, false, true, 1e-10f, true, false,
    {"preset=whisper has no PLP (Whisper computes a log-mel spectrogram "
        "only): use afetplp preset=kaldi or preset=htk, or afetmfcc "
        "preset=whisper", PlpVariant::HTK, true, 0.33, 12, 1.0}},
  /* lhotse's Fbank (80 bins) and Mfcc (23 bins), samples in [-1, 1] */
  {Preset::LHOTSE, "lhotse",
    25.0, 10.0, Window::POVEY, 0.97, true, false, Edges::MIRROR_LHOTSE,
    true, 0.0, EnergyMode::LHOTSE,
    80, 23, 0, 20.0, -400.0, 22, true, false, true, true, 1e-10, false,
    true, false, 1.0, 100.0, -500.0,
    MelLayout::KALDI, false, false, FLT_EPSILON, false, true,
    {"preset=lhotse has no PLP (lhotse extracts Fbank and Mfcc only): use "
        "afetplp preset=kaldi for Kaldi's compute-plp-feats, or afetmfcc "
        "preset=lhotse", PlpVariant::HTK, true, 0.33, 12, 1.0}},
};
/* *INDENT-ON* */

const PresetDefaults &
preset_defaults (Preset p)
{
  for (const auto &d : kPresets)
    if (d.preset == p)
      return d;
  return kPresets[0];
}

const std::vector<PresetDefaults> &
preset_table ()
{
  return kPresets;
}

static std::string
number (double v)
{
  char buf[32];
  snprintf (buf, sizeof buf, "%.10g", v);
  return buf;
}

static std::string
truth (bool b)
{
  return b ? "true" : "false";
}

/* the window property's nicks */
static std::string
window_name (Window w)
{
  static const char *const names[] = { "hamming", "hann", "povey",
    "rectangular", "blackman", "hann-periodic"
  };
  return names[(int) w];
}

std::vector<std::pair<std::string, std::string>>
preset_properties (const PresetDefaults &d)
{
  return {
    {"frame-length", number (d.frame_length)},
    {"frame-shift", number (d.frame_shift)},
    {"window", window_name (d.window)},
    {"preemphasis", number (d.preemphasis)},
    {"remove-dc", truth (d.remove_dc)},
    {"snip-edges", truth (d.snip_edges)},
    {"dither", number (d.dither)},
    {"sample-range", d.unit_range ? "unit" : "int16"},
    {"num-filters", number (d.num_filters)},
    {"num-ceps", number (d.num_ceps)},
    {"low-freq", number (d.low_freq)},
    {"high-freq", number (d.high_freq)},
    {"lifter", number (d.lifter)},
    {"use-power", truth (d.use_power)},
    {"energy", truth (d.energy)},
    {"c0", truth (d.c0)},
    {"energy-floor", number (d.energy_floor)},
    {"htk-compat", truth (d.htk_compat)},
    {"raw-energy", truth (d.raw_energy)},
    {"clamp", d.clamp ? "utterance" : "none"},
    {"warp-factor", number (d.warp)},
    {"warp-low", number (d.warp_low)},
    {"warp-high", number (d.warp_high)},
    {"use-power (afetplp)", truth (d.plp.use_power)},
    {"compression (afetplp)", number (d.plp.compression)},
    {"lpc-order (afetplp)", number (d.plp.lpc_order)},
    {"cepstral-scale (afetplp)", number (d.plp.cepstral_scale)},
  };
}

}  /* namespace afet */
