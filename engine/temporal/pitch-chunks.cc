/* The pitch chunk combiner (pitch-chunks.h): the online pitch trackers'
 * chunks of many live streams in one launch of each NCCF kernel.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "pitch-chunks.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

namespace afet {

struct PitchChunkCombiner::Request : Combiner::Slot
{
  const float *ds;
  long long n_ds;
  const long long *start;
  int T;
  const float *ballast;
  float *pitch, *pov, *avg_norm;
  /* in the launch's signal buffer: where ds [0] sits, and the samples the
   * chunk takes there (ds between its zeros) */
  long long at = 0, span = 0;
};

Status
PitchChunkCombiner::get (const std::shared_ptr<Device> &device,
    const Tables &t, const std::string &options, size_t lsz,
    std::shared_ptr<PitchChunkCombiner> *out)
{
  /* the key: the tables, bit for bit, and the program */
  std::string key;
  int ints[] = { t.S, t.M, t.lag0, t.basic, t.max_taps };
  key.append ((const char *) ints, sizeof ints);
  key.append ((const char *) &t.preemph, sizeof t.preemph);
  key.append ((const char *) t.tap_first.data (),
      t.tap_first.size () * sizeof (int));
  key.append ((const char *) t.tap_n.data (), t.tap_n.size () * sizeof (int));
  key.append ((const char *) t.tap_w.data (),
      t.tap_w.size () * sizeof (float));
  static std::mutex registry_lock;
  static std::map<std::tuple<Device *, std::string, size_t, std::string>,
      std::weak_ptr<PitchChunkCombiner>> registry;
  std::lock_guard<std::mutex> guard (registry_lock);
  auto k = std::make_tuple (device.get (), key, lsz, options);
  auto found = registry.find (k);
  if (found != registry.end () && (*out = found->second.lock ()))
    return Status::Ok ();
  std::shared_ptr<PitchChunkCombiner> c (new PitchChunkCombiner ());
  c->device_ = device;
  c->t_ = t;
  c->lsz_ = lsz;
  c->acc_ = options.find ("-DAFET_PITCH_DOUBLE") != std::string::npos ?
      sizeof (double) : sizeof (float);
  AFET_RETURN_IF_ERROR (device->create_queue (&c->queue_));
  const char *names[] = { "afet_pitch_frame_stats", "afet_pitch_nccf_pair",
    "afet_pitch_upsample_pair"
  };
  ClKernel *kernels[] = { &c->stats_, &c->lags_k_, &c->upsample_ };
  for (int i = 0; i < 3; i++)
    AFET_RETURN_IF_ERROR (make_kernel (*device, "pitch", kernels::pitch,
            kernels::pitch_sha256, options, names[i], kernels[i]));
  cl_context ctx = device->context ();
  const cl_mem_flags ro = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, t.tap_first.size () *
          sizeof (int), (void *) t.tap_first.data (), &c->tap_first_));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, t.tap_n.size () * sizeof (int),
          (void *) t.tap_n.data (), &c->tap_n_));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, t.tap_w.size () *
          sizeof (float), (void *) t.tap_w.data (), &c->tap_w_));
  registry[k] = c;
  *out = std::move (c);
  for (auto it = registry.begin (); it != registry.end ();)
    it = it->second.expired () ? registry.erase (it) : std::next (it);
  return Status::Ok ();
}

long long
PitchChunkCombiner::launches () const
{
  return launches_.load ();
}

long long
PitchChunkCombiner::combined_launches () const
{
  return combined_launches_.load ();
}

Status
PitchChunkCombiner::compute (const float *ds, long long n_ds,
    const long long *start, int T, const float *ballast, float *pitch,
    float *pov, float *avg_norm, bool *combined)
{
  if (combined)
    *combined = false;
  if (T <= 0)
    return Status::Ok ();
  Request self;
  self.ds = ds;
  self.n_ds = n_ds;
  self.start = start;
  self.T = T;
  self.ballast = ballast;
  self.pitch = pitch;
  self.pov = pov;
  self.avg_norm = avg_norm;
  return combiner_.submit (&self, [this] (const std::vector<Combiner::
              Slot *> &batch) { return run (batch); }, combined);
}

/* a buffer of at least bytes, grown by doubling (its contents are not
 * kept: every launch writes what it reads) */
