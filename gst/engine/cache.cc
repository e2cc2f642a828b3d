/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The on-disk cache of compiled programs and FFT plans, the engine's log
 * hook and its counters. POSIX file calls only, so that every failure is a
 * return value (no exceptions, no iostreams). */
#include "cache.h"

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
}

/* ---- statistics --------------------------------------------------------- */

static std::atomic<uint64_t> counters[7];

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
  return s;
}

void
reset_cache_stats ()
{
  for (auto &c : counters)
    c.store (0);
}

/* ---- SHA-256 (FIPS 180-4) ----------------------------------------------- */

namespace {

class Sha256
{
public:
  Sha256 ()
  {
    static const uint32_t init[8] = {
      0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };
    std::memcpy (h_, init, sizeof (h_));
  }

  void update (const unsigned char *p, size_t n)
  {
    total_ += n;
    if (fill_) {
      size_t take = std::min (n, (size_t) 64 - fill_);
      std::memcpy (block_ + fill_, p, take);
      fill_ += take;
      p += take;
      n -= take;
      if (fill_ < 64)
        return;
      compress (block_);
      fill_ = 0;
    }
    for (; n >= 64; p += 64, n -= 64)
      compress (p);
    std::memcpy (block_, p, n);
    fill_ = n;
  }

  void finish (unsigned char out[32])
  {
    uint64_t bits = total_ * 8;
    unsigned char pad[72] = { 0x80 };
    size_t padlen = (fill_ < 56) ? 56 - fill_ : 120 - fill_;
    for (int i = 0; i < 8; i++)
      pad[padlen + i] = (unsigned char) (bits >> (56 - 8 * i));
    update (pad, padlen + 8);
    for (int i = 0; i < 8; i++) {
      out[4 * i] = (unsigned char) (h_[i] >> 24);
      out[4 * i + 1] = (unsigned char) (h_[i] >> 16);
      out[4 * i + 2] = (unsigned char) (h_[i] >> 8);
      out[4 * i + 3] = (unsigned char) h_[i];
    }
  }

private:
  static uint32_t rotr (uint32_t x, int n)
  {
    return (x >> n) | (x << (32 - n));
  }

  void compress (const unsigned char *b)
  {
    static const uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
      0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
      0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
      0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
      0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
      0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
      0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
      0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
      0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    };
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
      w[i] = ((uint32_t) b[4 * i] << 24) | ((uint32_t) b[4 * i + 1] << 16) |
          ((uint32_t) b[4 * i + 2] << 8) | (uint32_t) b[4 * i + 3];
    for (int i = 16; i < 64; i++) {
      uint32_t s0 = rotr (w[i - 15], 7) ^ rotr (w[i - 15], 18) ^
          (w[i - 15] >> 3);
      uint32_t s1 = rotr (w[i - 2], 17) ^ rotr (w[i - 2], 19) ^
          (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h_[0], bb = h_[1], c = h_[2], d = h_[3];
    uint32_t e = h_[4], f = h_[5], g = h_[6], h = h_[7];
    for (int i = 0; i < 64; i++) {
      uint32_t S1 = rotr (e, 6) ^ rotr (e, 11) ^ rotr (e, 25);
      uint32_t ch = (e & f) ^ (~e & g);
      uint32_t t1 = h + S1 + ch + k[i] + w[i];
      uint32_t S0 = rotr (a, 2) ^ rotr (a, 13) ^ rotr (a, 22);
      uint32_t maj = (a & bb) ^ (a & c) ^ (bb & c);
      uint32_t t2 = S0 + maj;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = bb;
      bb = a;
      a = t1 + t2;
    }
    h_[0] += a;
    h_[1] += bb;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
    h_[5] += f;
    h_[6] += g;
    h_[7] += h;
  }

  uint32_t h_[8];
  unsigned char block_[64];
  size_t fill_ = 0;
  uint64_t total_ = 0;
};

}  /* namespace */

std::string
sha256_hex (const void *data, size_t size)
{
  Sha256 s;
  s.update ((const unsigned char *) data, size);
  unsigned char d[32];
  s.finish (d);
  static const char hex[] = "0123456789abcdef";
  std::string out (64, '0');
  for (int i = 0; i < 32; i++) {
    out[2 * i] = hex[d[i] >> 4];
    out[2 * i + 1] = hex[d[i] & 15];
  }
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
  std::string path = path_for (prefix, key);
  int fd = open (path.c_str (), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT && errno != ENOTDIR)
      report_failure (errno_text ("cannot open", path, errno));
    return false;
  }
  struct stat st;
  std::vector<unsigned char> data;
  bool ok = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) &&
      (uint64_t) st.st_size <= max_entry_bytes;
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
  std::string error;
  if (!make_directories (dir_, &error)) {
    report_failure (error);
    return false;
  }
  std::string path = path_for (prefix, key);
  std::string header = magic + std::to_string (key.size ()) + " " +
      std::to_string (size) + " " + sha256_hex (bytes, size) + "\n";

  /* A unique temporary file in the same directory (so rename() is atomic),
   * whose name no reader looks at. mkstemp() creates it mode 0600. */
  std::string tmp = dir_ + "/.tmp-" + prefix + "-XXXXXX";
  int fd = mkstemp (&tmp[0]);
  if (fd < 0) {
    report_failure (errno_text ("cannot write in", dir_, errno));
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
  if (ok && rename (tmp.c_str (), path.c_str ()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    unlink (tmp.c_str ());
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
