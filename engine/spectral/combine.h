/* Combining many streams' work in one launch: the primitive (requests that
 * arrive together run as one) and the combiner of the spectral stages.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "blockpool.h"
#include "spectral.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace afet {

/* Rows on the device: bytes from offset of buffer, written when ready
 * completes. Rows a combined launch leaves for one caller are in a block
 * of the combiner's pool (block; buffer is its buffer): the caller owns
 * the reference to block and to ready (clReleaseEvent). No launch writes
 * a block while anything holds it, nor after that until every use
 * recorded on it (DeviceBlock::add_use: the readers' completions) has
 * finished, so one caller's rows stay as they are while anything still
 * reads them. */
struct DeviceRows
{
  cl_mem buffer = nullptr;
  size_t offset = 0;
  cl_event ready = nullptr;
  std::shared_ptr<DeviceBlock> block;
};

/* Requests that arrive together run as one (group commit, as databases
 * call it): the way SpectralCombiner and ContextCombiner share a device
 * among streams. A caller's request joins those waiting; the first caller
 * to find the device idle takes every waiting request and runs them at
 * once, and the others sleep until theirs is done. Whatever arrives during
 * a run goes in the next one; nothing waits for a timer (but the live
 * chain's leader, chain.h: Call::gather_us). Each request
 * sleeps on its own condition, so a run wakes its own callers and one
 * waiting caller to lead the next run, not every thread (a thousand live
 * streams). */
class Combiner
{
public:
  struct Slot
  {
    bool done = false;
    bool combined = false;      /* the run served other requests too */
    Status status;
    /* the first request of its caller's submit_all (itself when alone) */
    const Slot *owner = nullptr;
    std::condition_variable wake;
    /* set while the leader may still signal wake after releasing the
     * lock: the caller does not return (and free the slot) before */
    std::atomic<bool> signalling { false };
  };
  using Run = std::function<Status (const std::vector<Slot *> &batch)>;

  /* Blocks until r has run (in this thread or another); its status.
   * combined (if not null): whether the run served other requests too. */
  Status submit (Slot *r, const Run &run, bool *combined)
  {
    return submit_all (&r, 1, run, combined);
  }
  /* The same for n requests of one caller, which always run together (in
   * one run): a chain's leader hands a whole launch's streams to the next
   * stage this way (chain.h). combined: the run served other callers. */
  Status submit_all (Slot *const *rs, size_t n, const Run &run,
      bool *combined);
  /* submit_all of the parts that keep (part) takes, each as a Request
   * (a Slot and a Part: the combiners' requests are their parts). */
  template <class Request, class Part, class Keep>
  Status submit_parts (const Part *parts, size_t k, Keep keep,
      const Run &run, bool *combined)
  {
    std::unique_ptr<Request[]> reqs (new Request[k]);
    std::vector<Slot *> slots;
    slots.reserve (k);
    for (size_t i = 0; i < k; i++) {
      if (!keep (parts[i]))
        continue;
      static_cast<Part &> (reqs[i]) = parts[i];
      slots.push_back (&reqs[i]);
    }
    if (slots.empty ())
      return Status::Ok ();
    return submit_all (slots.data (), slots.size (), run, combined);
  }

private:
  std::mutex lock_;
  std::vector<Slot *> pending_;
  /* the leader's batch (one leader at a time): it and pending_ swap, so
   * that a launch allocates nothing */
  std::vector<Slot *> running_;
  bool busy_ = false;
};

/* Many streams' frames through one spectral stage, so that a device serves
 * many live streams with few launches. A live stream has a frame or two
 * ready at a time; computed alone, each costs its own upload, four or five
 * kernel launches and a download, and a GPU driver runs such calls from
 * all threads one after the other (an H100 fell behind at 50-100 live
 * MFCC streams). The streams of one configuration share a SpectralCombiner:
 * a caller's frames join those of the callers waiting at that moment, and
 * one of them (the first to find the stage idle) computes the lot while
 * the others wait; what arrives meanwhile goes in the next launch. Nothing
 * waits for a timer: a stream alone is computed at once.
 *
 * Frames come whole (W samples each, row after row) and the stage frames
 * them with S = W, so each frame's result is the one it gets in its own
 * stream, bit for bit (pre-emphasis is inside the frame, every row is
 * transformed on its own). */
class SpectralCombiner
{
public:
  /* What a stage is made of: its config key (equal keys: the same
   * results) and a function that makes the stage, configured for whole
   * frames (framing.S == framing.W, audio input), on its own queue. */
  using MakeStage =
      std::function<Status (std::unique_ptr<SpectralStage> *stage)>;

  /* The process' combiner for this device and key, made on first use. */
  static Status get (const std::shared_ptr<Device> &device,
      const std::string &key, const MakeStage &make,
      std::shared_ptr<SpectralCombiner> *out);

  /* n frames of W samples (the stage's sample format), one after the
   * other, to n rows of dims () floats at out, or, where device is given,
   * left on the device (device is set: the rows' place in the launch's
   * buffer; out is not used). Blocks until done (device: until enqueued);
   * any thread. combined: set when the launch held other callers' frames
   * too. */
  Status compute (const void *frames, int n, float *out, bool *combined,
      DeviceRows *device = nullptr);
  /* The same for k callers' frames at once, in one launch (a chain's
   * leader, chain.h); parts with no frames are skipped. combined: the
   * launch held other callers' frames too. */
  struct Part
  {
    const void *frames = nullptr;
    int n = 0;
    float *out = nullptr;
    DeviceRows *device = nullptr;
  };
  Status compute_all (const Part *parts, size_t k, bool *combined);

  int dims () const { return dims_; }
  /* the OpenCL context of its device */
  cl_context context () const { return device_context_; }

private:
  struct Request;

  SpectralCombiner (std::unique_ptr<SpectralStage> stage, int dims,
      cl_context context);
  Status run (const std::vector<Combiner::Slot *> &batch);
  Status run_device (const std::vector<const Request *> &batch, int total);

  std::unique_ptr<SpectralStage> stage_;
  int dims_ = 0;
  cl_context device_context_ = nullptr;
  size_t frame_bytes_ = 0;
  Combiner combiner_;
  std::shared_ptr<BlockPool> blocks_;   /* the launches' device rows */
  std::vector<uint8_t> in_;     /* the leader's, while it runs */
  std::vector<float> out_;
  std::vector<const Request *> batch_;
};

}  /* namespace afet */
