/* RealFft: batched in-place real-to-complex FFTs of N-point rows on the
 * device (VkFFT), a plan kept per context, size and capacity.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "device.h"

#include <memory>
#include <vector>

namespace afet {

/* Batched in-place real-to-complex FFTs of N-point rows, each row padded to
 * N + 2 floats (the N/2 + 1 complex outputs overwrite it).
 *
 * A plan (compiled kernels) is built once per context, size and capacity
 * and kept for the process: a pipeline per short file would otherwise spend
 * far longer compiling plans than transforming. VkFFT sets kernel arguments
 * on every append, so each plan has a mutex held while VkFFTAppend sets
 * arguments and enqueues on the caller's queue (microseconds; never while
 * the device computes). Plans of more than 8192 points, for which VkFFT
 * keeps a scratch buffer in the plan, are not shared.
 *
 * VkFFT compiles the batch count into its kernels, so one plan is built per
 * batch capacity at init() (never while streaming); forward() runs the
 * smallest plan whose capacity holds the rows asked for, and the rows past
 * them are computed and ignored. This is the only file that knows VkFFT. */
class RealFft
{
public:
  RealFft ();
  ~RealFft ();
  RealFft (const RealFft &) = delete;
  RealFft &operator= (const RealFft &) = delete;

  /* capacities: ascending batch sizes; buffer must hold the largest. */
  Status init (Device &device, int fft_size, std::vector<int> capacities,
      cl_mem buffer);
  Status forward (cl_command_queue queue, cl_mem buffer, int rows);
  int max_rows () const;
  void reset ();

  /* Capacities for a maximum batch: max, max/2, max/4, then max/8, max/64,
   * ... (>= 8). */
  static std::vector<int> capacities_for (int max_batch);

private:
  struct Plan;
  std::vector<std::shared_ptr<Plan>> plans_;
  int fft_size_ = 0;
};

}  /* namespace afet */
