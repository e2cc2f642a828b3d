/* Many live streams through one context stage (lanes.h): each stream's rows
 * in its lane, computed in combined launches.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "lanes.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>
#include <utility>

namespace afet {

struct ContextCombiner::Request : Combiner::Slot, ContextCombiner::Part
{
};

ContextCombiner::ContextCombiner (std::shared_ptr<Device> device,
    std::unique_ptr<ContextStage> stage, const RowHistory::Extent &extent,
    int dims)
  : device_ (std::move (device)), stage_ (std::move (stage)),
    extent_ (extent), dims_ (dims),
    blocks_ (BlockPool::make (device_->context ()))
{
  /* what a call may read: the look-back before its first output, the
   * outputs still waiting (the look-ahead, or the rows before the first
   * output) and its own rows */
  long long need = (long long) extent.back + std::max (extent.ahead,
      extent.start_need) + kMaxRows + 1;
  ring_ = 1;
  while (ring_ < need)
    ring_ *= 2;
}

Status
ContextCombiner::get (const std::shared_ptr<Device> &device,
    const ContextStage &stage, const RowHistory::Extent &extent, int dims,
    std::shared_ptr<ContextCombiner> *out)
{
  if (!stage.has_lanes () || extent.start_need < 0)
    return Status (Status::BAD_CONFIG, "this stage computes each stream on "
        "its own (it keeps statistics of the whole stream)");
  static std::mutex registry_lock;
  static std::map<std::tuple<Device *, std::string, int, int>,
      std::weak_ptr<ContextCombiner>> registry;
  std::lock_guard<std::mutex> guard (registry_lock);
  /* the extent follows from the key, the row width need not */
  auto k = std::make_tuple (device.get (), stage.key (), extent.row_dims,
      dims);
  auto found = registry.find (k);
  if (found != registry.end () && (*out = found->second.lock ()))
    return Status::Ok ();
  std::unique_ptr<ContextStage> twin;
  AFET_RETURN_IF_ERROR (stage.twin (&twin));
  std::shared_ptr<ContextCombiner> c (new ContextCombiner (device,
          std::move (twin), extent, dims));
  c->lsz_ = pick_local_size (*device);
  AFET_RETURN_IF_ERROR (make_kernel (*device, "context", kernels::context,
          kernels::context_sha256, "-DAFET_LSZ=" + std::to_string (c->lsz_),
          "afet_lane_gather", &c->gather_));
  registry[k] = c;
  *out = std::move (c);
  for (auto it = registry.begin (); it != registry.end ();)
    it = it->second.expired () ? registry.erase (it) : std::next (it);
  return Status::Ok ();
}

int
ContextCombiner::join ()
{
  std::lock_guard<std::mutex> l (lanes_lock_);
  if (!free_lanes_.empty ()) {
    int lane = free_lanes_.back ();
    free_lanes_.pop_back ();
    return lane;
  }
  return next_lane_++;
}

void
ContextCombiner::leave (int lane)
{
  std::lock_guard<std::mutex> l (lanes_lock_);
  free_lanes_.push_back (lane);
}

Status
ContextCombiner::check (int m, long long first_row, long long out_first,
    int n) const
{
  if (m < 0 || m > kMaxRows || n < 0 || out_first + n > first_row + m ||
      first_row + m - std::max (0LL, out_first - extent_.back) > ring_)
    return Status (Status::BAD_CONFIG, "a lane holds " +
        std::to_string (ring_) + " rows: " + std::to_string (m) +
        " new rows from " + std::to_string (first_row) + " and outputs " +
        std::to_string (out_first) + "+" + std::to_string (n) +
        " do not fit (a bug: please report it)");
  return Status::Ok ();
}

