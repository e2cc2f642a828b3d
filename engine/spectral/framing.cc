/* Framing on the device (framing.h): the framing kernel, samples to windowed,
 * pre-emphasised frames and their energy, and the framer stage.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "framing.h"
#include "clutil.h"
#include "profile.h"

#include "afet-kernels.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace afet {

std::string
stage_build_options (size_t lsz, SampleFormat fmt)
{
  return "-DAFET_LSZ=" + std::to_string (lsz) + " -DAFET_MAX_FILTERS=" +
      std::to_string (kMaxFilters) + (fmt == SampleFormat::S16 ?
      " -DAFET_SAMPLES_S16" : "");
}

/* ---- framing ---------------------------------------------------------- */

std::string
FramingConfig::key () const
{
  char buf[256];
  snprintf (buf, sizeof buf, "rate=%d W=%d S=%d window=%d preemph=%.9g "
      "samples=%d scale=%.9g dc=%d dither=%.9g seed=%llu energy=%d "
      "floor=%.17g edges=%d windowed=%d", rate, W, S, (int) window, preemph,
      (int) samples, scale, remove_dc ? 1 : 0, dither,
      (unsigned long long) dither_seed, (int) energy_mode, energy_floor,
      (int) edges, energy_windowed ? 1 : 0);
  return buf;
}

void
FramingKernel::give_back ()
{
  for (Slot &slot : slots_) {
    if (!slot.staging || !device_)
      continue;
    /* an upload from it may still run */
    if (slot.staging->wait ().ok ())
      device_->give_pinned (std::move (slot.staging));
    slot.staging.reset ();
  }
}

FramingKernel &
FramingKernel::operator= (FramingKernel &&o) noexcept
{
  if (this == &o)
    return *this;
  give_back ();
  cfg_ = o.cfg_;
  device_ = o.device_;
  kernel_ = std::move (o.kernel_);
  window_ = std::move (o.window_);
  for (int i = 0; i < kSlots; i++)
    slots_[i] = std::move (o.slots_[i]);
  next_ = o.next_;
  staged_ = o.staged_;
  copy_q_ = o.copy_q_;
  samples_cap_ = o.samples_cap_;
  lsz_ = o.lsz_;
  o.device_ = nullptr;
  return *this;
}

Status
FramingKernel::init (Device &device, const FramingConfig &cfg, int max_batch,
    bool with_frame_kernel)
{
  cfg_ = cfg;
  lsz_ = pick_local_size (device);
  if (cfg.W < 1 || cfg.S < 1)
    return Status (Status::BAD_CONFIG, "frame length and shift must be at "
        "least one sample");
  if (with_frame_kernel)
    AFET_RETURN_IF_ERROR (make_kernel (device, "framing", kernels::framing,
            kernels::framing_sha256, stage_build_options (lsz_, cfg.samples),
            "afet_frame", &kernel_));
  std::vector<float> win = make_window (cfg.window, cfg.W);
  AFET_RETURN_IF_ERROR (make_buffer (device.context (), CL_MEM_READ_ONLY,
          win.size () * sizeof (float), win.data (), &window_));
  device_ = &device;
  samples_cap_ = (size_t) (max_batch - 1) * cfg.S + cfg.W;
  const size_t bytes = samples_cap_ * cfg.sample_bytes ();
  staged_ = use_staging (device);
  next_ = 0;
  give_back ();
  for (Slot &slot : slots_)
    slot.samples.reset ();
  /* the first slot's device buffer now; the second slot and the pinned
   * staging memory at the first staged upload (slot_ready): a live stream
   * whose frames a combined stage computes never uploads here, and a
   * thousand of them should not hold 2.6 GB of pinned memory */
  return make_buffer (device.context (), CL_MEM_READ_ONLY, bytes, nullptr,
      &slots_[0].samples);
}

Status
FramingKernel::slot_ready (Slot &slot, bool staged)
{
  const size_t bytes = samples_cap_ * cfg_.sample_bytes ();
  if (!slot.samples)
    AFET_RETURN_IF_ERROR (make_buffer (device_->context (),
            CL_MEM_READ_ONLY, bytes, nullptr, &slot.samples));
  if (staged && !slot.staging) {
    slot.staging = device_->take_pinned (bytes);
    if (!slot.staging) {
      slot.staging = std::make_unique<PinnedHost> ();
      AFET_RETURN_IF_ERROR (slot.staging->init (*device_, bytes));
    }
  }
  return Status::Ok ();
}

