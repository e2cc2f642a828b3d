/* The TRAPS stage (traps.h): its configuration's checks and the weights of
 * its half-window DCTs.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "traps.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <cmath>

namespace afet {

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

std::string
TrapsConfig::key () const
{
  return "traps " + std::to_string (bands) + " " +
      std::to_string (row_stride) + " " + std::to_string (length) + " " +
      std::to_string (num_dct);
}

Status
TrapsStage::init_kernels ()
{
  std::vector<float> w = traps_weights (cfg_);
  AFET_RETURN_IF_ERROR (make_buffer (device_->context (), CL_MEM_READ_ONLY,
          w.size () * sizeof (float), w.data (), &weights_));
  return make_kernels ("context", kernels::context, kernels::context_sha256,
      "afet_traps");
}

void
TrapsStage::kernel_args (ArgSetter &a) const
{
  const TrapsConfig &c = cfg_;
  a ((cl_uint) c.bands) ((cl_int) c.half ()) ((cl_int) c.num_dct)
      (weights_.get ());
}
}  /* namespace afet */
