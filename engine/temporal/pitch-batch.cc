/* The pitch Viterbi combiner (pitch-batch.h): utterances of many streams in
 * one launch of a work-group each.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "pitch-batch.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <algorithm>
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
    size_t vlsz, int segment_frames, const std::string &options,
    std::shared_ptr<PitchViterbiCombiner> *out)
{
  /* the key: the grid and the costs, bit for bit, and the program */
  std::string key ((const char *) lags.data (), lags.size () * sizeof (float));
  key.append ((const char *) &factor, sizeof factor);
  key.append ((const char *) &soft_min_f0, sizeof soft_min_f0);
  key.append ((const char *) &segment_frames, sizeof segment_frames);
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
  c->segment_ = std::max (0, segment_frames);
  AFET_RETURN_IF_ERROR (device->create_queue (&c->queue_));
  /* one work-item an utterance, whole (a CPU device's way): the search of
   * 16 lags at once (kernels/pitch.cl) */
  c->viterbi_lanes_ = vlsz == 1 && c->segment_ == 0;
  AFET_RETURN_IF_ERROR (make_kernel (*device, "pitch", kernels::pitch,
          kernels::pitch_sha256, options, c->viterbi_lanes_ ?
          "afet_pitch_viterbi_lanes" : "afet_pitch_viterbi", &c->viterbi_));
  AFET_RETURN_IF_ERROR (make_kernel (*device, "pitch", kernels::pitch,
          kernels::pitch_sha256, options, "afet_pitch_backtrace",
          &c->backtrace_));
  AFET_RETURN_IF_ERROR (make_kernel (*device, "pitch", kernels::pitch,
          kernels::pitch_sha256, options, "afet_pitch_trace_map",
          &c->trace_map_));
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
    /* the joint NCCF, and where utterances are cut as much again for
     * every frame's costs: within one allocation's size together */
    size_t more = (size_t) (rows + r->T) * S_ * sizeof (float) *
        (segment_ > 0 ? 2 : 1);
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

int
PitchViterbiCombiner::last_rounds () const
{
  std::lock_guard<std::mutex> l (lock_);
  return rounds_;
}

namespace {

/* the kernel's modes (kernels/pitch.cl) */
enum
{
  VITERBI_ALONE = 0, VITERBI_GUESS = 1, VITERBI_FIX = 2
};

/* a Viterbi job: a work-group's frames */
struct Job
{
  long long r0, T;              /* first row, frames */
  int seg;                      /* the segment: its row of last costs */
  bool first;                   /* an utterance's first segment */
};

}  /* namespace */

