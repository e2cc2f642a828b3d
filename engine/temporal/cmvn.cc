/* The CMVN stage (cmvn.h): its configuration's checks, its statistics and
 * kernels for each scope.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cmvn.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <algorithm>
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
  if (scope == CmvnScope::ARCHIVE && mode != CmvnMode::MEAN &&
      mode != CmvnMode::MEANVAR)
    return Status (Status::BAD_CONFIG, "scope=archive applies Kaldi's "
        "statistics (sums and sums of squares): mode=mean (apply-cmvn) or "
        "mode=meanvar (apply-cmvn --norm-vars)");
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
      "floor=%.9g count=%.17g acc=%d mask=", dims, row_stride, (int) mode,
      (int) scope, cmn_window, center ? 1 : 0, min_window, energy_column,
      energy_normalise ? 1 : 0, energy_scale, silence_floor, initial_count,
      accumulate ? 1 : 0);
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
  /* sliding: and the frame that leaves the span, whose value the kept sums
   * subtract (kernels/cmvn.cl) */
  return scope == CmvnScope::SLIDING ? cmn_window + 1 : 0;
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
      /* the span's sums kept from frame to frame on CPU devices, every
       * value from its whole span on GPUs (kernels/cmvn.cl) */
      if (device_->info ().is_cpu)
        extra_options_ = " -DAFET_SLIDING_INCREMENTAL";
      AFET_RETURN_IF_ERROR (make_kernels ("cmvn", kernels::cmvn,
              kernels::cmvn_sha256, "afet_cmvn_sliding"));
      AFET_RETURN_IF_ERROR (fit_sliding (1));
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
    case CmvnScope::ARCHIVE:{
      AFET_RETURN_IF_ERROR (make_kernel (*device_, "cmvn", kernels::cmvn,
              kernels::cmvn_sha256, opts, "afet_cmvn_affine",
              &affine_kernel_));
      AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
              (size_t) cfg.dims * 2 * sizeof (float), nullptr, &affine_));
      /* the identity until the element gives a run its statistics */
      AFET_RETURN_IF_ERROR (set_affine (std::vector<float> (cfg.dims, 1.0f),
              std::vector<float> (cfg.dims, 0.0f)));
      break;
    }
  }
  if (cfg.accumulate) {
    /* Kaldi sums in double: in float the sums of a long stream would lose
     * the digits its archive has */
    if (!fp64_)
      return Status (Status::BAD_CONFIG, "write-stats sums the statistics "
          "in double, as Kaldi does, and this device has no double "
          "precision (cl_khr_fp64): pick another device");
    AFET_RETURN_IF_ERROR (make_kernel (*device_, "cmvn", kernels::cmvn,
            kernels::cmvn_sha256, opts, "afet_cmvn_accumulate", &acc_kernel_));
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
            (size_t) cfg.dims * 2 * sizeof (double), nullptr, &acc_));
    AFET_RETURN_IF_ERROR (set_stats ({}));
  }
  return Status::Ok ();
}

Status
kaldi_cmvn_affine (const double *stats, int rows, int cols, int dims,
    bool norm_vars, std::vector<float> *scale, std::vector<float> *offset,
    std::string *warning)
{
  char buf[256];
  if (rows < 1 || rows > 2 || cols - 1 != dims) {
    snprintf (buf, sizeof buf, "dims mismatch: the statistics are a %d x %d "
        "matrix (for %d columns), the stream has %d columns", rows, cols,
        cols - 1, dims);
    return Status (Status::BAD_CONFIG, buf);
  }
  if (rows == 1 && norm_vars)
    return Status (Status::BAD_CONFIG, "variance normalisation (mode="
        "meanvar) needs the sums of squares, and the statistics have one "
        "row only");
  const double count = stats[dims];
  /* Kaldi's threshold: balanced-cmvn represents an offset as stats of
   * count one */
  if (count < 1.0) {
    snprintf (buf, sizeof buf, "insufficient statistics: count %.9g is "
        "below 1", count);
    return Status (Status::BAD_CONFIG, buf);
  }
  scale->assign (dims, 1.0f);
  offset->assign (dims, 0.0f);
  warning->clear ();
  if (!norm_vars) {
    /* Kaldi: offset.AddVec (-1.0 / count, sums) with a float factor, the
     * product in double, stored as float */
    const float alpha = (float) (-1.0 / count);
    for (int d = 0; d < dims; d++)
      (*offset)[d] = (float) ((double) alpha * stats[d]);
    return Status::Ok ();
  }
  for (int d = 0; d < dims; d++) {
    double mean = stats[d] / count;
    double var = stats[cols + d] / count - mean * mean;
    const double floor = 1.0e-20;
    if (var < floor) {
      snprintf (buf, sizeof buf, "%scolumn %d's variance %.9g floored to "
          "%g", warning->empty () ? "" : "; ", d, var, floor);
      *warning += buf;
      var = floor;
    }
    double sc = 1.0 / sqrt (var);
    if (sc != sc || 1 / sc == 0.0)
      return Status (Status::BAD_CONFIG, "NaN or infinity in the mean / "
          "variance normalisation of column " + std::to_string (d));
    (*scale)[d] = (float) sc;
    (*offset)[d] = (float) -(mean * sc);
  }
  return Status::Ok ();
}

