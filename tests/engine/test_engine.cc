/* Unit tests of the GStreamer-free engine against the independent
 * double-precision reference in tests/reference (not the kernels' maths).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs on whatever device AFET_DEVICE / auto selects.
 */
#include "enginecheck.h"
#include "mfcc.h"
#include "clutil.h"
#include "framing.h"
#include "transfer.h"

extern "C" {
#include "afetref.h"
}

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using enginecheck::check;

static std::shared_ptr<afet::Device> device;

static std::vector<float>
to_float (const double *x, int n)
{
  return std::vector<float> (x, x + n);
}

struct Case
{
  const char *name;
  int rate;
  double frame_ms;
  int num_filters, num_ceps, lifter;
  bool use_power, c0, energy;
  double low, high;
  afet::DctMode dct;
  bool tone;
  int max_batch;
  double seconds;
};

/* Runs MfccStage on audio input and compares with afetref_compute. */
static void
mfcc_case (const Case &c)
{
  int n = (int) (c.rate * c.seconds);
  double *x = c.tone ? afetref_make_tone (n, c.rate, 440.0, 8000.0, 0.3) :
      afetref_make_noise (n, 12000.0, 42);
  AfetRefConfig rc;
  afetref_config_init (&rc);
  rc.rate = c.rate;
  rc.frame_length_ms = c.frame_ms;
  rc.frame_shift_ms = 10.0;
  rc.num_filters = c.num_filters;
  rc.num_ceps = c.num_ceps;
  rc.lifter = c.lifter;
  rc.use_power = c.use_power;
  rc.c0 = c.c0;
  rc.energy = c.energy;
  rc.low_freq = c.low;
  rc.high_freq = c.high;
  int ref_frames = 0;
  double *ref = afetref_compute (&rc, x, n, &ref_frames);

  afet::MfccConfig mc;
  mc.framing.rate = c.rate;
  mc.framing.W = afet::frame_samples (c.frame_ms, c.rate);
  mc.framing.S = afet::frame_samples (10.0, c.rate);
  mc.num_filters = c.num_filters;
  mc.num_ceps = c.num_ceps;
  mc.lifter = c.lifter;
  mc.use_power = c.use_power;
  mc.c0 = c.num_ceps > 0 && c.c0;
  mc.energy = c.energy;
  mc.low_freq = c.low;
  mc.high_freq = c.high;
  mc.dct = c.dct;
  mc.max_batch = c.max_batch;
  afet::MfccStage stage;
  afet::Status st = stage.init (device, mc);
  if (!st.ok ()) {
    check (false, std::string (c.name) + ": init: " + st.message ());
    g_free (x);
    g_free (ref);
    return;
  }
  long long frames = afet::num_frames (n, mc.framing.W, mc.framing.S);
  int dims = mc.dims ();
  check (frames == ref_frames && dims == afetref_dims (&rc),
      std::string (c.name) + ": " + std::to_string (frames) + " frames x " +
      std::to_string (dims));
  std::vector<float> xs = to_float (x, n);
  std::vector<float> out ((size_t) frames * dims, NAN);
  st = stage.run_samples (xs.data (), frames, out.data ());
  check (st.ok (), std::string (c.name) + ": run " + st.message ());
  /* column groups: cepstra, c0, energy (or channels, energy) */
  int ceps = c.num_ceps > 0 ? c.num_ceps : c.num_filters;
  double e1 = afetref_rel_l2 (out.data (), ref, (int) frames, dims, 0, ceps);
  double e2 = 0;
  if (dims > ceps)
    e2 = afetref_rel_l2 (out.data (), ref, (int) frames, dims, ceps,
        dims - ceps);
  char msg[256];
  std::snprintf (msg, sizeof msg, "%s: rel L2 %.2e (static) %.2e (c0/E)",
      c.name, e1, e2);
  check (e1 <= 1e-5 && e2 <= 1e-5, msg);
  g_free (x);
  g_free (ref);
}

