/* Tests of the on-disk cache of compiled programs and VkFFT plans.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The parent process never touches OpenCL (PoCL does not survive a fork
 * after use): it runs the pure file and hash tests itself, and for each
 * situation runs this program again (--child) in a fresh process with the
 * environment of that situation. The child builds the framing and melbank
 * programs and two FFT plans, runs FFTs of known data, and writes the cache
 * counters and the FFT output to files the parent compares.
 */
#include "cache.h"
#include "clutil.h"
#include "enginecheck.h"
#include "device.h"
#include "fft.h"

#include "afet-kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <dirent.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using enginecheck::check;

static const int fft_size = 512;
static const int caps[] = { 8, 64 };
static const int n_caps = 2;

/* ---- small file helpers ------------------------------------------------- */

static bool
read_file (const std::string &path, std::vector<unsigned char> *out)
{
  out->clear ();
  FILE *f = std::fopen (path.c_str (), "rb");
  if (!f)
    return false;
  unsigned char buf[65536];
  size_t n;
  while ((n = std::fread (buf, 1, sizeof (buf), f)) > 0)
    out->insert (out->end (), buf, buf + n);
  std::fclose (f);
  return true;
}

static bool
write_file (const std::string &path, const void *data, size_t size)
{
  FILE *f = std::fopen (path.c_str (), "wb");
  if (!f)
    return false;
  bool ok = std::fwrite (data, 1, size, f) == size;
  return std::fclose (f) == 0 && ok;
}

/* Files in dir whose names start with prefix, sorted. */
static std::vector<std::string>
list_files (const std::string &dir, const std::string &prefix)
{
  std::vector<std::string> out;
  DIR *d = opendir (dir.c_str ());
  if (!d)
    return out;
  while (struct dirent *e = readdir (d)) {
    std::string name = e->d_name;
    if (name.compare (0, prefix.size (), prefix) == 0)
      out.push_back (dir + "/" + name);
  }
  closedir (d);
  std::sort (out.begin (), out.end ());
  return out;
}

