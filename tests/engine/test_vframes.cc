/* Tests of the three plans of the spectral front (engine/spectral/vframes.h):
 * every kind and input they serve must give the same features within float
 * rounding.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The three plans of the spectral front (engine/spectral/vframes.h): the
 * vector front of CPUs (kernels/vframes.cl), the group front of GPUs
 * (kernels/gframes.cl) and the framing kernel + VkFFT, run on one device
 * through AFET_FRONT (on a GPU, which does not take the vector front, that
 * plan's comparisons are of VkFFT with itself, and the plan choice is what
 * is checked). Every kind and input they serve
 * must give the same features within float rounding: MFCC and filter
 * banks (fused into the vector kernel), PLP, the spectrogram and the GEMM
 * DCT (after its spectra), audio in float and 16-bit samples, given frames
 * with and without energy, every framing option (DC removal, dither,
 * energy formulas, windowed energy, sample scale), FFT sizes 8 .. 8192,
 * batches that end inside a work-item's vector of frames. The one-kernel
 * fronts' spectra are also checked against a double-precision DFT, and
 * which plan runs where (choose_front).
 */
#include "enginecheck.h"
#include "mfcc.h"
#include "plp.h"
#include "spectrogram.h"

extern "C" {
#include "afetref.h"
}

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using enginecheck::check;

static std::shared_ptr<afet::Device> device;

static double
rel_l2 (const std::vector<float> &a, const std::vector<float> &b)
{
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < a.size () && i < b.size (); i++) {
    num += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
    den += (double) b[i] * b[i];
  }
  return a.size () == b.size () && den > 0.0 ? std::sqrt (num / den) : 1e9;
}

/* Runs a stage made by make under one plan; its rows, or empty on error. */
template <class Stage, class Config>
static std::vector<float>
run_plan (const char *plan, const Config &cfg, const void *samples,
    const float *frames, long long n, afet::FrontPlan *used)
{
  setenv ("AFET_FRONT", plan, 1);
  Stage stage;
  afet::Status st = stage.init (device, cfg);
  unsetenv ("AFET_FRONT");
  if (!st.ok ()) {
    check (false, std::string ("init (") + plan + "): " + st.message ());
    return {};
  }
  *used = stage.front_plan ();
  std::vector<float> out ((size_t) n * stage.dims ());
  st = frames ? stage.run_frames (frames, n, out.data ()) :
      stage.run_samples (samples, n, out.data ());
  if (!st.ok ()) {
    check (false, std::string ("run (") + plan + "): " + st.message ());
    return {};
  }
  return out;
}

/* Noise of n samples in 16-bit scale, as floats or as shorts. */
struct Audio
{
  std::vector<float> f32;
  std::vector<int16_t> s16;
  Audio (long long n, uint64_t seed)
  {
    double *x = afetref_make_noise ((int) n, 9000.0, seed);
    for (long long i = 0; i < n; i++) {
      f32.push_back ((float) std::lround (x[i]));
      s16.push_back ((int16_t) std::lround (x[i]));
    }
    free (x);
  }
  const void *data (afet::SampleFormat f) const
  {
    return f == afet::SampleFormat::S16 ? (const void *) s16.data () :
        (const void *) f32.data ();
  }
};

/* The plan AFET_FRONT=plan gives for an FFT of N points on this device. */
static afet::FrontPlan
expected_plan (const std::string &plan, int N)
{
  const bool pow2 = N >= 8 && (N & (N - 1)) == 0;
  if (plan == "vector" && pow2 && N <= afet::kMaxVectorFft &&
      device->info ().is_cpu)
    return afet::FrontPlan::VECTOR;
  if (plan == "group" && pow2 && N <= afet::kMaxGroupFft)
    return afet::FrontPlan::GROUP;
  return afet::FrontPlan::VKFFT;
}

/* Every plan on the same input, the one-kernel plans against VkFFT; tol
 * on the relative L2 of all values. */
