/* The pitch Viterbi combiner (pitch-batch.h): utterances of many streams in
 * one launch of a work-group each.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "pitch-batch.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

namespace afet {

struct PitchViterbiCombiner::Request
{
  cl_mem nccf;
  long long T;
  cl_mem path;
  bool done = false;
  bool combined = false;
  Status status;
};

Status
PitchViterbiCombiner::get (const std::shared_ptr<Device> &device,
    const std::vector<float> &lags, float factor, float soft_min_f0,
    size_t vlsz, const std::string &options,
    std::shared_ptr<PitchViterbiCombiner> *out)
{
  /* the key: the grid and the costs, bit for bit, and the program */
  std::string key ((const char *) lags.data (), lags.size () * sizeof (float));
  key.append ((const char *) &factor, sizeof factor);
  key.append ((const char *) &soft_min_f0, sizeof soft_min_f0);
  static std::mutex registry_lock;
  static std::map<std::tuple<Device *, std::string, size_t, std::string>,
      std::weak_ptr<PitchViterbiCombiner>> registry;
  std::lock_guard<std::mutex> guard (registry_lock);
  auto k = std::make_tuple (device.get (), key, vlsz, options);
  auto found = registry.find (k);
  if (found != registry.end () && (*out = found->second.lock ()))
    return Status::Ok ();
  std::shared_ptr<PitchViterbiCombiner> c (new PitchViterbiCombiner ());
  c->device_ = device;
  c->S_ = (int) lags.size ();
  c->factor_ = factor;
  c->soft_min_f0_ = soft_min_f0;
  c->vlsz_ = vlsz;
  AFET_RETURN_IF_ERROR (device->create_queue (&c->queue_));
  /* one work-item: the search of 16 lags at once (kernels/pitch.cl) */
  AFET_RETURN_IF_ERROR (make_kernel (*device, "pitch", kernels::pitch,
          kernels::pitch_sha256, options, vlsz == 1 ?
          "afet_pitch_viterbi_lanes" : "afet_pitch_viterbi", &c->viterbi_));
  AFET_RETURN_IF_ERROR (make_kernel (*device, "pitch", kernels::pitch,
          kernels::pitch_sha256, options, "afet_pitch_backtrace",
          &c->backtrace_));
  AFET_RETURN_IF_ERROR (make_buffer (device->context (), CL_MEM_READ_ONLY |
          CL_MEM_COPY_HOST_PTR, lags.size () * sizeof (float), lags.data (),
          &c->lags_));
  registry[k] = c;
  *out = std::move (c);
  for (auto it = registry.begin (); it != registry.end ();)
    it = it->second.expired () ? registry.erase (it) : std::next (it);
  return Status::Ok ();
}

void
PitchViterbiCombiner::enter ()
{
  std::lock_guard<std::mutex> l (lock_);
  entered_++;
}

void
PitchViterbiCombiner::leave ()
{
  std::lock_guard<std::mutex> l (lock_);
  entered_--;
  wake_.notify_all ();          /* a leader may wait for it no longer */
}

Status
PitchViterbiCombiner::run (cl_mem nccf, long long T, cl_mem path,
    bool *combined)
{
  Request self;
  self.nccf = nccf;
  self.T = T;
  self.path = path;
  std::unique_lock<std::mutex> l (lock_);
  pending_.push_back (&self);
  wake_.notify_all ();          /* a gathering leader counts it */
  while (!self.done) {
    if (busy_) {
      wake_.wait (l);
      continue;
    }
    /* lead: gather the utterances entered, then launch what is here */
    busy_ = true;
    auto deadline = std::chrono::steady_clock::now () +
        std::chrono::milliseconds (kGatherMs);
    while ((int) pending_.size () < entered_ &&
        wake_.wait_until (l, deadline) != std::cv_status::timeout) {
    }
    std::vector<Request *> batch;
    batch.swap (pending_);
    l.unlock ();
    Status st = launch (batch);
    l.lock ();
    busy_ = false;
    for (Request *r : batch) {
      r->status = st;
      r->combined = batch.size () > 1;
      r->done = true;
      entered_--;
    }
    wake_.notify_all ();
  }
  if (combined)
    *combined = self.combined;
  return self.status;
}

/* The leader's run: the batch in groups whose joint NCCF each fits one
 * allocation of the device. Utterances without frames have nothing to
 * compute. */