static void
framer_case (afet::Window win, AfetRefWindow rwin, const char *name,
    bool energy)
{
  const int rate = 16000, n = 16000;
  double *x = afetref_make_noise (n, 20000.0, 7);
  afet::FramerConfig fc;
  fc.framing.rate = rate;
  fc.framing.W = 400;
  fc.framing.S = 160;
  fc.framing.window = win;
  fc.framing.preemph = 0.97f;
  fc.energy = energy;
  fc.max_batch = 32;            /* several batches */
  afet::FramerStage stage;
  afet::Status st = stage.init (device, fc);
  check (st.ok (), std::string ("framer ") + name + " init " + st.message ());
  if (!st.ok ())
    return;
  long long frames = afet::num_frames (n, 400, 160);
  int dims = fc.dims ();
  std::vector<float> xs = to_float (x, n), out ((size_t) frames * dims);
  st = stage.run (xs.data (), frames, out.data ());
  check (st.ok (), std::string ("framer ") + name + " run");
  std::vector<double> ref ((size_t) frames * dims);
  for (long long t = 0; t < frames; t++) {
    double e;
    afetref_frame (x + t * 160, 400, 0.97, rwin, &ref[t * dims], &e);
    if (energy)
      ref[t * dims + 400] = e;
  }
  double err = afetref_rel_l2 (out.data (), ref.data (), (int) frames, dims,
      0, 400);
  double eerr = energy ? afetref_rel_l2 (out.data (), ref.data (),
      (int) frames, dims, 400, 1) : 0.0;
  char msg[200];
  std::snprintf (msg, sizeof msg, "framer %s%s: rel L2 %.2e, energy %.2e",
      name, energy ? " +energy" : "", err, eerr);
  check (err <= 1e-6 && eerr <= 1e-6, msg);
  g_free (x);
}

/* afetframer's frames fed to the MFCC stage give the audio path's result. */
static void
frames_input_case ()
{
  const int rate = 8000, n = 8000 * 3;
  double *x = afetref_make_noise (n, 9000.0, 3);
  std::vector<float> xs = to_float (x, n);
  afet::FramerConfig fc;
  fc.framing.rate = rate;
  fc.framing.W = 160;
  fc.framing.S = 80;
  fc.energy = true;
  afet::FramerStage fr;
  afet::Status st = fr.init (device, fc);
  long long frames = afet::num_frames (n, 160, 80);
  std::vector<float> fo ((size_t) frames * fc.dims ());
  if (st.ok ())
    st = fr.run (xs.data (), frames, fo.data ());
  afet::MfccConfig mc;
  mc.framing = fc.framing;
  mc.num_filters = 15;
  mc.energy = true;
  afet::MfccStage a, b;
  if (st.ok ())
    st = a.init (device, mc);
  std::vector<float> oa ((size_t) frames * mc.dims ()), ob (oa.size ());
  if (st.ok ())
    st = a.run_samples (xs.data (), frames, oa.data ());
  mc.frames_input = true;
  mc.input_has_energy = true;
  if (st.ok ())
    st = b.init (device, mc);
  if (st.ok ())
    st = b.run_frames (fo.data (), frames, ob.data ());
  check (st.ok (), "frames input: run " + st.message ());
  double err = afetref_rel_l2_ff (ob.data (), oa.data (), (int) frames,
      mc.dims (), 0, mc.dims ());
  check (err <= 1e-6, "frames input equals audio input (rel L2 " +
      std::to_string (err) + ")");
  /* energy=true without energy in the frames is refused with a reason */
  mc.input_has_energy = false;
  afet::MfccStage c;
  st = c.init (device, mc);
  check (!st.ok () && st.message ().find ("afetframer") != std::string::npos,
      "frames without energy refused: " + st.message ());
  g_free (x);
}