template <class Stage, class Config>
static void
agree (const std::string &name, const Config &cfg, long long n,
    double tol = 2e-6)
{
  const afet::FramingConfig &fc = cfg.framing;
  Audio audio ((n - 1) * fc.S + fc.W, 1234 + n);
  std::vector<float> frames;
  if (cfg.frames_input) {
    /* given frames: afetframer's rows of W (+ 1 energy) floats */
    const int stride = cfg.input_stride ();
    for (long long t = 0; t < n; t++)
      for (int i = 0; i < stride; i++)
        frames.push_back (i < fc.W ? audio.f32[t * fc.S + i] * 0.01f :
            -3.5f + 0.01f * (float) t);
  }
  const void *samples = audio.data (fc.samples);
  const float *fr = cfg.frames_input ? frames.data () : nullptr;
  afet::FrontPlan pk;
  std::vector<float> k = run_plan<Stage> ("vkfft", cfg, samples, fr, n, &pk);
  if (k.empty ())
    return;
  check (pk == afet::FrontPlan::VKFFT, name + ": AFET_FRONT=vkfft gave "
      "VkFFT");
  const int N = cfg.fft_size ();
  for (const char *plan : { "vector", "group" }) {
    afet::FrontPlan used;
    std::vector<float> v = run_plan<Stage> (plan, cfg, samples, fr, n,
        &used);
    if (v.empty ())
      continue;
    const afet::FrontPlan want = expected_plan (plan, N);
    check (used == want, name + ": AFET_FRONT=" + plan + " chose " +
        (want == afet::FrontPlan::VKFFT ? "VkFFT (the plan cannot)" : plan));
    double e = rel_l2 (v, k);
    char msg[200];
    std::snprintf (msg, sizeof msg, "%s: %lld frames, %s vs VkFFT rel L2 "
        "%.2e (<= %.0e)", name.c_str (), n, plan, e, tol);
    check (e <= tol, msg);
    if (e > tol) {
      std::printf ("  first values: %s", plan);
      for (size_t i = 0; i < 6 && i < v.size (); i++)
        std::printf (" %g", v[i]);
      std::printf ("; VkFFT");
      for (size_t i = 0; i < 6 && i < k.size (); i++)
        std::printf (" %g", k[i]);
      std::printf ("\n");
    }
  }
}

static afet::MfccConfig
mfcc (int rate, int W, int S, int filters, int ceps, int batch)
{
  afet::MfccConfig c;
  c.framing.rate = rate;
  c.framing.W = W;
  c.framing.S = S;
  c.num_filters = filters;
  c.num_ceps = ceps;
  c.max_batch = batch;
  return c;
}

