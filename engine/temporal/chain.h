/* The chain combiner: a live chain of a spectral stage and the context
 * stages after it (afetmfcc ! afetdelta ! afetcmvn) computed for many
 * streams in one pass, each stream's thread waking once a round.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "combine.h"
#include "lanes.h"

#include <memory>
#include <vector>

namespace afet {

/* Live streams through a spectral combiner and then, in the same pass, one
 * or more context combiners (their lanes), so that a round of a stream's
 * chain costs its thread one wait instead of one in each element.
 *
 * A caller brings its frames and, for each context stage, its lane and
 * where its run stands there (the rows the lane has, the outputs given),
 * with the host memory each stage's rows go to. The first caller to find
 * the chain's front idle takes every waiting call and hands them, all at
 * once, to the spectral combiner (SpectralCombiner::compute_all); then,
 * while the next caller may already lead the next pass's front, to each
 * context combiner in turn (ContextCombiner::compute_all), each stage
 * reading the rows the one before wrote. Those combiners serve their
 * other streams between such passes, and the stages of successive passes
 * overlap as the elements' own launches did. Each value is the one the
 * stages give the stream alone: the same combiners, launches and kernels.
 *
 * Where the rows between the stages go (RowsBetween, chosen per device by
 * rows_between_for): through the host on GPUs, each stage downloading its
 * rows and the next uploading them (on an NVIDIA H200 the pass with the
 * rows left on the device, each stage waiting for the one before on
 * another queue, cost a thousand live streams more CPU than the elements
 * apart); on the device on CPU devices, each stage gathering the rows of
 * the one before there and only the last downloading, so that a pass
 * waits for the device once instead of once a stage (on PoCL a wait puts
 * its worker threads to sleep and wakes them again: 100-140 us of CPU on
 * 2 cores, most of what one live stream costs). */
class ChainCombiner
{
public:
  static constexpr int kMaxLinks = 4;

  /* Where a pass leaves the rows between its stages (see above). */
  enum class RowsBetween { HOST, DEVICE };
  /* DEVICE for a front on a CPU device (device) whose links are all on its
   * OpenCL context, HOST otherwise (GPUs; a link on a device of its own) */
  static RowsBetween rows_between_for (const Device &device,
      const SpectralCombiner &front,
      const std::vector<std::shared_ptr<ContextCombiner>> &links);

  /* The process' chain of these combiners with the rows between its
   * stages where between says, made on first use. DEVICE: all of them on
   * one device (else BAD_CONFIG). */
  static Status get (const std::shared_ptr<SpectralCombiner> &front,
      const std::vector<std::shared_ptr<ContextCombiner>> &links,
      RowsBetween between, std::shared_ptr<ChainCombiner> *out);

  /* One context stage's part of a call: its lane, where its run stands,
   * the m rows it is given (the stage before's n) and the n output
   * frames they complete, written to out (n rows of its dims floats), or,
   * with RowsBetween::DEVICE and a stage before the last, left on the
   * device in rows (set by compute (); the caller's references, see
   * DeviceRows; out is not used). */
  struct Step
  {
    int lane = -1;
    long long first_row = 0;
    long long out_first = 0;
    int m = 0;
    int n = 0;
    float *out = nullptr;
    DeviceRows rows;
  };
  /* A stream's round: n frames (whole, the spectral stage's sample
   * format) to the front's rows at front_out (n rows of its dims floats;
   * with RowsBetween::DEVICE left on the device in front_rows instead, the
   * caller's references), then through each link. */
  struct Call
  {
    const void *frames = nullptr;
    int n = 0;
    float *front_out = nullptr;
    DeviceRows front_rows;
    Step steps[kMaxLinks];
    /* µs the pass's leader waits for other calls before it takes those
     * waiting, when the pass before served more than one (many live
     * streams): fewer, larger passes; 0: never waits */
    int gather_us = 0;
  };
  /* the gather a live front asks for with a latency budget of budget_ns
   * (0: none): a sixteenth of it, at most kGatherUs */
  static int gather_for (unsigned long long budget_ns);
  static constexpr int kGatherUs = 300;

  /* Blocks until the call's rows on the host are all written (rows left
   * on the device: until enqueued, each DeviceRows' ready says when); any
   * thread. A call that admit () refuses is refused before anything runs;
   * one that fails leaves no DeviceRows set. combined: the pass, or a
   * launch of one of its stages, served other streams too. */
  Status compute (Call *call, bool *combined);
  /* Whether compute () takes the call (else BAD_CONFIG, nothing run): the
   * steps' rows follow from the stage before and fit their lanes. */
  Status admit (const Call &call) const;

  size_t links () const { return links_.size (); }
  RowsBetween between () const { return between_; }
  const ContextCombiner *link (size_t j) const { return links_[j].get (); }

private:
  struct Request;

  ChainCombiner (std::shared_ptr<SpectralCombiner> front,
      std::vector<std::shared_ptr<ContextCombiner>> links,
      RowsBetween between);
  /* shared: set when a stage's launch served other streams too */
  Status run_front (const std::vector<Request *> &batch, bool *shared);
  Status run_links (const std::vector<Request *> &batch, bool *shared);

  std::shared_ptr<SpectralCombiner> front_;
  std::vector<std::shared_ptr<ContextCombiner>> links_;
  RowsBetween between_;
  /* the calls waiting for a pass and whether one is at its front (the
   * group commit of Combiner, with the lock given up after the front) */
  std::mutex lock_;
  std::vector<Request *> pending_;
  bool busy_ = false;
  size_t last_pass_ = 0;        /* calls the last pass took */
};

}  /* namespace afet */