/* Every file under dir, recursively. */
static int
count_tree (const std::string &dir)
{
  int n = 0;
  DIR *d = opendir (dir.c_str ());
  if (!d)
    return 0;
  while (struct dirent *e = readdir (d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..")
      continue;
    std::string path = dir + "/" + name;
    struct stat st;
    if (lstat (path.c_str (), &st) == 0 && S_ISDIR (st.st_mode))
      n += count_tree (path);
    else
      n++;
  }
  closedir (d);
  return n;
}

/* ---- the child: one start of the engine --------------------------------- */

/* The child's warnings, one a line, for the parent to count. */
static std::string child_warnings;

static void
log_to_stdout (int level, const char *msg)
{
  std::printf ("  [afet %d] %s\n", level, msg);
  if (level <= afet::LOG_WARNING)
    child_warnings += std::string (msg) + "\n";
}

static float
test_sample (int row, int i)
{
  /* a tone per row, plus a little deterministic noise */
  uint32_t x = (uint32_t) (row * 7919 + i * 104729 + 12345);
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  double noise = (double) (x & 0xffff) / 65536.0 - 0.5;
  return (float) (1000.0 * std::sin (2 * M_PI * (row + 3) * i / fft_size) +
      50.0 * noise);
}

static int
child_main (const std::string &mode, const std::string &dir,
    const std::string &out)
{
  afet::set_log_handler (log_to_stdout);
  if (mode == "api")
    afet::set_cache_directory (dir);

  std::shared_ptr<afet::Device> dev;
  afet::Status st = afet::acquire_device ("auto", &dev);
  if (!st.ok ()) {
    std::printf ("no OpenCL device: %s\n", st.message ().c_str ());
    return 3;
  }
  std::printf ("  device: %s\n", dev->info ().describe ().c_str ());

  /* the programs, with options as framing.cc gives them; one with the
   * embedded SHA-256, one without */
  const std::string opts = "-DAFET_LSZ=64 -DAFET_MAX_FILTERS=256";
  cl_program framing = nullptr, melbank = nullptr;
  st = dev->program ("framing", afet::kernels::framing, opts, &framing,
      afet::kernels::framing_sha256);
  if (st.ok ())
    st = dev->program ("melbank", afet::kernels::melbank, opts, &melbank);
  if (!st.ok ()) {
    std::printf ("program: %s\n", st.message ().c_str ());
    return 4;
  }
  /* the programs work: their kernels are there */
  for (auto k : { std::make_pair (framing, "afet_frame"),
          std::make_pair (melbank, "afet_melbank") }) {
    cl_int err = CL_SUCCESS;
    cl_kernel kern = clCreateKernel (k.first, k.second, &err);
    if (err != CL_SUCCESS) {
      std::printf ("clCreateKernel %s: %s\n", k.second,
          afet::cl_error_name (err));
      return 5;
    }
    clReleaseKernel (kern);
  }
  /* "kernel": one kernel through make_kernel, as the stages build them (on
   * PoCL a program of that kernel alone) */
  if (mode == "kernel") {
    afet::ClKernel one;
    st = afet::make_kernel (*dev, "framing", afet::kernels::framing,
        afet::kernels::framing_sha256, opts, "afet_frame", &one);
    if (!st.ok () || !one) {
      std::printf ("make_kernel: %s\n", st.message ().c_str ());
      return 5;
    }
  }

  /* FFT plans and FFTs of known data */
  const int rows = caps[n_caps - 1], stride = fft_size + 2;
  cl_int err = CL_SUCCESS;
  afet::ClMem buf (clCreateBuffer (dev->context (), CL_MEM_READ_WRITE,
          (size_t) rows * stride * sizeof (float), nullptr, &err));
  afet::ClQueue queue;
  st = dev->create_queue (&queue);
  if (err != CL_SUCCESS || !st.ok ()) {
    std::printf ("buffer/queue failed\n");
    return 6;
  }
  afet::RealFft fft;
  st = fft.init (*dev, fft_size, std::vector<int> (caps, caps + n_caps),
      buf.get ());
  if (!st.ok ()) {
    std::printf ("fft init: %s\n", st.message ().c_str ());
    return 7;
  }
  std::vector<float> input ((size_t) rows * stride, 0.0f), result;
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < fft_size; i++)
      input[(size_t) r * stride + i] = test_sample (r, i);
  for (int n : { 5, rows }) {   /* the small plan, then the large one */
    std::vector<float> spec (input.size ());
    err = clEnqueueWriteBuffer (queue.get (), buf.get (), CL_TRUE, 0,
        input.size () * sizeof (float), input.data (), 0, nullptr, nullptr);
    if (err == CL_SUCCESS)
      st = fft.forward (queue.get (), buf.get (), n);
    if (err == CL_SUCCESS && st.ok ())
      err = clEnqueueReadBuffer (queue.get (), buf.get (), CL_TRUE, 0,
          spec.size () * sizeof (float), spec.data (), 0, nullptr, nullptr);
    if (err != CL_SUCCESS || !st.ok ()) {
      std::printf ("fft run failed\n");
      return 8;
    }
    result.insert (result.end (), spec.begin (),
        spec.begin () + (size_t) n * stride);
  }

  afet::CacheStats s = afet::cache_stats ();
  char line[256];
  std::snprintf (line, sizeof (line),
      "%llu %llu %llu %llu %llu %llu %llu %llu\n",
      (unsigned long long) s.program_hits,
      (unsigned long long) s.program_misses,
      (unsigned long long) s.plan_hits, (unsigned long long) s.plan_misses,
      (unsigned long long) s.plan_unsaveable,
      (unsigned long long) s.stores, (unsigned long long) s.errors,
      (unsigned long long) s.untrusted);
  std::printf ("  stats (program hits misses, plan hits misses unsaveable, "
      "stores, errors, untrusted): %s", line);
  std::fflush (stdout);
  if (!write_file (out + ".stats", line, std::strlen (line)) ||
      !write_file (out + ".warnings", child_warnings.data (),
          child_warnings.size ()) ||
      !write_file (out + ".fft", result.data (),
          result.size () * sizeof (float)))
    return 9;
  return 0;
}

/* ---- the parent --------------------------------------------------------- */

struct Run
{
  bool ok = false;
  afet::CacheStats stats;
  std::vector<unsigned char> fft;
  std::vector<std::string> warnings;    /* the engine's, one an entry */

  /* How many warnings mention every one of the words. */
  int
  warned (std::initializer_list<std::string> words) const
  {
    int n = 0;
    for (const auto &w : warnings) {
      bool all = true;
      for (const auto &word : words)
        all = all && w.find (word) != std::string::npos;
      n += all;
    }
    return n;
  }
};