Status
PitchViterbiCombiner::launch (const std::vector<Request *> &batch)
{
  const DeviceInfo &info = device_->info ();
  size_t cap = info.max_alloc_bytes ? info.max_alloc_bytes : (size_t) 1 << 30;
  std::vector<Request *> group;
  size_t rows = 0;
  for (Request *r : batch) {
    if (r->T <= 0)
      continue;
    size_t more = (size_t) (rows + r->T) * S_ * sizeof (float);
    if (!group.empty () && more > cap) {
      AFET_RETURN_IF_ERROR (launch_group (group));
      group.clear ();
      rows = 0;
    }
    group.push_back (r);
    rows += r->T;
  }
  if (!group.empty ())
    AFET_RETURN_IF_ERROR (launch_group (group));
  return Status::Ok ();
}

Status
PitchViterbiCombiner::launch_group (const std::vector<Request *> &group)
{
  cl_context ctx = device_->context ();
  cl_command_queue q = queue_.get ();
  const size_t n = group.size ();
  /* per utterance: its first row in the joint buffers and its frames */
  std::vector<cl_long> table (2 * n);
  long long rows = 0;
  for (size_t u = 0; u < n; u++) {
    table[2 * u] = rows;
    table[2 * u + 1] = group[u]->T;
    rows += group[u]->T;
  }
  ClMem tab, joint_nccf, joint_path, bp, fwd;
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY |
          CL_MEM_COPY_HOST_PTR, table.size () * sizeof (cl_long),
          table.data (), &tab));
  /* one utterance: its own buffers; more: copied into joint ones */
  cl_mem nccf = group[0]->nccf, path = group[0]->path;
  cl_int err = CL_SUCCESS;
  if (n > 1) {
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
            (size_t) rows * S_ * sizeof (float), nullptr, &joint_nccf));
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
            (size_t) rows * sizeof (cl_int), nullptr, &joint_path));
    for (size_t u = 0; u < n && err == CL_SUCCESS; u++)
      err = clEnqueueCopyBuffer (q, group[u]->nccf, joint_nccf.get (), 0,
          (size_t) table[2 * u] * S_ * sizeof (float),
          (size_t) group[u]->T * S_ * sizeof (float), 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("gathering the utterances' NCCF", err);
    nccf = joint_nccf.get ();
    path = joint_path.get ();
  }
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          (size_t) rows * S_ * sizeof (cl_ushort), nullptr, &bp));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          n * S_ * sizeof (float), nullptr, &fwd));
  {
    ArgSetter a (viterbi_.get ());
    a (nccf) (tab.get ()) ((cl_int) S_) (lags_.get ()) (factor_)
        (soft_min_f0_) (bp.get ()) (fwd.get ());
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_viterbi"));
    /* afet_pitch_viterbi_lanes's lags: a whole float16 */
    size_t lags = vlsz_ == 1 ? (S_ + 15) / 16 * 16 : S_;
    err = clSetKernelArg (viterbi_.get (), 8, lags * sizeof (float), nullptr);
    if (err == CL_SUCCESS)
      err = clSetKernelArg (viterbi_.get (), 9, lags * sizeof (float),
          nullptr);
    /* the least previous cost of each block of 16 lags
     * (kernels/pitch.cl's AFET_PITCH_BLOCK) */
    if (err == CL_SUCCESS)
      err = clSetKernelArg (viterbi_.get (), 10, (S_ + 15) / 16 *
          sizeof (float), nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("afet_pitch_viterbi's local memory", err);
    AFET_RETURN_IF_ERROR (afet::launch (q, viterbi_.get (), n, vlsz_,
            "afet_pitch_viterbi"));
  }
  {
    ArgSetter a (backtrace_.get ());
    a (bp.get ()) (fwd.get ()) (tab.get ()) ((cl_int) n) ((cl_int) S_)
        (path);
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_backtrace"));
    size_t lsz = pick_local_size (*device_);
    AFET_RETURN_IF_ERROR (afet::launch (q, backtrace_.get (),
            (n + lsz - 1) / lsz, lsz, "afet_pitch_backtrace"));
  }
  if (n > 1)
    for (size_t u = 0; u < n && err == CL_SUCCESS; u++)
      err = clEnqueueCopyBuffer (q, joint_path.get (), group[u]->path,
          (size_t) table[2 * u] * sizeof (cl_int), 0,
          (size_t) group[u]->T * sizeof (cl_int), 0, nullptr, nullptr);
  if (err == CL_SUCCESS)
    err = clFinish (q);
  if (err != CL_SUCCESS)
    return cl_fail ("the pitch Viterbi", err);
  return Status::Ok ();
}

}  /* namespace afet */
