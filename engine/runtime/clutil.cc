/* Small OpenCL helpers shared by the stages (clutil.h): error statuses,
 * buffers, kernels, queues, staged host copies and launches.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "clutil.h"
#include "profile.h"
#include "transfer.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>
#include <vector>

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
  /* PoCL: a program of this kernel alone, from the files that guard their
   * kernels with AFET_ONLY (Device::stores_programs) */
  std::string only = std::string ("AFET_ONLY_") + kernel_name;
  if (device.one_kernel_programs () && std::strstr (source, only.c_str ())) {
    AFET_RETURN_IF_ERROR (device.program (prog_name, source, options +
            " -DAFET_ONLY -D" + only, &prog, sha256));
  } else {
    AFET_RETURN_IF_ERROR (device.program (prog_name, source, options, &prog,
            sha256));
  }
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

bool
use_staging (const Device &device)
{
  const char *env = std::getenv ("AFET_STAGING");
  if (env && (std::strcmp (env, "always") == 0 ||
          std::strcmp (env, "gpu") == 0))
    return true;
  (void) device;
  return !(env && std::strcmp (env, "never") == 0);
}

bool
use_copy_queue (const Device &device)
{
  const char *env = std::getenv ("AFET_COPY_QUEUE");
  if (env && std::strcmp (env, "always") == 0)
    return true;
  if (env && std::strcmp (env, "never") == 0)
    return false;
  return !device.info ().is_cpu;
}

namespace {

/* Worker threads for copy_host, started on its first large copy and kept
 * for the process (never destroyed: no thread outlives what it uses).
 * One copy at a time uses them; a second caller meanwhile copies alone.
 * A copy is a Round on its caller's stack: a helper joins it under the
 * lock (active) and leaves it under the lock, and the caller returns only
 * once every part is done and no helper is in it, so that a helper late
 * for one round can never touch it after it ended nor take a part of the
 * next one on the old round's terms. */
class CopyPool
{
public:
  explicit CopyPool (size_t workers)
  {
    for (size_t i = 0; i < workers; i++) {
      try {
        std::thread (&CopyPool::work, this).detach ();
        workers_++;
      } catch (const std::system_error &) {
        break;                  /* fewer helpers */
      }
    }
  }
  size_t workers () const { return workers_; }

  /* false: another copy holds the pool */
  bool copy (char *dst, const char *src, size_t bytes, size_t parts)
  {
    std::unique_lock<std::mutex> busy (busy_, std::try_to_lock);
    if (!busy.owns_lock ())
      return false;
    Round r;
    r.dst = dst;
    r.src = src;
    r.bytes = bytes;
    r.step = (bytes / parts + 63) & ~(size_t) 63;
    r.parts = (bytes + r.step - 1) / r.step;
    r.left = r.parts;
    {
      std::lock_guard<std::mutex> l (m_);
      cur_ = &r;
      round_++;
    }
    wake_.notify_all ();
    const size_t finished = run_parts (r);
    std::unique_lock<std::mutex> l (m_);
    r.left -= finished;
    done_.wait (l, [&r] { return r.left == 0 && r.active == 0; });
    cur_ = nullptr;
    return true;
  }

private:
  struct Round
  {
    char *dst = nullptr;
    const char *src = nullptr;
    size_t bytes = 0, step = 1, parts = 0;
    std::atomic<size_t> next { 0 };
    size_t left = 0;            /* parts not yet done (under m_) */
    size_t active = 0;          /* helpers in the round (under m_) */
  };

  /* takes r's parts until none is left; how many it took */
  static size_t run_parts (Round &r)
  {
    size_t finished = 0;
    for (size_t i; (i = r.next.fetch_add (1)) < r.parts;) {
      const size_t off = i * r.step;
      std::memcpy (r.dst + off, r.src + off, std::min (r.step, r.bytes - off));
      finished++;
    }
    return finished;
  }
  void work ()
  {
    unsigned long long seen = 0;
    for (;;) {
      Round *r;
      {
        std::unique_lock<std::mutex> l (m_);
        wake_.wait (l, [&] { return round_ != seen && cur_; });
        seen = round_;
        r = cur_;
        r->active++;
      }
      const size_t finished = run_parts (*r);
      std::lock_guard<std::mutex> l (m_);
      r->left -= finished;
      r->active--;
      if (r->left == 0 && r->active == 0)
        done_.notify_one ();
    }
  }

  std::mutex busy_;             /* held by the copy in progress */
  std::mutex m_;
  std::condition_variable wake_, done_;
  unsigned long long round_ = 0;
  Round *cur_ = nullptr;        /* the copy in progress (under m_) */
  size_t workers_ = 0;
};

size_t
copy_threads ()
{
  const char *env = std::getenv ("AFET_COPY_THREADS");
  const size_t cores = std::max (1u, std::thread::hardware_concurrency ());
  if (env && std::atoi (env) > 0)
    return (size_t) std::atoi (env);
  return std::min<size_t> (12, cores);
}

}                               /* namespace */

