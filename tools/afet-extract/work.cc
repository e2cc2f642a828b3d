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
#include <cerrno>

#include "lists.h"
#include "runner.h"
#include "wavreader.h"

namespace afetx
{

/* Writes to a temporary name, renamed on success: an interrupted run
 * never leaves a complete-looking file behind. */
static std::string
part_name (const std::string & out)
{
  return out + ".afet-part";
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

static void
process_item (Shared * sh, Runner * files, Runner * commands,
    Runner * decoder, Runner * segs, Runner * wavs, const Item & it,
    Result * r)
{
  const Options & o = *sh->opt;
  auto finish_file = [&](const std::string & out, bool ok,
      const std::string & key) {
    if (out.empty ())
      return;
    if (ok) {
      if (g_rename (part_name (out).c_str (), out.c_str ()) != 0)
        r->errors.push_back (key + ": cannot rename to " + out + ": " +
            g_strerror (errno));
    } else {
      g_unlink (part_name (out).c_str ());
    }
  };
  if (it.segments.empty ()) {
    if (o.skip_existing && !it.out.empty () &&
        g_file_test (it.out.c_str (), G_FILE_TEST_EXISTS)) {
      r->skipped = true;
      return;
    }
    std::string why, entry;
    if (!it.out.empty () && !make_parent (it.out, &why)) {
      r->errors.push_back (it.key + " (" + it.input + "): " + why);
      return;
    }
    double secs = 0;
    const std::string out = it.out.empty ()? "" : part_name (it.out);
    PlainWav wav;
    bool ok;
    if (!it.command && o.wav_reader && read_plain_wav (it.input, o.rate,
            &wav)) {
      ok = wavs->run_wav (&wav, it.key, out, &entry, &secs, &why);
      sh->direct++;
    } else
      ok = (it.command ? commands : files)->run (it.input, it.command,
          it.key, out, &entry, &secs, &why);
    finish_file (it.out, ok, it.key);
    r->audio_s = secs;
    if (!ok)
      r->errors.push_back (it.key + " (" + it.input + "): " + why);
    else if (it.out.empty ())
      r->entries.emplace_back (it.key, entry);
    return;
  }
  /* segments: decode once, then every segment alone */
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
    const std::string out = o.ark.empty ()? o.out_dir + "/" + s.id + "." +
        extension_of (o.format) : "";
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
    if (!out.empty () && !make_parent (out, &w)) {
      r->errors.push_back (s.id + ": " + w);
      continue;
    }
    bool ok = segs->run_segment (caps, pcm.data () + a * bpf,
        (size_t) (b - a) * bpf, s.id, out.empty ()? "" : part_name (out),
        &entry, &w);
    finish_file (out, ok, s.id);
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
  const size_t window = 4 * (size_t) o.jobs + 4;
  bool first = true;
  for (;;) {
    const size_t i = sh->next++;
    if (i >= sh->items->size ())
      break;
    if (!o.ark.empty ()) {
      /* keep the archive writer's backlog bounded */
      std::unique_lock < std::mutex > l (sh->lock);
      sh->cond.wait (l, [&] {
            return i < sh->written + window;
          });
    }
    Result r;
    process_item (sh, &files, &commands, &decoder, &segs, &wavs,
        (*sh->items)[i], &r);
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
