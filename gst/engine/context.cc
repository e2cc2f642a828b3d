/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "context.h"
#include "clutil.h"

namespace afet {

ContextStage::~ContextStage () = default;

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
  return "-DAFET_LSZ=" + std::to_string (lsz_);
}

}  /* namespace afet */
