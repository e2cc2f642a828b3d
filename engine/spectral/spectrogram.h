/* The spectrogram stage: Kaldi's compute-spectrogram-feats (log power
 * spectra, column 0 the frame's log energy).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "spectral.h"

namespace afet {

/* Kaldi's compute-spectrogram-feats: ln(max(|X_k|^2, FLT_EPSILON)) for the
 * bins k = 0 .. N/2 (N / 2 + 1 columns) of the shared front's spectra, with
 * column 0 replaced by the frame's log energy (Kaldi always does that),
 * which the front's framing kernel writes there (ln max(e, FLT_EPSILON), at
 * least ln framing.energy_floor): of the raw samples or, with raw_energy =
 * false (framing.energy_windowed), of the windowed, pre-emphasised frame.
 * The framing's energy_mode must be KALDI (the energy formula is part of
 * the spectrogram's); the mel-bank fields of SpectralConfig do not apply. */
struct SpectrogramConfig : SpectralConfig
{
  bool raw_energy = true;

  int dims () const { return fft_size () / 2 + 1; }
  /* the column the front writes the log energy to */
  int energy_index () const { return 0; }
  /* Checks the parameters; the message names what to change. */
  Status validate () const;
  /* see SpectralConfig::front_key */
  std::string key () const;
};

class SpectrogramStage : public SpectralKind<SpectrogramConfig>
{
private:
  Status init_kind () override;
  Status spectra_to_features (int n, cl_mem out, size_t out_row) override;

  ClKernel kernel_;
};

}  /* namespace afet */
