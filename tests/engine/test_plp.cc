/* Tests of the PLP stage (engine/spectral/plp.h) and its double-precision
 * reference, against each other and against HTK 3.4.1's files.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *  - the reference against HTK 3.4.1 PLP_0 files (relative L2 <= 1e-5 per
 *    column group),
 *  - the stage against the reference on noise and tones at 8, 16 and
 *    44.1 kHz and in other configurations (<= 1e-5),
 *  - the stage against the HTK files (<= 1e-4),
 *  - frames input equals audio input, digital silence gives finite output,
 *    the Bark filter shape, the configuration checks.
 * Synthetic data: tests/data (or the shared refdata); the real recordings
 * come from $AFET_REFDATA or AFET_SOURCE_DIR/../shared/refdata and are
 * skipped when absent.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "enginecheck.h"
#include "plp.h"

#include "afet-kernels.h"

extern "C" {
#include "afetref.h"
}

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifndef AFET_SOURCE_DIR
#define AFET_SOURCE_DIR "."
#endif

using enginecheck::check;
using enginecheck::skip;

static std::shared_ptr<afet::Device> device;
static std::string refdata_dir, testdata_dir;

static bool
exists (const std::string &p)
{
  return g_file_test (p.c_str (), G_FILE_TEST_IS_REGULAR);
}

/* tests/data first for the synthetic files, then the shared set */
static std::string
find_data (const std::string &rel)
{
  for (const std::string &d : { testdata_dir, refdata_dir })
    if (exists (d + "/" + rel))
      return d + "/" + rel;
  return "";
}

static int
chans_for_rate (int rate)
{
  return rate == 8000 ? 15 : rate == 16000 ? 23 : 25;
}

/* Relative L2 of each column group of cand against ref (dims columns
 * each): c1..cN, then c0, then E when present. */
struct GroupErr
{
  double ceps = 0, c0 = 0, e = 0;
  bool ok (double tol) const
  {
    return ceps <= tol && c0 <= tol && e <= tol;
  }
};

static GroupErr
group_errors (const float *cand_f, const double *cand_d, const float *ref_f,
    const double *ref_d, int frames, int dims, int num_ceps, bool c0,
    bool energy)
{
  GroupErr g;
  g.ceps = afetref_rel_l2_strided (cand_f, cand_d, dims, 0, ref_f, ref_d,
      dims, 0, frames, num_ceps);
  if (c0)
    g.c0 = afetref_rel_l2_strided (cand_f, cand_d, dims, num_ceps, ref_f,
        ref_d, dims, num_ceps, frames, 1);
  if (energy)
    g.e = afetref_rel_l2_strided (cand_f, cand_d, dims, dims - 1, ref_f,
        ref_d, dims, dims - 1, frames, 1);
  return g;
}

static std::string
fmt (const char *f, ...) G_GNUC_PRINTF (1, 2);

static std::string
fmt (const char *f, ...)
{
  char buf[512];
  va_list ap;
  va_start (ap, f);
  std::vsnprintf (buf, sizeof buf, f, ap);
  va_end (ap);
  return buf;
}

static bool
all_finite (const std::vector<float> &v)
{
  for (float x : v)
    if (!std::isfinite (x))
      return false;
  return true;
}

static void
ref_config (AfetRefPlpConfig *rc, int rate, double frame_ms, int M)
{
  afetref_plp_config_init (rc);
  rc->rate = rate;
  rc->frame_length_ms = frame_ms;
  rc->frame_shift_ms = 10.0;
  rc->num_filters = M;
}

static afet::PlpConfig
stage_config (const AfetRefPlpConfig &rc, int max_batch)
{
  afet::PlpConfig pc;
  pc.framing.rate = rc.rate;
  pc.framing.W = afet::frame_samples (rc.frame_length_ms, rc.rate);
  pc.framing.S = afet::frame_samples (rc.frame_shift_ms, rc.rate);
  pc.framing.preemph = (float) rc.preemph;
  pc.num_filters = rc.num_filters;
  pc.num_ceps = rc.num_ceps;
  pc.lpc_order = rc.lpc_order;
  pc.compression = rc.compression;
  pc.low_freq = rc.low_freq;
  pc.high_freq = rc.high_freq;
  pc.use_power = rc.use_power != 0;
  pc.lifter = rc.lifter;
  pc.c0 = rc.c0 != 0;
  pc.energy = rc.energy != 0;
  pc.htk_period_quirk = rc.htk_period_quirk != 0;
  pc.filter_shape = rc.filter_shape == AFETREF_PLP_BARK ?
      afet::PlpFilterShape::BARK : afet::PlpFilterShape::MEL;
  pc.max_batch = max_batch;
  return pc;
}

