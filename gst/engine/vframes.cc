/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "vframes.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>

namespace afet {

FrontPlan
choose_front (const DeviceInfo &info, int fft_size, size_t batch_samples)
{
  /* the vector kernels address a batch's samples with 32-bit offsets */
  const bool can = info.is_cpu && fft_size >= 8 &&
      fft_size <= kMaxVectorFft && (fft_size & (fft_size - 1)) == 0 &&
      batch_samples <= (size_t) INT32_MAX;
  if (!can)
    return FrontPlan::VKFFT;
  const char *env = std::getenv ("AFET_FRONT");
  if (env && std::strcmp (env, "vector") == 0)
    return FrontPlan::VECTOR;
  if (env && std::strcmp (env, "vkfft") == 0)
    return FrontPlan::VKFFT;
  return info.is_cpu ? FrontPlan::VECTOR : FrontPlan::VKFFT;
}

/* Frames a work-item: the device's preferred float vector width, 2 to 8
 * (16 on AVX-512 ran no faster here, and its kernel takes PoCL a third
 * longer to compile: 0.29 against 0.23 s, most of a cold start), halved
 * while the work-item's private arrays (the complex FFT, the power of its
 * N/2 + 1 bins, the filter bank's channels) would pass 256 KiB. */
static int
pick_width (const DeviceInfo &info, int fft_size)
{
  int vw = 8;
  while (vw > 2 && vw > (int) info.float_vector_width)
    vw /= 2;
  const size_t per_lane = sizeof (float) * (2 * (size_t) fft_size +
      (size_t) fft_size / 2 + 1 + kMaxFilters);
  while (vw > 2 && vw * per_lane > 256 * 1024)
    vw /= 2;
  return vw;
}

Status
VectorFront::init (Device &device, int fft_size, SampleFormat samples)
{
  device_ = &device;
  vw_ = pick_width (device.info (), fft_size);
  options_ = stage_build_options (1, samples) + " -DAFET_VW=" +
      std::to_string (vw_) + " -DAFET_FFT=" + std::to_string (fft_size);
  const int N = fft_size;
  int bits = 0;
  while ((1 << bits) < N)
    bits++;
  std::vector<float> tw (2 * (size_t) N);
  std::vector<int> rev (N);
  for (int k = 0; k < N; k++) {
    const double a = -2.0 * M_PI * k / N;
    tw[2 * k] = (float) std::cos (a);
    tw[2 * k + 1] = (float) std::sin (a);
    int r = 0;
    for (int b = 0; b < bits; b++)
      if (k >> b & 1)
        r |= 1 << (bits - 1 - b);
    rev[k] = r;
  }
  cl_context ctx = device.context ();
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          tw.size () * sizeof (float), tw.data (), &tw_));
  return make_buffer (ctx, CL_MEM_READ_ONLY, rev.size () * sizeof (int),
      rev.data (), &rev_);
}

Status
VectorFront::kernel (bool given, bool mfcc, ClKernel *out,
    std::string *name) const
{
  const std::string n = std::string (given ? "afet_vpad_" : "afet_vframe_") +
      (mfcc ? "mfcc" : "spectra");
  if (name)
    *name = n;
  return make_kernel (*device_, "vframes", kernels::vframes,
      kernels::vframes_sha256, options_ + (given ? " -DAFET_VGIVEN" : "") +
      (mfcc ? " -DAFET_VMFCC" : ""), n.c_str (), out);
}

void
VectorFront::table_args (ArgSetter &a) const
{
  a (tw_.get ()) (rev_.get ());
}

}  /* namespace afet */
