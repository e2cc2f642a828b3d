/* Context stages' shared part (context.h): kernels built and blocks of rows
 * launched.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "context.h"
#include "clutil.h"

namespace afet {

ContextStage::~ContextStage () = default;

Status
ContextStage::make_kernels (const char *prog, const char *source,
    const char *sha256, const char *name)
{
  name_ = name;
  AFET_RETURN_IF_ERROR (make_kernel (*device_, prog, source, sha256,
          build_options (), name, &kernel_));
  return make_kernel (*device_, prog, source, sha256, build_options (),
      (name_ + "_lanes").c_str (), &lanes_kernel_);
}

Status
ContextStage::enqueue (const ContextBlock &in, long long out_first, int n,
    cl_mem out, size_t out_row)
{
  ArgSetter a (kernel_.get ());
  a (in.rows) ((cl_uint) in.row_stride) ((cl_long) in.first_row)
      ((cl_long) in.total) ((cl_long) out_first) ((cl_uint) n);
  kernel_args (a);
  a (out) ((cl_uint) (out_row * out_dims ()));
  AFET_RETURN_IF_ERROR (a.status (name_.c_str ()));
  size_t groups = ((size_t) n * block_items_per_frame () + lsz_ - 1) / lsz_;
  return launch (queue_, kernel_.get (), groups, lsz_, name_.c_str ());
}

Status
ContextStage::enqueue_lanes (const LaneBlock &in, int n, cl_mem out)
{
  if (!has_lanes () || !lanes_kernel_)
    return Status (Status::BAD_CONFIG, "this stage keeps per-stream state "
        "on the device: it computes each stream on its own");
  ArgSetter a (lanes_kernel_.get ());
  a (in.rows) ((cl_uint) in.row_stride) ((cl_uint) in.ring) (in.desc)
      ((cl_uint) n);
  kernel_args (a);
  a (out);
  std::string name = name_ + "_lanes";
  AFET_RETURN_IF_ERROR (a.status (name.c_str ()));
  size_t groups = ((size_t) n * items_per_frame () + lsz_ - 1) / lsz_;
  return launch (queue_, lanes_kernel_.get (), groups, lsz_, name.c_str ());
}

Status
ContextStage::init_device (std::shared_ptr<Device> device,
    cl_command_queue queue)
{
  device_ = std::move (device);
  lsz_ = pick_local_size (*device_);
  return use_queue (*device_, queue, &own_queue_, &queue_);
}

std::string
ContextStage::build_options () const
{
  return "-DAFET_LSZ=" + std::to_string (lsz_) + extra_options_;
}

}  /* namespace afet */
