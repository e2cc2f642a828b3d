/* The transform stage: the matrices uploaded once, one launch of
 * afet_transform per batch of rows, or CLBlast's SGEMM for wide inputs
 * (transform.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "transform.h"

#include "afet-kernels.h"
#include "spectral.h"

#include <algorithm>
#include <cmath>

namespace afet {

/* From this many input columns on, the product goes through CLBlast's
 * SGEMM: a 40 x 273 LDA on PoCL (2 cores) took 5.5 s an hour of audio with
 * one work-item per value (bench/kaldi/chain.sh). */
static const int kGemmMinDims = 32;

int
TransformConfig::count () const
{
  const size_t one = (size_t) out_dims * cols;
  return one > 0 ? (int) (matrices.size () / one) : 0;
}

Status
TransformConfig::validate () const
{
  if (dims < 1 || row_stride < dims)
    return Status (Status::BAD_CONFIG, "the transform has no input columns");
  if (out_dims < 1)
    return Status (Status::BAD_CONFIG, "the transform has no output rows");
  if (cols != dims && cols != dims + 1)
    return Status (Status::BAD_CONFIG, "a " + std::to_string (out_dims) +
        " x " + std::to_string (cols) + " matrix maps neither " +
        std::to_string (dims) + " columns (linear: " + std::to_string (dims) +
        " columns) nor affinely (" + std::to_string (dims + 1) + ")");
  if (matrices.empty () || matrices.size () % ((size_t) out_dims * cols))
    return Status (Status::BAD_CONFIG, "the transform's matrices are not "
        "whole " + std::to_string (out_dims) + " x " + std::to_string (cols) +
        " matrices");
  for (float x : matrices)
    if (!std::isfinite (x))
      return Status (Status::BAD_CONFIG, "a transform matrix holds NaN or "
          "infinite values");
  if (max_batch < 1)
    return Status (Status::BAD_CONFIG, "max-batch must be at least 1");
  /* the kernel's offsets are 32-bit */
  if ((double) max_batch * std::max (row_stride, out_dims) > 4e9 ||
      (double) matrices.size () > 4e9)
    return Status (Status::BAD_CONFIG, "the transform's batch or matrices "
        "are too large for one launch");
  return Status::Ok ();
}

Status
TransformStage::init (std::shared_ptr<Device> device,
    const TransformConfig &cfg, cl_command_queue queue, TransferStats *stats)
{
  cfg_ = cfg;
  AFET_RETURN_IF_ERROR (cfg_.validate ());
  device_ = std::move (device);
  stats_ = stats;
  lsz_ = pick_local_size (*device_);
  AFET_RETURN_IF_ERROR (use_queue (*device_, queue, &own_queue_, &queue_));
  AFET_RETURN_IF_ERROR (make_kernel (*device_, "transform",
          kernels::transform, kernels::transform_sha256, "-DAFET_LSZ=" +
          std::to_string (lsz_), "afet_transform", &kernel_));
  cl_context ctx = device_->context ();
  /* every matrix once, so that a change of speaker uploads nothing */
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          cfg_.matrices.size () * sizeof (float), nullptr, &matrices_));
  AFET_RETURN_IF_ERROR (upload (queue_, matrices_.get (), 0,
          cfg_.matrices.size () * sizeof (float), cfg_.matrices.data (), true,
          stats_));
  selected_ = 0;
  gemm_ = cfg_.dims >= kGemmMinDims;
  if (gemm_)
    AFET_RETURN_IF_ERROR (warm_gemm ());
  return Status::Ok ();
}

/* CLBlast compiles its kernels at a routine's first use: once here, on a
 * frame of zeros, so that streaming never compiles. */
