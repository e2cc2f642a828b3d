/* Devices (device.h): OpenCL devices listed and chosen from a request, their
 * programs built or taken from the caches, pinned host memory, and the advice
 * each OpenCL error comes with.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "device.h"
#include "profile.h"

#include "clutil.h"

#include "cache.h"
#include "fault.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace afet {

const char *
cl_error_advice (int err)
{
  switch (err) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_INVALID_BUFFER_SIZE:
      return "the device is out of memory: lower max-batch, or run fewer "
          "pipelines on this device";
    case CL_OUT_OF_RESOURCES:
      return "the device or its driver ran out of resources: lower "
          "max-batch, check the driver with clinfo, or try device=cpu";
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILER_NOT_AVAILABLE:
    case CL_INVALID_BINARY:
      return "the OpenCL compiler failed: check the driver with clinfo; "
          "AFET_CACHE_DIR=disabled rules out a stale kernel cache";
    default:
      return "check the OpenCL driver with clinfo, or try another device "
          "(device=cpu)";
  }
}

const char *
cl_error_name (int err)
{
  switch (err) {
#define E(x) case x: return #x
    E (CL_SUCCESS);
    E (CL_DEVICE_NOT_FOUND);
    E (CL_DEVICE_NOT_AVAILABLE);
    E (CL_COMPILER_NOT_AVAILABLE);
    E (CL_MEM_OBJECT_ALLOCATION_FAILURE);
    E (CL_OUT_OF_RESOURCES);
    E (CL_OUT_OF_HOST_MEMORY);
    E (CL_BUILD_PROGRAM_FAILURE);
    E (CL_INVALID_VALUE);
    E (CL_INVALID_PLATFORM);
    E (CL_INVALID_DEVICE);
    E (CL_INVALID_CONTEXT);
    E (CL_INVALID_COMMAND_QUEUE);
    E (CL_INVALID_MEM_OBJECT);
    E (CL_INVALID_BUILD_OPTIONS);
    E (CL_INVALID_PROGRAM);
    E (CL_INVALID_PROGRAM_EXECUTABLE);
    E (CL_INVALID_KERNEL_NAME);
    E (CL_INVALID_KERNEL);
    E (CL_INVALID_ARG_INDEX);
    E (CL_INVALID_ARG_VALUE);
    E (CL_INVALID_ARG_SIZE);
    E (CL_INVALID_KERNEL_ARGS);
    E (CL_INVALID_WORK_DIMENSION);
    E (CL_INVALID_WORK_GROUP_SIZE);
    E (CL_INVALID_WORK_ITEM_SIZE);
    E (CL_INVALID_GLOBAL_OFFSET);
    E (CL_INVALID_EVENT_WAIT_LIST);
    E (CL_INVALID_OPERATION);
    E (CL_INVALID_BUFFER_SIZE);
    E (CL_INVALID_GLOBAL_WORK_SIZE);
#undef E
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "unknown OpenCL error";
  }
}

int
DeviceInfo::batch_limit (size_t row_bytes, int want) const
{
  if (max_alloc_bytes == 0 || row_bytes == 0)
    return want;
  size_t fit = max_alloc_bytes / row_bytes;
  return (int) std::max<size_t> (1, std::min<size_t> (fit, (size_t) want));
}

std::string
DeviceInfo::describe () const
{
  std::string s = device_name + " (";
  s += is_gpu ? "GPU" : (is_cpu ? "CPU" : "accelerator");
  s += ", platform " + std::to_string (platform_index) + " device " +
      std::to_string (device_index) + ", " + platform_name + ", driver " +
      driver_version + ")";
  return s;
}

static std::string
device_string (cl_device_id dev, cl_device_info what)
{
  size_t size = 0;
  if (clGetDeviceInfo (dev, what, 0, nullptr, &size) != CL_SUCCESS || !size)
    return std::string ();
  std::string s (size, '\0');
  clGetDeviceInfo (dev, what, size, &s[0], nullptr);
  while (!s.empty () && (s.back () == '\0' || s.back () == ' '))
    s.pop_back ();
  return s;
}

static std::string
platform_string (cl_platform_id p, cl_platform_info what)
{
  size_t size = 0;
  if (clGetPlatformInfo (p, what, 0, nullptr, &size) != CL_SUCCESS || !size)
    return std::string ();
  std::string s (size, '\0');
  clGetPlatformInfo (p, what, size, &s[0], nullptr);
  while (!s.empty () && (s.back () == '\0' || s.back () == ' '))
    s.pop_back ();
  return s;
}

struct Enumerated
{
  cl_platform_id platform;
  cl_device_id device;
  DeviceInfo info;
};

/* The process that first used OpenCL through the engine (0: none yet); a
 * fork() copies it into the child, where getpid () then differs. */
