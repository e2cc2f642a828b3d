/* The TRAPS stage: LC-RC TRAPS, each band's left and right half-trajectories
 * weighted and reduced by a DCT.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "context.h"

#include <vector>

namespace afet {

/* LC-RC TRAPS (thesis 2.3.4): per band, the trajectory of length frames
 * centred on t is split into a left half t-H+1..t and a right half
 * t..t+H-1 (H = (length + 1) / 2, overlapping at t), each weighted by its
 * half of a length-point Hamming window and reduced by an orthonormal
 * DCT-II to num_dct coefficients (the 0th included). Output: per band,
 * num_dct left then num_dct right coefficients. */
struct TrapsConfig
{
  int bands = 15;
  int row_stride = 15;          /* floats an input row (>= bands) */
  int length = 31;              /* odd */
  int num_dct = 11;             /* <= (length + 1) / 2 */
  int max_batch = 4096;

  int half () const { return (length + 1) / 2; }
  int dims () const { return bands * 2 * num_dct; }
  int ahead () const { return half () - 1; }
  Status validate () const;
  std::string key () const;
};

/* The weights: [h][k][i] = hamming (h (H - 1) + i) x dct (k, i), H points,
 * orthonormal DCT-II (sqrt (1/H) for k = 0, sqrt (2/H) after). */
std::vector<float> traps_weights (const TrapsConfig &cfg);

/* kernels afet_traps and afet_traps_lanes: a work-item per output value */
class TrapsStage : public ContextStageOf<TrapsConfig, TrapsStage>
{
  Status init_kernels () override;
  void kernel_args (ArgSetter &a) const override;
  int out_dims () const override { return cfg_.dims (); }

  ClMem weights_;
};

}  /* namespace afet */
