/* Many utterances' pitch Viterbi in one launch: the combiner that runs the
 * Viterbi forward passes and backtraces of the utterances of all afetpitch
 * streams sharing a device together, a work-group each.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "clhandle.h"
#include "device.h"
#include "status.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace afet {

/* The Viterbi of Kaldi's pitch tracker is serial over an utterance's frames:
 * one work-group walks them, on one compute unit, and a GPU driver runs the
 * launches of different queues one after the other, so utterances computed
 * alone (afet-extract's jobs, one afetpitch each) take their turns on one
 * compute unit while the others idle. Callers of one combiner (same device,
 * lag grid and costs) go in one launch of a work-group per utterance.
 *
 * Which utterances go together: a stage enters the combiner when it starts
 * an utterance (enter (): before its resampling and NCCF), and the first
 * caller to reach run () leads: it waits until every utterance entered has
 * reached run () too (their NCCF is a few launches away; at most
 * kGatherMs), then launches them all. Without that wait the launches of
 * the others' NCCF, queued behind a running Viterbi, would arrive one by
 * one after it and each lead a launch of its own. Callers arriving during a
 * launch go in the next. An utterance alone runs at once, on its own
 * buffers. Every utterance's path is the one its own launch gives, bit for
 * bit: each work-group runs the same arithmetic on its own rows.
 *
 * Long utterances in segments: one work-group walks at most one frame
 * every few microseconds, so a ten-minute utterance (60000 frames) would
 * hold its compute unit for a quarter of a second while the others idle.
 * With segment_frames > 0, an utterance longer than that is cut into
 * segments of that many frames, all run at once: the first from the
 * utterance's start, the others from zero costs (a guess), each frame's
 * costs stored. Then each guessed segment runs again from its
 * predecessor's last costs, comparing its costs with those stored, until
 * one frame's costs are the stored ones bit for bit (the Viterbi's paths
 * have met: from there on every backpointer and cost is the stored one),
 * and stops there. A segment is settled once it has so run from settled
 * costs; rounds repeat until every segment is (at worst one a round: the
 * serial walk, never a different result). Each utterance's path is thus
 * the one a single walk gives, bit for bit (test pitch-viterbi, segments
 * of 7 and 50 frames). */
class PitchViterbiCombiner
{
public:
  /* The process' combiner for the device, this lag grid (seconds) and
   * these costs (Kaldi's inter-frame factor, soft-min-f0), made on first
   * use; its kernels with work-groups of vlsz, from the pitch program
   * built with options (the stages' own, AFET_LSZ = vlsz). */
  static Status get (const std::shared_ptr<Device> &device,
      const std::vector<float> &lags, float factor, float soft_min_f0,
      size_t vlsz, int segment_frames, const std::string &options,
      std::shared_ptr<PitchViterbiCombiner> *out);

  /* Most a leader waits for entered utterances to reach run (). */
  static constexpr int kGatherMs = 250;

  /* An utterance on its way to run (): enter () when its work starts,
   * leave () if it ends without run () (an error); run () counts it out. */
  void enter ();
  void leave ();

  /* The forward pass over T frames of an utterance's NCCF on the lag grid
   * (nccf: T x S floats, complete: its queue has finished) and the
   * backtrace from the lowest final cost: path (T ints) gets each frame's
   * lag index. Blocks until path is written; any thread; after enter ().
   * combined: set when the launch served other utterances too. */
  Status run (cl_mem nccf, long long T, cl_mem path, bool *combined);

  int n_lags () const { return S_; }
  /* rounds of segments run again in the last launch (0: none cut) */
  int last_rounds () const;

private:
  struct Request;

  PitchViterbiCombiner () = default;
  Status launch (const std::vector<Request *> &batch);
  Status launch_group (const std::vector<Request *> &group);

  std::shared_ptr<Device> device_;
  int S_ = 0;
  float factor_ = 0, soft_min_f0_ = 0;
  size_t vlsz_ = 1;
  int segment_ = 0;             /* frames a segment, 0: never cut */
  bool viterbi_lanes_ = false;  /* afet_pitch_viterbi_lanes */
  int rounds_ = 0;              /* under lock_ */
  ClQueue queue_;
  ClKernel viterbi_, backtrace_, trace_map_;
  ClMem lags_;
  mutable std::mutex lock_;     /* what follows */
  std::condition_variable wake_;
  std::vector<Request *> pending_;
  int entered_ = 0;             /* entered and not yet run */
  bool busy_ = false;           /* a leader gathers or launches */
};

}  /* namespace afet */
