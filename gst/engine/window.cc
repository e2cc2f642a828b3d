/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "window.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <cmath>

namespace afet {

static std::string
options (size_t lsz)
{
  return "-DAFET_LSZ=" + std::to_string (lsz);
}

static Status
use_queue (Device &device, cl_command_queue given, ClQueue *own,
    cl_command_queue *out)
{
  if (given) {
    *out = given;
    return Status::Ok ();
  }
  AFET_RETURN_IF_ERROR (device.create_queue (own));
  *out = own->get ();
  return Status::Ok ();
}

/* ---- deltas ----------------------------------------------------------- */

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

Status
DeltaStage::init (std::shared_ptr<Device> device, const DeltaConfig &cfg,
    cl_command_queue queue, TransferStats *stats)
{
  device_ = std::move (device);
  cfg_ = cfg;
  AFET_RETURN_IF_ERROR (cfg.validate ());
  lsz_ = pick_local_size (*device_);
  AFET_RETURN_IF_ERROR (use_queue (*device_, queue, &own_queue_, &queue_));
  return make_kernel (*device_, "window", kernels::window,
      kernels::window_sha256, options (lsz_), "afet_delta", &kernel_);
}

static float
regression_norm (int w)
{
  double s = 0;
  for (int k = 1; k <= w; k++)
    s += (double) k * k;
  return (float) (2.0 * s);
}

Status
DeltaStage::enqueue (const WindowBlock &in, long long out_first, int n,
    cl_mem out, size_t out_row)
{
  const DeltaConfig &c = cfg_;
  ArgSetter a (kernel_.get ());
  a (in.rows) ((cl_uint) in.row_stride) ((cl_long) in.first_row)
      ((cl_long) in.total) ((cl_long) out_first) ((cl_uint) n)
      ((cl_uint) c.statics) ((cl_int) c.order) ((cl_int) c.delta_window)
      (regression_norm (c.delta_window)) ((cl_int) c.accel_window)
      (regression_norm (c.accel_window)) (out)
      ((cl_uint) (out_row * c.dims ()));
  AFET_RETURN_IF_ERROR (a.status ("afet_delta"));
  size_t groups = ((size_t) n * c.statics + lsz_ - 1) / lsz_;
  return launch (queue_, kernel_.get (), groups, lsz_, "afet_delta");
}

/* ---- TRAPS ------------------------------------------------------------ */

Status
TrapsConfig::validate () const
{
  if (length < 3 || length % 2 == 0)
    return Status (Status::BAD_CONFIG, "length must be odd and at least 3 "
        "(the halves overlap at the centre frame)");
  if (num_dct < 1 || num_dct > half ())
    return Status (Status::BAD_CONFIG, "num-dct must be 1.." +
        std::to_string (half ()) + " for length " + std::to_string (length));
  if (bands < 1 || row_stride < bands)
    return Status (Status::BAD_CONFIG, "no bands");
  return Status::Ok ();
}

std::vector<float>
traps_weights (const TrapsConfig &cfg)
{
  const int H = cfg.half (), K = cfg.num_dct, L = cfg.length;
  std::vector<float> w ((size_t) 2 * K * H);
  for (int h = 0; h < 2; h++)
    for (int k = 0; k < K; k++)
      for (int i = 0; i < H; i++) {
        int j = h * (H - 1) + i;
        double ham = 0.54 - 0.46 * std::cos (2.0 * M_PI * j / (L - 1));
        double s = k == 0 ? std::sqrt (1.0 / H) : std::sqrt (2.0 / H);
        double basis = s * std::cos (M_PI * k * (2 * i + 1) / (2.0 * H));
        w[((size_t) h * K + k) * H + i] = (float) (ham * basis);
      }
  return w;
}

Status
TrapsStage::init (std::shared_ptr<Device> device, const TrapsConfig &cfg,
    cl_command_queue queue, TransferStats *stats)
{
  device_ = std::move (device);
  cfg_ = cfg;
  AFET_RETURN_IF_ERROR (cfg.validate ());
  lsz_ = pick_local_size (*device_);
  AFET_RETURN_IF_ERROR (use_queue (*device_, queue, &own_queue_, &queue_));
  std::vector<float> w = traps_weights (cfg);
  AFET_RETURN_IF_ERROR (make_buffer (device_->context (), CL_MEM_READ_ONLY,
          w.size () * sizeof (float), w.data (), &weights_));
  return make_kernel (*device_, "window", kernels::window,
      kernels::window_sha256, options (lsz_), "afet_traps", &kernel_);
}

Status
TrapsStage::enqueue (const WindowBlock &in, long long out_first, int n,
    cl_mem out, size_t out_row)
{
  const TrapsConfig &c = cfg_;
  cl_mem w = weights_.get ();
  ArgSetter a (kernel_.get ());
  a (in.rows) ((cl_uint) in.row_stride) ((cl_long) in.first_row)
      ((cl_long) in.total) ((cl_long) out_first) ((cl_uint) n)
      ((cl_uint) c.bands) ((cl_int) c.half ()) ((cl_int) c.num_dct) (w)
      (out) ((cl_uint) (out_row * c.dims ()));
  AFET_RETURN_IF_ERROR (a.status ("afet_traps"));
  size_t groups = ((size_t) n * c.dims () + lsz_ - 1) / lsz_;
  return launch (queue_, kernel_.get (), groups, lsz_, "afet_traps");
}

}  /* namespace afet */