Status
PitchViterbiCombiner::launch_group (const std::vector<Request *> &group)
{
  cl_context ctx = device_->context ();
  cl_command_queue q = queue_.get ();
  const size_t n = group.size ();
  /* per utterance: its first row in the joint buffers, its frames, its
   * last segment; per segment its frames */
  std::vector<cl_long> utt (3 * n);
  std::vector<Job> segs;
  long long rows = 0;
  bool cut = false;
  long long most = 1;
  for (size_t u = 0; u < n; u++)
    most = std::max (most, group[u]->T);
  const long long len = segment_ > 0 ? segment_ : most;
  for (size_t u = 0; u < n; u++) {
    long long T = group[u]->T;
    utt[3 * u] = rows;
    utt[3 * u + 1] = T;
    utt[3 * u + 2] = (cl_long) segs.size ();
    for (long long f = 0; f < T; f += len)
      segs.push_back (Job { rows + f, std::min (len, T - f),
            (int) segs.size (), f == 0 });
    cut = cut || T > len;
    rows += T;
  }
  const size_t ns = segs.size ();
  ClMem joint_nccf, joint_path, bp, vec, ends[2], agreed, tab;
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
          (size_t) utt[3 * u] * S_ * sizeof (float),
          (size_t) group[u]->T * S_ * sizeof (float), 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("gathering the utterances' NCCF", err);
    nccf = joint_nccf.get ();
    path = joint_path.get ();
  }
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          (size_t) rows * S_ * sizeof (cl_ushort), nullptr, &bp));
  /* every frame's costs where an utterance is cut (the guesses' and
   * their rewrites), and each segment's last costs, the round's and the
   * next's */
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE, cut ?
          (size_t) rows * S_ * sizeof (float) : sizeof (float), nullptr,
          &vec));
  for (ClMem & e:ends)
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
            ns * S_ * sizeof (float), nullptr, &e));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          ns * sizeof (cl_int), nullptr, &agreed));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          ns * 5 * sizeof (cl_long), nullptr, &tab));

  /* one launch of the jobs in list (their mode), reading ends[in],
   * writing ends[out] */
  auto run_jobs = [&](const std::vector<const Job *> &list, int mode,
      int in, int out) -> Status {
    std::vector<cl_long> t (5 * list.size ());
    for (size_t k = 0; k < list.size (); k++) {
      const Job &j = *list[k];
      t[5 * k] = j.r0;
      t[5 * k + 1] = j.T;
      t[5 * k + 2] = mode == VITERBI_FIX ? j.seg - 1 : -1;
      t[5 * k + 3] = j.seg;
      t[5 * k + 4] = mode;
    }
    cl_int e = clEnqueueWriteBuffer (q, tab.get (), CL_TRUE, 0,
        t.size () * sizeof (cl_long), t.data (), 0, nullptr, nullptr);
    if (e != CL_SUCCESS)
      return cl_fail ("writing the Viterbi's jobs", e);
    ArgSetter a (viterbi_.get ());
    a (nccf) (tab.get ()) ((cl_int) S_) (lags_.get ()) (factor_)
        (soft_min_f0_) (bp.get ()) (vec.get ()) (ends[in].get ())
        (ends[out].get ()) (agreed.get ());
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_viterbi"));
    /* afet_pitch_viterbi_lanes's lags: a whole float16 */
    size_t lags = viterbi_lanes_ ? (S_ + 15) / 16 * 16 : S_;
    e = clSetKernelArg (viterbi_.get (), 11, lags * sizeof (float), nullptr);
    if (e == CL_SUCCESS)
      e = clSetKernelArg (viterbi_.get (), 12, lags * sizeof (float),
          nullptr);
    /* the least cost of each block of 16 lags (kernels/pitch.cl's
     * AFET_PITCH_BLOCK), the previous frame's and this one's */
    if (e == CL_SUCCESS)
      e = clSetKernelArg (viterbi_.get (), 13, 2 * ((S_ + 15) / 16) *
          sizeof (float), nullptr);
    if (e != CL_SUCCESS)
      return cl_fail ("afet_pitch_viterbi's local memory", e);
    AFET_RETURN_IF_ERROR (afet::launch (q, viterbi_.get (), list.size (),
            vlsz_, "afet_pitch_viterbi"));
    return Status::Ok ();
  };

  /* every segment: the first of each utterance from its start (settled),
   * the others guessed */
  {
    std::vector<const Job *> all;
    for (const Job &j : segs)
      all.push_back (&j);
    AFET_RETURN_IF_ERROR (run_jobs (all, cut ? VITERBI_GUESS :
            VITERBI_ALONE, 0, 0));
  }
  int cur = 0, rounds = 0;
  std::vector<char> settled (ns);
  for (size_t k = 0; k < ns; k++)
    settled[k] = segs[k].first;
  for (;;) {
    std::vector<const Job *> again;
    for (const Job &j : segs)
      if (!settled[j.seg])
        again.push_back (&j);
    if (again.empty ())
      break;
    /* the next round's last costs: this one's, but where rewritten */
    err = clEnqueueCopyBuffer (q, ends[cur].get (), ends[1 - cur].get (), 0,
        0, ns * S_ * sizeof (float), 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("copying the segments' last costs", err);
    AFET_RETURN_IF_ERROR (run_jobs (again, VITERBI_FIX, cur, 1 - cur));
    std::vector<cl_int> ok (again.size ());
    err = clEnqueueReadBuffer (q, agreed.get (), CL_TRUE, 0,
        ok.size () * sizeof (cl_int), ok.data (), 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("reading the Viterbi's rounds", err);
    rounds++;
    /* settled now: a segment run from its predecessor's costs as they
     * stood, where those were settled then, or are settled now and were
     * not rewritten (its run agreed) */
    std::vector<char> before (settled), agreed_now (ns, 0);
    for (size_t k = 0; k < again.size (); k++)
      agreed_now[again[k]->seg] = ok[k] != 0;
    for (const Job &j : segs)
      if (!before[j.seg])
        settled[j.seg] = before[j.seg - 1] || (settled[j.seg - 1] &&
            agreed_now[j.seg - 1]);
    cur = 1 - cur;
  }
  {
    std::lock_guard<std::mutex> l (lock_);
    rounds_ = rounds;
  }
  /* the backtrace: where each segment's last lags lead to in the segment
   * before, then per utterance its segments' last lags and paths */
  {
    ClMem ut, st, map, last;
    std::vector<cl_long> seg (2 * ns);
    for (size_t k = 0; k < ns; k++) {
      seg[2 * k] = segs[k].r0;
      seg[2 * k + 1] = segs[k].T;
    }
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY |
            CL_MEM_COPY_HOST_PTR, utt.size () * sizeof (cl_long),
            utt.data (), &ut));
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY |
            CL_MEM_COPY_HOST_PTR, seg.size () * sizeof (cl_long),
            seg.data (), &st));
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE, (cut ? ns :
                1) * S_ * sizeof (cl_int), nullptr, &map));
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
            ns * sizeof (cl_int), nullptr, &last));
    size_t lsz = std::min<size_t> (64, std::max<size_t> (1,
            device_->info ().max_work_group_size));
    if (cut) {
      ArgSetter a (trace_map_.get ());
      a (bp.get ()) (st.get ()) ((cl_int) S_) (map.get ());
      AFET_RETURN_IF_ERROR (a.status ("afet_pitch_trace_map"));
      AFET_RETURN_IF_ERROR (afet::launch (q, trace_map_.get (), ns, lsz,
              "afet_pitch_trace_map"));
    }
    ArgSetter a (backtrace_.get ());
    a (bp.get ()) (ends[cur].get ()) (ut.get ()) ((cl_int) S_)
        ((cl_long) len) (map.get ()) (last.get ()) (path);
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_backtrace"));
    AFET_RETURN_IF_ERROR (afet::launch (q, backtrace_.get (), n, lsz,
            "afet_pitch_backtrace"));
  }
  if (n > 1)
    for (size_t u = 0; u < n && err == CL_SUCCESS; u++)
      err = clEnqueueCopyBuffer (q, joint_path.get (), group[u]->path,
          (size_t) utt[3 * u] * sizeof (cl_int), 0,
          (size_t) group[u]->T * sizeof (cl_int), 0, nullptr, nullptr);
  if (err == CL_SUCCESS)
    err = clFinish (q);
  if (err != CL_SUCCESS)
    return cl_fail ("the pitch Viterbi", err);
  return Status::Ok ();
}

}  /* namespace afet */