/* Runs the stage on audio; returns false (with a FAIL) if it cannot. */
static bool
run_stage (const afet::PlpConfig &pc, const double *x, int n,
    std::vector<float> *out, const std::string &name)
{
  afet::PlpStage stage;
  afet::Status st = stage.init (device, pc);
  if (!st.ok ()) {
    check (false, name + ": init: " + st.message ());
    return false;
  }
  long long frames = afet::num_frames (n, pc.framing.W, pc.framing.S);
  std::vector<float> xs (x, x + n);
  out->assign ((size_t) frames * pc.dims (), NAN);
  st = stage.run_samples (xs.data (), frames, out->data ());
  if (!st.ok ()) {
    check (false, name + ": run: " + st.message ());
    return false;
  }
  return true;
}

/* ---- the reference against HTK ---------------------------------------- */

static void
reference_vs_htk (const char *file, bool synthetic)
{
  std::string wav = find_data (std::string ("audio/") + file + ".wav");
  std::string htk = find_data (std::string ("htk/PLP_0/") + file + ".htk");
  if (wav.empty () || htk.empty ()) {
    if (synthetic)
      check (false, fmt ("%s: data missing (audio or htk/PLP_0)", file));
    else
      skip (fmt ("%s PLP_0: no shared refdata", file));
    return;
  }
  int rate = 0, n = 0, hn = 0, hdims = 0, hperiod = 0, hkind = 0, nf = 0;
  double *x = afetref_read_wav (wav.c_str (), &rate, &n);
  float *h = afetref_read_htk (htk.c_str (), &hn, &hdims, &hperiod, &hkind);
  AfetRefPlpConfig rc;
  ref_config (&rc, rate, 20.0, chans_for_rate (rate));
  double *ref = x ? afetref_compute_plp (&rc, x, n, &nf) : nullptr;
  bool ok = x && h && ref && nf == hn && hdims == 13 && hperiod == 100000 &&
      hkind == (AFETREF_HTK_PLP | AFETREF_HTK_0);
  if (!ok) {
    check (false, fmt ("%s: reference vs HTK PLP_0: %d frames (HTK %d), "
            "HTK dims %d kind 0%o", file, nf, hn, hdims, hkind));
  } else {
    /* HTK is the reference here */
    GroupErr g = group_errors (nullptr, ref, h, nullptr, nf, 13, 12, true,
        false);
    double mx = afetref_max_abs_strided (nullptr, ref, 13, 0, h, nullptr, 13,
        0, nf, 13);
    check (g.ok (1e-5), fmt ("%s: reference vs HTK PLP_0: rel L2 %.2e "
            "(c1-c12) %.2e (c0), max |diff| %.1e", file, g.ceps, g.c0, mx));
  }
  g_free (x);
  g_free (h);
  g_free (ref);
}

/* ---- the stage against HTK -------------------------------------------- */

