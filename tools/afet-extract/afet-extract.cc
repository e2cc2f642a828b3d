/* afet-extract — speech features for a list of recordings, as fast as the
 * disks and the device allow.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One GStreamer pipeline per worker (--jobs), reused from file to file:
 *
 *   filesrc ! decodebin ! audioconvert ! audioresample !
 *       audio/x-raw,channels=1[,rate=R] ! CHAIN ! afetenc format=F ! filesink
 *
 * (--print-pipeline shows it; -C builds CHAIN from an HCopy config).
 * Kaldi archives (--ark) are written by the main thread in list order from
 * the workers' entries; with --segments a recording is decoded once and
 * each segment goes through the chain alone.
 * A failed input is reported and listed at the end; the others go on.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <CL/cl.h>
#include <gst/gst.h>
#include <gst/app/app.h>
#include <gst/audio/audio.h>
#include <glib/gstdio.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "afetfeatures.h"
#include "afethtkconfig.h"

namespace
{

/* ------------------------------------------------------------ options */

struct Options
{
  std::string chain = "afetmfcc";
  int rate = 0;
  /* -C: the HCopy config the chain comes from (SOURCERATE is checked
   * against every input) */
  bool htk = false;
  afet::HtkConfig htk_config;
  std::string scp, out_dir, wav_scp, segments, ark;
  std::string format = "htk";
  int jobs = 2;
  std::string device = "auto";
  int shard_k = 1, shard_n = 1;
  bool skip_existing = false;
  bool quiet = false;
  bool progress = false;
  bool print_pipeline = false;
  bool wav_reader = true;       /* plain PCM WAV read by us (read_plain_wav) */
};

struct Segment
{
  std::string id;
  double start = 0, end = -1;
};

/* One input: a file or a command, and where its features go. */
struct Item
{
  size_t index = 0;             /* in the (sharded) list */
  std::string key;              /* uttid or base name */
  std::string input;            /* path, or a shell command */
  bool command = false;
  std::string out;              /* per-file output; empty with --ark */
  std::vector<Segment> segments;  /* --segments: cut from this recording */
};

/* What a worker made of an item. */
struct Result
{
  bool done = false;
  bool skipped = false;
  std::vector<std::string> errors;   /* "KEY: why" */
  /* --ark: the entries, in segment order */
  std::vector<std::pair<std::string, std::string>> entries;
  double audio_s = 0;
};

const char *
extension_of (const std::string & f)
{
  if (f == "htk")
    return "htk";
  if (f == "npy")
    return "npy";
  if (f == "kaldi")
    return "ark";
  return "f32";
}

std::string
base_name_no_ext (const std::string & path)
{
  gchar *b = g_path_get_basename (path.c_str ());
  std::string s = b;
  g_free (b);
  size_t dot = s.rfind ('.');
  if (dot != std::string::npos && dot > 0)
    s.resize (dot);
  return s;
}

std::vector<std::string>
split_ws (const std::string & line, size_t max_fields)
{
  std::vector<std::string> f;
  size_t i = 0;
  while (i < line.size ()) {
    while (i < line.size () && g_ascii_isspace (line[i]))
      i++;
    if (i >= line.size ())
      break;
    if (f.size () + 1 == max_fields) {
      std::string rest = line.substr (i);
      while (!rest.empty () && g_ascii_isspace (rest.back ()))
        rest.pop_back ();
      f.push_back (rest);
      break;
    }
    size_t j = i;
    while (j < line.size () && !g_ascii_isspace (line[j]))
      j++;
    f.push_back (line.substr (i, j - i));
    i = j;
  }
  return f;
}

bool
read_lines (const std::string & path, std::vector<std::string> *lines,
    std::string * why)
{
  gchar *text = nullptr;
  GError *err = nullptr;
  if (!g_file_get_contents (path.c_str (), &text, nullptr, &err)) {
    *why = err->message;
    g_error_free (err);
    return false;
  }
  gchar **v = g_strsplit (text, "\n", -1);
  for (gchar ** l = v; *l; l++) {
    std::string s = *l;
    if (!s.empty () && s.back () == '\r')
      s.pop_back ();
    lines->push_back (s);
  }
  g_strfreev (v);
  g_free (text);
  return true;
}

bool
blank (const std::string & s)
{
  return s.find_first_not_of (" \t") == std::string::npos;
}

/* Builds the work list from the options; false with a message on error. */
bool
make_items (const Options & o, std::vector<Item> *items, std::string * why)
{
  std::vector<std::string> lines;
  const std::string ext = extension_of (o.format);
  std::vector<Item> all;
  if (!o.scp.empty ()) {
    if (!read_lines (o.scp, &lines, why))
      return false;
    for (size_t n = 0; n < lines.size (); n++) {
      if (blank (lines[n]))
        continue;
      auto f = split_ws (lines[n], 2);
      Item it;
      it.input = f[0];
      it.key = base_name_no_ext (f[0]);
      if (f.size () == 2 && o.ark.empty ()) {
        it.out = f[1];
      } else if (!o.out_dir.empty ()) {
        it.out = o.out_dir + "/" + it.key + "." + ext;
      } else if (o.ark.empty ()) {
        *why = o.scp + ":" + std::to_string (n + 1) + ": one column needs "
            "--out-dir (or --ark)";
        return false;
      }
      all.push_back (it);
    }
  } else {
    if (!read_lines (o.wav_scp, &lines, why))
      return false;
    std::map<std::string, size_t> by_id;
    for (size_t n = 0; n < lines.size (); n++) {
      if (blank (lines[n]))
        continue;
      auto f = split_ws (lines[n], 2);
      if (f.size () < 2) {
        *why = o.wav_scp + ":" + std::to_string (n + 1) + ": expected "
            "'uttid path' or 'uttid command |'";
        return false;
      }
      Item it;
      it.key = f[0];
      it.input = f[1];
      if (!it.input.empty () && it.input.back () == '|') {
        it.command = true;
        it.input.pop_back ();
        while (!it.input.empty () && g_ascii_isspace (it.input.back ()))
          it.input.pop_back ();
      }
      if (o.ark.empty ())
        it.out = o.out_dir + "/" + it.key + "." + ext;
      if (by_id.count (it.key)) {
        *why = o.wav_scp + ":" + std::to_string (n + 1) + ": uttid " +
            it.key + " appears twice";
        return false;
      }
      by_id[it.key] = all.size ();
      all.push_back (it);
    }
    if (!o.segments.empty ()) {
      std::vector<std::string> seg_lines;
      if (!read_lines (o.segments, &seg_lines, why))
        return false;
      std::vector<bool> used (all.size (), false);
      for (size_t n = 0; n < seg_lines.size (); n++) {
        if (blank (seg_lines[n]))
          continue;
        auto f = split_ws (seg_lines[n], 0);
        char *e1 = nullptr, *e2 = nullptr;
        Segment s;
        if (f.size () >= 4) {
          s.start = g_ascii_strtod (f[2].c_str (), &e1);
          s.end = g_ascii_strtod (f[3].c_str (), &e2);
        }
        if (f.size () < 4 || *e1 || *e2 || s.start < 0 ||
            (s.end >= 0 && s.end <= s.start)) {
          *why = o.segments + ":" + std::to_string (n + 1) + ": expected "
              "'segment-id recording-id start end' (seconds; end -1: to the "
              "end)";
          return false;
        }
        auto r = by_id.find (f[1]);
        if (r == by_id.end ()) {
          *why = o.segments + ":" + std::to_string (n + 1) + ": recording " +
              f[1] + " is not in " + o.wav_scp;
          return false;
        }
        s.id = f[0];
        all[r->second].segments.push_back (s);
        used[r->second] = true;
      }
      /* only recordings that have segments are extracted */
      std::vector<Item> kept;
      for (size_t i = 0; i < all.size (); i++)
        if (used[i])
          kept.push_back (all[i]);
      all.swap (kept);
    }
  }
  for (size_t i = 0; i < all.size (); i++)
    if ((int) (i % o.shard_n) == o.shard_k - 1) {
      all[i].index = items->size ();
      items->push_back (all[i]);
    }
  return true;
}

