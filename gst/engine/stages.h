/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "device.h"
#include "fft.h"
#include "params.h"
#include "transfer.h"

#include <memory>
#include <string>

namespace afet {

/* How frames are cut from audio. W and S come from frame_samples(). */
struct FramingConfig
{
  int rate = 16000;
  int W = 400;
  int S = 160;
  Window window = Window::HAMMING;
  float preemph = 0.97f;
};

/* Every stage enqueues its work on a queue it is given (the element's: each
 * element instance has its own, so a live pipeline never waits behind
 * another's batch) or, if given none, on one of its own. Inputs and outputs
 * are device buffers addressed by row; the run_* functions are host-to-host
 * conveniences for tests and benchmarks. A stage takes at most max_batch
 * frames per enqueue. */

/* The framing kernel and its buffers, shared by the framer and every
 * feature stage that takes audio. Samples are floats in 16-bit integer
 * scale. */
class FramingKernel
{
public:
  Status init (Device &device, const FramingConfig &cfg, int max_batch);
  /* Uploads the (n - 1) S + W samples of n frames and enqueues the kernel:
   * rows of out_stride floats at out[out_offset], energies to
   * energy_buf[energy_offset + t * energy_stride] when energy. The host
   * samples must stay valid until the queue has finished. */
  Status enqueue (cl_command_queue q, const float *samples, int n,
      cl_mem out, size_t out_offset, int out_stride, cl_mem energy_buf,
      size_t energy_offset, int energy_stride, bool energy,
      TransferStats *stats);

private:
  FramingConfig cfg_;
  ClKernel kernel_;
  ClMem window_;
  ClMem samples_;
  size_t samples_cap_ = 0;
  size_t lsz_ = 64;
};

/* The front of the spectral stages (MFCC, PLP): frames, from audio
 * through the framing kernel or given frames copied into zero-padded rows,
 * then their batched real FFT. A frame's raw log energy, when wanted, goes
 * straight to its column in the stage's output rows. */
class SpectrumFront
{
public:
  /* frames_input: given frames of W (+ 1 energy when input_has_energy)
   * floats; else audio. */
  Status init (Device &device, const FramingConfig &framing,
      bool frames_input, bool input_has_energy, int max_batch);
  /* n <= max_batch frames into spectra (); energy_col >= 0: each frame's
   * energy to out[(out_row + t) * out_dims + energy_col]. Audio from the
   * host, or frames from the host (uploaded) or from device rows in_row.. */
  Status enqueue_samples (cl_command_queue q, const float *samples, int n,
      cl_mem out, size_t out_row, int out_dims, int energy_col,
      TransferStats *stats);
  Status enqueue_frames (cl_command_queue q, const float *host, cl_mem frames,
      size_t in_row, int n, cl_mem out, size_t out_row, int out_dims,
      int energy_col, TransferStats *stats);
  /* rows of stride () floats: N / 2 + 1 complex bins */
  cl_mem spectra () const { return spec_.get (); }
  int stride () const { return fft_size_ + 2; }

private:
  Status transform (cl_command_queue q, int n);

  cl_context context_ = nullptr;
  FramingConfig framing_cfg_;
  bool frames_input_ = false;
  int in_stride_ = 0;
  int max_batch_ = 0;
  int fft_size_ = 0;
  size_t lsz_ = 64;
  FramingKernel framing_;
  ClKernel pad_kernel_;
  RealFft fft_;
  ClMem spec_;
  ClMem frames_in_;
};

/* A sparse filter bank on the device (see FilterBank), as the melbank and
 * PLP kernels read it. */
struct FilterBankBuffers
{
  ClMem first, count, offset, weights;
  Status upload (cl_context ctx, const FilterBank &fb);
};

/* The build options of the framing and melbank programs (shared by every
 * stage that uses them). */
std::string stage_build_options (size_t lsz);

/* afetframer's computation: n frames of W pre-emphasised, windowed samples,
 * optionally followed by the raw log energy (W + 1 floats a frame). */
struct FramerConfig
{
  FramingConfig framing;
  bool energy = false;
  int max_batch = 4096;

