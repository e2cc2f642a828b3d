/* The delta stage: regression deltas, accelerations and third order with
 * HTK's edges.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "context.h"

#include <vector>

namespace afet {

/* Regression deltas, two ways at the stream's edges (the interior frames
 * agree):
 *  - HTK's (kaldi false): deltas from the statics with indices clamped to
 *    the stream; accelerations (and third order) by the same formula over
 *    the previous order's sequence, its indices clamped too;
 *  - Kaldi's add-deltas (kaldi true): order o is one filter of 2 o N + 1
 *    taps (the order-1 regression filter convolved with itself o times,
 *    kaldi_delta_scales) over the statics, their indices clamped; the
 *    accelerations differ from HTK's within 2 N frames of each end. One
 *    window N (delta_window) for every order, as Kaldi's --delta-window. */
struct DeltaConfig
{
  int statics = 13;             /* columns a frame */
  int row_stride = 13;          /* floats an input row (>= statics) */
  int order = 2;                /* 1..3 */
  int delta_window = 2;         /* HTK DELTAWINDOW */
  int accel_window = 2;         /* HTK ACCWINDOW (also the third order's) */
  bool kaldi = false;           /* Kaldi's filters (accel_window unused) */
  int max_batch = 4096;

  int dims () const { return statics * (order + 1); }
  int ahead () const
  {
    return kaldi ? order * delta_window :
        delta_window + (order - 1) * accel_window;
  }
  Status validate () const;
  std::string key () const;
};

/* Kaldi's filters of orders 0..order, one after the other: order o has
 * 2 o window + 1 taps for frames t - o window .. t + o window; computed in
 * single precision in Kaldi's order of operations, so that the taps are
 * the floats add-deltas uses. */
std::vector<float> kaldi_delta_scales (int order, int window);

/* kernels afet_delta and afet_delta_lanes (HTK's: a work-item per static
 * column; on CPU devices afet_delta a work-item per frame),
 * afet_kaldi_delta and afet_kaldi_delta_lanes (a work-item per output
 * value) */
class DeltaStage : public ContextStageOf<DeltaConfig, DeltaStage>
{
  Status init_kernels () override;
  void kernel_args (ArgSetter &a) const override;
  int out_dims () const override { return cfg_.dims (); }
  int items_per_frame () const override
  {
    return cfg_.kaldi ? cfg_.dims () : cfg_.statics;
  }
  int block_items_per_frame () const override
  {
    return frames_ ? 1 : items_per_frame ();
  }

  ClMem scales_;
  bool frames_ = false;         /* afet_delta a work-item per frame (CPU) */
};

}  /* namespace afet */