Status
FramingKernel::enqueue (cl_command_queue q, const Samples &samples, int n,
    cl_mem out, size_t out_offset, int out_stride, cl_mem energy_buf,
    size_t energy_offset, int energy_stride, bool energy,
    TransferStats *stats, long long first_frame)
{
  return enqueue_kernel (q, samples, n, kernel_.get (), "afet_frame", n,
      lsz_, energy_buf ? energy_buf : out, energy_offset, energy_stride,
      energy, stats, first_frame, [&](ArgSetter &a) {
        a (out) ((cl_uint) out_offset) ((cl_uint) out_stride);
      });
}

/* *mark: an event for everything q holds now, which the copy queue waits
 * for; q is flushed, so that it reaches the device */
static Status
mark_queue (cl_command_queue q, ClEvent *mark)
{
  cl_event ev = nullptr;
  const cl_int err = clEnqueueMarkerWithWaitList (q, 0, nullptr, &ev);
  if (err != CL_SUCCESS)
    return cl_fail ("clEnqueueMarkerWithWaitList", err);
  mark->reset (ev);
  clFlush (q);
  return Status::Ok ();
}

Status
FramingKernel::upload_on_copy_queue (cl_command_queue q, Slot &slot,
    const void *src, size_t bytes, TransferStats *stats, cl_event *uploaded)
{
  /* the slot's first upload on the copy queue: after whatever the stage's
   * queue holds already */
  if (!slot.read)
    AFET_RETURN_IF_ERROR (mark_queue (q, &slot.read));
  cl_event ev = nullptr, read = slot.read.get ();
  AFET_RETURN_IF_ERROR (upload (copy_q_, slot.samples.get (), 0, bytes, src,
          false, stats, &ev, 1, &read));
  ClEvent done (ev);
  clFlush (copy_q_);
  const cl_int err = clEnqueueBarrierWithWaitList (q, 1, &ev, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("clEnqueueBarrierWithWaitList (upload)", err);
  if (uploaded)
    *uploaded = done.release ();
  return Status::Ok ();
}

Status
FramingKernel::enqueue_kernel (cl_command_queue q, const Samples &samples,
    int n, cl_kernel k, const char *name, size_t groups, size_t lsz,
    cl_mem energy_buf, size_t energy_offset, int energy_stride, bool energy,
    TransferStats *stats, long long first_frame,
    const std::function<void (ArgSetter &)> &dest)
{
  size_t count = (size_t) (n - 1) * cfg_.S + cfg_.W;
  if (n < 1 || count > samples_cap_)
    return Status (Status::BAD_CONFIG, "framing batch of " +
        std::to_string (n) + " frames is out of range");
  const size_t bytes = count * cfg_.sample_bytes ();
  Slot &slot = slots_[next_];
  AFET_RETURN_IF_ERROR (slot_ready (slot, staged_ && !samples.device &&
          !samples.page_locked));
  /* where the kernel reads the batch */
  cl_mem source = slot.samples.get ();
  size_t origin = 0;
  /* a run's first batch goes up on the stage's own queue: there is no
   * kernel of the run yet to overlap it with, and an input of one batch
   * (a short file) then waits for no other queue (a barrier, a marker and
   * two flushes fewer on the driver's lock) */
  const bool on_copy = copy_q_ && first_frame > 0;
  if (samples.device) {
    AFET_RETURN_IF_ERROR (check_device_source (samples, bytes));
    source = samples.device;
    origin = samples.first;
  } else if (samples.page_locked && !on_copy) {
    /* the device reads the caller's page-locked memory, which stays as
     * it is until the queue is done (Samples::pinned): no staging copy,
     * no wait */
    AFET_RETURN_IF_ERROR (upload (q, slot.samples.get (), 0, bytes,
            samples.host, false, stats));
  } else if (samples.page_locked) {
    /* the same on the copy queue, into the slots in turn */
    next_ = (next_ + 1) % kSlots;
    AFET_RETURN_IF_ERROR (upload_on_copy_queue (q, slot, samples.host, bytes,
            stats, nullptr));
  } else if (staged_) {
    next_ = (next_ + 1) % kSlots;
    /* the staging memory is free once its previous upload is done; the
     * device buffer once the kernel that read it is, which the in-order
     * queue sees to */
    AFET_RETURN_IF_ERROR (slot.staging->wait ());
    copy_host (slot.staging->data (), samples.host, bytes);
    cl_event ev = nullptr;
    AFET_RETURN_IF_ERROR (on_copy ? upload_on_copy_queue (q, slot,
            slot.staging->data (), bytes, stats, &ev) : upload (q,
            slot.samples.get (), 0, bytes, slot.staging->data (), false,
            stats, &ev));
    slot.staging->set_busy (ev);
  } else {
    AFET_RETURN_IF_ERROR (upload (q, slot.samples.get (), 0, bytes,
            samples.host, true, stats));
  }
  ArgSetter a (k);
  a (source) ((cl_ulong) origin) ((cl_uint) cfg_.W) ((cl_uint) cfg_.S)
      (cfg_.preemph) (window_.get ()) (cfg_.scale)
      ((cl_int) (cfg_.remove_dc ? 1 : 0)) (cfg_.dither)
      ((cl_ulong) cfg_.dither_seed)
      ((cl_long) (first_frame * cfg_.S - edge_lead (cfg_.edges, cfg_.W,
                  cfg_.S))) ((cl_int) cfg_.energy_mode)
      ((float) (cfg_.energy_floor > 0 ? std::log (cfg_.energy_floor) :
              -FLT_MAX)) ((cl_int) (cfg_.energy_windowed ? 1 : 0))
      ((cl_int) (energy ? 1 : 0)) (energy_buf) ((cl_uint) energy_offset)
      ((cl_uint) energy_stride) ((cl_uint) n);
  dest (a);
  AFET_RETURN_IF_ERROR (a.status (name));
  AFET_RETURN_IF_ERROR (launch (q, k, groups, lsz, name));
  /* the slot's next upload on the copy queue waits for this kernel */
  if (on_copy && !samples.device)
    return mark_queue (q, &slot.read);
  /* (after an upload on q: that next upload marks q first, this kernel
   * included) */
  if (copy_q_ && !samples.device)
    slot.read.reset ();
  return Status::Ok ();
}

void
FramingKernel::set_copy_queue (cl_command_queue cq)
{
  if (copy_q_ && copy_q_ != cq)
    clFinish (copy_q_);
  copy_q_ = cq;
  for (Slot &slot : slots_)
    slot.read.reset ();
}

Status
FramingKernel::check_device_source (const Samples &samples,
    size_t bytes) const
{
  size_t size = 0;
  clGetMemObjectInfo (samples.device, CL_MEM_SIZE, sizeof size, &size,
      nullptr);
  const size_t unit = cfg_.sample_bytes ();
  const size_t origin = samples.first <= size / unit ?
      samples.first * unit : SIZE_MAX;
  if (origin == SIZE_MAX || bytes > size - origin)
    return Status (Status::BAD_CONFIG, "device samples: a batch of " +
        std::to_string (bytes) + " bytes from sample " + std::to_string (
            samples.first) + " passes the end of a buffer of " +
        std::to_string (size) + " bytes");
  return Status::Ok ();
}

/* ---- afetframer ------------------------------------------------------- */

Status
FramerStage::init (std::shared_ptr<Device> device, const FramerConfig &cfg,
    cl_command_queue queue, TransferStats *stats)
{
  device_ = std::move (device);
  cfg_ = cfg;
  stats_ = stats;
  if (cfg.max_batch < 1)
    return Status (Status::BAD_CONFIG, "max-batch must be at least 1");
  AFET_RETURN_IF_ERROR (use_queue (*device_, queue, &own_queue_, &queue_));
  return framing_.init (*device_, cfg.framing, cfg.max_batch);
}

Status
FramerStage::enqueue (const Samples &samples, int n, cl_mem out,
    size_t out_row, long long first_frame)
{
  const int dims = cfg_.dims ();
  if (n > cfg_.max_batch)
    return Status (Status::BAD_CONFIG, "batch larger than max-batch");
  return framing_.enqueue (queue_, samples, n, out, out_row * dims, dims,
      out, out_row * dims + cfg_.framing.W, dims, cfg_.energy, stats_,
      first_frame);
}

Status
FramerStage::run (const void *samples, long long n, float *out)
{
  return run_host_batches (*device_, queue_, &out_, n, cfg_.max_batch,
      cfg_.dims (), out, stats_, [&](long long done, int b, cl_mem o) {
        return enqueue ((const char *) samples + done * cfg_.framing.S *
            cfg_.framing.sample_bytes (), b, o, 0, done);
      });
}

}  /* namespace afet */