  int dims () const { return framing.W + (energy ? 1 : 0); }
};

class FramerStage
{
public:
  Status init (std::shared_ptr<Device> device, const FramerConfig &cfg,
      cl_command_queue queue = nullptr, TransferStats *stats = nullptr);
  /* n <= max_batch frames from (n - 1) S + W samples into rows out_row.. of
   * out (dims floats a row). */
  Status enqueue (const float *samples, int n, cl_mem out, size_t out_row);
  /* Host to host, any n; blocking. */
  Status run (const float *samples, long long n, float *out);
  const FramerConfig &config () const { return cfg_; }

private:
  std::shared_ptr<Device> device_;
  FramerConfig cfg_;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  TransferStats *stats_ = nullptr;
  FramingKernel framing_;
  ClMem out_;
};

enum class DctMode
{
  FUSED = 0,    /* afet_melbank_dct: filter bank, log, DCT in one kernel */
  GEMM,         /* afet_melbank, then a CLBlast SGEMM */
};

/* What every spectral kind (MFCC and filter banks, PLP, and the kinds to
 * come) shares: how its frames arrive, the band of its filter bank, the
 * columns every kind may have (c0, energy), the batch. */
struct SpectralConfig
{
  FramingConfig framing;
  bool frames_input = false;      /* input is afetframer's frames */
  bool input_has_energy = false;  /* frames carry raw log energy at W */
  int num_filters = 23;
  int num_ceps = 12;
  double low_freq = 0.0;
  double high_freq = 0.0;         /* 0 = Nyquist */
  int lifter = 22;                /* 0 = none */
  bool use_power = false;         /* |X|^2; false: |X| */
  bool c0 = true;
  bool energy = false;
  bool htk_period_quirk = true;
  int max_batch = 4096;

  int fft_size () const { return next_pow2 (framing.W); }
  int input_stride () const { return framing.W + (input_has_energy ? 1 : 0); }
  /* The checks every kind needs (frame and FFT size, filter count, band,
   * energy of given frames, batch); the message names what to change. */
  Status validate_front () const;
};

/* A spectral stage: the shared front (frames, window, FFT) and then the
 * kind's own steps (spectra_to_features). The element feeds it audio or
 * frames and gets rows of dims () floats. */
class SpectralStage
{
public:
  virtual ~SpectralStage ();
  /* Audio input: n <= max_batch frames from (n - 1) S + W host samples. */
  Status enqueue_samples (const float *samples, int n, cl_mem out,
      size_t out_row);
  /* Frames input, n <= max_batch rows of input_stride () floats, from the
   * host (uploaded) or, when host is null, from device rows in_row.. of
   * frames. */
  Status enqueue_frames (const float *host, cl_mem frames, size_t in_row,
      int n, cl_mem out, size_t out_row);
  /* Host to host, any n; blocking. */
  Status run_samples (const float *samples, long long n, float *out);
  Status run_frames (const float *frames, long long n, float *out);
  const SpectralConfig &spectral () const { return *base_; }

protected:
  /* The start of every kind's init: device, queue, front; dims and the
   * energy column (-1: none) of the kind's rows. */
  Status init_front (std::shared_ptr<Device> device,
      const SpectralConfig &cfg, int dims, int energy_index,
      cl_command_queue queue, TransferStats *stats);
  /* The kind's steps after the spectra: n rows into out from out_row. */
  virtual Status spectra_to_features (int n, cl_mem out, size_t out_row) = 0;

  std::shared_ptr<Device> device_;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  TransferStats *stats_ = nullptr;
  SpectrumFront front_;
  ClMem out_;           /* run_*: max_batch x dims */
  size_t lsz_ = 64;

private:
  const SpectralConfig *base_ = nullptr;      /* the kind's own config */
  int dims_ = 0;
  int energy_index_ = -1;
};

/* MFCC / log mel filter bank with HTK's conventions. num_ceps = 0: the
 * log filter bank. */
struct MfccConfig : SpectralConfig
{
  DctMode dct = DctMode::FUSED;

  /* HTK column order: c1..cN, c0, E; or M channels, E. */
  int dims () const;
  int c0_index () const;
  int energy_index () const;
  /* Checks the parameters; the message names what to change. */
  Status validate () const;
};

class MfccStage : public SpectralStage
{
public:
  MfccStage ();
  ~MfccStage () override;
  Status init (std::shared_ptr<Device> device, const MfccConfig &cfg,
      cl_command_queue queue = nullptr, TransferStats *stats = nullptr);
  const MfccConfig &config () const { return cfg_; }

private:
  Status spectra_to_features (int n, cl_mem out, size_t out_row) override;

  MfccConfig cfg_;
  ClKernel melbank_kernel_;
  ClKernel melbank_dct_kernel_;
  ClMem fbank_;         /* GEMM path: max_batch x M */
  FilterBankBuffers bank_;
  ClMem dct_;
  int ncols_dct_ = 0;
};

}  /* namespace afet */