static void
mfcc_cases ()
{
  afet::MfccConfig c = mfcc (16000, 400, 160, 23, 12, 64);
  agree<afet::MfccStage> ("mfcc HTK 16k", c, 300);
  c.energy = true;
  agree<afet::MfccStage> ("mfcc HTK 16k +E", c, 300);
  c.framing.samples = afet::SampleFormat::S16;
  agree<afet::MfccStage> ("mfcc 16-bit samples +E", c, 300);
  c.max_batch = 17;             /* batches end inside a work-item's vector */
  agree<afet::MfccStage> ("mfcc batches of 17", c, 100);
  c.max_batch = 1;
  agree<afet::MfccStage> ("mfcc batches of 1", c, 20);
  c = mfcc (16000, 400, 160, 23, 0, 64);
  agree<afet::MfccStage> ("fbank 23", c, 200);
  c.num_filters = 80;
  c.use_power = true;
  c.energy = true;
  agree<afet::MfccStage> ("fbank 80 power +E", c, 200);
  c = mfcc (16000, 400, 160, 23, 12, 64);
  c.dct = afet::DctMode::GEMM;
  agree<afet::MfccStage> ("mfcc GEMM DCT (vector spectra)", c, 200);

  /* Kaldi's framing and columns */
  c = mfcc (16000, 400, 160, 23, 12, 64);
  c.framing.window = afet::Window::POVEY;
  c.framing.remove_dc = true;
  c.framing.energy_mode = afet::EnergyMode::KALDI;
  c.framing.energy_floor = 2.0;
  c.mel_layout = afet::MelLayout::KALDI;
  c.use_power = true;
  c.low_freq = 20;
  c.leading = true;
  c.c0 = false;
  c.energy = true;
  c.htk_period_quirk = false;
  c.log_floor = 1.1920929e-07f;
  agree<afet::MfccStage> ("mfcc Kaldi: DC, povey, energy first", c, 200);
  c.framing.energy_windowed = true;
  agree<afet::MfccStage> ("mfcc Kaldi raw-energy=false", c, 200);
  c.framing.dither = 1.5f;
  c.framing.dither_seed = 77;
  agree<afet::MfccStage> ("mfcc Kaldi dither", c, 200);
  c.framing.dither = 0.0f;
  c.framing.scale = 1.0f / 32768.0f;
  c.framing.energy_mode = afet::EnergyMode::LHOTSE;
  c.framing.energy_floor = 1e-10;
  c.num_filters = 80;
  c.num_ceps = 0;
  agree<afet::MfccStage> ("fbank lhotse scale", c, 200);
  c.log10 = true;
  c.log_floor = 1e-10f;
  c.energy = false;
  agree<afet::MfccStage> ("log10 fbank", c, 200);

  /* the rates and FFT sizes the one-kernel fronts take, and some they do
   * not */
  agree<afet::MfccStage> ("mfcc 8k (N 256)", mfcc (8000, 200, 80, 15, 12,
          64), 200);
  agree<afet::MfccStage> ("mfcc 44.1k (N 2048)", mfcc (44100, 1102, 441,
          25, 12, 64), 120);
  agree<afet::MfccStage> ("mfcc odd W (N 512)", mfcc (16000, 333, 160, 23,
          12, 64), 120);
  agree<afet::MfccStage> ("mfcc N 8", mfcc (16000, 6, 4, 2, 1, 64), 300);
  agree<afet::MfccStage> ("mfcc N 16", mfcc (16000, 12, 6, 4, 3, 64), 300);
  agree<afet::MfccStage> ("mfcc N 8192", mfcc (16000, 8000, 4000, 40, 12,
          16), 40);
  agree<afet::MfccStage> ("mfcc N 4096 (not the group front)",
      mfcc (16000, 4000, 1600, 40, 12, 16), 40);
  agree<afet::MfccStage> ("mfcc N 16384 (VkFFT on all)", mfcc (16000,
          12000, 4000, 40, 12, 8), 12);
  afet::MfccConfig w = mfcc (16000, 400, 160, 80, 0, 64);
  w.fft_points = 400;
  agree<afet::MfccStage> ("fbank N 400 (VkFFT on all)", w, 60);
}

static void
frames_cases ()
{
  afet::MfccConfig c = mfcc (16000, 400, 160, 23, 12, 64);
  c.frames_input = true;
  agree<afet::MfccStage> ("mfcc given frames", c, 150);
  c.input_has_energy = true;
  c.energy = true;
  agree<afet::MfccStage> ("mfcc given frames +E", c, 150);
  c.num_ceps = 0;
  agree<afet::MfccStage> ("fbank given frames +E", c, 150);
  afet::PlpConfig p;
  p.framing = c.framing;
  p.frames_input = true;
  p.input_has_energy = true;
  p.energy = true;
  agree<afet::PlpStage> ("plp given frames +E", p, 150, 5e-6);
}

static void
other_kind_cases ()
{
  afet::PlpConfig p;
  p.framing.W = 400;
  p.framing.S = 160;
  agree<afet::PlpStage> ("plp HTK", p, 200, 5e-6);
  p.framing.samples = afet::SampleFormat::S16;
  p.energy = true;
  agree<afet::PlpStage> ("plp HTK 16-bit +E", p, 200, 5e-6);
  afet::SpectrogramConfig s;
  s.framing.W = 400;
  s.framing.S = 160;
  s.framing.energy_mode = afet::EnergyMode::KALDI;
  s.framing.remove_dc = true;
  agree<afet::SpectrogramStage> ("spectrogram", s, 200);
}

/* A one-kernel front's spectra (AFET_FRONT=plan) against a
 * double-precision DFT of the same frames, through the spectrogram's
 * ln |X_k|^2. */
