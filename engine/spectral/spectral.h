/* The spectral stages' shared parts: the front (frames to spectra, batched),
 * the filter-bank buffers and SpectralStage, the base of MFCC, PLP and
 * spectrogram.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fft.h"
#include "framing.h"
#include "vframes.h"

#include <functional>

namespace afet {

/* The front of the spectral stages (MFCC, PLP): frames, from audio
 * through the framing kernel or given frames copied into zero-padded rows,
 * then their batched real FFT. A frame's raw log energy, when wanted, goes
 * straight to its column in the stage's output rows.
 *
 * Three plans (choose_front, vframes.h): one kernel that takes the
 * frames from samples to spectra or, for a kind that fuses its own steps
 * into it (a KindKernel), to its features: on CPUs a frame in each element
 * of a vector (vframes.cl), on GPUs a work-group a frame (gframes.cl);
 * and, for FFT sizes those do not take, a work-group a frame (framing.cl)
 * and VkFFT's batched FFT. */
class SpectrumFront
{
public:
  /* A kind's own front kernel (vframes.cl or gframes.cl): its arguments
   * after the FFT tables are set by args. */
  struct KindKernel
  {
    cl_kernel kernel = nullptr;
    const char *name = nullptr;
    std::function<void (ArgSetter &)> args;
  };

  /* frames_input: given frames of W (+ 1 energy when input_has_energy)
   * floats; else audio. */
  Status init (Device &device, const FramingConfig &framing,
      bool frames_input, bool input_has_energy, int max_batch, int fft_size);
  FrontPlan plan () const { return plan_; }
  /* The front is one kernel (VECTOR, GROUP), which a kind may fuse its
   * steps into. */
  bool one_kernel () const { return plan_ != FrontPlan::VKFFT; }
  /* One-kernel plans: the MFCC / filter-bank kernel of filters channels
   * for this front's input (a kind that fuses), and its name. */
  Status mfcc_kernel (int filters, ClKernel *out, std::string *name) const;
  /* The spectra buffer and, on a one-kernel plan, the kernel that writes it,
   * for kinds that read spectra (made at init on the VkFFT plan, where the
   * FFT runs in it). */
  Status need_spectra ();
  /* n <= max_batch frames into spectra (), or through kind's kernel into
   * its features; energy_col >= 0: each frame's energy to out[(out_row + t)
   * * out_dims + energy_col]. Audio from the host, or frames from the host
   * (uploaded) or from device rows in_row..; audio's first frame is frame
   * first_frame of its run. */
  Status enqueue_samples (cl_command_queue q, const Samples &samples, int n,
      cl_mem out, size_t out_row, int out_dims, int energy_col,
      TransferStats *stats, long long first_frame,
      const KindKernel *kind = nullptr);
  Status enqueue_frames (cl_command_queue q, const float *host, cl_mem frames,
      size_t in_row, int n, cl_mem out, size_t out_row, int out_dims,
      int energy_col, TransferStats *stats,
      const KindKernel *kind = nullptr);
  /* rows of stride () floats: N / 2 + 1 complex bins */
  cl_mem spectra () const { return spec_.get (); }
  /* the group front's work-items a frame */
  int work_items () const { return kfront_.threads_a_frame (); }
  /* audio uploads on their own queue (FramingKernel::set_copy_queue) */
  void set_copy_queue (cl_command_queue cq) { framing_.set_copy_queue (cq); }
  int stride () const { return fft_size_ + 2; }

private:
  Status check (int n, bool frames) const;
  /* the destination of a front kernel: the kind's, or the spectra */
  void dest_args (ArgSetter &a, const KindKernel *kind) const;
  Status transform (cl_command_queue q, int n);

  cl_context context_ = nullptr;
  FramingConfig framing_cfg_;
  FrontPlan plan_ = FrontPlan::VKFFT;
  bool frames_input_ = false;
  int in_stride_ = 0;
  int max_batch_ = 0;
  int fft_size_ = 0;
  size_t lsz_ = 64;
  FramingKernel framing_;
  ClKernel pad_kernel_;         /* VkFFT plan, frames input */
  RealFft fft_;
  KernelFront kfront_;
  ClKernel kspectra_kernel_;    /* one-kernel plans: to spectra */
  std::string kspectra_name_;
  ClMem spec_;
  ClMem frames_in_;
};

/* A sparse filter bank on the device (see FilterBank), as the melbank and
 * PLP kernels read it. */
struct FilterBankBuffers
{
  ClMem first, count, offset, weights;
  Status upload (cl_context ctx, const FilterBank &fb);
  /* The same bank as the group front's MFCC kernels read it (gframes.cl):
   * each channel cut into pieces of near-equal length (piece_counts), so
   * that a frame's work_items work-items take a piece each instead of a
   * channel each, and wait for the longest piece instead of the widest
   * channel (26 channels for 512 points: 27 bins against 47). first and
   * count: each piece's bins; offset: channel c's first piece (M + 1
   * entries, the last the number of pieces np); weights: piece p's i-th
   * at i np + p, so that the work-items' loads are side by side (0 past
   * its count). */
  Status upload_pieces (cl_context ctx, const FilterBank &fb,
      int work_items);
};

/* How many pieces each channel of fb is cut into for upload_pieces: the
 * shortest pieces (each channel's of near-equal length) with at most
 * work_items in all; one a channel where the channels alone are more. */
