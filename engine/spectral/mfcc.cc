/* The MFCC stage (mfcc.h): its configuration's checks, kernels and launches
 * (filter bank, log and DCT, fused or through a CLBlast SGEMM).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "mfcc.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <cmath>

namespace afet {

int
MfccConfig::dims () const
{
  int d = num_ceps > 0 ? num_ceps + (c0 ? 1 : 0) : num_filters;
  return d + (energy ? 1 : 0);
}

int
MfccConfig::c0_index () const
{
  if (num_ceps == 0 || !c0)
    return -1;
  return leading ? 0 : num_ceps;
}

int
MfccConfig::energy_index () const
{
  if (!energy)
    return -1;
  return leading ? 0 : dims () - 1;
}

std::string
MfccConfig::key () const
{
  return "mfcc " + front_key () + " dct=" + std::to_string ((int) dct);
}

Status
MfccConfig::validate () const
{
  AFET_RETURN_IF_ERROR (validate_front ());
  if (num_ceps < 0 || num_ceps > num_filters)
    return Status (Status::BAD_CONFIG, "num-ceps (" +
        std::to_string (num_ceps) + ") must not exceed num-filters (" +
        std::to_string (num_filters) + ")");
  if (leading && energy && c0 && num_ceps > 0)
    return Status (Status::BAD_CONFIG, "Kaldi's column order has room for "
        "either the energy or c0 in column 0 (its use-energy): set "
        "energy=false or c0=false, or htk-compat=true for both at the end");
  return Status::Ok ();
}

Status
MfccStage::init_kind ()
{
  const MfccConfig &cfg = cfg_;
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
  md.layout = cfg.mel_layout;
  md.warp = cfg.warp;
  md.warp_low = cfg.warp_low;
  md.warp_high = cfg.warp_high;
  FilterBank fb;
  AFET_RETURN_IF_ERROR (design_melbank (md, &fb));

  const int rows = cfg.max_batch;

  /* on a one-kernel front (CPUs, GPUs for most FFT sizes) the filter bank
   * and the DCT run in its kernel, unless the DCT is CLBlast's; the group
   * front reads the bank in pieces, the others as it is */
  const bool fuse = front_.one_kernel () && (cfg.num_ceps == 0 ||
      cfg.dct == DctMode::FUSED);
  if (fuse && front_.plan () == FrontPlan::GROUP)
    AFET_RETURN_IF_ERROR (bank_.upload_pieces (ctx, fb, front_.work_items ()));
  else
    AFET_RETURN_IF_ERROR (bank_.upload (ctx, fb));
  if (fuse)
    AFET_RETURN_IF_ERROR (front_.mfcc_kernel (M, &fused_kernel_,
            &fused_name_));
  else
    AFET_RETURN_IF_ERROR (make_kernel (dev, "melbank", kernels::melbank,
            kernels::melbank_sha256, stage_build_options (lsz_),
            "afet_melbank", &melbank_kernel_));
  if (cfg.num_ceps > 0) {
    ncols_dct_ = cfg.num_ceps + (cfg.c0 ? 1 : 0);
    std::vector<float> D = cfg.leading ? make_kaldi_dct (M, cfg.num_ceps,
        cfg.lifter, cfg.c0) : make_htk_dct (M, cfg.num_ceps, cfg.lifter,
        cfg.c0);
    if (fuse && front_.plan () == FrontPlan::GROUP) {
      /* the group front's kernels take it transposed (a work-item a
       * column: column j of channel c at c ncols + j) */
      std::vector<float> T (D.size ());
      for (int j = 0; j < ncols_dct_; j++)
        for (int c = 0; c < M; c++)
          T[(size_t) c * ncols_dct_ + j] = D[(size_t) j * M + c];
      D.swap (T);
    }
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
            D.size () * sizeof (float), D.data (), &dct_));
    if (cfg.dct == DctMode::FUSED && !fuse) {
      AFET_RETURN_IF_ERROR (make_kernel (dev, "melbank", kernels::melbank,
              kernels::melbank_sha256, stage_build_options (lsz_),
              "afet_melbank_dct", &melbank_dct_kernel_));
    } else if (cfg.dct == DctMode::GEMM) {
      AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
              (size_t) rows * M * sizeof (float), nullptr, &fbank_));
      /* compile CLBlast's kernels now, not on the first batch */
      ClMem scratch;
      AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
              (size_t) ncols_dct_ * sizeof (float), nullptr, &scratch));
      cl_command_queue q = queue_;
      AFET_RETURN_IF_ERROR (sgemm_abt (q, 1, (size_t) ncols_dct_, (size_t) M,
              fbank_.get (), (size_t) M, dct_.get (), (size_t) M,
              scratch.get (), 0, (size_t) ncols_dct_));
      clFinish (q);
    }
  }
  return Status::Ok ();
}

/* Kaldi's order: the energy in column 0 before the cepstra or channels */
size_t
MfccStage::first_column (size_t out_row) const
{
  return out_row * cfg_.dims () + (cfg_.leading && cfg_.energy ? 1 : 0);
}

float
MfccStage::log_mul () const
{
  return cfg_.log10 ? (float) (1.0 / std::log (10.0)) : 1.0f;
}

void
MfccStage::fused_args (ArgSetter &a, cl_mem out, size_t out_row)
{
  const MfccConfig &c = cfg_;
  a (bank_.first.get ()) (bank_.count.get ()) (bank_.offset.get ())
      (bank_.weights.get ())
      ((cl_uint) c.num_filters)
      ((cl_int) (c.use_power ? 1 : 0)) (c.log_floor) (log_mul ())
      (dct_.get ()) ((cl_uint) ncols_dct_) (out)
      ((cl_uint) first_column (out_row)) ((cl_uint) c.dims ());
}

Status
MfccStage::spectra_to_features (int n, cl_mem out, size_t out_row)
{
  cl_command_queue q = queue_;
  const MfccConfig &c = cfg_;
  const cl_uint stride = (cl_uint) front_.stride ();
  const int dims = c.dims ();
  const int M = c.num_filters;
  const cl_uint out_offset = (cl_uint) first_column (out_row);
  cl_mem spec = front_.spectra ();

  cl_mem first = bank_.first.get (), count = bank_.count.get (), offset = bank_.offset.get (),
      weights = bank_.weights.get ();
  const float floor_v = c.log_floor;
  const float log_mul = this->log_mul ();
  const cl_int use_power = c.use_power ? 1 : 0;
  if (c.num_ceps > 0 && c.dct == DctMode::FUSED) {
    cl_mem dct = dct_.get ();
    ArgSetter a (melbank_dct_kernel_.get ());
    a (spec) (stride) (first) (count) (offset) (weights) ((cl_uint) M)
        (use_power) (floor_v) (log_mul) (dct) ((cl_uint) ncols_dct_) (out)
        (out_offset)
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
      (use_power) (floor_v) (log_mul) (fb_out) (fb_offset) (fb_stride)
      ((cl_uint) n);
  AFET_RETURN_IF_ERROR (a.status ("afet_melbank"));
  size_t groups = ((size_t) n * M + lsz_ - 1) / lsz_;
  AFET_RETURN_IF_ERROR (launch (q, melbank_kernel_.get (), groups, lsz_,
          "afet_melbank"));
  if (gemm) {
    /* out[n x ncols] (row stride dims) = fbank[n x M] . dct[ncols x M]^T */
    return sgemm_abt (q, (size_t) n, (size_t) ncols_dct_, (size_t) M, fb_out,
        (size_t) M, dct_.get (), (size_t) M, out, out_offset, (size_t) dims);
  }
  return Status::Ok ();
}

}  /* namespace afet */
