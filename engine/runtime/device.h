/* afet::Device, one OpenCL device shared by the whole process (its context,
 * compiled programs and pinned host memory), and how a device request chooses
 * one.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "clhandle.h"
#include "status.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace afet {

class PinnedHost;

/* What identifies and describes one OpenCL device. */
struct DeviceInfo
{
  int platform_index = -1;
  int device_index = -1;
  std::string platform_name;
  std::string device_name;
  std::string driver_version;
  std::string device_version;
  std::string platform_version;
  std::string platform_vendor;  /* CL_PLATFORM_VENDOR */
  std::string device_vendor;    /* CL_DEVICE_VENDOR */
  bool is_gpu = false;
  bool is_cpu = false;
  size_t max_work_group_size = 0;
  unsigned compute_units = 0;
  size_t max_alloc_bytes = 0;   /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
  size_t local_mem_bytes = 0;   /* CL_DEVICE_LOCAL_MEM_SIZE (0: unknown) */
  /* CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT: 16 for AVX-512, 8 for AVX2,
   * 4 for NEON (the CPU front's frames a work-item, vframes.h) */
  unsigned float_vector_width = 1;

  /* The most frames of row_bytes each that one buffer can hold (at least
   * 1), up to want: how far a batch size is clamped on this device. */
  int batch_limit (size_t row_bytes, int want) const;

  /* "NVIDIA H100 80GB HBM3 (GPU, platform 0 device 0, NVIDIA CUDA, driver 550.x)" */
  std::string describe () const;
};

/* One OpenCL device (with its cl_context), shared by every element and
 * pipeline of the process (see acquire_device()). It also keeps the
 * compiled programs, so that a second element does not compile the same
 * source again. Kernels and FFT plans are not shared: each user creates its
 * own; elements' queues are shared beyond kElementQueues (element_queue). */
class Device
{
public:
  ~Device ();

  const DeviceInfo &info () const { return info_; }
  cl_platform_id platform () const { return platform_; }
  cl_device_id device () const { return device_; }
  cl_context context () const { return context_.get (); }

  /* A new in-order command queue on this device (owned by the caller). */
  Status create_queue (ClQueue *out) const;

  /* An element's in-order queue (out holds a reference of its own): a
   * pooled queue no element holds, else a new one while the pool has fewer
   * than kElementQueues, else the pooled queue with the fewest holders
   * (its reference count less the pool's). A GPU driver makes a queue
   * under a lock of the whole context that every launch in flight holds
   * (NVIDIA's OpenCL: the thread starting 2500 live pipelines waited there
   * most of its time while the others ran), so thousands of live streams,
   * which compute through the combiners' queues and use their own for
   * little more than setting up, do not each make one; a few dozen
   * pipelines at once (afet-extract -j 8: 24 elements) still get one each,
   * and a pipeline built again takes a queue another let go. Commands of
   * one element keep their order on a shared queue; a clFinish or
   * blocking read there also waits for the other holders' earlier
   * commands (live streams beyond 64 elements that do not combine, as
   * combine-streams=false, wait for each other's). */
  Status element_queue (ClQueue *out);
  static constexpr size_t kElementQueues = 64;

  /* Builds (or returns the already built) program for one embedded kernel
   * source with the given build options. Thread-safe. The returned program
   * stays owned by the device; kernels created from it are the caller's.
   *
   * A program not yet built in this process is looked up in the on-disk
   * cache (cache.h) first, keyed by the source's SHA-256, the options and
   * cache_identity(); a program compiled from source is stored there.
   * source_sha256: the source's SHA-256 in hex as kernels/embed.py writes
   * it (kernels::<name>_sha256); computed here when nullptr. */
  Status program (const char *name, const char *source,
      const std::string &options, cl_program *out,
      const char *source_sha256 = nullptr);

  /* Whether a program built from source goes to afet's on-disk cache. On
   * PoCL, taking the binary out makes PoCL compile every kernel of the
   * program (0.3-0.4 s each on the 2-core machine), so there a program is
   * stored only when it holds one kernel (make_kernel builds one kernel a
   * program there: one_kernel_programs), or when PoCL keeps no cache of
   * its own (POCL_KERNEL_CACHE=0). Loading a stored binary spares PoCL
   * its preprocessing of the source to find its own cache entry
   * (afet-extract's start-up on the 2-core machine: 0.09-0.16 s, 0.05 s
   * from afet's cache).
   * AFET_CACHE_PROGRAMS=always stores every program (tests/engine/test_cache).
   * Cached entries are loaded on every device. */
  bool stores_programs (cl_program built) const;