static void
stage_vs_htk (const char *file, bool synthetic)
{
  std::string wav = find_data (std::string ("audio/") + file + ".wav");
  std::string htk = find_data (std::string ("htk/PLP_0/") + file + ".htk");
  if (wav.empty () || htk.empty ()) {
    if (synthetic)
      check (false, fmt ("%s: data missing (audio or htk/PLP_0)", file));
    else
      skip (fmt ("%s PLP_0 stage: no shared refdata", file));
    return;
  }
  int rate = 0, n = 0, hn = 0, hdims = 0, hperiod = 0, hkind = 0;
  double *x = afetref_read_wav (wav.c_str (), &rate, &n);
  float *h = afetref_read_htk (htk.c_str (), &hn, &hdims, &hperiod, &hkind);
  AfetRefPlpConfig rc;
  ref_config (&rc, rate, 20.0, chans_for_rate (rate));
  afet::PlpConfig pc = stage_config (rc, 4096);
  std::vector<float> out;
  std::string name = fmt ("%s: stage vs HTK PLP_0", file);
  if (x && h && run_stage (pc, x, n, &out, name)) {
    int frames = (int) (out.size () / 13);
    if (frames != hn || hdims != 13) {
      check (false, fmt ("%s: %d frames x 13, HTK %d x %d", name.c_str (),
              frames, hn, hdims));
    } else {
      GroupErr g = group_errors (out.data (), nullptr, h, nullptr, frames, 13,
          12, true, false);
      double mx = afetref_max_abs_strided (out.data (), nullptr, 13, 0, h,
          nullptr, 13, 0, frames, 13);
      check (g.ok (1e-4), fmt ("%s: rel L2 %.2e (c1-c12) %.2e (c0), max "
              "|diff| %.1e", name.c_str (), g.ceps, g.c0, mx));
    }
  } else if (!x || !h) {
    check (false, name + ": cannot read the data");
  }
  g_free (x);
  g_free (h);
}

/* ---- the stage against the reference ---------------------------------- */

struct Case
{
  const char *name;
  int rate;
  double frame_ms;
  int num_filters, num_ceps, lpc_order, lifter;
  bool use_power, c0, energy;
  double low, high;
  AfetRefFilterShape shape;
  int signal;            /* 0 noise, 1 tone, 2 tone + quiet noise */
  int max_batch;
  double seconds;
};

static double *
make_signal (int kind, int n, int rate)
{
  if (kind == 0)
    return afetref_make_noise (n, 12000.0, 42);
  double *x = afetref_make_tone (n, rate, 440.0, 8000.0, 0.3);
  if (kind == 2) {
    double *z = afetref_make_noise (n, 30.0, 9);
    double *y = afetref_make_tone (n, rate, 1870.0, 2000.0, 1.1);
    for (int i = 0; i < n; i++)
      x[i] += y[i] + z[i];
    g_free (y);
    g_free (z);
  }
  return x;
}

static void
stage_case (const Case &c)
{
  int n = (int) (c.rate * c.seconds);
  double *x = make_signal (c.signal, n, c.rate);
  AfetRefPlpConfig rc;
  ref_config (&rc, c.rate, c.frame_ms, c.num_filters);
  rc.num_ceps = c.num_ceps;
  rc.lpc_order = c.lpc_order;
  rc.lifter = c.lifter;
  rc.use_power = c.use_power;
  rc.c0 = c.c0;
  rc.energy = c.energy;
  rc.low_freq = c.low;
  rc.high_freq = c.high;
  rc.filter_shape = c.shape;
  int nf = 0;
  double *ref = afetref_compute_plp (&rc, x, n, &nf);
  afet::PlpConfig pc = stage_config (rc, c.max_batch);
  std::vector<float> out;
  if (ref && run_stage (pc, x, n, &out, c.name)) {
    int dims = pc.dims ();
    int frames = (int) (out.size () / dims);
    bool shape_ok = frames == nf && dims == afetref_plp_dims (&rc) &&
        pc.c0_index () == (c.c0 ? c.num_ceps : -1) &&
        pc.energy_index () == (c.energy ? dims - 1 : -1);
    GroupErr g;
    if (shape_ok)
      g = group_errors (out.data (), nullptr, nullptr, ref, frames, dims,
          c.num_ceps, c.c0, c.energy);
    check (shape_ok && all_finite (out) && g.ok (1e-5),
        fmt ("%s: %d x %d, rel L2 %.2e (c1-c%d) %.2e (c0) %.2e (E)",
            c.name, frames, dims, g.ceps, c.num_ceps, g.c0, g.e));
  } else if (!ref) {
    check (false, std::string (c.name) + ": reference failed");
  }
  g_free (x);
  g_free (ref);
}

/* ---- frames input, silence, checks ------------------------------------ */