/* ------------------------------------------------------------ devices */

/* "P:D" of every GPU, or of every device when there is no GPU. */
std::vector<std::string>
all_devices ()
{
  std::vector<std::string> gpus, any;
  cl_uint np = 0;
  if (clGetPlatformIDs (0, nullptr, &np) != CL_SUCCESS || np == 0)
    return any;
  std::vector<cl_platform_id> plats (np);
  clGetPlatformIDs (np, plats.data (), nullptr);
  for (cl_uint p = 0; p < np; p++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs (plats[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) !=
        CL_SUCCESS)
      continue;
    std::vector<cl_device_id> devs (nd);
    clGetDeviceIDs (plats[p], CL_DEVICE_TYPE_ALL, nd, devs.data (), nullptr);
    for (cl_uint d = 0; d < nd; d++) {
      cl_device_type t = 0;
      clGetDeviceInfo (devs[d], CL_DEVICE_TYPE, sizeof t, &t, nullptr);
      std::string id = std::to_string (p) + ":" + std::to_string (d);
      any.push_back (id);
      if (t & CL_DEVICE_TYPE_GPU)
        gpus.push_back (id);
    }
  }
  return gpus.empty ()? any : gpus;
}

/* ------------------------------------------------------------ pipelines */

/* The pipeline, as gst-launch-1.0 would take it.  decodebin's audio pad
 * is linked by us (on_pad_added) on every run: gst_parse_launch links a
 * dynamic pad only once. */
std::string
audio_caps (const Options & o)
{
  std::string caps = "audio/x-raw,channels=1";
  if (o.rate > 0)
    caps += ",rate=" + std::to_string (o.rate);
  return caps;
}

/* afetenc and what takes its bytes: a file, or memory (an archive entry;
 * the entry is held whole, so no max-hold limit) */
std::string
encoder_text (const Options & o, bool to_memory)
{
  return "afetenc name=afetx_enc format=" + o.format + (to_memory ?
      " max-hold=18446744073709551615 ! appsink name=afetx_sink sync=false "
      "wait-on-eos=false" : " ! filesink name=afetx_sink");
}

std::string
pipeline_text (const Options & o, const char *src, bool to_memory,
    bool for_launch = false)
{
  return std::string (src) + " ! decodebin name=afetx_dec " +
      (for_launch ? "! " : " ") + "audioconvert name=afetx_conv ! "
      "audioresample ! capsfilter name=afetx_caps caps=\"" + audio_caps (o) +
      "\" ! " + o.chain + " ! " + encoder_text (o, to_memory);
}

void
on_pad_added (GstElement * dec, GstPad * pad, gpointer user)
{
  GstElement *conv = GST_ELEMENT (user);
  GstPad *sink = gst_element_get_static_pad (conv, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  if (!caps)
    caps = gst_pad_query_caps (pad, nullptr);
  const GstStructure *s = caps && gst_caps_get_size (caps) ?
      gst_caps_get_structure (caps, 0) : nullptr;
  if (s && g_str_has_prefix (gst_structure_get_name (s), "audio/") &&
      !gst_pad_is_linked (sink))
    gst_pad_link (pad, sink);
  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (sink);
}

struct Counters
{
  std::atomic<guint64> audio_bytes { 0 };
  std::atomic<guint64> feature_bytes { 0 };
  int bytes_per_second = 0;
  int rate = 0;                 /* of the audio entering the chain */
  int frame_bytes = 0;
};

GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  auto *c = (std::atomic<guint64> *) user;
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER)
    *c += gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

/* -C: an input whose rate is not the config's SOURCERATE is refused, as
 * HCopy would not resample it. */
bool
rate_agrees (const Options & o, int rate, std::string * why)
{
  if (!o.htk)
    return true;
  afet::Status st = afet::htk_config_check_rate (o.htk_config, rate);
  if (!st.ok ())
    *why = st.message ();
  return st.ok ();
}

/* ------------------------------------------------------------ WAV */

/* A plain PCM WAV file: mono, 16-bit integer or 32-bit float samples, at
 * the rate wanted (or any, without --rate), its data chunk whole. Such a
 * file needs no decoding, mixing or resampling, and afet-extract reads it
 * itself into one buffer for appsrc: filesrc ! decodebin ! audioconvert !
 * audioresample would find its type, plug a parser and cut it into 2 KB
 * buffers, which costs more per file than afet's work on a short one
 * (about 1 ms a file, and 10 ms of a 5-minute one). The samples are the
 * same (tests/extract compares the two byte for byte); anything else goes
 * through decodebin (--no-wav-reader: everything). */
struct PlainWav
{
  const char *format = nullptr; /* S16LE or F32LE */
  int rate = 0;
  GstBuffer *data = nullptr;    /* its samples, PTS 0 and duration set */
  ~PlainWav ()
  {
    if (data)
      gst_buffer_unref (data);
  }
};

guint32
le32 (const guint8 * b)
{
  return (guint32) b[0] | (guint32) b[1] << 8 | (guint32) b[2] << 16 |
      (guint32) b[3] << 24;
}

