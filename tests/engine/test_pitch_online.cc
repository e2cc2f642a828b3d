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
 * 3. Stages share what does not depend on the stream (pitch-tables.h): two
 *    stages of one configuration hold the same PitchTables (one build, the
 *    same device buffers), one of another configuration its own; a stage
 *    makes its kernels and joins its chunk combiner only when it first
 *    needs them (an offline compute () joins no chunk combiner).
 * 4. Eight stages of a configuration not yet built, created on threads
 *    that start together, each running a stream online and the same
 *    signal offline: the tables are built once, and every result equals
 *    a stage's made alone afterwards (the tables built again), bit for bit.
 * 5. The tracker's host Viterbi step (by blocks of 16 lags) against a
 *    search of every lag, on costs full of ties (the lowest index must
 *    win, and a zero keep its sign): every predecessor and cost the same.
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

static void
sharing ()
{
  afet::PitchConfig a, b;
  a.frames_per_chunk = 10;
  b.frames_per_chunk = 10;
  b.min_f0 = 70.0f;
  long long b0 = afet::PitchTables::builds ();
  afet::PitchStage s1, s2, s3;
  afet::Status st = s1.init (device, a);
  if (st.ok ())
    st = s2.init (device, a);
  if (st.ok ())
    st = s3.init (device, b);
  check (st.ok (), "three stages: " + st.message ());
  if (!st.ok ())
    return;
  check (s1.tables () && s1.tables () == s2.tables () &&
      s1.tables ()->rs_w.get () == s2.tables ()->rs_w.get (),
      "two stages of one configuration share their tables and buffers");
  check (s3.tables () != s1.tables () && s3.tables ()->up_w.get () !=
      s1.tables ()->up_w.get () && s3.n_lags () != s1.n_lags (),
      "a stage of another min-f0 has tables of its own");
  /* a and b may have been built before this (the threads' stages above
   * are gone, their tables with them): at most two builds, and s2 none */
  long long built = afet::PitchTables::builds () - b0;
  check (built <= 2, "at most one build a configuration (" +
      std::to_string (built) + " for two)");
  check (!s1.kernels_made () && !s1.has_chunk_combiner (),
      "a stage makes no kernel and joins no chunk combiner at init");
  std::vector<float> w = enginecheck::glide (16000, 16000.0f, 150.0, 7),
      raw;
  st = s1.compute (w.data (), (long long) w.size (), &raw);
  check (st.ok () && !raw.empty () && s1.kernels_made () &&
      !s1.has_chunk_combiner (), "an offline compute () makes the kernels "
      "and joins no chunk combiner: " + st.message ());
  afet::OnlinePitch on;
  on.init (&s2);
  st = on.accept (w.data (), (long long) w.size ());
  if (st.ok ())
    st = on.finish ();
  check (st.ok () && on.frames_ready () > 0 && s2.has_chunk_combiner () &&
      s2.kernels_made () == !s2.fp64 (), "an online stream joins the chunk "
      "combiner, and makes kernels only to resample without fp64: " +
      st.message ());
}

/* What a stage gives for a signal: online (chunk by chunk) and offline. */
struct Both
{
  Run online;
  std::vector<float> offline;
  std::vector<int> lag;
  bool ok = true;
};

static void
both (const afet::PitchConfig &c, const std::vector<float> &w, Both *out)
{
  afet::PitchStage s;
  afet::Status st = s.init (device, c);
  out->ok = st.ok ();
  if (!st.ok ())
    return;
  afet::OnlinePitch on;
  on.init (&s);
  run_stream (&on, w, afet::pitch_chunk_samples (c), &out->online);
  st = s.compute (w.data (), (long long) w.size (), &out->offline,
      &out->lag);
  out->ok = out->ok && out->online.ok && st.ok ();
}

