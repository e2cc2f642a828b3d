/* Tests of the chain combiner (engine/temporal/chain.h), without GStreamer:
 * live streams through MFCC, deltas and sliding CMVN in one pass a round
 * give every stage's rows of each stream alone, bit for bit.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * 24 streams on 4 threads (a thread's streams one after the other, so that
 * lanes are left and taken again while others run), each fed in rounds of
 * 1 to 8 frames through the chain, its run ended by the context stages'
 * own calls with the run's total (as the elements drain); against the
 * same frames through each stage apart: the MFCC stage's own run, then
 * the delta and CMVN stages' own runs over the whole stream. Every row of
 * every stage must be the same bytes; passes must have served several
 * streams; a round the lanes cannot hold is refused before it runs. Half
 * the streams' calls ask their pass's leader to wait for others first
 * (Call::gather_us, as a live front with a latency budget does). All of it
 * twice: with the rows between the stages through the host (GPUs) and left
 * on the device (CPU devices), whatever the device under test is; the
 * latter refused for stages on two OpenCL contexts. */
#include "enginecheck.h"
#include "chain.h"
#include "cmvn.h"
#include "delta.h"
#include "mfcc.h"

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using enginecheck::check;

static std::shared_ptr<afet::Device> device;

enum { W = 400, CEPS = 13, DIMS = 39 };

static afet::MfccConfig
mfcc_config ()
{
  afet::MfccConfig mc;
  mc.framing.rate = 16000;
  mc.framing.W = W;
  mc.framing.S = W;             /* whole frames, as the combiner takes them */
  mc.num_filters = 26;
  mc.num_ceps = 12;
  mc.c0 = true;
  mc.max_batch = 4096;
  return mc;
}