Status
PitchChunkCombiner::reserve (ClMem *m, size_t *cap, size_t bytes,
    cl_mem_flags flags)
{
  if (*cap >= bytes && m->get ())
    return Status::Ok ();
  size_t want = std::max (bytes, 2 * *cap);
  size_t max_alloc = device_->info ().max_alloc_bytes;
  if (max_alloc && want > max_alloc)
    want = std::max (bytes, max_alloc);
  ClMem fresh;
  AFET_RETURN_IF_ERROR (make_buffer (device_->context (), flags, want,
          nullptr, &fresh));
  *m = std::move (fresh);
  *cap = want;
  return Status::Ok ();
}

/* The leader's run: the batch in groups whose buffers each fit one
 * allocation of the device (one group unless thousands of streams). */
Status
PitchChunkCombiner::run (const std::vector<Combiner::Slot *> &slots)
{
  const DeviceInfo &info = device_->info ();
  size_t cap = info.max_alloc_bytes ? info.max_alloc_bytes : (size_t) 1 << 30;
  const int S = t_.S, M = t_.M;
  /* the largest per-frame buffer: the rows out, or nv, nv0 and norm */
  const size_t per_frame = std::max ((size_t) (2 * S + 1) * sizeof (float),
      (size_t) M * acc_);
  const long long reach = t_.basic + t_.lag0 + t_.M - 1;
  std::vector<const Request *> &group = group_;
  group.clear ();
  size_t frames = 0, samples = 0;
  for (Combiner::Slot *s : slots) {
    Request *r = static_cast<Request *> (s);
    /* the samples its frames read: from its first frame's start (or ds
     * [0]) to its last frame's reach (or the end of ds) */
    long long lo = 0, hi = r->n_ds;
    for (int t = 0; t < r->T; t++) {
      lo = std::min (lo, r->start[t]);
      hi = std::max (hi, r->start[t] + reach);
    }
    r->at = -lo;
    r->span = hi - lo;
    if ((size_t) r->T * per_frame > cap ||
        (size_t) r->span * sizeof (float) > cap)
      return Status (Status::BAD_CONFIG, "a pitch chunk of " +
          std::to_string (r->T) + " frames is too large for one buffer of "
          "this device: lower frames-per-chunk");
    if (!group.empty () && ((frames + r->T) * per_frame > cap ||
            (samples + r->span) * sizeof (float) > cap)) {
      AFET_RETURN_IF_ERROR (finish_on_error (run_group (group)));
      group.clear ();
      frames = samples = 0;
    }
    group.push_back (r);
    frames += r->T;
    samples += r->span;
  }
  if (!group.empty ())
    AFET_RETURN_IF_ERROR (finish_on_error (run_group (group)));
  return Status::Ok ();
}

/* after a failed launch: nothing of it still reads the host buffers the
 * next leader fills */
Status
PitchChunkCombiner::finish_on_error (Status st)
{
  if (!st.ok ())
    clFinish (queue_.get ());
  return st;
}

