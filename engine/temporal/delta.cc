/* The delta stage (delta.h): its configuration's checks and regression
 * weights.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "delta.h"
#include "clutil.h"

#include "afet-kernels.h"

namespace afet {

Status
DeltaConfig::validate () const
{
  if (order < 1 || order > 3)
    return Status (Status::BAD_CONFIG, "order must be 1, 2 or 3");
  if (delta_window < 1 || accel_window < 1)
    return Status (Status::BAD_CONFIG, "delta-window and accel-window must "
        "be at least 1");
  if (statics < 1 || row_stride < statics)
    return Status (Status::BAD_CONFIG, "no static columns");
  return Status::Ok ();
}

std::string
DeltaConfig::key () const
{
  return "delta " + std::to_string (statics) + " " +
      std::to_string (row_stride) + " " + std::to_string (order) + " " +
      std::to_string (delta_window) + " " + std::to_string (accel_window);
}

Status
DeltaStage::init_kernels ()
{
  return make_kernels ("context", kernels::context, kernels::context_sha256,
      "afet_delta");
}

static float
regression_norm (int w)
{
  double s = 0;
  for (int k = 1; k <= w; k++)
    s += (double) k * k;
  return (float) (2.0 * s);
}

void
DeltaStage::kernel_args (ArgSetter &a) const
{
  const DeltaConfig &c = cfg_;
  a ((cl_uint) c.statics) ((cl_int) c.order) ((cl_int) c.delta_window)
      (regression_norm (c.delta_window)) ((cl_int) c.accel_window)
      (regression_norm (c.accel_window));
}
}  /* namespace afet */
