/* The spectral front in one kernel: kernels/vframes.cl on CPUs (frames in a
 * vector), kernels/gframes.cl on GPUs (a work-group a frame).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* A work-item takes frames from samples to spectra, or to the features of
 * a kind that fuses its steps (MFCC, filter banks); the group front does
 * the FFT in local memory. Which devices run which plan, how a plan's
 * kernels are built
 * and launched, and the FFT tables they read. */

#include "device.h"
#include "framing.h"

#include <string>

namespace afet {

/* How the spectral front computes: VKFFT (framing.cl, a work-group per
 * frame, then VkFFT's batched FFT), VECTOR (vframes.cl: CPUs) or GROUP
 * (gframes.cl: GPUs). */
enum class FrontPlan
{
  VKFFT = 0,
  VECTOR,
  GROUP,
};

/* The largest FFT the vector front takes (a work-item holds its frames'
 * spectra in private memory). */
constexpr int kMaxVectorFft = 8192;
/* The largest FFT the group front takes (a group holds its frames'
 * complex spectra, the power of their bins and the filter bank's channels
 * in local memory: at most 22.0 KiB, at 2048 points, within the 32 KiB
 * OpenCL promises and the 48 KiB NVIDIA's OpenCL gives a group). */
constexpr int kMaxGroupFft = 2048;

/* The plan for an FFT of fft_size points on a device, for batches of at
 * most batch_samples samples. CPU devices take VECTOR for powers of two
 * from 8 to kMaxVectorFft and batches within 32-bit offsets, other
 * devices GROUP for powers of two from 8 to kMaxGroupFft whose groups fit
 * in the device's local memory (group_local_bytes); anything else
 * (Whisper's 400 points, larger FFTs) takes VKFFT. AFET_FRONT=vkfft,
 * vector or group in the environment asks for a plan (tests and
 * benchmarks run every plan on one device); a plan the device or size
 * cannot take gives VKFFT. No GPU takes VECTOR: NVIDIA's OpenCL compiler
 * (H100, driver 580.159.04) turns afet_vframe_mfcc for FFTs of 64 points
 * or fewer into a kernel that writes zeros, and a frame a vector element is
 * no plan for GPUs anyway. */
FrontPlan choose_front (const DeviceInfo &info, int fft_size,
    size_t batch_samples = 0);

/* The local memory a group of the group front takes at most for an FFT of
 * fft_size points on a device (its MFCC kernels with kMaxFilters
 * channels), in bytes. */
size_t group_local_bytes (const DeviceInfo &info, int fft_size);

/* The program options, launch geometry and FFT tables of a one-kernel
 * front (VECTOR or GROUP) on one device, for one FFT size and sample
 * format. */
class KernelFront
{
public:
  Status init (Device &device, FrontPlan plan, int fft_size,
      SampleFormat samples);
  /* The kernel for this plan, size and format that takes audio or given
   * frames to spectra or (filters > 0) to MFCC / filter-bank features of
   * that many channels; its name into *name. */
  Status kernel (bool given, int filters, ClKernel *out,
      std::string *name = nullptr) const;
  /* The FFT tables, the first two arguments after a front kernel's
   * framing group. */
  void table_args (ArgSetter &a) const;
  /* The launch for n frames: groups of local_size () work-items, each
   * group taking frames_a_group () frames (VECTOR: a work-item takes the
   * vector width's; GROUP: side by side, threads_a_frame () each). */
  size_t groups (int n) const
  {
    return ((size_t) n + frames_ - 1) / frames_;
  }
  size_t local_size () const { return lsz_; }
  int frames_a_group () const { return frames_; }
  int threads_a_frame () const { return (int) lsz_ / frames_; }

private:
  Device *device_ = nullptr;
  FrontPlan plan_ = FrontPlan::VECTOR;
  std::string options_;
  int frames_ = 1;
  size_t lsz_ = 1;
  ClMem tw_, rev_;
};

}  /* namespace afet */