/* Samples already on the device (afet::Samples (buffer, first)) give the
 * host path's features bit for bit, in batches that start anywhere in the
 * buffer; a batch beyond the buffer is refused. So do samples and
 * features in page-locked host memory (run_samples pinned). */
static void
device_input_cases (afet::MfccConfig mc, const std::vector<float> &xf,
    const std::vector<int16_t> &xs, const std::vector<float> &want)
{
  const long long n = (long long) xf.size ();
  const long long frames = (long long) want.size () / mc.dims ();
  for (afet::SampleFormat fmt : { afet::SampleFormat::F32,
          afet::SampleFormat::S16 })
    for (int batch : { 7, 64, 4096 }) {
      mc.framing.samples = fmt;
      mc.max_batch = batch;
      const size_t bytes = mc.framing.sample_bytes ();
      std::string name = std::string ("device samples ") + (fmt ==
          afet::SampleFormat::S16 ? "s16" : "f32") + ", batch " +
          std::to_string (batch);
      afet::ClQueue q;
      afet::ClMem in, out;
      afet::MfccStage stage;
      afet::Status st = device->create_queue (&q);
      const void *host = fmt == afet::SampleFormat::S16 ?
          (const void *) xs.data () : (const void *) xf.data ();
      if (st.ok ())
        st = afet::make_buffer (device->context (), CL_MEM_READ_ONLY,
            n * bytes, host, &in);
      if (st.ok ())
        st = afet::make_buffer (device->context (), CL_MEM_READ_WRITE,
            want.size () * sizeof (float), nullptr, &out);
      if (st.ok ())
        st = stage.init (device, mc, q.get ());
      for (long long done = 0; st.ok () && done < frames; done += batch)
        st = stage.enqueue_samples (afet::Samples (in.get (), (size_t) done *
                mc.framing.S), (int) std::min<long long> (batch,
                frames - done), out.get (), (size_t) done, done);
      std::vector<float> got (want.size (), -1.0f);
      if (st.ok ())
        st = afet::download (q.get (), out.get (), 0, got.size () *
            sizeof (float), got.data (), nullptr);
      if (!st.ok ()) {
        check (false, name + ": " + st.message ());
        continue;
      }
      check (std::memcmp (got.data (), want.data (), want.size () *
              sizeof (float)) == 0, name + ": bit-identical to host samples");
      st = stage.enqueue_samples (afet::Samples (in.get (), (size_t) n -
              mc.framing.W + 1), 2, out.get (), 0, 0);
      check (!st.ok () && st.message ().find ("passes the end") !=
          std::string::npos, name + ": a batch beyond the buffer refused: " +
          st.message ());
      /* a first sample whose byte offset would wrap around */
      st = stage.enqueue_samples (afet::Samples (in.get (), SIZE_MAX / 2 +
              1), 1, out.get (), 0, 0);
      check (!st.ok () && st.message ().find ("passes the end") !=
          std::string::npos, name + ": a first sample past any buffer "
          "refused: " + st.message ());
      /* page-locked host memory in and out (Samples::pinned), read and
       * written without staging copies: the same features */
      afet::PinnedHost pin_in, pin_out;
      st = pin_in.init (*device, (size_t) n * bytes);
      if (st.ok ())
        st = pin_out.init (*device, want.size () * sizeof (float));
      if (st.ok ()) {
        std::memcpy (pin_in.data (), host, (size_t) n * bytes);
        std::memset (pin_out.data (), 0xff, pin_out.size ());
        st = stage.run_samples (pin_in.data (), frames,
            (float *) pin_out.data (), true);
      }
      check (st.ok () && std::memcmp (pin_out.data (), want.data (),
              want.size () * sizeof (float)) == 0, name + ": page-locked "
          "host samples and features (run_samples pinned): bit-identical " +
          st.message ());
      /* a batch still on the stage's queue when a page-locked run starts
       * (whose uploads may go on a queue of their own, into the slots
       * that batch reads): both come out right */
      const int first = (int) std::min<long long> (batch, frames);
      std::memset (pin_out.data (), 0xff, pin_out.size ());
      if (st.ok ())
        st = stage.enqueue_samples (afet::Samples (host), first, out.get (),
            0, 0);
      if (st.ok ())
        st = stage.run_samples (pin_in.data (), frames,
            (float *) pin_out.data (), true);
      std::vector<float> head ((size_t) first * mc.dims (), -1.0f);
      if (st.ok ())
        st = afet::download (q.get (), out.get (), 0, head.size () *
            sizeof (float), head.data (), nullptr);
      check (st.ok () && std::memcmp (pin_out.data (), want.data (),
              want.size () * sizeof (float)) == 0 && std::memcmp (
              head.data (), want.data (), head.size () * sizeof (float)) ==
          0, name + ": a batch in flight, then a page-locked run: both "
          "bit-identical " + st.message ());
    }
}