guint16
le16 (const guint8 * b)
{
  return (guint16) (b[0] | b[1] << 8);
}

/* false: not such a file, or unreadable (decodebin then says why) */
bool
read_plain_wav (const std::string & path, int want_rate, PlainWav * w)
{
  int fd = open (path.c_str (), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st;
  guint8 h[40];
  bool ok = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) &&
      pread (fd, h, 12, 0) == 12 && memcmp (h, "RIFF", 4) == 0 &&
      memcmp (h + 8, "WAVE", 4) == 0;
  const guint64 size = ok ? (guint64) st.st_size : 0;
  guint64 at = 12;
  bool have_fmt = false;
  while (ok && at + 8 <= size) {
    if (pread (fd, h, 8, (off_t) at) != 8)
      break;
    const guint32 len = le32 (h + 4);
    const guint64 body = at + 8;
    if (memcmp (h, "fmt ", 4) == 0) {
      if (len < 16 || pread (fd, h, std::min<guint32> (len, 40),
              (off_t) body) != (ssize_t) std::min<guint32> (len, 40))
        break;
      guint16 tag = le16 (h);
      if (tag == 0xFFFE && len >= 40)   /* WAVE_FORMAT_EXTENSIBLE */
        tag = le16 (h + 24);
      const int channels = le16 (h + 2), align = le16 (h + 12),
          bits = le16 (h + 14);
      w->rate = (int) le32 (h + 4);
      w->format = channels != 1 ? nullptr : tag == 1 && bits == 16 &&
          align == 2 ? "S16LE" : tag == 3 && bits == 32 && align == 4 ?
          "F32LE" : nullptr;
      have_fmt = w->format != nullptr;
      if (!have_fmt)
        break;
    } else if (memcmp (h, "data", 4) == 0) {
      /* a length that is not the file's (streamed, truncated) and odd
       * sample counts: decodebin's rules */
      const guint32 unit = g_str_equal (w->format ? w->format : "", "S16LE")
          ? 2 : 4;
      if (!have_fmt || len == 0 || body + len > size || len % unit != 0 ||
          w->rate <= 0 || (want_rate > 0 && w->rate != want_rate))
        break;
      /* (no memory for it: decodebin streams it instead) */
      w->data = gst_buffer_new_allocate (nullptr, len, nullptr);
      GstMapInfo map;
      if (!w->data || !gst_buffer_map (w->data, &map, GST_MAP_WRITE)) {
        gst_clear_buffer (&w->data);
        break;
      }
      GST_BUFFER_PTS (w->data) = 0;
      GST_BUFFER_DURATION (w->data) = gst_util_uint64_scale (len / unit,
          GST_SECOND, (guint64) w->rate);
      size_t got = 0;
      while (got < len) {
        ssize_t r = pread (fd, map.data + got, len - got,
            (off_t) (body + got));
        if (r <= 0)
          break;
        got += (size_t) r;
      }
      gst_buffer_unmap (w->data, &map);
      close (fd);
      if (got == len)
        return true;
      gst_clear_buffer (&w->data);
      return false;
    }
    at = body + len + (len & 1);        /* chunks are padded to even sizes */
  }
  close (fd);
  return false;
}

/* A pipeline of one worker, reused from input to input. */
class Runner
{
public:
  Runner (const Options & o, const std::string & device)
  :opt_ (o), device_ (device)
  {
  }
  ~Runner ()
  {
    drop ();
  }

  /* Runs one input through; fills *why on failure. */
  bool run (const std::string & input, bool command, const std::string & key,
      const std::string & out, std::string * entry, double *audio_s,
      std::string * why);

  /* --segments: the decoded audio of a recording, and one segment. */
  /* points the source at a file, or at a started command's output */
  bool set_source (const std::string & input, bool command, int *fd,
      GPid * pid, std::string * why);
  bool decode (const std::string & input, bool command, GstCaps ** caps,
      std::vector<guint8> *pcm, std::string * why);
  bool run_segment (GstCaps * caps, const guint8 * data, size_t bytes,
      const std::string & key, const std::string & out, std::string * entry,
      std::string * why);
  /* a plain WAV file's samples (read_plain_wav; its buffer is taken) */
  bool run_wav (PlainWav * wav, const std::string & key,
      const std::string & out, std::string * entry, double *audio_s,
      std::string * why);

private:
  bool build (const std::string & text, std::string * why);
  /* A run: begin (the key, the output file, the counters, PLAYING), then
   * end (ok from wait (); the entry, the audio's seconds and the checks
   * every input gets; a fresh pipeline after a failure). */
  bool begin (const std::string & key, const std::string & out,
      std::string * why);
  bool end (bool ok, const std::string & out, std::string * entry,
      double *audio_s, std::string * why);
  /* buf (taken), the whole input in caps, through "appsrc ! CHAIN !
   * afetenc" */
  bool run_buffer (GstCaps * caps, GstBuffer * buf, const std::string & key,
      const std::string & out, std::string * entry, double *audio_s,
      std::string * why);
  void drop ();
  bool wait (std::string * why, int child_fd, GPid child);
  void set_devices ();

  const Options & opt_;
  std::string device_;
  GstElement *pipe_ = nullptr;
  GstElement *src_ = nullptr, *enc_ = nullptr, *sink_ = nullptr;
  Counters counts_;
};

void
Runner::drop ()
{
  if (pipe_) {
    gst_element_set_state (pipe_, GST_STATE_NULL);
    gst_object_unref (pipe_);
  }
  pipe_ = src_ = enc_ = sink_ = nullptr;
}

void
Runner::set_devices ()
{
  if (device_.empty ())
    return;
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (pipe_));
  GValue v = G_VALUE_INIT;
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = GST_ELEMENT (g_value_get_object (&v));
    GstElementFactory *f = gst_element_get_factory (e);
    if (f && g_str_has_prefix (GST_OBJECT_NAME (f), "afet") &&
        g_object_class_find_property (G_OBJECT_GET_CLASS (e), "device"))
      g_object_set (e, "device", device_.c_str (), nullptr);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