static void
frames_input_case ()
{
  const int rate = 16000, n = 16000 * 2;
  double *x = afetref_make_noise (n, 9000.0, 3);
  std::vector<float> xs (x, x + n);
  afet::FramerConfig fc;
  fc.framing.rate = rate;
  fc.framing.W = 320;
  fc.framing.S = 160;
  fc.energy = true;
  fc.max_batch = 50;
  afet::FramerStage fr;
  afet::Status st = fr.init (device, fc);
  long long frames = afet::num_frames (n, 320, 160);
  std::vector<float> fo ((size_t) frames * fc.dims ());
  if (st.ok ())
    st = fr.run (xs.data (), frames, fo.data ());
  afet::PlpConfig pc;
  pc.framing = fc.framing;
  pc.energy = true;
  pc.max_batch = 64;
  afet::PlpStage a, b;
  if (st.ok ())
    st = a.init (device, pc);
  std::vector<float> oa ((size_t) frames * pc.dims (), NAN),
      ob (oa.size (), NAN);
  if (st.ok ())
    st = a.run_samples (xs.data (), frames, oa.data ());
  pc.frames_input = true;
  pc.input_has_energy = true;
  if (st.ok ())
    st = b.init (device, pc);
  if (st.ok ())
    st = b.run_frames (fo.data (), frames, ob.data ());
  check (st.ok (), "frames input: run " + st.message ());
  double err = afetref_rel_l2_ff (ob.data (), oa.data (), (int) frames,
      pc.dims (), 0, pc.dims ());
  check (st.ok () && err <= 1e-6 && all_finite (ob),
      fmt ("frames input equals audio input (rel L2 %.2e)", err));

  /* device-resident frames: rows in_row.. of a device buffer */
  if (st.ok ()) {
    cl_int cerr = CL_SUCCESS;
    int in_stride = pc.input_stride (), dims = pc.dims ();
    int skip_rows = 3, m = 40;
    cl_mem fin = clCreateBuffer (device->context (), CL_MEM_READ_ONLY |
        CL_MEM_COPY_HOST_PTR, (size_t) (skip_rows + m) * in_stride *
        sizeof (float), fo.data (), &cerr);
    cl_mem fout = clCreateBuffer (device->context (), CL_MEM_READ_WRITE,
        (size_t) (m + 2) * dims * sizeof (float), nullptr, &cerr);
    afet::ClQueue q;
    st = device->create_queue (&q);
    afet::PlpStage d;
    if (st.ok ())
      st = d.init (device, pc, q.get ());
    if (st.ok ())
      st = d.enqueue_frames (nullptr, fin, skip_rows, m, fout, 2);
    std::vector<float> od ((size_t) m * dims);
    if (st.ok ())
      clEnqueueReadBuffer (q.get (), fout, CL_TRUE, (size_t) 2 * dims *
          sizeof (float), od.size () * sizeof (float), od.data (), 0,
          nullptr, nullptr);
    double e2 = afetref_rel_l2_ff (od.data (), oa.data () + (size_t)
        skip_rows * dims, m, dims, 0, dims);
    check (st.ok () && e2 <= 1e-6, fmt ("device frames at row 3 into out "
            "row 2 (rel L2 %.2e) %s", e2, st.message ().c_str ()));
    clReleaseMemObject (fin);
    clReleaseMemObject (fout);
  }

  /* energy without energy in the frames is refused with a reason */
  pc.input_has_energy = false;
  afet::PlpStage c;
  st = c.init (device, pc);
  check (!st.ok () && st.message ().find ("afetframer") != std::string::npos,
      "frames without energy refused: " + st.message ());
  g_free (x);
}

static void
silence_case ()
{
  for (int rate : { 8000, 16000, 44100 }) {
    int n = rate / 2;
    std::vector<double> x (n, 0.0);
    /* a loud burst in the middle: silence next to speech-like frames */
    for (int i = n / 2; i < n / 2 + rate / 20; i++)
      x[i] = 10000.0 * std::sin (0.05 * i) * std::sin (0.0031 * i * i);
    AfetRefPlpConfig rc;
    ref_config (&rc, rate, 20.0, chans_for_rate (rate));
    rc.energy = 1;
    int nf = 0;
    double *ref = afetref_compute_plp (&rc, x.data (), n, &nf);
    afet::PlpConfig pc = stage_config (rc, 4096);
    std::vector<float> out;
    std::string name = fmt ("silence %d Hz", rate);
    if (!run_stage (pc, x.data (), n, &out, name)) {
      g_free (ref);
      continue;
    }
    int dims = pc.dims ();
    bool ref_finite = true;
    for (int i = 0; i < nf * 13; i++)
      ref_finite = ref_finite && std::isfinite (ref[i]);
    /* columns of the first (all-zero) frame */
    GroupErr g = group_errors (out.data (), nullptr, nullptr, ref, nf, dims,
        12, true, false);
    check (all_finite (out) && ref_finite && g.ok (1e-5) &&
        out[dims - 1] == -1e10f,
        fmt ("%s: finite; frame 0: c1 %.6f c2 %.6f c12 %.6f c0 %.6f E %g "
            "(reference c1 %.6f c0 %.6f); rel L2 vs reference %.2e / %.2e",
            name.c_str (), out[0], out[1], out[11], out[12], out[13], ref[0],
            ref[12], g.ceps, g.c0));
    g_free (ref);
  }
}

