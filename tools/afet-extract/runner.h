/* afet-extract's pipelines: the text of each, the OpenCL devices of -d all,
 * and Runner, one worker's pipeline reused from input to input.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gst/gst.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "direct.h"
#include "extract.h"
#include "wavreader.h"

namespace afetx
{

/* "P:D" of every GPU, or of every device when there is no GPU. */
std::vector<std::string> all_devices ();
/* -j's default: on GPUs, up to 8 pipelines a GPU (at most one a core:
 * the host reads, encodes and writes while the GPU computes), 12 a GPU
 * when the inputs are long (@seconds, typical_seconds (), at least
 * kLongInputSeconds: a long input's launches are large and few, and more
 * jobs keep the GPU fed between them; 2x H200 hosts, 100 h of five-minute
 * files: one GPU 2.23 s against 2.45 s with 8, two GPUs from 2 % slower
 * to 7 % faster, 1000 h 14 % faster; one-minute files gained nothing, and
 * short files, bound by each device's work a file, lose with more jobs:
 * benchmarks.md's "Two GPUs"), and for a chain that holds
 * whole utterances (@whole: afetpitch offline; its host work, reading and
 * converting a whole file before the device starts, is the larger part)
 * two a core, at most one a GiB of the GPUs' memory (an utterance of ten
 * minutes takes about 0.7 GB there), at least 8 a GPU: measured on H200
 * hosts of 16 cores, 10 h in ten-minute files took 2.3 s with 8 jobs, 1.4
 * to 2.4 s with 16, 1.4 s with 32, 1.5 to 1.6 s with 60; on a CPU device
 * 2 (the device's own threads use the cores).  @devices: -d's list
 * (empty: the elements' auto choice, AFET_DEVICE or the first GPU). */
int auto_jobs (const std::vector<std::string> & devices, bool whole,
    double seconds);

/* inputs this long or longer (their median) get 12 jobs a GPU by default */
constexpr double kLongInputSeconds = 180;

/* The seconds of a typical input: the median of up to 33 inputs spread
 * over the list, each from its WAV header (any rate), its segment's start
 * and end, or else its file's size as 16 kHz 16-bit audio (compressed
 * files count shorter than they are); 0 when none can be told (commands).
 * A few header reads, on the main thread while the chain's check runs. */
double typical_seconds (const std::vector<Item> & items);

/* The pipeline, as gst-launch-1.0 would take it (for_launch: decodebin
 * linked by gst-launch-1.0 itself, for --print-pipeline). */
std::string pipeline_text (const Options & o, const char *src,
    bool to_memory, bool for_launch = false);

/* --paste: the chain and each pasted chain on a branch of their own (a tee,
 * a queue a branch), their frames joined by afetpaste with length-tolerance
 * (make_mfcc_pitch.sh's compute-mfcc-feats and compute-and-process-kaldi-
 * pitch-feats through paste-feats); the chain alone without pastes. */
std::string paste_chain (const std::string & chain,
    const std::vector<std::string> & pastes, int tolerance);

/* Whether chain (an element, or a bin and its elements at any depth) has
 * afetcmvn's write-stats set;
 * *why says why afet-extract refuses it and what to run instead. It sums
 * one stream's statistics and writes them at its end, and afet-extract
 * runs every input as a stream of its own (jobs at once): the file would
 * hold one input's sums. */
bool chain_writes_stats (GstElement * chain, std::string * why);

/* -C: an input whose rate is not the config's SOURCERATE is refused, as
 * HCopy would not resample it. */
bool rate_agrees (const Options & o, int rate, std::string * why);

/* what one run saw: the bytes into the chain and out of it, and the caps */
struct Counters
{
  std::atomic<guint64> audio_bytes { 0 };
  std::atomic<guint64> feature_bytes { 0 };
  int bytes_per_second = 0;
  int rate = 0;                 /* of the audio entering the chain */
  int frame_bytes = 0;
};

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
      int out_fd, std::string * entry, double *audio_s,
      std::string * why);

  /* --segments: the decoded audio of a recording, and one segment. */
  /* points the source at a file, or at a started command's output */
  bool set_source (const std::string & input, bool command, int *fd,
      GPid * pid, std::string * why);
  bool decode (const std::string & input, bool command, GstCaps ** caps,
      std::vector<guint8> *pcm, std::string * why);
  bool run_segment (GstCaps * caps, const guint8 * data, size_t bytes,
      const std::string & key, int out_fd, std::string * entry,
      std::string * why);
  /* a plain WAV file's samples (read_plain_wav), read block by block as
   * appsrc asks for them */
  bool run_wav (PlainWav * wav, const std::string & key,
      int out_fd, std::string * entry, double *audio_s,
      std::string * why);

private:
  bool build (const std::string & text, std::string * why);
  bool source_ready (bool command, const std::string & text,
      std::string * why);
  /* A run: begin (the key, the output file, the counters, PLAYING), then
   * end (ok from wait (); the entry, the audio's seconds and the checks
   * every input gets; a fresh pipeline after a failure). */
  bool begin (const std::string & key, int out_fd,
      std::string * why);
  bool end (bool ok, int out_fd, std::string * entry,
      double *audio_s, std::string * why);
  /* the whole input in caps, through "appsrc ! CHAIN ! afetenc": buf
   * (taken), or without it wav's blocks (feed_) */
  bool run_buffer (GstCaps * caps, GstBuffer * buf, guint64 duration,
      PlainWav * wav, const std::string & key, int out_fd,
      std::string * entry, double *audio_s, std::string * why);
  bool build_direct (bool to_memory, bool *direct, std::string * why);
  bool run_direct (GstCaps * caps, GstBuffer * buf, guint64 duration,
      PlainWav * wav, const std::string & key, int out_fd,
      std::string * entry, double *audio_s, std::string * why);
  void drop ();
  void read_formats ();
  bool wait (std::string * why, int child_fd, GPid child);
  void set_devices ();

  const Options & opt_;
  std::string device_;
  GstElement *pipe_ = nullptr;
  GstElement *src_ = nullptr, *enc_ = nullptr, *sink_ = nullptr;
  /* src_ is fdsrc (a command's audio), not filesrc */
  bool built_for_command_ = false;
  Counters counts_;
  /* the chain's ends when it runs its inputs without state changes
   * (build_direct) */
  DirectPads direct_;
  std::string input_;           /* the file of this run, if any */

public:
  /* run_wav's file, read in appsrc's streaming thread (need-data) */
  struct Feed
  {
    PlainWav *wav = nullptr;
    std::mutex lock;
    std::string error;          /* a read that failed */
    bool ended = false;
  };
  /* the key of this run, told to the chain as an afet-key tag before its
   * first buffer (afetcmvn scope=archive, afettransform matrices=, pick
   * their statistics or matrix by it, as afetenc names the entry) */
  struct KeyTag
  {
    std::mutex lock;
    std::string key;
    bool pending = false;
  };
  /* decodebin's pads of this run: whether one was audio, and the media
   * types of the others (an input without audio is named as such) */
  struct Pads
  {
    GstElement *conv = nullptr;
    std::mutex lock;
    bool audio = false;
    std::string others;
  };

private:
  KeyTag key_tag_;
  Feed feed_;
  Pads pads_;
};

}  /* namespace afetx */
