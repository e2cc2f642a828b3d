/* afet-extract's workers: each item through its runner, outputs written
 * under a temporary name and renamed when complete (work.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "work.h"

#include <glib/gstdio.h>
#include <gst/audio/audio.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lists.h"
#include "runner.h"
#include "wavreader.h"

namespace afetx
{

namespace
{

/* An output written under a temporary name, renamed to its own when
 * complete: an interrupted run never leaves a complete-looking file
 * behind.  The temporary file is created exclusively in the output's
 * folder under a name no one can predict (mkstemp: O_CREAT | O_EXCL, so
 * never a file or link planted there), and written through its
 * descriptor; rename() then replaces the output's name itself, a link
 * planted there included, never the file a link points to. */
class PartFile
{
public:
  ~PartFile ()
  {
    discard ();
  }
  bool create (const std::string & out, mode_t mode, std::string * why)
  {
    out_ = out;
    gchar *dir = g_path_get_dirname (out.c_str ());
    gchar *base = g_path_get_basename (out.c_str ());
    /* the name's start, so that a listing shows whose part it is; short
     * enough for any output's name */
    std::string head (base);
    if (head.size () > 200)
      head.resize (200);
    path_ = std::string (dir) + "/" + head + ".afet-part-XXXXXX";
    g_free (dir);
    g_free (base);
    std::vector<char> t (path_.begin (), path_.end ());
    t.push_back ('\0');
    fd_ = mkostemp (t.data (), O_CLOEXEC);
    if (fd_ < 0) {
      *why = "cannot create a file beside " + out + ": " + g_strerror (errno);
      return false;
    }
    path_ = t.data ();
    /* mkstemp's 0600 would make outputs private: the mode open() gives */
    if (fchmod (fd_, mode) != 0) {
      *why = "cannot set the mode of " + path_ + ": " + g_strerror (errno);
      discard ();
      return false;
    }
    return true;
  }
  int fd () const
  {
    return fd_;
  }
  /* closes (a late write error is an error) and renames */
  bool commit (std::string * why)
  {
    const int fd = fd_;
    fd_ = -1;
    if (close (fd) != 0) {
      *why = "cannot write " + out_ + ": " + g_strerror (errno);
      g_unlink (path_.c_str ());
      return false;
    }
    if (g_rename (path_.c_str (), out_.c_str ()) != 0) {
      *why = "cannot rename " + path_ + " to " + out_ + ": " +
          g_strerror (errno);
      g_unlink (path_.c_str ());
      return false;
    }
    return true;
  }
  void discard ()
  {
    if (fd_ >= 0) {
      close (fd_);
      g_unlink (path_.c_str ());
    }
    fd_ = -1;
  }

private:
  std::string out_, path_;
  int fd_ = -1;
};

/* set by the handler: a lock-free atomic is async-signal-safe */
std::atomic<int> stop_signal { 0 };
static_assert (std::atomic<int>::is_always_lock_free,
    "the signal handler needs a lock-free atomic");

void
on_stop_signal (int sig)
{
  int none = 0;
  stop_signal.compare_exchange_strong (none, sig);
}

}  /* namespace */

void
catch_stop_signals ()
{
  struct sigaction sa = { };
  sa.sa_handler = on_stop_signal;
  sigemptyset (&sa.sa_mask);
  /* SA_RESETHAND: a second signal takes the default action (a user who
   * presses ^C twice means it); SA_RESTART: reads and writes go on */
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  for (int sig: {SIGTERM, SIGINT, SIGHUP})
    sigaction (sig, &sa, nullptr);
}

int
interrupted ()
{
  return stop_signal.load ();
}

bool
make_parent (const std::string & path, std::string * why)
{
  gchar *dir = g_path_get_dirname (path.c_str ());
  bool ok = g_mkdir_with_parents (dir, 0777) == 0;
  if (!ok)
    *why = std::string ("cannot create ") + dir + ": " + g_strerror (errno);
  g_free (dir);
  return ok;
}

/* a WAV file shorter than its header says: true when it fails (its
 * errors in r), else a warning in r with --keep-truncated */
static bool
fails_truncated (const Options & o, const Item & it, Result * r)
{
  std::string why;
  if (it.command || !wav_truncated (it.input, &why))
    return false;
  if (!o.keep_truncated) {
    if (it.segments.empty ())
      r->errors.push_back (it.key + " (" + it.input + "): " + why);
    for (const auto & s:it.segments)
      r->errors.push_back (s.id + " (" + it.key + "): " + why);
    return true;
  }
  r->warnings.push_back (it.key + " (" + it.input + "): " + why.substr (0,
          why.find (';')) + "; computed what it holds (--keep-truncated)");
  return false;
}