static std::atomic<pid_t> opencl_pid { 0 };

Status
check_not_forked ()
{
  const pid_t first = opencl_pid.load ();
  if (first == 0 || first == getpid ())
    return Status::Ok ();
  return Status (Status::FORKED, "This process was forked from process " +
      std::to_string ((long) first) + " after that process had used OpenCL "
      "(afet's device context): OpenCL does not survive fork() (the "
      "driver's threads are not copied), and using it here would hang. "
      "Start worker processes with the 'spawn' or 'forkserver' method "
      "(Python: multiprocessing.get_context('spawn')), or run afet only in "
      "the workers, not in the parent before it forks.");
}

static Status
enumerate (std::vector<Enumerated> *out)
{
  AFET_RETURN_IF_ERROR (check_not_forked ());
  pid_t none = 0;
  opencl_pid.compare_exchange_strong (none, getpid ());

  /* one thread at a time: ICD loaders and drivers (PoCL) are not safe when
   * two threads list the platforms for the first time at once (pipelines
   * started together on threads with an explicit device failed to find a
   * device, or crashed, there) */
  static std::mutex lock;
  std::lock_guard<std::mutex> guard (lock);
  /* The platforms and devices are those the ICD loader found at the first
   * call, for the life of the process: listed once, with their details
   * (about twenty driver queries a device), and copied at every later call.
   * afet-extract starts every element of every input (three a file, 2400
   * short files) through here, one thread at a time. */
  static std::vector<Enumerated> listed;
  if (!listed.empty ()) {
    *out = listed;
    return Status::Ok ();
  }
  cl_uint n_platforms = 0;
  cl_int err = clGetPlatformIDs (0, nullptr, &n_platforms);
  if (err != CL_SUCCESS || n_platforms == 0) {
    return Status (Status::NO_PLATFORM,
        std::string ("No OpenCL platform found (clGetPlatformIDs: ") +
            cl_error_name (err) + "). Install an OpenCL driver (ICD): "
            "pocl-opencl-icd for the CPU, or your GPU vendor's OpenCL "
            "driver; check with 'clinfo -l'.");
  }
  std::vector<cl_platform_id> platforms (n_platforms);
  clGetPlatformIDs (n_platforms, platforms.data (), nullptr);
  for (cl_uint p = 0; p < n_platforms; p++) {
    cl_uint n_devices = 0;
    if (clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr,
            &n_devices) != CL_SUCCESS || n_devices == 0)
      continue;
    std::vector<cl_device_id> devices (n_devices);
    clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, n_devices,
        devices.data (), nullptr);
    for (cl_uint d = 0; d < n_devices; d++) {
      Enumerated e;
      e.platform = platforms[p];
      e.device = devices[d];
      e.info.platform_index = (int) p;
      e.info.device_index = (int) d;
      e.info.platform_name = platform_string (platforms[p], CL_PLATFORM_NAME);
      e.info.device_name = device_string (devices[d], CL_DEVICE_NAME);
      e.info.driver_version = device_string (devices[d], CL_DRIVER_VERSION);
      e.info.device_version = device_string (devices[d], CL_DEVICE_VERSION);
      e.info.platform_version = platform_string (platforms[p],
          CL_PLATFORM_VERSION);
      e.info.platform_vendor = platform_string (platforms[p],
          CL_PLATFORM_VENDOR);
      e.info.device_vendor = device_string (devices[d], CL_DEVICE_VENDOR);
      cl_device_type type = 0;
      clGetDeviceInfo (devices[d], CL_DEVICE_TYPE, sizeof (type), &type,
          nullptr);
      e.info.is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
      e.info.is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
      clGetDeviceInfo (devices[d], CL_DEVICE_MAX_WORK_GROUP_SIZE,
          sizeof (size_t), &e.info.max_work_group_size, nullptr);
      clGetDeviceInfo (devices[d], CL_DEVICE_MAX_COMPUTE_UNITS,
          sizeof (cl_uint), &e.info.compute_units, nullptr);
      cl_ulong max_alloc = 0;
      clGetDeviceInfo (devices[d], CL_DEVICE_MAX_MEM_ALLOC_SIZE,
          sizeof (cl_ulong), &max_alloc, nullptr);
      e.info.max_alloc_bytes = (size_t) max_alloc;
      cl_ulong local_mem = 0;
      clGetDeviceInfo (devices[d], CL_DEVICE_LOCAL_MEM_SIZE,
          sizeof (cl_ulong), &local_mem, nullptr);
      e.info.local_mem_bytes = (size_t) local_mem;
      clGetDeviceInfo (devices[d], CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
          sizeof (cl_uint), &e.info.float_vector_width, nullptr);
      out->push_back (e);
    }
  }
  if (out->empty ()) {
    return Status (Status::NO_DEVICE,
        "OpenCL platforms are installed but none has a device. Install an "
        "OpenCL driver (ICD) such as pocl-opencl-icd; check with "
        "'clinfo -l'.");
  }
  listed = *out;
  return Status::Ok ();
}

