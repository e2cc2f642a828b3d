/* The PLP stage (perceptual linear prediction) with HTK 3.4.1's conventions
 * or Kaldi's, GStreamer-free.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "spectral.h"

#include <memory>
#include <vector>

/* HTK's conventions: TARGETKIND = PLP, USEPOWER = T, COMPRESSFACT,
 * LPCORDER; Kaldi's: compute-plp-feats (PlpVariant::KALDI).
 *
 * Per frame: HTK framing (framing.h) -> FFT -> power spectrum -> filter bank
 * over FFT bins 1 .. N/2-1 (HTK's mel triangles, or Hermansky's Bark
 * critical bands) -> floor at 1.0 -> equal-loudness weight of the channel
 * centre -> power `compression` -> the two edge channels copied outward
 * (M + 2 points) -> autocorrelation by the inverse DFT of that even
 * spectrum -> Durbin (order p) -> cepstrum of 1/A(z) -> lifter; c0 is the
 * log of Durbin's final prediction error. Columns: c1..cN, c0, E.
 *
 * Kaldi's variant differs in: the bank of mel_layout (Kaldi's), no floor on
 * the channels, each Durbin step's (1 - k^2) floored at 1e-5 (no stop),
 * c0 = max(ln err, FLT_MIN), cepstra only up to lpc_order (num_ceps <=
 * lpc_order), everything but the energy times cepstral_scale, and with
 * leading c0 or the energy in column 0. */

namespace afet {

enum class PlpFilterShape
{
  MEL = 0,      /* HTK: the MFCC mel filter bank (design_htk_melbank) */
  BARK,         /* Hermansky's critical-band curves on the Bark scale */
};

/* Whose conventions the stage computes. */
enum class PlpVariant
{
  HTK = 0,      /* HCopy's PLP */
  KALDI,        /* compute-plp-feats */
};

/* The highest LPC order and cepstrum count (the LPC kernel's private
 * arrays). */
constexpr int kMaxPlpOrder = 64;
constexpr int kMaxPlpCeps = 64;

/* num_ceps 1..64 (may exceed lpc_order); use_power defaults to true
 * (|X|^2, as HTK's PLP). */
struct PlpConfig : SpectralConfig
{
  int lpc_order = 12;             /* 1..64 */
  double compression = 0.33;      /* intensity-loudness power law */
  PlpFilterShape filter_shape = PlpFilterShape::MEL;
  PlpVariant variant = PlpVariant::HTK;
  double cepstral_scale = 1.0;    /* KALDI: c0..cN times this */

  PlpConfig () { use_power = true; }
  /* HTK's column order c1..cN, c0, E; with leading (KALDI only) c0 or E,
   * then c1..cN. */
  int dims () const;
  int c0_index () const;
  int energy_index () const;
  /* Checks the parameters; the message names what to change. */
  Status validate () const;
  /* see SpectralConfig::front_key */
  std::string key () const;
};

/* The host-side design of one configuration, in double precision, stored
 * as uploaded. Exposed for tests. */
struct PlpDesign
{
  FilterBank bank;             /* M channels, sparse spans, centres */
  std::vector<float> eql;      /* M equal-loudness weights */
  /* (p + 1) x (M + 2), row-major: r_i = sum_m idft[i][m] a_m, the inverse
   * DFT of the even (M + 2)-point spectrum normalised by 2 (M + 1) */
  std::vector<float> idft;
  /* N lifter weights (times cepstral_scale) for c1..cN; the stage appends
   * c0's, cepstral_scale */
  std::vector<float> lift;
};

/* HTK's equal-loudness curve (Hermansky 1990, frequency form), f in Hz:
 * (f^2 / (f^2 + 1.6e5))^2 (f^2 + 1.44e6) / (f^2 + 9.61e6). */
double plp_equal_loudness (double f_hz);

Status design_plp (const PlpConfig &cfg, PlpDesign *out);

class PlpStage : public SpectralKind<PlpConfig>
{
private:
  Status init_kind () override;
  Status spectra_to_features (int n, cl_mem out, size_t out_row) override;

  ClKernel bank_kernel_;
  ClKernel lpc_kernel_;
  ClMem aspec_;         /* auditory spectra: max_batch x (M + 2) */
  ClMem autoc_;         /* autocorrelation: (p + 1) x r_ld_ */
  FilterBankBuffers bank_;
  ClMem eql_, idft_, lift_;
  size_t r_ld_ = 0;
};

}  /* namespace afet */
