/* Tests of the pitch Viterbi combiner (engine/temporal/pitch-batch.h),
 * without GStreamer: utterances of several streams computed together equal
 * each one computed alone, bit for bit.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Six pitch stages of one configuration on threads that start together, on
 * utterances of different lengths (a glide, noise, silence), round after
 * round: every stage's raw output and lags must equal the same utterance
 * computed alone, and some rounds must have run utterances of different
 * threads in one launch (else the combiner would go untested). A stage of
 * another configuration running beside them must keep its own results.
 * All of it twice: with the device's own Viterbi (on a CPU device a
 * work-item an utterance, whole) and with work-groups of 64 and
 * utterances cut in segments of 37 frames (a GPU's way, pitch-batch.h):
 * the results of the two must be the same too. 16-bit samples must give
 * what the same values as floats give.
 */
#include "enginecheck.h"
#include "pitch.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using enginecheck::check;

static std::shared_ptr<afet::Device> device;

struct Result
{
  std::vector<float> raw;
  std::vector<int> lag;
};

/* The checks above with the Viterbi's work-items and segment (0, -1:
 * the device's defaults); each utterance's result alone into alone. */
static void
check_setup (const std::vector<std::vector<float>> &utts, size_t items,
    int segment, std::vector<Result> &alone)
{
  afet::Status st;
  const int K = (int) utts.size ();
  std::string how = items ? std::to_string (items) + " work-items, "
      "segments of " + std::to_string (segment) + " frames" :
      std::string ("the device's Viterbi");
  afet::PitchConfig c;
  afet::PitchConfig other = c;
  other.min_f0 = 70.0f;         /* another lag grid: another combiner */
  auto make = [&](afet::PitchStage &s, int k) {
    if (items) {
      s.set_viterbi_work_items (items);
      s.set_viterbi_segment (segment);
    }
    return s.init (device, k < K ? c : other);
  };

  /* each utterance alone, on a stage of its own */
  alone.assign (K + 1, Result ());
  for (int k = 0; k <= K; k++) {
    afet::PitchStage s;
    st = make (s, k);
    check (st.ok (), how + ", stage " + std::to_string (k) + ": " +
        st.message ());
    if (!st.ok ())
      return;
    const std::vector<float> &w = utts[k % K];
    st = s.compute (w.data (), (long long) w.size (), &alone[k].raw,
        &alone[k].lag);
    check (st.ok () && !s.last_combined () && !alone[k].lag.empty (),
        how + ", utterance " + std::to_string (k) + " alone: " +
        std::to_string (alone[k].lag.size ()) + " frames");
  }

  /* all on threads at once, round after round */
  std::vector<std::unique_ptr<afet::PitchStage>> stages;
  for (int k = 0; k <= K; k++) {
    stages.push_back (std::make_unique<afet::PitchStage> ());
    st = make (*stages.back (), k);
    check (st.ok (), how + ", threaded stage " + std::to_string (k));
  }
  int combined_runs = 0, mismatches = 0, failures = 0;
  const int rounds = 8;
  for (int r = 0; r < rounds; r++) {
    std::atomic<int> ready (0);
    std::vector<Result> got (K + 1);
    std::vector<int> combined (K + 1, 0);
    std::vector<std::thread> threads;
    for (int k = 0; k <= K; k++)
      threads.emplace_back ([&, k] {
            ready++;
            while (ready.load () < K + 1)
              std::this_thread::yield ();
            const std::vector<float> &w = utts[k % K];
            afet::Status s = stages[k]->compute (w.data (),
                (long long) w.size (), &got[k].raw, &got[k].lag);
            if (!s.ok ())
              failures++;
            combined[k] = stages[k]->last_combined ();
          });
    for (auto &t : threads)
      t.join ();
    for (int k = 0; k <= K; k++) {
      if (got[k].raw != alone[k].raw || got[k].lag != alone[k].lag)
        mismatches++;
      combined_runs += combined[k];
    }
  }
  check (failures == 0, how + ": every threaded compute succeeded");
  check (mismatches == 0, how + ": every utterance of " +
      std::to_string (rounds) + " rounds of " + std::to_string (K + 1) +
      " threads equals its own run, bit for bit (" +
      std::to_string (mismatches) + " differ)");
  check (combined_runs > 0, how + ": " + std::to_string (combined_runs) +
      " of " + std::to_string (rounds * (K + 1)) + " utterances went in a "
      "launch with others");
}

int
main ()
{
  if (!enginecheck::open_device (&device))
    return 1;
  const int K = 6;
  std::vector<std::vector<float>> utts;
  for (int k = 0; k < K; k++)
    utts.push_back (enginecheck::glide (16000 + 7919LL * k * 3, 16000.0,
            90.0 + 25 * k, (unsigned) k + 1));
  std::vector<Result> whole, cut;
  check_setup (utts, 0, -1, whole);
  check_setup (utts, 64, 37, cut);
  int same = 0;
  for (size_t k = 0; k < whole.size () && k < cut.size (); k++)
    same += whole[k].raw == cut[k].raw && whole[k].lag == cut[k].lag;
  check (same == K + 1 && whole.size () == cut.size (), "each utterance in "
      "segments is the same as whole, bit for bit (" + std::to_string (same) +
      " of " + std::to_string (K + 1) + ")");

  /* 16-bit samples (uploaded as they are, widened by the resampling
   * kernel) give what their floats give, bit for bit */
  afet::PitchStage s;
  afet::Status st = s.init (device, afet::PitchConfig ());
  check (st.ok (), "a stage for 16-bit samples: " + st.message ());
  int same16 = 0;
  for (int k = 0; k < K && st.ok (); k++) {
    std::vector<int16_t> w16 (utts[k].size ());
    std::vector<float> wf (utts[k].size ());
    for (size_t i = 0; i < w16.size (); i++) {
      double v = std::round (utts[k][i] * 3.0);
      w16[i] = (int16_t) std::max (-32768.0, std::min (32767.0, v));
      wf[i] = w16[i];
    }
    Result a, b;
    afet::Status s1 = s.compute (wf.data (), (long long) wf.size (), &a.raw,
        &a.lag);
    afet::Status s2 = s.compute (w16.data (), (long long) w16.size (),
        &b.raw, &b.lag);
    same16 += s1.ok () && s2.ok () && !a.lag.empty () && a.raw == b.raw &&
        a.lag == b.lag;
  }
  check (same16 == K, "16-bit samples give their floats' rows and lags, bit "
      "for bit (" + std::to_string (same16) + " of " + std::to_string (K) +
      ")");
  return enginecheck::finish ();
}