Status
CmvnStage::set_affine (const std::vector<float> &scale,
    const std::vector<float> &offset)
{
  const int d = cfg_.dims;
  if (!affine_ || (int) scale.size () != d || (int) offset.size () != d)
    return Status (Status::BAD_CONFIG, "set_affine: not scope=archive, or "
        "not one value a column");
  std::vector<float> v (scale);
  v.insert (v.end (), offset.begin (), offset.end ());
  return upload (queue_, affine_.get (), 0, v.size () * sizeof (float),
      v.data (), true, nullptr);
}

Status
CmvnStage::set_stats (const std::vector<double> &stats)
{
  const int d = cfg_.dims;
  if (!acc_)
    return Status (Status::BAD_CONFIG, "set_stats: not accumulating");
  if (!stats.empty () && (int) stats.size () != 2 * (d + 1))
    return Status (Status::BAD_CONFIG, "set_stats: not 2 x (dims + 1) "
        "values");
  /* on the device: the sums then the squares, dims each */
  std::vector<double> v ((size_t) 2 * d, 0.0);
  acc_count_ = 0;
  if (!stats.empty ()) {
    for (int c = 0; c < d; c++) {
      v[c] = stats[c];
      v[d + c] = stats[d + 1 + c];
    }
    acc_count_ = stats[d];
  }
  return upload (queue_, acc_.get (), 0, v.size () * sizeof (double),
      v.data (), true, nullptr);
}

Status
CmvnStage::stats (std::vector<double> *out)
{
  const int d = cfg_.dims;
  if (!acc_)
    return Status (Status::BAD_CONFIG, "stats: not accumulating");
  std::vector<double> v ((size_t) 2 * d);
  AFET_RETURN_IF_ERROR (download (queue_, acc_.get (), 0,
          v.size () * sizeof (double), v.data (), nullptr));
  out->assign ((size_t) 2 * (d + 1), 0.0);
  for (int c = 0; c < d; c++) {
    (*out)[c] = v[c];
    (*out)[d + 1 + c] = v[d + c];
  }
  (*out)[d] = acc_count_;
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
  if (c.accumulate && n > 0) {
    cl_mem acc = acc_.get ();
    ArgSetter s (acc_kernel_.get ());
    s (in.rows) ((cl_uint) in.row_stride) ((cl_long) in.first_row)
        ((cl_long) out_first) ((cl_uint) n) ((cl_uint) c.dims) (acc);
    AFET_RETURN_IF_ERROR (s.status ("afet_cmvn_accumulate"));
    AFET_RETURN_IF_ERROR (launch (queue_, acc_kernel_.get (),
            ((size_t) c.dims + lsz_ - 1) / lsz_, lsz_,
            "afet_cmvn_accumulate"));
    /* Kaldi adds a weight of 1 a frame: exact in double */
    acc_count_ += n;
  }
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
    case CmvnScope::ARCHIVE:{
      cl_mem affine = affine_.get ();
      ArgSetter a (affine_kernel_.get ());
      a (in.rows) ((cl_uint) in.row_stride) ((cl_long) in.first_row)
          ((cl_long) out_first) ((cl_uint) n) ((cl_uint) c.dims) (affine)
          (mask) (out) (out_offset);
      AFET_RETURN_IF_ERROR (a.status ("afet_cmvn_affine"));
      return launch (queue_, affine_kernel_.get (),
          ((size_t) n * c.dims + lsz_ - 1) / lsz_, lsz_, "afet_cmvn_affine");
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
  if (c.scope == CmvnScope::SLIDING)
    a (sliding_sum_.get ()) (sliding_win_.get ());
}

/* The sliding sums of this many streams; a stream's are kept when they
 * grow (a lane's stream goes on from them). Fresh ones hold frame -1: the
 * first launch of a stream starts its span afresh. */
Status
CmvnStage::fit_sliding (int streams)
{
  if (streams <= sliding_streams_)
    return Status::Ok ();
  const int cap = std::max (streams, 2 * sliding_streams_);
  const size_t d = (size_t) cfg_.dims;
  const size_t sum_bytes = d * 2 * sizeof (double);
  const size_t win_bytes = d * 3 * sizeof (cl_long);
  cl_context ctx = device_->context ();
  ClMem sum, win;
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE, cap *
          sum_bytes, nullptr, &sum));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE, cap *
          win_bytes, nullptr, &win));
  const cl_long none = -1;
  cl_int err = clEnqueueFillBuffer (queue_, win.get (), &none, sizeof none,
      0, cap * win_bytes, 0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("clEnqueueFillBuffer (sliding sums)", err);
  if (sliding_streams_ > 0) {
    err = clEnqueueCopyBuffer (queue_, sliding_sum_.get (), sum.get (), 0, 0,
        sliding_streams_ * sum_bytes, 0, nullptr, nullptr);
    if (err == CL_SUCCESS)
      err = clEnqueueCopyBuffer (queue_, sliding_win_.get (), win.get (), 0,
          0, sliding_streams_ * win_bytes, 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("clEnqueueCopyBuffer (sliding sums)", err);
  }
  /* the old buffers go only when the copies are done */
  clFinish (queue_);
  sliding_sum_ = std::move (sum);
  sliding_win_ = std::move (win);
  sliding_streams_ = cap;
  return Status::Ok ();
}

Status
CmvnStage::enqueue_lanes (const LaneBlock &in, int n, cl_mem out)
{
  if (cfg_.scope == CmvnScope::SLIDING)
    AFET_RETURN_IF_ERROR (fit_sliding (in.lanes));
  return ContextStage::enqueue_lanes (in, n, out);
}
}  /* namespace afet */