bool
Runner::build (const std::string & text, std::string * why)
{
  GError *err = nullptr;
  pipe_ = gst_parse_launch_full (text.c_str (), nullptr,
      GST_PARSE_FLAG_FATAL_ERRORS, &err);
  if (!pipe_) {
    *why = std::string ("cannot build the pipeline: ") + (err ? err->message :
        "?") + " (" + text + ")";
    g_clear_error (&err);
    return false;
  }
  src_ = gst_bin_get_by_name (GST_BIN (pipe_), "afetx_src");
  enc_ = gst_bin_get_by_name (GST_BIN (pipe_), "afetx_enc");
  sink_ = gst_bin_get_by_name (GST_BIN (pipe_), "afetx_sink");
  /* the references live as long as the pipeline */
  if (src_)
    gst_object_unref (src_);
  if (enc_)
    gst_object_unref (enc_);
  if (sink_)
    gst_object_unref (sink_);
  GstElement *dec = gst_bin_get_by_name (GST_BIN (pipe_), "afetx_dec");
  GstElement *conv = gst_bin_get_by_name (GST_BIN (pipe_), "afetx_conv");
  if (dec && conv)
    g_signal_connect_object (dec, "pad-added", G_CALLBACK (on_pad_added),
        conv, (GConnectFlags) 0);
  if (dec)
    gst_object_unref (dec);
  if (conv)
    gst_object_unref (conv);
  GstElement *caps = gst_bin_get_by_name (GST_BIN (pipe_), "afetx_caps");
  if (caps) {
    GstPad *pad = gst_element_get_static_pad (caps, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_probe,
        &counts_.audio_bytes, nullptr);
    gst_object_unref (pad);
    gst_object_unref (caps);
  }
  if (enc_) {
    GstPad *pad = gst_element_get_static_pad (enc_, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_probe,
        &counts_.feature_bytes, nullptr);
    gst_object_unref (pad);
  }
  set_devices ();
  return true;
}

/* Waits for EOS or an error; the error's text in *why. */
bool
Runner::wait (std::string * why, int child_fd, GPid child)
{
  GstBus *bus = gst_element_get_bus (pipe_);
  bool ok = false;
  for (;;) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *e = nullptr;
      gchar *dbg = nullptr;
      gst_message_parse_error (m, &e, &dbg);
      *why = e->message;
      if (e->domain == GST_STREAM_ERROR &&
          (e->code == GST_STREAM_ERROR_TYPE_NOT_FOUND ||
              e->code == GST_STREAM_ERROR_WRONG_TYPE))
        *why = "not audio GStreamer can decode (" + *why + ")";
      g_error_free (e);
      g_free (dbg);
    } else {
      ok = true;
    }
    gst_message_unref (m);
    break;
  }
  gst_object_unref (bus);
  /* the caps of the audio, for the hours of the progress line */
  counts_.bytes_per_second = counts_.rate = 0;
  GstElement *caps = gst_bin_get_by_name (GST_BIN (pipe_), "afetx_caps");
  if (caps) {
    GstPad *pad = gst_element_get_static_pad (caps, "src");
    GstCaps *c = gst_pad_get_current_caps (pad);
    GstAudioInfo ai;
    if (c && gst_audio_info_from_caps (&ai, c)) {
      counts_.bytes_per_second = GST_AUDIO_INFO_BPF (&ai) * ai.rate;
      counts_.rate = ai.rate;
    }
    if (c)
      gst_caps_unref (c);
    gst_object_unref (pad);
    gst_object_unref (caps);
  }
  counts_.frame_bytes = 0;
  if (enc_) {
    GstPad *pad = gst_element_get_static_pad (enc_, "sink");
    GstCaps *c = gst_pad_get_current_caps (pad);
    AfetFeaturesInfo fi;
    if (c && afet_features_info_from_caps (&fi, c))
      counts_.frame_bytes = (int) AFET_FEATURES_INFO_FRAME_BYTES (&fi);
    if (c)
      gst_caps_unref (c);
    gst_object_unref (pad);
  }
  gst_element_set_state (pipe_, GST_STATE_READY);
  if (child_fd >= 0) {
    close (child_fd);
    int status = 0;
    waitpid (child, &status, 0);
    g_spawn_close_pid (child);
    if (!(WIFEXITED (status) && WEXITSTATUS (status) == 0)) {
      /* the command's failure explains any decoding error after it */
      *why = "the command failed (" + (WIFEXITED (status) ?
          "exit status " + std::to_string (WEXITSTATUS (status)) :
          std::string ("killed by a signal")) + ")" + (ok ? "" : ": " + *why);
      ok = false;
    }
  }
  return ok;
}

/* Starts "sh -c COMMAND" with its stdout on a pipe. */
bool
spawn_command (const std::string & cmd, int *fd, GPid * pid, std::string * why)
{
  const gchar *argv[] = { "/bin/sh", "-c", cmd.c_str (), nullptr };
  GError *err = nullptr;
  if (!g_spawn_async_with_pipes (nullptr, (gchar **) argv, nullptr,
          (GSpawnFlags) (G_SPAWN_DO_NOT_REAP_CHILD), nullptr, nullptr, pid,
          nullptr, fd, nullptr, &err)) {
    *why = std::string ("cannot run the command: ") + err->message;
    g_error_free (err);
    return false;
  }
  return true;
}

/* The bytes an appsink received, concatenated. */
std::string
drain_appsink (GstElement * sink)
{
  std::string out;
  while (GstSample * s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0)) {
    GstBuffer *b = gst_sample_get_buffer (s);
    GstMapInfo map;
    if (b && gst_buffer_map (b, &map, GST_MAP_READ)) {
      out.append ((const char *) map.data, map.size);
      gst_buffer_unmap (b, &map);
    }
    gst_sample_unref (s);
  }
  return out;
}

bool
Runner::set_source (const std::string & input, bool command, int *fd,
    GPid * pid, std::string * why)
{
  if (command) {
    if (!spawn_command (input, fd, pid, why))
      return false;
    g_object_set (src_, "fd", *fd, nullptr);
    return true;
  }
  if (!g_file_test (input.c_str (), G_FILE_TEST_IS_REGULAR)) {
    *why = "cannot read " + input + ": " + (g_file_test (input.c_str (),
            G_FILE_TEST_EXISTS) ? "not a regular file" : "no such file");
    return false;
  }
  g_object_set (src_, "location", input.c_str (), nullptr);
  return true;
}

bool
Runner::run (const std::string & input, bool command, const std::string & key,
    const std::string & out, std::string * entry, double *audio_s,
    std::string * why)
{
  const bool to_memory = out.empty ();
  if (!pipe_) {
    const char *src = command ? "fdsrc name=afetx_src" :
        "filesrc name=afetx_src";
    if (!build (pipeline_text (opt_, src, to_memory), why))
      return false;
  }
  int fd = -1;
  GPid pid = 0;
  if (!set_source (input, command, &fd, &pid, why))
    return false;
  bool ok = begin (key, out, why);
  if (ok)
    ok = wait (why, fd, pid);
  else if (fd >= 0) {
    close (fd);
    waitpid (pid, nullptr, 0);
  }
  return end (ok, out, entry, audio_s, why);
}

