/* Tests of the context combiner's lanes (engine/temporal/lanes.h), without
 * GStreamer: every live stream's output equals the stage's own run over the
 * whole stream, bit for bit.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The lanes of live context streams (engine/temporal/lanes.h), without
 * GStreamer: many streams of deltas, TRAPS and sliding CMVN (plain and
 * centred) fed rows in random pieces from several threads, streams ending
 * and others taking their lanes, the lanes buffer growing while streams
 * run; every output row must equal the stage's own run over the whole
 * stream, bit for bit.
 */
#include "enginecheck.h"
#include "blockpool.h"
#include "clutil.h"
#include "cmvn.h"
#include "delta.h"
#include "lanes.h"
#include "traps.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using enginecheck::check;

static std::shared_ptr<afet::Device> device;

struct Kind
{
  std::string name;
  std::unique_ptr<afet::ContextStage> stage;
  afet::RowHistory::Extent extent;
  int dims;
};

/* The stage's own output for a whole stream of len rows. */
static std::vector<float>
own_run (afet::ContextStage &stage, const Kind &k,
    const std::vector<float> &rows, long long len)
{
  const int rs = k.extent.row_dims;
  std::vector<float> out ((size_t) len * k.dims);
  afet::ClMem in, res;
  cl_context ctx = device->context ();
  cl_int err;
  in.reset (clCreateBuffer (ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
          rows.size () * sizeof (float), (void *) rows.data (), &err));
  res.reset (clCreateBuffer (ctx, CL_MEM_READ_WRITE, out.size () *
          sizeof (float), nullptr, &err));
  afet::ContextBlock b;
  b.rows = in.get ();
  b.row_stride = rs;
  b.first_row = 0;
  b.total = len;
  afet::Status st = stage.enqueue (b, 0, (int) len, res.get (), 0);
  if (st.ok ())
    st = afet::download (stage.queue (), res.get (), 0, out.size () *
        sizeof (float), out.data (), nullptr);
  if (!st.ok ())
    out.clear ();
  return out;
}

/* Where a stream's rows are: mode & 1, its input on the device (one buffer
 * of its own, its rows after 3 rows of padding: an offset); mode & 2, its
 * outputs left on the device (a region of each launch's buffer). */
static bool
live_run (afet::ContextCombiner &c, const std::vector<float> &rows,
    long long len, std::mt19937 &rng, std::vector<float> *out, int *combined,
    int mode = 0)
{
  const afet::RowHistory::Extent &x = c.extent ();
  const size_t in_row_bytes = (size_t) x.row_dims * sizeof (float);
  const size_t pad = 3 * in_row_bytes;
  afet::ClQueue q;
  afet::ClMem in;
  if (!device->create_queue (&q).ok ())
    return false;
  if (mode & 1) {
    cl_int err;
    in.reset (clCreateBuffer (device->context (), CL_MEM_READ_WRITE, pad +
            rows.size () * sizeof (float), nullptr, &err));
    if (!afet::upload (q.get (), in.get (), pad, rows.size () *
            sizeof (float), rows.data (), true, nullptr).ok ())
      return false;
  }
  int lane = c.join ();
  out->assign ((size_t) len * c.dims (), 0.0f);
  long long received = 0, frames_out = 0;
  bool ok = true;
  while (ok) {
    long long take = std::min<long long> (len - received,
        1 + rng () % afet::ContextCombiner::kMaxRows);
    bool last = received + take == len;
    long long limit = last ? received + take : received + take - x.ahead;
    if (!last && received + take < x.start_need)
      limit = 0;
    long long n = std::max (0LL, limit - frames_out);
    bool m = false;
    afet::ContextCombiner::DeviceIo io;
    if (mode & 1) {
      io.in.buffer = in.get ();
      io.in.offset = pad + (size_t) received * in_row_bytes;
    }
    io.out_device = (mode & 2) != 0;
    afet::Status st = c.compute (lane, (mode & 1) ? nullptr : rows.data () +
        received * x.row_dims, (int) take, received, frames_out, (int) n,
        last ? len : -1, out->data () + frames_out * c.dims (), &m, &io);
    ok = st.ok ();
    if (!ok)
      std::printf ("%s\n", st.message ().c_str ());
    if (ok && io.out.buffer) {
      /* the region, once its launch is done */
      cl_int err = clEnqueueReadBuffer (q.get (), io.out.buffer, CL_TRUE,
          io.out.offset, (size_t) n * c.dims () * sizeof (float),
          out->data () + frames_out * c.dims (), 1, &io.out.ready, nullptr);
      ok = err == CL_SUCCESS;
    }
    /* read (blocking): the block may go back to the pool */
    io.out.block.reset ();
    if (io.out.ready)
      clReleaseEvent (io.out.ready);
    if (io.read_done) {
      clWaitForEvents (1, &io.read_done);
      clReleaseEvent (io.read_done);
    }
    ok = ok && (n == 0 || (mode & 2) == 0 || io.out.buffer);
    *combined += m;
    received += take;
    frames_out += n;
    if (last)
      break;
    if (rng () % 4 == 0)
      std::this_thread::yield ();
  }
  c.leave (lane);
  return ok && frames_out == len;
}

