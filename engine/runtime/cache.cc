/* The on-disk cache of compiled programs and FFT plans, the engine's log hook
 * and its counters.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* POSIX file calls only, so that every failure is a
 * return value (no exceptions, no iostreams). */
#include "cache.h"

#include <glib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

namespace afet {

/* ---- logging ------------------------------------------------------------ */

static std::atomic<LogHandler> log_handler { nullptr };
/* warnings not yet taken (take_warnings); process-wide, not per thread:
 * thread_local in the plugin trips LeakSanitizer's tracer */
static std::mutex pending_lock;
static std::vector<std::string> pending;

void
set_log_handler (LogHandler handler)
{
  log_handler.store (handler);
}

void
log_message (int level, const std::string &msg)
{
  LogHandler h = log_handler.load ();
  if (h)
    h (level, msg.c_str ());
  if (level <= LOG_WARNING) {
    std::lock_guard<std::mutex> l (pending_lock);
    if (pending.size () < 16)
      pending.push_back (msg);
  }
}

std::vector<std::string>
take_warnings ()
{
  std::lock_guard<std::mutex> l (pending_lock);
  std::vector<std::string> out;
  out.swap (pending);
  return out;
}

/* ---- statistics --------------------------------------------------------- */

static std::atomic<uint64_t> counters[8];

void
count_cache_event (CacheEvent event)
{
  counters[(int) event].fetch_add (1, std::memory_order_relaxed);
}

CacheStats
cache_stats ()
{
  CacheStats s;
  s.program_hits = counters[(int) CacheEvent::PROGRAM_HIT].load ();
  s.program_misses = counters[(int) CacheEvent::PROGRAM_MISS].load ();
  s.plan_hits = counters[(int) CacheEvent::PLAN_HIT].load ();
  s.plan_misses = counters[(int) CacheEvent::PLAN_MISS].load ();
  s.plan_unsaveable = counters[(int) CacheEvent::PLAN_UNSAVEABLE].load ();
  s.stores = counters[(int) CacheEvent::STORE].load ();
  s.errors = counters[(int) CacheEvent::ERROR].load ();
  s.untrusted = counters[(int) CacheEvent::UNTRUSTED].load ();
  return s;
}

void
reset_cache_stats ()
{
  for (auto &c : counters)
    c.store (0);
}

/* ---- SHA-256 (GLib's) --------------------------------------------------- */

std::string
sha256_hex (const void *data, size_t size)
{
  gchar *hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
      (const guchar *) data, size);
  std::string out (hex);
  g_free (hex);
  return out;
}

std::string
sha256_hex (const std::string &s)
{
  return sha256_hex (s.data (), s.size ());
}

/* ---- files -------------------------------------------------------------- */

/* An entry file:
 *
 *   "AFET-CACHE 1\n"
 *   "<key bytes> <payload bytes> <payload sha256>\n"   (decimal, hex)
 *   key text
 *   payload
 *
 * Nothing else: the file size must add up exactly. */
static const char magic[] = "AFET-CACHE 1\n";

/* Entries larger than this are not ours (plans and programs are at most a
 * few MiB): refuse them before reading. */
static const uint64_t max_entry_bytes = 256ull << 20;

static std::string
errno_text (const char *what, const std::string &path, int err)
{
  return std::string (what) + " " + path + ": " + std::strerror (err);
}

/* mkdir -p with mode 0700 for every directory it creates. */
static bool
make_directories (const std::string &dir, std::string *error)
{
  std::string partial;
  size_t pos = 0;
  while (pos <= dir.size ()) {
    size_t slash = dir.find ('/', pos);
    if (slash == std::string::npos)
      slash = dir.size ();
    partial = dir.substr (0, slash);
    pos = slash + 1;
    if (partial.empty () || partial == "." || partial == "..")
      continue;
    if (mkdir (partial.c_str (), 0700) != 0 && errno != EEXIST) {
      *error = errno_text ("cannot create", partial, errno);
      return false;
    }
  }
  struct stat st;
  if (stat (dir.c_str (), &st) != 0 || !S_ISDIR (st.st_mode)) {
    *error = dir + " is not a directory";
    return false;
  }
  return true;
}