/* lpc-order 2M + 1 on an (M + 2)-point spectrum, no compression, a pure
 * tone (a dynamic range of ~1e14): the autocorrelation matrix is positive
 * definite in exact arithmetic but very ill-conditioned. In float the
 * recursion may meet |k| >= 1 or a non-positive error and stop there,
 * keeping the model so far. The output must stay finite; it is not held
 * to the reference. */
static void
near_singular_case ()
{
  const int rate = 16000, n = 16000;
  double *x = make_signal (1, n, rate);
  AfetRefPlpConfig rc;
  ref_config (&rc, rate, 25.0, 6);
  rc.lpc_order = 13;
  rc.num_ceps = 16;
  rc.compression = 1.0;
  rc.energy = 1;
  int nf = 0;
  double *ref = afetref_compute_plp (&rc, x, n, &nf);
  bool ref_finite = ref != nullptr;
  for (int i = 0; ref && i < nf * afetref_plp_dims (&rc); i++)
    ref_finite = ref_finite && std::isfinite (ref[i]);
  afet::PlpConfig pc = stage_config (rc, 4096);
  std::vector<float> out;
  if (run_stage (pc, x, n, &out, "near-singular"))
    check (ref_finite && all_finite (out) && (int) out.size () ==
        nf * pc.dims (), fmt ("near-singular: order 13 on 6 filters, compression 1, %d "
            "frames finite (stage c1 %.3f c0 %.3f, reference c1 %.3f c0 "
            "%.3f)", nf, out[0], out[16], ref[0], ref[16]));
  g_free (x);
  g_free (ref);
}

/* afet_plp_lpc alone on crafted autocorrelations (order 12, 12 cepstra,
 * c0), for the cases the 1.0 floor keeps away from real input:
 *   0: r = 0                 -> no recursion: c = 0, c0 = -1e10
 *   1: r_i = 1 (singular)    -> k1 = -1 stops at once: c = 0, c0 = ln 1
 *   2: r_i = 0.5^i (AR(1))   -> a1 = -0.5, err 0.75: c_n = 0.5^n / n
 *   3: 1, 0.5, 1, 0, ...     -> as 2, then k2 = -1 stops the recursion
 *   4: r0 = NaN              -> as 0 */
