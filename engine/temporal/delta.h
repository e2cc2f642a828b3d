/* The delta stage: regression deltas, accelerations and third order with
 * HTK's edges.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "context.h"

namespace afet {

/* Regression deltas with HTK's edges: deltas from the statics with indices
 * clamped to the stream; accelerations (and third order) by the same
 * formula over the previous order's sequence, its indices clamped too. */
struct DeltaConfig
{
  int statics = 13;             /* columns a frame */
  int row_stride = 13;          /* floats an input row (>= statics) */
  int order = 2;                /* 1..3 */
  int delta_window = 2;         /* HTK DELTAWINDOW */
  int accel_window = 2;         /* HTK ACCWINDOW (also the third order's) */
  int max_batch = 4096;

  int dims () const { return statics * (order + 1); }
  int ahead () const { return delta_window + (order - 1) * accel_window; }
  Status validate () const;
  std::string key () const;
};

/* kernels afet_delta and afet_delta_lanes: a work-item per static column */
class DeltaStage : public ContextStageOf<DeltaConfig, DeltaStage>
{
  Status init_kernels () override;
  void kernel_args (ArgSetter &a) const override;
  int out_dims () const override { return cfg_.dims (); }
  int items_per_frame () const override { return cfg_.statics; }
};

}  /* namespace afet */