static void
lanes_case (Kind &k)
{
  std::shared_ptr<afet::ContextCombiner> c;
  afet::Status st = afet::ContextCombiner::get (device, *k.stage, k.extent,
      k.dims, &c);
  check (st.ok (), k.name + ": combiner (" + st.message () + ")");
  if (!st.ok ())
    return;
  /* a second element of the same config gets the same combiner */
  std::shared_ptr<afet::ContextCombiner> again;
  st = afet::ContextCombiner::get (device, *k.stage, k.extent, k.dims, &again);
  check (st.ok () && again == c, k.name + ": one combiner a configuration");

  enum { THREADS = 4, PER_THREAD = 9 };
  const int rs = k.extent.row_dims;
  std::vector<std::vector<float>> rows (THREADS * PER_THREAD);
  std::vector<long long> lens (rows.size ());
  std::mt19937 gen (7);
  for (size_t s = 0; s < rows.size (); s++) {
    /* short runs (ending before the look-ahead or min-window), long ones */
    lens[s] = s % 5 == 0 ? 1 + gen () % 8 : 20 + gen () % 700;
    rows[s].resize ((size_t) lens[s] * rs);
    std::normal_distribution<float> d (0.0f, 3.0f);
    for (float &v : rows[s])
      v = d (gen);
  }
  std::vector<std::vector<float>> got (rows.size ());
  std::vector<int> ok (rows.size (), 0), combined (THREADS, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < THREADS; t++)
    threads.emplace_back ([&, t] {
          std::mt19937 rng (100 + t);
          /* a thread's streams one after the other: lanes are left and
           * taken again while the others run */
          for (int i = 0; i < PER_THREAD; i++) {
            size_t s = (size_t) t * PER_THREAD + i;
            /* rows from the host or the device, outputs to either: one
             * launch holds them all */
            ok[s] = live_run (*c, rows[s], lens[s], rng, &got[s],
                &combined[t], (int) (s % 4));
          }
        });
  for (std::thread &th : threads)
    th.join ();
  int same = 0, all_ok = 0;
  for (size_t s = 0; s < rows.size (); s++) {
    std::vector<float> want = own_run (*k.stage, k, rows[s], lens[s]);
    all_ok += ok[s];
    same += ok[s] && want.size () == got[s].size () &&
        std::memcmp (want.data (), got[s].data (), want.size () *
        sizeof (float)) == 0;
  }
  int m = 0;
  for (int v : combined)
    m += v;
  check (all_ok == (int) rows.size (), k.name + ": every stream ran (" +
      std::to_string (all_ok) + "/" + std::to_string (rows.size ()) + ")");
  check (same == (int) rows.size (), k.name + ": every stream equals its own "
      "run, bit for bit (" + std::to_string (same) + "/" +
      std::to_string (rows.size ()) + ")");
  check (m > 0, k.name + ": launches shared by streams (" +
      std::to_string (m) + " combined)");

  /* what a lane cannot hold is refused, not computed wrong */
  int lane = c->join ();
  std::vector<float> one ((size_t) rs), res ((size_t) 4 * k.dims);
  st = c->compute (lane, one.data (), 1, 0, 0, 2, -1, res.data (), nullptr);
  check (!st.ok (), k.name + ": outputs beyond the rows refused");
  st = c->compute (lane, one.data (), 1, c->ring () + k.extent.back + 5, 0,
      0, -1, res.data (), nullptr);
  check (!st.ok (), k.name + ": rows beyond the ring refused");
  c->leave (lane);
}

/* The launches' block pool (engine/runtime/blockpool.h): a block goes back
 * to the pool while a read of it on another queue has not run yet (held by
 * a user event). The next block of its size must not be written before
 * that read: the read sees the first writer's rows, not the second's.
 * Once the read has completed, the block is handed out again, not made. */