Status
ContextCombiner::compute (int lane, const float *rows, int m,
    long long first_row, long long out_first, int n, long long total,
    float *out, bool *combined, DeviceIo *io)
{
  AFET_RETURN_IF_ERROR (check (m, first_row, out_first, n));
  if (m == 0 && n == 0)
    return Status::Ok ();
  Request self;
  self.lane = lane;
  self.rows = rows;
  self.m = m;
  self.first_row = first_row;
  self.out_first = out_first;
  self.n = n;
  self.total = total;
  self.out = out;
  self.io = io;
  return combiner_.submit (&self, [this] (const std::vector<Combiner::
              Slot *> &batch) { return run (batch); }, combined);
}

Status
ContextCombiner::compute_all (const Part *parts, size_t k, bool *combined)
{
  for (size_t i = 0; i < k; i++)
    AFET_RETURN_IF_ERROR (check (parts[i].m, parts[i].first_row,
            parts[i].out_first, parts[i].n));
  return combiner_.submit_parts<Request> (parts, k,
      [](const Part &p) { return p.m > 0 || p.n > 0; },
      [this] (const std::vector<Combiner::Slot *> &batch) {
        return run (batch);
      }, combined);
}

/* Device buffers for this many lanes, desc entries (and the host's rows:
 * see run ()) and output rows; lanes keep their rows when they grow. Runs
 * in the leader. */
Status
ContextCombiner::fit (int lanes, size_t descs, size_t outs)
{
  cl_context ctx = device_->context ();
  cl_command_queue q = stage_->queue ();
  const size_t row_bytes = (size_t) extent_.row_dims * sizeof (float);
  if (lanes > lane_cap_) {
    int cap = std::max ({ lanes, 2 * lane_cap_, 8 });
    ClMem grown;
    AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE, (size_t) cap *
            ring_ * row_bytes, nullptr, &grown));
    if (lane_cap_ > 0) {
      cl_int err = clEnqueueCopyBuffer (q, lanes_.get (), grown.get (), 0, 0,
          (size_t) lane_cap_ * ring_ * row_bytes, 0, nullptr, nullptr);
      if (err != CL_SUCCESS)
        return cl_fail ("clEnqueueCopyBuffer (more lanes)", err);
      /* the old buffer goes only when the copy is done */
      clFinish (q);
    }
    lanes_ = std::move (grown);
    lane_cap_ = cap;
  }
  struct Want
  {
    ClMem *buf;
    size_t *cap;
    size_t bytes;
  } wants[] = {
    { &desc_, &desc_cap_, descs * sizeof (cl_long) },
    { &out_, &out_cap_, outs * dims_ * sizeof (float) },
  };
  for (Want &w : wants)
    if (w.bytes > *w.cap) {
      size_t cap = std::max (w.bytes, 2 * *w.cap);
      AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE, cap,
              nullptr, w.buf));
      *w.cap = cap;
    }
  return Status::Ok ();
}

cl_context
ContextCombiner::context () const
{
  return device_->context ();
}

