/* The PLP stage (plp.h): its design and its device path.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Device path per batch:
 *   framing (or afet_pad_frames) -> VkFFT R2C -> afet_plp_bank -> CLBlast
 *   SGEMM (autocorrelation, frame-interleaved) -> afet_plp_lpc.
 * The design (filter bank, equal loudness, inverse-DFT matrix, lifter) is
 * computed here once, in double precision. Written from the published
 * formulas (Hermansky 1990; the HTK Book's description of PLP) and checked
 * numerically against HTK 3.4.1 HCopy output, not from HTK's code.
 */
#include "plp.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace afet {

namespace {

double
bark (double f)
{
  return 6.0 * std::asinh (f / 600.0);
}

/* Hermansky's critical-band masking curve, d = z - z_m in Bark. */
double
bark_psi (double d)
{
  if (d < -2.5 || d > 1.3)
    return 0.0;
  if (d <= -0.5)
    return std::pow (10.0, d + 0.5);
  if (d < 0.5)
    return 1.0;
  return std::pow (10.0, -2.5 * (d - 0.5));
}

/* The Bark bank: centres z_m = z_lo + m (z_hi - z_lo) / (M + 1), m = 1..M,
 * over the same bins (and the same sample-period quirk) as HTK's mel bank;
 * each channel weights 1-based bin k (at (k - 1) fs / N Hz) by
 * Psi (bark (f_k) - z_m). */
Status
design_bark_bank (const PlpConfig &c, FilterBank *out)
{
  const int N = c.fft_size ();
  const int half = N / 2;
  const int M = c.num_filters;
  const double fs = design_rate (c.framing.rate, c.htk_period_quirk);
  int klo = 2, khi = half;
  double zlo = 0.0, zhi = bark (half * fs / N);
  if (c.low_freq > 0) {
    zlo = bark (c.low_freq);
    klo = std::max (2, (int) (c.low_freq * N / fs + 2.5));
  }
  if (c.high_freq > 0) {
    zhi = bark (c.high_freq);
    khi = std::min (half, (int) (c.high_freq * N / fs + 0.5));
  }
  out->reset (M, N);
  for (int m = 1; m <= M; m++) {
    double zm = (double) m / (double) (M + 1) * (zhi - zlo) + zlo;
    std::vector<float> w;
    int lo = -1;
    for (int k = klo; k <= khi; k++) {
      double psi = bark_psi (bark ((k - 1) * fs / N) - zm);
      if (psi > 0.0 && lo < 0)
        lo = k;
      if (lo >= 0)
        w.push_back ((float) psi);
    }
    while (!w.empty () && w.back () == 0.0f)
      w.pop_back ();
    AFET_RETURN_IF_ERROR (out->set_channel (m - 1, 600.0 * std::sinh (zm /
                6.0), lo - 1, w, "Bark"));
  }
  return Status::Ok ();
}

}  /* namespace */

/* ---- configuration ---------------------------------------------------- */

int
PlpConfig::dims () const
{
  return num_ceps + (c0 ? 1 : 0) + (energy ? 1 : 0);
}

int
PlpConfig::c0_index () const
{
  return !c0 ? -1 : leading ? 0 : num_ceps;
}

int
PlpConfig::energy_index () const
{
  return !energy ? -1 : leading ? 0 : dims () - 1;
}

std::string
PlpConfig::key () const
{
  char buf[160];
  std::snprintf (buf, sizeof buf, " order=%d compression=%a shape=%d "
      "variant=%d scale=%a", lpc_order, compression, (int) filter_shape,
      (int) variant, cepstral_scale);
  return "plp " + front_key () + buf;
}