static void
dft_case (const char *plan, int N)
{
  afet::SpectrogramConfig s;
  s.framing.W = N - N / 8;
  s.framing.S = N / 4;
  s.framing.energy_mode = afet::EnergyMode::KALDI;
  s.fft_points = N;
  s.max_batch = 64;
  const long long n = 40;
  Audio audio ((n - 1) * s.framing.S + s.framing.W, 99);
  afet::FrontPlan used;
  std::vector<float> v = run_plan<afet::SpectrogramStage> (plan, s,
      audio.f32.data (), nullptr, n, &used);
  if (v.empty ())
    return;
  std::vector<float> win = afet::make_window (s.framing.window, s.framing.W);
  double num = 0.0, den = 0.0;
  const int dims = N / 2 + 1;
  for (long long t = 0; t < n; t++) {
    std::vector<double> y (N, 0.0);
    const float *x = audio.f32.data () + t * s.framing.S;
    for (int i = 0; i < s.framing.W; i++)
      y[i] = ((double) x[i] - 0.97 * (i ? x[i - 1] : x[0])) * win[i];
    for (int k = 1; k < dims; k++) {
      std::complex<double> a = 0.0;
      for (int i = 0; i < s.framing.W; i++)
        a += y[i] * std::polar (1.0, -2.0 * M_PI * (double) k * i / N);
      double ref = std::log (std::max (std::norm (a), 1.1920929e-07));
      double got = v[t * dims + k];
      num += (got - ref) * (got - ref);
      den += ref * ref;
    }
  }
  double e = std::sqrt (num / den);
  char msg[160];
  std::snprintf (msg, sizeof msg, "AFET_FRONT=%s, N %d: ln |X_k|^2 against "
      "a double DFT, rel L2 %.2e (<= 1e-6)", plan, N, e);
  check (used == expected_plan (plan, N) && e <= 1e-6, msg);
}

/* How the group front cuts a filter bank into pieces (upload_pieces):
 * every channel in at least one piece, at most work_items pieces (or one a
 * channel, where the channels are more), and no shorter pieces would
 * do: pieces of at most longest - 1 bins would be more than work_items. */
static void
piece_cases ()
{
  struct Case { int rate, N, M, work_items; };
  /* HTK's 26 channels at 512 points (widest 47 bins) for 32 work-items;
   * 8 kHz at 256 points for 16; 48 kHz at 2048 for 128; 80 channels */
  for (const Case &k : { Case { 16000, 512, 26, 32 },
          Case { 8000, 256, 26, 16 }, Case { 48000, 2048, 26, 128 },
          Case { 16000, 512, 80, 32 } }) {
    afet::MelDesign md;
    md.rate = k.rate;
    md.fft_size = k.N;
    md.num_filters = k.M;
    afet::FilterBank fb;
    afet::Status st = afet::design_melbank (md, &fb);
    const std::vector<int> pieces = afet::piece_counts (fb, k.work_items);
    int np = 0, widest = 0, longest = 0;
    bool each = st.ok () && pieces.size () == (size_t) k.M;
    for (int c = 0; each && c < k.M; c++) {
      each = pieces[c] >= 1 && pieces[c] <= fb.count[c];
      np += pieces[c];
      widest = std::max (widest, fb.count[c]);
      longest = std::max (longest, (fb.count[c] + pieces[c] - 1) /
          pieces[c]);
    }
    int shorter = 0;            /* pieces of at most longest - 1 bins */
    for (int c = 0; each && longest > 1 && c < k.M; c++)
      shorter += (fb.count[c] + longest - 2) / (longest - 1);
    const bool fits = k.M > k.work_items ? np == k.M :
        np <= k.work_items && (longest == 1 || shorter > k.work_items);
    char msg[200];
    std::snprintf (msg, sizeof msg, "pieces: %d channels at %d points, %d "
        "work-items: %d pieces, longest %d bins (widest channel %d)", k.M,
        k.N, k.work_items, np, longest, widest);
    check (each && fits && (k.M > k.work_items || longest < widest), msg);
  }
}

