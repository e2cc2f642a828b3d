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
 * tracker one chunk (what a live stream's first buffer costs). ONLINE=2:
 * then one stage's tracker alone over 60 s of a glide, chunk by chunk,
 * and its CPU time a second of audio (a live stream's host and device
 * cost without GStreamer).
 *
 *   afet-pitch-init [N] [THREADS] [ONLINE]     (defaults 50, 1, 0)
 */
#include "pitch-online.h"

#include <sys/resource.h>

#include <algorithm>
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
  const int mode = argc > 3 ? atoi (argv[3]) : 0;
  const bool online = mode != 0;
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
  if (mode == 2) {
    /* a glide from 100 to 300 Hz and back, with noise */
    std::vector<float> sig (16000 * 60);
    double ph = 0;
    unsigned r = 1;
    for (size_t i = 0; i < sig.size (); i++) {
      double f = 200.0 + 100.0 * std::sin (2 * M_PI * i / (16000.0 * 7));
      ph += 2 * M_PI * f / 16000.0;
      r = r * 1103515245u + 12345u;
      sig[i] = (float) (3000.0 * std::sin (ph) + ((r >> 16) % 601) - 300.0);
    }
    afet::OnlinePitch on;
    on.init (&first);
    const long long chunk = afet::pitch_chunk_samples (c);
    const double c1 = cpu_seconds ();
    for (size_t i = 0; i < sig.size () && st.ok (); i += chunk)
      st = on.accept (sig.data () + i, std::min<long long> (chunk,
              (long long) (sig.size () - i)));
    if (st.ok ())
      st = on.finish ();
    if (!st.ok ()) {
      std::fprintf (stderr, "%s\n", st.message ().c_str ());
      return 1;
    }
    double per = (cpu_seconds () - c1) / 60.0;
    std::printf ("one tracker, 60 s of audio in chunks of %lld samples: "
        "%.1f ms CPU a second of audio (%.2f %% of a core in real time), "
        "%d frames\n", chunk, per * 1e3, per * 100, on.frames_ready ());
  }
  return 0;
}
