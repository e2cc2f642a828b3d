/* Host <-> device copies (upload, download) and their counters for one
 * element (TransferStats), which the elements show as properties.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fault.h"
#include "profile.h"
#include "status.h"

#include <CL/cl.h>

#include <atomic>
#include <cstdint>

namespace afet {

/* Host <-> device traffic of one element: every copy between host and
 * device memory goes through upload() / download() below and is counted
 * here. The elements expose it as read-only properties. */
struct TransferStats
{
  std::atomic<uint64_t> uploads { 0 };
  std::atomic<uint64_t> upload_bytes { 0 };
  std::atomic<uint64_t> downloads { 0 };
  std::atomic<uint64_t> download_bytes { 0 };
};

/* Host to device; done (when not null) gets an event for the copy, which
 * the caller releases; the copy starts after the n_wait events wait. */
inline Status
upload (cl_command_queue q, cl_mem dst, size_t offset, size_t bytes,
    const void *src, bool blocking, TransferStats *stats,
    cl_event *done = nullptr, cl_uint n_wait = 0,
    const cl_event *wait = nullptr)
{
  if (bytes == 0)
    return Status::Ok ();
  cl_event timed = nullptr;
  cl_int err = injected_fault (FaultSite::ENQUEUE);
  if (err == CL_SUCCESS)
    err = clEnqueueWriteBuffer (q, dst, blocking ? CL_TRUE : CL_FALSE,
        offset, bytes, src, n_wait, wait, done ? done : profiling () ?
        &timed : nullptr);
  if (err == CL_SUCCESS && profiling ())
    profile_note ("upload", done ? *done : timed);
  if (timed)
    clReleaseEvent (timed);
  if (err != CL_SUCCESS)
    return Status (Status::OPENCL, std::string ("upload of ") +
        std::to_string (bytes) + " bytes: " + cl_error_name (err) + " (" +
        cl_error_advice (err) + ")");
  if (stats) {
    stats->uploads++;
    stats->upload_bytes += bytes;
  }
  return Status::Ok ();
}

/* Blocking (returns when the data is on the host), unless done is given:
 * then it only enqueues the copy and done gets its event, which the caller
 * waits for and releases. */
inline Status
download (cl_command_queue q, cl_mem src, size_t offset, size_t bytes,
    void *dst, TransferStats *stats, cl_event *done = nullptr)
{
  if (bytes == 0)
    return Status::Ok ();
  cl_event timed = nullptr;
  cl_int err = injected_fault (FaultSite::ENQUEUE);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer (q, src, done ? CL_FALSE : CL_TRUE, offset,
        bytes, dst, 0, nullptr, done ? done : profiling () ? &timed :
        nullptr);
  if (err == CL_SUCCESS && profiling ())
    profile_note ("download", done ? *done : timed);
  if (timed)
    clReleaseEvent (timed);
  if (err != CL_SUCCESS)
    return Status (Status::OPENCL, std::string ("download of ") +
        std::to_string (bytes) + " bytes: " + cl_error_name (err) + " (" +
        cl_error_advice (err) + ")");
  if (stats) {
    stats->downloads++;
    stats->download_bytes += bytes;
  }
  return Status::Ok ();
}

}  /* namespace afet */