static std::string self_exe;
static std::string work;

/* Runs the child in a fresh process with the environment as it is now. */
static Run
run_child (const char *mode, const std::string &dir, const char *label)
{
  Run r;
  static int count = 0;
  std::string out = work + "/run" + std::to_string (count++);
  std::printf ("-- %s\n", label);
  std::fflush (stdout);
  const char *argv[] = { self_exe.c_str (), "--child", mode, dir.c_str (),
    out.c_str (), nullptr };
  pid_t pid;
  if (posix_spawn (&pid, self_exe.c_str (), nullptr, nullptr,
          (char *const *) argv, environ) != 0) {
    check (false, std::string (label) + ": cannot start the child");
    return r;
  }
  int status = 0;
  waitpid (pid, &status, 0);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0) {
    check (false, std::string (label) + ": the child failed (status " +
        std::to_string (status) + ")");
    return r;
  }
  std::vector<unsigned char> text;
  read_file (out + ".stats", &text);
  text.push_back (0);
  unsigned long long v[8] = { 0 };
  if (std::sscanf ((const char *) text.data (),
          "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
          &v[3], &v[4], &v[5], &v[6], &v[7]) != 8) {
    check (false, std::string (label) + ": no counters from the child");
    return r;
  }
  r.stats.program_hits = v[0];
  r.stats.program_misses = v[1];
  r.stats.plan_hits = v[2];
  r.stats.plan_misses = v[3];
  r.stats.plan_unsaveable = v[4];
  r.stats.stores = v[5];
  r.stats.errors = v[6];
  r.stats.untrusted = v[7];
  std::vector<unsigned char> warnings;
  read_file (out + ".warnings", &warnings);
  std::string w (warnings.begin (), warnings.end ());
  for (size_t pos = 0, eol; (eol = w.find ('\n', pos)) != std::string::npos;
      pos = eol + 1)
    r.warnings.push_back (w.substr (pos, eol - pos));
  r.ok = read_file (out + ".fft", &r.fft) && !r.fft.empty ();
  check (r.ok, std::string (label) + ": the engine ran");
  return r;
}

