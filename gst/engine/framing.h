/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "device.h"
#include "params.h"
#include "transfer.h"

#include <memory>
#include <string>

namespace afet {

/* How frames are cut from audio. W and S come from frame_samples(). */
struct FramingConfig
{
  int rate = 16000;
  int W = 400;
  int S = 160;
  Window window = Window::HAMMING;
  float preemph = 0.97f;
};

/* Every stage enqueues its work on a queue it is given (the element's: each
 * element instance has its own, so a live pipeline never waits behind
 * another's batch) or, if given none, on one of its own. Inputs and outputs
 * are device buffers addressed by row; the run_* functions are host-to-host
 * conveniences for tests and benchmarks. A stage takes at most max_batch
 * frames per enqueue. */

/* The framing kernel and its buffers, shared by the framer and every
 * feature stage that takes audio. Samples are floats in 16-bit integer
 * scale. */
class FramingKernel
{
public:
  Status init (Device &device, const FramingConfig &cfg, int max_batch);
  /* Uploads the (n - 1) S + W samples of n frames and enqueues the kernel:
   * rows of out_stride floats at out[out_offset], energies to
   * energy_buf[energy_offset + t * energy_stride] when energy. The host
   * samples must stay valid until the queue has finished. */
  Status enqueue (cl_command_queue q, const float *samples, int n,
      cl_mem out, size_t out_offset, int out_stride, cl_mem energy_buf,
      size_t energy_offset, int energy_stride, bool energy,
      TransferStats *stats);

private:
  FramingConfig cfg_;
  ClKernel kernel_;
  ClMem window_;
  ClMem samples_;
  size_t samples_cap_ = 0;
  size_t lsz_ = 64;
};

/* The build options of the framing and melbank programs (shared by every
 * stage that uses them). */
std::string stage_build_options (size_t lsz);

/* afetframer's computation: n frames of W pre-emphasised, windowed samples,
 * optionally followed by the raw log energy (W + 1 floats a frame). */
struct FramerConfig
{
  FramingConfig framing;
  bool energy = false;
  int max_batch = 4096;

  int dims () const { return framing.W + (energy ? 1 : 0); }
};

class FramerStage
{
public:
  Status init (std::shared_ptr<Device> device, const FramerConfig &cfg,
      cl_command_queue queue = nullptr, TransferStats *stats = nullptr);
  /* n <= max_batch frames from (n - 1) S + W samples into rows out_row.. of
   * out (dims floats a row). */
  Status enqueue (const float *samples, int n, cl_mem out, size_t out_row);
  /* Host to host, any n; blocking. */
  Status run (const float *samples, long long n, float *out);
  const FramerConfig &config () const { return cfg_; }

private:
  std::shared_ptr<Device> device_;
  FramerConfig cfg_;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  TransferStats *stats_ = nullptr;
  FramingKernel framing_;
  ClMem out_;
};

}  /* namespace afet */