Status
PitchChunkCombiner::run_group (const std::vector<const Request *> &group)
{
  const int S = t_.S, M = t_.M;
  /* the chunks' samples one after the other, each between the zeros its
   * frames read outside its own signal; the frames' starts and ballasts */
  size_t samples = 0, frames = 0;
  for (const Request *r : group) {
    samples += r->span;
    frames += r->T;
  }
  ds_h_.assign (samples, 0.0f);
  start_h_.resize (frames);
  ballast_h_.resize (frames);
  size_t base = 0, f = 0;
  for (const Request *r : group) {
    long long at = (long long) base + r->at;
    std::memcpy (ds_h_.data () + at, r->ds, r->n_ds * sizeof (float));
    for (int t = 0; t < r->T; t++, f++) {
      start_h_[f] = at + r->start[t];
      ballast_h_[f] = r->ballast[t];
    }
    base += r->span;
  }
  const int T = (int) frames;
  const cl_mem_flags rw = CL_MEM_READ_WRITE;
  AFET_RETURN_IF_ERROR (reserve (&ds_, &ds_cap_, samples * sizeof (float),
          CL_MEM_READ_ONLY));
  AFET_RETURN_IF_ERROR (reserve (&start_, &start_cap_, frames *
          sizeof (cl_long), CL_MEM_READ_ONLY));
  AFET_RETURN_IF_ERROR (reserve (&ballast_, &ballast_cap_, frames *
          sizeof (float), CL_MEM_READ_ONLY));
  AFET_RETURN_IF_ERROR (reserve (&mean_, &mean_cap_, frames * acc_, rw));
  AFET_RETURN_IF_ERROR (reserve (&e1_, &e1_cap_, frames * acc_, rw));
  AFET_RETURN_IF_ERROR (reserve (&nv_, &nv_cap_, frames * M * acc_, rw));
  AFET_RETURN_IF_ERROR (reserve (&nv0_, &nv0_cap_, frames * M * acc_, rw));
  AFET_RETURN_IF_ERROR (reserve (&norm_, &norm_cap_, frames * M * acc_, rw));
  const size_t row = (size_t) 2 * S + 1;
  AFET_RETURN_IF_ERROR (reserve (&out_, &out_cap_, frames * row *
          sizeof (float), CL_MEM_WRITE_ONLY));
  cl_command_queue q = queue_.get ();
  cl_int err = clEnqueueWriteBuffer (q, ds_.get (), CL_FALSE, 0,
      samples * sizeof (float), ds_h_.data (), 0, nullptr, nullptr);
  if (err == CL_SUCCESS)
    err = clEnqueueWriteBuffer (q, start_.get (), CL_FALSE, 0,
        frames * sizeof (cl_long), start_h_.data (), 0, nullptr, nullptr);
  if (err == CL_SUCCESS)
    err = clEnqueueWriteBuffer (q, ballast_.get (), CL_FALSE, 0,
        frames * sizeof (float), ballast_h_.data (), 0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("uploading the pitch chunks", err);
  {
    ArgSetter a (stats_.get ());
    a (ds_.get ()) ((cl_long) samples) (start_.get ()) ((cl_int) T)
        ((cl_int) t_.basic) (t_.preemph) (mean_.get ()) (e1_.get ());
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_frame_stats"));
    AFET_RETURN_IF_ERROR (launch (q, stats_.get (), (T + lsz_ - 1) / lsz_,
            lsz_, "afet_pitch_frame_stats"));
  }
  {
    ArgSetter a (lags_k_.get ());
    a (ds_.get ()) ((cl_long) samples) (start_.get ()) ((cl_int) T)
        ((cl_int) M) ((cl_int) t_.basic) ((cl_int) t_.lag0) (t_.preemph)
        (mean_.get ()) (e1_.get ()) (ballast_.get ()) (nv_.get ())
        (nv0_.get ()) (norm_.get ());
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_nccf_pair"));
    AFET_RETURN_IF_ERROR (launch (q, lags_k_.get (), ((size_t) T * M +
                lsz_ - 1) / lsz_, lsz_, "afet_pitch_nccf_pair"));
  }
  {
    ArgSetter a (upsample_.get ());
    a (nv_.get ()) (nv0_.get ()) (norm_.get ()) ((cl_int) T) ((cl_int) M)
        ((cl_int) S) (tap_first_.get ()) (tap_n_.get ()) (tap_w_.get ())
        ((cl_int) t_.max_taps) (out_.get ());
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_upsample_pair"));
    AFET_RETURN_IF_ERROR (launch (q, upsample_.get (), ((size_t) T * S +
                lsz_ - 1) / lsz_, lsz_, "afet_pitch_upsample_pair"));
  }
  out_h_.resize (frames * row);
  err = clEnqueueReadBuffer (q, out_.get (), CL_TRUE, 0, frames * row *
      sizeof (float), out_h_.data (), 0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("reading the pitch chunks' NCCF", err);
  launches_++;
  if (group.size () > 1)
    combined_launches_++;
  f = 0;
  for (const Request *r : group)
    for (int t = 0; t < r->T; t++, f++) {
      const float *o = out_h_.data () + f * row;
      std::memcpy (r->pitch + (size_t) t * S, o, S * sizeof (float));
      std::memcpy (r->pov + (size_t) t * S, o + S, S * sizeof (float));
      r->avg_norm[t] = o[2 * S];
    }
  return Status::Ok ();
}

}  /* namespace afet */
