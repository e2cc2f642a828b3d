/* The clamp stage (clamp.h): its configuration's checks and kernel.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "clamp.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <algorithm>
#include <cstdio>

namespace afet {

Status
ClampConfig::validate () const
{
  if (dims < 1)
    return Status (Status::BAD_CONFIG, "nothing to clamp: no columns");
  if (!(range > 0.0f))
    return Status (Status::BAD_CONFIG, "the clamp's range must be positive");
  if (max_batch < 1)
    return Status (Status::BAD_CONFIG, "max-batch must be at least 1");
  return Status::Ok ();
}

std::string
ClampConfig::key () const
{
  char buf[128];
  snprintf (buf, sizeof buf, "clamp dims=%d scope=%d range=%.9g offset=%.9g "
      "scale=%.9g", dims, (int) scope, range, offset, scale);
  return buf;
}

Status
ClampStage::init_kernels ()
{
  const char *names[] = { "afet_row_max", "afet_running_max", "afet_clamp" };
  ClKernel *kernels[] = { &row_max_, &running_, &clamp_ };
  for (int i = 0; i < 3; i++)
    AFET_RETURN_IF_ERROR (make_kernel (*device_, "clamp", kernels::clamp,
            kernels::clamp_sha256, build_options (), names[i], kernels[i]));
  cl_context ctx = device_->context ();
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          (size_t) cfg_.max_batch * sizeof (float), nullptr, &rowmax_));
  return make_buffer (ctx, CL_MEM_READ_WRITE, sizeof (float), nullptr,
      &state_);
}

Status
ClampStage::running_max (const ContextBlock &in, long long first, int n,
    bool reset)
{
  cl_mem rowmax = rowmax_.get (), state = state_.get ();
  ArgSetter a (row_max_.get ());
  a (in.rows) ((cl_uint) in.row_stride) ((cl_long) in.first_row)
      ((cl_long) first) ((cl_uint) cfg_.dims) (rowmax);
  AFET_RETURN_IF_ERROR (a.status ("afet_row_max"));
  AFET_RETURN_IF_ERROR (launch (queue_, row_max_.get (), n, lsz_,
          "afet_row_max"));
  ArgSetter b (running_.get ());
  b (rowmax) ((cl_uint) n) (state) ((cl_int) (reset ? 1 : 0));
  AFET_RETURN_IF_ERROR (b.status ("afet_running_max"));
  return launch (queue_, running_.get (), 1, 1, "afet_running_max");
}

Status
ClampStage::enqueue (const ContextBlock &in, long long out_first, int n,
    cl_mem out, size_t out_row)
{
  const ClampConfig &c = cfg_;
  const bool utterance = c.scope == ClampScope::UTTERANCE;
  if (n < 1 || n > c.max_batch)
    return Status (Status::BAD_CONFIG, "clamp batch out of range");
  if (utterance && out_first == 0) {
    /* the run's largest value, once, in max_batch chunks */
    if (in.total < 0)
      return Status (Status::BAD_CONFIG, "the utterance clamp needs the "
          "whole run");
    for (long long r = 0; r < in.total; r += c.max_batch)
      AFET_RETURN_IF_ERROR (running_max (in, r, (int) std::min<long long>
              (c.max_batch, in.total - r), r == 0));
  } else if (!utterance) {
    AFET_RETURN_IF_ERROR (running_max (in, out_first, n, out_first == 0));
  }
  cl_mem rowmax = rowmax_.get (), state = state_.get ();
  ArgSetter a (clamp_.get ());
  a (in.rows) ((cl_uint) in.row_stride) ((cl_long) in.first_row)
      ((cl_long) out_first) ((cl_uint) c.dims) ((cl_uint) n) (rowmax)
      (state) ((cl_int) (utterance ? 0 : 1)) (c.range) (c.offset) (c.scale)
      (out) ((cl_uint) (out_row * c.dims));
  AFET_RETURN_IF_ERROR (a.status ("afet_clamp"));
  size_t groups = ((size_t) n * c.dims + lsz_ - 1) / lsz_;
  return launch (queue_, clamp_.get (), groups, lsz_, "afet_clamp");
}

}  /* namespace afet */
