/* The CMVN stage (cmvn.h): its configuration's checks, its statistics and
 * kernels for each scope.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cmvn.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace afet {

Status
CmvnConfig::validate () const
{
  if (dims < 1 || row_stride < dims || (int) mask.size () != dims)
    return Status (Status::BAD_CONFIG, "no columns to normalise");
  if (scope == CmvnScope::SLIDING && (cmn_window < 1 || min_window < 1))
    return Status (Status::BAD_CONFIG, "cmn-window and min-window must be "
        "at least 1");
  if (energy_normalise && (scope != CmvnScope::UTTERANCE ||
          energy_column < 0))
    return Status (Status::BAD_CONFIG, "energy-normalise needs scope="
        "utterance and a stream with a log-energy column (energy=true)");
  if (!initial_mean.empty () && ((int) initial_mean.size () != dims ||
          (!initial_var.empty () && (int) initial_var.size () != dims)))
    return Status (Status::BAD_CONFIG, "the initial statistics have " +
        std::to_string (initial_mean.size ()) + " columns, the stream " +
        std::to_string (dims));
  if (!initial_mean.empty ()) {
    if (scope != CmvnScope::RUNNING)
      return Status (Status::BAD_CONFIG, "initial statistics (stats-file) "
          "start the running statistics: they need scope=running");
    /* float statistics on the device: keep them in its range */
    const double big = 1e30;
    if (!(initial_count > 0 && initial_count < big))
      return Status (Status::BAD_CONFIG, "the initial statistics' frame "
          "count must be positive");
    for (double m : initial_mean)
      if (!(std::fabs (m) < big))
        return Status (Status::BAD_CONFIG, "an initial mean is not a finite "
            "number below 1e30");
    for (double v : initial_var)
      if (!(v > 0 && v < big))
        return Status (Status::BAD_CONFIG, "an initial variance is not a "
            "positive number below 1e30");
  }
  return Status::Ok ();
}

std::string
CmvnConfig::key () const
{
  char buf[256];
  snprintf (buf, sizeof buf, "cmvn dims=%d stride=%d mode=%d scope=%d "
      "cmn_window=%d center=%d min=%d ecol=%d enorm=%d escale=%.9g "
      "floor=%.9g count=%.17g mask=", dims, row_stride, (int) mode,
      (int) scope, cmn_window, center ? 1 : 0, min_window, energy_column,
      energy_normalise ? 1 : 0, energy_scale, silence_floor, initial_count);
  std::string k = buf;
  for (int m : mask)
    k += m ? '1' : '0';
  for (const std::vector<double> *v : { &initial_mean, &initial_var })
    for (double x : *v) {
      snprintf (buf, sizeof buf, " %.17g", x);
      k += buf;
    }
  return k;
}

int
CmvnConfig::back () const
{
  return scope == CmvnScope::SLIDING ? cmn_window : 0;
}

int
CmvnConfig::ahead () const
{
  if (scope == CmvnScope::SLIDING && center)
    return cmn_window - cmn_window / 2 - 1;
  return 0;
}

int
CmvnConfig::start_need () const
{
  if (scope == CmvnScope::UTTERANCE)
    return -1;
  if (scope == CmvnScope::SLIDING)
    return center ? cmn_window : min_window;
  return 0;
}

Status
CmvnStage::init_kernels ()
{
  const CmvnConfig &cfg = cfg_;
  cl_device_fp_config fp = 0;
  clGetDeviceInfo (device_->device (), CL_DEVICE_DOUBLE_FP_CONFIG,
      sizeof (fp), &fp, nullptr);
  fp64_ = fp != 0;
  cl_context ctx = device_->context ();
  const std::string opts = build_options ();
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          cfg.mask.size () * sizeof (int), cfg.mask.data (), &mask_));
  switch (cfg.scope) {
    case CmvnScope::UTTERANCE:
      AFET_RETURN_IF_ERROR (make_kernel (*device_, "cmvn", kernels::cmvn,
              kernels::cmvn_sha256, opts, "afet_cmvn_stats", &stats_kernel_));
      AFET_RETURN_IF_ERROR (make_kernel (*device_, "cmvn", kernels::cmvn,
              kernels::cmvn_sha256, opts, "afet_cmvn_apply", &apply_kernel_));
      AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
              (size_t) cfg.dims * 4 * sizeof (float), nullptr, &stats_));
      break;
    case CmvnScope::SLIDING:
      AFET_RETURN_IF_ERROR (make_kernels ("cmvn", kernels::cmvn,
              kernels::cmvn_sha256, "afet_cmvn_sliding"));
      break;
    case CmvnScope::RUNNING:
      AFET_RETURN_IF_ERROR (make_kernel (*device_, "cmvn", kernels::cmvn,
              kernels::cmvn_sha256, opts, "afet_cmvn_running",
              &running_kernel_));
      AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
              (size_t) cfg.dims * 3 * (fp64_ ? 8 : 4), nullptr, &state_));
      AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
              (size_t) cfg.dims * 2 * sizeof (float), nullptr, &minmax_));
      AFET_RETURN_IF_ERROR (reset_running ());
      break;
  }
  return Status::Ok ();
}

