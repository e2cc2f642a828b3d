/* The transform stage: Kaldi's transform-feats on the device, a linear or
 * affine map of every feature row.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* Kaldi's transform-feats on the device: a per-frame linear or affine map
 * of feature rows (LDA, MLLT, fMLLR/CMLLR...). It lives with the stages on
 * feature rows (temporal/) rather than the spectral fronts: it reads rows
 * a feature element made, like deltas and CMVN, though it reads no
 * neighbouring frames (no context, no look-ahead). */

#include "clutil.h"
#include "device.h"
#include "transfer.h"

#include <memory>
#include <string>
#include <vector>

namespace afet {

struct TransformConfig
{
  int dims = 13;                /* input values a frame */
  int row_stride = 13;          /* floats an input row */
  int out_dims = 13;            /* the matrices' rows */
  int cols = 13;                /* dims (linear) or dims + 1 (affine) */
  /* one or more matrices of out_dims x cols, one after the other, row by
   * row; select () picks the one applied */
  std::vector<float> matrices;
  int max_batch = 4096;

  Status validate () const;
  int count () const;
};

class TransformStage
{
public:
  Status init (std::shared_ptr<Device> device, const TransformConfig &cfg,
      cl_command_queue queue = nullptr, TransferStats *stats = nullptr);
  const TransformConfig &config () const { return cfg_; }
  /* the matrix the frames enqueued from now on go through */
  Status select (int index);
  /* n (<= max_batch) frames of rows in_row.. of a device buffer in, into
   * rows out_row.. of out */
  Status enqueue (cl_mem in, size_t in_row, int n, cl_mem out,
      size_t out_row);
  /* the same from host rows (copied to the device first) */
  Status enqueue_host (const float *rows, int n, cl_mem out, size_t out_row);
  cl_command_queue queue () const { return queue_; }

private:
  Status warm_gemm ();

  TransformConfig cfg_;
  std::shared_ptr<Device> device_;
  TransferStats *stats_ = nullptr;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  ClKernel kernel_, bias_;
  ClMem matrices_, input_;
  /* wide inputs: CLBlast's SGEMM (after the bias kernel when affine) */
  bool gemm_ = false;
  size_t lsz_ = 64;
  int selected_ = 0;
};

}  /* namespace afet */
