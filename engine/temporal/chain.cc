/* A live chain's stages computed for many streams in one pass (chain.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "chain.h"

#include <chrono>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace afet {

struct ChainCombiner::Request
{
  Call *call;
  bool taken = false;           /* in a pass */
  bool done = false;
  bool combined = false;
  Status status;
  std::condition_variable wake;
  /* set while the leader may still signal wake (see Combiner::Slot) */
  std::atomic<bool> signalling { false };
};

ChainCombiner::ChainCombiner (std::shared_ptr<SpectralCombiner> front,
    std::vector<std::shared_ptr<ContextCombiner>> links, RowsBetween between)
  : front_ (std::move (front)), links_ (std::move (links)), between_ (between)
{
}

/* Whether every link reads the front's rows on the front's device. */
static bool
one_context (const SpectralCombiner &front,
    const std::vector<std::shared_ptr<ContextCombiner>> &links)
{
  for (const auto &l : links)
    if (!l || l->context () != front.context ())
      return false;
  return true;
}

ChainCombiner::RowsBetween
ChainCombiner::rows_between_for (const Device &device,
    const SpectralCombiner &front,
    const std::vector<std::shared_ptr<ContextCombiner>> &links)
{
  return device.info ().is_cpu && one_context (front, links) ?
      RowsBetween::DEVICE : RowsBetween::HOST;
}

/* Gives back the references of rows left on the device. */
static void
drop_rows (DeviceRows *r)
{
  if (r->ready)
    clReleaseEvent (r->ready);
  *r = DeviceRows ();
}

Status
ChainCombiner::get (const std::shared_ptr<SpectralCombiner> &front,
    const std::vector<std::shared_ptr<ContextCombiner>> &links,
    RowsBetween between, std::shared_ptr<ChainCombiner> *out)
{
  if (!front || links.empty () || links.size () > (size_t) kMaxLinks)
    return Status (Status::BAD_CONFIG, "a chain is a spectral combiner and "
        "1 to " + std::to_string (kMaxLinks) + " context combiners");
  /* weak: a chain lives as long as a stream uses it; keyed by where its
   * rows go between the stages and by the combiners themselves (which
   * its references keep) */
  static std::mutex registry_lock;
  static std::map<std::pair<RowsBetween, std::vector<const void *>>,
      std::weak_ptr<ChainCombiner>> registry;
  std::pair<RowsBetween, std::vector<const void *>> key (between,
      { front.get () });
  for (const auto &l : links) {
    if (!l)
      return Status (Status::BAD_CONFIG, "a chain link has no combiner");
    key.second.push_back (l.get ());
  }
  /* a stage reads the rows of the one before on the device */
  if (between == RowsBetween::DEVICE && !one_context (*front, links))
    return Status (Status::BAD_CONFIG, "a chain whose rows stay on the "
        "device has all its stages on one device");
  std::lock_guard<std::mutex> guard (registry_lock);
  auto found = registry.find (key);
  if (found != registry.end () && (*out = found->second.lock ()))
    return Status::Ok ();
  std::shared_ptr<ChainCombiner> c (new ChainCombiner (front, links,
          between));
  for (auto it = registry.begin (); it != registry.end ();)
    it = it->second.expired () ? registry.erase (it) : std::next (it);
  registry[key] = c;
  *out = std::move (c);
  return Status::Ok ();
}

Status
ChainCombiner::admit (const Call &call) const
{
  if (call.n <= 0)
    return Status (Status::BAD_CONFIG, "a chain's round has no frames");
  long long m = call.n;
  for (size_t j = 0; j < links_.size (); j++) {
    const Step &s = call.steps[j];
    if (s.m != m)
      return Status (Status::BAD_CONFIG, "a chain's stage is given " +
          std::to_string (s.m) + " rows where the stage before makes " +
          std::to_string (m));
    AFET_RETURN_IF_ERROR (links_[j]->check (s.m, s.first_row, s.out_first,
            s.n));
    m = s.n;
  }
  return Status::Ok ();
}

int
ChainCombiner::gather_for (unsigned long long budget_ns)
{
  const unsigned long long us = budget_ns / 16 / 1000;
  return (int) (us < (unsigned long long) kGatherUs ? us : kGatherUs);
}