static void
hash_and_file_cases ()
{
  /* SHA-256 test vectors (FIPS 180-2 examples) */
  check (afet::sha256_hex ("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4"
      "649b934ca495991b7852b855", "sha256 of the empty string");
  check (afet::sha256_hex ("abc") == "ba7816bf8f01cfea414140de5dae2223b00361"
      "a396177a9cb410ff61f20015ad", "sha256 of abc");
  check (afet::sha256_hex ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmn"
          "omnopnopq") == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6"
      "ecedd419db06c1", "sha256 of the 448-bit message");
  check (afet::sha256_hex (std::string (1000000, 'a')) == "cdc76e5c9914fb92"
      "81a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
      "sha256 of a million a");

  /* the engine's own hash of a source is kernels/embed.py's */
  check (afet::sha256_hex (afet::kernels::framing) ==
      afet::kernels::framing_sha256 && afet::sha256_hex (
          afet::kernels::melbank) == afet::kernels::melbank_sha256,
      "sha256 of the embedded sources matches embed.py's");

  /* DiskCache with an explicit directory, created on the first store */
  std::string dir = work + "/unit/a/b";
  afet::DiskCache c (dir);
  std::vector<unsigned char> got;
  check (c.enabled () && !c.load ("t", "key one", &got), "miss when absent");
  const char payload[] = "payload\0with\0nul bytes";
  check (c.store ("t", "key one", payload, sizeof (payload)),
      "store creates the directory");
  struct stat st;
  check (stat (dir.c_str (), &st) == 0 && (st.st_mode & 0777) == 0700,
      "cache directory mode 0700");
  check (c.load ("t", "key one", &got) && got.size () == sizeof (payload) &&
      std::memcmp (got.data (), payload, sizeof (payload)) == 0,
      "load gives back what was stored");
  check (!c.load ("t", "key two", &got), "another key misses");
  check (list_files (dir, ".tmp").empty () && list_files (dir, "t-").size ()
      == 1, "no temporary file left behind");

  /* the same file name holding another key's entry is not used */
  std::vector<unsigned char> one;
  read_file (c.path_for ("t", "key one"), &one);
  c.store ("t", "key two", "x", 1);
  write_file (c.path_for ("t", "key two"), one.data (), one.size ());
  afet::reset_cache_stats ();
  check (!c.load ("t", "key two", &got) && afet::cache_stats ().errors == 1,
      "an entry made for another key is refused");
  /* truncated, or a payload byte changed */
  write_file (c.path_for ("t", "key one"), one.data (), one.size () - 3);
  check (!c.load ("t", "key one", &got), "a truncated entry is refused");
  std::vector<unsigned char> bad = one;
  bad[bad.size () - 2] ^= 0x20;
  write_file (c.path_for ("t", "key one"), bad.data (), bad.size ());
  check (!c.load ("t", "key one", &got), "a corrupt entry is refused");
  check (c.store ("t", "key one", payload, sizeof (payload)) &&
      c.load ("t", "key one", &got), "a refused entry is rewritten");

  /* disabled */
  afet::DiskCache off ("disabled");
  check (!off.enabled () && !off.store ("t", "k", "x", 1) &&
      !off.load ("t", "k", &got), "a disabled cache stores nothing");

  /* unwritable: a regular file where a directory should be */
  write_file (work + "/unit/file", "x", 1);
  afet::DiskCache nowrite (work + "/unit/file/sub");
  afet::reset_cache_stats ();
  check (!nowrite.store ("t", "k", "x", 1) && afet::cache_stats ().errors == 1,
      "an unwritable directory fails the store, counted, no more");

  /* the directory from the environment */
  setenv ("AFET_CACHE_DIR", "/some/where", 1);
  check (afet::DiskCache::directory_from_environment () == "/some/where",
      "AFET_CACHE_DIR");
  setenv ("AFET_CACHE_DIR", "disabled", 1);
  check (afet::DiskCache::directory_from_environment ().empty (),
      "AFET_CACHE_DIR=disabled");
  unsetenv ("AFET_CACHE_DIR");
  setenv ("XDG_CACHE_HOME", "/xdg/cache", 1);
  check (afet::DiskCache::directory_from_environment () == "/xdg/cache/afet",
      "XDG_CACHE_HOME/afet");
  setenv ("XDG_CACHE_HOME", "relative", 1);
  setenv ("HOME", "/home/u", 1);
  check (afet::DiskCache::directory_from_environment () ==
      "/home/u/.cache/afet", "a relative XDG_CACHE_HOME is ignored: "
      "HOME/.cache/afet");
}

static bool
all_zero (const afet::CacheStats &s)
{
  return !s.program_hits && !s.program_misses && !s.plan_hits &&
      !s.plan_misses && !s.plan_unsaveable && !s.stores && !s.errors &&
      !s.untrusted;
}

/* ---- trust: whose files the cache takes --------------------------------- */

/* An entry file's key text and payload (the format cache.cc writes). */
static bool
parse_entry (const std::vector<unsigned char> &file, std::string *key,
    std::vector<unsigned char> *payload)
{
  const std::string magic = "AFET-CACHE 1\n";
  std::string text (file.begin (), file.end ());
  size_t eol = text.find ('\n', magic.size ());
  unsigned long long klen = 0, plen = 0;
  if (text.compare (0, magic.size (), magic) != 0 ||
      eol == std::string::npos || std::sscanf (text.c_str () + magic.size (),
          "%llu %llu", &klen, &plen) != 2 ||
      text.size () != eol + 1 + klen + plen)
    return false;
  key->assign (text, eol + 1, klen);
  payload->assign (file.begin () + (long) (eol + 1 + klen), file.end ());
  return true;
}

/* A well-formed entry of key holding payload, its checksum computed as
 * anyone who can write the file can. */
static std::vector<unsigned char>
make_entry (const std::string &key, const std::vector<unsigned char> &payload)
{
  std::string text = "AFET-CACHE 1\n" + std::to_string (key.size ()) + " " +
      std::to_string (payload.size ()) + " " +
      afet::sha256_hex (payload.data (), payload.size ()) + "\n" + key;
  std::vector<unsigned char> out (text.begin (), text.end ());
  out.insert (out.end (), payload.begin (), payload.end ());
  return out;
}

/* The report's "untrusted" case: a cache directory or entry another user
 * could have written is not used. The planted entry is framing's key with
 * melbank's binary and a recomputed checksum: the loader's own checks pass
 * it (shown first), and a framing program built from it has no afet_frame
 * kernel, which fails the child (exit 5). A child that runs, with framing
 * compiled from source, proves the entry was not loaded. */
