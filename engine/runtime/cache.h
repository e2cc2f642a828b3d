/* The engine's log hook, its cache counters, SHA-256 hashing and the on-disk
 * cache of compiled programs and FFT plans (DiskCache).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace afet {

/* ---- logging ------------------------------------------------------------
 *
 * The engine knows no GStreamer. It reports a few events (the on-disk cache's
 * hits, misses, stores and failures) through one optional, process-wide
 * callback; the levels are GStreamer's GstDebugLevel numbers, so a handler
 * can pass them on as they are. Without a handler nothing is printed. The
 * handler may be called from any thread and must not call back into the
 * engine. */
enum LogLevel
{
  LOG_ERROR = 1,
  LOG_WARNING = 2,
  LOG_INFO = 4,
  LOG_DEBUG = 5,
  LOG_TRACE = 6,
};

typedef void (*LogHandler) (int level, const char *msg);

/* Installs (or with nullptr removes) the process-wide log handler. */
void set_log_handler (LogHandler handler);

/* Sends one message to the handler, if any. A warning or error is also
 * kept (up to 16) for take_warnings. */
void log_message (int level, const std::string &msg);

/* The warnings and errors logged since the last call, oldest first: for a
 * caller that can show them to the user (the elements post them on the
 * bus after building their stages), since a debug log is off by default. */
std::vector<std::string> take_warnings ();

/* ---- statistics --------------------------------------------------------- */

/* Process-wide counters of the on-disk cache, for tests and logs. Only
 * lookups that reach the disk count: a program found in a Device's memory is
 * neither a hit nor a miss, and nothing counts while the cache is disabled. */
struct CacheStats
{
  uint64_t program_hits = 0;     /* programs built from a cached binary */
  uint64_t program_misses = 0;   /* programs compiled from source */
  uint64_t plan_hits = 0;        /* VkFFT plans loaded from a cached blob */
  uint64_t plan_misses = 0;      /* VkFFT plans compiled from source */
  uint64_t plan_unsaveable = 0;  /* compiled plans the driver's binaries
                                  * keep out of the cache (see fft.cc) */
  uint64_t stores = 0;           /* entries written */
  uint64_t errors = 0;           /* I/O failures, corrupt or mismatched
                                  * entries, binaries the driver refused */
  uint64_t untrusted = 0;        /* directories and entries refused as not
                                  * ours or writable by others (see
                                  * DiskCache) */
};

/* A copy of the counters now. */
CacheStats cache_stats ();

/* Sets every counter back to zero (tests). */
void reset_cache_stats ();

/* Internal: the counters as the engine bumps them. */
enum class CacheEvent
{
  PROGRAM_HIT,
  PROGRAM_MISS,
  PLAN_HIT,
  PLAN_MISS,
  PLAN_UNSAVEABLE,
  STORE,
  ERROR,
  UNTRUSTED,
};
void count_cache_event (CacheEvent event);

/* ---- hashing ------------------------------------------------------------ */

/* SHA-256 of a byte string, as 64 lower-case hex digits. */
std::string sha256_hex (const void *data, size_t size);
std::string sha256_hex (const std::string &s);

/* ---- the cache ----------------------------------------------------------
 *
 * A directory of files, one per entry. An entry's file name is the SHA-256
 * of its full key text; the file holds that key text and a SHA-256 of the
 * payload, both checked on load, so a name collision, a truncated or a
 * corrupt file reads as a miss (the caller then rebuilds and stores again).
 * Writes go to a temporary file in the same directory, renamed over the
 * entry, so a reader sees either the whole old entry, the whole new one or
 * none. No call fails the caller: an unreadable or unwritable directory is
 * logged (once as a warning, then at debug level) and treated as a miss.
 *
 * Trust. The checksum only catches accidents: whoever can write an entry can
 * recompute it, and a program binary is code the device runs (on PoCL,
 * native code of the host). So the directory and every entry must belong to
 * the effective user and be writable by no group or other user, entries
 * must be regular files (a symbolic link is not followed), and the checks
 * are made with fstat() on the descriptors then read (entries are opened
 * relative to the checked directory's descriptor, O_NOFOLLOW). A directory
 * or entry that fails is not used (its programs are compiled from source,
 * nothing is stored in such a directory), counted as untrusted and logged
 * once as a warning naming it and the fix, then at debug level. */
class DiskCache
{
public:
  /* dir: the directory; "" or "disabled" makes a disabled cache that finds
   * nothing and writes nothing. The directory is created (mkdir -p, mode
   * 0700) at the first store, not here. */
  explicit DiskCache (std::string dir);
  ~DiskCache ();
  DiskCache (const DiskCache &) = delete;
  DiskCache &operator= (const DiskCache &) = delete;

  bool enabled () const { return !dir_.empty (); }
  const std::string &directory () const { return dir_; }

  /* The file an entry of this key lives in ("" when disabled). prefix is a
   * readable tag ("program", "vkfft") put before the hash. */
  std::string path_for (const char *prefix, const std::string &key) const;

  /* Reads the entry of key into *bytes. False when disabled, absent,
   * unreadable, corrupt or made for another key. */
  bool load (const char *prefix, const std::string &key,
      std::vector<unsigned char> *bytes) const;

  /* Writes (or replaces) the entry of key. False, logged, on failure. */
  bool store (const char *prefix, const std::string &key, const void *bytes,
      size_t size) const;

  /* The directory the environment asks for: AFET_CACHE_DIR if set and not
   * empty ("disabled" turns the cache off and gives ""), else
   * $XDG_CACHE_HOME/afet (when absolute), else $HOME/.cache/afet; "" when
   * none of these can be found. */
  static std::string directory_from_environment ();

private:
  void report_failure (const std::string &msg) const;
  void report_untrusted (const std::string &msg) const;
  /* The directory opened (created first when create) and checked, as a
   * descriptor to open entries relative to; -1, reported, when it is
   * absent, unusable or not trusted. */
  int open_trusted_directory (bool create) const;

  std::string dir_;
  mutable std::atomic<bool> warned_ { false };
  mutable std::atomic<bool> untrusted_warned_ { false };
};

/* The process-wide cache the engine uses. Its directory is resolved from the
 * environment (directory_from_environment()) at the first call, unless
 * set_cache_directory() chose one before. */
std::shared_ptr<const DiskCache> process_cache ();

/* Points the process-wide cache at dir ("disabled" turns it off, "" goes back
 * to the environment at the next process_cache() call). Programs and plans
 * built before keep what they got; later builds use the new directory. */
void set_cache_directory (const std::string &dir);

}  /* namespace afet */
