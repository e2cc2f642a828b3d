/* The context combiner: many live streams through one context stage in few
 * launches, each stream's rows in its lane of a shared buffer.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "combine.h"
#include "context.h"
#include "stream.h"

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace afet {

/* Many live streams through one context stage (deltas, TRAPS, sliding
 * CMVN), so that they cost few launches. A live stream brings a row or two
 * every 10 ms; alone, each is an upload, a launch, a copy of the history and
 * a download, and a GPU driver serialises such calls from all threads (an
 * H100 fell behind at 100 live MFCC + deltas + CMVN streams).
 *
 * Each stream owns a lane: ring rows (a power of two: the look-back, the
 * look-ahead or the rows needed before the first output, and one call's
 * rows) of one device buffer shared by the streams of a configuration.
 * compute () goes through a Combiner: a caller's new rows and
 * wanted output frames join those of the callers waiting at that moment,
 * and the first caller to find the combiner idle launches them all: one
 * upload of the rows and their places, one gather into the lanes, the
 * stage's lane kernel, one download. The lane kernels read a frame through
 * the same arithmetic as a stream's own block (kernels/rows.cl), so every
 * value equals the stream's own run, bit for bit. */
class ContextCombiner
{
public:
  /* rows a call may bring */
  static constexpr int kMaxRows = 64;

  /* The process' combiner for the stage's device and config (key ()) and
   * this extent, made on first use with a twin of the stage on a queue of
   * its own. The stage must have lanes (has_lanes ()). */
  static Status get (const std::shared_ptr<Device> &device,
      const ContextStage &stage, const RowHistory::Extent &extent, int dims,
      std::shared_ptr<ContextCombiner> *out);

  /* A lane for a stream, and its release (no call of the stream in
   * flight). */
  int join ();
  void leave (int lane);

  /* A call's rows on the device (device chains: the rows of an afet
   * element before, and for one after). */
  struct DeviceIo
  {
    /* in.buffer set: the new rows are bytes from in.offset of in.buffer,
     * written when in.ready (if set) completes; borrowed for the call */
    DeviceRows in;
    /* out_device: the output rows stay on the device, in out (set by the
     * call, the caller's references: see DeviceRows; a use of out.block
     * that reads it is added to it) */
    bool out_device = false;
    DeviceRows out;
    /* set by the call when in.buffer was: the launch's completion, after
     * which in.buffer is no longer read (the caller's reference) */
    cl_event read_done = nullptr;
  };

  /* m <= kMaxRows new rows of the lane's run (rows first_row ..; host,
   * row_dims floats each, or on the device: io), then output frames
   * out_first .. out_first + n - 1 (the run has total frames, -1 while
   * unknown) into out (n rows of dims () floats; or the device: io). The
   * lane must hold what they read: every frame from out_first - back on
   * (see ready ()). Blocks until done (rows left on the device: until
   * enqueued); any thread. combined: set when the launch served other
   * streams too. */
  Status compute (int lane, const float *rows, int m, long long first_row,
      long long out_first, int n, long long total, float *out,
      bool *combined, DeviceIo *io = nullptr);

  /* The same for k calls at once (of other lanes), run together: a
   * chain's leader (chain.h). Calls with no rows and no outputs are
   * skipped. combined: the launch served other callers too. */
  struct Part
  {
    int lane = -1;
    const float *rows = nullptr;
    int m = 0;
    long long first_row = 0;
    long long out_first = 0;
    int n = 0;
    long long total = -1;
    float *out = nullptr;
    DeviceIo *io = nullptr;
  };
  Status compute_all (const Part *parts, size_t k, bool *combined);
  /* Whether a call of m new rows from first_row and outputs out_first ..
   * out_first + n - 1 fits a lane (compute () refuses it otherwise). */
  Status check (int m, long long first_row, long long out_first, int n)
      const;

  int dims () const { return dims_; }
  const RowHistory::Extent &extent () const { return extent_; }
  /* rows a lane holds */
  int ring () const { return ring_; }
  /* the OpenCL context of its device */
  cl_context context () const;

private:
  struct Request;

  ContextCombiner (std::shared_ptr<Device> device,
      std::unique_ptr<ContextStage> stage, const RowHistory::Extent &extent,
      int dims);
  Status run (const std::vector<Combiner::Slot *> &batch);
  Status fit (int lanes, size_t descs, size_t outs);

  std::shared_ptr<Device> device_;
  std::unique_ptr<ContextStage> stage_;
  RowHistory::Extent extent_;
  int dims_ = 0;
  int ring_ = 0;

  Combiner combiner_;
  std::shared_ptr<BlockPool> blocks_;   /* the launches' device outputs */
  std::mutex lanes_lock_;       /* next_lane_, free_lanes_ */
  int next_lane_ = 0;
  std::vector<int> free_lanes_;

  /* the leader's, while it runs */
  ClMem lanes_, desc_, out_;
  int lane_cap_ = 0;
  size_t desc_cap_ = 0, out_cap_ = 0;
  /* the host memory of a launch's uploads (new rows, desc), in turn:
   * uploads do not block, so a slot is filled again only once its last
   * upload is done */
  static constexpr int kHostSlots = 4;
  struct HostSlot
  {
    std::vector<cl_long> desc;   /* and the host's rows after it */
    ClEvent copied;
  };
  HostSlot host_[kHostSlots];
  int host_next_ = 0;
  std::vector<float> host_out_;
  /* run ()'s lists, kept so that a launch allocates nothing */
  std::vector<const Request *> batch_;
  std::vector<std::pair<cl_mem, const Request *>> from_device_;
  std::vector<cl_event> wait_;
  ClKernel gather_;
  size_t lsz_ = 64;
};

}  /* namespace afet */
