/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "framing.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <algorithm>
#include <cstring>

namespace afet {

std::string
stage_build_options (size_t lsz)
{
  return "-DAFET_LSZ=" + std::to_string (lsz) + " -DAFET_MAX_FILTERS=" +
      std::to_string (kMaxFilters);
}

/* ---- framing ---------------------------------------------------------- */

Status
FramingKernel::init (Device &device, const FramingConfig &cfg, int max_batch)
{
  cfg_ = cfg;
  lsz_ = pick_local_size (device);
  if (cfg.W < 1 || cfg.S < 1)
    return Status (Status::BAD_CONFIG, "frame length and shift must be at "
        "least one sample");
  AFET_RETURN_IF_ERROR (make_kernel (device, "framing", kernels::framing,
          kernels::framing_sha256, stage_build_options (lsz_), "afet_frame",
          &kernel_));
  std::vector<float> win = make_window (cfg.window, cfg.W);
  AFET_RETURN_IF_ERROR (make_buffer (device.context (), CL_MEM_READ_ONLY,
          win.size () * sizeof (float), win.data (), &window_));
  samples_cap_ = (size_t) (max_batch - 1) * cfg.S + cfg.W;
  return make_buffer (device.context (), CL_MEM_READ_ONLY,
      samples_cap_ * sizeof (float), nullptr, &samples_);
}

Status
FramingKernel::enqueue (cl_command_queue q, const float *samples, int n,
    cl_mem out, size_t out_offset, int out_stride, cl_mem energy_buf,
    size_t energy_offset, int energy_stride, bool energy,
    TransferStats *stats)
{
  size_t count = (size_t) (n - 1) * cfg_.S + cfg_.W;
  if (n < 1 || count > samples_cap_)
    return Status (Status::BAD_CONFIG, "framing batch of " +
        std::to_string (n) + " frames is out of range");
  /* blocking: the caller may reuse its host memory at once */
  AFET_RETURN_IF_ERROR (upload (q, samples_.get (), 0,
          count * sizeof (float), samples, true, stats));
  cl_mem samples_mem = samples_.get (), window_mem = window_.get ();
  if (!energy_buf)
    energy_buf = out;
  ArgSetter a (kernel_.get ());
  a (samples_mem) ((cl_uint) cfg_.W) ((cl_uint) cfg_.S) (cfg_.preemph)
      (window_mem) (out) ((cl_uint) out_offset) ((cl_uint) out_stride)
      ((cl_uint) n) (energy_buf) ((cl_uint) energy_offset)
      ((cl_uint) energy_stride) ((cl_int) (energy ? 1 : 0));
  AFET_RETURN_IF_ERROR (a.status ("afet_frame"));
  return launch (q, kernel_.get (), n, lsz_, "afet_frame");
}

/* ---- afetframer ------------------------------------------------------- */

Status
FramerStage::init (std::shared_ptr<Device> device, const FramerConfig &cfg,
    cl_command_queue queue, TransferStats *stats)
{
  device_ = std::move (device);
  cfg_ = cfg;
  stats_ = stats;
  if (cfg.max_batch < 1)
    return Status (Status::BAD_CONFIG, "max-batch must be at least 1");
  AFET_RETURN_IF_ERROR (use_queue (*device_, queue, &own_queue_, &queue_));
  return framing_.init (*device_, cfg.framing, cfg.max_batch);
}

Status
FramerStage::enqueue (const float *samples, int n, cl_mem out,
    size_t out_row)
{
  const int dims = cfg_.dims ();
  if (n > cfg_.max_batch)
    return Status (Status::BAD_CONFIG, "batch larger than max-batch");
  return framing_.enqueue (queue_, samples, n, out, out_row * dims, dims,
      out, out_row * dims + cfg_.framing.W, dims, cfg_.energy, stats_);
}

Status
FramerStage::run (const float *samples, long long n, float *out)
{
  return run_host_batches (*device_, queue_, &out_, n, cfg_.max_batch,
      cfg_.dims (), out, stats_, [&](long long done, int b, cl_mem o) {
        return enqueue (samples + done * cfg_.framing.S, b, o, 0);
      });
}

}  /* namespace afet */
