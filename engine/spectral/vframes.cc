/* The spectral front in one kernel (vframes.h): which plan a device runs, the
 * kernels' work-items and vector width, and the FFT tables they read.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "vframes.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>

namespace afet {

/* The group front's work-items a frame (*threads: N / 16, so that each
 * takes two radix-8 butterflies a pass, 2 to 128) and frames a group
 * (*frames: enough for a warp of 32). On an H100 (driver 580.159.04, 10 h
 * of 16 kHz audio, N = 512) one frame of 32 work-items a group ran the
 * stage in 16.8 ms; two, four and eight frames a group, or 64 work-items
 * a frame, took 17.1 to 21.0 ms. Within the device's group size. */
static void
pick_group (const DeviceInfo &info, int fft_size, int *frames, int *threads)
{
  int gt = std::min (128, std::max (2, fft_size / 16));
  int gf = std::max (1, 32 / gt);
  while (gf > 1 && (size_t) (gf * gt) > info.max_work_group_size)
    gf /= 2;
  while (gt > 1 && (size_t) (gf * gt) > info.max_work_group_size)
    gt /= 2;
  *frames = gf;
  *threads = gt;
}

size_t
group_local_bytes (const DeviceInfo &info, int fft_size)
{
  int frames = 1, threads = 1;
  pick_group (info, fft_size, &frames, &threads);
  /* gframes.cl: re and im padded (one float every 32), the bins' power,
   * the channels, a float a work-item for the sums */
  const size_t padded = (size_t) fft_size + (size_t) fft_size / 32;
  return sizeof (float) * ((size_t) frames * (2 * padded + (size_t)
          fft_size / 2 + 1 + kMaxFilters) + (size_t) frames * threads);
}

FrontPlan
choose_front (const DeviceInfo &info, int fft_size, size_t batch_samples)
{
  const bool pow2 = fft_size >= 8 && (fft_size & (fft_size - 1)) == 0;
  /* the vector kernels address a batch's samples with 32-bit offsets */
  const bool vector = info.is_cpu && pow2 && fft_size <= kMaxVectorFft &&
      batch_samples <= (size_t) INT32_MAX;
  /* a device that does not say gets OpenCL's 32 KiB, which every size
   * takes */
  const bool group = pow2 && fft_size <= kMaxGroupFft &&
      (info.local_mem_bytes == 0 ||
          group_local_bytes (info, fft_size) <= info.local_mem_bytes);
  const char *env = std::getenv ("AFET_FRONT");
  if (env && std::strcmp (env, "vkfft") == 0)
    return FrontPlan::VKFFT;
  if (env && std::strcmp (env, "vector") == 0)
    return vector ? FrontPlan::VECTOR : FrontPlan::VKFFT;
  if (env && std::strcmp (env, "group") == 0)
    return group ? FrontPlan::GROUP : FrontPlan::VKFFT;
  if (info.is_cpu)
    return vector ? FrontPlan::VECTOR : FrontPlan::VKFFT;
  return group ? FrontPlan::GROUP : FrontPlan::VKFFT;
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
  const size_t per_frame = sizeof (float) * (2 * (size_t) fft_size +
      (size_t) fft_size / 2 + 1 + kMaxFilters);
  while (vw > 2 && vw * per_frame > 256 * 1024)
    vw /= 2;
  return vw;
}

/* Where bin k of an N-point FFT by decimation in frequency ends: vframes.cl
 * (radix 4, whose outputs are stored in radix-2 order, and a last radix-2
 * step): k's log2(N) bits reversed. */
static int
radix2_place (int k, int N)
{
  int r = 0;
  for (int b = 1; b < N; b <<= 1, k >>= 1)
    r = (r << 1) | (k & 1);
  return r;
}

/* The same for gframes.cl (radix-8 passes, then one of 4 or 2 points): a
 * pass of radix R over sub-transforms of L points leaves digit k mod R of
 * the bin at (k mod R) L / R of its sub-transform, and the rest of k to
 * the next pass. */
static int
radix8_place (int k, int N)
{
  int place = 0;
  for (int L = N; L > 1;) {
    const int R = L >= 8 ? 8 : L;
    place += (k % R) * (L / R);
    k /= R;
    L /= R;
  }
  return place;
}

Status
KernelFront::init (Device &device, FrontPlan plan, int fft_size,
    SampleFormat samples)
{
  device_ = &device;
  plan_ = plan;
  if (plan == FrontPlan::GROUP) {
    int gt = 1;
    pick_group (device.info (), fft_size, &frames_, &gt);
    lsz_ = (size_t) frames_ * gt;
    options_ = stage_build_options (lsz_, samples) + " -DAFET_GT=" +
        std::to_string (gt);
  } else {
    frames_ = pick_width (device.info (), fft_size);
    lsz_ = 1;
    options_ = stage_build_options (1, samples) + " -DAFET_VW=" +
        std::to_string (frames_);
  }
  options_ += " -DAFET_FFT=" + std::to_string (fft_size);
  const int N = fft_size;
  std::vector<float> tw;
  auto twiddle = [&tw](long long k, long long L) {
    const double a = -2.0 * M_PI * (double) k / (double) L;
    tw.push_back ((float) std::cos (a));
    tw.push_back ((float) std::sin (a));
  };
  std::vector<int> rev (N);
  for (int k = 0; k < N; k++)
    rev[k] = plan == FrontPlan::GROUP ? radix8_place (k, N) :
        radix2_place (k, N);
  if (plan == FrontPlan::GROUP) {
    /* gframes.cl: each radix-8 pass over sub-transforms of L points its
     * own W_L^(j m), m = 1..7, j < L / 8, at (m - 1) L / 8 + j, so that
     * the work-items of a pass read consecutive twiddles */
    for (int L = N; L >= 8; L /= 8)
      for (int m = 1; m < 8; m++)
        for (int j = 0; j < L / 8; j++)
          twiddle ((long long) j * m, L);
  } else {
    for (int k = 0; k < N; k++)
      twiddle (k, N);
  }
  cl_context ctx = device.context ();
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          tw.size () * sizeof (float), tw.data (), &tw_));
  return make_buffer (ctx, CL_MEM_READ_ONLY, rev.size () * sizeof (int),
      rev.data (), &rev_);
}

Status
KernelFront::kernel (bool given, int filters, ClKernel *out,
    std::string *name) const
{
  const bool group = plan_ == FrontPlan::GROUP;
  const bool mfcc = filters > 0;
  const std::string n = std::string (group ? "afet_g" : "afet_v") +
      (given ? "pad_" : "frame_") + (mfcc ? "mfcc" : "spectra");
  if (name)
    *name = n;
  const std::string defs = std::string (given ? (group ? " -DAFET_GGIVEN" :
          " -DAFET_VGIVEN") : "") + (mfcc ? (group ? " -DAFET_GMFCC" :
          " -DAFET_VMFCC") : "");
  if (group)
    return make_kernel (*device_, "gframes", kernels::gframes,
        kernels::gframes_sha256, options_ + defs + (mfcc ? " -DAFET_FILTERS="
            + std::to_string (filters) : ""), n.c_str (), out);
  return make_kernel (*device_, "vframes", kernels::vframes,
      kernels::vframes_sha256, options_ + defs, n.c_str (), out);
}

void
KernelFront::table_args (ArgSetter &a) const
{
  a (tw_.get ()) (rev_.get ());
}

}  /* namespace afet */