Status
PlpConfig::validate () const
{
  AFET_RETURN_IF_ERROR (validate_front ());
  if (lpc_order < 1 || lpc_order > kMaxPlpOrder)
    return Status (Status::BAD_CONFIG, "lpc-order must be 1.." +
        std::to_string (kMaxPlpOrder));
  if (lpc_order > 2 * num_filters + 1)
    return Status (Status::BAD_CONFIG, "lpc-order (" +
        std::to_string (lpc_order) + ") must not exceed 2 num-filters + 1 (" +
        std::to_string (2 * num_filters + 1) + "): the auditory spectrum "
        "has only num-filters + 2 points");
  if (num_ceps < 1 || num_ceps > kMaxPlpCeps)
    return Status (Status::BAD_CONFIG, "num-ceps must be 1.." +
        std::to_string (kMaxPlpCeps) + " for PLP");
  /* above 1 the auditory spectrum of loud input overflows float */
  if (!(compression > 0.0 && compression <= 1.0))
    return Status (Status::BAD_CONFIG, "compression must be in (0, 1] "
        "(HTK: 0.33)");
  if (warp != 1.0 && filter_shape != PlpFilterShape::MEL)
    return Status (Status::BAD_CONFIG, "warp-factor (VTLN) warps the mel "
        "bank, not the Bark bands: set filter-shape=htk-mel");
  if (variant == PlpVariant::HTK)
    return cepstral_scale == 1.0 && !leading ? Status::Ok () :
        Status (Status::BAD_CONFIG, "cepstral-scale and Kaldi's column "
        "order are Kaldi's PLP (preset=kaldi)");
  if (filter_shape != PlpFilterShape::MEL)
    return Status (Status::BAD_CONFIG, "Kaldi's PLP has its mel filter bank "
        "only: set filter-shape=htk-mel (or preset=htk for Bark bands)");
  if (num_ceps > lpc_order)
    return Status (Status::BAD_CONFIG, "Kaldi's PLP has cepstra up to "
        "lpc-order only: num-ceps (" + std::to_string (num_ceps) + ") must "
        "not exceed lpc-order (" + std::to_string (lpc_order) + ")");
  if (leading && energy && c0)
    return Status (Status::BAD_CONFIG, "Kaldi's column order has room for "
        "either the energy or c0 in column 0: set energy=false or c0=false, "
        "or htk-compat=true for both at the end");
  if (!std::isfinite (cepstral_scale))
    return Status (Status::BAD_CONFIG, "cepstral-scale must be finite");
  return Status::Ok ();
}

/* ---- design ----------------------------------------------------------- */

double
plp_equal_loudness (double f)
{
  double fsq = f * f;
  double q = fsq / (fsq + 1.6e5);
  return q * q * (fsq + 1.44e6) / (fsq + 9.61e6);
}

Status
design_plp (const PlpConfig &c, PlpDesign *out)
{
  AFET_RETURN_IF_ERROR (c.validate ());
  const int M = c.num_filters;
  const int p = c.lpc_order;
  const int N = c.fft_size ();
  const bool kaldi = c.variant == PlpVariant::KALDI;
  if (c.filter_shape == PlpFilterShape::MEL) {
    MelDesign md;
    md.rate = c.framing.rate;
    md.fft_size = N;
    md.num_filters = M;
    md.low_freq = c.low_freq;
    md.high_freq = c.high_freq;
    md.htk_period_quirk = c.htk_period_quirk;
    /* Kaldi: its bank (mel_layout), centres at the mel centres */
    md.layout = kaldi ? c.mel_layout : MelLayout::HTK;
    md.warp = c.warp;
    md.warp_low = c.warp_low;
    md.warp_high = c.warp_high;
    AFET_RETURN_IF_ERROR (design_melbank (md, &out->bank));
  } else {
    AFET_RETURN_IF_ERROR (design_bark_bank (c, &out->bank));
  }
  /* HTK and Kaldi weight each channel at its centre */
  out->eql.assign (M, 0.0f);
  for (int m = 0; m < M; m++)
    out->eql[m] = (float) plp_equal_loudness (out->bank.centre_hz[m]);

  const int K = M + 1;          /* points 0..K of the half spectrum */
  out->idft.assign ((size_t) (p + 1) * (M + 2), 0.0f);
  for (int i = 0; i <= p; i++)
    for (int m = 0; m <= K; m++)
      out->idft[(size_t) i * (M + 2) + m] = (float) ((m == 0 || m == K ?
              1.0 : 2.0) * std::cos (M_PI * i * m / K) / (2.0 * K));

  /* Kaldi's lifter is HTK's (with weight 1 at c0) */
  out->lift.assign (c.num_ceps, 1.0f);
  for (int n = 1; n <= c.num_ceps; n++)
    out->lift[n - 1] = (float) (htk_lifter (n, c.lifter) * c.cepstral_scale);
  return Status::Ok ();
}

/* ---- stage ------------------------------------------------------------ */