/* the running state from the initial statistics: count, n mean,
 * n (var + mean^2); min/max start empty */
Status
CmvnStage::reset_running ()
{
  const int d = cfg_.dims;
  std::vector<double> st ((size_t) 3 * d, 0.0);
  std::vector<float> mm ((size_t) 2 * d);
  for (int c = 0; c < d; c++) {
    double n = cfg_.initial_mean.empty () ? 0.0 : cfg_.initial_count;
    double m = n > 0 ? cfg_.initial_mean[c] : 0.0;
    double v = n > 0 && !cfg_.initial_var.empty () ? cfg_.initial_var[c] : 0.0;
    st[3 * c] = n;
    st[3 * c + 1] = n * m;
    st[3 * c + 2] = n * (v + m * m);
    mm[2 * c] = INFINITY;
    mm[2 * c + 1] = -INFINITY;
  }
  if (fp64_) {
    AFET_RETURN_IF_ERROR (upload (queue_, state_.get (), 0,
            st.size () * sizeof (double), st.data (), true, nullptr));
  } else {
    std::vector<float> f (st.begin (), st.end ());
    AFET_RETURN_IF_ERROR (upload (queue_, state_.get (), 0,
            f.size () * sizeof (float), f.data (), true, nullptr));
  }
  return upload (queue_, minmax_.get (), 0, mm.size () * sizeof (float),
      mm.data (), true, nullptr);
}

Status
CmvnStage::enqueue (const ContextBlock &in, long long out_first, int n,
    cl_mem out, size_t out_row)
{
  const CmvnConfig &c = cfg_;
  const cl_uint out_offset = (cl_uint) (out_row * c.dims);
  cl_mem mask = mask_.get ();
  const cl_int mode = (cl_int) c.mode;
  switch (c.scope) {
    case CmvnScope::UTTERANCE:{
      cl_mem stats = stats_.get ();
      if (out_first == 0) {
        ArgSetter s (stats_kernel_.get ());
        s (in.rows) ((cl_uint) in.row_stride) ((cl_uint) in.total) (stats);
        AFET_RETURN_IF_ERROR (s.status ("afet_cmvn_stats"));
        AFET_RETURN_IF_ERROR (launch (queue_, stats_kernel_.get (),
                (size_t) c.dims, lsz_, "afet_cmvn_stats"));
      }
      ArgSetter a (apply_kernel_.get ());
      a (in.rows) ((cl_uint) in.row_stride) ((cl_long) in.first_row)
          ((cl_long) out_first) ((cl_uint) n) ((cl_uint) c.dims) (stats)
          (mask) (mode) ((cl_int) c.energy_column)
          ((cl_int) (c.energy_normalise ? 1 : 0)) (c.energy_scale)
          (c.silence_floor) (out) (out_offset);
      AFET_RETURN_IF_ERROR (a.status ("afet_cmvn_apply"));
      return launch (queue_, apply_kernel_.get (),
          ((size_t) n * c.dims + lsz_ - 1) / lsz_, lsz_, "afet_cmvn_apply");
    }
    case CmvnScope::SLIDING:
      return ContextStage::enqueue (in, out_first, n, out, out_row);
    case CmvnScope::RUNNING:{
      if (out_first == 0)
        AFET_RETURN_IF_ERROR (reset_running ());
      cl_mem state = state_.get (), minmax = minmax_.get ();
      ArgSetter a (running_kernel_.get ());
      a (in.rows) ((cl_uint) in.row_stride) ((cl_long) in.first_row)
          ((cl_long) out_first) ((cl_uint) n) ((cl_uint) c.dims) (mask)
          (mode) (state) (minmax) (out) (out_offset);
      AFET_RETURN_IF_ERROR (a.status ("afet_cmvn_running"));
      return launch (queue_, running_kernel_.get (),
          ((size_t) c.dims + lsz_ - 1) / lsz_, lsz_, "afet_cmvn_running");
    }
  }
  return Status::Ok ();
}

void
CmvnStage::kernel_args (ArgSetter &a) const
{
  const CmvnConfig &c = cfg_;
  a ((cl_uint) c.dims) (mask_.get ()) ((cl_int) c.mode)
      ((cl_int) c.cmn_window) ((cl_int) (c.center ? 1 : 0))
      ((cl_int) c.min_window);
}
}  /* namespace afet */