/* Samples uploaded as 16-bit integers give the float path's features bit
 * for bit (the framing kernel converts exactly), through pinned staging
 * (AFET_STAGING=always, as on a GPU) or not, in batches of any size; and
 * both equal the double-precision reference. */
static void
sample_format_cases ()
{
  const int rate = 16000, n = 16000 * 4 + 123;
  double *x = afetref_make_noise (n, 12000.0, 11);
  std::vector<float> xf (n);
  std::vector<int16_t> xs (n);
  for (int i = 0; i < n; i++) {
    double v = std::round (x[i]);
    v = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
    xs[i] = (int16_t) v;
    xf[i] = (float) v;
  }
  afet::MfccConfig mc;
  mc.framing.rate = rate;
  mc.framing.W = 400;
  mc.framing.S = 160;
  mc.energy = true;
  const long long frames = afet::num_frames (n, 400, 160);
  std::vector<float> want ((size_t) frames * mc.dims ());
  bool first = true;
  for (const char *staging : { "never", "always" })
    for (afet::SampleFormat fmt : { afet::SampleFormat::F32,
            afet::SampleFormat::S16 })
      for (int batch : { 7, 64, 4096 }) {
        setenv ("AFET_STAGING", staging, 1);
        mc.framing.samples = fmt;
        mc.max_batch = batch;
        afet::MfccStage st_;
        afet::Status st = st_.init (device, mc);
        std::vector<float> got (want.size (), -1.0f);
        const void *in = fmt == afet::SampleFormat::S16 ?
            (const void *) xs.data () : (const void *) xf.data ();
        if (st.ok ())
          st = st_.run_samples (in, frames, got.data ());
        std::string name = std::string ("samples ") + (fmt ==
            afet::SampleFormat::S16 ? "s16" : "f32") + ", staging " +
            staging + ", batch " + std::to_string (batch);
        if (!st.ok ()) {
          check (false, name + ": " + st.message ());
          continue;
        }
        if (first) {
          want = got;
          first = false;
          continue;
        }
        check (std::memcmp (got.data (), want.data (), want.size () *
                sizeof (float)) == 0, name + ": bit-identical to f32, "
            "unstaged, batch 7");
      }
  unsetenv ("AFET_STAGING");
  device_input_cases (mc, xf, xs, want);
  AfetRefConfig rc;
  afetref_config_init (&rc);
  rc.rate = rate;
  rc.energy = 1;
  std::vector<double> xd (xf.begin (), xf.end ());
  int ref_frames = 0;
  double *ref = afetref_compute (&rc, xd.data (), n, &ref_frames);
  check (ref_frames == frames && afetref_rel_l2 (want.data (), ref,
          (int) frames, mc.dims (), 0, mc.dims ()) <= 1e-5,
      "16-bit input matches the double-precision reference");
  g_free (ref);
  g_free (x);
}