static void
trust_cases (const Run &cold)
{
  /* umask 002 (a shared group's default): what afet creates is still 0700
   * and 0600, and used */
  const std::string dir = work + "/trust/afet";
  setenv ("AFET_CACHE_DIR", dir.c_str (), 1);
  mode_t old_mask = umask (002);
  Run fill = run_child ("env", dir, "trust: cold start, umask 002");
  Run hit = run_child ("env", dir, "trust: warm start, umask 002");
  umask (old_mask);
  struct stat st;
  check (stat (dir.c_str (), &st) == 0 && (st.st_mode & 07777) == 0700 &&
      st.st_uid == geteuid (), "umask 002: cache directory created 0700, "
      "ours");
  std::vector<std::string> progs = list_files (dir, "program-");
  bool modes = progs.size () == 2;
  for (const auto &p : list_files (dir, ""))
    if (p != dir + "/." && p != dir + "/..")
      modes = modes && lstat (p.c_str (), &st) == 0 && S_ISREG (st.st_mode)
          && (st.st_mode & 07777) == 0600;
  check (modes, "umask 002: entries written 0600");
  if (hit.ok)
    check (hit.stats.program_hits == 2 && hit.stats.untrusted == 0 &&
        hit.warnings.empty () && hit.fft == cold.fft, "a 0700 directory of "
        "ours: the cache is used, no warning");
  if (!fill.ok || progs.size () != 2)
    return;

  /* which file is which program */
  std::string fkey, mkey, framing;
  std::vector<unsigned char> fbin, mbin;
  for (const auto &p : progs) {
    std::vector<unsigned char> file, payload;
    std::string key;
    if (!read_file (p, &file) || !parse_entry (file, &key, &payload))
      continue;
    if (key.find ("name: framing\n") != std::string::npos) {
      fkey = key;
      fbin = payload;
      framing = p;
    } else if (key.find ("name: melbank\n") != std::string::npos) {
      mkey = key;
      mbin = payload;
    }
  }
  check (!fkey.empty () && !mkey.empty (), "trust: both entries parsed");
  if (fkey.empty () || mkey.empty ())
    return;
  /* an entry is bound to all it was built from: the whole source (includes
   * inlined by embed.py), the options, the platform and device */
  bool bound = fkey.find (std::string ("source-sha256: ") +
      afet::kernels::framing_sha256 + "\n") != std::string::npos &&
      fkey.find ("options: -cl-std=CL1.2 -DAFET_LSZ=64 "
          "-DAFET_MAX_FILTERS=256\n") != std::string::npos;
  for (const char *field : { "platform", "platform-version",
          "platform-vendor", "device", "device-version", "device-vendor",
          "driver-version" })
    bound = bound && fkey.find (std::string ("\n") + field + ": ") !=
        std::string::npos;
  check (bound, "trust: the key holds the source's SHA-256, the options, "
      "platform, device, vendors and driver version");
  const std::vector<unsigned char> planted = make_entry (fkey, mbin);
  auto plant = [&] () {
    unlink (framing.c_str ());
    return write_file (framing, planted.data (), planted.size ()) &&
        chmod (framing.c_str (), 0600) == 0;
  };

  /* the loader's checks alone pass the planted entry: only ownership and
   * mode keep it out */
  std::vector<unsigned char> got;
  afet::DiskCache cache (dir);
  check (plant () && cache.load ("program", fkey, &got) && got == mbin,
      "a planted entry with a recomputed checksum passes the loader's "
      "checks (so these do not make it trusted)");

  struct Case
  {
    const char *label;
    std::function<bool ()> make;
    std::string names;          /* what the warning names */
    std::string fix;            /* and the fix it gives */
    bool whole_dir;
  };
  const bool root = geteuid () == 0;
  std::vector<Case> cases;
  cases.push_back ({ "entry mode 0666", [&] () {
        return plant () && chmod (framing.c_str (), 0666) == 0; },
      framing, "rm", false });
  if (root)
    cases.push_back ({ "entry owned by nobody", [&] () {
          return plant () && chown (framing.c_str (), 65534, 65534) == 0; },
        framing, "rm", false });
  else
    enginecheck::skip ("trust: an entry owned by another user (needs root "
        "to chown)");
  const std::string elsewhere = work + "/trust/elsewhere.bin";
  cases.push_back ({ "symlinked entry", [&] () {
        unlink (elsewhere.c_str ());
        return write_file (elsewhere, planted.data (), planted.size ()) &&
            chmod (elsewhere.c_str (), 0600) == 0 &&
            unlink (framing.c_str ()) == 0 &&
            symlink (elsewhere.c_str (), framing.c_str ()) == 0; },
      framing, "rm", false });
  cases.push_back ({ "directory mode 0777", [&] () {
        return plant () && chmod (dir.c_str (), 0777) == 0; },
      dir, "chmod go-w", true });
  cases.push_back ({ "directory mode 0775", [&] () {
        return plant () && chmod (dir.c_str (), 0775) == 0; },
      dir, "chmod go-w", true });
  if (root)
    cases.push_back ({ "directory owned by nobody", [&] () {
          return plant () && chmod (dir.c_str (), 0700) == 0 &&
              chown (dir.c_str (), 65534, 65534) == 0; },
        dir, "AFET_CACHE_DIR", true });

  for (const auto &c : cases) {
    const std::string label = std::string ("trust: ") + c.label;
    afet::reset_cache_stats ();
    bool made = c.make ();
    check (made, label + ": set up");
    if (!made)
      continue;
    check (!cache.load ("program", fkey, &got) &&
        afet::cache_stats ().untrusted == 1, label + ": refused by load()");
    Run r = run_child ("env", dir, label.c_str ());
    if (r.ok) {
      /* the child ran: framing has its kernel, the planted binary was not
       * used */
      check (r.stats.untrusted >= 1 && r.stats.program_hits ==
          (c.whole_dir ? 0u : 1u) && r.stats.program_misses ==
          (c.whole_dir ? 2u : 1u), label + ": refused, programs compiled "
          "from source");
      check (r.warned ({ "cache:" }) == 1 &&
          r.warned ({ c.names, c.fix }) == 1, label + ": said once, naming "
          + c.names + " and the fix ('" + c.fix + "')");
      check (r.fft == cold.fft, label + ": FFT output bit-identical");
      if (c.whole_dir)
        check (r.stats.stores == 0 && list_files (dir, ".tmp").empty (),
            label + ": nothing written into it");
    }
    /* back to a directory of ours */
    if (root)
      chown (dir.c_str (), geteuid (), getegid ());
    chmod (dir.c_str (), 0700);
  }

  /* the planted entry removed, the directory ours again: used again */
  unlink (framing.c_str ());
  Run healed = run_child ("env", dir, "trust: back to a 0700 directory");
  Run again = run_child ("env", dir, "trust: warm again");
  if (healed.ok && again.ok)
    check (again.stats.program_hits == 2 && again.stats.untrusted == 0 &&
        again.warnings.empty (), "trust: a directory made ours again is "
        "used");
}

