/* afet-pitch-init: what building N pitch stages on one device costs (the
 * start-up of N afetpitch streams, without GStreamer).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One stage is built first (the program compiled or loaded from the cache,
 * the shared state made: not timed), then N more, each kept alive as a
 * stream keeps its own; their wall-clock and CPU time (user + sys of the
 * process) are printed in total and per stage. With THREADS > 1 the N are
 * built from that many threads at once. ONLINE=1 also feeds each stage's
 * tracker one chunk (what a live stream's first buffer costs).
 *
 *   afet-pitch-init [N] [THREADS] [ONLINE]     (defaults 50, 1, 0)
 */
#include "pitch-online.h"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

static double
cpu_seconds ()
{
  rusage r;
  getrusage (RUSAGE_SELF, &r);
  return r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec +
      r.ru_stime.tv_usec) / 1e6;
}

int
main (int argc, char **argv)
{
  const int n = argc > 1 ? atoi (argv[1]) : 50;
  const int threads = argc > 2 ? std::max (1, atoi (argv[2])) : 1;
  const bool online = argc > 3 && atoi (argv[3]) != 0;
  std::shared_ptr<afet::Device> dev;
  afet::Status st = afet::acquire_device ("auto", &dev);
  if (!st.ok ()) {
    std::fprintf (stderr, "%s\n", st.message ().c_str ());
    return 1;
  }
  afet::PitchConfig c;
  c.frames_per_chunk = 10;
  afet::PitchStage first;
  st = first.init (dev, c);
  if (!st.ok ()) {
    std::fprintf (stderr, "%s\n", st.message ().c_str ());
    return 1;
  }
  /* a chunk of a 200 Hz tone, Kaldi's scale */
  std::vector<float> wave (afet::pitch_chunk_samples (c));
  for (size_t i = 0; i < wave.size (); i++)
    wave[i] = 3000.0f * (float) std::sin (2 * M_PI * 200.0 * i / 16000.0);
  std::vector<afet::PitchStage> stages (n);
  std::vector<afet::OnlinePitch> trackers (online ? n : 0);
  std::vector<afet::Status> status (threads);
  const double c0 = cpu_seconds ();
  auto w0 = std::chrono::steady_clock::now ();
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; k++)
    pool.emplace_back ([&, k] {
          for (int i = k; i < n && status[k].ok (); i += threads) {
            status[k] = stages[i].init (dev, c);
            if (status[k].ok () && online) {
              trackers[i].init (&stages[i]);
              status[k] = trackers[i].accept (wave.data (),
                  (long long) wave.size ());
            }
          }
        });
  for (std::thread &t : pool)
    t.join ();
  double wall = std::chrono::duration<double> (std::chrono::steady_clock::
      now () - w0).count ();
  double cpu = cpu_seconds () - c0;
  for (const afet::Status &s : status)
    if (!s.ok ()) {
      std::fprintf (stderr, "%s\n", s.message ().c_str ());
      return 1;
    }
  std::printf ("device: %s\n%d stages%s from %d thread(s): wall %.1f ms "
      "(%.1f us a stage), cpu %.1f ms (%.1f us a stage)\n",
      dev->info ().describe ().c_str (), n, online ? " and a chunk each" :
      "", threads, wall * 1e3, wall * 1e6 / n, cpu * 1e3, cpu * 1e6 / n);
  return 0;
}
