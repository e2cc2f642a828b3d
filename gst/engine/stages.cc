/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "stages.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <clblast_c.h>

#include <algorithm>
#include <cstring>

namespace afet {


std::string
stage_build_options (size_t lsz)
{
  return "-DAFET_LSZ=" + std::to_string (lsz) + " -DAFET_MAX_FILTERS=" +
      std::to_string (kMaxFilters);
}

/* ---- framing ---------------------------------------------------------- */

Status
FramingKernel::init (Device &device, const FramingConfig &cfg, int max_batch)
{
  cfg_ = cfg;
  lsz_ = pick_local_size (device);
  if (cfg.W < 1 || cfg.S < 1)
    return Status (Status::BAD_CONFIG, "frame length and shift must be at "
        "least one sample");
  AFET_RETURN_IF_ERROR (make_kernel (device, "framing", kernels::framing,
          kernels::framing_sha256, stage_build_options (lsz_), "afet_frame",
          &kernel_));
  std::vector<float> win = make_window (cfg.window, cfg.W);
  AFET_RETURN_IF_ERROR (make_buffer (device.context (), CL_MEM_READ_ONLY,
          win.size () * sizeof (float), win.data (), &window_));
  samples_cap_ = (size_t) (max_batch - 1) * cfg.S + cfg.W;
  return make_buffer (device.context (), CL_MEM_READ_ONLY,
      samples_cap_ * sizeof (float), nullptr, &samples_);
}

Status
FramingKernel::enqueue (cl_command_queue q, const float *samples, int n,
    cl_mem out, size_t out_offset, int out_stride, cl_mem energy_buf,
    size_t energy_offset, int energy_stride, bool energy,
    TransferStats *stats)
{
  size_t count = (size_t) (n - 1) * cfg_.S + cfg_.W;
  if (n < 1 || count > samples_cap_)
    return Status (Status::BAD_CONFIG, "framing batch of " +
        std::to_string (n) + " frames is out of range");
  /* blocking: the caller may reuse its host memory at once */
  AFET_RETURN_IF_ERROR (upload (q, samples_.get (), 0,
          count * sizeof (float), samples, true, stats));
  cl_mem samples_mem = samples_.get (), window_mem = window_.get ();
  if (!energy_buf)
    energy_buf = out;
  ArgSetter a (kernel_.get ());
  a (samples_mem) ((cl_uint) cfg_.W) ((cl_uint) cfg_.S) (cfg_.preemph)
      (window_mem) (out) ((cl_uint) out_offset) ((cl_uint) out_stride)
      ((cl_uint) n) (energy_buf) ((cl_uint) energy_offset)
      ((cl_uint) energy_stride) ((cl_int) (energy ? 1 : 0));
  AFET_RETURN_IF_ERROR (a.status ("afet_frame"));
  return launch (q, kernel_.get (), n, lsz_, "afet_frame");
}


Status
FilterBankBuffers::upload (cl_context ctx, const FilterBank &fb)
{
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          fb.first.size () * sizeof (int), fb.first.data (), &first));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          fb.count.size () * sizeof (int), fb.count.data (), &count));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          fb.offset.size () * sizeof (int), fb.offset.data (), &offset));
  return make_buffer (ctx, CL_MEM_READ_ONLY,
      fb.weights.size () * sizeof (float), fb.weights.data (), &weights);
}

/* ---- the spectral front ----------------------------------------------- */

Status
SpectrumFront::init (Device &device, const FramingConfig &framing,
    bool frames_input, bool input_has_energy, int max_batch)
{
  context_ = device.context ();
  framing_cfg_ = framing;
  frames_input_ = frames_input;
  in_stride_ = framing.W + (input_has_energy ? 1 : 0);
  max_batch_ = max_batch;
  fft_size_ = next_pow2 (framing.W);
  lsz_ = pick_local_size (device);
  if (frames_input) {
    AFET_RETURN_IF_ERROR (make_kernel (device, "framing", kernels::framing,
            kernels::framing_sha256, stage_build_options (lsz_),
            "afet_pad_frames", &pad_kernel_));
  } else {
    AFET_RETURN_IF_ERROR (framing_.init (device, framing, max_batch));
  }
  std::vector<int> caps = RealFft::capacities_for (max_batch);
  AFET_RETURN_IF_ERROR (make_buffer (context_, CL_MEM_READ_WRITE,
          (size_t) caps.back () * stride () * sizeof (float), nullptr,
          &spec_));
  return fft_.init (device, fft_size_, caps, spec_.get ());
}

Status
SpectrumFront::transform (cl_command_queue q, int n)
{
  return fft_.forward (q, spec_.get (), n);
}

