/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "device.h"
#include "transfer.h"

#include <memory>
#include <vector>

namespace afet {

/* Stages whose output frame t reads input frames around t (deltas, TRAPS).
 * Their input is a device block of rows holding frames first_row ..
 * first_row + rows - 1 of a stream of total frames (-1 while unknown);
 * frames outside the stream are clamped to it (the edge frame repeats).
 * The block must hold every frame out_first - back () .. out_first + n - 1
 * + ahead () that lies in the stream. */
struct WindowBlock
{
  cl_mem rows = nullptr;
  int row_stride = 0;           /* floats a row */
  long long first_row = 0;
  long long total = -1;
};

/* Regression deltas with HTK's edges: deltas from the statics with indices
 * clamped to the stream; accelerations (and third order) by the same
 * formula over the previous order's sequence, its indices clamped too. */
struct DeltaConfig
{
  int statics = 13;             /* columns a frame */
  int row_stride = 13;          /* floats an input row (>= statics) */
  int order = 2;                /* 1..3 */
  int delta_window = 2;         /* HTK DELTAWINDOW */
  int accel_window = 2;         /* HTK ACCWINDOW (also the third order's) */
  int max_batch = 4096;

  int dims () const { return statics * (order + 1); }
  int ahead () const { return delta_window + (order - 1) * accel_window; }
  Status validate () const;
};

/* What the one-kernel stages that read a WindowBlock share: the device,
 * the queue, their kernel of kernels/window.cl. */
class ContextStage
{
protected:
  Status init_kernel (std::shared_ptr<Device> device, cl_command_queue queue,
      const char *kernel_name);

  std::shared_ptr<Device> device_;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  ClKernel kernel_;
  size_t lsz_ = 64;
};

class DeltaStage : public ContextStage
{
public:
  Status init (std::shared_ptr<Device> device, const DeltaConfig &cfg,
      cl_command_queue queue = nullptr, TransferStats *stats = nullptr);
  /* Output frames out_first .. out_first + n - 1 (n <= max_batch) into rows
   * out_row.. of out (dims floats). */
  Status enqueue (const WindowBlock &in, long long out_first, int n,
      cl_mem out, size_t out_row);
  const DeltaConfig &config () const { return cfg_; }

private:
  DeltaConfig cfg_;
};

/* LC-RC TRAPS (thesis 2.3.4): per band, the trajectory of length frames
 * centred on t is split into a left half t-H+1..t and a right half
 * t..t+H-1 (H = (length + 1) / 2, overlapping at t), each weighted by its
 * half of a length-point Hamming window and reduced by an orthonormal
 * DCT-II to num_dct coefficients (the 0th included). Output: per band,
 * num_dct left then num_dct right coefficients. */
struct TrapsConfig
{
  int bands = 15;
  int row_stride = 15;          /* floats an input row (>= bands) */
  int length = 31;              /* odd */
  int num_dct = 11;             /* <= (length + 1) / 2 */
  int max_batch = 4096;

  int half () const { return (length + 1) / 2; }
  int dims () const { return bands * 2 * num_dct; }
  int ahead () const { return half () - 1; }
  Status validate () const;
};

/* The weights: [h][k][i] = hamming (h (H - 1) + i) x dct (k, i), H points,
 * orthonormal DCT-II (sqrt (1/H) for k = 0, sqrt (2/H) after). */
std::vector<float> traps_weights (const TrapsConfig &cfg);

class TrapsStage : public ContextStage
{
public:
  Status init (std::shared_ptr<Device> device, const TrapsConfig &cfg,
      cl_command_queue queue = nullptr, TransferStats *stats = nullptr);
  Status enqueue (const WindowBlock &in, long long out_first, int n,
      cl_mem out, size_t out_row);
  const TrapsConfig &config () const { return cfg_; }

private:
  TrapsConfig cfg_;
  ClMem weights_;
};

/* Cepstral mean / variance / min-max normalisation (CMN, CVN, thesis eq.
 * 4.3) over the whole stream (utterance), Kaldi's sliding window, or
 * running statistics from the stream's start; HTK's energy normalisation
 * (ENORMALISE) of one column in utterance scope. */
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
};

struct CmvnConfig
{
  int dims = 13;
  int row_stride = 13;
  std::vector<int> mask;        /* dims: 1 = normalise this column */
  CmvnMode mode = CmvnMode::MEAN;
  CmvnScope scope = CmvnScope::UTTERANCE;
  int window = 600;             /* sliding: frames */
  bool center = false;
  int min_window = 100;
  int energy_column = -1;       /* utterance: HTK energy normalisation */
  bool energy_normalise = false;
  float energy_scale = 0.1f;
  float silence_floor = 50.0f;  /* dB */
  /* running: initial statistics (count frames of these means/variances) */
  double initial_count = 0;
  std::vector<double> initial_mean, initial_var;
  int max_batch = 4096;

  Status validate () const;
  /* look-back / look-ahead in frames, and frames needed before the first
   * output (-1 for utterance: the whole stream) */
  int back () const;
  int ahead () const;
  int start_need () const;
};

class CmvnStage
{
public:
  Status init (std::shared_ptr<Device> device, const CmvnConfig &cfg,
      cl_command_queue queue = nullptr, TransferStats *stats = nullptr);
  /* Utterance scope: in holds the whole stream (total frames from row 0)
   * and the statistics are computed at out_first == 0. Running scope:
   * out_first == 0 restarts from the initial statistics. */
  Status enqueue (const WindowBlock &in, long long out_first, int n,
      cl_mem out, size_t out_row);
  const CmvnConfig &config () const { return cfg_; }

private:
  Status reset_running ();

  std::shared_ptr<Device> device_;
  CmvnConfig cfg_;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  ClKernel stats_kernel_, apply_kernel_, sliding_kernel_, running_kernel_;
  ClMem mask_, stats_, state_, minmax_;
  bool fp64_ = false;
  size_t lsz_ = 64;
};

}  /* namespace afet */
