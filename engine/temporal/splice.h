/* The splicing stage (Kaldi's splice-feats, nnet3's Append): a frame and its
 * neighbours at a list of offsets, side by side.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* Splicing: each output frame the input frames at a list of offsets,
 * side by side (Kaldi's splice-feats, nnet3's Append of Offsets). */

#include "context.h"

#include <string>
#include <vector>

namespace afet {

/* Output frame t: input frames t + offsets[0], t + offsets[1], ... (each
 * clamped to the stream: the first or last frame repeats, Kaldi's
 * SpliceFrames), dims columns each, in the list's order. Offsets are
 * distinct (a repeated one is refused: it adds no information and is
 * likelier a typo than a wish), in any order, within +-max_offset. */
struct SpliceConfig
{
  static constexpr int max_offset = 1000;
  static constexpr int max_count = 1000;

  int dims = 13;                /* columns an input frame */
  int row_stride = 13;          /* floats an input row (>= dims) */
  std::vector<int> offsets = { -4, -3, -2, -1, 0, 1, 2, 3, 4 };
  int max_batch = 4096;

  int out_dims () const { return dims * (int) offsets.size (); }
  int back () const;            /* frames before t read: -min, or 0 */
  int ahead () const;           /* frames after t read: max, or 0 */
  Status validate () const;
  std::string key () const;
};

/* The offsets of a list "a,b,c" whose items are integers or ranges
 * "lo..hi" (lo <= hi: every integer between), e.g. "-3..-1,0,2,4..5";
 * spaces around items are allowed. BAD_CONFIG naming the item for anything
 * else; duplicates and the bounds are SpliceConfig::validate's. */
Status parse_splice_offsets (const std::string &text, std::vector<int> *out);

/* The offsets as text: comma-separated integers, in order. */
std::string splice_offsets_string (const std::vector<int> &offsets);

/* kernels afet_splice and afet_splice_lanes: a work-item per output value */
class SpliceStage : public ContextStageOf<SpliceConfig, SpliceStage>
{
  Status init_kernels () override;
  void kernel_args (ArgSetter &a) const override;
  int out_dims () const override { return cfg_.out_dims (); }

  ClMem offsets_;
};

}  /* namespace afet */
