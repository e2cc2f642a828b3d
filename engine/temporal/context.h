/* Context stages, whose output frame reads its neighbouring frames (deltas,
 * TRAPS, CMVN, clamp): the block of input rows and the stage's base class.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "clutil.h"
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

/* The input of a launch for many live streams at once (ContextCombiner):
 * each stream's recent rows in a lane of ring rows (a power of two) of one
 * buffer, frame g of the lane from row base at row base + g mod ring
 * (kernels/rows.cl). Output row t (of n) is frame desc[3 t] of the stream
 * whose total is desc[3 t + 1] (-1 while unknown) and whose lane starts at
 * row desc[3 t + 2] (cl_long each). */
struct LaneBlock
{
  cl_mem rows = nullptr;
  int row_stride = 0;
  int ring = 0;
  cl_mem desc = nullptr;
  /* lanes the buffer holds (a stage that keeps a lane's state sizes it) */
  int lanes = 0;
};

/* Stages whose output frames read their input frames around them: deltas,
 * TRAPS, CMVN. Each has a config with validate (), key () and its
 * look-ahead (and look-back), and enqueues into rows of its output width. */
class ContextStage
{
public:
  virtual ~ContextStage ();
  /* Output frames out_first .. out_first + n - 1 (n <= the config's
   * max_batch) into rows out_row.. of out. By default the stage's kernel
   * (make_kernels) over the block. */
  virtual Status enqueue (const ContextBlock &in, long long out_first, int n,
      cl_mem out, size_t out_row);
  /* Whether the stage's values come from the rows (and state it keeps
   * per lane: sliding CMVN's sums, LaneBlock::lanes), so that the lanes of
   * many streams can go through enqueue_lanes; stages whose state spans
   * the whole stream say no. */
  virtual bool has_lanes () const { return true; }
  /* n output rows (each of its own stream, see LaneBlock) into rows 0.. of
   * out: the values enqueue gives each stream, bit for bit. */
  virtual Status enqueue_lanes (const LaneBlock &in, int n, cl_mem out);
  /* Every field of the config that changes a result, as text. */
  virtual std::string key () const = 0;
  /* A stage of the same config on the same device, on a queue of its own. */
  virtual Status twin (std::unique_ptr<ContextStage> *out) const = 0;
  /* the queue its work goes on */
  cl_command_queue queue () const { return queue_; }

protected:
  /* The start of every init: the device, its local size, the queue. */
  Status init_device (std::shared_ptr<Device> device, cl_command_queue queue);
  /* The build options of the context and CMVN programs. */
  std::string build_options () const;
  /* more -D options for this stage's kernels (set before make_kernels) */
  std::string extra_options_;
  /* The stage's kernel over a block (name) and over lanes (name_lanes):
   * their arguments are the rows' (block: rows, row stride, first row,
   * total, first output, n; lanes: rows, row stride, ring, desc, n), then
   * kernel_args (), then the output (block: and its offset in floats). */
  Status make_kernels (const char *prog, const char *source,
      const char *sha256, const char *name);
  virtual void kernel_args (ArgSetter &) const {}
  /* floats an output row; work-items an output frame */
  virtual int out_dims () const { return 0; }
  virtual int items_per_frame () const { return out_dims (); }
  /* work-items an output frame of the block kernel (enqueue), where it
   * differs from the lanes kernel's */
  virtual int block_items_per_frame () const { return items_per_frame (); }

  std::shared_ptr<Device> device_;
  ClKernel kernel_, lanes_kernel_;
  std::string name_;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  size_t lsz_ = 64;
};

/* A context stage, given its config type and its own class: init
 * validates the config, sets up the device and queue, then the stage's
 * kernels (init_kernels). */
template <class Config, class Self>
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
  std::string key () const override { return cfg_.key (); }
  Status twin (std::unique_ptr<ContextStage> *out) const override
  {
    std::unique_ptr<Self> s (new Self ());
    AFET_RETURN_IF_ERROR (s->init (device_, cfg_));
    *out = std::move (s);
    return Status::Ok ();
  }

protected:
  virtual Status init_kernels () = 0;

  Config cfg_;
};

}  /* namespace afet */
