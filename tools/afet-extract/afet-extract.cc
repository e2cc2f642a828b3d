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

#include <gst/gst.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "afethtkconfig.h"
#include "archive.h"
#include "extract.h"
#include "lists.h"
#include "runner.h"
#include "work.h"

using namespace afetx;

namespace
{

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

/* --compress[=METHOD]: Kaldi's compression method, 1 (copy-feats' default,
 * kAutomaticMethod) without a value; 0 none */
int compress_method = 0;
std::string compress_error;

gboolean
parse_compress (const gchar *, const gchar * value, gpointer, GError **)
{
  compress_method = 1;
  if (value) {
    char *e = nullptr;
    const long m = strtol (value, &e, 10);
    if (e == value || *e != '\0' || m < 0 || m > 7)
      compress_error = std::string ("--compress takes Kaldi's compression "
          "method, 0 to 7 (as copy-feats --compression-method: 1 automatic, "
          "2 speech features, 3-4 two bytes, 5-7 one byte), not '") +
          value + "'";
    else
      compress_method = (int) m;
  }
  return TRUE;
}

/* The chain run once on a tenth of a second of noise, before the jobs
 * start, on a thread of its own while the main thread reads the list: it
 * starts the OpenCL driver and the default device (a third of a second or
 * more on a GPU, which the list's reading then hides) and, with --format
 * htk, finds whether afetenc takes what the chain makes (HTK has no kind
 * for Kaldi's energy in column 0, nor more than 16383 values a frame):
 * every input would fail alike, so afetenc's refusal is one usage error.
 * Other errors are left to the inputs (the rate may matter to them). */
bool
check_chain (const Options & o, std::string * why)
{
  const bool htk = o.format == "htk" && !o.htk;  /* -C: its chains are HTK's */
  const int rate = o.rate > 0 ? o.rate : 16000;
  const std::string text = "audiotestsrc wave=white-noise num-buffers=1 "
      "samplesperbuffer=" + std::to_string (rate / 10) + " ! audio/x-raw,"
      "format=S16LE,channels=1,rate=" + std::to_string (rate) + " ! " +
      o.chain + (htk ? " ! afetenc name=afetx_enc format=htk" : "") +
      " ! fakesink";
  GstElement *pipe = gst_parse_launch_full (text.c_str (), nullptr,
      GST_PARSE_FLAG_FATAL_ERRORS, nullptr);
  if (!pipe)
    return true;
  bool ok = true;
  if (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE) {
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (htk && m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR &&
        g_strcmp0 (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), "afetx_enc") == 0) {
      GError *e = nullptr;
      gst_message_parse_error (m, &e, nullptr);
      if (e->domain == GST_CORE_ERROR && e->code == GST_CORE_ERROR_NEGOTIATION) {
        *why = "--format htk cannot hold what '" + o.chain + "' makes: " +
            e->message + " (every input would fail; --format npy, kaldi or "
            "raw hold it)";
        ok = false;
      }
      g_error_free (e);
    }
    if (m)
      gst_message_unref (m);
    gst_object_unref (bus);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return ok;
}

}  /* namespace */