Status
ChainCombiner::compute (Call *call, bool *combined)
{
  AFET_RETURN_IF_ERROR (admit (*call));
  Request self;
  self.call = call;
  std::unique_lock<std::mutex> l (lock_);
  pending_.push_back (&self);
  while (!self.done) {
    if (busy_ || self.taken) {
      self.wake.wait (l);
      continue;
    }
    /* this caller leads a pass: every call waiting now, its own included;
     * with many streams about (the last pass served several), after a
     * short wait for more of them: a thousand live streams on an H200
     * made 2800 passes a second of 11 calls, and with 300 µs 2000 of 16,
     * their process' CPU 7 % less and the p99 added latency lower */
    busy_ = true;
    if (call->gather_us > 0 && last_pass_ > 1) {
      l.unlock ();
      std::this_thread::sleep_for (std::chrono::microseconds
          (call->gather_us));
      l.lock ();
    }
    std::vector<Request *> batch;
    batch.swap (pending_);
    last_pass_ = batch.size ();
    for (Request *r : batch)
      r->taken = true;
    l.unlock ();
    bool shared = batch.size () > 1;
    Status st = run_front (batch, &shared);
    l.lock ();
    /* the next pass's front may start while this one's links run */
    busy_ = false;
    if (!pending_.empty ())
      pending_.front ()->wake.notify_one ();
    l.unlock ();
    if (st.ok ())
      st = run_links (batch, &shared);
    if (!st.ok ())
      for (Request *r : batch) {
        drop_rows (&r->call->front_rows);
        for (Step &s : r->call->steps)
          drop_rows (&s.rows);
      }
    std::vector<Request *> woken;
    l.lock ();
    for (Request *r : batch) {
      r->status = st;
      r->combined = shared;
      r->done = true;
      if (r != &self) {
        r->signalling.store (true, std::memory_order_relaxed);
        woken.push_back (r);
      }
    }
    l.unlock ();
    /* woken once the lock is free (see Combiner::submit_all) */
    for (Request *r : woken) {
      r->wake.notify_one ();
      r->signalling.store (false, std::memory_order_release);
    }
    if (combined)
      *combined = self.combined;
    return self.status;
  }
  l.unlock ();
  while (self.signalling.load (std::memory_order_acquire))
    std::this_thread::yield ();
  if (combined)
    *combined = self.combined;
  return self.status;
}

/* Runs in a pass's leader: the front for every call of the batch. */
Status
ChainCombiner::run_front (const std::vector<Request *> &batch, bool *shared)
{
  std::vector<SpectralCombiner::Part> parts (batch.size ());
  for (size_t i = 0; i < batch.size (); i++) {
    Call *c = batch[i]->call;
    parts[i].frames = c->frames;
    parts[i].n = c->n;
    if (between_ == RowsBetween::DEVICE)
      parts[i].device = &c->front_rows;
    else
      parts[i].out = c->front_out;
  }
  bool with = false;
  Status st = front_->compute_all (parts.data (), parts.size (), &with);
  *shared = *shared || with;
  return st;
}

/* Then each context stage in turn, from the rows the one before wrote:
 * on the host, or (RowsBetween::DEVICE) on the device, where each stage
 * but the last leaves its own (the last downloads: the pass's one wait). */
Status
ChainCombiner::run_links (const std::vector<Request *> &batch, bool *shared)
{
  const bool on_device = between_ == RowsBetween::DEVICE;
  std::vector<ContextCombiner::Part> parts (batch.size ());
  std::vector<ContextCombiner::DeviceIo> io (on_device ? batch.size () : 0);
  for (size_t j = 0; j < links_.size (); j++) {
    const bool last = j + 1 == links_.size ();
    for (size_t i = 0; i < batch.size (); i++) {
      Call *c = batch[i]->call;
      const Step &s = c->steps[j];
      ContextCombiner::Part &p = parts[i];
      p.lane = s.lane;
      p.m = s.m;
      p.first_row = s.first_row;
      p.out_first = s.out_first;
      p.n = s.n;
      p.total = -1;
      if (!on_device) {
        p.rows = j == 0 ? c->front_out : c->steps[j - 1].out;
        p.out = s.out;
        p.io = nullptr;
        continue;
      }
      /* the rows before, borrowed (their ready event too) */
      const DeviceRows &before = j == 0 ? c->front_rows : c->steps[j - 1].rows;
      io[i] = ContextCombiner::DeviceIo ();
      if (s.m > 0) {
        io[i].in.buffer = before.buffer;
        io[i].in.offset = before.offset;
        io[i].in.ready = before.ready;
      }
      io[i].out_device = !last;
      p.rows = nullptr;
      p.out = last ? s.out : nullptr;
      p.io = &io[i];
    }
    bool with = false;
    Status st = links_[j]->compute_all (parts.data (), parts.size (), &with);
    *shared = *shared || with;
    for (size_t i = 0; on_device && i < batch.size (); i++) {
      Call *c = batch[i]->call;
      DeviceRows &before = j == 0 ? c->front_rows : c->steps[j - 1].rows;
      /* the block before is not written again until this stage read it */
      if (io[i].read_done)
        before.block->add_use (io[i].read_done);
      c->steps[j].rows = std::move (io[i].out);
    }
    AFET_RETURN_IF_ERROR (st);
  }
  return Status::Ok ();
}

}  /* namespace afet */
