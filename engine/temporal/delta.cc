/* The delta stage (delta.h): its configuration's checks and regression
 * weights.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "delta.h"
#include "clutil.h"

#include "afet-kernels.h"

namespace afet {

Status
DeltaConfig::validate () const
{
  if (order < 1 || order > 3)
    return Status (Status::BAD_CONFIG, "order must be 1, 2 or 3");
  if (delta_window < 1 || accel_window < 1)
    return Status (Status::BAD_CONFIG, "delta-window and accel-window must "
        "be at least 1");
  if (statics < 1 || row_stride < statics)
    return Status (Status::BAD_CONFIG, "no static columns");
  return Status::Ok ();
}

std::string
DeltaConfig::key () const
{
  return "delta " + std::to_string (statics) + " " +
      std::to_string (row_stride) + " " + std::to_string (order) + " " +
      std::to_string (delta_window) + " " + std::to_string (accel_window) +
      (kaldi ? " kaldi" : " htk");
}

std::vector<float>
kaldi_delta_scales (int order, int window)
{
  /* order 0: the frame itself; order o: order o - 1's filter convolved
   * with j / sum j^2 for j = -window .. window (Kaldi's DeltaFeatures),
   * every sum in floats as there */
  std::vector<float> all (1, 1.0f), prev (1, 1.0f);
  for (int o = 1; o <= order; o++) {
    const int prev_off = ((int) prev.size () - 1) / 2;
    const int cur_off = prev_off + window;
    std::vector<float> cur (prev.size () + 2 * (size_t) window, 0.0f);
    float norm = 0.0f;
    for (int j = -window; j <= window; j++) {
      norm += (float) (j * j);
      for (int k = -prev_off; k <= prev_off; k++)
        cur[j + k + cur_off] += (float) j * prev[k + prev_off];
    }
    const float scale = (float) (1.0 / norm);
    for (float &v : cur)
      v *= scale;
    all.insert (all.end (), cur.begin (), cur.end ());
    prev = cur;
  }
  return all;
}

Status
DeltaStage::init_kernels ()
{
  frames_ = false;
  extra_options_.clear ();
  if (cfg_.kaldi) {
    std::vector<float> s = kaldi_delta_scales (cfg_.order, cfg_.delta_window);
    AFET_RETURN_IF_ERROR (make_buffer (device_->context (),
            CL_MEM_READ_ONLY, s.size () * sizeof (float), s.data (),
            &scales_));
    return make_kernels ("context", kernels::context,
        kernels::context_sha256, "afet_kaldi_delta");
  }
  /* CPU devices: a frame's values read once into registers
   * (kernels/context.cl: AFET_DELTA_REGISTERS), and the block kernel a
   * work-item per frame, built for this configuration (AFET_DELTA_FRAMES) */
  if (device_->info ().is_cpu) {
    frames_ = cfg_.delta_window <= 8 && cfg_.accel_window <= 8;
    extra_options_ = " -DAFET_DELTA_REGISTERS";
    if (frames_)
      extra_options_ += " -DAFET_DELTA_FRAMES -DAFET_DS=" +
          std::to_string (cfg_.statics) + " -DAFET_DO=" +
          std::to_string (cfg_.order) + " -DAFET_DND=" +
          std::to_string (cfg_.delta_window) + " -DAFET_DNA=" +
          std::to_string (cfg_.accel_window);
  }
  return make_kernels ("context", kernels::context, kernels::context_sha256,
      "afet_delta");
}

static float
regression_norm (int w)
{
  double s = 0;
  for (int k = 1; k <= w; k++)
    s += (double) k * k;
  return (float) (2.0 * s);
}

void
DeltaStage::kernel_args (ArgSetter &a) const
{
  const DeltaConfig &c = cfg_;
  if (c.kaldi) {
    a ((cl_uint) c.statics) ((cl_int) c.order) ((cl_int) c.delta_window)
        (scales_.get ());
    return;
  }
  a ((cl_uint) c.statics) ((cl_int) c.order) ((cl_int) c.delta_window)
      (regression_norm (c.delta_window)) ((cl_int) c.accel_window)
      (regression_norm (c.accel_window));
}
}  /* namespace afet */
