/* Many streams' spectral work computed in one launch (combine.h): the
 * combiner primitive and the spectral stages' combiner.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "combine.h"
#include "clutil.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <thread>
#include <utility>

namespace afet {

Status
Combiner::submit_all (Slot *const *rs, size_t n, const Run &run,
    bool *combined)
{
  Slot *r = rs[0];
  std::unique_lock<std::mutex> l (lock_);
  /* one caller's requests are contiguous in pending_ and so in one run */
  for (size_t i = 0; i < n; i++) {
    rs[i]->owner = r;
    pending_.push_back (rs[i]);
  }
  while (!r->done) {
    if (busy_) {
      r->wake.wait (l);
      continue;
    }
    /* this caller runs what is waiting now, its own requests included */
    busy_ = true;
    running_.clear ();
    running_.swap (pending_);
    l.unlock ();
    Status st = run (running_);
    l.lock ();
    busy_ = false;
    /* the callers are woken once the lock is free: woken under it, each
     * would sleep again at once on the lock (a second futex wait and wake
     * a caller and launch) */
    static thread_local std::vector<Slot *> woken;
    woken.clear ();
    bool many = false;
    for (Slot *s : running_)
      many = many || s->owner != r;
    for (Slot *s : running_) {
      s->status = st;
      s->combined = many;
      s->done = true;
      /* a caller sleeps on its first request's condition only */
      if (s->owner != r && s->owner == s) {
        s->signalling.store (true, std::memory_order_relaxed);
        woken.push_back (s);
      }
    }
    /* the next leader (not done: its caller stays) */
    if (!pending_.empty ())
      pending_.front ()->wake.notify_one ();
    l.unlock ();
    for (Slot *s : woken) {
      s->wake.notify_one ();
      s->signalling.store (false, std::memory_order_release);
    }
    if (combined)
      *combined = r->combined;
    return r->status;
  }
  l.unlock ();
  /* the leader may be between setting done and its signal */
  while (r->signalling.load (std::memory_order_acquire))
    std::this_thread::yield ();
  if (combined)
    *combined = r->combined;
  return r->status;
}

struct SpectralCombiner::Request : Combiner::Slot, SpectralCombiner::Part
{
};

SpectralCombiner::SpectralCombiner (std::unique_ptr<SpectralStage> stage,
    int dims, cl_context context)
  : stage_ (std::move (stage)), dims_ (dims), device_context_ (context),
    blocks_ (BlockPool::make (context))
{
  const FramingConfig &f = stage_->spectral ().framing;
  frame_bytes_ = (size_t) f.W * f.sample_bytes ();
}

Status
SpectralCombiner::get (const std::shared_ptr<Device> &device,
    const std::string &key, const MakeStage &make,
    std::shared_ptr<SpectralCombiner> *out)
{
  /* weak: a combiner lives as long as a stream uses it */
  static std::mutex registry_lock;
  static std::map<std::pair<Device *, std::string>,
      std::weak_ptr<SpectralCombiner>> registry;
  std::lock_guard<std::mutex> guard (registry_lock);
  auto k = std::make_pair (device.get (), key);
  auto found = registry.find (k);
  if (found != registry.end ()) {
    if ((*out = found->second.lock ()))
      return Status::Ok ();
  }
  std::unique_ptr<SpectralStage> stage;
  AFET_RETURN_IF_ERROR (make (&stage));
  const SpectralConfig &c = stage->spectral ();
  if (c.frames_input || c.framing.S != c.framing.W)
    return Status (Status::BAD_CONFIG, "a combined stage takes whole "
        "frames of audio (S = W)");
  int dims = stage->dims ();
  out->reset (new SpectralCombiner (std::move (stage), dims,
          device->context ()));
  registry[k] = *out;
  /* drop the entries of combiners that are gone */
  for (auto it = registry.begin (); it != registry.end ();)
    it = it->second.expired () ? registry.erase (it) : std::next (it);
  return Status::Ok ();
}