static void
process_item (Shared * sh, Runner * files, Runner * commands,
    Runner * decoder, Runner * segs, Runner * wavs, const Item & it,
    Result * r)
{
  const Options & o = *sh->opt;
  if (it.segments.empty ()) {
    if (o.skip_existing && !it.out.empty () &&
        g_file_test (it.out.c_str (), G_FILE_TEST_EXISTS)) {
      r->skipped = true;
      return;
    }
    if (fails_truncated (o, it, r))
      return;
    std::string why, entry;
    PartFile part;
    if (!it.out.empty () && (!make_parent (it.out, &why) ||
            !part.create (it.out, o.file_mode, &why))) {
      r->errors.push_back (it.key + " (" + it.input + "): " + why);
      return;
    }
    double secs = 0;
    const int out = it.out.empty ()? -1 : part.fd ();
    PlainWav wav;
    bool ok;
    if (!it.command && o.wav_reader && read_plain_wav (it.input, o.rate,
            o.keep_truncated, &wav)) {
      ok = wavs->run_wav (&wav, it.key, out, &entry, &secs, &why);
      sh->direct++;
    } else
      ok = (it.command ? commands : files)->run (it.input, it.command,
          it.key, out, &entry, &secs, &why);
    if (ok && !it.out.empty ())
      ok = part.commit (&why);
    r->audio_s = secs;
    if (!ok)
      r->errors.push_back (it.key + " (" + it.input + "): " + why);
    else if (it.out.empty ())
      r->entries.emplace_back (it.key, entry);
    return;
  }
  /* segments: decode once, then every segment alone */
  if (fails_truncated (o, it, r))
    return;
  GstCaps *caps = nullptr;
  std::vector<guint8> pcm;
  std::string why;
  if (!decoder->decode (it.input, it.command, &caps, &pcm, &why)) {
    for (const auto & s:it.segments)
      r->errors.push_back (s.id + " (" + it.key + "): " + why);
    return;
  }
  GstAudioInfo ai;
  gst_audio_info_from_caps (&ai, caps);
  const size_t bpf = GST_AUDIO_INFO_BPF (&ai);
  const int64_t n = (int64_t) (pcm.size () / bpf);
  r->audio_s = (double) n / ai.rate;
  if (!rate_agrees (o, ai.rate, &why)) {
    for (const auto & s:it.segments)
      r->errors.push_back (s.id + " (" + it.key + "): " + why);
    gst_caps_unref (caps);
    return;
  }
  for (const auto & s:it.segments) {
    if (interrupted ()) {
      /* the rest is left for --skip-existing */
      r->errors.push_back (s.id + " (" + it.key + "): stopped by a signal "
          "before this segment");
      continue;
    }
    const std::string & out = s.out;
    if (o.skip_existing && !out.empty () &&
        g_file_test (out.c_str (), G_FILE_TEST_EXISTS))
      continue;
    /* the sample range, rounded to the nearest sample; the times are
     * finite and at most kMaxSegmentSeconds (make_items), so the products
     * fit an int64 */
    const int64_t a = (int64_t) (s.start * ai.rate + 0.5);
    int64_t b = s.end == -1 ? n : (int64_t) (s.end * ai.rate + 0.5);
    if (a >= n || b <= a) {
      r->errors.push_back (s.id + " (" + it.key + "): the segment " +
          std::to_string (s.start) + "-" + std::to_string (s.end) +
          " s is outside the recording (" + std::to_string (r->audio_s) +
          " s)");
      continue;
    }
    /* an end past the recording: clipped when it overshoots by less than
     * --max-overshoot, else the segment fails, as Kaldi's extract-segments
     * does (it too compares in samples, the limit truncated) */
    if (b > n) {
      if (b - n >= (int64_t) (o.max_overshoot * ai.rate)) {
        r->errors.push_back (s.id + " (" + it.key + "): the segment ends "
            "at " + std::to_string (s.end) + " s, " + std::to_string ((b -
                    n) / (double) ai.rate) + " s past the end of the "
            "recording (" + std::to_string (r->audio_s) + " s); "
            "--max-overshoot " + std::to_string (o.max_overshoot) +
            " s allows less");
        continue;
      }
      b = n;
    }
    std::string entry, w;
    PartFile part;
    if (!out.empty () && (!make_parent (out, &w) ||
            !part.create (out, o.file_mode, &w))) {
      r->errors.push_back (s.id + ": " + w);
      continue;
    }
    bool ok = segs->run_segment (caps, pcm.data () + a * bpf,
        (size_t) (b - a) * bpf, s.id, out.empty ()? -1 : part.fd (),
        &entry, &w);
    if (ok && !out.empty ())
      ok = part.commit (&w);
    if (!ok)
      r->errors.push_back (s.id + " (" + it.key + "): " + w);
    else if (out.empty ())
      r->entries.emplace_back (s.id, entry);
  }
  gst_caps_unref (caps);
}

void
worker (Shared * sh, int w)
{
  const Options & o = *sh->opt;
  std::string dev = sh->devices.empty ()? "" :
      sh->devices[w % sh->devices.size ()];
  Runner files (o, dev), commands (o, dev), decoder (o, dev), segs (o, dev),
      wavs (o, dev);
  /* items a worker may be ahead of the archive writer: 4 a job (the jobs
   * there are, -j's default included: o.jobs is 0 then) */
  const size_t backlog = 4 * (size_t) sh->jobs + 4;
  bool first = true;
  for (;;) {
    if (sh->stop || interrupted ())
      break;
    const size_t i = sh->next++;
    if (i >= sh->items->size ())
      break;
    if (!o.ark.empty ()) {
      /* keep the archive writer's backlog bounded */
      std::unique_lock < std::mutex > l (sh->lock);
      sh->cond.wait (l, [&] {
            return i < sh->written + backlog || sh->stop;
          });
      if (sh->stop)
        break;
    }
    Result r;
    process_item (sh, &files, &commands, &decoder, &segs, &wavs,
        (*sh->items)[i], &r);
    r.cut = interrupted () != 0 && !r.errors.empty ();
    sh->audio_us += (guint64) (r.audio_s * 1e6);
    {
      std::lock_guard < std::mutex > l (sh->lock);
      r.done = true;
      sh->results[i] = std::move (r);
    }
    sh->finished++;
    if (first && ++sh->firsts == sh->jobs) {
      std::lock_guard < std::mutex > l (sh->lock);
      sh->steady_t0 = g_get_monotonic_time ();
      sh->steady_audio_us = sh->audio_us;
    }
    first = false;
    sh->cond.notify_all ();
  }
}

}  /* namespace afetx */
