/* afet — speech features on OpenCL
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
};

class DeltaStage : public ContextStageOf<DeltaConfig>
{
public:
  Status enqueue (const ContextBlock &in, long long out_first, int n,
      cl_mem out, size_t out_row) override;

private:
  Status init_kernels () override;

  ClKernel kernel_;
};

}  /* namespace afet */
