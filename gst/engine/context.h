/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "device.h"
#include "transfer.h"

#include <memory>
#include <string>

namespace afet {

/* The input of the stages whose output frame t reads input frames around t
 * (deltas, TRAPS, CMVN): a device block of rows holding frames first_row ..
 * first_row + rows - 1 of a stream of total frames (-1 while unknown);
 * frames outside the stream are clamped to it (the edge frame repeats).
 * The block must hold every frame from out_first minus the look-back to
 * out_first + n - 1 plus the look-ahead that lies in the stream. */
struct ContextBlock
{
  cl_mem rows = nullptr;
  int row_stride = 0;           /* floats a row */
  long long first_row = 0;
  long long total = -1;
};

/* Stages whose output frames read their input frames around them: deltas,
 * TRAPS, CMVN. Each has a config with validate () and its look-ahead (and
 * look-back), and enqueues into rows of its output width. */
class ContextStage
{
public:
  virtual ~ContextStage ();
  /* Output frames out_first .. out_first + n - 1 (n <= the config's
   * max_batch) into rows out_row.. of out. */
  virtual Status enqueue (const ContextBlock &in, long long out_first, int n,
      cl_mem out, size_t out_row) = 0;

protected:
  /* The start of every init: the device, its local size, the queue. */
  Status init_device (std::shared_ptr<Device> device, cl_command_queue queue);
  /* The build options of the context and CMVN programs. */
  std::string build_options () const;

  std::shared_ptr<Device> device_;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  size_t lsz_ = 64;
};

/* A context stage, given its config type: init validates the config, sets
 * up the device and queue, then the stage's kernels (init_kernels). */
template <class Config>
class ContextStageOf : public ContextStage
{
public:
  Status init (std::shared_ptr<Device> device, const Config &cfg,
      cl_command_queue queue = nullptr)
  {
    cfg_ = cfg;
    AFET_RETURN_IF_ERROR (cfg_.validate ());
    AFET_RETURN_IF_ERROR (init_device (std::move (device), queue));
    return init_kernels ();
  }
  const Config &config () const { return cfg_; }

protected:
  virtual Status init_kernels () = 0;

  Config cfg_;
};

}  /* namespace afet */