Status
list_devices (std::vector<DeviceInfo> *out)
{
  std::vector<Enumerated> all;
  AFET_RETURN_IF_ERROR (enumerate (&all));
  for (auto &e : all)
    out->push_back (e.info);
  return Status::Ok ();
}

static std::string
lower (std::string s)
{
  std::transform (s.begin (), s.end (), s.begin (),
      [](unsigned char c) { return (char) std::tolower (c); });
  return s;
}

std::string
effective_device_request (const std::string &request)
{
  std::string r = lower (request);
  if (r.empty () || r == "auto") {
    const char *env = std::getenv ("AFET_DEVICE");
    if (env && *env)
      return env;
    return "auto";
  }
  return request;
}

static Status
choose (const std::vector<Enumerated> &all, const std::string &request,
    const Enumerated **chosen)
{
  std::string r = lower (request);
  auto first = [&](bool gpu) -> const Enumerated * {
    for (auto &e : all)
      if (gpu ? e.info.is_gpu : e.info.is_cpu)
        return &e;
    return nullptr;
  };

  if (r == "auto") {
    *chosen = first (true);
    if (!*chosen)
      *chosen = first (false);
    if (!*chosen)
      *chosen = &all[0];
    return Status::Ok ();
  }
  if (r == "gpu" || r == "cpu") {
    *chosen = first (r == "gpu");
    if (!*chosen)
      return Status (Status::NO_DEVICE, "No OpenCL " + r + " device found "
          "(device=" + request + "). Use device=auto, or install a driver "
          "for such a device; 'clinfo -l' lists what is there.");
    return Status::Ok ();
  }
  int p, d;
  char tail;
  if (std::sscanf (r.c_str (), "%d:%d%c", &p, &d, &tail) == 2) {
    for (auto &e : all) {
      if (e.info.platform_index == p && e.info.device_index == d) {
        *chosen = &e;
        return Status::Ok ();
      }
    }
    return Status (Status::NO_DEVICE, "No OpenCL device " + request +
        " (platform:device indices as 'clinfo -l' lists them).");
  }
  for (auto &e : all) {
    if (lower (e.info.device_name).find (r) != std::string::npos) {
      *chosen = &e;
      return Status::Ok ();
    }
  }
  for (auto &e : all) {
    if (lower (e.info.platform_name).find (r) != std::string::npos) {
      *chosen = &e;
      return Status::Ok ();
    }
  }
  std::string names;
  for (auto &e : all)
    names += (names.empty () ? "" : ", ") + e.info.device_name;
  return Status (Status::NO_DEVICE, "No OpenCL device matches '" + request +
      "'. Devices: " + names + ". Use auto, gpu, cpu, P:D or part of a "
      "device name.");
}

