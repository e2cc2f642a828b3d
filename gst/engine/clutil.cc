/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "clutil.h"
#include "transfer.h"

#include <algorithm>

namespace afet {

Status
cl_fail (const char *what, cl_int err)
{
  return Status (Status::OPENCL, std::string (what) + ": " +
      cl_error_name (err) + " (" + cl_error_advice (err) + ")");
}

Status
make_buffer (cl_context ctx, cl_mem_flags flags, size_t bytes,
    const void *host, ClMem *out)
{
  cl_int err = CL_SUCCESS;
  if (bytes == 0)
    bytes = 4;
  cl_mem m = nullptr;
  err = injected_fault (FaultSite::ALLOC);
  if (err == CL_SUCCESS)
    m = clCreateBuffer (ctx, flags | (host ? CL_MEM_COPY_HOST_PTR : 0),
        bytes, const_cast<void *> (host), &err);
  if (err != CL_SUCCESS)
    return cl_fail ("clCreateBuffer", err);
  out->reset (m);
  return Status::Ok ();
}

size_t
pick_local_size (const Device &device)
{
  size_t lsz = 64;
  while (lsz > 1 && lsz > device.info ().max_work_group_size)
    lsz >>= 1;
  return lsz;
}

Status
make_kernel (Device &device, const char *prog_name, const char *source,
    const char *sha256, const std::string &options, const char *kernel_name,
    ClKernel *out)
{
  cl_program prog = nullptr;
  AFET_RETURN_IF_ERROR (device.program (prog_name, source, options, &prog,
          sha256));
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel (prog, kernel_name, &err);
  if (err != CL_SUCCESS)
    return cl_fail ("clCreateKernel", err);
  out->reset (k);
  return Status::Ok ();
}

Status
ArgSetter::status (const char *name) const
{
  if (err_ != CL_SUCCESS)
    return Status (Status::OPENCL, std::string ("clSetKernelArg (") + name +
        ", " + std::to_string (idx_) + "): " + cl_error_name (err_));
  return Status::Ok ();
}

Status
use_queue (Device &device, cl_command_queue given, ClQueue *own,
    cl_command_queue *out)
{
  if (given) {
    *out = given;
    return Status::Ok ();
  }
  AFET_RETURN_IF_ERROR (device.create_queue (own));
  *out = own->get ();
  return Status::Ok ();
}

Status
run_host_batches (Device &device, cl_command_queue q, ClMem *staging,
    long long n, int max_batch, int dims, float *out, TransferStats *stats,
    const std::function<Status (long long, int, cl_mem)> &enqueue)
{
  if (!*staging)
    AFET_RETURN_IF_ERROR (make_buffer (device.context (), CL_MEM_READ_WRITE,
            (size_t) max_batch * dims * sizeof (float), nullptr, staging));
  for (long long done = 0; done < n;) {
    int b = (int) std::min<long long> (n - done, max_batch);
    AFET_RETURN_IF_ERROR (enqueue (done, b, staging->get ()));
    AFET_RETURN_IF_ERROR (download (q, staging->get (), 0,
            (size_t) b * dims * sizeof (float), out + done * dims, stats));
    done += b;
  }
  return Status::Ok ();
}

Status
launch (cl_command_queue q, cl_kernel k, size_t groups, size_t lsz,
    const char *name)
{
  size_t global = groups * lsz;
  cl_int err = injected_fault (FaultSite::ENQUEUE);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel (q, k, 1, nullptr, &global, &lsz, 0,
        nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ((std::string ("enqueue ") + name).c_str (), err);
  return Status::Ok ();
}

}  /* namespace afet */