Status
SpectralCombiner::compute (const void *frames, int n, float *out,
    bool *combined, DeviceRows *device)
{
  if (n <= 0)
    return Status::Ok ();
  Request self;
  self.frames = frames;
  self.n = n;
  self.out = out;
  self.device = device;
  return combiner_.submit (&self, [this] (const std::vector<Combiner::
              Slot *> &batch) { return run (batch); }, combined);
}

Status
SpectralCombiner::compute_all (const Part *parts, size_t k, bool *combined)
{
  return combiner_.submit_parts<Request> (parts, k,
      [](const Part &p) { return p.n > 0; },
      [this] (const std::vector<Combiner::Slot *> &batch) {
        return run (batch);
      }, combined);
}

/* Runs in the leader: in_ and out_ are its own. */
Status
SpectralCombiner::run (const std::vector<Combiner::Slot *> &slots)
{
  std::vector<const Request *> &batch = batch_;
  batch.clear ();
  int total = 0;
  for (Combiner::Slot *s : slots) {
    batch.push_back (static_cast<const Request *> (s));
    total += batch.back ()->n;
  }
  in_.resize ((size_t) total * frame_bytes_);
  out_.resize ((size_t) total * dims_);
  size_t at = 0;
  for (const Request *r : batch) {
    std::memcpy (in_.data () + at * frame_bytes_, r->frames,
        (size_t) r->n * frame_bytes_);
    at += (size_t) r->n;
  }
  bool on_device = false;
  for (const Request *r : batch)
    on_device = on_device || r->device;
  if (on_device)
    return run_device (batch, total);
  AFET_RETURN_IF_ERROR (stage_->run_samples (in_.data (), total,
          out_.data ()));
  at = 0;
  for (const Request *r : batch) {
    std::memcpy (r->out, out_.data () + at * dims_, (size_t) r->n * dims_ *
        sizeof (float));
    at += (size_t) r->n;
  }
  return Status::Ok ();
}

/* A launch some callers want on the device: its rows go into a block of
 * the pool (no device work uses it any more), which each such caller gets
 * a reference to with its rows' offset and the launch's completion; the
 * others' rows are downloaded as run () does. Runs in the leader, in_
 * filled. */
Status
SpectralCombiner::run_device (const std::vector<const Request *> &batch,
    int total)
{
  const size_t row_bytes = (size_t) dims_ * sizeof (float);
  cl_command_queue q = stage_->queue ();
  std::shared_ptr<DeviceBlock> block;
  AFET_RETURN_IF_ERROR (blocks_->acquire ((size_t) total * row_bytes, q,
          &block));
  cl_mem rows = block->buffer ();
  const int max_batch = stage_->spectral ().max_batch;
  for (int done = 0; done < total;) {
    int b = std::min (total - done, max_batch);
    AFET_RETURN_IF_ERROR (stage_->enqueue_samples (Samples (in_.data () +
                (size_t) done * frame_bytes_), b, rows, (size_t) done,
            done));
    done += b;
  }
  cl_event ev = nullptr;
  cl_int err = clEnqueueMarkerWithWaitList (q, 0, nullptr, &ev);
  if (err != CL_SUCCESS)
    return cl_fail ("clEnqueueMarkerWithWaitList", err);
  ClEvent ready (ev);
  clFlush (q);
  /* not written again before the launch is done */
  clRetainEvent (ev);
  block->add_use (ev);
  bool on_host = false;
  for (const Request *r : batch)
    on_host = on_host || !r->device;
  if (on_host) {
    out_.resize ((size_t) total * dims_);
    AFET_RETURN_IF_ERROR (download (q, rows, 0, (size_t) total *
            row_bytes, out_.data (), nullptr));
  }
  size_t at = 0;
  for (const Request *r : batch) {
    if (r->device) {
      clRetainEvent (ready.get ());
      r->device->block = block;
      r->device->buffer = rows;
      r->device->offset = at * row_bytes;
      r->device->ready = ready.get ();
    } else {
      std::memcpy (r->out, out_.data () + at * dims_, (size_t) r->n *
          row_bytes);
    }
    at += (size_t) r->n;
  }
  return Status::Ok ();
}

}  /* namespace afet */
