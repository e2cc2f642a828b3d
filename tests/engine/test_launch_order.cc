/* Stress test of launches of one kernel from many queues at once (PoCL
 * before 7.0 aborted in pocl_release_dlhandle_cache); no GStreamer.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Eight threads, each with a queue of its own, launch one kernel (one
 * program, reqd_work_group_size as afet's kernels have it) through
 * afet::launch, each launch a little wider than any before now and then,
 * with a launch of another kernel of the program in between. On PoCL 3.1
 * without launch_order's chains (engine/runtime/clutil.h) this aborted with
 * "pocl_release_dlhandle_cache: Assertion 'found->ref_count > 0' failed"
 * in 16 of 20 single rounds (a tenth of a second each) and in every run
 * of the 25 rounds here (about 4 s with the chains). It then checks the
 * results, so that the chains change nothing but the order. On other
 * devices it runs the same (their launches are not chained). */
#include "enginecheck.h"
#include "clutil.h"

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

using enginecheck::check;

/* w: the kernel under test, in groups of 8; spin: a kernel of the same
 * program with a single work-item, which keeps a queue away from w for a
 * moment */
static const char *source =
    "__kernel __attribute__ ((reqd_work_group_size (8, 1, 1)))\n"
    "void w (__global int *out, int n)\n"
    "{\n"
    "  int i = get_global_id (0);\n"
    "  if (i < n)\n"
    "    out[i] = i + 1;\n"
    "}\n"
    "__kernel void spin (__global int *out, int n)\n"
    "{\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < n; i++)\n"
    "    s += i * out[0];\n"
    "  if (s == 7)\n"
    "    out[1] = s;\n"
    "}\n";

int
main ()
{
  std::shared_ptr<afet::Device> device;
  if (!enginecheck::open_device (&device))
    return 1;
  cl_program prog = nullptr;
  afet::Status st = device->program ("launch-order", source, "", &prog);
  check (st.ok (), "the stress program builds: " + st.message ());
  if (!st.ok ())
    return enginecheck::finish ();

  const int threads = 8, launches = 300, rounds = 25;
  std::atomic<size_t> widest (1);
  std::atomic<int> errors (0), wrong (0);
  for (int round = 0; round < rounds; round++) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
      pool.emplace_back ([&, t] {
        afet::ClQueue q;
        afet::ClKernel w, spin;
        afet::ClMem out;
        cl_int err = CL_SUCCESS;
        if (!device->create_queue (&q).ok ()) {
          errors++;
          return;
        }
        w.reset (clCreateKernel (prog, "w", &err));
        spin.reset (clCreateKernel (prog, "spin", &err));
        const size_t cap = 8 * 65536;
        if (!afet::make_buffer (device->context (), CL_MEM_READ_WRITE,
                cap * sizeof (cl_int), nullptr, &out).ok () || !w || !spin) {
          errors++;
          return;
        }
        const cl_int n = 1, spins = 10000;
        afet::ArgSetter (w.get ()) (out.get ()) (n);
        afet::ArgSetter (spin.get ()) (out.get ()) (spins);
        unsigned r = (unsigned) (t * 7919 + round + 1);
        for (int i = 0; i < launches; i++) {
          r = r * 1103515245u + 12345u;
          /* one launch in 5 wider than all before it: PoCL 3.1 loads the
           * kernel again for it (a new entry of its cache of loaded
           * kernels) */
          size_t groups = (r >> 16) % 5 == 0 ? widest.fetch_add (1) :
              1 + (r >> 8) % widest.load ();
          groups = std::min (groups, (size_t) 65536);
          if (!afet::launch (q.get (), w.get (), groups, 8, "w").ok () ||
              !afet::launch (q.get (), spin.get (), 1, 1, "spin").ok ())
            errors++;
        }
        cl_int got[2] = { 0, 0 };
        err = clEnqueueReadBuffer (q.get (), out.get (), CL_TRUE, 0,
            sizeof (got), got, 0, nullptr, nullptr);
        if (err != CL_SUCCESS)
          errors++;
        else if (got[0] != 1)
          wrong++;
      });
    for (auto &th : pool)
      th.join ();
  }
  std::printf ("%d rounds of %d threads x %d launches, widest %zu groups\n",
      rounds, threads, launches, widest.load ());
  check (errors.load () == 0, "every queue, kernel and launch was made");
  check (wrong.load () == 0, "every queue's results are right");
  return enginecheck::finish ();
}
