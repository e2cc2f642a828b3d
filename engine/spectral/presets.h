/* The presets (htk, kaldi, whisper, lhotse): every default and convention
 * each one sets, one row a preset, in one table (presets.cc).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* The elements read the table and docs/compat.md states (the compat-doc test
 * checks the page against it). GStreamer-free. */

#include "framing.h"
#include "params.h"
#include "plp.h"

#include <string>
#include <utility>
#include <vector>

namespace afet {

/* Numbered as the caps' AfetFeaturesPreset and the elements'
 * GstAfetPreset (0 there is "none"). */
enum class Preset
{
  HTK = 1,
  KALDI,
  WHISPER,
  LHOTSE,
};

/* What a preset sets, as kaldi-native-fbank's Options hold Kaldi's: the
 * defaults of the elements' properties (a property set explicitly wins)
 * and the conventions that come with the tool. */
struct PresetDefaults
{
  Preset preset;
  const char *name;             /* the property's nick and the caps' value */

  /* framing (every element that cuts frames) */
  double frame_length, frame_shift;     /* ms */
  Window window;
  double preemphasis;
  bool remove_dc;
  bool snip_edges;
  Edges unsnipped;              /* the frames' edges with snip-edges=false */
  bool unit_range;              /* sample-range: [-1, 1], else 16-bit */
  double dither;
  EnergyMode energy_mode;       /* the raw log energy's formula */

  /* filter bank and cepstra (afetmfcc, afetplp) */
  int num_filters;              /* a filter bank (num-ceps=0) */
  int num_filters_cepstra;      /* with cepstra (lhotse's Mfcc: 23) */
  int num_ceps;
  double low_freq;
  double high_freq;             /* 0 = Nyquist, < 0 below it */
  int lifter;
  bool use_power;               /* afetmfcc's; afetplp's: plp.use_power */
  /* the energy with cepstra, unless c0 is asked for (Kaldi's use-energy);
   * never with a filter bank */
  bool energy;
  bool c0;
  bool energy_replaces_c0;      /* Kaldi's: c0 only without the energy */
  double energy_floor;
  bool htk_compat;
  bool raw_energy;
  bool clamp;                   /* Whisper's clamp over the utterance */
  double warp, warp_low, warp_high;     /* VTLN: factor, cut-offs in Hz */

  /* conventions (not properties) */
  MelLayout mel_layout;
  bool htk_period_quirk;        /* HTK's 44.1 kHz sample-period quirk */
  bool fft_unpadded;            /* a W-point FFT, not the next power of 2 */
  float log_floor;              /* filter-bank values floored before log */
  bool log10;
  bool leading;                 /* c0 or energy in column 0 unless htk-compat */

  /* PLP (afetplp) */
  struct
  {
    const char *refused;        /* why this preset has no PLP, or null */
    PlpVariant variant;
    bool use_power;
    double compression;
    int lpc_order;
    double cepstral_scale;
  } plp;

  /* num-filters for a number of cepstra */
  int filters (int ceps) const
  {
    return ceps > 0 ? num_filters_cepstra : num_filters;
  }
};

/* The row of a preset; HTK's for a value outside the enum. */
const PresetDefaults &preset_defaults (Preset p);

/* Every row, in the enum's order. */
const std::vector<PresetDefaults> &preset_table ();

/* A row as the elements' properties and the values docs/compat.md writes
 * ("frame-length" "25", "window" "hamming", "use-power (afetplp)" "true",
 * ...), in the page's order. */
std::vector<std::pair<std::string, std::string>>
preset_properties (const PresetDefaults &d);

}  /* namespace afet */
