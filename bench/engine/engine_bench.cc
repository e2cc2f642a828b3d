/* afet-engine-bench: throughput of the MFCC stage alone (no GStreamer, no
 * file I/O), for comparing implementation choices on one device.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Host-to-host: upload, kernels, FFT, download of each batch.
 *
 *   afet-engine-bench [--device D] [--rate R] [--seconds S] [--batch B]
 *                     [--dct fused|gemm|both] [--repeat N]
 *                     [--samples f32|s16]
 *                     [--input host|pinned|device|both|all]
 *
 * --samples: the samples' format (s16: half the bytes to upload).
 * --input pinned: the samples and the features in page-locked host memory
 * (PinnedHost, as an application that writes its stream there would
 * have), read and written by the device without staging copies; checked
 * bit for bit against the host-to-host run. both: host and device; all:
 * host, pinned and device.
 * --input device: the samples already in one device buffer and the
 * features left in another (device to device: the kernels alone); the
 * result is checked bit for bit against the host-to-host run.
 */
#include "clutil.h"
#include "mfcc.h"
#include "profile.h"
#include "transfer.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

static double
now ()
{
  using namespace std::chrono;
  return duration<double> (steady_clock::now ().time_since_epoch ()).count ();
}

int
main (int argc, char **argv)
{
  std::string device = "auto", dct = "both", samples = "f32",
      input = "host";
  int rate = 16000, batch = 4096, repeat = 5;
  double seconds = 600.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--device")
      device = argv[i + 1];
    else if (a == "--rate")
      rate = std::atoi (argv[i + 1]);
    else if (a == "--seconds")
      seconds = std::atof (argv[i + 1]);
    else if (a == "--batch")
      batch = std::atoi (argv[i + 1]);
    else if (a == "--dct")
      dct = argv[i + 1];
    else if (a == "--repeat")
      repeat = std::atoi (argv[i + 1]);
    else if (a == "--samples")
      samples = argv[i + 1];
    else if (a == "--input")
      input = argv[i + 1];
    else {
      std::fprintf (stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }

  std::shared_ptr<afet::Device> dev;
  afet::Status st = afet::acquire_device (device, &dev);
  if (!st.ok ()) {
    std::fprintf (stderr, "%s\n", st.message ().c_str ());
    return 1;
  }
  std::printf ("device: %s\n", dev->info ().describe ().c_str ());

  long long n = (long long) (seconds * rate);
  const bool s16 = samples == "s16";
  std::vector<float> xf (s16 ? 0 : n);
  std::vector<int16_t> xs (s16 ? n : 0);
  unsigned s = 1;
  for (long long i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    int v = (int) (s >> 16) % 20000 - 10000;
    if (s16)
      xs[i] = (int16_t) v;
    else
      xf[i] = (float) v;
  }
  const void *x = s16 ? (const void *) xs.data () : (const void *) xf.data ();

  for (const char *method : { "fused", "gemm" }) {
    if (dct != "both" && dct != method)
      continue;
    afet::MfccConfig c;
    c.framing.rate = rate;
    c.framing.W = afet::frame_samples (25.0, rate);
    c.framing.S = afet::frame_samples (10.0, rate);
    c.max_batch = batch;
    c.framing.samples = s16 ? afet::SampleFormat::S16 :
        afet::SampleFormat::F32;
    c.dct = std::strcmp (method, "gemm") == 0 ? afet::DctMode::GEMM :
        afet::DctMode::FUSED;
    afet::MfccStage stage;
    afet::ClQueue queue;
    st = dev->create_queue (&queue);
    double t0 = now ();
    if (st.ok ())
      st = stage.init (dev, c, queue.get ());
    double t_init = now () - t0;
    if (!st.ok ()) {
      std::fprintf (stderr, "%s\n", st.message ().c_str ());
      return 1;
    }
    long long frames = afet::num_frames (n, c.framing.W, c.framing.S);
    std::vector<float> out ((size_t) frames * c.dims ());
    /* first run: kernels' first use (CLBlast compiles here) */
    t0 = now ();
    st = stage.run_samples (x, frames, out.data ());
    double t_first = now () - t0;
    /* the best of repeat timed runs, the profile of the last */
    auto best_of = [&](const std::function<afet::Status ()> &run,
        double *best) -> afet::Status {
      *best = 1e30;
      for (int r = 0; r < repeat; r++) {
        afet::profile_reset ();
        const double t = now ();
        AFET_RETURN_IF_ERROR (run ());
        *best = std::min (*best, now () - t);
      }
      return afet::Status::Ok ();
    };
    /* the line of a run from pinned or device memory, checked against the
     * host run's features */
    auto report = [&](const char *where, double best, const float *got) {
      const bool same = std::memcmp (got, out.data (), out.size () *
          sizeof (float)) == 0;
      std::printf ("dct=%-5s samples=%s input=%s rate=%d batch=%d "
          "audio=%.0f s frames=%lld: best of %d %.4f s = %.1f M frames/s, "
          "%.0fx real time; bit-identical to the host run: %s\n", method,
          samples.c_str (), where, rate, batch, seconds, frames, repeat,
          best, frames / best / 1e6, seconds / best, same ? "yes" : "NO");
      return same;
    };
    double best = 1e30;
    if (st.ok ())
      st = best_of ([&] {
            return stage.run_samples (x, frames, out.data ());
          }, &best);
    if (!st.ok ()) {
      std::fprintf (stderr, "%s\n", st.message ().c_str ());
      return 1;
    }
    if (input != "device")
      std::printf ("dct=%-5s samples=%s input=host rate=%d batch=%d "
          "audio=%.0f s frames=%lld: init %.3f s, first run %.3f s, best of "
          "%d %.4f s = %.1f M frames/s, %.0fx real time\n", method,
          samples.c_str (), rate, batch, seconds, frames, t_init, t_first,
          repeat, best, frames / best / 1e6, seconds / best);
    if (afet::profiling () && input != "device")
      std::printf ("profile of the last run (AFET_PROFILE):\n%s",
          afet::profile_report ().c_str ());
    if (input == "pinned" || input == "all") {
      /* the samples copied into page-locked memory once, untimed */
      afet::PinnedHost pin_in, pin_out;
      st = pin_in.init (*dev, (size_t) n * c.framing.sample_bytes ());
      if (st.ok ())
        st = pin_out.init (*dev, out.size () * sizeof (float));
      if (st.ok ())
        std::memcpy (pin_in.data (), x, pin_in.size ());
      float *pout = (float *) pin_out.data ();
      auto run_pinned = [&] {
        return stage.run_samples (pin_in.data (), frames, pout, true);
      };
      if (st.ok ())
        st = run_pinned ();     /* warm-up */
      double pbest = 1e30;
      if (st.ok ())
        st = best_of (run_pinned, &pbest);
      if (!st.ok ()) {
        std::fprintf (stderr, "%s\n", st.message ().c_str ());
        return 1;
      }
      const bool same = report ("pinned", pbest, pout);
      if (afet::profiling ())
        std::printf ("profile of the last run (AFET_PROFILE):\n%s",
            afet::profile_report ().c_str ());
      if (!same)
        return 1;
    }
    if (input == "host" || input == "pinned")
      continue;
    /* device to device: the whole signal uploaded once, untimed */
    const size_t in_bytes = (size_t) n * c.framing.sample_bytes ();
    afet::ClMem din, dout;
    st = afet::make_buffer (dev->context (), CL_MEM_READ_ONLY, in_bytes, x,
        &din);
    if (st.ok ())
      st = afet::make_buffer (dev->context (), CL_MEM_READ_WRITE,
          out.size () * sizeof (float), nullptr, &dout);
    auto run_device = [&]() -> afet::Status {
      for (long long done = 0; done < frames; done += batch) {
        const int b = (int) std::min<long long> (batch, frames - done);
        AFET_RETURN_IF_ERROR (stage.enqueue_samples (afet::Samples (
                    din.get (), (size_t) done * c.framing.S), b, dout.get (),
                (size_t) done, done));
      }
      cl_int err = clFinish (queue.get ());
      return err == CL_SUCCESS ? afet::Status::Ok () :
          afet::cl_fail ("clFinish", err);
    };
    if (st.ok ())
      st = run_device ();       /* warm-up */
    double dbest = 1e30;
    if (st.ok ())
      st = best_of (run_device, &dbest);
    if (afet::profiling ())
      std::printf ("profile of the last run (AFET_PROFILE):\n%s",
          afet::profile_report ().c_str ());
    std::vector<float> dres (out.size ());
    if (st.ok ())
      st = afet::download (queue.get (), dout.get (), 0, dres.size () *
          sizeof (float), dres.data (), nullptr);
    if (!st.ok ()) {
      std::fprintf (stderr, "%s\n", st.message ().c_str ());
      return 1;
    }
    if (!report ("device", dbest, dres.data ()))
      return 1;
  }
  return 0;
}
