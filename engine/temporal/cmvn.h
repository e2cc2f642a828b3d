/* The CMVN stage: cepstral mean, variance or min-max normalisation over the
 * utterance, the sliding span or running from the start.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "context.h"

#include <vector>

namespace afet {

/* Cepstral mean / variance / min-max normalisation (CMN, CVN, thesis eq.
 * 4.3) over the whole stream (utterance), Kaldi's sliding span, running
 * statistics from the stream's start, or given statistics (archive: Kaldi's
 * apply-cmvn, the element sets them for each run); HTK's energy
 * normalisation (ENORMALISE) of one column in utterance scope.  Any scope
 * can also sum the stream's own statistics as Kaldi's compute-cmvn-stats
 * does (accumulate). */
enum class CmvnMode
{
  NONE = 0,
  MEAN,
  MEANVAR,
  MINMAX,
};

enum class CmvnScope
{
  UTTERANCE = 0,
  SLIDING,
  RUNNING,
  ARCHIVE,
};

/* Kaldi's ApplyCmvn (transform/cmvn.cc) as a per-column affine map
 * y = x scale + offset, in the floats Kaldi computes it in, from a stats
 * matrix (@rows x @cols doubles: row 0 the sums with the count last, row 1
 * the sums of squares) for a stream of @dims columns.  Errors as Kaldi's:
 * a dims mismatch, no variance row for norm_vars, a count below 1, a
 * scale that is not finite; a variance below 1e-20 is floored to it and
 * said in *warning (Kaldi warns). */
Status kaldi_cmvn_affine (const double *stats, int rows, int cols, int dims,
    bool norm_vars, std::vector<float> *scale, std::vector<float> *offset,
    std::string *warning);

struct CmvnConfig
{
  int dims = 13;
  int row_stride = 13;
  std::vector<int> mask;        /* dims: 1 = normalise this column */
  CmvnMode mode = CmvnMode::MEAN;
  CmvnScope scope = CmvnScope::UTTERANCE;
  int cmn_window = 600;         /* sliding: the span in frames */
  bool center = false;
  int min_window = 100;
  int energy_column = -1;       /* utterance: HTK energy normalisation */
  bool energy_normalise = false;
  float energy_scale = 0.1f;
  float silence_floor = 50.0f;  /* dB */
  /* running: initial statistics (count frames of these means/variances) */
  double initial_count = 0;
  std::vector<double> initial_mean, initial_var;
  /* sum every column's values and squares (Kaldi's AccCmvnStats, in
   * double, frame after frame) for stats () */
  bool accumulate = false;
  int max_batch = 4096;

  Status validate () const;
  std::string key () const;
  /* look-back / look-ahead in frames, and frames needed before the first
   * output (-1 for utterance: the whole stream) */
  int back () const;
  int ahead () const;
  int start_need () const;
};

class CmvnStage : public ContextStageOf<CmvnConfig, CmvnStage>
{
public:
  /* Utterance scope: in holds the whole stream (total frames from row 0)
   * and the statistics are computed at out_first == 0. Running scope:
   * out_first == 0 restarts from the initial statistics. */
  Status enqueue (const ContextBlock &in, long long out_first, int n,
      cl_mem out, size_t out_row) override;
  /* the sliding scope (afet_cmvn_sliding, the stage's kernel pair); the
   * others keep a stream's statistics */
  bool has_lanes () const override
  {
    return cfg_.scope == CmvnScope::SLIDING && !cfg_.accumulate;
  }
  /* archive scope: the map frames from now on get (from
   * kaldi_cmvn_affine; dims values each) */
  Status set_affine (const std::vector<float> &scale,
      const std::vector<float> &offset);
  /* accumulate: start summing onto @stats (2 x (dims + 1) doubles as
   * Kaldi's, empty for zeros), and read the sums so far back */
  Status set_stats (const std::vector<double> &stats);
  Status stats (std::vector<double> *out);

private:
  Status init_kernels () override;
  void kernel_args (ArgSetter &a) const override;
  int out_dims () const override { return cfg_.dims; }
  Status enqueue_lanes (const LaneBlock &in, int n, cl_mem out) override;
  Status reset_running ();
  Status fit_sliding (int streams);

  ClKernel stats_kernel_, apply_kernel_, running_kernel_, affine_kernel_,
      acc_kernel_;
  ClMem mask_, stats_, state_, minmax_, affine_, acc_;
  bool fp64_ = false;
  double acc_count_ = 0;
  /* scope=sliding: each stream's sums of its span, kept from launch to
   * launch (kernels/cmvn.cl, afet_sliding_run), for sliding_streams_
   * streams (this one, or the lanes of a ContextCombiner) */
  ClMem sliding_sum_, sliding_win_;
  int sliding_streams_ = 0;
};

}  /* namespace afet */