  /* Whether make_kernel builds a program of the one kernel it makes, from
   * the kernels' files whose kernels are guarded by AFET_ONLY (PoCL: see
   * stores_programs). */
  bool one_kernel_programs () const;

  /* What a compiled binary depends on besides its source and options:
   * platform, device, driver, their vendors and versions, one "field:
   * value" a line. Part of every on-disk cache key made for this device. */
  std::string cache_identity () const;

  /* Whether this driver's program binaries are text (no NUL byte but a
   * run of them at the end, as NVIDIA's PTX): 1 yes, 0 no, -1 not known yet.
   * Learnt from the binaries program() stores in or loads from the on-disk
   * cache. VkFFT 1.2.26 can save only such binaries (fft.cc). */
  int binaries_are_text () const { return binaries_text_.load (); }
  /* Internal: what fft.cc found out from VkFFT's saved string. */
  void note_binaries_are_text (bool text) { binaries_text_.store (text); }

  /* Internal: use acquire_device(). */
  Device (cl_platform_id platform, cl_device_id device, DeviceInfo info,
      cl_context context);

  /* Pinned host memory (staging) a stage gave back, for the next stage that
   * needs at least bytes and at most twice that: allocating, pinning and
   * mapping it costs milliseconds on NVIDIA's driver, which a pipeline
   * built for every file would otherwise pay for each. null: none kept. */
  std::unique_ptr<PinnedHost> take_pinned (size_t bytes);
  /* Keeps p (no copy may still use it) for take_pinned, up to
   * kKeptPinnedBytes in all; beyond that it is freed. */
  void give_pinned (std::unique_ptr<PinnedHost> p);
  static constexpr size_t kKeptPinnedBytes = 256u << 20;

private:
  Status build_from_source (const char *name, const char *source,
      const std::string &options, ClProgram *out);
  bool build_from_binary (const char *name,
      const std::vector<unsigned char> &binary, const std::string &options,
      ClProgram *out);
  void note_binary_format (const std::vector<unsigned char> &bin);

  cl_platform_id platform_;
  cl_device_id device_;
  DeviceInfo info_;
  ClContext context_;
  std::mutex programs_lock_;
  std::map<std::string, ClProgram> programs_;
  std::atomic<int> binaries_text_ { -1 };
  /* after context_: freed before it */
  std::mutex element_queues_lock_;
  std::vector<ClQueue> element_queues_;
  size_t element_creating_ = 0;  /* made outside the lock just now */
  std::mutex pinned_lock_;
  std::multimap<size_t, std::unique_ptr<PinnedHost>> pinned_;
  size_t pinned_bytes_ = 0;
};

/* Fails with FORKED in a process forked (fork() without exec) from one that
 * had already used OpenCL here: the driver's contexts and queues are copied
 * into the child but not its threads (PoCL's workers), so the child's first
 * command would wait for them forever. OK in the process that used OpenCL
 * first, and in a child forked before any use. list_devices() and
 * acquire_device() check it before touching OpenCL. */
Status check_not_forked ();

/* Lists every OpenCL device of every platform. Fails with NO_PLATFORM when no
 * ICD is installed. */
Status list_devices (std::vector<DeviceInfo> *out);

/* Resolves a device request and returns the process-wide shared Device for
 * it, creating it (and its cl_context) on first use.
 *
 * request: "auto" (or empty) = AFET_DEVICE from the environment if set, else
 * the first GPU, else the first CPU device; "gpu"; "cpu"; "P:D" (platform and
 * device indices as listed by clinfo -l); anything else is matched
 * case-insensitively as a substring of the device name, then of the platform
 * name.
 *
 * created is set to true when this call created the Device (so the caller
 * can log the choice exactly once). Devices live until process exit. */
Status acquire_device (const std::string &request,
    std::shared_ptr<Device> *out, bool *created = nullptr);

/* The request acquire_device() resolves "auto" to: AFET_DEVICE if set and not
 * empty, else "auto". */
std::string effective_device_request (const std::string &request);

}  /* namespace afet */
