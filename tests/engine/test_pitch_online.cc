/* Tests of the online pitch tracker's device work (engine/temporal/
 * pitch-online.h, pitch-chunks.h), without GStreamer: the host resampling
 * equals the kernel's, and live streams' chunks computed together equal
 * each stream computed alone, bit for bit.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * 1. PitchStage::resample_host against resample_device (afet_pitch_resample)
 *    on random signals at 8 and 16 kHz (and 44.1 kHz: a long phase table),
 *    for the parts the online tracker asks for (outputs from a chunk's
 *    first on, inputs from resample_first_input, zeros past the input's
 *    end), every output bit for bit. Needs fp64 on the device (where it has
 *    none the kernel resamples online and there is nothing to compare).
 * 2. Nine OnlinePitch trackers on threads that start together, six of one
 *    configuration (16 kHz), three of another (8 kHz, snip-edges false: the
 *    first frames start before the signal; pre-emphasis), over different
 *    signals, round after round: after every chunk, the frames ready and
 *    their values must equal the same stream run alone, and some chunks
 *    must have gone in launches with other streams' (else the combiner
 *    would go untested).
 */
#include "enginecheck.h"
#include "pitch-online.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using enginecheck::check;

static std::shared_ptr<afet::Device> device;

static void
resampling (float rate)
{
  afet::PitchConfig c;
  c.samp_freq = rate;
  afet::PitchStage s;
  afet::Status st = s.init (device, c);
  std::string name = std::to_string ((int) rate) + " Hz";
  check (st.ok (), "stage at " + name + ": " + st.message ());
  if (!st.ok ())
    return;
  if (!s.fp64 ()) {
    /* the online tracker resamples with the kernel there */
    std::printf ("SKIP: %s: the device has no fp64\n", name.c_str ());
    return;
  }
  std::mt19937 gen ((unsigned) rate);
  std::uniform_real_distribution<float> u (-32768.0f, 32767.0f);
  std::uniform_int_distribution<int> len (1, 3 * (int) rate / 10);
  long long checked = 0, differ = 0;
  for (int trial = 0; trial < 40; trial++) {
    long long n = len (gen);
    std::vector<float> w (n);
    for (float &v : w)
      v = u (gen);
    /* the parts the tracker asks for: k0 somewhere, x0 the first input
     * it needs, the outputs up to those all the input gives (flush) */
    long long all = afet::pitch_resampled_count (c, n, true);
    long long k0 = all > 0 ? gen () % all : 0;
    long long x0 = s.resample_first_input (k0);
    if (x0 >= n || all <= k0)
      continue;
    std::vector<float> host (all - k0), dev (all - k0);
    s.resample_host (w.data () + x0, x0, n - x0, k0, all, host.data ());
    st = s.resample_device (w.data () + x0, x0, n - x0, k0, all,
        dev.data ());
    if (!st.ok ()) {
      check (false, "resample_device: " + st.message ());
      return;
    }
    checked += all - k0;
    differ += std::memcmp (host.data (), dev.data (), host.size () *
        sizeof (float)) != 0;
  }
  check (checked > 1000 && differ == 0, name + ": the host's resampling "
      "equals afet_pitch_resample's on " + std::to_string (checked) +
      " outputs of 40 random signals, bit for bit (" + std::to_string
      (differ) + " parts differ)");
}

/* A stream's run: after each chunk, the frames ready and the values of the
 * frames that became ready; at the end, every frame. */
struct Run
{
  std::vector<int> ready;
  std::vector<float> values;
  long long combined = 0;
  bool ok = true;
};

static void
run_stream (afet::OnlinePitch *p, const std::vector<float> &w,
    long long chunk, Run *out)
{
  p->reset ();
  int had = 0;
  auto take = [&] () {
        int r = p->frames_ready ();
        out->ready.push_back (r);
        for (int t = had; t < r; t++) {
          float a, b;
          p->frame (t, &a, &b);
          out->values.push_back (a);
          out->values.push_back (b);
        }
        had = r;
      };
  long long before = p->combined_chunks ();
  for (long long i = 0; i < (long long) w.size (); i += chunk) {
    long long n = std::min<long long> (chunk, (long long) w.size () - i);
    out->ok = out->ok && p->accept (w.data () + i, n).ok ();
    take ();
  }
  out->ok = out->ok && p->finish ().ok ();
  had = 0;
  take ();
  out->combined = p->combined_chunks () - before;
}

int
main ()
{
  if (!enginecheck::open_device (&device))
    return 1;
  afet::Status st;

  resampling (8000.0f);
  resampling (16000.0f);
  resampling (44100.0f);

  const int K = 9, A = 6;
  afet::PitchConfig a, b;
  a.frames_per_chunk = 10;
  b.frames_per_chunk = 10;
  b.samp_freq = 8000.0f;
  b.snip_edges = false;
  b.preemph_coeff = 0.97f;
  std::vector<std::vector<float>> sig;
  for (int k = 0; k < K; k++) {
    const afet::PitchConfig &c = k < A ? a : b;
    sig.push_back (enginecheck::glide ((long long) (c.samp_freq * (2.0 +
                    0.37 * k)), c.samp_freq, 90.0 + 20 * k, (unsigned) k + 1));
  }
  std::vector<std::unique_ptr<afet::PitchStage>> stages;
  std::vector<afet::OnlinePitch> trackers (K);
  for (int k = 0; k < K; k++) {
    stages.push_back (std::make_unique<afet::PitchStage> ());
    st = stages.back ()->init (device, k < A ? a : b);
    check (st.ok (), "stage " + std::to_string (k) + ": " + st.message ());
    if (!st.ok ())
      return enginecheck::finish ();
    trackers[k].init (stages.back ().get ());
  }

  /* each stream alone */
  std::vector<Run> alone (K);
  for (int k = 0; k < K; k++) {
    run_stream (&trackers[k], sig[k], afet::pitch_chunk_samples (k < A ?
            a : b), &alone[k]);
    check (alone[k].ok && alone[k].combined == 0 &&
        alone[k].values.size () > 200, "stream " + std::to_string (k) +
        " alone: " + std::to_string (alone[k].ready.size ()) + " chunks");
  }

  /* all on threads at once, round after round */
  long long combined = 0;
  int mismatches = 0, failures = 0;
  const int rounds = 4;
  for (int r = 0; r < rounds; r++) {
    std::atomic<int> ready (0);
    std::vector<Run> got (K);
    std::vector<std::thread> threads;
    for (int k = 0; k < K; k++)
      threads.emplace_back ([&, k] {
            ready++;
            while (ready.load () < K)
              std::this_thread::yield ();
            run_stream (&trackers[k], sig[k], afet::pitch_chunk_samples (k <
                    A ? a : b), &got[k]);
          });
    for (auto &t : threads)
      t.join ();
    for (int k = 0; k < K; k++) {
      failures += !got[k].ok;
      if (got[k].ready != alone[k].ready || got[k].values != alone[k].values)
        mismatches++;
      combined += got[k].combined;
    }
  }
  check (failures == 0, "every threaded stream succeeded");
  check (mismatches == 0, "every stream of " + std::to_string (rounds) +
      " rounds of " + std::to_string (K) + " threads equals its own run "
      "alone, chunk by chunk, bit for bit (" + std::to_string (mismatches) +
      " differ)");
  check (combined > 0, std::to_string (combined) + " chunks went in a "
      "launch with other streams' chunks");
  return enginecheck::finish ();
}
