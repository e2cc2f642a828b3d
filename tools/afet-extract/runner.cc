/* afet-extract's pipelines and their runs (runner.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "runner.h"

#include <algorithm>
#include <cstring>

#include <CL/cl.h>
#include <glib/gstdio.h>
#include <gst/app/app.h>
#include <gst/audio/audio.h>

#include <csignal>

#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include "afetfeatures.h"
#include "direct.h"
#include "work.h"

namespace afetx
{

/* Every OpenCL device in clinfo -l's order: its "P:D", name and whether
 * it is a GPU; fn returns false to stop. */
template <typename Fn>
static void
each_device (Fn fn)
{
  cl_uint np = 0;
  if (clGetPlatformIDs (0, nullptr, &np) != CL_SUCCESS || np == 0)
    return;
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
      cl_ulong mem = 0;
      char name[256] = "";
      clGetDeviceInfo (devs[d], CL_DEVICE_TYPE, sizeof t, &t, nullptr);
      clGetDeviceInfo (devs[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem,
          nullptr);
      clGetDeviceInfo (devs[d], CL_DEVICE_NAME, sizeof name - 1, name,
          nullptr);
      if (!fn (std::to_string (p) + ":" + std::to_string (d),
              std::string (name), (t & CL_DEVICE_TYPE_GPU) != 0, mem))
        return;
    }
  }
}

/* "P:D" of every GPU, or of every device when there is no GPU. */
std::vector<std::string>
all_devices ()
{
  std::vector<std::string> gpus, any;
  each_device ([&](const std::string & id, const std::string &, bool gpu,
          cl_ulong) {
        any.push_back (id);
        if (gpu)
          gpus.push_back (id);
        return true;
      });
  return gpus.empty ()? any : gpus;
}

/* Whether a device value (as the elements take it: auto, gpu, cpu, P:D or
 * part of a name) names a GPU, as the elements would resolve it. */
static bool
names_gpu (const std::string & value, cl_ulong *mem = nullptr)
{
  if (value == "cpu")
    return false;
  const bool any = value.empty () || value == "auto" || value == "gpu";
  bool found = false;
  each_device ([&](const std::string & id, const std::string & name,
          bool gpu, cl_ulong bytes) {
        if (any && gpu) {
          found = true;
          if (mem)
            *mem = bytes;
          return false;
        }
        if (!any && (value == id || name.find (value) != std::string::npos)) {
          found = gpu;
          if (mem)
            *mem = bytes;
          return false;
        }
        return true;
      });
  return found;
}

int
auto_jobs (const std::vector<std::string> & devices, bool whole,
    double seconds)
{
  int gpus = 0;
  cl_ulong mem = 0;             /* the GPUs' memory together */
  if (devices.empty ()) {
    const char *env = g_getenv ("AFET_DEVICE");
    cl_ulong m = 0;
    gpus = names_gpu (env ? env : "auto", &m) ? 1 : 0;
    mem += gpus ? m : 0;
  } else {
    for (const auto & d:devices) {
      cl_ulong m = 0;
      if (names_gpu (d, &m)) {
        gpus++;
        mem += m;
      }
    }
  }
  if (gpus == 0)
    return 2;
  const int cores = (int) g_get_num_processors ();
  if (whole)
    return std::max<int> (8 * gpus, std::min<cl_ulong> (2 * cores,
            mem >> 30));
  const int a_gpu = seconds >= kLongInputSeconds ? 12 : 8;
  return std::max (1, std::min<int> (cores, a_gpu * gpus));
}

double
typical_seconds (const std::vector<Item> & items)
{
  std::vector<double> seen;
  const size_t n = items.size (), want = 33;
  for (size_t k = 0; k < std::min (n, want); k++) {
    const Item & it = items[n <= want ? k : k * (n - 1) / (want - 1)];
    if (it.command)
      continue;
    if (!it.segments.empty ()) {
      for (const auto & sg:it.segments)
        if (sg.end > sg.start) {
          seen.push_back (sg.end - sg.start);
          break;
        }
      continue;
    }
    PlainWav w;
    GStatBuf st;
    if (read_plain_wav (it.input, 0, true, &w) && w.rate > 0)
      seen.push_back ((double) w.frames / w.rate);
    else if (g_stat (it.input.c_str (), &st) == 0 && S_ISREG (st.st_mode))
      seen.push_back (st.st_size / 32000.0);
  }
  if (seen.empty ())
    return 0;
  std::nth_element (seen.begin (), seen.begin () + seen.size () / 2,
      seen.end ());
  return seen[seen.size () / 2];
}