Device::Device (cl_platform_id platform, cl_device_id device, DeviceInfo info,
    cl_context context)
    : platform_ (platform), device_ (device), info_ (std::move (info)),
      context_ (context)
{
}

Device::~Device () = default;

std::unique_ptr<PinnedHost>
Device::take_pinned (size_t bytes)
{
  std::lock_guard<std::mutex> guard (pinned_lock_);
  auto it = pinned_.lower_bound (bytes);
  if (it == pinned_.end () || it->first > 2 * bytes)
    return nullptr;
  std::unique_ptr<PinnedHost> p = std::move (it->second);
  pinned_bytes_ -= it->first;
  pinned_.erase (it);
  return p;
}

void
Device::give_pinned (std::unique_ptr<PinnedHost> p)
{
  if (!p || !p->data ())
    return;
  std::lock_guard<std::mutex> guard (pinned_lock_);
  if (pinned_bytes_ + p->size () > kKeptPinnedBytes)
    return;                     /* freed here */
  pinned_bytes_ += p->size ();
  pinned_.emplace (p->size (), std::move (p));
}

Status
Device::create_queue (ClQueue *out) const
{
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue (context_.get (), device_,
      profiling () ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
  if (err != CL_SUCCESS)
    return Status (Status::OPENCL, std::string ("clCreateCommandQueue: ") +
        cl_error_name (err));
  out->reset (q);
  return Status::Ok ();
}

/* holders of a pooled queue: its references less the pool's own (a
 * driver's count, only a hint for the choice; 0 when it cannot say) */
static cl_uint
queue_holders (cl_command_queue q)
{
  cl_uint refs = 0;
  if (clGetCommandQueueInfo (q, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs,
          nullptr) != CL_SUCCESS || refs == 0)
    return 0;
  return refs - 1;
}

Status
Device::element_queue (ClQueue *out)
{
  std::unique_lock<std::mutex> lock (element_queues_lock_);
  /* the pooled queue with the fewest holders, the first of them on a tie */
  auto least_held = [this] (cl_uint *holders) {
    cl_command_queue best = nullptr;
    cl_uint fewest = 0;
    for (const ClQueue &q : element_queues_) {
      const cl_uint h = queue_holders (q.get ());
      if (!best || h < fewest) {
        best = q.get ();
        fewest = h;
        if (h == 0)
          break;                /* none can be held less */
      }
    }
    *holders = fewest;
    return best;
  };
  cl_uint holders = 0;
  cl_command_queue q = least_held (&holders);
  if ((!q || holders > 0) && element_queues_.size () +
      element_creating_ < kElementQueues) {
    /* made outside the lock: a caller that would share waits for no
     * driver lock */
    element_creating_++;
    lock.unlock ();
    ClQueue made;
    Status st = create_queue (&made);
    lock.lock ();
    element_creating_--;
    if (st.ok ()) {
      clRetainCommandQueue (made.get ());
      out->reset (made.get ());
      element_queues_.push_back (std::move (made));
      return Status::Ok ();
    }
    q = least_held (&holders);
    if (!q)
      return st;
    /* the driver made no more: share one */
  }
  clRetainCommandQueue (q);
  out->reset (q);
  return Status::Ok ();
}

std::string
Device::cache_identity () const
{
  return "platform: " + info_.platform_name + "\n"
      "platform-version: " + info_.platform_version + "\n"
      "platform-vendor: " + info_.platform_vendor + "\n"
      "device: " + info_.device_name + "\n"
      "device-vendor: " + info_.device_vendor + "\n"
      "device-version: " + info_.device_version + "\n"
      "driver-version: " + info_.driver_version + "\n";
}

static std::string
build_log (cl_program prog, cl_device_id device)
{
  size_t size = 0;
  clGetProgramBuildInfo (prog, device, CL_PROGRAM_BUILD_LOG, 0, nullptr,
      &size);
  std::string log (size, '\0');
  if (size)
    clGetProgramBuildInfo (prog, device, CL_PROGRAM_BUILD_LOG, size, &log[0],
        nullptr);
  while (!log.empty () && (log.back () == '\0' || log.back () == '\n'))
    log.pop_back ();
  return log;
}

Status
Device::build_from_source (const char *name, const char *source,
    const std::string &options, ClProgram *out)
{
  cl_int err = CL_SUCCESS;
  const char *sources[] = { source };
  cl_program prog = clCreateProgramWithSource (context_.get (), 1, sources,
      nullptr, &err);
  if (err != CL_SUCCESS)
    return Status (Status::OPENCL, std::string ("clCreateProgramWithSource: ")
        + cl_error_name (err));
  ClProgram owned (prog);
  err = injected_fault (FaultSite::BUILD);
  if (err == CL_SUCCESS)
    err = clBuildProgram (prog, 1, &device_, options.c_str (), nullptr,
        nullptr);
  if (err != CL_SUCCESS)
    return Status (Status::BUILD_FAILED, std::string ("building kernels/") +
        name + ".cl failed (" + cl_error_name (err) + ": " +
        cl_error_advice (err) + "): " + build_log (prog, device_));
  *out = std::move (owned);
  return Status::Ok ();
}

/* A program from a binary this device's driver gave out before. OpenCL
 * still wants clBuildProgram on it. Any failure (a driver that changed
 * without saying so in its version, a binary it no longer takes) is logged
 * and reported as false, and the caller compiles the source instead. */
bool
Device::build_from_binary (const char *name,
    const std::vector<unsigned char> &binary, const std::string &options,
    ClProgram *out)
{
  const unsigned char *bins[] = { binary.data () };
  size_t size = binary.size ();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program prog = clCreateProgramWithBinary (context_.get (), 1, &device_,
      &size, bins, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    log_message (LOG_WARNING, std::string ("cache: the driver refused the "
            "cached binary of kernels/") + name + ".cl (" +
        cl_error_name (err != CL_SUCCESS ? err : status) + "), compiling "
        "the source");
    if (prog)
      clReleaseProgram (prog);
    return false;
  }
  ClProgram owned (prog);
  err = injected_fault (FaultSite::BUILD);
  if (err == CL_SUCCESS)
    err = clBuildProgram (prog, 1, &device_, options.c_str (), nullptr,
        nullptr);
  if (err != CL_SUCCESS) {
    log_message (LOG_WARNING, std::string ("cache: building the cached "
            "binary of kernels/") + name + ".cl failed (" +
        cl_error_name (err) + "), compiling the source: " +
        build_log (prog, device_));
    return false;
  }
  *out = std::move (owned);
  return true;
}

/* The binary of a program built for this one device, or an empty vector. */
static std::vector<unsigned char>
program_binary (cl_program prog)
{
  std::vector<unsigned char> bin;
  size_t size = 0;
  if (clGetProgramInfo (prog, CL_PROGRAM_BINARY_SIZES, sizeof (size), &size,
          nullptr) != CL_SUCCESS || size == 0)
    return bin;
  bin.resize (size);
  unsigned char *ptrs[] = { bin.data () };
  if (clGetProgramInfo (prog, CL_PROGRAM_BINARIES, sizeof (ptrs), ptrs,
          nullptr) != CL_SUCCESS)
    bin.clear ();
  return bin;
}

void
Device::note_binary_format (const std::vector<unsigned char> &bin)
{
  /* text: no NUL but a run of them at the end (NVIDIA's PTX ends with
   * two) */
  const unsigned char *nul = (const unsigned char *) std::memchr (
      bin.data (), '\0', bin.size ());
  bool text = nul && nul != bin.data ();
  for (const unsigned char *p = nul; text && p < bin.data () + bin.size ();
      p++)
    text = *p == '\0';
  binaries_text_.store (text ? 1 : 0);
}

bool
Device::one_kernel_programs () const
{
  return info_.platform_name.find ("Portable Computing Language") !=
      std::string::npos;
}

bool
Device::stores_programs (cl_program built) const
{
  const char *env = std::getenv ("AFET_CACHE_PROGRAMS");
  if (env && std::strcmp (env, "always") == 0)
    return true;
  if (!one_kernel_programs ())
    return true;
  const char *pocl = std::getenv ("POCL_KERNEL_CACHE");
  if (pocl && std::strcmp (pocl, "0") == 0)
    return true;
  size_t kernels = 0;
  return clGetProgramInfo (built, CL_PROGRAM_NUM_KERNELS, sizeof kernels,
      &kernels, nullptr) == CL_SUCCESS && kernels == 1;
}

Status
Device::program (const char *name, const char *source,
    const std::string &options, cl_program *out, const char *source_sha256)
{
  std::string key = std::string (name) + '\n' + options;
  std::lock_guard<std::mutex> guard (programs_lock_);
  auto it = programs_.find (key);
  if (it != programs_.end ()) {
    *out = it->second.get ();
    return Status::Ok ();
  }

  const std::string opts = "-cl-std=CL1.2 " + options;
  std::shared_ptr<const DiskCache> cache = process_cache ();
  std::string disk_key;
  ClProgram prog;
  if (cache->enabled ()) {
    disk_key = "afet program\n"
        "name: " + std::string (name) + "\n"
        "source-sha256: " + (source_sha256 ? std::string (source_sha256) :
            sha256_hex (source, std::strlen (source))) + "\n"
        "options: " + opts + "\n" + cache_identity ();
    std::vector<unsigned char> bin;
    if (cache->load ("program", disk_key, &bin)) {
      if (build_from_binary (name, bin, opts, &prog)) {
        note_binary_format (bin);
        count_cache_event (CacheEvent::PROGRAM_HIT);
        log_message (LOG_DEBUG, std::string ("cache: kernels/") + name +
            ".cl (" + options + ") loaded from " +
            cache->path_for ("program", disk_key));
      } else {
        count_cache_event (CacheEvent::ERROR);
      }
    }
  }

  if (!prog) {
    AFET_RETURN_IF_ERROR (build_from_source (name, source, opts, &prog));
    if (cache->enabled () && stores_programs (prog.get ())) {
      count_cache_event (CacheEvent::PROGRAM_MISS);
      std::vector<unsigned char> bin = program_binary (prog.get ());
      if (bin.empty ()) {
        log_message (LOG_DEBUG, std::string ("cache: the driver gives no "
                "binary of kernels/") + name + ".cl: not cached");
      } else {
        note_binary_format (bin);
        log_message (LOG_DEBUG, std::string ("cache: kernels/") + name +
            ".cl (" + options + ") compiled from source, storing");
        cache->store ("program", disk_key, bin.data (), bin.size ());
      }
    }
  }

  *out = prog.get ();
  programs_.emplace (key, std::move (prog));
  return Status::Ok ();
}

Status
acquire_device (const std::string &request, std::shared_ptr<Device> *out,
    bool *created)
{
  /* Process-wide: one Device per OpenCL device, kept until exit so that
   * compiled programs and CLBlast's in-memory kernel cache survive element
   * restarts. Each device's context is made under that device's own lock:
   * making one takes about 0.12 s on an H200, and the jobs of a second GPU
   * (afet-extract -d all) need not wait for the first GPU's. */
  struct Slot
  {
    std::mutex lock;
    std::shared_ptr<Device> device;
  };
  static std::mutex lock;
  static std::map<cl_device_id, std::shared_ptr<Slot>> registry;

  if (created)
    *created = false;

  std::vector<Enumerated> all;
  AFET_RETURN_IF_ERROR (enumerate (&all));
  const Enumerated *e = nullptr;
  AFET_RETURN_IF_ERROR (choose (all, effective_device_request (request), &e));

  std::shared_ptr<Slot> slot;
  {
    std::lock_guard<std::mutex> guard (lock);
    std::shared_ptr<Slot> &s = registry[e->device];
    if (!s)
      s = std::make_shared<Slot> ();
    slot = s;
  }
  std::lock_guard<std::mutex> guard (slot->lock);
  if (slot->device) {
    *out = slot->device;
    return Status::Ok ();
  }

  cl_context_properties props[] = {
    CL_CONTEXT_PLATFORM, (cl_context_properties) e->platform, 0
  };
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext (props, 1, &e->device, nullptr, nullptr,
      &err);
  if (err != CL_SUCCESS)
    return Status (Status::OPENCL, "clCreateContext on " +
        e->info.describe () + ": " + cl_error_name (err));
  slot->device = std::make_shared<Device> (e->platform, e->device, e->info,
      ctx);
  *out = slot->device;
  if (created)
    *created = true;
  return Status::Ok ();
}

}  /* namespace afet */