static void
choice_cases ()
{
  afet::DeviceInfo cpu, gpu;
  cpu.is_cpu = true;
  gpu.is_gpu = true;
  unsetenv ("AFET_FRONT");
  check (afet::choose_front (cpu, 512) == afet::FrontPlan::VECTOR &&
      afet::choose_front (cpu, 400) == afet::FrontPlan::VKFFT &&
      afet::choose_front (cpu, 4) == afet::FrontPlan::VKFFT &&
      afet::choose_front (cpu, 16384) == afet::FrontPlan::VKFFT &&
      afet::choose_front (cpu, 8192) == afet::FrontPlan::VECTOR,
      "choose_front: CPUs take the vector front for powers of two 8..8192");
  check (afet::choose_front (gpu, 512) == afet::FrontPlan::GROUP &&
      afet::choose_front (gpu, 8) == afet::FrontPlan::GROUP &&
      afet::choose_front (gpu, 2048) == afet::FrontPlan::GROUP &&
      afet::choose_front (gpu, 4096) == afet::FrontPlan::VKFFT &&
      afet::choose_front (gpu, 400) == afet::FrontPlan::VKFFT &&
      afet::choose_front (gpu, 4) == afet::FrontPlan::VKFFT &&
      afet::choose_front (gpu, 512, (size_t) INT32_MAX + 1) ==
      afet::FrontPlan::GROUP,
      "choose_front: GPUs take the group front for powers of two 8..2048, "
      "whatever the batch, else VkFFT");
  afet::DeviceInfo small = gpu;
  small.max_work_group_size = 1024;
  small.local_mem_bytes = 16 * 1024;
  gpu.max_work_group_size = 1024;
  gpu.local_mem_bytes = 48 * 1024;
  check (afet::group_local_bytes (gpu, 2048) <= 23 * 1024 &&
      afet::group_local_bytes (gpu, 32) <= 23 * 1024 &&
      afet::choose_front (gpu, 2048) == afet::FrontPlan::GROUP &&
      afet::choose_front (small, 512) == afet::FrontPlan::GROUP &&
      afet::choose_front (small, 2048) == afet::FrontPlan::VKFFT,
      "choose_front: the group front where its groups fit in the device's "
      "local memory (2048 points: " + std::to_string (
          afet::group_local_bytes (gpu, 2048)) + " bytes; 16 KiB takes 512 "
      "points, not 2048)");
  check (afet::choose_front (cpu, 512, (size_t) INT32_MAX) ==
      afet::FrontPlan::VECTOR && afet::choose_front (cpu, 512,
          (size_t) INT32_MAX + 1) == afet::FrontPlan::VKFFT,
      "choose_front: CPU batches past 32-bit sample offsets take VkFFT");
  setenv ("AFET_FRONT", "vector", 1);
  bool g = afet::choose_front (gpu, 512) == afet::FrontPlan::VKFFT &&
      afet::choose_front (cpu, 400) == afet::FrontPlan::VKFFT;
  setenv ("AFET_FRONT", "vkfft", 1);
  g = g && afet::choose_front (cpu, 512) == afet::FrontPlan::VKFFT &&
      afet::choose_front (gpu, 512) == afet::FrontPlan::VKFFT;
  setenv ("AFET_FRONT", "group", 1);
  g = g && afet::choose_front (cpu, 512) == afet::FrontPlan::GROUP &&
      afet::choose_front (cpu, 4096) == afet::FrontPlan::VKFFT &&
      afet::choose_front (gpu, 400) == afet::FrontPlan::VKFFT;
  unsetenv ("AFET_FRONT");
  check (g, "AFET_FRONT: vkfft puts any device on VkFFT, group any device "
      "on the group front where the size allows; nothing puts a GPU on the "
      "vector front");
}

int
main ()
{
  if (!enginecheck::open_device (&device))
    return 1;
  afet::Status st;
  choice_cases ();
  piece_cases ();
  for (int N : { 8, 256, 512, 4096 })
    dft_case ("vector", N);
  for (int N : { 8, 16, 32, 64, 256, 512, 2048 })
    dft_case ("group", N);
  mfcc_cases ();
  frames_cases ();
  other_kind_cases ();
  return enginecheck::finish ();
}