std::vector<int> piece_counts (const FilterBank &fb, int work_items);

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
  MelLayout mel_layout = MelLayout::HTK;
  int fft_points = 0;             /* 0: the next power of two >= W */
  float log_floor = 1.0f;         /* filter-bank values floored before log */
  bool log10 = false;             /* log10 instead of ln (Whisper) */
  /* Kaldi's column order: c0 or the energy in column 0 (its use-energy),
   * not HTK's c0 and E after the cepstra */
  bool leading = false;
  /* Kaldi's VTLN of the mel bank (see MelDesign) */
  double warp = 1.0;
  double warp_low = 100.0;
  double warp_high = -500.0;
  int max_batch = 4096;

  int fft_size () const
  {
    return fft_points > 0 ? fft_points : next_pow2 (framing.W);
  }
  int input_stride () const { return framing.W + (input_has_energy ? 1 : 0); }
  /* The checks every kind needs (frame and FFT size, filter count, band,
   * energy of given frames, batch); the message names what to change. */
  Status validate_front () const;
  /* Every field that changes a result, as text: equal keys, equal rows.
   * A kind appends its own fields (key () of its config). */
  std::string front_key () const;
};

/* A spectral stage: the shared front (frames, window, FFT) and then the
 * kind's own steps (spectra_to_features). The element feeds it audio or
 * frames and gets rows of dims () floats. */
class SpectralStage
{
public:
  virtual ~SpectralStage ();
  /* Audio input: n <= max_batch frames from (n - 1) S + W samples (on the
   * host or the device), the first frame being frame first_frame of its
   * run. */
  Status enqueue_samples (const Samples &samples, int n, cl_mem out,
      size_t out_row, long long first_frame = 0);
  /* Frames input, n <= max_batch rows of input_stride () floats, from the
   * host (uploaded) or, when host is null, from device rows in_row.. of
   * frames. */
  Status enqueue_frames (const float *host, cl_mem frames, size_t in_row,
      int n, cl_mem out, size_t out_row);
  /* Host to host, any n; blocking. pinned: samples and out are in
   * page-locked memory (PinnedHost's data), which the device reads and
   * writes without staging copies. Where use_copy_queue the uploads, from
   * there or from staging memory, go through a queue of their own (made
   * at the first call), so that each overlaps the kernels of the batch
   * before. */
  Status run_samples (const void *samples, long long n, float *out,
      bool pinned = false);
  Status run_frames (const float *frames, long long n, float *out);
  const SpectralConfig &spectral () const { return *base_; }
  /* which front this stage runs on its device (vframes.h) */
  FrontPlan front_plan () const { return front_.plan (); }
  /* floats a row of the output */
  int dims () const { return dims_; }
  /* where enqueue_* runs */
  cl_command_queue queue () const { return queue_; }

protected:
  /* The start of every kind's init: device, queue, front; dims and the
   * energy column (-1: none) of the kind's rows. */
  Status init_front (std::shared_ptr<Device> device,
      const SpectralConfig &cfg, int dims, int energy_index,
      cl_command_queue queue, TransferStats *stats);
  /* The kind's steps after the spectra: n rows into out from out_row. */
  virtual Status spectra_to_features (int n, cl_mem out, size_t out_row) = 0;
  /* A kind that fuses its steps into a one-kernel front (init_kind
   * made fused_kernel_ with front_.mfcc_kernel) sets that kernel's own
   * arguments here, for rows from out_row of out; spectra_to_features is
   * then not called. */
  virtual void fused_args (ArgSetter &, cl_mem, size_t) {}
  /* After init_kind: the spectra buffer unless the kind fused. */
  Status finish_init ();

  std::shared_ptr<Device> device_;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  TransferStats *stats_ = nullptr;
  SpectrumFront front_;
  HostRunBuffers out_;  /* run_* */
  ClQueue copy_queue_;  /* run_samples' uploads */
  size_t lsz_ = 64;
  ClKernel fused_kernel_;
  std::string fused_name_;

private:
  /* the fused kind's kernel for rows from out_row of out, or null */
  const SpectrumFront::KindKernel *fused (SpectrumFront::KindKernel *k,
      cl_mem out, size_t out_row);

  const SpectralConfig *base_ = nullptr;      /* the kind's own config */
  int dims_ = 0;
  int energy_index_ = -1;
};

/* A spectral kind's stage, given its config type: init validates the
 * config, sets up the front and then the kind's own steps (init_kind). A
 * config has validate (), dims () and energy_index (). */
template <class Config>
class SpectralKind : public SpectralStage
{
public:
  Status init (std::shared_ptr<Device> device, const Config &cfg,
      cl_command_queue queue = nullptr, TransferStats *stats = nullptr)
  {
    cfg_ = cfg;
    AFET_RETURN_IF_ERROR (cfg_.validate ());
    AFET_RETURN_IF_ERROR (init_front (std::move (device), cfg_, cfg_.dims (),
            cfg_.energy_index (), queue, stats));
    AFET_RETURN_IF_ERROR (init_kind ());
    return finish_init ();
  }
  const Config &config () const { return cfg_; }

protected:
  /* The kind's design, buffers and kernels, after the front. */
  virtual Status init_kind () = 0;

  Config cfg_;
};

/* C (m x n, leading dimension ldc, from float c_offset) = A (m x k, lda) .
 * B (n x k, ldb)^T, row-major, through CLBlast, enqueued on q. CLBlast
 * compiles its kernels on a size's first use: a stage calls this once at
 * init (and waits) so that streaming never compiles. */
Status sgemm_abt (cl_command_queue q, size_t m, size_t n, size_t k, cl_mem a,
    size_t lda, cl_mem b, size_t ldb, cl_mem c, size_t c_offset, size_t ldc);
/* The same from float offsets into A and B, adding beta times what C held
 * (beta 0 or 1). */
Status sgemm_abt_at (cl_command_queue q, size_t m, size_t n, size_t k,
    cl_mem a, size_t a_offset, size_t lda, cl_mem b, size_t b_offset,
    size_t ldb, float beta, cl_mem c, size_t c_offset, size_t ldc);

}  /* namespace afet */