void
copy_host (void *dst, const void *src, size_t bytes)
{
  constexpr size_t kPart = 2u << 20;
  static const size_t threads = copy_threads ();
  const size_t parts = std::min<size_t> (threads, bytes / kPart);
  if (parts >= 2) {
    static CopyPool *pool = new CopyPool (threads - 1);
    if (pool->workers () > 0 && pool->copy ((char *) dst, (const char *) src,
            bytes, std::min (parts, pool->workers () + 1)))
      return;
  }
  std::memcpy (dst, src, bytes);
}

Status
run_host_batches (Device &device, cl_command_queue q,
    HostRunBuffers *buffers, long long n, int max_batch, int dims,
    float *out, TransferStats *stats,
    const std::function<Status (long long, int, cl_mem)> &enqueue,
    bool out_pinned)
{
  /* staged: copied out through pinned memory; out_pinned: read straight
   * into out. Either way two result buffers in turn, two batches in
   * flight. */
  const bool staged = !out_pinned && use_staging (device);
  const int slots = staged || out_pinned ? 2 : 1;
  const size_t batch_bytes = (size_t) max_batch * dims * sizeof (float);
  for (int i = 0; i < slots; i++) {
    if (!buffers->device[i])
      AFET_RETURN_IF_ERROR (make_buffer (device.context (),
              CL_MEM_READ_WRITE, batch_bytes, nullptr, &buffers->device[i]));
    if (staged && !buffers->host[i]) {
      buffers->host[i] = std::make_unique<PinnedHost> ();
      AFET_RETURN_IF_ERROR (buffers->host[i]->init (device, batch_bytes));
    }
  }
  /* staged: where each slot's results go once their copy is done */
  float *dst[2] = { nullptr, nullptr };
  size_t bytes_of[2] = { 0, 0 };
  auto finish = [&](int s) -> Status {
    if (!dst[s])
      return Status::Ok ();
    AFET_RETURN_IF_ERROR (buffers->host[s]->wait ());
    copy_host (dst[s], buffers->host[s]->data (), bytes_of[s]);
    dst[s] = nullptr;
    return Status::Ok ();
  };
  int k = 0;
  for (long long done = 0; done < n; k++) {
    const int s = k % slots;
    const int b = (int) std::min<long long> (n - done, max_batch);
    const size_t bytes = (size_t) b * dims * sizeof (float);
    AFET_RETURN_IF_ERROR (finish (s));
    AFET_RETURN_IF_ERROR (enqueue (done, b, buffers->device[s].get ()));
    if (staged || out_pinned) {
      /* the in-order queue reads a slot's results before the batch after
       * next writes it */
      cl_event ev = nullptr;
      AFET_RETURN_IF_ERROR (download (q, buffers->device[s].get (), 0, bytes,
              staged ? buffers->host[s]->data () : out + done * dims, stats,
              &ev));
      if (staged) {
        buffers->host[s]->set_busy (ev);
        dst[s] = out + done * dims;
        bytes_of[s] = bytes;
      } else {
        clReleaseEvent (ev);
      }
      clFlush (q);
    } else {
      AFET_RETURN_IF_ERROR (download (q, buffers->device[s].get (), 0, bytes,
              out + done * dims, stats));
    }
    done += b;
  }
  if (out_pinned) {
    const cl_int err = clFinish (q);
    return err == CL_SUCCESS ? Status::Ok () : cl_fail ("clFinish", err);
  }
  AFET_RETURN_IF_ERROR (finish (k % 2));
  return finish ((k + 1) % 2);
}

PinnedHost::~PinnedHost ()
{
  wait ();
  if (ptr_) {
    clEnqueueUnmapMemObject (queue_.get (), mem_.get (), ptr_, 0, nullptr,
        nullptr);
    clFinish (queue_.get ());
  }
}

Status
PinnedHost::wait ()
{
  if (!busy_)
    return Status::Ok ();
  cl_event ev = busy_.get ();
  cl_int err = clWaitForEvents (1, &ev);
  busy_.reset ();
  if (err != CL_SUCCESS)
    return cl_fail ("waiting for a copy from staging memory", err);
  return Status::Ok ();
}

Status
PinnedHost::init (Device &device, size_t bytes)
{
  cl_command_queue q = nullptr;
  AFET_RETURN_IF_ERROR (use_queue (device, nullptr, &queue_, &q));
  AFET_RETURN_IF_ERROR (make_buffer (device.context (), CL_MEM_READ_WRITE |
          CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &mem_));
  cl_int err = CL_SUCCESS;
  ptr_ = clEnqueueMapBuffer (q, mem_.get (), CL_TRUE, CL_MAP_READ |
      CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) {
    ptr_ = nullptr;
    return cl_fail ("clEnqueueMapBuffer (staging memory)", err);
  }
  bytes_ = bytes;
  return Status::Ok ();
}

/* ---- launch chains (clutil.h, launch) ---------------------------------- */