/* A context stage's rows for a whole stream of len input rows. */
static std::vector<float>
own_run (afet::ContextStage &stage, const afet::RowHistory::Extent &x,
    int dims, const std::vector<float> &rows, long long len)
{
  std::vector<float> out ((size_t) len * dims);
  if (len == 0)
    return out;
  afet::ClMem in, res;
  cl_int err;
  in.reset (clCreateBuffer (device->context (), CL_MEM_READ_WRITE |
          CL_MEM_COPY_HOST_PTR, rows.size () * sizeof (float),
          (void *) rows.data (), &err));
  res.reset (clCreateBuffer (device->context (), CL_MEM_READ_WRITE,
          out.size () * sizeof (float), nullptr, &err));
  afet::ContextBlock b;
  b.rows = in.get ();
  b.row_stride = x.row_dims;
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

struct Stream
{
  std::vector<float> samples;   /* frames of W, one after the other */
  long long frames = 0;
  std::vector<float> rows[3];   /* what the chain gave: MFCC, D_A, CMVN */
  bool ok = false;
  int gather_us = 0;            /* its calls' Call::gather_us */
};

/* Rows a pass left on the device to n rows of dims floats at out (the
 * references given back), as a map of the element's memory would. */
static bool
fetch (cl_command_queue q, afet::DeviceRows *r, long long n, int dims,
    float *out)
{
  bool ok = n == 0 || (r->block && r->ready);
  if (ok && n > 0) {
    cl_event ev = r->ready;
    ok = clWaitForEvents (1, &ev) == CL_SUCCESS && afet::download (q,
        r->buffer, r->offset, (size_t) n * dims * sizeof (float), out,
        nullptr).ok ();
  }
  if (r->ready)
    clReleaseEvent (r->ready);
  *r = afet::DeviceRows ();
  return ok;
}

/* One stream through the chain, as the elements feed it. */
static bool
live_run (afet::ChainCombiner &chain, afet::ContextCombiner *links[2],
    Stream &s, std::mt19937 &rng, int *combined)
{
  const bool on_device = chain.between () ==
      afet::ChainCombiner::RowsBetween::DEVICE;
  afet::ClQueue q;
  if (on_device && !device->create_queue (&q).ok ())
    return false;
  const int dims[3] = { CEPS, DIMS, DIMS };
  int lane[2] = { links[0]->join (), links[1]->join () };
  long long rows[2] = { 0, 0 }, outs[2] = { 0, 0 };
  for (int k = 0; k < 3; k++)
    s.rows[k].assign ((size_t) s.frames * dims[k], 0.0f);
  long long done = 0;
  bool ok = true;
  while (ok && done < s.frames) {
    int n = (int) std::min<long long> (s.frames - done, 1 + rng () % 8);
    afet::ChainCombiner::Call call;
    call.frames = s.samples.data () + done * W;
    call.n = n;
    /* half the streams' calls wait for others when they lead a pass
     * (what a live front with a latency budget asks for): the same rows */
    call.gather_us = s.gather_us;
    call.front_out = s.rows[0].data () + done * CEPS;
    long long m = n;
    for (int j = 0; j < 2; j++) {
      afet::ChainCombiner::Step &st = call.steps[j];
      st.lane = lane[j];
      st.first_row = rows[j];
      st.out_first = outs[j];
      st.m = (int) m;
      st.n = (int) afet::RowHistory::ready_of (links[j]->extent (),
          rows[j] + m, (unsigned long long) outs[j], false);
      st.out = s.rows[j + 1].data () + outs[j] * DIMS;
      rows[j] += m;
      outs[j] += st.n;
      m = st.n;
    }
    bool c = false;
    afet::Status st = chain.compute (&call, &c);
    ok = st.ok ();
    if (!ok)
      std::printf ("%s\n", st.message ().c_str ());
    *combined += c;
    if (ok && on_device) {
      /* the front's and the deltas' rows, left on the device */
      ok = fetch (q.get (), &call.front_rows, n, CEPS,
          s.rows[0].data () + done * CEPS) && fetch (q.get (),
          &call.steps[0].rows, call.steps[0].n, DIMS, s.rows[1].data () +
          (outs[0] - call.steps[0].n) * DIMS);
      if (!ok)
        std::printf ("rows left on the device not read back\n");
    }
    done += n;
    if (rng () % 4 == 0)
      std::this_thread::yield ();
  }
  /* the run's end, each stage's own call with the total (as the
   * elements drain): deltas, then their last rows through the CMVN */
  for (int j = 0; j < 2 && ok; j++) {
    long long total = rows[j];
    const float *in = j == 0 ? nullptr : s.rows[1].data () + rows[1] * DIMS;
    int m = 0;
    if (j == 1) {
      m = (int) (outs[0] - rows[1]);
      total = outs[0];
    }
    long long n = total - outs[j];
    afet::Status st = links[j]->compute (lane[j], in, m, rows[j], outs[j],
        (int) n, total, s.rows[j + 1].data () + outs[j] * DIMS, nullptr);
    ok = st.ok ();
    if (!ok)
      std::printf ("drain: %s\n", st.message ().c_str ());
    rows[j] += m;
    outs[j] += n;
  }
  links[0]->leave (lane[0]);
  links[1]->leave (lane[1]);
  return ok && outs[0] == s.frames && outs[1] == s.frames;
}

int
main ()
{
  if (!enginecheck::open_device (&device))
    return 1;
  afet::MfccConfig mc = mfcc_config ();
  std::shared_ptr<afet::SpectralCombiner> front;
  afet::Status st = afet::SpectralCombiner::get (device, "test-chain " +
      mc.key (), [&](std::unique_ptr<afet::SpectralStage> *stage) {
        auto s = std::make_unique<afet::MfccStage> ();
        afet::Status r = s->init (device, mc);
        *stage = std::move (s);
        return r;
      }, &front);
  check (st.ok () && front->dims () == CEPS, "the MFCC combiner (" +
      st.message () + ")");

  afet::DeltaConfig d;
  d.statics = CEPS;
  d.row_stride = CEPS;
  d.order = 2;
  d.delta_window = 2;
  d.accel_window = 2;
  afet::DeltaStage delta;
  st = delta.init (device, d);
  check (st.ok () && d.dims () == DIMS, "delta stage");
  afet::RowHistory::Extent dx = { d.ahead (), d.ahead (), 0, CEPS };
  afet::CmvnConfig c;
  c.dims = c.row_stride = DIMS;
  c.mask.assign (DIMS, 1);
  c.mode = afet::CmvnMode::MEAN;
  c.scope = afet::CmvnScope::SLIDING;
  c.cmn_window = 300;
  c.min_window = 25;
  afet::CmvnStage cmvn;
  st = cmvn.init (device, c);
  check (st.ok (), "sliding cmvn stage");
  afet::RowHistory::Extent cx = { c.back (), c.ahead (), c.start_need (),
    DIMS };
  std::shared_ptr<afet::ContextCombiner> cd, cc;
  st = afet::ContextCombiner::get (device, delta, dx, DIMS, &cd);
  if (st.ok ())
    st = afet::ContextCombiner::get (device, cmvn, cx, DIMS, &cc);
  check (st.ok (), "context combiners (" + st.message () + ")");
  std::shared_ptr<afet::ChainCombiner> chain, again, other;
  const afet::ChainCombiner::RowsBetween between[2] = {
    afet::ChainCombiner::RowsBetween::HOST,
    afet::ChainCombiner::RowsBetween::DEVICE
  };
  const char *between_name[2] = { "rows between the stages through the "
        "host", "rows between the stages on the device" };
  for (int b = 0; b < 2 && st.ok (); b++) {
    const std::string mode = std::string (" (") + between_name[b] + ")";
    if (st.ok ())
      st = afet::ChainCombiner::get (front, { cd, cc }, between[b], &chain);
    if (st.ok ())
      st = afet::ChainCombiner::get (front, { cd, cc }, between[b], &again);
    check (st.ok () && chain == again && chain->links () == 2 &&
        chain->between () == between[b] && chain != other,
        "one chain of these combiners" + mode + " " + st.message ());
    other = chain;
    if (!st.ok ())
      return enginecheck::finish ();

    enum { THREADS = 4, PER_THREAD = 6 };
    std::vector<Stream> streams (THREADS * PER_THREAD);
    std::mt19937 gen (11);
    for (size_t i = 0; i < streams.size (); i++) {
      /* short runs (before the look-ahead and the min-window), long ones */
      streams[i].frames = i % 6 == 0 ? 1 + gen () % 5 : 30 + gen () % 300;
      streams[i].gather_us = i % 2 ? 200 : 0;
      streams[i].samples.resize ((size_t) streams[i].frames * W);
      std::normal_distribution<float> nd (0.0f, 2000.0f);
      for (float &v : streams[i].samples)
        v = nd (gen);
    }
    afet::ContextCombiner *links[2] = { cd.get (), cc.get () };
    std::vector<int> combined (THREADS, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < THREADS; t++)
      threads.emplace_back ([&, t] {
            std::mt19937 rng (200 + t);
            for (int i = 0; i < PER_THREAD; i++) {
              Stream &s = streams[(size_t) t * PER_THREAD + i];
              s.ok = live_run (*chain, links, s, rng, &combined[t]);
            }
          });
    for (std::thread &th : threads)
      th.join ();

    /* each stream apart: the stage's own runs */
    int ran = 0, same[3] = { 0, 0, 0 };
    afet::MfccStage own;
    st = own.init (device, mc);
    check (st.ok (), "MFCC stage");
    for (Stream &s : streams) {
      ran += s.ok;
      std::vector<float> m ((size_t) s.frames * CEPS);
      if (!own.run_samples (s.samples.data (), s.frames, m.data ()).ok ())
        continue;
      std::vector<float> da = own_run (delta, dx, DIMS, m, s.frames);
      std::vector<float> cm = own_run (cmvn, cx, DIMS, da, s.frames);
      const std::vector<float> *want[3] = { &m, &da, &cm };
      for (int k = 0; k < 3; k++)
        same[k] += s.ok && want[k]->size () == s.rows[k].size () &&
            std::memcmp (want[k]->data (), s.rows[k].data (),
            want[k]->size () * sizeof (float)) == 0;
    }
    const int total = (int) streams.size ();
    check (ran == total, "every stream ran" + mode + " (" +
        std::to_string (ran) + "/" + std::to_string (total) + ")");
    const char *names[3] = { "MFCC", "deltas", "sliding CMVN" };
    for (int k = 0; k < 3; k++)
      check (same[k] == total, std::string (names[k]) + ": every stream's "
          "rows equal the stage's own run, bit for bit" + mode + " (" +
          std::to_string (same[k]) + "/" + std::to_string (total) + ")");
    int m = 0;
    for (int v : combined)
      m += v;
    check (m > 0, "passes shared by streams" + mode + " (" +
        std::to_string (m) + " rounds combined)");
  }

  /* a chain whose rows stay on the device has all its stages on one
   * device: a link on another context (another device, as an element
   * with a device property of its own has) is refused there, taken with
   * the rows through the host */
  {
    cl_device_id id = device->device ();
    cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties) device->platform (), 0
    };
    cl_int err = CL_SUCCESS;
    cl_context ctx = clCreateContext (props, 1, &id, nullptr, nullptr, &err);
    check (err == CL_SUCCESS, "a second context on the device");
    if (err == CL_SUCCESS) {
      auto other_dev = std::make_shared<afet::Device> (device->platform (),
          id, device->info (), ctx);
      afet::DeltaStage delta2;
      std::shared_ptr<afet::ContextCombiner> cd2;
      std::shared_ptr<afet::ChainCombiner> mixed;
      st = delta2.init (other_dev, d);
      if (st.ok ())
        st = afet::ContextCombiner::get (other_dev, delta2, dx, DIMS, &cd2);
      check (st.ok (), "a delta combiner on the second context");
      if (st.ok ()) {
        st = afet::ChainCombiner::get (front, { cd2, cc },
            afet::ChainCombiner::RowsBetween::DEVICE, &mixed);
        check (!st.ok () && !mixed, "stages on two contexts refused with "
            "the rows on the device (" + st.message () + ")");
        st = afet::ChainCombiner::get (front, { cd2, cc },
            afet::ChainCombiner::RowsBetween::HOST, &mixed);
        check (st.ok () && mixed, "and taken with the rows through the "
            "host");
      }
    }
  }

  /* a round whose rows do not follow from the stage before, or that a
   * lane cannot hold, is refused before anything runs */
  std::vector<float> frames (W, 1.0f), out ((size_t) 64 * DIMS);
  afet::ChainCombiner::Call bad;
  bad.frames = frames.data ();
  bad.n = 1;
  bad.front_out = out.data ();
  bad.steps[0].lane = bad.steps[1].lane = 0;
  bad.steps[0].m = 2;
  bad.steps[0].out = bad.steps[1].out = out.data ();
  check (!chain->compute (&bad, nullptr).ok (), "rows the stage before does "
      "not make refused");
  bad.steps[0].m = 1;
  bad.steps[0].first_row = cd->ring () + 100;
  check (!chain->admit (bad).ok (), "rows beyond a lane refused");
  return enginecheck::finish ();
}
