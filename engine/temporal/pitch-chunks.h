/* Many live streams' pitch chunks in one launch: the combiner that runs the
 * NCCF and its two upsamplings of the online pitch trackers' chunks that
 * arrive together on a device.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "clhandle.h"
#include "combine.h"
#include "device.h"
#include "status.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace afet {

/* Kaldi's online pitch (OnlinePitch) computes the NCCF of a chunk's frames
 * (10 by default, 100 ms) at a time: alone, each chunk is its own upload,
 * three launches and a blocking read, and a GPU driver runs those of all
 * streams one after the other (500 live streams on an H200 fell to 0.25x
 * real time). The streams of one configuration share a
 * PitchChunkCombiner: a caller's chunk joins those waiting at that
 * moment, and the first caller to find the combiner idle runs them all
 * (the Combiner of combine.h: what arrives meanwhile goes in the next
 * launch; nothing waits for a timer, a stream alone runs at once). The
 * chunks' resampled samples sit in one buffer, each between zeros that
 * cover its frames' reach, so that every frame reads what it would read
 * alone (zeros outside its own signal), and the frame table holds each
 * frame's start in that buffer: every frame's values are those of its own
 * launch, bit for bit. Buffers are kept and grown, not made per launch. */
class PitchChunkCombiner
{
public:
  /* What the NCCF of a configuration is made of (PitchStage::init): the
   * lag grid's size S, the measured lags lag0 .. lag0 + M - 1, the frame's
   * basic window, the pre-emphasis and the upsampling filter's taps (S
   * each: first measured lag, count, max_taps weights). Equal tables: the
   * same results, the same combiner. */
  struct Tables
  {
    int S = 0, M = 0, lag0 = 0, basic = 0, max_taps = 1;
    float preemph = 0.0f;
    std::vector<int> tap_first, tap_n;
    std::vector<float> tap_w;
  };

  /* The process' combiner for the device, these tables and the pitch
   * program built with options (work-groups of lsz), made on first use. */
  static Status get (const std::shared_ptr<Device> &device, const Tables &t,
      const std::string &options, size_t lsz,
      std::shared_ptr<PitchChunkCombiner> *out);

  /* T frames whose windows start at start[t] (indices into ds, which holds
   * n_ds samples of the resampled signal, zeros outside): their NCCF on the
   * lag grid with the frame's ballast (pitch, T x S), without (pov,
   * T x S), and the mean of e1 e2 over the measured lags (avg_norm, T).
   * Blocks until written; any thread. combined: set when the launch held
   * other callers' chunks too. */
  Status compute (const float *ds, long long n_ds, const long long *start,
      int T, const float *ballast, float *pitch, float *pov, float *avg_norm,
      bool *combined);

  /* launches run so far, and those that held more than one chunk */
  long long launches () const;
  long long combined_launches () const;

private:
  struct Request;

  PitchChunkCombiner () = default;
  Status run (const std::vector<Combiner::Slot *> &batch);
  Status run_group (const std::vector<const Request *> &group);
  Status finish_on_error (Status st);
  Status reserve (ClMem *m, size_t *cap, size_t bytes, cl_mem_flags flags);

  std::shared_ptr<Device> device_;
  Tables t_;
  size_t lsz_ = 64, acc_ = sizeof (double);
  ClQueue queue_;
  ClKernel stats_, lags_k_, upsample_;
  ClMem tap_first_, tap_n_, tap_w_;
  Combiner combiner_;
  /* the leader's, while it runs: the launches' buffers (grown, kept) and
   * their host sides */
  ClMem ds_, start_, ballast_, mean_, e1_, nv_, nv0_, norm_, out_;
  size_t ds_cap_ = 0, start_cap_ = 0, ballast_cap_ = 0, mean_cap_ = 0,
      e1_cap_ = 0, nv_cap_ = 0, nv0_cap_ = 0, norm_cap_ = 0, out_cap_ = 0;
  std::vector<float> ds_h_, ballast_h_, out_h_;
  std::vector<cl_long> start_h_;
  std::vector<const Request *> batch_, group_;
  std::atomic<long long> launches_ { 0 }, combined_launches_ { 0 };
};

}  /* namespace afet */
