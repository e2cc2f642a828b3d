/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Everything specific to VkFFT (Debian 12: 1.2.26, one header) lives here.
 * Newer VkFFT releases changed the header layout and some type names: adapt
 * this file only. */
#define VKFFT_BACKEND 3
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <vkFFT.h>
#pragma GCC diagnostic pop

#include "fft.h"

#include <algorithm>

namespace afet {

struct RealFft::Plan
{
  VkFFTApplication app = {};
  bool initialized = false;
  int capacity = 0;
  uint64_t buffer_size = 0;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_platform_id platform = nullptr;

  ~Plan ()
  {
    if (initialized)
      deleteVkFFT (&app);
  }
};

RealFft::RealFft () = default;
RealFft::~RealFft () = default;

void
RealFft::reset ()
{
  plans_.clear ();
}

std::vector<int>
RealFft::capacities_for (int max_batch)
{
  std::vector<int> caps;
  for (int c = max_batch; c >= 8; c /= 8)
    caps.push_back (c);
  if (caps.empty ())
    caps.push_back (max_batch);
  std::sort (caps.begin (), caps.end ());
  return caps;
}

int
RealFft::max_rows () const
{
  return plans_.empty () ? 0 : plans_.back ()->capacity;
}

Status
RealFft::init (Device &device, int fft_size, std::vector<int> capacities,
    cl_mem buffer)
{
  reset ();
  fft_size_ = fft_size;
  std::sort (capacities.begin (), capacities.end ());
  for (int cap : capacities) {
    auto plan = std::make_unique<Plan> ();
    plan->capacity = cap;
    plan->device = device.device ();
    plan->context = device.context ();
    plan->platform = device.platform ();
    plan->buffer_size = (uint64_t) cap * (fft_size + 2) * sizeof (float);

    VkFFTConfiguration conf = {};
    conf.FFTdim = 1;
    conf.size[0] = (uint64_t) fft_size;
    conf.numberBatches = (uint64_t) cap;
    conf.performR2C = 1;
    /* VkFFT's default R2C packs two real rows into one complex FFT. The
     * rows then share rounding errors (a quiet frame next to a loud one
     * picks up eps x the loud one's spectrum) and a padding row of garbage
     * past the batch spoils its partner: each frame must depend on itself
     * only, whatever the batch, so transform rows one by one. */
    conf.disableMergeSequencesR2C = 1;
    conf.device = &plan->device;
    conf.context = &plan->context;
    conf.platform = &plan->platform;
    conf.buffer = &buffer;
    conf.bufferSize = &plan->buffer_size;

    VkFFTResult res = initializeVkFFT (&plan->app, conf);
    if (res != VKFFT_SUCCESS)
      return Status (Status::FFT, "VkFFT plan for " + std::to_string (cap) +
          " x " + std::to_string (fft_size) + "-point R2C failed (VkFFT "
          "error " + std::to_string ((int) res) + ")");
    plan->initialized = true;
    plans_.push_back (std::move (plan));
  }
  return Status::Ok ();
}

Status
RealFft::forward (cl_command_queue queue, cl_mem buffer, int rows)
{
  if (rows <= 0)
    return Status::Ok ();
  for (auto &plan : plans_) {
    if (plan->capacity < rows)
      continue;
    VkFFTLaunchParams params = {};
    params.commandQueue = &queue;
    params.buffer = &buffer;
    VkFFTResult res = VkFFTAppend (&plan->app, -1, &params);
    if (res != VKFFT_SUCCESS)
      return Status (Status::FFT, "VkFFTAppend failed (VkFFT error " +
          std::to_string ((int) res) + ")");
    return Status::Ok ();
  }
  return Status (Status::FFT, "batch of " + std::to_string (rows) +
      " rows exceeds the largest FFT plan (" + std::to_string (max_rows ()) +
      ")");
}

}  /* namespace afet */