namespace {

/* The last launch of a kernel (or of a library's kernels), over all
 * queues. */
struct Chain
{
  std::mutex lock;
  cl_event last = nullptr;
};

/* Whether launches on q's device are chained: PoCL before 7.0, CPU devices
 * (the ones with its cache of loaded kernels). Asked once a device; each
 * thread remembers its last device's answer, so that a launch takes no
 * process-wide lock (every launch of every stream asks). */
bool
chains_launches (cl_command_queue q)
{
  cl_device_id dev = nullptr;
  if (clGetCommandQueueInfo (q, CL_QUEUE_DEVICE, sizeof (dev), &dev,
          nullptr) != CL_SUCCESS || !dev)
    return false;
  thread_local cl_device_id last_dev = nullptr;
  thread_local bool last_chain = false;
  if (dev == last_dev)
    return last_chain;
  bool chain = false;
  {
    static std::mutex lock;
    static std::map<cl_device_id, bool> known;
    std::lock_guard<std::mutex> guard (lock);
    auto it = known.find (dev);
    if (it != known.end ()) {
      chain = it->second;
    } else {
      cl_device_type type = 0;
      cl_platform_id platform = nullptr;
      char version[512] = "";
      if (clGetDeviceInfo (dev, CL_DEVICE_TYPE, sizeof (type), &type,
              nullptr) == CL_SUCCESS && (type & CL_DEVICE_TYPE_CPU) &&
          clGetDeviceInfo (dev, CL_DEVICE_PLATFORM, sizeof (platform),
              &platform, nullptr) == CL_SUCCESS &&
          clGetPlatformInfo (platform, CL_PLATFORM_VERSION,
              sizeof (version) - 1, version, nullptr) == CL_SUCCESS) {
        /* "OpenCL 3.0 PoCL 3.1+debian  Linux, ..." */
        const char *pocl = std::strstr (version, "PoCL ");
        chain = pocl && std::atoi (pocl + 5) < 7;
      }
      known.emplace (dev, chain);
    }
  }
  last_dev = dev;
  last_chain = chain;
  return chain;
}

/* The chain of (owner, name): a program and one of its kernels, or no
 * program and a library. Kept until exit, like the programs. */
Chain &
chain_of (const void *owner, const std::string &name)
{
  static std::mutex lock;
  static auto *chains =
      new std::map<std::pair<const void *, std::string>, Chain> ();
  std::lock_guard<std::mutex> guard (lock);
  return (*chains)[std::make_pair (owner, name)];
}

/* Makes ev (owned from here on) the chain's last launch. */
void
chain_to (Chain &c, cl_event ev)
{
  if (c.last)
    clReleaseEvent (c.last);
  c.last = ev;
}

}  /* namespace */

Status
launch (cl_command_queue q, cl_kernel k, size_t groups, size_t lsz,
    const char *name)
{
  size_t global = groups * lsz;
  cl_event ev = nullptr;
  cl_int err = injected_fault (FaultSite::ENQUEUE);
  if (err == CL_SUCCESS && chains_launches (q)) {
    /* the chain of this kernel: PoCL's copies are per program build and
     * kernel, and each program is built once a device (Device::program) */
    cl_program prog = nullptr;
    char fn[256] = "";
    clGetKernelInfo (k, CL_KERNEL_PROGRAM, sizeof (prog), &prog, nullptr);
    clGetKernelInfo (k, CL_KERNEL_FUNCTION_NAME, sizeof (fn) - 1, fn,
        nullptr);
    Chain &c = chain_of (prog, fn);
    std::lock_guard<std::mutex> guard (c.lock);
    err = clEnqueueNDRangeKernel (q, k, 1, nullptr, &global, &lsz,
        c.last ? 1 : 0, c.last ? &c.last : nullptr, &ev);
    if (err == CL_SUCCESS) {
      profile_note (name, ev);
      chain_to (c, ev);
    }
  } else if (err == CL_SUCCESS) {
    err = clEnqueueNDRangeKernel (q, k, 1, nullptr, &global, &lsz, 0,
        nullptr, profiling () ? &ev : nullptr);
    if (ev) {
      profile_note (name, ev);
      clReleaseEvent (ev);
    }
  }
  if (err != CL_SUCCESS)
    return cl_fail ((std::string ("enqueue ") + name).c_str (), err);
  return Status::Ok ();
}

Status
chained_launches (cl_command_queue q, const char *library,
    const std::function<Status ()> &enqueue)
{
  if (!chains_launches (q))
    return enqueue ();
  Chain &c = chain_of (nullptr, library);
  std::lock_guard<std::mutex> guard (c.lock);
  cl_int err = CL_SUCCESS;
  if (c.last)
    err = clEnqueueBarrierWithWaitList (q, 1, &c.last, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ((std::string ("clEnqueueBarrierWithWaitList (before ") +
            library + ")").c_str (), err);
  Status st = enqueue ();
  /* after whatever enqueue () put on q, even when it failed part way */
  cl_event ev = nullptr;
  err = clEnqueueMarkerWithWaitList (q, 0, nullptr, &ev);
  if (err != CL_SUCCESS)
    return st.ok () ? cl_fail ((std::string ("clEnqueueMarkerWithWaitList "
                "(after ") + library + ")").c_str (), err) : st;
  chain_to (c, ev);
  return st;
}

}  /* namespace afet */
