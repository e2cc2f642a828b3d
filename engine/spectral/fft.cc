/* Batched real FFTs with VkFFT (fft.h): everything specific to VkFFT lives
 * here, with its plans kept for the process and in the on-disk cache.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Debian 12 has VkFFT 1.2.26, one header. Newer VkFFT releases changed the
 * header layout and some type names: adapt this file only. */
#define VKFFT_BACKEND 3

/* VkFFT 1.2.26 switches the process-wide locale to "C" while it prints
 * kernel code, keeps the pointer setlocale (LC_ALL, NULL) returned (which
 * that very call frees) and restores the application's locale from it
 * (DTolm/VkFFT#73): a use-after-free, and a locale change seen by every
 * thread of the application while a plan is built on a streaming thread.
 * Its setlocale calls go to afet_vkfft_setlocale instead, which switches
 * only the calling thread to the "C" locale (uselocale) and back. */
#include <clocale>
#include <locale.h>
namespace afet {
char *vkfft_setlocale (int category, const char *locale);
}
#define setlocale(category, locale) afet::vkfft_setlocale (category, locale)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <vkFFT.h>
#pragma GCC diagnostic pop
#undef setlocale

#include "fft.h"

#include "cache.h"
#include "clutil.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

namespace afet {

/* VkFFT asks for the current locale (a NULL locale), sets "C", and later
 * restores what the first call answered. Here "C" switches only the calling
 * thread to the C locale; every other call changes nothing: the
 * LocaleGuard around each initializeVkFFT () gives the thread its own
 * locale back, whichever way VkFFT returns. The global locale never
 * changes. */
char *
vkfft_setlocale (int category, const char *locale)
{
  static const locale_t c_locale = newlocale (LC_ALL_MASK, "C",
      (locale_t) 0);
  static char token[] = "afet-thread-locale";
  (void) category;
  if (locale && std::strcmp (locale, "C") == 0 && c_locale)
    uselocale (c_locale);
  return token;
}

namespace {
class LocaleGuard
{
public:
  LocaleGuard () : saved_ (uselocale ((locale_t) 0)) {}
  ~LocaleGuard () { uselocale (saved_); }
  LocaleGuard (const LocaleGuard &) = delete;
  LocaleGuard &operator= (const LocaleGuard &) = delete;

private:
  locale_t saved_;
};
}  /* namespace */

/* largest FFT whose plans are shared between stages (see init) */
static const int kMaxSharedFftSize = 8192;

struct RealFft::Plan
{
  VkFFTApplication app = {};
  bool initialized = false;
  int capacity = 0;
  uint64_t buffer_size = 0;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_platform_id platform = nullptr;
  std::mutex lock;              /* held around VkFFTAppend */