Status
TransformStage::warm_gemm ()
{
  const TransformConfig &c = cfg_;
  if (c.cols > c.dims)
    AFET_RETURN_IF_ERROR (make_kernel (*device_, "transform",
            kernels::transform, kernels::transform_sha256, "-DAFET_LSZ=" +
            std::to_string (lsz_), "afet_transform_bias", &bias_));
  cl_context ctx = device_->context ();
  ClMem x, y;
  std::vector<float> zeros ((size_t) std::max (c.row_stride, c.out_dims));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          zeros.size () * sizeof (float), nullptr, &x));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          zeros.size () * sizeof (float), nullptr, &y));
  AFET_RETURN_IF_ERROR (upload (queue_, x.get (), 0, zeros.size () *
          sizeof (float), zeros.data (), true, nullptr));
  AFET_RETURN_IF_ERROR (enqueue (x.get (), 0, 1, y.get (), 0));
  const cl_int err = clFinish (queue_);
  return err == CL_SUCCESS ? Status::Ok () : cl_fail ("clFinish", err);
}

Status
TransformStage::select (int index)
{
  if (index < 0 || index >= cfg_.count ())
    return Status (Status::BAD_CONFIG, "no transform matrix " +
        std::to_string (index));
  selected_ = index;
  return Status::Ok ();
}

Status
TransformStage::enqueue (cl_mem in, size_t in_row, int n, cl_mem out,
    size_t out_row)
{
  const TransformConfig &c = cfg_;
  if (n < 1 || n > c.max_batch)
    return Status (Status::BAD_CONFIG, "transform batch out of range");
  const size_t mat_offset = (size_t) selected_ * c.out_dims * c.cols;
  if (gemm_) {
    /* y = x M[:, :dims]^T (+ the offset column, set first) */
    const bool affine = c.cols > c.dims;
    if (affine) {
      ArgSetter b (bias_.get ());
      b ((cl_uint) n) ((cl_uint) c.dims) (matrices_.get ())
          ((cl_uint) mat_offset) ((cl_uint) c.cols) ((cl_uint) c.out_dims)
          (out) ((cl_uint) (out_row * c.out_dims));
      AFET_RETURN_IF_ERROR (b.status ("afet_transform_bias"));
      AFET_RETURN_IF_ERROR (launch (queue_, bias_.get (), ((size_t) n *
                  c.out_dims + lsz_ - 1) / lsz_, lsz_,
              "afet_transform_bias"));
    }
    return sgemm_abt_at (queue_, (size_t) n, (size_t) c.out_dims,
        (size_t) c.dims, in, in_row * c.row_stride, (size_t) c.row_stride,
        matrices_.get (), mat_offset, (size_t) c.cols, affine ? 1.0f : 0.0f,
        out, out_row * c.out_dims, (size_t) c.out_dims);
  }
  ArgSetter a (kernel_.get ());
  a (in) ((cl_uint) c.row_stride) ((cl_uint) (in_row * c.row_stride))
      ((cl_uint) n) ((cl_uint) c.dims) (matrices_.get ())
      ((cl_uint) mat_offset) ((cl_uint) c.cols)
      ((cl_uint) c.out_dims) (out) ((cl_uint) (out_row * c.out_dims));
  AFET_RETURN_IF_ERROR (a.status ("afet_transform"));
  size_t groups = ((size_t) n * c.out_dims + lsz_ - 1) / lsz_;
  return launch (queue_, kernel_.get (), groups, lsz_, "afet_transform");
}

Status
TransformStage::enqueue_host (const float *rows, int n, cl_mem out,
    size_t out_row)
{
  if (n < 1 || n > cfg_.max_batch)
    return Status (Status::BAD_CONFIG, "transform batch out of range");
  const size_t bytes = (size_t) n * cfg_.row_stride * sizeof (float);
  if (!input_)
    AFET_RETURN_IF_ERROR (make_buffer (device_->context (), CL_MEM_READ_ONLY,
            (size_t) cfg_.max_batch * cfg_.row_stride * sizeof (float),
            nullptr, &input_));
  /* blocking: the host rows are the caller's only until this returns (the
   * kernel before on the queue has read the buffer by then: in order) */
  AFET_RETURN_IF_ERROR (upload (queue_, input_.get (), 0, bytes, rows, true,
          stats_));
  return enqueue (input_.get (), 0, n, out, out_row);
}

}  /* namespace afet */
