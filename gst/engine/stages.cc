/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "stages.h"

#include "afet-kernels.h"

#include <clblast_c.h>

#include <algorithm>
#include <cstring>

namespace afet {

#define AFET_MAX_FILTERS 256

static Status
cl_fail (const char *what, cl_int err)
{
  return Status (Status::OPENCL, std::string (what) + ": " +
      cl_error_name (err));
}

static Status
make_buffer (cl_context ctx, cl_mem_flags flags, size_t bytes,
    const void *host, ClMem *out)
{
  cl_int err = CL_SUCCESS;
  if (bytes == 0)
    bytes = 4;
  cl_mem m = clCreateBuffer (ctx, flags | (host ? CL_MEM_COPY_HOST_PTR : 0),
      bytes, const_cast<void *> (host), &err);
  if (err != CL_SUCCESS)
    return cl_fail ("clCreateBuffer", err);
  out->reset (m);
  return Status::Ok ();
}

static size_t
pick_local_size (const Device &device)
{
  size_t lsz = 64;
  while (lsz > 1 && lsz > device.info ().max_work_group_size)
    lsz >>= 1;
  return lsz;
}

static std::string
build_options (size_t lsz)
{
  return "-DAFET_LSZ=" + std::to_string (lsz) + " -DAFET_MAX_FILTERS=" +
      std::to_string (AFET_MAX_FILTERS);
}

static Status
make_kernel (Device &device, const char *prog_name, const char *source,
    size_t lsz, const char *kernel_name, ClKernel *out)
{
  cl_program prog = nullptr;
  AFET_RETURN_IF_ERROR (device.program (prog_name, source,
          build_options (lsz), &prog));
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel (prog, kernel_name, &err);
  if (err != CL_SUCCESS)
    return cl_fail ("clCreateKernel", err);
  out->reset (k);
  return Status::Ok ();
}

/* Sets kernel arguments from a list of values of any type. */
class ArgSetter
{
public:
  explicit ArgSetter (cl_kernel k) : k_ (k) {}
  template <typename T>
  ArgSetter &operator() (const T &v)
  {
    if (err_ == CL_SUCCESS)
      err_ = clSetKernelArg (k_, idx_, sizeof (T), &v);
    idx_++;
    return *this;
  }
  Status status (const char *name) const
  {
    if (err_ != CL_SUCCESS)
      return Status (Status::OPENCL, std::string ("clSetKernelArg (") + name
          + ", " + std::to_string (idx_) + "): " + cl_error_name (err_));
    return Status::Ok ();
  }

private:
  cl_kernel k_;
  cl_uint idx_ = 0;
  cl_int err_ = CL_SUCCESS;
};

static Status
launch (cl_command_queue q, cl_kernel k, size_t groups, size_t lsz,
    const char *name)
{
  size_t global = groups * lsz;
  cl_int err = clEnqueueNDRangeKernel (q, k, 1, nullptr, &global, &lsz, 0,
      nullptr, nullptr);
  if (err != CL_SUCCESS)
    return Status (Status::OPENCL, std::string ("enqueue ") + name + ": " +
        cl_error_name (err));
  return Status::Ok ();
}

/* ---- framing ---------------------------------------------------------- */

Status
FramingKernel::init (Device &device, const FramingConfig &cfg, int max_batch)
{
  cfg_ = cfg;
  context_ = device.context ();
  lsz_ = pick_local_size (device);
  if (cfg.W < 1 || cfg.S < 1)
    return Status (Status::BAD_CONFIG, "frame length and shift must be at "
        "least one sample");
  AFET_RETURN_IF_ERROR (make_kernel (device, "framing", kernels::framing,
          lsz_, "afet_frame", &kernel_));
  std::vector<float> win = make_window (cfg.window, cfg.W);
  AFET_RETURN_IF_ERROR (make_buffer (context_, CL_MEM_READ_ONLY,
          win.size () * sizeof (float), win.data (), &window_));
  samples_cap_ = (size_t) (max_batch - 1) * cfg.S + cfg.W;
  return make_buffer (context_, CL_MEM_READ_ONLY,
      samples_cap_ * sizeof (float), nullptr, &samples_);
}

Status
FramingKernel::enqueue (cl_command_queue q, const float *samples, int n,
    cl_mem out, int out_stride, cl_mem energy_buf, int energy_offset,
    int energy_stride, bool energy)
{
  size_t count = (size_t) (n - 1) * cfg_.S + cfg_.W;
  if (count > samples_cap_)
    return Status (Status::BAD_CONFIG, "framing batch too large");
  cl_int err = clEnqueueWriteBuffer (q, samples_.get (), CL_FALSE, 0,
      count * sizeof (float), samples, 0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("upload samples", err);
  cl_mem samples_mem = samples_.get (), window_mem = window_.get ();
  if (!energy_buf)
    energy_buf = out;
  ArgSetter a (kernel_.get ());
  a (samples_mem) ((cl_uint) cfg_.W) ((cl_uint) cfg_.S) (cfg_.preemph)
      (window_mem) (out) ((cl_uint) out_stride) ((cl_uint) n) (energy_buf)
      ((cl_uint) energy_offset) ((cl_uint) energy_stride)
      ((cl_int) (energy ? 1 : 0));
  AFET_RETURN_IF_ERROR (a.status ("afet_frame"));
  return launch (q, kernel_.get (), n, lsz_, "afet_frame");
}

/* ---- afetframer ------------------------------------------------------- */

Status
FramerStage::init (std::shared_ptr<Device> device, const FramerConfig &cfg)
{
  device_ = std::move (device);
  cfg_ = cfg;
  if (cfg.max_batch < 1)
    return Status (Status::BAD_CONFIG, "max-batch must be at least 1");
  AFET_RETURN_IF_ERROR (device_->create_queue (&queue_));
  AFET_RETURN_IF_ERROR (framing_.init (*device_, cfg.framing, cfg.max_batch));
  return make_buffer (device_->context (), CL_MEM_WRITE_ONLY,
      (size_t) cfg.max_batch * cfg.dims () * sizeof (float), nullptr, &out_);
}

Status
FramerStage::run (const float *samples, long long n, float *out)
{
  const int dims = cfg_.dims ();
  for (long long done = 0; done < n;) {
    int b = (int) std::min<long long> (n - done, cfg_.max_batch);
    AFET_RETURN_IF_ERROR (framing_.enqueue (queue_.get (),
            samples + done * cfg_.framing.S, b, out_.get (), dims,
            out_.get (), cfg_.framing.W, dims, cfg_.energy));
    cl_int err = clEnqueueReadBuffer (queue_.get (), out_.get (), CL_TRUE, 0,
        (size_t) b * dims * sizeof (float), out + done * dims, 0, nullptr,
        nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("download frames", err);
    done += b;
  }
  return Status::Ok ();
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
MfccConfig::validate () const
{
  if (num_filters < 1 || num_filters > AFET_MAX_FILTERS)
    return Status (Status::BAD_CONFIG, "num-filters must be 1.." +
        std::to_string (AFET_MAX_FILTERS));
  if (num_ceps < 0 || num_ceps > num_filters)
    return Status (Status::BAD_CONFIG, "num-ceps (" +
        std::to_string (num_ceps) + ") must not exceed num-filters (" +
        std::to_string (num_filters) + ")");
  if (framing.W < 2)
    return Status (Status::BAD_CONFIG, "the frame must be at least 2 "
        "samples long: raise frame-length");
  if (frames_input && energy && !input_has_energy)
    return Status (Status::BAD_CONFIG, "energy=true needs the raw log "
        "energy of each frame, which the incoming frames do not carry: set "
        "energy=true on afetframer too, or feed afetmfcc audio directly");
  if (dims () < 1)
    return Status (Status::BAD_CONFIG, "no output columns");
  return Status::Ok ();
}

MfccStage::MfccStage () = default;
MfccStage::~MfccStage () = default;

Status
MfccStage::init (std::shared_ptr<Device> device, const MfccConfig &cfg)
{
  device_ = std::move (device);
  cfg_ = cfg;
  AFET_RETURN_IF_ERROR (cfg.validate ());
  if (cfg.max_batch < 1)
    return Status (Status::BAD_CONFIG, "max-batch must be at least 1");

  Device &dev = *device_;
  cl_context ctx = dev.context ();
  lsz_ = pick_local_size (dev);
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

  AFET_RETURN_IF_ERROR (dev.create_queue (&queue_));
  if (cfg.frames_input) {
    AFET_RETURN_IF_ERROR (make_kernel (dev, "framing", kernels::framing,
            lsz_, "afet_pad_frames", &pad_kernel_));
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
            (size_t) cfg.max_batch * cfg.input_stride () * sizeof (float),
            nullptr, &frames_in_));
  } else {
    AFET_RETURN_IF_ERROR (framing_.init (dev, cfg.framing, cfg.max_batch));
  }

  std::vector<int> caps = RealFft::capacities_for (cfg.max_batch);
  const int rows = caps.back ();
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          (size_t) rows * (N + 2) * sizeof (float), nullptr, &spec_));
  AFET_RETURN_IF_ERROR (fft_.init (dev, N, caps, spec_.get ()));

  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          fb.first.size () * sizeof (int), fb.first.data (), &first_));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          fb.count.size () * sizeof (int), fb.count.data (), &count_));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          fb.offset.size () * sizeof (int), fb.offset.data (), &offset_));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          fb.weights.size () * sizeof (float), fb.weights.data (),
          &weights_));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          (size_t) rows * cfg.dims () * sizeof (float), nullptr, &out_));

  AFET_RETURN_IF_ERROR (make_kernel (dev, "melbank", kernels::melbank, lsz_,
          "afet_melbank", &melbank_kernel_));
  if (cfg.num_ceps > 0) {
    ncols_dct_ = cfg.num_ceps + (cfg.c0 ? 1 : 0);
    std::vector<float> D = make_htk_dct (M, cfg.num_ceps, cfg.lifter, cfg.c0);
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
            D.size () * sizeof (float), D.data (), &dct_));
    if (cfg.dct == DctMode::FUSED) {
      AFET_RETURN_IF_ERROR (make_kernel (dev, "melbank", kernels::melbank,
              lsz_, "afet_melbank_dct", &melbank_dct_kernel_));
    } else {
      AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
              (size_t) rows * M * sizeof (float), nullptr, &fbank_));
    }
  }
  return Status::Ok ();
}