/* The pipeline, as gst-launch-1.0 would take it.  decodebin's audio pad
 * is linked by us (on_pad_added) on every run: gst_parse_launch links a
 * dynamic pad only once. */
static std::string
audio_caps (const Options & o)
{
  std::string caps = "audio/x-raw,channels=1";
  if (o.rate > 0)
    caps += ",rate=" + std::to_string (o.rate);
  return caps;
}

/* afetenc and what takes its bytes: a file, or memory (an archive entry;
 * the entry is held whole, so no max-hold limit).  The file is one that
 * afet-extract created itself (work.cc's PartFile), written through its
 * descriptor; gst-launch-1.0 (for_launch) writes the same bytes with
 * filesink. */
static std::string
encoder_only (const Options & o, bool to_memory)
{
  return "afetenc name=afetx_enc format=" + o.format + (o.compress ?
      " compression-method=" + std::to_string (o.compress) : "") +
      (to_memory ? " max-hold=18446744073709551615" : "");
}

static std::string
encoder_text (const Options & o, bool to_memory, bool for_launch = false)
{
  return encoder_only (o, to_memory) + (to_memory ?
      " ! appsink name=afetx_sink sync=false wait-on-eos=false" : for_launch ?
      " ! filesink name=afetx_sink" : " ! fdsink name=afetx_sink");
}

std::string
pipeline_text (const Options & o, const char *src, bool to_memory,
    bool for_launch)
{
  return std::string (src) + " ! decodebin name=afetx_dec " +
      (for_launch ? "! " : " ") + "audioconvert name=afetx_conv ! "
      "audioresample ! capsfilter name=afetx_caps caps=\"" + audio_caps (o) +
      "\" ! " + o.chain + " ! " + encoder_text (o, to_memory, for_launch);
}

/* afetpaste takes every buffer at once (it keeps the frames a branch is
 * ahead by), so the queues cannot fill and stall the other branch: they
 * only let the branches compute at once */
std::string
paste_chain (const std::string & chain,
    const std::vector<std::string> & pastes, int tolerance)
{
  if (pastes.empty ())
    return chain;
  std::string text = "tee name=afetx_tee ! queue ! " + chain +
      " ! afetx_paste.sink_0";
  for (size_t i = 0; i < pastes.size (); i++)
    text += "  afetx_tee. ! queue ! " + pastes[i] + " ! afetx_paste.sink_" +
        std::to_string (i + 1);
  return text + "  afetpaste name=afetx_paste length-tolerance=" +
      std::to_string (tolerance);
}

static void
on_pad_added (GstElement * dec, GstPad * pad, gpointer user)
{
  auto *pads = (Runner::Pads *) user;
  GstPad *sink = gst_element_get_static_pad (pads->conv, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  if (!caps)
    caps = gst_pad_query_caps (pad, nullptr);
  const GstStructure *s = caps && gst_caps_get_size (caps) ?
      gst_caps_get_structure (caps, 0) : nullptr;
  const bool audio = s && g_str_has_prefix (gst_structure_get_name (s),
      "audio/");
  if (audio && !gst_pad_is_linked (sink))
    gst_pad_link (pad, sink);
  {
    std::lock_guard < std::mutex > l (pads->lock);
    if (audio)
      pads->audio = true;
    else {
      const std::string name = s ? gst_structure_get_name (s) : "?";
      if (pads->others.find (name) == std::string::npos)
        pads->others += (pads->others.empty ()? "" : ", ") + name;
    }
  }
  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (sink);
}

static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  auto *c = (std::atomic<guint64> *) user;
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER)
    *c += gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

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

/* Before a run's first buffer: its key as an afet-key tag, so that the
 * chain's elements that pick per-key data (Kaldi statistics, matrices)
 * find it as they do behind afetparse. */