static bool
read_all (int fd, unsigned char *p, size_t n)
{
  while (n > 0) {
    ssize_t r = read (fd, p, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return false;
    p += r;
    n -= (size_t) r;
  }
  return true;
}

static bool
write_all (int fd, const unsigned char *p, size_t n)
{
  while (n > 0) {
    ssize_t w = write (fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w;
    n -= (size_t) w;
  }
  return true;
}

/* Parses an unsigned decimal number ending at the separator sep. */
static bool
parse_number (const char **p, const char *end, char sep, uint64_t *out)
{
  const char *s = *p;
  uint64_t v = 0;
  int digits = 0;
  while (s < end && *s >= '0' && *s <= '9' && digits < 19) {
    v = v * 10 + (uint64_t) (*s - '0');
    s++;
    digits++;
  }
  if (digits == 0 || s >= end || *s != sep)
    return false;
  *p = s + 1;
  *out = v;
  return true;
}

DiskCache::DiskCache (std::string dir)
    : dir_ (dir == "disabled" ? std::string () : std::move (dir))
{
  while (dir_.size () > 1 && dir_.back () == '/')
    dir_.pop_back ();
}

DiskCache::~DiskCache () = default;

void
DiskCache::report_failure (const std::string &msg) const
{
  count_cache_event (CacheEvent::ERROR);
  bool first = !warned_.exchange (true);
  log_message (first ? LOG_WARNING : LOG_DEBUG, "cache: " + msg +
      (first ? " (going on without it; further failures are logged at debug "
          "level)" : ""));
}

void
DiskCache::report_untrusted (const std::string &msg) const
{
  count_cache_event (CacheEvent::UNTRUSTED);
  bool first = !untrusted_warned_.exchange (true);
  log_message (first ? LOG_WARNING : LOG_DEBUG, "cache: " + msg +
      (first ? " (further refusals are logged at debug level)" : ""));
}

/* Why a file or directory of the cache must not be used, or "" when it may.
 * Only the effective user (the one running afet, and root, who can write
 * anything anyway) may have written it: anyone else who could write it could
 * have put there a binary built from other code, with its checksum
 * recomputed. */
static std::string
untrusted_reason (const struct stat &st, bool dir)
{
  char mode[8];
  std::snprintf (mode, sizeof (mode), "%04o", (unsigned) (st.st_mode & 07777));
  if (dir ? !S_ISDIR (st.st_mode) : !S_ISREG (st.st_mode))
    return dir ? "not a directory" : "not a regular file";
  if (st.st_uid != geteuid ())
    return "it is owned by uid " + std::to_string (st.st_uid) + ", not by "
        "this user (uid " + std::to_string (geteuid ()) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return std::string ("it is writable by group or others (mode ") + mode +
        ")";
  return std::string ();
}

int
DiskCache::open_trusted_directory (bool create) const
{
  std::string error;
  if (create && !make_directories (dir_, &error)) {
    report_failure (error);
    return -1;
  }
  /* The checks are made on the directory opened, and entries are opened
   * relative to it: a directory swapped in after the check (by whoever can
   * write a parent) is not the one read. A symbolic link to a directory is
   * followed: what it leads to is checked. */
  int dfd = open (dir_.c_str (), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    if (create || (errno != ENOENT && errno != ENOTDIR))
      report_failure (errno_text ("cannot open", dir_, errno));
    return -1;
  }
  struct stat st;
  if (fstat (dfd, &st) != 0) {
    report_failure (errno_text ("cannot stat", dir_, errno));
    close (dfd);
    return -1;
  }
  std::string why = untrusted_reason (st, true);
  if (!why.empty ()) {
    close (dfd);
    report_untrusted ("not using the cache directory " + dir_ + ": " + why +
        "; programs and plans are compiled from source, nothing is stored. "
        "Fix: " + (st.st_uid == geteuid () ? "chmod go-w " + dir_ + ", or "
            : std::string ()) + "point AFET_CACHE_DIR at a directory only "
        "you can write");
    return -1;
  }
  return dfd;
}

std::string
DiskCache::path_for (const char *prefix, const std::string &key) const
{
  if (!enabled ())
    return std::string ();
  return dir_ + "/" + prefix + "-" + sha256_hex (key) + ".bin";
}

bool
DiskCache::load (const char *prefix, const std::string &key,
    std::vector<unsigned char> *bytes) const
{
  bytes->clear ();
  if (!enabled ())
    return false;
  int dfd = open_trusted_directory (false);
  if (dfd < 0)
    return false;
  std::string path = path_for (prefix, key);
  std::string name = path.substr (dir_.size () + 1);
  /* O_NOFOLLOW: a symbolic link is refused, not followed; O_NONBLOCK: a
   * FIFO put there does not hang the open (regular files ignore it). */
  int fd = openat (dfd, name.c_str (),
      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  int open_err = errno;
  close (dfd);
  if (fd < 0) {
    if (open_err == ELOOP)
      report_untrusted ("not using " + path + ": it is a symbolic link; "
          "compiling from source instead. Fix: rm " + path);
    else if (open_err != ENOENT && open_err != ENOTDIR)
      report_failure (errno_text ("cannot open", path, open_err));
    return false;
  }
  struct stat st;
  std::vector<unsigned char> data;
  bool ok = fstat (fd, &st) == 0;
  if (ok) {
    std::string why = untrusted_reason (st, false);
    if (!why.empty ()) {
      close (fd);
      report_untrusted ("not using " + path + ": " + why + "; compiling "
          "from source instead. Fix: rm " + path + " (afet writes it "
          "again), and see who else can write " + dir_);
      return false;
    }
    ok = (uint64_t) st.st_size <= max_entry_bytes;
  }
  if (ok) {
    data.resize ((size_t) st.st_size);
    ok = read_all (fd, data.data (), data.size ());
  }
  close (fd);
  if (!ok) {
    report_failure ("cannot read " + path);
    return false;
  }

  /* header */
  const char *p = (const char *) data.data ();
  const char *end = p + data.size ();
  uint64_t key_len = 0, payload_len = 0;
  const size_t mlen = sizeof (magic) - 1;
  bool valid = data.size () >= mlen && std::memcmp (p, magic, mlen) == 0;
  if (valid) {
    p += mlen;
    valid = parse_number (&p, end, ' ', &key_len) &&
        parse_number (&p, end, ' ', &payload_len) && end - p >= 65 &&
        p[64] == '\n';
  }
  std::string digest;
  if (valid) {
    digest.assign (p, 64);
    p += 65;
    valid = key_len <= max_entry_bytes && payload_len <= max_entry_bytes &&
        (uint64_t) (end - p) == key_len + payload_len;
  }
  if (!valid) {
    report_failure ("ignoring " + path + ": truncated or not a cache entry");
    return false;
  }
  if (key_len != key.size () || std::memcmp (p, key.data (), key.size ())) {
    /* Same file name, another key: a hash collision, or a file someone
     * else put there. Not ours to use; the next store replaces it. */
    report_failure ("ignoring " + path + ": made for another key");
    return false;
  }
  p += key_len;
  if (sha256_hex (p, (size_t) payload_len) != digest) {
    report_failure ("ignoring " + path + ": corrupt (checksum mismatch)");
    return false;
  }
  bytes->assign ((const unsigned char *) p,
      (const unsigned char *) p + payload_len);
  return true;
}

bool
DiskCache::store (const char *prefix, const std::string &key,
    const void *bytes, size_t size) const
{
  if (!enabled ())
    return false;
  int dfd = open_trusted_directory (true);
  if (dfd < 0)
    return false;
  std::string path = path_for (prefix, key);
  std::string name = path.substr (dir_.size () + 1);
  std::string header = magic + std::to_string (key.size ()) + " " +
      std::to_string (size) + " " + sha256_hex (bytes, size) + "\n";

  /* A new file of a name no reader looks at, in the directory just checked
   * (so renameat() is atomic and stays in it), made as mkstemp() does:
   * O_CREAT | O_EXCL never opens what is there already, a symbolic link
   * included, and its mode is 0600 (a umask only takes bits away). */
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
    char suffix[16];
    std::snprintf (suffix, sizeof (suffix), "%08x", g_random_int ());
    tmp = std::string (".tmp-") + prefix + "-" + suffix;
    fd = openat (dfd, tmp.c_str (),
        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0) {
    report_failure (errno_text ("cannot write in", dir_, errno));
    close (dfd);
    return false;
  }
  bool ok = write_all (fd, (const unsigned char *) header.data (),
      header.size ()) &&
      write_all (fd, (const unsigned char *) key.data (), key.size ()) &&
      write_all (fd, (const unsigned char *) bytes, size);
  int err = errno;
  /* No fsync: a file cut short by a crash fails the size and checksum test
   * at load and is rebuilt, and fsync would slow every cold start. */
  if (close (fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  /* renameat() replaces whatever has the entry's name, a symbolic link
   * itself rather than what it points to */
  if (ok && renameat (dfd, tmp.c_str (), dfd, name.c_str ()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok)
    unlinkat (dfd, tmp.c_str (), 0);
  close (dfd);
  if (!ok) {
    report_failure (errno_text ("cannot write", path, err));
    return false;
  }
  count_cache_event (CacheEvent::STORE);
  log_message (LOG_DEBUG, "cache: stored " + path + " (" +
      std::to_string (size) + " bytes)");
  return true;
}

std::string
DiskCache::directory_from_environment ()
{
  const char *env = std::getenv ("AFET_CACHE_DIR");
  if (env && *env)
    return std::strcmp (env, "disabled") == 0 ? std::string () : env;
  /* XDG base directories: a relative XDG_CACHE_HOME is invalid, ignore it */
  const char *xdg = std::getenv ("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/')
    return std::string (xdg) + "/afet";
  const char *home = std::getenv ("HOME");
  if (!home || !*home) {
    struct passwd *pw = getpwuid (getuid ());
    home = pw ? pw->pw_dir : nullptr;
  }
  if (!home || !*home)
    return std::string ();
  return std::string (home) + "/.cache/afet";
}

/* ---- the process-wide cache --------------------------------------------- */

static std::mutex process_lock;
static std::shared_ptr<const DiskCache> process_instance;

std::shared_ptr<const DiskCache>
process_cache ()
{
  std::lock_guard<std::mutex> guard (process_lock);
  if (!process_instance) {
    process_instance = std::make_shared<const DiskCache> (
        DiskCache::directory_from_environment ());
    log_message (LOG_INFO, process_instance->enabled () ?
        "cache: compiled programs and FFT plans cached in " +
        process_instance->directory () :
        std::string ("cache: on-disk cache disabled"));
  }
  return process_instance;
}

void
set_cache_directory (const std::string &dir)
{
  std::lock_guard<std::mutex> guard (process_lock);
  if (dir.empty ())
    process_instance.reset ();
  else
    process_instance = std::make_shared<const DiskCache> (dir);
}

}  /* namespace afet */