int
main (int argc, char **argv)
{
  /* the start-up's parts, for the summary */
  const gint64 t_main = g_get_monotonic_time ();
  Options o;
  /* the options' strings, freed on every return (usage errors too) */
  g_autofree gchar *chain = nullptr;
  g_autofree gchar *config = nullptr;
  g_autofree gchar *scp = nullptr;
  g_autofree gchar *out_dir = nullptr;
  g_autofree gchar *wav_scp = nullptr;
  g_autofree gchar *segments = nullptr;
  g_autofree gchar *ark = nullptr;
  g_autofree gchar *format = nullptr;
  g_autofree gchar *device = nullptr;
  g_autofree gchar *shard = nullptr;
  g_auto (GStrv) pastes = nullptr;
  gint jobs = o.jobs, rate = 0, paste_tolerance = 2;
  gdouble max_overshoot = o.max_overshoot;
  gboolean skip = FALSE, quiet = FALSE, progress = FALSE, print = FALSE,
      no_wav_reader = FALSE, keep_truncated = FALSE;
  GOptionEntry entries[] = {
    {"pipeline", 'p', 0, G_OPTION_ARG_STRING, &chain,
        "The afet elements to run, as in gst-launch-1.0 (default: afetmfcc)",
        "CHAIN"},
    {"paste", 0, 0, G_OPTION_ARG_STRING_ARRAY, &pastes,
          "Another chain on the same audio, its frames appended to the "
          "chain's (afetpaste: paste-feats); repeatable. make_mfcc_pitch.sh: "
          "-p 'afetmfcc preset=kaldi' --paste afetpitch", "CHAIN"},
    {"paste-length-tolerance", 0, 0, G_OPTION_ARG_INT, &paste_tolerance,
          "--paste: lengths differing by at most N frames are cut to the "
          "shortest, more fails the input (default: 2, as "
          "make_mfcc_pitch.sh; paste-feats --length-tolerance)", "N"},
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
    {"max-overshoot", 0, 0, G_OPTION_ARG_DOUBLE, &max_overshoot,
          "--segments: an end past the recording by less than SECONDS is "
          "clipped to it, by more the segment fails (default: 0.5, as "
          "Kaldi's extract-segments)", "SECONDS"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
        "Output format: htk (default), npy, kaldi (or ark), raw", "FORMAT"},
    {"ark", 0, 0, G_OPTION_ARG_FILENAME, &ark,
          "Write one Kaldi archive DIR/NAME.ark and its index DIR/NAME.scp "
          "('KEY DIR/NAME.ark:OFFSET'); implies --format kaldi",
        "DIR/NAME.ark"},
    {"compress", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
          (gpointer) parse_compress,
          "Kaldi archives: write Kaldi's compressed matrices, byte for byte "
          "as copy-feats --compress=true --compression-method=METHOD (1, the "
          "default: CM above 8 frames, else CM2; 2 CM; 3, 4 CM2; 5, 6, 7 "
          "CM3)", "METHOD"},
    {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
        "Pipelines running at once, sharing the device (default: 8 a GPU, "
        "12 when the inputs last three minutes or more, at most one a core; "
        "for a chain with afetpitch two a core, at most one a GiB of GPU "
        "memory; 2 on a CPU device; 0: this default)", "N"},
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
          "afet-extract reads plain mono 8-bit, 16-bit or float WAV files itself "
          "when no resampling is needed: the same samples, less work per "
          "file)", nullptr},
    {"keep-truncated", 0, 0, G_OPTION_ARG_NONE, &keep_truncated,
          "Compute what a truncated WAV file holds, with a warning (by "
          "default such a file fails: its header gives more audio than the "
          "file has, as when a copy was cut short)", nullptr},
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
      "  afet-extract --wav-scp wav.scp --ark data/feats.ark -p "
      "'afetmfcc preset=kaldi' --paste afetpitch   # make_mfcc_pitch.sh\n"
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
      "SIGTERM, SIGINT or SIGHUP stops the run: the inputs in flight are "
      "abandoned and their partial outputs removed, and the summary says "
      "what was done (--skip-existing goes on from there).\n\n"
      "Exit status: 0 all done, 1 some inputs failed, 2 bad usage, 128 + "
      "the signal's number when a signal stopped the run.");
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  GError *err = nullptr;
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("afet-extract: %s (try --help)\n", err->message);
    g_error_free (err);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  gst_init (&argc, &argv);
  const gint64 t_init = g_get_monotonic_time ();
  /* keys are bytes (UTF-8 uttids among them): printed as they are, not
   * converted to the locale's character set ("????" in the C locale) */
  g_set_printerr_handler ([](const gchar * s) {
        fputs (s, stderr);
      });

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
    o.config = config;
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
  if (paste_tolerance < 0)
    return usage ("--paste-length-tolerance takes frames, 0 or more");
  if (pastes) {
    std::vector<std::string> v;
    for (gchar ** c = pastes; *c; c++) {
      if (!**c)
        return usage ("--paste needs a chain (e.g. --paste afetpitch)");
      v.push_back (*c);
    }
    o.chain = paste_chain (o.chain, v, paste_tolerance);
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
  if (!compress_error.empty ())
    return usage (compress_error);
  if (compress_method != 0 && o.format != "kaldi")
    return usage ("--compress writes Kaldi's compressed matrices, which "
        "only Kaldi archives hold: add --ark or --format kaldi");
  o.compress = compress_method;
  if (o.scp.empty () == o.wav_scp.empty ())
    return usage ("give one list: --scp or --wav-scp");
  if (!o.segments.empty () && o.wav_scp.empty ())
    return usage ("--segments goes with --wav-scp");
  if (!o.wav_scp.empty () && o.ark.empty () && o.out_dir.empty ())
    return usage ("--wav-scp needs --out-dir or --ark");
  if (!o.ark.empty () && !g_str_has_suffix (o.ark.c_str (), ".ark"))
    return usage ("--ark names a file ending in .ark");
  if (jobs < 0)
    return usage ("--jobs must be at least 1 (or 0: the default)");
  if (!std::isfinite (max_overshoot) || max_overshoot < 0 ||
      max_overshoot > kMaxSegmentSeconds)
    return usage ("--max-overshoot takes seconds, 0 or more");
  o.max_overshoot = max_overshoot;
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
  o.keep_truncated = keep_truncated;
  {
    /* read once, before any thread: umask() can only be read by setting it */
    const mode_t mask = umask (022);
    umask (mask);
    o.file_mode = 0666 & ~mask;
  }

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
    /* refused before anything runs: the chain's check below would write
     * the file */
    std::string stats_why;
    const bool stats = chain_writes_stats (test, &stats_why);
    gst_object_unref (test);
    if (stats)
      return usage (stats_why);
  }

  std::vector<Item> items;
  std::string why;
  /* the chain's check on its thread while this one reads the list */
  const gint64 t_list = g_get_monotonic_time ();
  std::string check_why;
  bool check_ok = true;
  gint64 t_checked = t_list;
  std::thread checker ([&] {
        check_ok = check_chain (o, &check_why);
        t_checked = g_get_monotonic_time ();
      });
  const bool listed = make_items (o, &items, &why);
  /* for -j's default, while the check still runs */
  const double typical_s = listed && o.jobs == 0 ? typical_seconds (items) :
      0;
  const gint64 t_listed = g_get_monotonic_time ();
  checker.join ();
  if (!listed)
    return usage (why);
  if (!items.empty () && !check_ok)
    return usage (check_why);

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
  Archive archive;
  std::map<std::string, bool> have;
  if (!o.ark.empty () && !archive.open (o.ark, o.skip_existing, &have, &why))
    return usage (why);
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

  /* from here a signal stops the run cleanly (work.h) */
  catch_stop_signals ();
  const gint64 t0 = g_get_monotonic_time ();
  std::vector<std::thread> threads;
  /* a chain holding whole utterances (afetpitch offline): more jobs */
  const int want = o.jobs > 0 ? o.jobs : auto_jobs (sh.devices,
      o.chain.find ("afetpitch") != std::string::npos, typical_s);
  const int n_jobs = std::max (1, std::min<int> (want, (int) items.size ()));
  sh.jobs = n_jobs;
  for (int w = 0; w < n_jobs; w++)
    threads.emplace_back (worker, &sh, w);

  /* the main thread: the archive in list order, and the progress line */
  size_t n_skipped = 0;
  std::vector<std::string> failures;
  std::string stopped;          /* why the run stopped early */
  /* the results done, in list order from sh.written: their entries into
   * the archive, their warnings and errors to stderr (under sh.lock, or
   * after the workers are joined) */
  bool halted = false;          /* an input cut by a signal was written */
  auto write_done =[&]() {
    while (!halted && sh.written < items.size () &&
        sh.results[sh.written].done) {
      Result & r = sh.results[sh.written];
      for (const auto & e:r.entries)
        if (stopped.empty () && !archive.write (e.first, e.second, &why))
          stopped = why;
      r.entries.clear ();
      for (const auto & e:r.warnings)
        g_printerr ("%safet-extract: warning: %s\n", o.progress ?
            "\r\033[K" : "", e.c_str ());
      /* an input cut by a signal is not a failure: --skip-existing does
       * it again; nothing after it is written, so that the archive stays
       * a prefix of the list */
      for (const auto & e:r.errors) {
        if (r.cut)
          break;
        g_printerr ("%safet-extract: %s\n", o.progress ? "\r\033[K" : "",
            e.c_str ());
        failures.push_back (e);
      }
      halted = r.cut;
      n_skipped += r.skipped ? 1 : 0;
      sh.written++;
    }
  };
  double last_draw = 0;
  for (;;) {
    std::unique_lock < std::mutex > l (sh.lock);
    sh.cond.wait_for (l, std::chrono::milliseconds (250), [&] {
          return sh.written < items.size () && sh.results[sh.written].done;
        });
    write_done ();
    if (!stopped.empty () || interrupted ())
      sh.stop = true;           /* the workers take no more inputs */
    const bool all_done = sh.written == items.size () || !stopped.empty () ||
        interrupted ();
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
  /* after a signal: what the workers finished, the inputs they were on
   * included (each stops at its next block; a recording's segments done
   * before the signal are whole), still in list order: the archive stays
   * a prefix of the list, which --skip-existing completes into a whole
   * run's bytes */
  if (interrupted () && stopped.empty ()) {
    std::lock_guard < std::mutex > l (sh.lock);
    write_done ();
  }
  if (!o.ark.empty () && !archive.close (&why) && stopped.empty ())
    stopped = why;
  const int sig = interrupted ();
  if (sig && stopped.empty ()) {
    /* what is kept is whole: outputs renamed when complete, archive
     * entries written in list order; partial outputs were removed */
    size_t done = 0;
    for (size_t i = 0; i < items.size (); i++) {
      const Result & r = sh.results[i];
      done += r.done && r.errors.empty ()? 1 : 0;
    }
    if (!o.ark.empty ())
      done = std::min (done, sh.written);
    stopped = std::string ("stopped by ") + (sig == SIGTERM ? "SIGTERM" :
        sig == SIGINT ? "SIGINT" : "SIGHUP") + " after " +
        std::to_string (done) + " of " + std::to_string (items.size ()) +
        " inputs" + (o.ark.empty ()? "" : " (" + std::to_string
        (archive.entries ()) + " entries of this run in " + archive.index () +
        ")") + "; no partial output is left under a final name: run again "
        "with --skip-existing to go on";
    failures.push_back (stopped);
    g_printerr ("%safet-extract: %s\n", o.progress ? "\r\033[K" : "",
        stopped.c_str ());
  } else if (!stopped.empty ()) {
    /* nothing after the failure is kept: say what is */
    stopped += "; " + archive.index () + " lists the " + std::to_string
        (archive.entries ()) + " entries of this run written whole (and "
        "those of an earlier run it resumed): make room and run again with "
        "--skip-existing to go on";
    failures.push_back (stopped);
    g_printerr ("%safet-extract: %s\n", o.progress ? "\r\033[K" : "",
        stopped.c_str ());
  }

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
    if (sh.steady_t0)
      g_printerr ("afet-extract: start-up: %.3f s to initialise GStreamer "
          "(its registry), %.3f s to read the list while the chain was "
          "checked once in %.3f s (the device's start), %.3f s from the "
          "workers' start until every job had finished its first input\n",
          (t_init - t_main) / 1e6, (t_listed - t_list) / 1e6,
          (t_checked - t_list) / 1e6, (sh.steady_t0 - t0) / 1e6);
    /* -j's default depends on the device and the inputs' length */
    gchar *why_jobs = o.jobs > 0 ? g_strdup ("") : g_strdup_printf (" (-j's "
        "default for %s, inputs of about %.0f s)", sh.devices.empty ()?
        "this device" : "these devices", typical_s);
    if (!sh.devices.empty ()) {
      std::string d;
      for (const auto & x:sh.devices)
        d += (d.empty ()? "" : ", ") + x;
      g_printerr ("afet-extract: %d jobs on the devices %s%s\n", n_jobs,
          d.c_str (), why_jobs);
    } else {
      g_printerr ("afet-extract: %d jobs%s\n", n_jobs, why_jobs);
    }
    g_free (why_jobs);
    for (const auto & f:failures)
      g_printerr ("  %s\n", f.c_str ());
  } else if (!failures.empty ()) {
    g_printerr ("afet-extract: %zu failed\n", failures.size ());
  }
  if (sig)
    return 128 + sig;           /* as a shell reports a process killed by it */
  return failures.empty ()? 0 : 1;
}
