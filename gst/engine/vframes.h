/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* The spectral front for CPUs (kernels/vframes.cl): frames in the lanes of
 * a vector, a work-item taking them from samples to spectra, or to the
 * features of a kind that fuses its steps (MFCC, filter banks). Which
 * devices run it, how many frames a work-item takes, and the FFT tables
 * its kernels read. */

#include "device.h"
#include "framing.h"

#include <string>

namespace afet {

/* How the spectral front computes: VKFFT (framing.cl, a work-group per
 * frame, then VkFFT's batched FFT: GPUs) or VECTOR (vframes.cl: CPUs). */
enum class FrontPlan
{
  VKFFT = 0,
  VECTOR,
};

/* The largest FFT the vector front takes (a work-item holds its frames'
 * spectra in private memory). */
constexpr int kMaxVectorFft = 8192;

/* The plan for an FFT of fft_size points on a device, for batches of at
 * most batch_samples samples: VECTOR on CPU devices for powers of two from
 * 8 to kMaxVectorFft and batches within 32-bit offsets, else VKFFT.
 * AFET_FRONT=vkfft in the environment puts a CPU device on VKFFT too
 * (tests and benchmarks run both plans on one device); AFET_FRONT=vector
 * is the default there. GPUs always take VKFFT: NVIDIA's OpenCL compiler
 * (H100, driver 580.159.04) turns afet_vframe_mfcc for FFTs of 64 points
 * or fewer into a kernel that writes zeros, and the vector front is no
 * plan for GPUs anyway. */
FrontPlan choose_front (const DeviceInfo &info, int fft_size,
    size_t batch_samples = 0);

/* The vector front's program options and FFT tables on one device, for
 * one FFT size and sample format. */
class VectorFront
{
public:
  Status init (Device &device, int fft_size, SampleFormat samples);
  /* The kernel of vframes.cl for this size and format that takes audio or
   * given frames to spectra or (mfcc) to MFCC / filter-bank features; its
   * name into *name. */
  Status kernel (bool given, bool mfcc, ClKernel *out,
      std::string *name = nullptr) const;
  /* The FFT tables, the first two arguments after a vframes.cl kernel's
   * framing group. */
  void table_args (ArgSetter &a) const;
  /* Work-items for n frames (each takes width () of them). */
  size_t items (int n) const { return ((size_t) n + vw_ - 1) / vw_; }
  int width () const { return vw_; }

private:
  Device *device_ = nullptr;
  std::string options_;
  int vw_ = 0;
  ClMem tw_, rev_;
};

}  /* namespace afet */
