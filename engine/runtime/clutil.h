/* Small OpenCL helpers shared by the stages (engine-internal): error
 * statuses, buffers, kernels, queues, staged host copies and launches.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once


#include "device.h"
#include "transfer.h"

#include <functional>
#include <memory>
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

/* Whether host copies of a device go through pinned staging memory, so
 * that they run asynchronously: everywhere unless AFET_STAGING is "never"
 * (blocking copies from pageable memory). On CPU devices "pinned" memory is
 * plain host memory and a blocking copy costs a wake-up of the driver's
 * threads (a live stream on PoCL: about 0.5 % of a core); on an H100
 * staging makes the MFCC stage alone faster (16-bit samples, 10 h, batch
 * 131072: 0.156 -> 0.071 s) and 10 h of long files to HTK files about 20 %
 * faster. Its memory comes from the device's pool (Device::take_pinned):
 * allocated per element instance it made pipelines built per file slower
 * (600 short files: 0.56 -> 2.8 s); see docs/benchmarks.md. */
bool use_staging (const Device &device);

/* Whether host-to-host runs (SpectralStage::run_samples) upload on a
 * queue of their own, so that a batch's upload overlaps the kernels of the
 * one before (FramingKernel::set_copy_queue): on GPUs, whose copy engines
 * run beside the kernels (an H100, 10 h of 16-bit samples: from
 * page-locked memory 37 -> 22 ms, through staging 41 -> 38 ms); not on CPU
 * devices, where the copy takes the cores the kernels use (PoCL here: no
 * faster). AFET_COPY_QUEUE=always or never overrides it (the tests run it
 * on PoCL). */
bool use_copy_queue (const Device &device);

/* memcpy, split over up to 12 threads (and the cores there are;
 * AFET_COPY_THREADS sets the number) in parts of at least 2 MiB (a batch
 * into or out of pinned staging memory: one thread copies about 8 GB/s,
 * the device's link takes several times that; with parts of 8 MiB a 42 MB
 * batch took 5 threads, and the MFCC stage from the host on an H100 80-97
 * ms where 2 MiB parts give 52-65 ms). The helpers are started once and
 * kept (a thread started per copy cost the stage 4-10 ms of 50 on an
 * H100; 12 threads gave 40-42 ms where 8 gave 44-50 and 16 41-43); while
 * one copy uses them, another copies on its own thread. */
void copy_host (void *dst, const void *src, size_t bytes);

class PinnedHost;

/* What run_host_batches keeps between calls: two result buffers on the
 * device and, when staged, their pinned host copies. */
struct HostRunBuffers
{
  ClMem device[2];
  std::unique_ptr<PinnedHost> host[2];
};

/* Host-to-host runs of a stage (tests, benchmarks): n frames in batches of
 * at most max_batch; enqueue (done, b, result) computes frames done ..
 * done + b - 1 into row 0.. of a device result buffer, which is then
 * copied to out (dims floats a frame). Staged (use_staging), two batches
 * are in flight: a batch's results are copied out while the next one
 * computes. out_pinned: out is page-locked memory (PinnedHost's data),
 * into which the results are read straight, without waiting until the
 * end. */
Status run_host_batches (Device &device, cl_command_queue q,
    HostRunBuffers *buffers, long long n, int max_batch, int dims,
    float *out, TransferStats *stats,
    const std::function<Status (long long done, int b, cl_mem result)> &
    enqueue, bool out_pinned = false);

/* Host memory the device reads (or writes) at full speed: an
 * ALLOC_HOST_PTR buffer kept mapped for its lifetime, which NVIDIA's driver
 * pins (page-locked). Copies to a device buffer from it can be
 * asynchronous. */
class PinnedHost
{
public:
  PinnedHost () = default;
  PinnedHost (const PinnedHost &) = delete;
  PinnedHost &operator= (const PinnedHost &) = delete;
  ~PinnedHost ();
  Status init (Device &device, size_t bytes);
  void *data () const { return ptr_; }
  size_t size () const { return bytes_; }
  /* The copy now using the memory (its event, owned from here on): wait ()
   * and the destructor wait for it. */
  void set_busy (cl_event copy) { busy_.reset (copy); }
  Status wait ();

private:
  ClEvent busy_;
  ClQueue queue_;       /* for the map and the unmap only */
  ClMem mem_;
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
};

/* Enqueues groups work-groups of lsz work-items (1-D).
 *
 * On PoCL's CPU devices before PoCL 7.0 the launches of one kernel form a
 * chain across all queues: each waits for the one before (an event in its
 * wait list), so that no two run at once. Such PoCL keeps, per kernel and
 * work-group size, one loaded copy of the kernel per grid width wider than
 * those before; a launch takes the first copy wide enough, but at its end
 * releases the first copy of that kernel and work-group size in its list,
 * whichever it took. With launches of one kernel running on several queues,
 * one wider than all before lands on a new copy at the head of the list,
 * the others' ends release it too, and PoCL aborts
 * ("pocl_release_dlhandle_cache: Assertion 'found->ref_count > 0'
 * failed"; afet-extract -j 4 about 1 run in 150). One launch of a kernel at
 * a time takes and releases the same copy. Kernels, not queues, wait: other
 * kernels still run beside it, and PoCL spreads each launch over all cores.
 * The cause is in PoCL 3.1's lib/CL/devices/common.c (pocl_release_dlhandle_
 * cache looks the copy up by kernel hash and local size only); PoCL 7.0 keeps
 * the copy a launch took with the launch (upstream commit c9ac4c0c3, "fix
 * dlhandle cache", June 2024, for aborts with one kernel run from many
 * threads at different sizes). tests/engine/test_launch_order.cc. */
Status launch (cl_command_queue q, cl_kernel k, size_t groups, size_t lsz,
    const char *name);

/* Runs enqueue, which puts a library's kernels on q (VkFFT's, CLBlast's),
 * in the chain of that library's launches where launch () chains (PoCL's
 * CPU devices before 7.0): a barrier on the chain's last launch first, a
 * marker after that becomes the chain's last. Elsewhere only enqueue (). */
Status chained_launches (cl_command_queue q, const char *library,
    const std::function<Status ()> &enqueue);

}  /* namespace afet */
