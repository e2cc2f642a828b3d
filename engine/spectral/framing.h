/* Framing: how audio samples reach the device and become windowed frames with
 * their energy (FramingKernel), and the framer stage (afetframer).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "device.h"
#include "params.h"
#include "transfer.h"
#include "clutil.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace afet {

/* How audio samples reach the device: floats in 16-bit integer scale, or
 * 16-bit integers themselves (half the bytes to upload; converted to float
 * by the framing kernel, exactly). */
enum class SampleFormat
{
  F32 = 0,
  S16,
};

inline size_t
sample_bytes (SampleFormat f)
{
  return f == SampleFormat::S16 ? sizeof (int16_t) : sizeof (float);
}

/* How a frame's raw log energy is taken from its sum of squares e. */
enum class EnergyMode
{
  HTK = 0,      /* ln e; -1e10 for an all-zero frame */
  KALDI,        /* ln max(e, FLT_EPSILON), then at least ln energy_floor */
  LHOTSE,       /* ln (e + 1e-15), then at least ln energy_floor */
};

/* How frames are cut from audio. W and S come from frame_samples(). */
struct FramingConfig
{
  int rate = 16000;
  int W = 400;
  int S = 160;
  Window window = Window::HAMMING;
  float preemph = 0.97f;
  SampleFormat samples = SampleFormat::F32;
  /* samples (in 16-bit scale) are multiplied by this: 1, or 1/32768 for
   * [-1, 1] as lhotse and Whisper take them */
  float scale = 1.0f;
  bool remove_dc = false;       /* subtract each frame's mean */
  /* standard deviation of the Gaussian dither (0 = none), in the scaled
   * samples' units; keyed on (seed, position in the run) */
  float dither = 0.0f;
  uint64_t dither_seed = 0;
  EnergyMode energy_mode = EnergyMode::HTK;
  double energy_floor = 0.0;    /* KALDI: linear floor, 0 = none */
  /* the energy of the pre-emphasised, windowed frame (Kaldi's and HTK's
   * raw-energy false) rather than of the samples before them */
  bool energy_windowed = false;
  Edges edges = Edges::SNIP;    /* the FrameStream pads; dither positions */

  size_t sample_bytes () const { return afet::sample_bytes (samples); }
  /* Every field that changes a result, as text. */
  std::string key () const;
};

/* Every stage enqueues its work on a queue it is given (the element's: each
 * element instance has its own, so a live pipeline never waits behind
 * another's batch) or, if given none, on one of its own. Inputs and outputs
 * are device buffers addressed by row; the run_* functions are host-to-host
 * conveniences for tests and benchmarks. A stage takes at most max_batch
 * frames per enqueue. */

/* A batch's samples: in host memory, or already on the device, in a
 * buffer from sample index first on (device-to-device runs; the kernel
 * reads the batch where it lies, so the buffer stays as it is until the
 * stage's queue has finished with it). Host pointers convert. */
struct Samples
{
  Samples (const void *host_samples) : host (host_samples) {}
  Samples (cl_mem buffer, size_t first_sample)
      : device (buffer), first (first_sample) {}
  /* Host samples in page-locked memory (a PinnedHost's data), which the
   * device reads without a staging copy: the caller leaves them as they
   * are until the stage's queue has finished with them (run_samples
   * returns, or a clFinish). */
  static Samples pinned (const void *host_samples)
  {
    Samples s (host_samples);
    s.page_locked = true;
    return s;
  }
  const void *host = nullptr;
  cl_mem device = nullptr;
  size_t first = 0;
  bool page_locked = false;
};

/* The framing kernel and its buffers, shared by the framer and every
 * feature stage that takes audio (in cfg.samples' format).
 *
 * Staged (use_staging), the samples go through a ring of two pinned
 * staging buffers: enqueue copies a batch into one and starts its upload
 * without waiting, so that the host prepares the next batch while the
 * device works; a slot is reused once its upload has finished. Otherwise
 * the upload is a blocking copy. Either way the caller may reuse host
 * samples in pageable memory as soon as enqueue returns; samples in
 * page-locked memory (Samples::pinned) and on the device are read later
 * and stay as they are until the queue has finished with them. One
 * FramingKernel works on one queue (and, set_copy_queue, uploads on a
 * second). */