static GstPadProbeReturn
key_tag_probe (GstPad * pad, GstPadProbeInfo *, gpointer data)
{
  Runner::KeyTag *k = (Runner::KeyTag *) data;
  std::string key;
  {
    std::lock_guard < std::mutex > l (k->lock);
    if (!k->pending)
      return GST_PAD_PROBE_OK;
    k->pending = false;
    key = k->key;
  }
  GstTagList *tags = gst_tag_list_new_empty ();
  gst_tag_list_add (tags, GST_TAG_MERGE_REPLACE, "afet-key", key.c_str (),
      nullptr);
  gst_pad_push_event (pad, gst_event_new_tag (tags));
  return GST_PAD_PROBE_OK;
}

void
Runner::drop ()
{
  if (pipe_) {
    gst_element_set_state (pipe_, GST_STATE_NULL);
    direct_.detach ();
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

/* the bus of a runner's pipeline keeps only what wait () takes */
static GstBusSyncReply
keep_eos_and_errors (GstBus *, GstMessage * m, gpointer)
{
  return (GST_MESSAGE_TYPE (m) & (GST_MESSAGE_EOS | GST_MESSAGE_ERROR)) ?
      GST_BUS_PASS : GST_BUS_DROP;
}

static bool
writes_stats (GstElement * e)
{
  if (!g_object_class_find_property (G_OBJECT_GET_CLASS (e), "write-stats"))
    return false;
  gchar *path = nullptr;
  g_object_get (e, "write-stats", &path, nullptr);
  const bool set = path && *path;
  g_free (path);
  return set;
}

bool
chain_writes_stats (GstElement * chain, std::string * why)
{
  /* a chain of one element parses to that element, not a bin */
  bool stats = writes_stats (chain);
  if (GST_IS_BIN (chain)) {
    GstIterator *it = gst_bin_iterate_recurse (GST_BIN (chain));
    GValue v = G_VALUE_INIT;
    while (!stats && gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      stats = writes_stats (GST_ELEMENT (g_value_get_object (&v)));
      g_value_reset (&v);
    }
    g_value_unset (&v);
    gst_iterator_free (it);
  }
  if (stats)
    *why = "afetcmvn write-stats= sums one stream's statistics, and "
        "afet-extract runs every input as a stream of its own (jobs at "
        "once): the file would hold one input's sums. Write the features "
        "(--ark feats.ark), then compute the statistics from them in one "
        "stream: gst-launch-1.0 filesrc location=feats.ark ! afetparse ! "
        "afetcmvn mode=none write-stats=cmvn.ark [utt2spk=...] ! fakesink "
        "(docs/kaldi-recipe.md)";
  return stats;
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
  if (chain_writes_stats (pipe_, why)) {
    gst_object_unref (pipe_);
    pipe_ = nullptr;
    return false;
  }
  /* Every other message (each element's state changes going to PLAYING
   * and back to READY, stream-start, latency, async-done: about twenty an
   * input) would be queued, wake the waiting worker through the bus's
   * socket pair, and be discarded by wait (); dropped where it is posted
   * instead. */
  GstBus *bus = gst_element_get_bus (pipe_);
  gst_bus_set_sync_handler (bus, keep_eos_and_errors, nullptr, nullptr);
  gst_object_unref (bus);
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
  pads_.conv = conv;
  if (dec && conv)
    g_signal_connect (dec, "pad-added", G_CALLBACK (on_pad_added), &pads_);
  if (dec)
    gst_object_unref (dec);
  if (conv)
    gst_object_unref (conv);
  GstElement *caps = gst_bin_get_by_name (GST_BIN (pipe_), "afetx_caps");
  if (caps) {
    GstPad *pad = gst_element_get_static_pad (caps, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_probe,
        &counts_.audio_bytes, nullptr);
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, key_tag_probe,
        &key_tag_, nullptr);
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

/* what an input abandoned at a signal gets */
static std::string
stopped_text ()
{
  const int sig = interrupted ();
  return std::string ("stopped by ") + (sig == SIGTERM ? "SIGTERM" :
      sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "a signal") +
      " before the end of this input (its partial output is removed)";
}

/* an ERROR message's text for the user */
static std::string
error_text (GstMessage * m)
{
  GError *e = nullptr;
  gchar *dbg = nullptr;
  gst_message_parse_error (m, &e, &dbg);
  std::string why = e->message;
  if (e->domain == GST_STREAM_ERROR &&
      (e->code == GST_STREAM_ERROR_TYPE_NOT_FOUND ||
          e->code == GST_STREAM_ERROR_WRONG_TYPE))
    why = "not audio GStreamer can decode (" + why + ")";
  g_error_free (e);
  g_free (dbg);
  return why;
}

/* why pipe did not start: the ERROR an element posted (a missing file a
 * property names, a device that is not there), else what */
static std::string
start_error (GstElement * pipe, const char *what)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  if (!m)
    return what;
  std::string why = std::string (what) + ": " + error_text (m);
  gst_message_unref (m);
  return why;
}

/* The formats of the run that ended: the audio's (the hours of the
 * progress line) and the features' frame size. */
void
Runner::read_formats ()
{
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
}

/* Waits for EOS or an error (or a signal that stops the run); the error's
 * text in *why.  Leaves the pipeline in READY and its bus empty. */
bool
Runner::wait (std::string * why, int child_fd, GPid child)
{
  GstBus *bus = gst_element_get_bus (pipe_);
  bool ok = false;
  bool stopped = false;
  for (;;) {
    /* woken every 100 ms to see whether a signal asked the run to stop */
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (!m) {
      if (!interrupted ())
        continue;
      *why = stopped_text ();
      stopped = true;
      break;
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      *why = error_text (m);
    else
      ok = true;
    gst_message_unref (m);
    break;
  }
  {
    /* a video or an image: decodebin's pads were left unlinked, and the
     * error is "Internal data stream error" */
    std::lock_guard < std::mutex > l (pads_.lock);
    if (!stopped && pads_.conv && !pads_.audio && !pads_.others.empty ()) {
      *why = "not audio: it holds no audio stream, only " + pads_.others;
      ok = false;
    }
  }
  read_formats ();
  gst_element_set_state (pipe_, GST_STATE_READY);
  /* In READY every message of this run is on the bus (the streaming
   * threads have stopped, and a state change still under way has finished
   * or was called off: it holds the state lock that READY took); what is
   * left there is taken now, so that the next input, on the same pipeline,
   * starts from an empty bus.  GStreamer 1.22's GstBin posts an EOS twice
   * at times (bin_do_eos, run by the sink's streaming thread and by the
   * state change to PLAYING, lets both through when they meet): the copy
   * left there was the next input's end before any of its audio went
   * through ("no audio came out of the decoder", 1 run in 10 of
   * extract-slurm; test extract-eos).  An error there is this input's. */
  while (GstMessage * m = gst_bus_pop_filtered (bus,
          (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    if (ok && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      *why = error_text (m);
      ok = false;
    }
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  if (child_fd >= 0) {
    close (child_fd);
    int status = 0;
    if (stopped)
      kill (child, SIGTERM);    /* not left running after us */
    waitpid (child, &status, 0);
    g_spawn_close_pid (child);
    if (!stopped && !(WIFEXITED (status) && WEXITSTATUS (status) == 0)) {
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
static bool
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
static std::string
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
  {
    std::lock_guard < std::mutex > l (pads_.lock);
    pads_.audio = false;
    pads_.others.clear ();
  }
  input_.clear ();
  if (command) {
    if (!spawn_command (input, fd, pid, why))
      return false;
    g_object_set (src_, "fd", *fd, nullptr);
    return true;
  }
  input_ = input;
  if (!g_file_test (input.c_str (), G_FILE_TEST_IS_REGULAR)) {
    *why = "cannot read " + input + ": " + (g_file_test (input.c_str (),
            G_FILE_TEST_EXISTS) ? "not a regular file" : "no such file");
    return false;
  }
  g_object_set (src_, "location", input.c_str (), nullptr);
  return true;
}

/* The pipeline for a file (filesrc) or a command (fdsrc): the one kept,
 * unless it was built for the other kind (a reused decoder read the last
 * file again for a command: filesrc has no fd), else built from text */
bool
Runner::source_ready (bool command, const std::string & text,
    std::string * why)
{
  if (pipe_ && built_for_command_ != command)
    drop ();
  if (pipe_)
    return true;
  built_for_command_ = command;
  return build (text, why);
}

bool
Runner::run (const std::string & input, bool command, const std::string & key,
    int out_fd, std::string * entry, double *audio_s,
    std::string * why)
{
  const bool to_memory = out_fd < 0;
  if (!source_ready (command, pipeline_text (opt_, command ?
              "fdsrc name=afetx_src" : "filesrc name=afetx_src", to_memory),
          why))
    return false;
  int fd = -1;
  GPid pid = 0;
  if (!set_source (input, command, &fd, &pid, why))
    return false;
  bool ok = begin (key, out_fd, why);
  if (ok)
    ok = wait (why, fd, pid);
  else if (fd >= 0) {
    close (fd);
    waitpid (pid, nullptr, 0);
  }
  return end (ok, out_fd, entry, audio_s, why);
}

/* why a decoded input gave no sample at all */
static std::string
no_audio (const std::string & input)
{
  guint64 len = 0;
  int bits = 0;
  if (!input.empty () && wav_data_chunk (input, &len, &bits) && len == 0)
    return "no audio: its WAV data chunk is empty";
  if (!input.empty () && wav_data_chunk (input, &len, &bits) && (len & 1))
    return "no audio came out of decodebin: the data chunk of this " +
        std::to_string (bits) + "-bit WAV file has an odd length (" +
        std::to_string (len) + " bytes), and GStreamer 1.22's wavparse "
        "ends such a file before its first sample when the chunk's pad "
        "byte follows (afet-extract's own WAV reader reads it: leave out "
        "--no-wav-reader, and --rate unless it is the file's rate)";
  return "no audio came out of the decoder (an empty audio stream)";
}

bool
Runner::begin (const std::string & key, int out_fd,
    std::string * why)
{
  g_object_set (enc_, "key", key.c_str (), nullptr);
  {
    std::lock_guard < std::mutex > l (key_tag_.lock);
    key_tag_.key = key;
    key_tag_.pending = !key.empty ();
  }
  if (out_fd >= 0) {
    /* fdsink checks its descriptor (seekable?) when it starts */
    gst_element_set_state (sink_, GST_STATE_NULL);
    g_object_set (sink_, "fd", out_fd, nullptr);
  }
  counts_.audio_bytes = 0;
  counts_.feature_bytes = 0;
  if (gst_element_set_state (pipe_, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE)
    return true;
  *why = start_error (pipe_, "the pipeline did not start");
  return false;
}

bool
Runner::end (bool ok, int out_fd, std::string * entry,
    double *audio_s, std::string * why)
{
  *audio_s = counts_.bytes_per_second ?
      (double) counts_.audio_bytes / counts_.bytes_per_second : 0;
  if (out_fd < 0 && sink_)
    *entry = drain_appsink (sink_);
  if (ok && counts_.feature_bytes == 0) {
    *why = counts_.audio_bytes ? "too short for one frame (" +
        std::to_string (*audio_s) + " s of audio)" : no_audio (input_);
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
  if (!source_ready (command, text, why))
    return false;
  int fd = -1;
  GPid pid = 0;
  if (!set_source (input, command, &fd, &pid, why))
    return false;
  pcm->clear ();
  *caps = nullptr;
  if (gst_element_set_state (pipe_, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    *why = start_error (pipe_, "the decoder did not start");
    drop ();
    return false;
  }
  /* pull everything (the appsink holds what we have not pulled); woken
   * every 100 ms to see whether a signal asked the run to stop (wait ()
   * then says so) */
  GstBus *bus = gst_element_get_bus (pipe_);
  for (;;) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink_),
        100 * GST_MSECOND);
    /* an error ends the decoding: no EOS comes after it (a recording that
     * is not audio hung here); wait () takes it from the bus */
    GstMessage *head = s ? nullptr : gst_bus_peek (bus);
    const bool failed = head && GST_MESSAGE_TYPE (head) == GST_MESSAGE_ERROR;
    if (head)
      gst_message_unref (head);
    if (!s && !failed && !gst_app_sink_is_eos (GST_APP_SINK (sink_)) &&
        !interrupted ())
      continue;
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
  gst_object_unref (bus);
  bool ok = wait (why, fd, pid);
  /* appsink keeps its EOS through READY (GStreamer 1.22): the next
   * recording's samples would never be pulled and the run would hang.  NULL
   * resets it, and decodebin drops the elements it plugged for this one. */
  gst_element_set_state (pipe_, GST_STATE_NULL);
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

/* appsrc's need-data: run_wav's next block, or its end */
static void
feed_wav (GstAppSrc * src, guint length, gpointer user)
{
  auto *f = (Runner::Feed *) user;
  std::lock_guard < std::mutex > l (f->lock);
  if (f->ended || !f->wav)
    return;
  GstBuffer *b = nullptr;
  std::string why;
  if (!read_wav_block (f->wav, &b, &why))
    f->error = why;             /* ends the stream: end () fails the run */
  if (b) {
    gst_app_src_push_buffer (src, b);
  } else {
    f->ended = true;
    gst_app_src_end_of_stream (src);
  }
}

/* "capsfilter ! CHAIN ! afetenc" with our pads at its ends, playing, when
 * every element of the chain resets on a flush (resets_on_flush); else
 * nothing is built and *direct is false.  AFET_EXTRACT_DIRECT=0 in the
 * environment keeps every input's state changes (appsrc and fdsink), as
 * before the direct pads. */
bool
Runner::build_direct (bool to_memory, bool *direct, std::string * why)
{
  *direct = false;
  const gchar *env = g_getenv ("AFET_EXTRACT_DIRECT");
  if (env && g_strcmp0 (env, "0") == 0)
    return true;
  if (!build ("capsfilter name=afetx_caps ! " + opt_.chain + " ! " +
          encoder_only (opt_, to_memory), why))
    return false;
  if (!resets_on_flush (GST_BIN (pipe_))) {
    drop ();
    return true;
  }
  GstElement *caps = gst_bin_get_by_name (GST_BIN (pipe_), "afetx_caps");
  GstPad *first = gst_element_get_static_pad (caps, "sink");
  GstPad *last = gst_element_get_static_pad (enc_, "src");
  bool ok = direct_.attach (first, last, why);
  gst_object_unref (first);
  gst_object_unref (last);
  gst_object_unref (caps);
  if (ok && gst_element_set_state (pipe_, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    *why = start_error (pipe_, "the pipeline did not start");
    ok = false;
  }
  if (!ok) {
    drop ();
    return false;
  }
  *direct = true;
  return true;
}

/* One input through the direct pads: pushed in this thread, buffer after
 * buffer, to EOS; then a flush readies the chain for the next input. */
bool
Runner::run_direct (GstCaps * caps, GstBuffer * buf, guint64 duration,
    PlainWav * wav, const std::string & key, int out_fd,
    std::string * entry, double *audio_s, std::string * why)
{
  input_.clear ();
  g_object_set (enc_, "key", key.c_str (), nullptr);
  {
    std::lock_guard < std::mutex > l (key_tag_.lock);
    key_tag_.key = key;
    key_tag_.pending = !key.empty ();
  }
  counts_.audio_bytes = 0;
  counts_.feature_bytes = 0;
  direct_.begin_output (out_fd);
  /* (a longer input than those before: the elements build larger
   * batches at its start, from the duration the pads answer) */
  bool ok = direct_.start_stream (caps, duration);
  bool stopped = false;
  std::string read_error;
  GstFlowReturn flow = GST_FLOW_OK;
  if (ok && buf) {
    flow = direct_.push (buf);
  } else if (ok) {
    for (;;) {
      if (interrupted ()) {
        stopped = true;
        break;
      }
      GstBuffer *b = nullptr;
      if (!read_wav_block (wav, &b, &read_error)) {
        if (b)
          gst_buffer_unref (b);
        break;
      }
      if (!b)
        break;
      if ((flow = direct_.push (b)) != GST_FLOW_OK)
        break;
    }
  } else if (buf) {
    gst_buffer_unref (buf);
  }
  ok = ok && !stopped && read_error.empty () && flow == GST_FLOW_OK &&
      direct_.end_stream ();
  /* an element's error is on the bus (posted before its flow returned) */
  GstBus *bus = gst_element_get_bus (pipe_);
  std::string posted;
  while (GstMessage * m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
    if (posted.empty ())
      posted = error_text (m);
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  if (stopped)
    *why = stopped_text ();
  else if (!read_error.empty ())
    *why = "cannot read the file: " + read_error;
  else if (!direct_.output_error ().empty ())
    *why = direct_.output_error ();
  else if (!posted.empty ())
    *why = posted;
  else if (!ok && flow == GST_FLOW_NOT_NEGOTIATED) {
    gchar *c = gst_caps_to_string (caps);
    *why = std::string ("the chain does not take this audio (") + c + ")";
    g_free (c);
  } else if (!ok)
    *why = std::string ("the chain stopped (") + (flow != GST_FLOW_OK ?
        gst_flow_get_name (flow) : "it did not take the end of the stream") +
        ")";
  ok = ok && posted.empty ();
  read_formats ();
  if (out_fd < 0)
    *entry = direct_.take_memory ();
  if (ok)
    direct_.reset ();
  return end (ok, out_fd, entry, audio_s, why);
}

bool
Runner::run_buffer (GstCaps * caps, GstBuffer * buf, guint64 duration,
    PlainWav * wav, const std::string & key, int out_fd,
    std::string * entry, double *audio_s, std::string * why)
{
  if (!pipe_) {
    bool direct = false;
    if (!build_direct (out_fd < 0, &direct, why)) {
      if (buf)
        gst_buffer_unref (buf);
      return false;
    }
    std::string text = "appsrc name=afetx_src format=time ! capsfilter "
        "name=afetx_caps ! " + opt_.chain + " ! " + encoder_text (opt_,
        out_fd < 0);
    if (!direct && !build (text, why)) {
      if (buf)
        gst_buffer_unref (buf);
      return false;
    }
  }
  if (direct_.attached ())
    return run_direct (caps, buf, duration, wav, key, out_fd, entry,
        audio_s, why);
  /* the duration sizes the elements' batches (max-batch 0) */
  g_object_set (src_, "caps", caps, "duration", duration, nullptr);
  if (wav) {
    /* A file is read as appsrc asks for it (need-data, when its queue is
     * empty), one block at a time: its queue holds one block, and the
     * memory a run needs does not grow with the file. */
    {
      std::lock_guard < std::mutex > l (feed_.lock);
      feed_.wav = wav;
      feed_.error.clear ();
      feed_.ended = false;
    }
    g_object_set (src_, "max-bytes", (guint64) (2 * kWavBlockBytes),
        nullptr);
    GstAppSrcCallbacks cb = { };
    cb.need_data = feed_wav;
    gst_app_src_set_callbacks (GST_APP_SRC (src_), &cb, &feed_, nullptr);
  }
  input_.clear ();
  bool ok = begin (key, out_fd, why);
  if (ok) {
    if (buf) {
      gst_app_src_push_buffer (GST_APP_SRC (src_), buf);
      gst_app_src_end_of_stream (GST_APP_SRC (src_));
    }
    ok = wait (why, -1, 0);
  } else if (buf) {
    gst_buffer_unref (buf);
  }
  if (wav) {
    /* wait () took the pipeline to READY: no need-data comes any more */
    std::lock_guard < std::mutex > l (feed_.lock);
    feed_.wav = nullptr;
    if (ok && !feed_.error.empty ()) {
      *why = "cannot read the file: " + feed_.error;
      ok = false;
    }
  }
  return end (ok, out_fd, entry, audio_s, why);
}

bool
Runner::run_segment (GstCaps * caps, const guint8 * data, size_t bytes,
    const std::string & key, int out_fd, std::string * entry,
    std::string * why)
{
  GstAudioInfo ai;
  gst_audio_info_from_caps (&ai, caps);
  GstBuffer *buf = gst_buffer_new_memdup (data, bytes);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (bytes /
      GST_AUDIO_INFO_BPF (&ai), GST_SECOND, (guint64) ai.rate);
  double audio_s = 0;
  return run_buffer (caps, buf, GST_BUFFER_DURATION (buf), nullptr, key,
      out_fd, entry, &audio_s, why);
}

bool
Runner::run_wav (PlainWav * wav, const std::string & key,
    int out_fd, std::string * entry, double *audio_s,
    std::string * why)
{
  GstCaps *caps = gst_caps_new_simple ("audio/x-raw", "format",
      G_TYPE_STRING, wav->format, "layout", G_TYPE_STRING, "interleaved",
      "rate", G_TYPE_INT, wav->rate, "channels", G_TYPE_INT, 1, nullptr);
  bool ok = run_buffer (caps, nullptr, gst_util_uint64_scale (wav->frames,
          GST_SECOND, (guint64) wav->rate), wav, key, out_fd, entry,
      audio_s, why);
  gst_caps_unref (caps);
  return ok;
}

}  /* namespace afetx */