Status
PlpStage::init_kind ()
{
  const PlpConfig &cfg = cfg_;
  PlpDesign d;
  AFET_RETURN_IF_ERROR (design_plp (cfg, &d));

  Device &dev = *device_;
  cl_context ctx = dev.context ();
  const int M = cfg.num_filters;
  const int p = cfg.lpc_order;
  const int rows = cfg.max_batch;

  const FilterBank &fb = d.bank;
  AFET_RETURN_IF_ERROR (bank_.upload (ctx, fb));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          d.eql.size () * sizeof (float), d.eql.data (), &eql_));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          d.idft.size () * sizeof (float), d.idft.data (), &idft_));
  /* and c0's weight after them (Kaldi's kernel reads it) */
  std::vector<float> lift = d.lift;
  lift.push_back ((float) cfg.cepstral_scale);
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          lift.size () * sizeof (float), lift.data (), &lift_));

  r_ld_ = (size_t) cfg.max_batch;
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          (size_t) rows * (M + 2) * sizeof (float), nullptr, &aspec_));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          (size_t) (p + 1) * r_ld_ * sizeof (float), nullptr, &autoc_));

  std::string opts = "-DAFET_LSZ=" + std::to_string (lsz_) +
      " -DAFET_PLP_ORDER=" + std::to_string (p) +
      " -DAFET_PLP_NCEPS=" + std::to_string (cfg.num_ceps) +
      " -DAFET_PLP_C0=" + std::string (cfg.c0 ? "1" : "0") +
      " -DAFET_PLP_KALDI=" + std::string (cfg.variant == PlpVariant::KALDI ?
          "1" : "0") + " -DAFET_PLP_LEAD=" + std::string (cfg.leading ? "1" :
          "0");
  AFET_RETURN_IF_ERROR (make_kernel (dev, "plp", kernels::plp,
          kernels::plp_sha256, opts, "afet_plp_bank", &bank_kernel_));
  AFET_RETURN_IF_ERROR (make_kernel (dev, "plp", kernels::plp,
          kernels::plp_sha256, opts, "afet_plp_lpc", &lpc_kernel_));

  /* CLBlast compiles its kernels on first use: do that now, for the
   * smallest and the largest batch, not on the first batch while
   * streaming. The buffers' contents do not matter here. */
  cl_command_queue q = queue_;
  for (size_t n : { (size_t) 1, (size_t) cfg.max_batch }) {
    AFET_RETURN_IF_ERROR (sgemm_abt (q, (size_t) (p + 1), n, (size_t) (M + 2),
            idft_.get (), (size_t) (M + 2), aspec_.get (), (size_t) (M + 2),
            autoc_.get (), 0, r_ld_));
  }
  clFinish (q);
  return Status::Ok ();
}

Status
PlpStage::spectra_to_features (int n, cl_mem out, size_t out_row)
{
  cl_command_queue q = queue_;
  const PlpConfig &c = cfg_;
  const cl_uint stride = (cl_uint) front_.stride ();
  const int dims = c.dims ();
  const int M = c.num_filters;
  const int p = c.lpc_order;
  cl_mem spec = front_.spectra ();

  /* auditory spectra, n x (M + 2) */
  cl_mem first = bank_.first.get (), count = bank_.count.get (), offset = bank_.offset.get (),
      weights = bank_.weights.get (), eql = eql_.get (), aspec = aspec_.get ();
  /* HTK floors the channels at 1.0, Kaldi not at all */
  const float floor_v = c.variant == PlpVariant::KALDI ? 0.0f : 1.0f;
  const float compression = (float) c.compression;
  const cl_int use_power = c.use_power ? 1 : 0;
  {
    ArgSetter a (bank_kernel_.get ());
    a (spec) (stride) (first) (count) (offset) (weights) (eql) ((cl_uint) M)
        (use_power) (floor_v) (compression) (aspec) ((cl_uint) n);
    AFET_RETURN_IF_ERROR (a.status ("afet_plp_bank"));
    size_t groups = ((size_t) n * (M + 2) + lsz_ - 1) / lsz_;
    AFET_RETURN_IF_ERROR (launch (q, bank_kernel_.get (), groups, lsz_,
            "afet_plp_bank"));
  }

  /* autocorrelation, frame-interleaved: r[(p + 1) x n] (leading dimension
   * r_ld_) = idft[(p + 1) x (M + 2)] . aspec[n x (M + 2)]^T */
  cl_mem autoc = autoc_.get ();
  AFET_RETURN_IF_ERROR (sgemm_abt (q, (size_t) (p + 1), (size_t) n,
          (size_t) (M + 2), idft_.get (), (size_t) (M + 2), aspec,
          (size_t) (M + 2), autoc, 0, r_ld_));

  /* Durbin, cepstrum, lifter, c0 into the output rows */
  cl_mem lift = lift_.get ();
  ArgSetter a (lpc_kernel_.get ());
  /* Kaldi's order: the energy in column 0, then the cepstra */
  a (autoc) ((cl_uint) r_ld_) (lift) (out) ((cl_uint) (out_row * dims +
          (c.leading && c.energy ? 1 : 0))) ((cl_uint) dims) ((cl_uint) n);
  AFET_RETURN_IF_ERROR (a.status ("afet_plp_lpc"));
  size_t groups = ((size_t) n + lsz_ - 1) / lsz_;
  return launch (q, lpc_kernel_.get (), groups, lsz_, "afet_plp_lpc");
}

}  /* namespace afet */