Status
SpectrumFront::enqueue_samples (cl_command_queue q, const float *samples,
    int n, cl_mem out, size_t out_row, int out_dims, int energy_col,
    TransferStats *stats)
{
  if (frames_input_)
    return Status (Status::BAD_CONFIG, "enqueue_samples: this stage was "
        "configured for frames input");
  if (n < 1 || n > max_batch_)
    return Status (Status::BAD_CONFIG, "batch of " + std::to_string (n) +
        " frames, want 1.." + std::to_string (max_batch_));
  AFET_RETURN_IF_ERROR (framing_.enqueue (q, samples, n, spec_.get (), 0,
          stride (), out, out_row * out_dims + (energy_col >= 0 ? energy_col :
              0), out_dims, energy_col >= 0, stats));
  return transform (q, n);
}

Status
SpectrumFront::enqueue_frames (cl_command_queue q, const float *host,
    cl_mem frames, size_t in_row, int n, cl_mem out, size_t out_row,
    int out_dims, int energy_col, TransferStats *stats)
{
  if (!frames_input_)
    return Status (Status::BAD_CONFIG, "enqueue_frames: this stage was "
        "configured for audio input");
  if (n < 1 || n > max_batch_)
    return Status (Status::BAD_CONFIG, "batch of " + std::to_string (n) +
        " frames, want 1.." + std::to_string (max_batch_));
  if (host) {
    if (!frames_in_)
      AFET_RETURN_IF_ERROR (make_buffer (context_, CL_MEM_READ_ONLY,
              (size_t) max_batch_ * in_stride_ * sizeof (float), nullptr,
              &frames_in_));
    AFET_RETURN_IF_ERROR (upload (q, frames_in_.get (), 0,
            (size_t) n * in_stride_ * sizeof (float), host, true, stats));
    frames = frames_in_.get ();
    in_row = 0;
  }
  cl_mem spec = spec_.get ();
  ArgSetter a (pad_kernel_.get ());
  a (frames) ((cl_uint) (in_row * in_stride_)) ((cl_uint) in_stride_)
      ((cl_uint) framing_cfg_.W) (spec) ((cl_uint) stride ()) ((cl_uint) n)
      (out) ((cl_uint) (out_row * out_dims + (energy_col >= 0 ? energy_col :
                  0))) ((cl_uint) out_dims)
      ((cl_int) (energy_col >= 0 ? 1 : 0));
  AFET_RETURN_IF_ERROR (a.status ("afet_pad_frames"));
  AFET_RETURN_IF_ERROR (launch (q, pad_kernel_.get (), n, lsz_,
          "afet_pad_frames"));
  return transform (q, n);
}

/* ---- afetframer ------------------------------------------------------- */

Status
FramerStage::init (std::shared_ptr<Device> device, const FramerConfig &cfg,
    cl_command_queue queue, TransferStats *stats)
{
  device_ = std::move (device);
  cfg_ = cfg;
  stats_ = stats;
  if (cfg.max_batch < 1)
    return Status (Status::BAD_CONFIG, "max-batch must be at least 1");
  AFET_RETURN_IF_ERROR (use_queue (*device_, queue, &own_queue_, &queue_));
  return framing_.init (*device_, cfg.framing, cfg.max_batch);
}

Status
FramerStage::enqueue (const float *samples, int n, cl_mem out,
    size_t out_row)
{
  const int dims = cfg_.dims ();
  if (n > cfg_.max_batch)
    return Status (Status::BAD_CONFIG, "batch larger than max-batch");
  return framing_.enqueue (queue_, samples, n, out, out_row * dims, dims,
      out, out_row * dims + cfg_.framing.W, dims, cfg_.energy, stats_);
}

Status
FramerStage::run (const float *samples, long long n, float *out)
{
  return run_host_batches (*device_, queue_, &out_, n, cfg_.max_batch,
      cfg_.dims (), out, stats_, [&](long long done, int b, cl_mem o) {
        return enqueue (samples + done * cfg_.framing.S, b, o, 0);
      });
}

/* ---- MFCC / FBANK ----------------------------------------------------- */

int
MfccConfig::dims () const
{
  int d = num_ceps > 0 ? num_ceps + (c0 ? 1 : 0) : num_filters;
  return d + (energy ? 1 : 0);
}

int
MfccConfig::c0_index () const
{
  return (num_ceps > 0 && c0) ? num_ceps : -1;
}

int
MfccConfig::energy_index () const
{
  return energy ? dims () - 1 : -1;
}