static void
test_block_pool ()
{
  cl_context ctx = device->context ();
  afet::ClQueue qw, qr;
  afet::Status st = device->create_queue (&qw);
  if (st.ok ())
    st = device->create_queue (&qr);
  check (st.ok (), "block pool: queues");
  if (!st.ok ())
    return;
  auto pool = afet::BlockPool::make (ctx);
  const size_t n = 1000, bytes = n * sizeof (float);
  std::vector<float> first (n, 1.0f), second (n, 2.0f), seen (n, 0.0f);
  std::shared_ptr<afet::DeviceBlock> a, b, c;
  st = pool->acquire (bytes, qw.get (), &a);
  check (st.ok () && a->bytes () >= bytes, "block pool: a block");
  if (!st.ok ())
    return;
  cl_event ev = nullptr;
  cl_int err = clEnqueueWriteBuffer (qw.get (), a->buffer (), CL_TRUE, 0,
      bytes, first.data (), 0, nullptr, &ev);
  a->add_use (ev);
  cl_event gate = clCreateUserEvent (ctx, &err);
  afet::ClMem dst;
  st = afet::make_buffer (ctx, CL_MEM_READ_WRITE, bytes, nullptr, &dst);
  cl_event read = nullptr;
  if (err == CL_SUCCESS && st.ok ())
    err = clEnqueueCopyBuffer (qr.get (), a->buffer (), dst.get (), 0, 0,
        bytes, 1, &gate, &read);
  clFlush (qr.get ());
  check (err == CL_SUCCESS && st.ok (), "block pool: a read held back");
  a->add_use (read);
  a.reset ();
  st = pool->acquire (bytes, qw.get (), &b);
  cl_event wrote = nullptr;
  if (st.ok ())
    err = clEnqueueWriteBuffer (qw.get (), b->buffer (), CL_FALSE, 0, bytes,
        second.data (), 0, nullptr, &wrote);
  clFlush (qw.get ());
  /* a pool that reused the block at once would have this write done
   * before the read: let it finish (a pool that orders it after the read
   * on the device makes it wait: then stop looking after a while) */
  for (int i = 0; i < 200 && wrote; i++) {
    cl_int status = CL_QUEUED;
    clGetEventInfo (wrote, CL_EVENT_COMMAND_EXECUTION_STATUS,
        sizeof (status), &status, nullptr);
    if (status <= CL_COMPLETE)
      break;
    std::this_thread::sleep_for (std::chrono::milliseconds (10));
  }
  clSetUserEventStatus (gate, CL_COMPLETE);
  clFinish (qr.get ());
  clFinish (qw.get ());
  st = afet::download (qr.get (), dst.get (), 0, bytes, seen.data (),
      nullptr);
  check (st.ok () && err == CL_SUCCESS && seen == first, "block pool: a "
      "block still read is not written again before the read");
  if (wrote)
    clReleaseEvent (wrote);
  clReleaseEvent (gate);
  b.reset ();
  /* every use done: the oldest block comes back */
  uint64_t made = pool->made ();
  st = pool->acquire (bytes, qw.get (), &c);
  check (st.ok () && pool->made () == made && pool->reused () == 1,
      "block pool: a block whose uses have completed is reused (made " +
      std::to_string (pool->made ()) + ", reused " +
      std::to_string (pool->reused ()) + ")");
}

/* A delta stage of these sizes and windows among the kinds. */
static void
add_delta (std::vector<Kind> &kinds, const char *name, int statics,
    int row_stride, int order, int delta_window, int accel_window)
{
  afet::DeltaConfig d;
  d.statics = statics;
  d.row_stride = row_stride;
  d.order = order;
  d.delta_window = delta_window;
  d.accel_window = accel_window;
  auto s = std::make_unique<afet::DeltaStage> ();
  afet::Status st = s->init (device, d);
  check (st.ok (), std::string (name) + ": delta stage");
  kinds.push_back ({ name, std::move (s), { d.ahead (), d.ahead (), 0,
          row_stride }, d.dims () });
}

int
main ()
{
  if (!enginecheck::open_device (&device))
    return 1;
  afet::Status st;
  test_block_pool ();

  std::vector<Kind> kinds;
  add_delta (kinds, "deltas D_A", 13, 13, 2, 2, 2);
  /* third order, unequal windows, rows wider than the statics: on CPU
   * devices the block kernel a work-item per frame (AFET_DELTA_FRAMES)
   * against the lanes' a work-item per column */
  add_delta (kinds, "deltas D_A_T", 12, 14, 3, 1, 3);
  {
    afet::TrapsConfig t;
    t.bands = 6;
    t.row_stride = 6;
    t.length = 9;
    t.num_dct = 3;
    auto s = std::make_unique<afet::TrapsStage> ();
    st = s->init (device, t);
    check (st.ok (), "traps stage");
    kinds.push_back ({ "traps", std::move (s), { t.ahead (), t.ahead (), 0,
            6 }, t.dims () });
  }
  for (bool center : { false, true }) {
    afet::CmvnConfig c;
    c.dims = 39;
    c.row_stride = 39;
    c.mask.assign (39, 1);
    c.mask[5] = 0;
    c.mode = center ? afet::CmvnMode::MEANVAR : afet::CmvnMode::MEAN;
    c.scope = afet::CmvnScope::SLIDING;
    c.cmn_window = center ? 61 : 300;
    c.center = center;
    c.min_window = 25;
    auto s = std::make_unique<afet::CmvnStage> ();
    st = s->init (device, c);
    check (st.ok () && s->has_lanes (), "sliding cmvn stage");
    kinds.push_back ({ center ? "sliding cmvn centred" : "sliding cmvn",
            std::move (s), { c.back (), c.ahead (), c.start_need (), 39 },
            39 });
  }
  for (Kind &k : kinds)
    lanes_case (k);

  /* stages that keep a stream's statistics on the device have no lanes */
  afet::CmvnConfig r;
  r.dims = r.row_stride = 13;
  r.mask.assign (13, 1);
  r.scope = afet::CmvnScope::RUNNING;
  afet::CmvnStage running;
  st = running.init (device, r);
  std::shared_ptr<afet::ContextCombiner> none;
  check (st.ok () && !running.has_lanes () &&
      !afet::ContextCombiner::get (device, running, { 0, 0, 0, 13 }, 13,
          &none).ok (),
      "running cmvn: computed per stream");
  return enginecheck::finish ();
}