/* copy_host splits large copies over its helper threads: every byte
 * arrives, the uneven last part included, small copies stay whole, and
 * copies from several threads at once (one uses the helpers, the others
 * copy alone) and round after round all arrive. */
static std::vector<unsigned char>
pattern (size_t bytes, unsigned s)
{
  std::vector<unsigned char> v (bytes);
  for (auto &b : v) {
    s = s * 1664525u + 1013904223u;
    b = (unsigned char) (s >> 24);
  }
  return v;
}

static void
copy_host_cases ()
{
  for (size_t bytes : { (size_t) 1000, (size_t) (4u << 20),
          (size_t) (4u << 20) + 1, (size_t) (40u << 20) + 4097 }) {
    std::vector<unsigned char> src = pattern (bytes, 7), dst (bytes, 0);
    afet::copy_host (dst.data (), src.data (), bytes);
    check (dst == src, "copy_host of " + std::to_string (bytes) +
        " bytes equals its source");
  }
  /* copies back to back: a helper late for one must not take part in
   * the next on the old one's terms (the sizes change every time) */
  {
    const size_t most = (6u << 20) + 777;
    std::vector<unsigned char> src = pattern (most, 3), dst (most);
    int differ = 0;
    for (int round = 0; round < 200; round++) {
      const size_t bytes = (4u << 20) + (size_t) round * 9973 % (2u << 20);
      std::fill (dst.begin (), dst.begin () + bytes, 0);
      afet::copy_host (dst.data (), src.data (), bytes);
      differ += !std::equal (dst.begin (), dst.begin () + bytes,
          src.begin ());
    }
    check (differ == 0, "copy_host 200 times back to back, sizes changing: "
        "every copy equals its source (" + std::to_string (differ) +
        " differ)");
  }
  const size_t bytes = (9u << 20) + 123;
  std::vector<std::vector<unsigned char>> src;
  for (unsigned t = 0; t < 4; t++)
    src.push_back (pattern (bytes, t + 1));
  std::atomic<int> wrong { 0 };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; t++)
    threads.emplace_back ([&, t] {
          std::vector<unsigned char> dst (bytes);
          for (int round = 0; round < 12; round++) {
            std::fill (dst.begin (), dst.end (), 0);
            afet::copy_host (dst.data (), src[t].data (), bytes);
            wrong += dst != src[t];
          }
        });
  for (auto &th : threads)
    th.join ();
  check (wrong == 0, "copy_host from 4 threads at once, 12 rounds each: "
      "every copy equals its source (" + std::to_string (wrong.load ()) +
      " differ)");
}

/* The device's pool of pinned staging memory: what a stage gives back is
 * taken again by the next one that needs about as much (at least the bytes
 * asked, at most twice), once; a framing stage gives its slots back when it
 * goes and the next one of the same shape takes them. */
