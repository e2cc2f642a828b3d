/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* Small OpenCL helpers shared by the stages (engine-internal). */

#include "device.h"
#include "transfer.h"

#include <functional>
#include <string>

namespace afet {

Status cl_fail (const char *what, cl_int err);

/* A device buffer of bytes (at least 4), filled from host if given. */
Status make_buffer (cl_context ctx, cl_mem_flags flags, size_t bytes,
    const void *host, ClMem *out);

/* The work-group size the stages use: 64, or less if the device has less. */
size_t pick_local_size (const Device &device);

/* A kernel of one embedded program, built (or taken from the caches) with
 * options. */
Status make_kernel (Device &device, const char *prog_name, const char *source,
    const char *sha256, const std::string &options, const char *kernel_name,
    ClKernel *out);

/* Sets kernel arguments from a list of values of any type:
 *   ArgSetter a (k); a (buf) ((cl_uint) n) (x); a.status ("name"); */
class ArgSetter
{
public:
  explicit ArgSetter (cl_kernel k) : k_ (k) {}
  template <typename T>
  ArgSetter &operator() (const T &v)
  {
    if (err_ == CL_SUCCESS)
      err_ = clSetKernelArg (k_, idx_, sizeof (T), &v);
    idx_++;
    return *this;
  }
  Status status (const char *name) const;

private:
  cl_kernel k_;
  cl_uint idx_ = 0;
  cl_int err_ = CL_SUCCESS;
};

/* The queue a stage works on: the one it was given, else a new one of its
 * own kept in own. */
Status use_queue (Device &device, cl_command_queue given, ClQueue *own,
    cl_command_queue *out);

/* Host-to-host runs of a stage (tests, benchmarks): n frames in batches of
 * at most max_batch; enqueue (done, b, staging) computes frames done ..
 * done + b - 1 into row 0.. of a staging buffer (made on first use in
 * staging), which is then downloaded to out (dims floats a frame). */
Status run_host_batches (Device &device, cl_command_queue q, ClMem *staging,
    long long n, int max_batch, int dims, float *out, TransferStats *stats,
    const std::function<Status (long long done, int b, cl_mem staging)> &
    enqueue);

/* Enqueues groups work-groups of lsz work-items (1-D). */
Status launch (cl_command_queue q, cl_kernel k, size_t groups, size_t lsz,
    const char *name);

}  /* namespace afet */