bool
Runner::begin (const std::string & key, const std::string & out,
    std::string * why)
{
  g_object_set (enc_, "key", key.c_str (), nullptr);
  if (!out.empty ()) {
    /* filesink keeps its file open in READY: close it alone */
    gst_element_set_state (sink_, GST_STATE_NULL);
    g_object_set (sink_, "location", out.c_str (), nullptr);
  }
  counts_.audio_bytes = 0;
  counts_.feature_bytes = 0;
  if (gst_element_set_state (pipe_, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE)
    return true;
  *why = "the pipeline did not start";
  return false;
}

bool
Runner::end (bool ok, const std::string & out, std::string * entry,
    double *audio_s, std::string * why)
{
  *audio_s = counts_.bytes_per_second ?
      (double) counts_.audio_bytes / counts_.bytes_per_second : 0;
  if (out.empty ())
    *entry = drain_appsink (sink_);
  if (ok && counts_.feature_bytes == 0) {
    *why = "too short for one frame (" + std::to_string (*audio_s) +
        " s of audio)";
    ok = false;
  }
  if (ok && !rate_agrees (opt_, counts_.rate, why))
    ok = false;                 /* the file is not kept */
  if (!ok)
    drop ();                    /* a fresh pipeline for the next input */
  return ok;
}

bool
Runner::decode (const std::string & input, bool command, GstCaps ** caps,
    std::vector<guint8> *pcm, std::string * why)
{
  std::string text = std::string (command ? "fdsrc name=afetx_src" :
      "filesrc name=afetx_src") + " ! decodebin name=afetx_dec "
      "audioconvert name=afetx_conv ! audioresample ! capsfilter "
      "name=afetx_caps caps=\"" + audio_caps (opt_) + "\" ! "
      "appsink name=afetx_sink sync=false";
  if (!pipe_ && !build (text, why))
    return false;
  int fd = -1;
  GPid pid = 0;
  if (!set_source (input, command, &fd, &pid, why))
    return false;
  pcm->clear ();
  *caps = nullptr;
  if (gst_element_set_state (pipe_, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    *why = "the decoder did not start";
    drop ();
    return false;
  }
  /* pull everything (the appsink holds what we have not pulled) */
  for (;;) {
    GstSample *s = gst_app_sink_pull_sample (GST_APP_SINK (sink_));
    if (!s)
      break;
    if (!*caps && gst_sample_get_caps (s))
      *caps = gst_caps_ref (gst_sample_get_caps (s));
    GstBuffer *b = gst_sample_get_buffer (s);
    GstMapInfo map;
    if (b && gst_buffer_map (b, &map, GST_MAP_READ)) {
      pcm->insert (pcm->end (), map.data, map.data + map.size);
      gst_buffer_unmap (b, &map);
    }
    gst_sample_unref (s);
  }
  bool ok = wait (why, fd, pid);
  if (ok && !*caps) {
    *why = "no audio";
    ok = false;
  }
  if (!ok) {
    if (*caps)
      gst_caps_unref (*caps);
    *caps = nullptr;
    drop ();
  }
  return ok;
}

bool
Runner::run_buffer (GstCaps * caps, GstBuffer * buf, const std::string & key,
    const std::string & out, std::string * entry, double *audio_s,
    std::string * why)
{
  if (!pipe_) {
    std::string text = "appsrc name=afetx_src format=time ! capsfilter "
        "name=afetx_caps ! " + opt_.chain + " ! " + encoder_text (opt_,
        out.empty ());
    if (!build (text, why)) {
      gst_buffer_unref (buf);
      return false;
    }
  }
  /* the duration sizes the elements' batches (max-batch 0) */
  g_object_set (src_, "caps", caps, "duration", (guint64)
      GST_BUFFER_DURATION (buf), nullptr);
  bool ok = begin (key, out, why);
  if (ok) {
    gst_app_src_push_buffer (GST_APP_SRC (src_), buf);
    gst_app_src_end_of_stream (GST_APP_SRC (src_));
    ok = wait (why, -1, 0);
  } else {
    gst_buffer_unref (buf);
  }
  return end (ok, out, entry, audio_s, why);
}

bool
Runner::run_segment (GstCaps * caps, const guint8 * data, size_t bytes,
    const std::string & key, const std::string & out, std::string * entry,
    std::string * why)
{
  GstAudioInfo ai;
  gst_audio_info_from_caps (&ai, caps);
  GstBuffer *buf = gst_buffer_new_memdup (data, bytes);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (bytes /
      GST_AUDIO_INFO_BPF (&ai), GST_SECOND, (guint64) ai.rate);
  double audio_s = 0;
  return run_buffer (caps, buf, key, out, entry, &audio_s, why);
}

bool
Runner::run_wav (PlainWav * wav, const std::string & key,
    const std::string & out, std::string * entry, double *audio_s,
    std::string * why)
{
  GstCaps *caps = gst_caps_new_simple ("audio/x-raw", "format",
      G_TYPE_STRING, wav->format, "layout", G_TYPE_STRING, "interleaved",
      "rate", G_TYPE_INT, wav->rate, "channels", G_TYPE_INT, 1, nullptr);
  GstBuffer *buf = wav->data;
  wav->data = nullptr;
  bool ok = run_buffer (caps, buf, key, out, entry, audio_s, why);
  gst_caps_unref (caps);
  return ok;
}

/* ------------------------------------------------------------ the run */

struct Shared
{
  const Options *opt = nullptr;
  std::vector<Item> *items = nullptr;
  std::vector<Result> results;
  std::vector<std::string> devices;
  std::atomic<size_t> next { 0 };
  std::mutex lock;
  std::condition_variable cond;
  size_t written = 0;           /* --ark: results written so far */
  std::atomic<size_t> finished { 0 };
  std::atomic<guint64> audio_us { 0 };
  std::atomic<size_t> direct { 0 };     /* plain WAV files read by us */
  /* the steady state: from when every job has finished its first input
   * (the device's programs, plans and each job's stages are built) */
  int jobs = 1;
  std::atomic<int> firsts { 0 };
  gint64 steady_t0 = 0;         /* under lock */
  guint64 steady_audio_us = 0;
};

/* Writes to a temporary name, renamed on success: an interrupted run
 * never leaves a complete-looking file behind. */
std::string
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

void
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
    /* the sample range as Kaldi's extract-segments rounds it */
    int64_t a = (int64_t) (s.start * ai.rate + 0.5);
    int64_t b = s.end < 0 ? n : (int64_t) (s.end * ai.rate + 0.5);
    b = std::min (b, n);
    if (a >= n || b <= a) {
      r->errors.push_back (s.id + " (" + it.key + "): the segment " +
          std::to_string (s.start) + "-" + std::to_string (s.end) +
          " s is outside the recording (" + std::to_string (r->audio_s) +
          " s)");
      continue;
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

/* --ark: the byte offset where an archive's valid entries end, from its
 * scp (the last complete entry), and the keys it holds. */
bool
resume_archive (const std::string & ark, const std::string & scp,
    std::map<std::string, bool> *have, guint64 * end, std::string * why)
{
  *end = 0;
  std::vector<std::string> lines;
  if (!g_file_test (scp.c_str (), G_FILE_TEST_EXISTS))
    return true;
  if (!read_lines (scp, &lines, why))
    return false;
  FILE *f = fopen (ark.c_str (), "rb");
  for (const auto & l:lines) {
    auto fld = split_ws (l, 2);
    if (fld.size () != 2)
      continue;
    size_t colon = fld[1].rfind (':');
    if (colon == std::string::npos)
      continue;
    guint64 off = g_ascii_strtoull (fld[1].c_str () + colon + 1, nullptr, 10);
    unsigned char h[15];
    if (!f || fseeko (f, (off_t) off, SEEK_SET) != 0 ||
        fread (h, 1, 15, f) != 15 || h[0] != 0 || h[1] != 'B' ||
        h[5] != 4 || h[10] != 4)
      break;                    /* that entry is not complete */
    guint32 rows, cols;
    memcpy (&rows, h + 6, 4);
    memcpy (&cols, h + 11, 4);
    rows = GUINT32_FROM_LE (rows);
    cols = GUINT32_FROM_LE (cols);
    const guint64 e = off + 15 + (guint64) rows * cols * 4;
    if (fseeko (f, 0, SEEK_END) != 0 || (guint64) ftello (f) < e)
      break;
    (*have)[fld[0]] = true;
    *end = std::max (*end, e);
  }
  if (f)
    fclose (f);
  return true;
}

std::string
hms (double s)
{
  if (!std::isfinite (s) || s < 0)
    return "?";
  int t = (int) (s + 0.5);
  char buf[32];
  if (t >= 3600)
    g_snprintf (buf, sizeof buf, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
  else
    g_snprintf (buf, sizeof buf, "%d:%02d", t / 60, t % 60);
  return buf;
}

}  /* namespace */

int
main (int argc, char **argv)
{
  Options o;
  gchar *chain = nullptr, *config = nullptr, *scp = nullptr,
      *out_dir = nullptr, *wav_scp = nullptr, *segments = nullptr,
      *ark = nullptr, *format = nullptr, *device = nullptr, *shard = nullptr;
  gint jobs = o.jobs, rate = 0;
  gboolean skip = FALSE, quiet = FALSE, progress = FALSE, print = FALSE,
      no_wav_reader = FALSE;
  GOptionEntry entries[] = {
    {"pipeline", 'p', 0, G_OPTION_ARG_STRING, &chain,
        "The afet elements to run, as in gst-launch-1.0 (default: afetmfcc)",
        "CHAIN"},
    {"config", 'C', 0, G_OPTION_ARG_FILENAME, &config,
          "Build the chain from an HCopy configuration file, as HCopy -C "
          "FILE does (TARGETKIND, WINDOWSIZE, TARGETRATE, NUMCHANS, ...: "
          "docs/files.md); instead of --pipeline", "FILE"},
    {"rate", 'r', 0, G_OPTION_ARG_INT, &rate,
        "Resample the audio to HZ first (default: keep its rate)", "HZ"},
    {"scp", 0, 0, G_OPTION_ARG_FILENAME, &scp,
          "HCopy-style list: 'IN OUT' per line, or 'IN' with --out-dir or "
          "--ark", "FILE"},
    {"out-dir", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir,
          "Write IN's features to DIR/<IN's base name without extension>"
          ".<htk|npy|ark|f32> (DIR/<uttid>.<ext> with --wav-scp); created "
          "if missing", "DIR"},
    {"wav-scp", 0, 0, G_OPTION_ARG_FILENAME, &wav_scp,
          "Kaldi-style list: 'uttid path' or 'uttid command |' (run by "
          "/bin/sh, audio on its standard output)", "FILE"},
    {"segments", 0, 0, G_OPTION_ARG_FILENAME, &segments,
          "Kaldi segments: 'segment-id recording-id start end' (seconds; "
          "end -1: to the end); keys are the segment ids", "FILE"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
        "Output format: htk (default), npy, kaldi (or ark), raw", "FORMAT"},
    {"ark", 0, 0, G_OPTION_ARG_FILENAME, &ark,
          "Write one Kaldi archive DIR/NAME.ark and its index DIR/NAME.scp "
          "('KEY DIR/NAME.ark:OFFSET'); implies --format kaldi",
        "DIR/NAME.ark"},
    {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
        "Pipelines running at once, sharing the device (default: 2)", "N"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
          "auto (default: the afet elements choose), all (every GPU, or "
          "every OpenCL device when there is no GPU; jobs are spread over "
          "them), or a comma-separated list of the elements' device values "
          "(e.g. 0:0,0:1)", "DEVICE"},
    {"shard", 0, 0, G_OPTION_ARG_STRING, &shard,
          "Take only the K-th of N equal shares of the list (K from 1 to "
          "N; input i goes to share i mod N + 1), for Slurm arrays or GNU "
          "parallel", "K/N"},
    {"skip-existing", 0, 0, G_OPTION_ARG_NONE, &skip,
          "Leave inputs whose output exists (with --ark: whose key is in "
          "NAME.scp) and go on with the rest, to resume a run", nullptr},
    {"no-wav-reader", 0, 0, G_OPTION_ARG_NONE, &no_wav_reader,
          "Decode every input with GStreamer's decodebin (by default "
          "afet-extract reads plain mono 16-bit or float WAV files itself "
          "when no resampling is needed: the same samples, less work per "
          "file)", nullptr},
    {"progress", 0, 0, G_OPTION_ARG_NONE, &progress,
        "Show the progress line even when stderr is not a terminal", nullptr},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
        "No progress line and no summary; errors only", nullptr},
    {"print-pipeline", 0, 0, G_OPTION_ARG_NONE, &print,
        "Print the pipeline used for every input, and exit", nullptr},
    {nullptr}
  };
  GOptionContext *ctx = g_option_context_new ("- speech features for a list "
      "of recordings");
  g_option_context_add_main_entries (ctx, entries, nullptr);
  g_option_context_set_summary (ctx,
      "Decodes every input with GStreamer (WAV, FLAC, Ogg, MP3, ...: "
      "whatever decodebin can), converts it to mono, runs the afet chain and "
      "writes a feature file per input (HTK, NumPy, raw float32) or one "
      "Kaldi archive.\n\nExamples:\n"
      "  afet-extract --scp list.scp                   # 'in.wav out.htk' per "
      "line, HTK MFCC\n"
      "  afet-extract --scp wavs.txt -o feats -p 'afetmfcc ! afetdelta ! "
      "afetcmvn columns=htk'\n"
      "  afet-extract -C hcopy.cfg --scp list.scp      # HCopy -C hcopy.cfg "
      "-S list.scp\n"
      "  afet-extract --wav-scp wav.scp --ark data/feats.ark -p "
      "'afetmfcc num-ceps=0 num-filters=80'\n"
      "  afet-extract --wav-scp wav.scp --segments segments --ark "
      "data/feats.ark\n"
      "  sbatch --array=1-8 --wrap 'afet-extract --scp all.scp -o feats "
      "--shard $SLURM_ARRAY_TASK_ID/8'");
  g_option_context_set_description (ctx,
      "Every input that fails (unreadable, not audio, too short for one "
      "frame, a failing command) is reported with its reason and listed "
      "again at the end; the others go on, and the exit status is 1.  "
      "Outputs are written under a temporary name and renamed when "
      "complete, so --skip-existing never keeps a partial file.\n\n"
      "-C FILE reads an HCopy configuration and builds the chain that "
      "computes HCopy's numbers (afetmfcc or afetplp, afetcmvn for "
      "ENORMALISE, afetdelta, afetcmvn for _Z); the output is an HTK file "
      "unless --format says otherwise, its header HCopy's.  A setting afet "
      "cannot reproduce is a usage error that names the line; an input "
      "whose rate is not the config's SOURCERATE fails.\n\n"
      "Exit status: 0 all done, 1 some inputs failed, 2 bad usage.");
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  GError *err = nullptr;
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("afet-extract: %s (try --help)\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  gst_init (&argc, &argv);

  auto usage = [](const std::string & m) {
    g_printerr ("afet-extract: %s (try --help)\n", m.c_str ());
    return 2;
  };
  if (argc > 1)
    return usage (std::string ("unexpected argument '") + argv[1] + "'");
  if (chain && config)
    return usage ("-C/--config builds the chain from the HTK config and "
        "-p/--pipeline gives it: use one of them, not both");
  if (chain)
    o.chain = chain;
  o.rate = rate;
  if (config) {
    /* the reader's message names the file, line, key and value */
    afet::Status st = afet::htk_config_read (config, &o.htk_config);
    if (st.ok ())
      st = afet::htk_config_chain (o.htk_config, &o.chain);
    if (st.ok () && o.rate > 0)
      st = afet::htk_config_check_rate (o.htk_config, o.rate);
    if (!st.ok ())
      return usage (st.message ());
    o.htk = true;
    if (!quiet)
      for (const auto & n:o.htk_config.notes)
        g_printerr ("afet-extract: note: %s\n", n.c_str ());
  }
  if (scp)
    o.scp = scp;
  if (out_dir)
    o.out_dir = out_dir;
  if (wav_scp)
    o.wav_scp = wav_scp;
  if (segments)
    o.segments = segments;
  if (ark)
    o.ark = ark;
  if (format)
    o.format = format;
  if (o.format == "ark")
    o.format = "kaldi";
  if (!o.ark.empty ()) {
    if (format && o.format != "kaldi")
      return usage ("--ark writes a Kaldi archive: --format " + o.format +
          " contradicts it");
    o.format = "kaldi";
  }
  if (o.format != "htk" && o.format != "npy" && o.format != "kaldi" &&
      o.format != "raw")
    return usage ("--format must be htk, npy, kaldi (ark) or raw, not '" +
        o.format + "'");
  if (o.scp.empty () == o.wav_scp.empty ())
    return usage ("give one list: --scp or --wav-scp");
  if (!o.segments.empty () && o.wav_scp.empty ())
    return usage ("--segments goes with --wav-scp");
  if (!o.wav_scp.empty () && o.ark.empty () && o.out_dir.empty ())
    return usage ("--wav-scp needs --out-dir or --ark");
  if (!o.ark.empty () && !g_str_has_suffix (o.ark.c_str (), ".ark"))
    return usage ("--ark names a file ending in .ark");
  if (jobs < 1)
    return usage ("--jobs must be at least 1");
  o.jobs = jobs;
  if (device)
    o.device = device;
  if (shard) {
    char *e = nullptr;
    o.shard_k = (int) strtol (shard, &e, 10);
    if (!e || *e != '/')
      return usage ("--shard takes K/N");
    o.shard_n = (int) strtol (e + 1, &e, 10);
    if (*e || o.shard_n < 1 || o.shard_k < 1 || o.shard_k > o.shard_n)
      return usage ("--shard K/N needs 1 <= K <= N");
  }
  o.skip_existing = skip;
  o.quiet = quiet;
  o.progress = !quiet && (progress || isatty (2));
  o.print_pipeline = print;
  o.wav_reader = !no_wav_reader;
  g_free (chain);
  g_free (config);
  g_free (scp);
  g_free (out_dir);
  g_free (wav_scp);
  g_free (segments);
  g_free (ark);
  g_free (format);
  g_free (device);
  g_free (shard);

  if (o.print_pipeline) {
    g_print ("%s\n", pipeline_text (o, "filesrc location=IN", !o.ark.empty (),
            true).c_str ());
    return 0;
  }

  /* the chain must parse before anything runs */
  {
    GError *perr = nullptr;
    GstElement *test = gst_parse_launch_full (o.chain.c_str (), nullptr,
        GST_PARSE_FLAG_FATAL_ERRORS, &perr);
    if (!test) {
      std::string m = (o.htk ? "the chain from " + o.htk_config.origin +
          " ('" + o.chain + "')" : "--pipeline '" + o.chain + "'") + ": " +
          (perr ? perr->message : "cannot be built");
      g_clear_error (&perr);
      return usage (m);
    }
    gst_object_unref (test);
  }

  std::vector<Item> items;
  std::string why;
  if (!make_items (o, &items, &why))
    return usage (why);

  Shared sh;
  sh.opt = &o;
  sh.items = &items;
  sh.results.resize (items.size ());
  if (o.device == "all") {
    sh.devices = all_devices ();
    if (sh.devices.empty ())
      return usage ("--device all: no OpenCL device found");
  } else if (o.device != "auto") {
    gchar **v = g_strsplit (o.device.c_str (), ",", -1);
    for (gchar ** d = v; *d; d++)
      if (**d)
        sh.devices.push_back (*d);
    g_strfreev (v);
  }

  /* the archive and its index */
  FILE *ark_f = nullptr, *scp_f = nullptr;
  std::string scp_path;
  std::map<std::string, bool> have;
  if (!o.ark.empty ()) {
    scp_path = o.ark.substr (0, o.ark.size () - 4) + ".scp";
    if (!make_parent (o.ark, &why))
      return usage (why);
    guint64 end = 0;
    if (o.skip_existing && !resume_archive (o.ark, scp_path, &have, &end,
            &why))
      return usage (why);
    if (o.skip_existing && g_file_test (o.ark.c_str (), G_FILE_TEST_EXISTS)) {
      /* drop a partial entry an interrupted run left at the end */
      if (truncate (o.ark.c_str (), (off_t) end) != 0)
        return usage ("cannot truncate " + o.ark + ": " + g_strerror (errno));
      ark_f = fopen (o.ark.c_str (), "ab");
    } else {
      ark_f = fopen (o.ark.c_str (), "wb");
      have.clear ();
    }
    if (ark_f) {
      /* rewrite the index with the entries kept */
      std::vector<std::string> lines;
      std::string kept;
      if (!have.empty () && read_lines (scp_path, &lines, &why))
        for (const auto & l:lines) {
          auto f = split_ws (l, 2);
          if (f.size () == 2 && have.count (f[0]))
            kept += l + "\n";
        }
      scp_f = fopen (scp_path.c_str (), "wb");
      if (scp_f)
        fputs (kept.c_str (), scp_f);
    }
    if (!ark_f || !scp_f)
      return usage ("cannot write " + o.ark + " or " + scp_path + ": " +
          g_strerror (errno));
    if (!have.empty ()) {
      /* leave out what the archive already holds */
      std::vector<Item> left;
      for (auto & it:items) {
        bool all_there = it.segments.empty ()? have.count (it.key) > 0 : true;
        for (const auto & s:it.segments)
          all_there = all_there && have.count (s.id) > 0;
        if (!all_there) {
          /* segments already there are not extracted again */
          std::vector<Segment> segs;
          for (const auto & s:it.segments)
            if (!have.count (s.id))
              segs.push_back (s);
          it.segments = segs;
          it.index = left.size ();
          left.push_back (it);
        }
      }
      items.swap (left);
      sh.results.assign (items.size (), Result ());
    }
  }

  const gint64 t0 = g_get_monotonic_time ();
  std::vector<std::thread> threads;
  const int n_jobs = std::max (1, std::min<int> (o.jobs, (int) items.size ()));
  sh.jobs = n_jobs;
  for (int w = 0; w < n_jobs; w++)
    threads.emplace_back (worker, &sh, w);

  /* the main thread: the archive in list order, and the progress line */
  size_t n_skipped = 0;
  std::vector<std::string> failures;
  double last_draw = 0;
  for (;;) {
    std::unique_lock < std::mutex > l (sh.lock);
    sh.cond.wait_for (l, std::chrono::milliseconds (250), [&] {
          return sh.written < items.size () && sh.results[sh.written].done;
        });
    while (sh.written < items.size () && sh.results[sh.written].done) {
      Result & r = sh.results[sh.written];
      for (const auto & e:r.entries) {
        const long pos = ftell (ark_f);
        fwrite (e.second.data (), 1, e.second.size (), ark_f);
        fflush (ark_f);
        fprintf (scp_f, "%s %s:%ld\n", e.first.c_str (), o.ark.c_str (),
            pos + (long) e.first.size () + 1);
        fflush (scp_f);
      }
      r.entries.clear ();
      for (const auto & e:r.errors) {
        g_printerr ("%safet-extract: %s\n", o.progress ? "\r\033[K" : "",
            e.c_str ());
        failures.push_back (e);
      }
      n_skipped += r.skipped ? 1 : 0;
      sh.written++;
    }
    const bool all_done = sh.written == items.size ();
    l.unlock ();
    sh.cond.notify_all ();
    const double el = (g_get_monotonic_time () - t0) / 1e6;
    if (o.progress && (el - last_draw > 0.25 || all_done)) {
      last_draw = el;
      const size_t done = sh.finished;
      const double audio = sh.audio_us / 1e6;
      const double eta = done ? el * (items.size () - done) / done : NAN;
      g_printerr ("\r\033[K%zu/%zu files  %.2f h audio  %.0fx real time  "
          "ETA %s", done, items.size (), audio / 3600, el > 0 ? audio / el :
          0.0, hms (eta).c_str ());
    }
    if (all_done)
      break;
  }
  for (auto & t:threads)
    t.join ();
  if (ark_f)
    fclose (ark_f);
  if (scp_f)
    fclose (scp_f);

  const double el = (g_get_monotonic_time () - t0) / 1e6;
  const double audio = sh.audio_us / 1e6;
  if (o.progress)
    g_printerr ("\n");
  if (!o.quiet) {
    g_printerr ("afet-extract: %zu inputs (%zu skipped, %zu plain WAV read "
        "directly), %.2f h of audio in %.2f s (%.0fx real time)%s\n",
        items.size (), n_skipped, sh.direct.load (), audio / 3600, el,
        el > 0 ? audio / el : 0.0, failures.empty ()? "" : "; failed:");
    const double steady_s = sh.steady_t0 ? (g_get_monotonic_time () -
        sh.steady_t0) / 1e6 : 0;
    const double steady_audio = (sh.audio_us - sh.steady_audio_us) / 1e6;
    if (steady_s > 0 && steady_audio > 0)
      g_printerr ("afet-extract: steady state (after each job's first "
          "input): %.2f h of audio in %.2f s (%.0fx real time)\n",
          steady_audio / 3600, steady_s, steady_audio / steady_s);
    if (!sh.devices.empty ()) {
      std::string d;
      for (const auto & x:sh.devices)
        d += (d.empty ()? "" : ", ") + x;
      g_printerr ("afet-extract: %d jobs on the devices %s\n", n_jobs,
          d.c_str ());
    }
    for (const auto & f:failures)
      g_printerr ("  %s\n", f.c_str ());
  } else if (!failures.empty ()) {
    g_printerr ("afet-extract: %zu failed\n", failures.size ());
  }
  return failures.empty ()? 0 : 1;
}