static void
pinned_pool_cases ()
{
  auto made = std::make_unique<afet::PinnedHost> ();
  afet::Status st = made->init (*device, 1u << 20);
  check (st.ok (), "pinned memory of 1 MiB: " + st.message ());
  if (!st.ok ())
    return;
  void *data = made->data ();
  device->give_pinned (std::move (made));
  check (!device->take_pinned (2u << 20), "pinned pool: 1 MiB kept is not "
      "handed out for 2 MiB");
  check (!device->take_pinned (256u << 10), "pinned pool: nor for a "
      "quarter of it");
  auto again = device->take_pinned (600u << 10);
  check (again && again->data () == data, "pinned pool: 1 MiB kept is "
      "taken for 600 KiB");
  check (!device->take_pinned (600u << 10), "pinned pool: once");
  again.reset ();
  if (!afet::use_staging (*device))
    return;
  afet::FramingConfig f;
  const int max_batch = 1000;
  const size_t bytes = ((size_t) (max_batch - 1) * f.S + f.W) *
      f.sample_bytes ();
  afet::ClQueue q;
  afet::ClMem out;
  std::vector<float> x ((size_t) (max_batch - 1) * f.S + f.W, 0.25f);
  st = device->create_queue (&q);
  if (st.ok ())
    st = afet::make_buffer (device->context (), CL_MEM_READ_WRITE,
        (size_t) max_batch * f.W * sizeof (float), nullptr, &out);
  check (st.ok (), "pinned pool: a queue and a buffer: " + st.message ());
  if (!st.ok ())
    return;
  /* n uploads through a new framing kernel, which then goes */
  auto uploads = [&](int n) {
    afet::FramingKernel k;
    afet::Status s = k.init (*device, f, max_batch);
    for (int i = 0; s.ok () && i < n; i++)
      s = k.enqueue (q.get (), afet::Samples (x.data ()), max_batch,
          out.get (), 0, f.W, nullptr, 0, 0, false, nullptr);
    clFinish (q.get ());
    return s;
  };
  st = uploads (0);
  check (st.ok () && !device->take_pinned (bytes), "pinned pool: a framing "
      "kernel that never uploads takes no staging memory");
  st = uploads (2);
  auto a = device->take_pinned (bytes), b = device->take_pinned (bytes);
  check (st.ok () && a && b && !device->take_pinned (bytes), "pinned pool: "
      "one that uploads twice gives its two staging slots back");
  void *pa = a ? a->data () : nullptr;
  device->give_pinned (std::move (a));
  device->give_pinned (std::move (b));
  st = uploads (1);
  auto c = device->take_pinned (bytes);
  auto d = device->take_pinned (bytes);
  check (st.ok () && c && d && !device->take_pinned (bytes) &&
      (c->data () == pa || d->data () == pa), "pinned pool: the next one "
      "took from the pool and gave the same memory back");
}

static void
params_cases ()
{
  check (afet::frame_samples (20, 8000) == 160 &&
      afet::frame_samples (10, 8000) == 80 &&
      afet::frame_samples (20, 16000) == 320 &&
      afet::frame_samples (20, 44100) == 882 &&
      afet::frame_samples (10, 44100) == 441 &&
      afet::frame_samples (25, 44100) == 1102 &&
      afet::frame_samples (25, 22050) == 551, "HTK frame sizes");
  for (double ms = 0.5; ms < 60; ms += 0.5)
    for (int rate : { 8000, 11025, 16000, 22050, 44100, 48000 })
      if (afet::frame_samples (ms, rate) !=
          afetref_frame_samples (ms, rate)) {
        check (false, "frame_samples disagrees with the reference at " +
            std::to_string (ms) + " ms " + std::to_string (rate));
        return;
      }
  check (true, "frame_samples agrees with the reference, 0.5..60 ms");
  afet::MelDesign d;
  d.rate = 8000;
  d.fft_size = 256;
  d.num_filters = 200;
  afet::FilterBank fb;
  afet::Status st = afet::design_htk_melbank (d, &fb);
  check (!st.ok () && st.message ().find ("covers no FFT bin") !=
      std::string::npos, "too many filters refused: " + st.message ());
  d.num_filters = 23;
  d.high_freq = 5000;
  st = afet::design_htk_melbank (d, &fb);
  check (!st.ok (), "high-freq above Nyquist refused: " + st.message ());
}

static void
device_cases ()
{
  std::vector<afet::DeviceInfo> all;
  afet::Status st = afet::list_devices (&all);
  check (st.ok () && !all.empty (), "list_devices: " +
      std::to_string (all.size ()) + " device(s)");
  std::shared_ptr<afet::Device> a, b;
  st = afet::acquire_device ("0:0", &a);
  afet::Status st2 = afet::acquire_device (all[0].device_name, &b);
  check (st.ok () && st2.ok () && a == b,
      "P:D and name select the same shared device");
  st = afet::acquire_device ("no-such-device-xyz", &a);
  check (st.code () == afet::Status::NO_DEVICE &&
      st.message ().find ("no-such-device-xyz") != std::string::npos,
      "unknown device refused: " + st.message ());
  st = afet::acquire_device ("9:9", &a);
  check (st.code () == afet::Status::NO_DEVICE, "bad indices refused");
  setenv ("AFET_DEVICE", "no-such-device-xyz", 1);
  st = afet::acquire_device ("auto", &a);
  check (st.code () == afet::Status::NO_DEVICE, "AFET_DEVICE overrides auto");
  st = afet::acquire_device ("0:0", &a);
  check (st.ok (), "an explicit request wins over AFET_DEVICE");
  unsetenv ("AFET_DEVICE");
}

