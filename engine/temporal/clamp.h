/* The clamp stage: Whisper's clamp of a log10-mel stream below its largest
 * value, over the whole run or running.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "context.h"

namespace afet {

/* Whisper's clamp of a log10-mel stream: x -> (max (x, top - range) +
 * offset) * scale, top being the largest value of the whole run
 * (UTTERANCE, as Whisper computes it over its input: the run must be
 * complete, so the element waits for its end) or of the rows up to the
 * current one (RUNNING: for live input; equal to UTTERANCE from the row
 * where the run's largest value appears on). */
enum class ClampScope
{
  UTTERANCE = 0,
  RUNNING,
};

struct ClampConfig
{
  int dims = 80;                /* columns a row (all clamped) */
  ClampScope scope = ClampScope::UTTERANCE;
  float range = 8.0f;
  float offset = 4.0f;
  float scale = 0.25f;
  int max_batch = 4096;

  Status validate () const;
  std::string key () const;
};

class ClampStage : public ContextStageOf<ClampConfig, ClampStage>
{
public:
  /* UTTERANCE: in must hold the whole run (total known). */
  Status enqueue (const ContextBlock &in, long long out_first, int n,
      cl_mem out, size_t out_row) override;
  /* the run's or the running maximum */
  bool has_lanes () const override { return false; }

private:
  Status init_kernels () override;
  /* rowmax[0 .. n) of rows first .. first + n - 1, then the running
   * maximum over them (from *state unless reset). */
  Status running_max (const ContextBlock &in, long long first, int n,
      bool reset);

  ClKernel row_max_, running_, clamp_;
  ClMem rowmax_, state_;
};

}  /* namespace afet */