Status
SpectralConfig::validate_front () const
{
  if (num_filters < 1 || num_filters > kMaxFilters)
    return Status (Status::BAD_CONFIG, "num-filters must be 1.." +
        std::to_string (kMaxFilters));
  if (framing.W < 2)
    return Status (Status::BAD_CONFIG, "the frame must be at least 2 "
        "samples long: raise frame-length");
  if (framing.rate < 1)
    return Status (Status::BAD_CONFIG, "the sample rate must be positive");
  AFET_RETURN_IF_ERROR (check_fft_size (framing.W, framing.rate));
  AFET_RETURN_IF_ERROR (check_band (low_freq, high_freq, framing.rate));
  if (lifter < 0)
    return Status (Status::BAD_CONFIG, "lifter must be >= 0 (0 = none)");
  if (frames_input && energy && !input_has_energy)
    return Status (Status::BAD_CONFIG, "energy=true needs the raw log "
        "energy of each frame, which the incoming frames do not carry: set "
        "energy=true on afetframer too, or feed the element audio directly");
  if (max_batch < 1)
    return Status (Status::BAD_CONFIG, "max-batch must be at least 1");
  return Status::Ok ();
}

SpectralStage::~SpectralStage () = default;

Status
SpectralStage::init_front (std::shared_ptr<Device> device,
    const SpectralConfig &cfg, int dims, int energy_index,
    cl_command_queue queue, TransferStats *stats)
{
  device_ = std::move (device);
  base_ = &cfg;
  dims_ = dims;
  energy_index_ = energy_index;
  stats_ = stats;
  lsz_ = pick_local_size (*device_);
  AFET_RETURN_IF_ERROR (use_queue (*device_, queue, &own_queue_, &queue_));
  return front_.init (*device_, cfg.framing, cfg.frames_input,
      cfg.input_has_energy, cfg.max_batch);
}

Status
SpectralStage::enqueue_samples (const float *samples, int n, cl_mem out,
    size_t out_row)
{
  AFET_RETURN_IF_ERROR (front_.enqueue_samples (queue_, samples, n, out,
          out_row, dims_, energy_index_, stats_));
  return spectra_to_features (n, out, out_row);
}

Status
SpectralStage::enqueue_frames (const float *host, cl_mem frames,
    size_t in_row, int n, cl_mem out, size_t out_row)
{
  AFET_RETURN_IF_ERROR (front_.enqueue_frames (queue_, host, frames, in_row,
          n, out, out_row, dims_, energy_index_, stats_));
  return spectra_to_features (n, out, out_row);
}

Status
SpectralStage::run_samples (const float *samples, long long n, float *out)
{
  return run_host_batches (*device_, queue_, &out_, n, base_->max_batch,
      dims_, out, stats_, [&](long long done, int b, cl_mem o) {
        return enqueue_samples (samples + done * base_->framing.S, b, o, 0);
      });
}

Status
SpectralStage::run_frames (const float *frames, long long n, float *out)
{
  return run_host_batches (*device_, queue_, &out_, n, base_->max_batch,
      dims_, out, stats_, [&](long long done, int b, cl_mem o) {
        return enqueue_frames (frames + done * base_->input_stride (),
            nullptr, 0, b, o, 0);
      });
}

Status
MfccConfig::validate () const
{
  AFET_RETURN_IF_ERROR (validate_front ());
  if (num_ceps < 0 || num_ceps > num_filters)
    return Status (Status::BAD_CONFIG, "num-ceps (" +
        std::to_string (num_ceps) + ") must not exceed num-filters (" +
        std::to_string (num_filters) + ")");
  return Status::Ok ();
}

MfccStage::MfccStage () = default;
MfccStage::~MfccStage () = default;