/* Elements' queues: with every pooled queue held, the first kElementQueues
 * are made one each and the next ones are the least held of those (the
 * first ones, in turn), so thousands of live pipelines do not each make
 * queues under the driver's context lock; a holder's reference is its own
 * (the queue keeps working for the others when it lets go); a queue no
 * element holds any more is taken again before any other. Nothing in this
 * program took an element queue before. */
static cl_uint
refs_of (cl_command_queue q)
{
  cl_uint refs = 0;
  clGetCommandQueueInfo (q, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs,
      nullptr);
  return refs;
}

static void
element_queue_cases ()
{
  const size_t k = afet::Device::kElementQueues;
  std::vector<afet::ClQueue> q (k + 3);
  bool ok = true;
  for (auto &h : q)
    ok = ok && device->element_queue (&h).ok () && h.get ();
  std::vector<cl_command_queue> first;
  for (size_t i = 0; i < k; i++)
    first.push_back (q[i].get ());
  std::sort (first.begin (), first.end ());
  const size_t distinct = std::unique (first.begin (), first.end ()) -
      first.begin ();
  check (ok && distinct == k, "the first " + std::to_string (k) +
      " element queues are distinct (" + std::to_string (distinct) + ")");
  check (q[k].get () == q[0].get () && q[k + 1].get () == q[1].get () &&
      q[k + 2].get () == q[2].get (), "element queues beyond " +
      std::to_string (k) + " share the least held ones, in turn");
  /* q[0] and q[k] hold one queue with the pool: three references, two
   * once q[0] lets go; q[k] still runs commands on it */
  cl_command_queue shared = q[k].get ();
  const cl_uint refs3 = refs_of (shared);
  q[0].reset ();
  const cl_uint refs2 = refs_of (shared);
  cl_int err = CL_SUCCESS;
  afet::ClMem m (clCreateBuffer (device->context (), CL_MEM_READ_WRITE,
          64 * sizeof (float), nullptr, &err));
  std::vector<float> in (64), out (64, 0.0f);
  for (int i = 0; i < 64; i++)
    in[i] = 0.5f * (float) i;
  err = err ? err : clEnqueueWriteBuffer (shared, m.get (), CL_FALSE, 0,
      in.size () * sizeof (float), in.data (), 0, nullptr, nullptr);
  err = err ? err : clEnqueueReadBuffer (shared, m.get (), CL_TRUE, 0,
      out.size () * sizeof (float), out.data (), 0, nullptr, nullptr);
  check (refs3 == 3 && refs2 == 2 && err == CL_SUCCESS && out == in,
      "a shared element queue holds a reference for each holder (" +
      std::to_string (refs3) + ", then " + std::to_string (refs2) +
      ") and runs commands after one let go");
  /* q[5]'s queue is held by nobody once q[5] lets go: the next element
   * takes it, not a queue others hold */
  cl_command_queue idle = q[5].get ();
  q[5].reset ();
  afet::ClQueue again;
  device->element_queue (&again);
  check (again.get () == idle && refs_of (idle) == 2, "a queue no element "
      "holds is taken again first");
}

