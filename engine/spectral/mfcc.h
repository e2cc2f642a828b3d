/* The MFCC stage: MFCCs or the log mel filter bank (num_ceps = 0) of the
 * spectral front's spectra.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "spectral.h"

namespace afet {

enum class DctMode
{
  FUSED = 0,    /* afet_melbank_dct: filter bank, log, DCT in one kernel */
  GEMM,         /* afet_melbank, then a CLBlast SGEMM */
};

/* MFCC / log mel filter bank. num_ceps = 0: the log filter bank. */
struct MfccConfig : SpectralConfig
{
  DctMode dct = DctMode::FUSED;

  /* columns in the order of leading (see SpectralConfig): c0 (Kaldi's
   * orthonormal scale sqrt(1/M)) or the energy first, then c1..cN or the M
   * channels, not both c0 and energy; or HTK's: c1..cN, c0 (sqrt(2/M)), E;
   * or M channels, E */
  int dims () const;
  int c0_index () const;
  int energy_index () const;
  /* Checks the parameters; the message names what to change. */
  Status validate () const;
  /* see SpectralConfig::front_key */
  std::string key () const;
};

class MfccStage : public SpectralKind<MfccConfig>
{
private:
  Status init_kind () override;
  Status spectra_to_features (int n, cl_mem out, size_t out_row) override;
  void fused_args (ArgSetter &a, cl_mem out, size_t out_row) override;
  /* where a row's cepstra or channels start in out */
  size_t first_column (size_t out_row) const;
  float log_mul () const;

  ClKernel melbank_kernel_;
  ClKernel melbank_dct_kernel_;
  ClMem fbank_;         /* GEMM path: max_batch x M */
  /* in pieces (upload_pieces) where the group front fuses it */
  FilterBankBuffers bank_;
  ClMem dct_;
  int ncols_dct_ = 0;
};

}  /* namespace afet */