  ~Plan ()
  {
    if (initialized)
      deleteVkFFT (&app);
  }
};

RealFft::RealFft () = default;
RealFft::~RealFft () = default;

void
RealFft::reset ()
{
  plans_.clear ();
}

std::vector<int>
RealFft::capacities_for (int max_batch)
{
  /* halving near the top, where a file's one partial batch lands (a 15 s
   * file is 1500 frames: the 2048 plan, not the 4096 one), then eighths for
   * the small batches of live streams */
  std::vector<int> caps;
  int c = max_batch;
  for (int i = 0; i < 3 && c >= 8; i++, c /= 2)
    caps.push_back (c);
  for (; c >= 8; c /= 8)
    caps.push_back (c);
  if (caps.empty ())
    caps.push_back (max_batch);
  std::sort (caps.begin (), caps.end ());
  return caps;
}

int
RealFft::max_rows () const
{
  return plans_.empty () ? 0 : plans_.back ()->capacity;
}

/* ---- plan cache ---------------------------------------------------------
 *
 * VkFFT 1.2.26 saves a plan's programs (saveApplicationToString) as one
 * string and rebuilds a plan from such a string (loadApplicationFromString)
 * without generating and compiling its kernels again; the two are mutually
 * exclusive, so a plan is either saved or loaded.
 *
 * For the OpenCL back end the string is, for each program, the binary's
 * size S in decimal, '\n', then the binary printed with "%s"; the loader
 * (VkFFTPlanAxis) reads S with strtol(), copies the S - 2 bytes after the
 * '\n', and steps S + floor (log10 (S)) bytes on. That fits binaries that
 * are text followed by two NULs, which is what NVIDIA's driver gives (PTX;
 * checked with driver 580). Binaries with NUL bytes inside (PoCL's, and
 * most vendors' ELF) are cut short by "%s" in a string still sized for the
 * whole, and the loader trusts every size it reads. So a saved string is
 * cached only when blob_is_whole() finds it exactly in that layout, and is
 * checked again before it is handed back to VkFFT.
 *
 * Loading: VkFFT reads loadApplicationString during initializeVkFFT() only
 * (it copies each binary out before creating the program) and neither keeps
 * nor frees it; the blob is ours and must outlive that call, no more. (The
 * copy is S - 1 bytes, the last one a NUL, and the driver is told S: one
 * byte past VkFFT's own allocation, which NVIDIA's PTX reader, stopping at
 * the NUL, ignores.) Saving: saveApplicationString is VkFFT's, freed by
 * deleteVkFFT(). */

static int
decimal_digits (uint64_t v)
{
  int d = 1;
  while (v >= 10) {
    v /= 10;
    d++;
  }
  return d;
}

/* True when text (len bytes, no NUL) is a sequence of records "S\n" + S - 2
 * bytes, back to back, as VkFFT 1.2.26's OpenCL loader walks them; *records
 * gets their count. */
static bool
blob_is_whole (const char *text, size_t len, size_t *records)
{
  *records = 0;
  if (len == 0 || std::memchr (text, '\0', len))
    return false;
  size_t start = 0;
  while (start < len) {
    size_t pos = start;
    uint64_t size = 0;
    while (pos < len && text[pos] >= '0' && text[pos] <= '9' &&
        pos - start < 18) {
      size = size * 10 + (uint64_t) (text[pos] - '0');
      pos++;
    }
    if (pos == start || pos >= len || text[pos] != '\n' || size < 2)
      return false;
    /* the loader's step: digits + '\n' + S - 2 bytes */
    size_t next = start + size + (size_t) (decimal_digits (size) - 1);
    if (next > len)
      return false;
    start = next;
    (*records)++;
  }
  return true;
}

static std::string
plan_key (const Device &device, const VkFFTConfiguration &conf)
{
  /* Every configuration field set below, with its value. */
  return "afet vkfft plan\n"
      "vkfft-version: " + std::to_string (VkFFTGetVersion ()) + "\n"
      "FFTdim: " + std::to_string (conf.FFTdim) + "\n"
      "size: " + std::to_string (conf.size[0]) + "\n"
      "numberBatches: " + std::to_string (conf.numberBatches) + "\n"
      "bufferSize: " + std::to_string (*conf.bufferSize) + "\n"
      "performR2C: " + std::to_string (conf.performR2C) + "\n"
      "disableMergeSequencesR2C: " +
      std::to_string (conf.disableMergeSequencesR2C) + "\n"
      "makeForwardPlanOnly: " + std::to_string (conf.makeForwardPlanOnly) +
      "\n" + device.cache_identity ();
}

static void
not_saveable (const std::string &what)
{
  count_cache_event (CacheEvent::PLAN_UNSAVEABLE);
  log_message (LOG_DEBUG, "cache: VkFFT " +
      std::to_string (VkFFTGetVersion ()) + " cannot save this driver's "
      "program binaries (they hold NUL bytes): plan " + what + " not cached; "
      "the driver's own kernel cache still applies");
}

/* Builds plan->app from conf, through the cache when it is enabled. */
static Status
build_plan (Device &device, const DiskCache &cache,
    VkFFTConfiguration conf, VkFFTApplication *app)
{
  const std::string what = std::to_string (conf.numberBatches) + " x " +
      std::to_string (conf.size[0]) + "-point R2C";
  std::string key;
  if (cache.enabled ()) {
    key = plan_key (device, conf);
    std::vector<unsigned char> blob;
    if (cache.load ("vkfft", key, &blob)) {
      size_t records = 0;
      if (blob_is_whole ((const char *) blob.data (), blob.size (),
              &records)) {
        blob.push_back ('\0');
        VkFFTConfiguration lconf = conf;
        lconf.loadApplicationFromString = 1;
        lconf.loadApplicationString = blob.data ();
        *app = {};
        LocaleGuard locale_guard;
        VkFFTResult res = initializeVkFFT (app, lconf);
        if (res == VKFFT_SUCCESS) {
          /* the blob goes with this scope: leave no pointer to it */
          app->configuration.loadApplicationString = nullptr;
          count_cache_event (CacheEvent::PLAN_HIT);
          log_message (LOG_DEBUG, "cache: VkFFT plan " + what +
              " loaded from " + cache.path_for ("vkfft", key));
          return Status::Ok ();
        }
        /* initializeVkFFT() cleaned up after itself (deleteVkFFT) */
        log_message (LOG_WARNING, "cache: VkFFT could not load the cached "
            "plan " + what + " (VkFFT error " + std::to_string ((int) res) +
            "), compiling it");
      } else {
        log_message (LOG_WARNING, "cache: ignoring the malformed cached "
            "plan " + what);
      }
      count_cache_event (CacheEvent::ERROR);
    }
    count_cache_event (CacheEvent::PLAN_MISS);
    if (device.binaries_are_text () == 0) {
      /* Known unsaveable (the programs' binaries told): asking VkFFT to
       * save would only cost the driver's binary generation (on PoCL a
       * second code generation, about 0.2 s a program) for nothing. */
      not_saveable (what);
    } else {
      conf.saveApplicationToString = 1;
    }
  }

  *app = {};
  VkFFTResult res;
  {
    LocaleGuard locale_guard;
    res = initializeVkFFT (app, conf);
  }
  if (res != VKFFT_SUCCESS)
    return Status (Status::FFT, "VkFFT plan for " + what + " failed (VkFFT "
        "error " + std::to_string ((int) res) + ")");

  if (conf.saveApplicationToString) {
    const char *text = (const char *) app->saveApplicationString;
    size_t len = text ? std::strlen (text) : 0, records = 0;
    /* Whole: the records parse, and the text fills the buffer VkFFT sized
     * for it (1 + the sum of S + floor (log10 (S)) + 1) but for the two
     * NULs per binary "%s" did not print, and the final one. A binary cut
     * short at an inner NUL leaves more of the buffer empty. */
    if (text && blob_is_whole (text, len, &records) &&
        len + records + 1 == app->applicationStringSize) {
      cache.store ("vkfft", key, text, len);
    } else {
      device.note_binaries_are_text (false);
      not_saveable (what);
    }
  }
  return Status::Ok ();
}

Status
RealFft::init (Device &device, int fft_size, std::vector<int> capacities,
    cl_mem buffer)
{
  reset ();
  fft_size_ = fft_size;
  std::sort (capacities.begin (), capacities.end ());
  std::shared_ptr<const DiskCache> cache = process_cache ();

  /* process-wide: (context, size, capacity) -> plan */
  static std::mutex registry_lock;
  static std::map<std::tuple<cl_context, int, int>, std::shared_ptr<Plan>>
      registry;
  std::lock_guard<std::mutex> guard (registry_lock);

  /* Past a single-pass size VkFFT keeps a scratch buffer inside the plan
   * (seen from 16384 points on NVIDIA), which two queues must not share:
   * such plans stay with their stage. Speech frames are far shorter. */
  const bool shareable = fft_size <= kMaxSharedFftSize;
  for (int cap : capacities) {
    auto key = std::make_tuple (device.context (), fft_size, cap);
    auto found = shareable ? registry.find (key) : registry.end ();
    if (found != registry.end ()) {
      plans_.push_back (found->second);
      continue;
    }
    auto plan = std::make_shared<Plan> ();
    plan->capacity = cap;
    plan->device = device.device ();
    plan->context = device.context ();
    plan->platform = device.platform ();
    plan->buffer_size = (uint64_t) cap * (fft_size + 2) * sizeof (float);

    /* Any field set here must appear in plan_key(). */
    VkFFTConfiguration conf = {};
    conf.FFTdim = 1;
    conf.size[0] = (uint64_t) fft_size;
    conf.numberBatches = (uint64_t) cap;
    conf.performR2C = 1;
    /* VkFFT's default R2C packs two real rows into one complex FFT. The
     * rows then share rounding errors (a quiet frame next to a loud one
     * picks up eps x the loud one's spectrum) and a padding row of garbage
     * past the batch spoils its partner: each frame must depend on itself
     * only, whatever the batch, so transform rows one by one. */
    conf.disableMergeSequencesR2C = 1;
    /* forward() is all we run: do not generate and compile the inverse
     * kernels too (half the plan's build time) */
    conf.makeForwardPlanOnly = 1;
    conf.device = &plan->device;
    conf.context = &plan->context;
    conf.platform = &plan->platform;
    conf.buffer = &buffer;
    conf.bufferSize = &plan->buffer_size;

    AFET_RETURN_IF_ERROR (build_plan (device, *cache, conf, &plan->app));
    plan->initialized = true;
    if (shareable)
      registry.emplace (key, plan);
    plans_.push_back (std::move (plan));
  }
  return Status::Ok ();
}

Status
RealFft::forward (cl_command_queue queue, cl_mem buffer, int rows)
{
  if (rows <= 0)
    return Status::Ok ();
  for (auto &plan : plans_) {
    if (plan->capacity < rows)
      continue;
    VkFFTLaunchParams params = {};
    params.commandQueue = &queue;
    params.buffer = &buffer;
    std::lock_guard<std::mutex> guard (plan->lock);
    /* plans of one FFT size can share their kernels' code, and so PoCL's
     * loaded copies: chained as launch () chains (clutil.h) */
    return chained_launches (queue, "vkfft", [&] () {
          VkFFTResult res = VkFFTAppend (&plan->app, -1, &params);
          if (res != VKFFT_SUCCESS)
            return Status (Status::FFT, "VkFFTAppend failed (VkFFT error " +
                std::to_string ((int) res) + ")");
          return Status::Ok ();
        });
  }
  return Status (Status::FFT, "batch of " + std::to_string (rows) +
      " rows exceeds the largest FFT plan (" + std::to_string (max_rows ()) +
      ")");
}

}  /* namespace afet */