int
main (int argc, char **argv)
{
  if (argc == 5 && std::strcmp (argv[1], "--child") == 0)
    return child_main (argv[2], argv[3], argv[4]);

  char exe[4096];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof (exe) - 1);
  self_exe = n > 0 ? std::string (exe, (size_t) n) : std::string (argv[0]);
  const char *tmp = std::getenv ("TMPDIR");
  std::string templ = std::string (tmp && *tmp ? tmp : "/tmp") +
      "/afet-test-cache-XXXXXX";
  if (!mkdtemp (&templ[0])) {
    std::printf ("cannot make a temporary directory\n0 passed, 1 failed\n");
    return 1;
  }
  work = templ;
  std::printf ("working in %s\n", work.c_str ());

  const char *saved_home = std::getenv ("HOME");
  std::string home = saved_home ? saved_home : "";
  hash_and_file_cases ();
  unsetenv ("XDG_CACHE_HOME");
  if (saved_home)
    setenv ("HOME", home.c_str (), 1);

  /* afet's own program store on every driver, PoCL included (whose own
   * kernel cache makes afet leave it out by default: checked at the end) */
  setenv ("AFET_CACHE_PROGRAMS", "always", 1);

  /* cold: a cache directory that does not exist yet */
  const std::string dir = work + "/cache/afet";
  setenv ("AFET_CACHE_DIR", dir.c_str (), 1);
  Run cold = run_child ("env", dir, "cold start");
  bool plans_saveable = cold.ok && cold.stats.plan_unsaveable == 0;
  const unsigned n_plans_stored = plans_saveable ? n_caps : 0;
  if (cold.ok) {
    check (cold.stats.program_misses == 2 && cold.stats.program_hits == 0,
        "cold: both programs compiled");
    check (cold.stats.plan_misses == n_caps && cold.stats.plan_hits == 0,
        "cold: both plans compiled");
    check (cold.stats.stores == 2 + n_plans_stored &&
        cold.stats.errors == 0, "cold: stored, no errors");
    check (list_files (dir, "program-").size () == 2, "cold: two program "
        "files");
    check (list_files (dir, "vkfft-").size () == n_plans_stored,
        "cold: plan files");
    if (!plans_saveable)
      std::printf ("NOTE: VkFFT cannot save this driver's binaries: the plan "
          "cache is not used here (the driver's own cache is); plan hits "
          "are not tested\n");
  }

  /* warm: a fresh process finds everything */
  Run warm = run_child ("env", dir, "warm start");
  if (warm.ok) {
    check (warm.stats.program_hits == 2 && warm.stats.program_misses == 0,
        "warm: both programs from the cache");
    if (plans_saveable)
      check (warm.stats.plan_hits == n_caps && warm.stats.plan_misses == 0,
          "warm: both plans from the cache");
    check (warm.stats.stores == 0 && warm.stats.errors == 0,
        "warm: nothing stored, no errors");
    check (warm.fft == cold.fft, "warm: FFT output bit-identical to cold");
  }

  /* corrupt entries: a truncated program, a program file holding the other
   * program's entry, a plan with a flipped byte */
  std::vector<std::string> progs = list_files (dir, "program-");
  std::vector<std::string> plans = list_files (dir, "vkfft-");
  if (progs.size () == 2) {
    std::vector<unsigned char> a, b;
    read_file (progs[0], &a);
    read_file (progs[1], &b);
    write_file (progs[0], a.data (), a.size () / 2);
    write_file (progs[1], a.data (), a.size ());
    for (auto &p : plans) {
      std::vector<unsigned char> x;
      read_file (p, &x);
      x[x.size () - x.size () / 3] ^= 0x01;
      write_file (p, x.data (), x.size ());
    }
    Run bad = run_child ("env", dir, "corrupt entries");
    if (bad.ok) {
      check (bad.stats.program_hits == 0 && bad.stats.program_misses == 2,
          "corrupt: programs compiled again");
      check (bad.stats.plan_hits == 0 && bad.stats.plan_misses == n_caps,
          "corrupt: plans compiled again");
      check (bad.stats.errors == 2 + n_plans_stored, "corrupt: each bad "
          "entry counted as an error");
      check (bad.stats.stores == 2 + n_plans_stored, "corrupt: rewritten");
      check (bad.fft == cold.fft, "corrupt: FFT output bit-identical");
    }
    Run again = run_child ("env", dir, "warm after rewrite");
    if (again.ok) {
      check (again.stats.program_hits == 2 &&
          again.stats.plan_hits == n_plans_stored &&
          again.stats.errors == 0 && again.stats.stores == 0,
          "rewritten entries are used");
      check (again.fft == cold.fft, "rewritten: FFT output bit-identical");
    }
  }

  trust_cases (cold);

  /* disabled: nothing written, not even under XDG_CACHE_HOME (where PoCL
   * keeps its own cache: only ours is looked at) */
  const std::string xdg = work + "/xdg";
  mkdir (xdg.c_str (), 0700);
  setenv ("XDG_CACHE_HOME", xdg.c_str (), 1);
  setenv ("AFET_CACHE_DIR", "disabled", 1);
  Run off = run_child ("env", "", "AFET_CACHE_DIR=disabled");
  if (off.ok) {
    check (all_zero (off.stats), "disabled: no lookups, no stores");
    check (count_tree (xdg + "/afet") == 0 && access ((xdg + "/afet").c_str (),
            F_OK) != 0, "disabled: no files written");
    check (off.fft == cold.fft, "disabled: FFT output bit-identical");
  }

  /* the default directory: XDG_CACHE_HOME/afet */
  unsetenv ("AFET_CACHE_DIR");
  Run def = run_child ("env", "", "default directory");
  if (def.ok)
    check (list_files (xdg + "/afet", "program-").size () == 2,
        "default: files under XDG_CACHE_HOME/afet");

  /* set_cache_directory() wins over the environment */
  setenv ("AFET_CACHE_DIR", "disabled", 1);
  const std::string api_dir = work + "/api";
  Run api = run_child ("api", api_dir, "set_cache_directory()");
  if (api.ok) {
    check (api.stats.program_misses == 2 &&
        list_files (api_dir, "program-").size () == 2,
        "set_cache_directory: files in the directory chosen");
    check (api.fft == cold.fft, "set_cache_directory: FFT output "
        "bit-identical");
  }

  /* unwritable: a regular file where the directory should be */
  const std::string blocked = work + "/blocked";
  write_file (blocked, "x", 1);
  setenv ("AFET_CACHE_DIR", (blocked + "/afet").c_str (), 1);
  Run ro = run_child ("env", "", "unwritable cache directory");
  if (ro.ok) {
    check (ro.stats.stores == 0 && ro.stats.errors == 2 + n_plans_stored &&
        ro.stats.program_misses == 2, "unwritable: compiled, nothing "
        "stored, failures counted");
    check (ro.fft == cold.fft, "unwritable: FFT output bit-identical");
  }

  /* by default, a driver with a persistent cache of its own (PoCL) gets no
   * program stores from afet; others do */
  unsetenv ("AFET_CACHE_PROGRAMS");
  const std::string own = work + "/own";
  setenv ("AFET_CACHE_DIR", own.c_str (), 1);
  Run dflt = run_child ("env", own, "default program stores");
  if (dflt.ok) {
    std::shared_ptr<afet::Device> dev;
    const bool pocl = afet::acquire_device ("auto", &dev).ok () &&
        dev->info ().platform_name.find ("Portable Computing Language") !=
        std::string::npos && !std::getenv ("POCL_KERNEL_CACHE");
    const size_t want = pocl ? 0 : 2;
    check (list_files (own, "program-").size () == want &&
        dflt.stats.program_misses == want && dflt.fft == cold.fft,
        std::string ("default: ") + (pocl ? "PoCL: programs of two "
            "kernels are not stored" : "both programs stored"));
    /* a stage's kernel through make_kernel: on PoCL a program of one
     * kernel, stored, and loaded by the next process */
    const std::string one = work + "/one";
    setenv ("AFET_CACHE_DIR", one.c_str (), 1);
    Run k1 = run_child ("kernel", one, "default: make_kernel, cold");
    Run k2 = run_child ("kernel", one, "default: make_kernel, warm");
    const size_t files = pocl ? 1 : 2;
    if (k1.ok && k2.ok)
      check (list_files (one, "program-").size () == files &&
          k1.stats.program_misses == files && k2.stats.program_hits ==
          files && k2.stats.program_misses == 0 && k2.fft == cold.fft,
          std::string ("default: ") + (pocl ? "PoCL: make_kernel's program "
              "of one kernel stored and loaded" : "make_kernel shares the "
              "stored program"));
  }

  /* the FFT itself is right (not merely the same twice): bins of a few rows
   * against a double-precision DFT */
  if (cold.ok) {
    const float *spec = (const float *) cold.fft.data ();
    const int stride = fft_size + 2;
    double worst = 0.0;
    for (int r : { 0, 3, 4 }) {
      for (int k = 0; k <= fft_size / 2; k += 7) {
        double re = 0.0, im = 0.0;
        for (int i = 0; i < fft_size; i++) {
          double x = test_sample (r, i);
          re += x * std::cos (2 * M_PI * k * i / fft_size);
          im -= x * std::sin (2 * M_PI * k * i / fft_size);
        }
        double e = std::hypot (spec[r * stride + 2 * k] - re,
            spec[r * stride + 2 * k + 1] - im);
        worst = std::max (worst, e);
      }
    }
    /* amplitude 1000 x 256 bins: float rounding is around 1e-2 */
    check (worst < 1.0, "the FFT matches a DFT (worst error " +
        std::to_string (worst) + ")");
  }

  if (enginecheck::failed == 0) {
    std::string cmd = "rm -rf '" + work + "'";
    if (std::system (cmd.c_str ()) != 0)
      std::printf ("could not remove %s\n", work.c_str ());
  }
  return enginecheck::finish ();
}