/* the first acquisitions of a device, from 8 threads at once: one Device
 * made (each device's context is made under its own lock), the same one
 * for every thread. The OpenCL platforms are listed in the main thread
 * first: on PoCL the thread that starts the platform ends with an
 * alternate signal stack on the heap that AddressSanitizer did not make
 * and fails to unmap ("AddressSanitizer failed to deallocate 0x134c0
 * bytes"; the sanitizer job). */
static void
concurrent_acquire ()
{
  std::vector<afet::DeviceInfo> all;
  afet::list_devices (&all);
  const int n = 8;
  std::vector<std::shared_ptr<afet::Device>> got (n);
  std::vector<int> ok (n, 0), made (n, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; i++)
    threads.emplace_back ([&, i] {
          bool created = false;
          ok[i] = afet::acquire_device ("auto", &got[i], &created).ok ();
          made[i] = created;
        });
  for (auto &t : threads)
    t.join ();
  int same = 0, oks = 0, creations = 0;
  for (int i = 0; i < n; i++) {
    oks += ok[i];
    creations += made[i];
    same += got[i] && got[i] == got[0];
  }
  check (oks == n && same == n && creations == 1, "8 threads acquiring a "
      "device at once get one Device, made once (" + std::to_string (same) +
      " the same, " + std::to_string (creations) + " made)");
}

int
main (int argc, char **argv)
{
  concurrent_acquire ();
  if (!enginecheck::open_device (&device))
    return 1;
  afet::Status st;

  params_cases ();
  copy_host_cases ();
  pinned_pool_cases ();
  device_cases ();
  element_queue_cases ();
  sample_format_cases ();
  for (auto w : { std::make_pair (afet::Window::HAMMING, AFETREF_WINDOW_HAMMING),
          std::make_pair (afet::Window::HANN, AFETREF_WINDOW_HANN),
          std::make_pair (afet::Window::POVEY, AFETREF_WINDOW_POVEY),
          std::make_pair (afet::Window::RECTANGULAR,
              AFETREF_WINDOW_RECTANGULAR),
          std::make_pair (afet::Window::BLACKMAN, AFETREF_WINDOW_BLACKMAN) }) {
    static const char *names[] = { "hamming", "hann", "povey", "rectangular",
      "blackman" };
    framer_case (w.first, w.second, names[(int) w.first], w.first ==
        afet::Window::HAMMING);
  }
  framer_case (afet::Window::HAMMING, AFETREF_WINDOW_HAMMING, "hamming",
      false);

  const Case cases[] = {
    { "mfcc 16k fused noise", 16000, 25, 23, 12, 22, false, true, true, 0, 0,
        afet::DctMode::FUSED, false, 64, 3.0 },
    { "mfcc 16k gemm noise", 16000, 25, 23, 12, 22, false, true, true, 0, 0,
        afet::DctMode::GEMM, false, 64, 3.0 },
    { "mfcc 8k tone power cut-offs", 8000, 20, 15, 12, 22, true, true, false,
        300, 3400, afet::DctMode::FUSED, true, 4096, 2.0 },
    { "mfcc 44.1k quirk", 44100, 20, 25, 12, 22, false, true, true, 0, 0,
        afet::DctMode::FUSED, false, 512, 2.0 },
    { "mfcc 16k no lifter no c0", 16000, 20, 40, 20, 0, false, false, false,
        0, 0, afet::DctMode::FUSED, false, 256, 1.5 },
    { "fbank 16k", 16000, 20, 23, 0, 22, false, true, false, 0, 0,
        afet::DctMode::FUSED, false, 128, 2.0 },
    { "fbank 8k +energy power", 8000, 25, 15, 0, 22, true, false, true, 0, 0,
        afet::DctMode::FUSED, true, 8, 1.0 },
    { "mfcc 48k", 48000, 25, 26, 13, 22, false, true, true, 0, 0,
        afet::DctMode::FUSED, false, 256, 1.0 },
  };
  for (const Case &c : cases)
    mfcc_case (c);
  frames_input_case ();

  return enginecheck::finish ();
}