static void
concurrent_creation ()
{
  /* a configuration no other part of this test uses: its tables are made
   * by one of the threads while the others wait for them */
  afet::PitchConfig c;
  c.frames_per_chunk = 7;
  c.min_f0 = 55.0f;
  c.max_f0 = 380.0f;
  const int K = 8;
  std::vector<std::vector<float>> sig;
  for (int k = 0; k < K; k++)
    sig.push_back (enginecheck::glide ((long long) (16000 * (1.0 + 0.21 *
                    k)), 16000.0f, 100.0 + 25 * k, (unsigned) k + 31));
  long long b0 = afet::PitchTables::builds ();
  std::vector<Both> got (K);
  std::atomic<int> ready (0);
  std::vector<std::thread> threads;
  for (int k = 0; k < K; k++)
    threads.emplace_back ([&, k] {
          ready++;
          while (ready.load () < K)
            std::this_thread::yield ();
          both (c, sig[k], &got[k]);
        });
  for (auto &t : threads)
    t.join ();
  long long built = afet::PitchTables::builds () - b0;
  int failures = 0, mismatches = 0;
  for (int k = 0; k < K; k++) {
    Both alone;
    both (c, sig[k], &alone);
    failures += !got[k].ok || !alone.ok;
    if (got[k].online.ready != alone.online.ready ||
        got[k].online.values != alone.online.values ||
        got[k].offline != alone.offline || got[k].lag != alone.lag ||
        alone.offline.empty ())
      mismatches++;
  }
  check (failures == 0, "every stage made on a thread, and alone, ran");
  check (built == 1, "eight stages made at once built their tables once (" +
      std::to_string (built) + ")");
  check (mismatches == 0, "eight stages made on threads at once give what "
      "a stage made alone gives, online and offline, bit for bit (" +
      std::to_string (mismatches) + " differ)");
}

static void
host_step ()
{
  afet::PitchConfig c;
  afet::PitchStage s;
  afet::Status st = s.init (device, c);
  check (st.ok (), "a stage: " + st.message ());
  if (!st.ok ())
    return;
  afet::OnlinePitch on;
  on.init (&s);
  const int S = s.n_lags ();
  const std::vector<float> &lags = s.lags ();
  float factor = (float) std::pow (std::log (1.0 + c.delta_pitch), 2.0) *
      c.penalty_factor;
  std::mt19937 gen (5);
  std::uniform_real_distribution<float> u (-0.2f, 1.0f);
  std::uniform_int_distribution<int> q (0, 7);
  std::vector<float> prev (S), nccf (S), cur (S), want (S);
  std::vector<unsigned short> bp (S);
  int differ = 0;
  for (int trial = 0; trial < 200; trial++) {
    /* few distinct costs (ties everywhere), some of them -0 and 0; or a
     * smooth valley, as the tracker's costs are */
    for (int j = 0; j < S; j++) {
      if (trial % 2)
        prev[j] = q (gen) == 0 ? -0.0f : 0.25f * (float) q (gen);
      else
        prev[j] = 1e-3f * (float) ((j - trial) * (j - trial) % 997);
      nccf[j] = u (gen);
    }
    on.viterbi_step (nccf.data (), prev.data (), cur.data (), bp.data ());
    float lo = 0;
    for (int i = 0; i < S; i++) {
      float best = 0;
      int bj = -1;
      for (int j = 0; j < S; j++) {
        float v = (float) ((j - i) * (j - i)) * factor + prev[j];
        if (bj < 0 || v < best) {
          best = v;
          bj = j;
        }
      }
      float n = nccf[i];
      want[i] = best + ((1.0f - n) + c.soft_min_f0 * n * lags[i]);
      lo = i == 0 ? want[i] : std::min (lo, want[i]);
      differ += bp[i] != bj;
    }
    for (int i = 0; i < S; i++)
      differ += std::memcmp (&cur[i], &(want[i] -= lo), sizeof (float)) != 0;
  }
  check (differ == 0, "the host's Viterbi step equals a search of every lag "
      "on 200 frames of tied costs: predecessors and costs bit for bit (" +
      std::to_string (differ) + " differ)");
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
  trackers.clear ();
  stages.clear ();

  sharing ();
  concurrent_creation ();
  host_step ();
  return enginecheck::finish ();
}