/* Runs in the leader: the device and host buffers are its own. */
Status
ContextCombiner::run (const std::vector<Combiner::Slot *> &slots)
{
  std::vector<const Request *> &batch = batch_;
  batch.clear ();
  for (Combiner::Slot *s : slots)
    batch.push_back (static_cast<const Request *> (s));
  int lanes;
  {
    std::lock_guard<std::mutex> l (lanes_lock_);
    lanes = next_lane_;
  }
  const int rs = extent_.row_dims;
  const size_t out_row_bytes = (size_t) dims_ * sizeof (float);
  /* new rows from the host and from the device (grouped by their buffer:
   * one gather each), output rows to the host and to the device */
  size_t rows = 0, dev_rows = 0, outs = 0;
  bool host_out = false, dev_out = false;
  std::vector<std::pair<cl_mem, const Request *>> &from_device =
      from_device_;
  std::vector<cl_event> &wait = wait_;
  from_device.clear ();
  wait.clear ();
  for (const Request *r : batch) {
    const bool on_device = r->io && r->io->in.buffer;
    if (on_device && r->m > 0) {
      dev_rows += (size_t) r->m;
      from_device.emplace_back (r->io->in.buffer, r);
      if (r->io->in.ready)
        wait.push_back (r->io->in.ready);
    } else if (!on_device) {
      rows += (size_t) r->m;
    }
    outs += (size_t) r->n;
    if (r->n > 0 && r->io && r->io->out_device)
      dev_out = true;
    else if (r->n > 0)
      host_out = true;
  }
  std::stable_sort (from_device.begin (), from_device.end (),
      [](const std::pair<cl_mem, const Request *> &a,
          const std::pair<cl_mem, const Request *> &b) {
        return a.first < b.first;
      });
  std::sort (wait.begin (), wait.end ());
  wait.erase (std::unique (wait.begin (), wait.end ()), wait.end ());
  /* desc: per output row its frame, its run's total and its lane's first
   * row; then per new row (from the host, then from the device) its first
   * float in its buffer and its row in the lanes; then the host's new rows
   * themselves (floats), so that one upload brings all (each command wakes
   * a CPU device's threads) and the host's rows are gathered from the desc
   * buffer as the device's are from theirs */
  const size_t host_at = 3 * outs, dev_at = host_at + 2 * rows;
  const size_t rows_at = dev_at + 2 * dev_rows;
  /* the host memory of the uploads: a slot whose last uploads are done
   * (kHostSlots launches ago: long done, but for a full queue) */
  HostSlot &hs = host_[host_next_];
  if (hs.copied) {
    cl_event ev = hs.copied.get ();
    clWaitForEvents (1, &ev);
    hs.copied.reset ();
  }
  std::vector<cl_long> &host_desc = hs.desc;
  host_desc.resize (rows_at + (rows * rs + 1) / 2);
  float *host_rows = (float *) (host_desc.data () + rows_at);
  host_out_.resize (host_out ? outs * dims_ : 0);
  size_t ri = 0, oi = 0;
  for (const Request *r : batch) {
    const cl_long base = (cl_long) r->lane * ring_;
    if (!(r->io && r->io->in.buffer)) {
      if (r->m > 0)
        std::memcpy (host_rows + ri * rs, r->rows, (size_t) r->m * rs *
            sizeof (float));
      for (size_t i = 0; i < (size_t) r->m; i++) {
        host_desc[host_at + 2 * (ri + i)] = (cl_long) (2 * rows_at + (ri +
                i) * rs);
        host_desc[host_at + 2 * (ri + i) + 1] = base + ((r->first_row +
                (cl_long) i) & (ring_ - 1));
      }
      ri += (size_t) r->m;
    }
    for (int t = 0; t < r->n; t++) {
      cl_long *d = host_desc.data () + 3 * (oi + t);
      d[0] = r->out_first + t;
      d[1] = r->total;
      d[2] = base;
    }
    oi += (size_t) r->n;
  }
  size_t di = 0;
  for (const auto &f : from_device) {
    const Request *r = f.second;
    const cl_long base = (cl_long) r->lane * ring_;
    const cl_long first = (cl_long) (r->io->in.offset / sizeof (float));
    for (int i = 0; i < r->m; i++, di++) {
      host_desc[dev_at + 2 * di] = first + (cl_long) i * rs;
      host_desc[dev_at + 2 * di + 1] = base + ((r->first_row + i) &
          (ring_ - 1));
    }
  }
  AFET_RETURN_IF_ERROR (fit (lanes, host_desc.size (), dev_out ? 0 : outs));
  cl_command_queue q = stage_->queue ();
  /* the upload does not block (a leader would wait for the device to
   * catch up, the streams behind it too): the slot's host memory is
   * written again only once it is done */
  host_next_ = (host_next_ + 1) % kHostSlots;
  cl_event copied = nullptr;
  Status up = upload (q, desc_.get (), 0, host_desc.size () *
      sizeof (cl_long), host_desc.data (), false, nullptr, &copied);
  if (!up.ok ()) {
    /* nothing reads the slot after this */
    clFinish (q);
    return up;
  }
  hs.copied.reset (copied);
  if (rows > 0) {
    /* the host's rows, from the desc buffer (read as floats there) */
    ArgSetter a (gather_.get ());
    a (desc_.get ()) (desc_.get ()) ((cl_uint) host_at) ((cl_uint) rows)
        ((cl_uint) rs) (lanes_.get ());
    AFET_RETURN_IF_ERROR (a.status ("afet_lane_gather"));
    AFET_RETURN_IF_ERROR (launch (q, gather_.get (), (rows * rs + lsz_ -
                1) / lsz_, lsz_, "afet_lane_gather"));
  }
  /* a failure from here on waits for the queue first: a gather may read a
   * caller's rows on the device, whose block the caller gives back (its
   * pool may hand it out again) when no read_done comes back */
  auto finished = [q](Status st) {
    if (!st.ok ())
      clFinish (q);
    return st;
  };
  if (!wait.empty ()) {
    /* the producers' kernels (other queues) before the gathers */
    cl_int err = clEnqueueBarrierWithWaitList (q, (cl_uint) wait.size (),
        wait.data (), nullptr);
    if (err != CL_SUCCESS)
      return finished (cl_fail ("clEnqueueBarrierWithWaitList", err));
  }
  for (size_t g = 0, at = 0; g < from_device.size ();) {
    /* the rows of one buffer */
    size_t m = 0, h = g;
    for (; h < from_device.size () && from_device[h].first ==
        from_device[g].first; h++)
      m += (size_t) from_device[h].second->m;
    ArgSetter a (gather_.get ());
    a (from_device[g].first) (desc_.get ()) ((cl_uint) (dev_at + 2 * at))
        ((cl_uint) m) ((cl_uint) rs) (lanes_.get ());
    AFET_RETURN_IF_ERROR (finished (a.status ("afet_lane_gather")));
    AFET_RETURN_IF_ERROR (finished (launch (q, gather_.get (), (m * rs +
                    lsz_ - 1) / lsz_, lsz_, "afet_lane_gather")));
    at += m;
    g = h;
  }
  /* output rows some caller keeps on the device: a block of the pool
   * (see DeviceRows) */
  std::shared_ptr<DeviceBlock> launch_out;
  if (dev_out)
    AFET_RETURN_IF_ERROR (finished (blocks_->acquire (outs * out_row_bytes,
                q, &launch_out)));
  cl_mem out_buf = dev_out ? launch_out->buffer () : out_.get ();
  if (outs > 0) {
    LaneBlock in;
    in.rows = lanes_.get ();
    in.row_stride = rs;
    in.ring = ring_;
    in.desc = desc_.get ();
    in.lanes = lane_cap_;
    AFET_RETURN_IF_ERROR (finished (stage_->enqueue_lanes (in, (int) outs,
                out_buf)));
  }
  ClEvent done;
  if (dev_out || dev_rows > 0) {
    cl_event ev = nullptr;
    cl_int err = clEnqueueMarkerWithWaitList (q, 0, nullptr, &ev);
    if (err != CL_SUCCESS)
      return finished (cl_fail ("clEnqueueMarkerWithWaitList", err));
    done = ClEvent (ev);
    clFlush (q);
    if (dev_out) {
      /* not written again before the launch is done */
      clRetainEvent (ev);
      launch_out->add_use (ev);
    }
  }
  if (host_out)
    AFET_RETURN_IF_ERROR (finished (download (q, out_buf, 0,
                host_out_.size () * sizeof (float), host_out_.data (),
                nullptr)));
  oi = 0;
  for (const Request *r : batch) {
    if (r->io && r->io->in.buffer && r->m > 0) {
      clRetainEvent (done.get ());
      r->io->read_done = done.get ();
    }
    if (r->n > 0 && r->io && r->io->out_device) {
      clRetainEvent (done.get ());
      r->io->out.block = launch_out;
      r->io->out.buffer = out_buf;
      r->io->out.offset = oi * out_row_bytes;
      r->io->out.ready = done.get ();
    } else if (r->n > 0) {
      std::memcpy (r->out, host_out_.data () + oi * dims_, (size_t) r->n *
          out_row_bytes);
    }
    oi += (size_t) r->n;
  }
  return Status::Ok ();
}

}  /* namespace afet */
