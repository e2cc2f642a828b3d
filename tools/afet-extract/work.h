/* afet-extract's workers: the state they share with the main thread, and
 * the loop each runs over the work items.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "extract.h"

namespace afetx
{

struct Shared
{
  const Options *opt = nullptr;
  std::vector<Item> *items = nullptr;
  std::vector<Result> results;
  std::vector<std::string> devices;
  std::atomic<size_t> next { 0 };
  std::atomic<bool> stop { false };     /* the run failed: take no more */
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

/* creates the folder a file goes into; false with *why */
bool make_parent (const std::string & path, std::string * why);

/* SIGTERM (Slurm at a time limit), SIGINT and SIGHUP ask the run to stop:
 * the handler only records the signal (a second one kills at once, as
 * without it); the workers abandon their inputs (interrupted () is polled
 * while a run waits), their partial outputs are removed, and main reports
 * what was done and exits with 128 + the signal's number. */
void catch_stop_signals ();
/* the signal that asked the run to stop, or 0 */
int interrupted ();

/* worker w: takes items from sh->next until none is left, and fills their
 * results */
void worker (Shared * sh, int w);

}  /* namespace afetx */
