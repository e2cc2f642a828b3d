/* afet-launch-cost: what one launch costs the CPU on an OpenCL device,
 * whatever it computes (the cost a live stream pays per buffer).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A tiny kernel (16 work-items) is launched ITERS times, each followed by a
 * wait, with the host asleep GAP_US between launches as a live element is
 * between buffers; the process' CPU time (user + sys) per launch is printed
 * for: the kernel then clFinish; a blocking upload, the kernel and a blocking
 * download; the same three enqueued without blocking and one clFinish.
 *
 *   afet-launch-cost [GAP_US] [ITERS]     (defaults 10000, 500)
 */
#include "device.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

static double
cpu_seconds ()
{
  rusage r;
  getrusage (RUSAGE_SELF, &r);
  return r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec +
      r.ru_stime.tv_usec) / 1e6;
}

int
main (int argc, char **argv)
{
  const int gap = argc > 1 ? atoi (argv[1]) : 10000;
  const int iters = argc > 2 ? atoi (argv[2]) : 500;
  std::shared_ptr<afet::Device> dev;
  afet::Status st = afet::acquire_device ("auto", &dev);
  if (!st.ok ()) {
    std::fprintf (stderr, "%s\n", st.message ().c_str ());
    return 1;
  }
  static const char *src = "__kernel void k (__global const float *a, "
      "__global float *b) { size_t i = get_global_id (0); b[i] = 2 * a[i]; }";
  cl_program prog;
  st = dev->program ("launch-cost", src, "", &prog);
  afet::ClQueue q;
  if (st.ok ())
    st = dev->create_queue (&q);
  if (!st.ok ()) {
    std::fprintf (stderr, "%s\n", st.message ().c_str ());
    return 1;
  }
  cl_int err;
  cl_kernel k = clCreateKernel (prog, "k", &err);
  cl_mem a = clCreateBuffer (dev->context (), CL_MEM_READ_WRITE, 4096,
      nullptr, &err);
  cl_mem b = clCreateBuffer (dev->context (), CL_MEM_READ_WRITE, 4096,
      nullptr, &err);
  clSetKernelArg (k, 0, sizeof a, &a);
  clSetKernelArg (k, 1, sizeof b, &b);
  std::vector<float> h (1024, 1.0f), o (1024);
  const size_t g = 16, l = 1;
  std::printf ("device: %s; %d launches, %d us apart\n",
      dev->info ().describe ().c_str (), iters, gap);
  const char *what[] = { "kernel, clFinish",
    "blocking upload, kernel, blocking download",
    "upload, kernel, download without blocking, one clFinish" };
  for (int mode = 0; mode < 3; mode++) {
    for (int pass = 0; pass < 2; pass++) {      /* the first warms up */
      const double c0 = cpu_seconds ();
      for (int i = 0; i < iters; i++) {
        cl_bool blocking = mode == 1 ? CL_TRUE : CL_FALSE;
        if (mode > 0)
          clEnqueueWriteBuffer (q.get (), a, blocking, 0, 4096, h.data (), 0,
              nullptr, nullptr);
        clEnqueueNDRangeKernel (q.get (), k, 1, nullptr, &g, &l, 0, nullptr,
            nullptr);
        if (mode > 0)
          clEnqueueReadBuffer (q.get (), b, blocking, 0, 64, o.data (), 0,
              nullptr, nullptr);
        if (mode != 1)
          clFinish (q.get ());
        usleep (gap);
      }
      if (pass == 1)
        std::printf ("  %-58s %6.1f us of CPU a launch\n", what[mode],
            (cpu_seconds () - c0) / iters * 1e6);
    }
  }
  clReleaseMemObject (a);
  clReleaseMemObject (b);
  clReleaseKernel (k);
  return 0;
}