Status
MfccStage::init (std::shared_ptr<Device> device, const MfccConfig &cfg,
    cl_command_queue queue, TransferStats *stats)
{
  cfg_ = cfg;
  AFET_RETURN_IF_ERROR (cfg.validate ());
  AFET_RETURN_IF_ERROR (init_front (std::move (device), cfg_, cfg.dims (),
          cfg.energy_index (), queue, stats));

  Device &dev = *device_;
  cl_context ctx = dev.context ();
  const int N = cfg.fft_size ();
  const int M = cfg.num_filters;

  MelDesign md;
  md.rate = cfg.framing.rate;
  md.fft_size = N;
  md.num_filters = M;
  md.low_freq = cfg.low_freq;
  md.high_freq = cfg.high_freq;
  md.htk_period_quirk = cfg.htk_period_quirk;
  FilterBank fb;
  AFET_RETURN_IF_ERROR (design_htk_melbank (md, &fb));

  const int rows = cfg.max_batch;

  AFET_RETURN_IF_ERROR (bank_.upload (ctx, fb));

  AFET_RETURN_IF_ERROR (make_kernel (dev, "melbank", kernels::melbank,
          kernels::melbank_sha256, stage_build_options (lsz_), "afet_melbank",
          &melbank_kernel_));
  if (cfg.num_ceps > 0) {
    ncols_dct_ = cfg.num_ceps + (cfg.c0 ? 1 : 0);
    std::vector<float> D = make_htk_dct (M, cfg.num_ceps, cfg.lifter, cfg.c0);
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
            D.size () * sizeof (float), D.data (), &dct_));
    if (cfg.dct == DctMode::FUSED) {
      AFET_RETURN_IF_ERROR (make_kernel (dev, "melbank", kernels::melbank,
              kernels::melbank_sha256, stage_build_options (lsz_),
              "afet_melbank_dct", &melbank_dct_kernel_));
    } else {
      AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
              (size_t) rows * M * sizeof (float), nullptr, &fbank_));
      /* CLBlast compiles its kernels on first use: do that now, at caps
       * time, not on the first batch while streaming */
      ClMem scratch;
      AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
              (size_t) ncols_dct_ * sizeof (float), nullptr, &scratch));
      cl_command_queue q = queue_;
      CLBlastStatusCode st = CLBlastSgemm (CLBlastLayoutRowMajor,
          CLBlastTransposeNo, CLBlastTransposeYes, 1, (size_t) ncols_dct_,
          (size_t) M, 1.0f, fbank_.get (), 0, (size_t) M, dct_.get (), 0,
          (size_t) M, 0.0f, scratch.get (), 0, (size_t) ncols_dct_, &q,
          nullptr);
      if (st != CLBlastSuccess)
        return Status (Status::GEMM, "CLBlastSgemm warm-up failed (CLBlast "
            "status " + std::to_string ((int) st) + ")");
      clFinish (q);
    }
  }
  return Status::Ok ();
}

Status
MfccStage::spectra_to_features (int n, cl_mem out, size_t out_row)
{
  cl_command_queue q = queue_;
  const MfccConfig &c = cfg_;
  const cl_uint stride = (cl_uint) front_.stride ();
  const int dims = c.dims ();
  const int M = c.num_filters;
  const cl_uint out_offset = (cl_uint) (out_row * dims);
  cl_mem spec = front_.spectra ();

  cl_mem first = bank_.first.get (), count = bank_.count.get (), offset = bank_.offset.get (),
      weights = bank_.weights.get ();
  const float floor_v = 1.0f;
  const cl_int use_power = c.use_power ? 1 : 0;
  if (c.num_ceps > 0 && c.dct == DctMode::FUSED) {
    cl_mem dct = dct_.get ();
    ArgSetter a (melbank_dct_kernel_.get ());
    a (spec) (stride) (first) (count) (offset) (weights) ((cl_uint) M)
        (use_power) (floor_v) (dct) ((cl_uint) ncols_dct_) (out) (out_offset)
        ((cl_uint) dims) ((cl_uint) n);
    AFET_RETURN_IF_ERROR (a.status ("afet_melbank_dct"));
    return launch (q, melbank_dct_kernel_.get (), n, lsz_,
        "afet_melbank_dct");
  }
  bool gemm = c.num_ceps > 0;
  cl_mem fb_out = gemm ? fbank_.get () : out;
  cl_uint fb_offset = gemm ? 0 : out_offset;
  cl_uint fb_stride = gemm ? (cl_uint) M : (cl_uint) dims;
  ArgSetter a (melbank_kernel_.get ());
  a (spec) (stride) (first) (count) (offset) (weights) ((cl_uint) M)
      (use_power) (floor_v) (fb_out) (fb_offset) (fb_stride) ((cl_uint) n);
  AFET_RETURN_IF_ERROR (a.status ("afet_melbank"));
  size_t groups = ((size_t) n * M + lsz_ - 1) / lsz_;
  AFET_RETURN_IF_ERROR (launch (q, melbank_kernel_.get (), groups, lsz_,
          "afet_melbank"));
  if (gemm) {
    /* out[n x ncols] (row stride dims) = fbank[n x M] . dct[ncols x M]^T */
    CLBlastStatusCode st = CLBlastSgemm (CLBlastLayoutRowMajor,
        CLBlastTransposeNo, CLBlastTransposeYes, (size_t) n,
        (size_t) ncols_dct_, (size_t) M, 1.0f, fb_out, 0, (size_t) M,
        dct_.get (), 0, (size_t) M, 0.0f, out, out_offset, (size_t) dims, &q,
        nullptr);
    if (st != CLBlastSuccess)
      return Status (Status::GEMM, "CLBlastSgemm failed (CLBlast status " +
          std::to_string ((int) st) + ")");
  }
  return Status::Ok ();
}

}  /* namespace afet */
