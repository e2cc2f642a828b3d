/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "combine.h"

#include <cstring>
#include <map>
#include <utility>

namespace afet {

struct StageCombiner::Request
{
  const void *frames;
  int n;
  float *out;
  bool done = false;
  bool merged = false;
  Status status;
};

StageCombiner::StageCombiner (std::unique_ptr<SpectralStage> stage, int dims)
  : stage_ (std::move (stage)), dims_ (dims)
{
  const FramingConfig &f = stage_->spectral ().framing;
  frame_bytes_ = (size_t) f.W * f.sample_bytes ();
}

Status
StageCombiner::get (const std::shared_ptr<Device> &device,
    const std::string &key, const MakeStage &make,
    std::shared_ptr<StageCombiner> *out)
{
  /* weak: a combiner lives as long as a stream uses it */
  static std::mutex registry_lock;
  static std::map<std::pair<Device *, std::string>,
      std::weak_ptr<StageCombiner>> registry;
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
  out->reset (new StageCombiner (std::move (stage), dims));
  registry[k] = *out;
  /* drop the entries of combiners that are gone */
  for (auto it = registry.begin (); it != registry.end ();)
    it = it->second.expired () ? registry.erase (it) : std::next (it);
  return Status::Ok ();
}

Status
StageCombiner::compute (const void *frames, int n, float *out, bool *merged)
{
  if (n <= 0)
    return Status::Ok ();
  Request self;
  self.frames = frames;
  self.n = n;
  self.out = out;
  std::unique_lock<std::mutex> l (lock_);
  pending_.push_back (&self);
  while (!self.done) {
    if (busy_) {
      done_.wait (l);
      continue;
    }
    /* this caller computes what is waiting now, itself included */
    busy_ = true;
    std::vector<Request *> batch;
    batch.swap (pending_);
    int total = 0;
    for (Request *r : batch)
      total += r->n;
    l.unlock ();
    Status st = run (batch, total);
    l.lock ();
    for (Request *r : batch) {
      r->status = st;
      r->merged = batch.size () > 1;
      r->done = true;
    }
    busy_ = false;
    done_.notify_all ();
  }
  if (merged)
    *merged = self.merged;
  return self.status;
}

/* Runs with busy_ set: in_ and out_ are this caller's. */
Status
StageCombiner::run (const std::vector<Request *> &batch, int total)
{
  in_.resize ((size_t) total * frame_bytes_);
  out_.resize ((size_t) total * dims_);
  size_t at = 0;
  for (const Request *r : batch) {
    std::memcpy (in_.data () + at * frame_bytes_, r->frames,
        (size_t) r->n * frame_bytes_);
    at += (size_t) r->n;
  }
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

}  /* namespace afet */