Status
MfccStage::run_batch (const float *in, int n, float *out)
{
  cl_command_queue q = queue_.get ();
  const MfccConfig &c = cfg_;
  const int N = c.fft_size ();
  const cl_uint stride = (cl_uint) (N + 2);
  const int dims = c.dims ();
  const int M = c.num_filters;
  cl_mem spec = spec_.get (), out_mem = out_.get ();

  /* 1. frames into zero-padded FFT rows; energy straight to its column */
  if (c.frames_input) {
    cl_int err = clEnqueueWriteBuffer (q, frames_in_.get (), CL_FALSE, 0,
        (size_t) n * c.input_stride () * sizeof (float), in, 0, nullptr,
        nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("upload frames", err);
    cl_mem fin = frames_in_.get ();
    ArgSetter a (pad_kernel_.get ());
    a (fin) ((cl_uint) c.input_stride ()) ((cl_uint) c.framing.W) (spec)
        (stride) ((cl_uint) n) (out_mem) ((cl_uint) c.energy_index ())
        ((cl_uint) dims) ((cl_int) (c.energy ? 1 : 0));
    AFET_RETURN_IF_ERROR (a.status ("afet_pad_frames"));
    AFET_RETURN_IF_ERROR (launch (q, pad_kernel_.get (), n, lsz_,
            "afet_pad_frames"));
  } else {
    AFET_RETURN_IF_ERROR (framing_.enqueue (q, in, n, spec, stride, out_mem,
            c.energy ? c.energy_index () : 0, dims, c.energy));
  }

  /* 2. spectra */
  AFET_RETURN_IF_ERROR (fft_.forward (q, spec, n));

  /* 3. filter bank, log, DCT */
  cl_mem first = first_.get (), count = count_.get (), offset = offset_.get (),
      weights = weights_.get ();
  const float floor_v = 1.0f;
  const cl_int use_power = c.use_power ? 1 : 0;
  if (c.num_ceps > 0 && c.dct == DctMode::FUSED) {
    cl_mem dct = dct_.get ();
    ArgSetter a (melbank_dct_kernel_.get ());
    a (spec) (stride) (first) (count) (offset) (weights) ((cl_uint) M)
        (use_power) (floor_v) (dct) ((cl_uint) ncols_dct_) (out_mem)
        ((cl_uint) dims) ((cl_uint) n);
    AFET_RETURN_IF_ERROR (a.status ("afet_melbank_dct"));
    AFET_RETURN_IF_ERROR (launch (q, melbank_dct_kernel_.get (), n, lsz_,
            "afet_melbank_dct"));
  } else {
    bool gemm = c.num_ceps > 0;
    cl_mem fb_out = gemm ? fbank_.get () : out_mem;
    cl_uint fb_stride = gemm ? (cl_uint) M : (cl_uint) dims;
    ArgSetter a (melbank_kernel_.get ());
    a (spec) (stride) (first) (count) (offset) (weights) ((cl_uint) M)
        (use_power) (floor_v) (fb_out) (fb_stride) ((cl_uint) n);
    AFET_RETURN_IF_ERROR (a.status ("afet_melbank"));
    size_t groups = ((size_t) n * M + lsz_ - 1) / lsz_;
    AFET_RETURN_IF_ERROR (launch (q, melbank_kernel_.get (), groups, lsz_,
            "afet_melbank"));
    if (gemm) {
      /* out[n x ncols] (row stride dims) = fbank[n x M] . dct[ncols x M]^T */
      CLBlastStatusCode st = CLBlastSgemm (CLBlastLayoutRowMajor,
          CLBlastTransposeNo, CLBlastTransposeYes, (size_t) n,
          (size_t) ncols_dct_, (size_t) M, 1.0f, fb_out, 0, (size_t) M,
          dct_.get (), 0, (size_t) M, 0.0f, out_mem, 0, (size_t) dims, &q,
          nullptr);
      if (st != CLBlastSuccess)
        return Status (Status::GEMM, "CLBlastSgemm failed (CLBlast status "
            + std::to_string ((int) st) + ")");
    }
  }

  /* 4. one download */
  cl_int err = clEnqueueReadBuffer (q, out_mem, CL_TRUE, 0,
      (size_t) n * dims * sizeof (float), out, 0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("download features", err);
  return Status::Ok ();
}

Status
MfccStage::run_samples (const float *samples, long long n, float *out)
{
  const int dims = cfg_.dims ();
  for (long long done = 0; done < n;) {
    int b = (int) std::min<long long> (n - done, fft_.max_rows ());
    AFET_RETURN_IF_ERROR (run_batch (samples + done * cfg_.framing.S, b,
            out + done * dims));
    done += b;
  }
  return Status::Ok ();
}

Status
MfccStage::run_frames (const float *frames, long long n, float *out)
{
  const int dims = cfg_.dims ();
  const int in_stride = cfg_.input_stride ();
  const int max_rows = std::min (fft_.max_rows (), cfg_.max_batch);
  for (long long done = 0; done < n;) {
    int b = (int) std::min<long long> (n - done, max_rows);
    AFET_RETURN_IF_ERROR (run_batch (frames + done * in_stride, b,
            out + done * dims));
    done += b;
  }
  return Status::Ok ();
}

}  /* namespace afet */