static void
lpc_kernel_case ()
{
  const int p = 12, nc = 12, ncols = 13, nfr = 5;
  size_t lsz = 64;
  while (lsz > 1 && lsz > device->info ().max_work_group_size)
    lsz >>= 1;
  std::string opts = "-DAFET_LSZ=" + std::to_string (lsz) +
      " -DAFET_PLP_ORDER=12 -DAFET_PLP_NCEPS=12 -DAFET_PLP_C0=1";
  cl_program prog = nullptr;
  afet::Status st = device->program ("plp", afet::kernels::plp, opts, &prog,
      afet::kernels::plp_sha256);
  if (!st.ok ()) {
    check (false, "afet_plp_lpc: build: " + st.message ());
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel (prog, "afet_plp_lpc", &err);
  const cl_uint ld = 8;               /* frame-interleaved, ld >= frames */
  std::vector<float> r ((size_t) (p + 1) * ld, 0.0f);
  for (int i = 0; i <= p; i++) {
    r[i * ld + 1] = 1.0f;
    r[i * ld + 2] = std::pow (0.5f, (float) i);
    r[i * ld + 3] = i == 0 || i == 2 ? 1.0f : i == 1 ? 0.5f : 0.0f;
  }
  r[4] = NAN;
  std::vector<float> lift (nc, 1.0f), out ((size_t) nfr * ncols, -7.0f);
  afet::ClQueue q;
  st = device->create_queue (&q);
  cl_context ctx = device->context ();
  cl_mem rb = clCreateBuffer (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
      r.size () * 4, r.data (), &err);
  cl_mem lb = clCreateBuffer (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
      lift.size () * 4, lift.data (), &err);
  cl_mem ob = clCreateBuffer (ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
      out.size () * 4, out.data (), &err);
  cl_uint zero = 0, stride = ncols, n = nfr;
  clSetKernelArg (k, 0, sizeof (cl_mem), &rb);
  clSetKernelArg (k, 1, sizeof (cl_uint), &ld);
  clSetKernelArg (k, 2, sizeof (cl_mem), &lb);
  clSetKernelArg (k, 3, sizeof (cl_mem), &ob);
  clSetKernelArg (k, 4, sizeof (cl_uint), &zero);
  clSetKernelArg (k, 5, sizeof (cl_uint), &stride);
  clSetKernelArg (k, 6, sizeof (cl_uint), &n);
  size_t global = lsz;
  err = clEnqueueNDRangeKernel (q.get (), k, 1, nullptr, &global, &lsz, 0,
      nullptr, nullptr);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer (q.get (), ob, CL_TRUE, 0, out.size () * 4,
        out.data (), 0, nullptr, nullptr);
  bool ok = st.ok () && err == CL_SUCCESS;
  double dev = 0;
  for (int t = 0; t < nfr; t++)
    for (int j = 0; j < nc; j++) {
      double want = (t == 2 || t == 3) ? std::pow (0.5, j + 1) / (j + 1) : 0;
      dev = std::max (dev, std::fabs (out[t * ncols + j] - want));
    }
  ok = ok && dev < 1e-6 && out[12] == -1e10f && out[ncols + 12] == 0.0f &&
      std::fabs (out[2 * ncols + 12] - std::log (0.75)) < 1e-6 &&
      std::fabs (out[3 * ncols + 12] - std::log (0.75)) < 1e-6 &&
      out[4 * ncols + 12] == -1e10f;
  check (ok, fmt ("afet_plp_lpc on crafted r (zero, singular, AR(1), stop "
          "at k2 = -1, NaN): max |c - want| %.1e, c0 %g %g %.6f %.6f %g",
          dev, out[12], out[ncols + 12], out[2 * ncols + 12],
          out[3 * ncols + 12], out[4 * ncols + 12]));
  clReleaseMemObject (rb);
  clReleaseMemObject (lb);
  clReleaseMemObject (ob);
  clReleaseKernel (k);
}

static void
design_cases ()
{
  /* the equal-loudness curve: stage design == reference, and its shape */
  bool ok = true;
  for (double f = 0; f < 22050; f += 37.5)
    ok = ok && std::fabs (afet::plp_equal_loudness (f) -
        afetref_plp_equal_loudness (f)) <= 1e-15;
  /* hand-evaluated: E(1 kHz) = (1e6 / 1.16e6)^2 * 2.44e6 / 10.61e6 */
  double e1k = afet::plp_equal_loudness (1000.0);
  double want1k = (1e6 / 1.16e6) * (1e6 / 1.16e6) * 2.44e6 / 10.61e6;
  check (ok && std::fabs (e1k - want1k) < 1e-12 &&
      afet::plp_equal_loudness (100.0) < 1e-3 &&
      std::fabs (afet::plp_equal_loudness (1e6) - 1.0) < 1e-3,
      fmt ("equal-loudness curve: E(100 Hz) %.2e, E(1 kHz) %.4f, E(4 kHz) "
          "%.4f, E(1 MHz) %.4f", afet::plp_equal_loudness (100.0), e1k,
          afet::plp_equal_loudness (4000.0),
          afet::plp_equal_loudness (1e6)));

  /* the inverse DFT of a flat spectrum is a pulse: r0 = value, r_i = 0 */
  afet::PlpConfig pc;
  afet::PlpDesign d;
  afet::Status st = afet::design_plp (pc, &d);
  double r0 = 0, rmax = 0;
  int M = pc.num_filters;
  for (int i = 0; i <= pc.lpc_order; i++) {
    double s = 0;
    for (int m = 0; m < M + 2; m++)
      s += d.idft[(size_t) i * (M + 2) + m];
    if (i == 0)
      r0 = s;
    else
      rmax = std::max (rmax, std::fabs (s));
  }
  check (st.ok () && std::fabs (r0 - 1.0) < 1e-6 && rmax < 1e-6 &&
      (int) d.eql.size () == M && (int) d.lift.size () == pc.num_ceps,
      fmt ("design: IDFT of a flat spectrum r0 %.7f, max |r_i| %.1e", r0,
          rmax));

  pc.filter_shape = afet::PlpFilterShape::BARK;
  st = afet::design_plp (pc, &d);
  bool spans = st.ok ();
  for (int m = 1; spans && m < M; m++)
    spans = d.bank.first[m] >= d.bank.first[m - 1] && d.bank.count[m] > 0;
  check (spans, fmt ("Bark design: %d channels, widest span %d bins",
          M, d.bank.max_count));
}

static void
validate_cases ()
{
  struct Bad
  {
    const char *what, *needle;
    void (*set) (afet::PlpConfig &);
  };
  const Bad bad[] = {
    { "lpc-order 0", "lpc-order", [](afet::PlpConfig &c) { c.lpc_order = 0; } },
    { "lpc-order 65", "lpc-order",
        [](afet::PlpConfig &c) { c.lpc_order = 65; } },
    { "lpc-order > 2M+1", "2 num-filters",
        [](afet::PlpConfig &c) { c.num_filters = 4; c.lpc_order = 10; } },
    { "num-ceps 0", "num-ceps", [](afet::PlpConfig &c) { c.num_ceps = 0; } },
    { "compression 0", "compression",
        [](afet::PlpConfig &c) { c.compression = 0; } },
    { "compression 1.5", "compression",
        [](afet::PlpConfig &c) { c.compression = 1.5; } },
    { "num-filters 0", "num-filters",
        [](afet::PlpConfig &c) { c.num_filters = 0; } },
    { "high-freq above Nyquist", "Nyquist",
        [](afet::PlpConfig &c) { c.high_freq = 9000; } },
    { "low >= high", "low-freq", [](afet::PlpConfig &c) {
        c.low_freq = 3000; c.high_freq = 2000; } },
    { "too many filters", "covers no FFT bin", [](afet::PlpConfig &c) {
        c.num_filters = 200; } },
    { "Bark band without bins", "covers no FFT bin", [](afet::PlpConfig &c) {
        c.low_freq = 100; c.high_freq = 110;
        c.filter_shape = afet::PlpFilterShape::BARK; } },
    { "max-batch 0", "max-batch", [](afet::PlpConfig &c) { c.max_batch = 0; } },
  };
  for (const Bad &b : bad) {
    afet::PlpConfig c;
    c.framing.rate = 16000;
    c.framing.W = 400;
    c.framing.S = 160;
    b.set (c);
    afet::PlpStage s;
    afet::Status st = s.init (device, c);
    check (!st.ok () && st.code () == afet::Status::BAD_CONFIG &&
        st.message ().find (b.needle) != std::string::npos,
        std::string ("refused: ") + b.what + ": " + st.message ());
  }
  afet::PlpConfig c;
  check (c.validate ().ok () && c.dims () == 13 && c.c0_index () == 12 &&
      c.energy_index () == -1, "defaults are HTK's PLP_0: 13 columns");
  c.energy = true;
  c.c0 = false;
  check (c.dims () == 13 && c.c0_index () == -1 && c.energy_index () == 12,
      "c1..c12, E without c0");
  /* wrong entry point and oversize batch */
  afet::PlpStage s;
  afet::Status st = s.init (device, afet::PlpConfig ());
  float dummy[1] = { 0 };
  afet::Status e1 = st.ok () ? s.enqueue_frames (dummy, nullptr, 0, 1,
      nullptr, 0) : st;
  afet::Status e2 = st.ok () ? s.enqueue_samples (dummy, 5000, nullptr, 0) :
      st;
  check (st.ok () && !e1.ok () && !e2.ok (), "wrong input / batch refused: " +
      e1.message () + "; " + e2.message ());
}

int
main (int argc, char **argv)
{
  const char *env = g_getenv ("AFET_REFDATA");
  refdata_dir = env && *env ? env : AFET_SOURCE_DIR "/../shared/refdata";
  const char *data = g_getenv ("AFET_TESTDATA");
  testdata_dir = data && *data ? data : AFET_SOURCE_DIR "/tests/data";

  /* the reference first: it needs no device */
  const char *synthetic[] = { "s01_8k", "s02_8k", "s03_8k", "s01_16k",
    "s02_16k", "s03_16k", "s01_44k", "s02_44k", "s03_44k" };
  const char *real[] = { "lv01_16k", "lv02_16k", "en01_8k" };
  for (const char *f : synthetic)
    reference_vs_htk (f, true);
  for (const char *f : real)
    reference_vs_htk (f, false);

  if (!enginecheck::open_device (&device))
    return 1;
  afet::Status st;

  design_cases ();
  validate_cases ();
  lpc_kernel_case ();

  const Case cases[] = {
    { "plp 8k noise", 8000, 20, 15, 12, 12, 22, true, true, true, 0, 0,
        AFETREF_PLP_MEL, 0, 4096, 2.0 },
    { "plp 8k tone", 8000, 20, 15, 12, 12, 22, true, true, true, 0, 0,
        AFETREF_PLP_MEL, 1, 4096, 2.0 },
    { "plp 16k noise", 16000, 20, 23, 12, 12, 22, true, true, true, 0, 0,
        AFETREF_PLP_MEL, 0, 4096, 2.0 },
    { "plp 16k tone", 16000, 20, 23, 12, 12, 22, true, true, false, 0, 0,
        AFETREF_PLP_MEL, 1, 4096, 2.0 },
    { "plp 16k two tones + quiet noise", 16000, 25, 23, 12, 12, 22, true,
        true, false, 0, 0, AFETREF_PLP_MEL, 2, 4096, 2.0 },
    { "plp 44.1k noise (quirk)", 44100, 20, 25, 12, 12, 22, true, true, true,
        0, 0, AFETREF_PLP_MEL, 0, 4096, 1.5 },
    { "plp 44.1k tone (quirk)", 44100, 20, 25, 12, 12, 22, true, true, false,
        0, 0, AFETREF_PLP_MEL, 1, 4096, 1.5 },
    { "plp 16k small batches", 16000, 25, 23, 12, 12, 22, true, true, true,
        0, 0, AFETREF_PLP_MEL, 0, 16, 1.0 },
    { "plp 16k ceps 20 > order 8, no c0", 16000, 25, 23, 20, 8, 22, true,
        false, false, 0, 0, AFETREF_PLP_MEL, 2, 256, 1.0 },
    { "plp 16k order 16, no lifter, magnitude", 16000, 25, 23, 12, 16, 0,
        false, true, false, 0, 0, AFETREF_PLP_MEL, 0, 256, 1.0 },
    { "plp 8k cut-offs 300-3400", 8000, 25, 15, 12, 10, 22, true, true,
        false, 300, 3400, AFETREF_PLP_MEL, 2, 256, 1.5 },
    { "plp bark 8k", 8000, 25, 15, 12, 12, 22, true, true, false, 0, 0,
        AFETREF_PLP_BARK, 2, 4096, 1.5 },
    { "plp bark 16k noise", 16000, 25, 21, 12, 12, 22, true, true, true, 0, 0,
        AFETREF_PLP_BARK, 0, 4096, 1.5 },
    { "plp bark 16k tones", 16000, 25, 21, 12, 12, 22, true, true, false, 0,
        0, AFETREF_PLP_BARK, 2, 4096, 1.5 },
    { "plp bark 44.1k", 44100, 20, 25, 12, 12, 22, true, true, false, 0, 0,
        AFETREF_PLP_BARK, 2, 512, 1.0 },
  };
  for (const Case &c : cases)
    stage_case (c);

  for (const char *f : synthetic)
    stage_vs_htk (f, true);
  for (const char *f : real)
    stage_vs_htk (f, false);

  frames_input_case ();
  silence_case ();
  near_singular_case ();

  return enginecheck::finish ();
}