class FramingKernel
{
public:
  FramingKernel () = default;
  FramingKernel (FramingKernel &&o) noexcept { *this = std::move (o); }
  FramingKernel &operator= (FramingKernel &&o) noexcept;
  /* gives its staging memory back to the device (Device::give_pinned) */
  ~FramingKernel () { give_back (); }
  /* with_frame_kernel false: only uploads for enqueue_kernel (the vector
   * front, vframes.h, brings its own kernels) */
  Status init (Device &device, const FramingConfig &cfg, int max_batch,
      bool with_frame_kernel = true);
  /* Uploads the (n - 1) S + W samples of n frames and enqueues afet_frame:
   * rows of out_stride floats at out[out_offset], energies to
   * energy_buf[energy_offset + t * energy_stride] when energy. The first
   * frame is frame first_frame of its run (dither positions). */
  Status enqueue (cl_command_queue q, const Samples &samples, int n,
      cl_mem out, size_t out_offset, int out_stride, cl_mem energy_buf,
      size_t energy_offset, int energy_stride, bool energy,
      TransferStats *stats, long long first_frame = 0);
  /* The same upload, then k: a framing kernel whose arguments start with
   * framing.cl's audio group (samples .. n_frames, set here); dest sets
   * the kernel's own after it. groups work-groups of lsz work-items. */
  Status enqueue_kernel (cl_command_queue q, const Samples &samples, int n,
      cl_kernel k, const char *name, size_t groups, size_t lsz,
      cl_mem energy_buf, size_t energy_offset, int energy_stride,
      bool energy, TransferStats *stats, long long first_frame,
      const std::function<void (ArgSetter &)> &dest);
  /* Uploads from host memory (page-locked, Samples::pinned, or staging
   * memory the samples were copied into) go to cq (not null), a queue of
   * the same device, so that a batch's upload overlaps the kernels of the
   * one before; the kernel waits for its upload by event, and an upload
   * into a slot for the kernel that last read it (a staging buffer is
   * refilled once its upload is done). nullptr: everything on the caller's
   * queue again (after waiting for cq). SpectralStage::run_samples sets
   * it. */
  void set_copy_queue (cl_command_queue cq);

private:
  void give_back ();
  struct Slot;
  /* slot's device buffer, and its pinned staging memory when staged */
  Status slot_ready (Slot &slot, bool staged);
  /* bytes of host memory at src (page-locked or staging) into slot's
   * device buffer on the copy queue, after the kernel that last read the
   * slot (its read marker); the kernel after it waits through a barrier
   * on q. *uploaded (when not null): the upload's event, the caller's. */
  Status upload_on_copy_queue (cl_command_queue q, Slot &slot,
      const void *src, size_t bytes, TransferStats *stats,
      cl_event *uploaded);

  static constexpr int kSlots = 2;
  struct Slot
  {
    ClMem samples;              /* device */
    std::unique_ptr<PinnedHost> staging;      /* GPU only */
    ClEvent read;               /* copy queue: the last kernel's reading */
  };

  /* Whether samples.device holds the batch's bytes from samples.first on
   * (the kernel reads them there, at an origin of its own: no copy; a
   * sub-buffer instead gave wrong frames on an H100, driver 580) */
  Status check_device_source (const Samples &samples, size_t bytes) const;

  FramingConfig cfg_;
  Device *device_ = nullptr;    /* kept alive by the stage that owns us */
  ClKernel kernel_;
  ClMem window_;
  Slot slots_[kSlots];
  int next_ = 0;
  bool staged_ = false;
  cl_command_queue copy_q_ = nullptr;
  size_t samples_cap_ = 0;
  size_t lsz_ = 64;
};

/* The build options of the framing and melbank programs (shared by every
 * stage that uses them); with the sample type of fmt for framing. */
std::string stage_build_options (size_t lsz,
    SampleFormat fmt = SampleFormat::F32);

/* afetframer's computation: n frames of W pre-emphasised, windowed samples,
 * optionally followed by the raw log energy (W + 1 floats a frame). */
struct FramerConfig
{
  FramingConfig framing;
  bool energy = false;
  int max_batch = 4096;

  int dims () const { return framing.W + (energy ? 1 : 0); }
};

class FramerStage
{
public:
  Status init (std::shared_ptr<Device> device, const FramerConfig &cfg,
      cl_command_queue queue = nullptr, TransferStats *stats = nullptr);
  /* n <= max_batch frames from (n - 1) S + W samples into rows out_row.. of
   * out (dims floats a row); the first is frame first_frame of its run. */
  Status enqueue (const Samples &samples, int n, cl_mem out, size_t out_row,
      long long first_frame = 0);
  /* Host to host, any n; blocking. */
  Status run (const void *samples, long long n, float *out);
  const FramerConfig &config () const { return cfg_; }

private:
  std::shared_ptr<Device> device_;
  FramerConfig cfg_;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  TransferStats *stats_ = nullptr;
  FramingKernel framing_;
  HostRunBuffers out_;
};

}  /* namespace afet */
