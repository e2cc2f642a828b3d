/* afet — speech features on OpenCL
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

Status
DeltaStage::init_kernels ()
{
  return make_kernel (*device_, "context", kernels::context,
      kernels::context_sha256, build_options (), "afet_delta", &kernel_);
}

static float
regression_norm (int w)
{
  double s = 0;
  for (int k = 1; k <= w; k++)
    s += (double) k * k;
  return (float) (2.0 * s);
}

Status
DeltaStage::enqueue (const ContextBlock &in, long long out_first, int n,
    cl_mem out, size_t out_row)
{
  const DeltaConfig &c = cfg_;
  ArgSetter a (kernel_.get ());
  a (in.rows) ((cl_uint) in.row_stride) ((cl_long) in.first_row)
      ((cl_long) in.total) ((cl_long) out_first) ((cl_uint) n)
      ((cl_uint) c.statics) ((cl_int) c.order) ((cl_int) c.delta_window)
      (regression_norm (c.delta_window)) ((cl_int) c.accel_window)
      (regression_norm (c.accel_window)) (out)
      ((cl_uint) (out_row * c.dims ()));
  AFET_RETURN_IF_ERROR (a.status ("afet_delta"));
  size_t groups = ((size_t) n * c.statics + lsz_ - 1) / lsz_;
  return launch (queue_, kernel_.get (), groups, lsz_, "afet_delta");
}
}  /* namespace afet */
