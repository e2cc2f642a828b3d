/* The spectral stages' shared parts (spectral.h): the front from samples or
 * frames to spectra, filter-bank buffers and the CLBlast SGEMM.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "spectral.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <clblast_c.h>

#include <mutex>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace afet {


Status
FilterBankBuffers::upload (cl_context ctx, const FilterBank &fb)
{
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          fb.first.size () * sizeof (int), fb.first.data (), &first));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          fb.count.size () * sizeof (int), fb.count.data (), &count));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          fb.offset.size () * sizeof (int), fb.offset.data (), &offset));
  return make_buffer (ctx, CL_MEM_READ_ONLY,
      fb.weights.size () * sizeof (float), fb.weights.data (), &weights);
}

std::vector<int>
piece_counts (const FilterBank &fb, int work_items)
{
  const size_t M = fb.count.size ();
  int widest = 1;
  for (int n : fb.count)
    widest = std::max (widest, n);
  std::vector<int> k (M, 1);
  /* pieces of at most P bins, P as small as work_items allow */
  for (int P = widest - 1; P >= 1; P--) {
    std::vector<int> next (M);
    size_t np = 0;
    for (size_t c = 0; c < M; c++) {
      next[c] = (fb.count[c] + P - 1) / P;
      np += (size_t) next[c];
    }
    if (np > (size_t) work_items)
      break;
    k.swap (next);
  }
  return k;
}

Status
FilterBankBuffers::upload_pieces (cl_context ctx, const FilterBank &fb,
    int work_items)
{
  const std::vector<int> k = piece_counts (fb, work_items);
  std::vector<int> pfirst, pcount, chan;
  std::vector<size_t> from;     /* each piece's first weight in fb */
  for (size_t c = 0; c < k.size (); c++) {
    chan.push_back ((int) pfirst.size ());
    const int n = fb.count[c], len = (n + k[c] - 1) / k[c];
    for (int i0 = 0; i0 < n; i0 += len) {
      pfirst.push_back (fb.first[c] + i0);
      pcount.push_back (std::min (len, n - i0));
      from.push_back ((size_t) fb.offset[c] + i0);
    }
  }
  const size_t np = pfirst.size ();
  chan.push_back ((int) np);
  /* gframes.cl keeps the pieces' sums in a frame's N real parts */
  if (np > (size_t) fb.fft_size)
    return Status (Status::BAD_CONFIG, "filter bank of " + std::to_string (
            k.size ()) + " channels in " + std::to_string (np) + " pieces "
        "for a " + std::to_string (fb.fft_size) + "-point FFT: use fewer "
        "filters or a longer FFT");
  const int longest = *std::max_element (pcount.begin (), pcount.end ());
  std::vector<float> w ((size_t) longest * np, 0.0f);
  for (size_t p = 0; p < np; p++)
    for (int i = 0; i < pcount[p]; i++)
      w[(size_t) i * np + p] = fb.weights[from[p] + i];
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          np * sizeof (int), pfirst.data (), &first));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          np * sizeof (int), pcount.data (), &count));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY,
          chan.size () * sizeof (int), chan.data (), &offset));
  return make_buffer (ctx, CL_MEM_READ_ONLY, w.size () * sizeof (float),
      w.data (), &weights);
}

/* ---- the spectral front ----------------------------------------------- */

Status
SpectrumFront::init (Device &device, const FramingConfig &framing,
    bool frames_input, bool input_has_energy, int max_batch, int fft_size)
{
  context_ = device.context ();
  framing_cfg_ = framing;
  frames_input_ = frames_input;
  in_stride_ = framing.W + (input_has_energy ? 1 : 0);
  max_batch_ = max_batch;
  fft_size_ = fft_size;
  lsz_ = pick_local_size (device);
  plan_ = choose_front (device.info (), fft_size,
      (size_t) (max_batch - 1) * framing.S + framing.W);
  if (!frames_input)
    AFET_RETURN_IF_ERROR (framing_.init (device, framing, max_batch,
            plan_ == FrontPlan::VKFFT));
  if (one_kernel ())
    return kfront_.init (device, plan_, fft_size, framing.samples);
  if (frames_input)
    AFET_RETURN_IF_ERROR (make_kernel (device, "framing", kernels::framing,
            kernels::framing_sha256, stage_build_options (lsz_),
            "afet_pad_frames", &pad_kernel_));
  std::vector<int> caps = RealFft::capacities_for (max_batch);
  AFET_RETURN_IF_ERROR (make_buffer (context_, CL_MEM_READ_WRITE,
          (size_t) caps.back () * stride () * sizeof (float), nullptr,
          &spec_));
  return fft_.init (device, fft_size_, caps, spec_.get ());
}

Status
SpectrumFront::mfcc_kernel (int filters, ClKernel *out,
    std::string *name) const
{
  if (!one_kernel ())
    return Status (Status::BAD_CONFIG, "mfcc_kernel: not a one-kernel plan");
  return kfront_.kernel (frames_input_, filters, out, name);
}

Status
SpectrumFront::need_spectra ()
{
  if (one_kernel () && !kspectra_kernel_)
    AFET_RETURN_IF_ERROR (kfront_.kernel (frames_input_, 0,
            &kspectra_kernel_, &kspectra_name_));
  if (spec_)
    return Status::Ok ();
  return make_buffer (context_, CL_MEM_READ_WRITE, (size_t) max_batch_ *
      stride () * sizeof (float), nullptr, &spec_);
}

Status
SpectrumFront::transform (cl_command_queue q, int n)
{
  return fft_.forward (q, spec_.get (), n);
}

Status
SpectrumFront::check (int n, bool frames) const
{
  if (frames != frames_input_)
    return Status (Status::BAD_CONFIG, frames ? "enqueue_frames: this stage "
        "was configured for audio input" : "enqueue_samples: this stage was "
        "configured for frames input");
  if (n < 1 || n > max_batch_)
    return Status (Status::BAD_CONFIG, "batch of " + std::to_string (n) +
        " frames, want 1.." + std::to_string (max_batch_));
  return Status::Ok ();
}

void
SpectrumFront::dest_args (ArgSetter &a, const KindKernel *kind) const
{
  kfront_.table_args (a);
  if (kind)
    kind->args (a);
  else
    a (spec_.get ()) ((cl_uint) stride ());
}

Status
SpectrumFront::enqueue_samples (cl_command_queue q, const Samples &samples,
    int n, cl_mem out, size_t out_row, int out_dims, int energy_col,
    TransferStats *stats, long long first_frame, const KindKernel *kind)
{
  AFET_RETURN_IF_ERROR (check (n, false));
  const size_t energy_offset = out_row * out_dims + (energy_col >= 0 ?
      energy_col : 0);
  if (one_kernel ()) {
    const KindKernel own { kspectra_kernel_.get (), kspectra_name_.c_str (),
      nullptr };
    const KindKernel &k = kind ? *kind : own;
    return framing_.enqueue_kernel (q, samples, n, k.kernel, k.name,
        kfront_.groups (n), kfront_.local_size (), out, energy_offset,
        out_dims, energy_col >= 0,
        stats, first_frame, [&](ArgSetter &a) { dest_args (a, kind); });
  }
  AFET_RETURN_IF_ERROR (framing_.enqueue (q, samples, n, spec_.get (), 0,
          stride (), out, energy_offset, out_dims, energy_col >= 0, stats,
          first_frame));
  return transform (q, n);
}

Status
SpectrumFront::enqueue_frames (cl_command_queue q, const float *host,
    cl_mem frames, size_t in_row, int n, cl_mem out, size_t out_row,
    int out_dims, int energy_col, TransferStats *stats,
    const KindKernel *kind)
{
  AFET_RETURN_IF_ERROR (check (n, true));
  if (host) {
    if (!frames_in_)
      AFET_RETURN_IF_ERROR (make_buffer (context_, CL_MEM_READ_ONLY,
              (size_t) max_batch_ * in_stride_ * sizeof (float), nullptr,
              &frames_in_));
    AFET_RETURN_IF_ERROR (upload (q, frames_in_.get (), 0,
            (size_t) n * in_stride_ * sizeof (float), host, true, stats));
    frames = frames_in_.get ();
    in_row = 0;
  }
  const bool one = one_kernel ();
  cl_kernel k = one ? (kind ? kind->kernel : kspectra_kernel_.get ()) :
      pad_kernel_.get ();
  const char *name = one ? (kind ? kind->name : kspectra_name_.c_str ()) :
      "afet_pad_frames";
  ArgSetter a (k);
  a (frames) ((cl_uint) (in_row * in_stride_)) ((cl_uint) in_stride_)
      ((cl_uint) framing_cfg_.W) ((cl_int) (energy_col >= 0 ? 1 : 0)) (out)
      ((cl_uint) (out_row * out_dims + (energy_col >= 0 ? energy_col : 0)))
      ((cl_uint) out_dims) ((cl_uint) n);
  if (one) {
    dest_args (a, kind);
    AFET_RETURN_IF_ERROR (a.status (name));
    return launch (q, k, kfront_.groups (n), kfront_.local_size (), name);
  }
  a (spec_.get ()) ((cl_uint) stride ());
  AFET_RETURN_IF_ERROR (a.status (name));
  AFET_RETURN_IF_ERROR (launch (q, k, n, lsz_, name));
  return transform (q, n);
}

/* ---- what every spectral kind shares ---------------------------------- */

Status
SpectralConfig::validate_front () const
{
  if (num_filters < 1 || num_filters > kMaxFilters)
    return Status (Status::BAD_CONFIG, "num-filters must be 1.." +
        std::to_string (kMaxFilters));
  if (framing.W < 2)
    return Status (Status::BAD_CONFIG, "the frame must be at least 2 "
        "samples long: raise frame-length");
  if (framing.rate < 1)
    return Status (Status::BAD_CONFIG, "the sample rate must be positive");
  AFET_RETURN_IF_ERROR (check_fft_size (framing.W, framing.rate));
  if (fft_points > 0 && (fft_points < framing.W || fft_points % 2 != 0 ||
          fft_points > kMaxFftSize))
    return Status (Status::BAD_CONFIG, "the FFT size (" +
        std::to_string (fft_points) + ") must be even, at least the frame's "
        + std::to_string (framing.W) + " samples and at most " +
        std::to_string (kMaxFftSize));
  if (!(log_floor > 0.0f))
    return Status (Status::BAD_CONFIG, "the log floor must be positive");
  if (warp != 1.0 && mel_layout == MelLayout::SLANEY)
    return Status (Status::BAD_CONFIG, "warp-factor (VTLN) warps HTK's and "
        "Kaldi's mel banks, not Whisper's: use preset htk, kaldi or lhotse");
  AFET_RETURN_IF_ERROR (check_band (low_freq, high_freq, framing.rate));
  if (lifter < 0)
    return Status (Status::BAD_CONFIG, "lifter must be >= 0 (0 = none)");
  if (frames_input && energy && !input_has_energy)
    return Status (Status::BAD_CONFIG, "energy=true needs the raw log "
        "energy of each frame, which the incoming frames do not carry: set "
        "energy=true on afetframer too, or feed the element audio directly");
  if (max_batch < 1)
    return Status (Status::BAD_CONFIG, "max-batch must be at least 1");
  return Status::Ok ();
}

std::string
SpectralConfig::front_key () const
{
  char buf[400];
  std::snprintf (buf, sizeof buf, " frames=%d/%d filters=%d ceps=%d "
      "band=%a-%a lifter=%d power=%d c0=%d energy=%d quirk=%d mel=%d fft=%d "
      "floor=%a log10=%d leading=%d warp=%a/%a/%a", frames_input, input_has_energy, num_filters,
      num_ceps, low_freq, high_freq, lifter, use_power, c0, energy,
      htk_period_quirk, (int) mel_layout, fft_size (), (double) log_floor,
      log10, leading, warp, warp_low, warp_high);
  return framing.key () + buf;
}

SpectralStage::~SpectralStage () = default;

Status
SpectralStage::init_front (std::shared_ptr<Device> device,
    const SpectralConfig &cfg, int dims, int energy_index,
    cl_command_queue queue, TransferStats *stats)
{
  device_ = std::move (device);
  base_ = &cfg;
  dims_ = dims;
  energy_index_ = energy_index;
  stats_ = stats;
  lsz_ = pick_local_size (*device_);
  AFET_RETURN_IF_ERROR (use_queue (*device_, queue, &own_queue_, &queue_));
  return front_.init (*device_, cfg.framing, cfg.frames_input,
      cfg.input_has_energy, cfg.max_batch, cfg.fft_size ());
}

Status
SpectralStage::finish_init ()
{
  return fused_kernel_ ? Status::Ok () : front_.need_spectra ();
}

const SpectrumFront::KindKernel *
SpectralStage::fused (SpectrumFront::KindKernel *k, cl_mem out,
    size_t out_row)
{
  if (!fused_kernel_)
    return nullptr;
  k->kernel = fused_kernel_.get ();
  k->name = fused_name_.c_str ();
  k->args = [this, out, out_row](ArgSetter &a) { fused_args (a, out,
        out_row); };
  return k;
}

Status
SpectralStage::enqueue_samples (const Samples &samples, int n, cl_mem out,
    size_t out_row, long long first_frame)
{
  SpectrumFront::KindKernel k;
  const SpectrumFront::KindKernel *kind = fused (&k, out, out_row);
  AFET_RETURN_IF_ERROR (front_.enqueue_samples (queue_, samples, n, out,
          out_row, dims_, energy_index_, stats_, first_frame, kind));
  return kind ? Status::Ok () : spectra_to_features (n, out, out_row);
}

Status
SpectralStage::enqueue_frames (const float *host, cl_mem frames,
    size_t in_row, int n, cl_mem out, size_t out_row)
{
  SpectrumFront::KindKernel k;
  const SpectrumFront::KindKernel *kind = fused (&k, out, out_row);
  AFET_RETURN_IF_ERROR (front_.enqueue_frames (queue_, host, frames, in_row,
          n, out, out_row, dims_, energy_index_, stats_, kind));
  return kind ? Status::Ok () : spectra_to_features (n, out, out_row);
}

Status
SpectralStage::run_samples (const void *samples, long long n, float *out,
    bool pinned)
{
  /* uploads on a queue of their own, from the caller's page-locked
   * memory or from the staging memory the samples are copied into */
  if (!copy_queue_ && use_copy_queue (*device_))
    AFET_RETURN_IF_ERROR (device_->create_queue (&copy_queue_));
  front_.set_copy_queue (copy_queue_.get ());
  Status st = run_host_batches (*device_, queue_, &out_, n,
      base_->max_batch, dims_, out, stats_,
      [&](long long done, int b, cl_mem o) {
        const void *at = (const char *) samples + done * base_->framing.S *
            base_->framing.sample_bytes ();
        return enqueue_samples (pinned ? Samples::pinned (at) : Samples (at),
            b, o, 0, done);
      }, pinned);
  /* waits for the copy queue: nothing reads the caller's samples after;
   * after a failure nothing writes its page-locked output either */
  front_.set_copy_queue (nullptr);
  if (!st.ok () && pinned)
    clFinish (queue_);
  return st;
}

Status
SpectralStage::run_frames (const float *frames, long long n, float *out)
{
  return run_host_batches (*device_, queue_, &out_, n, base_->max_batch,
      dims_, out, stats_, [&](long long done, int b, cl_mem o) {
        return enqueue_frames (frames + done * base_->input_stride (),
            nullptr, 0, b, o, 0);
      });
}

Status
sgemm_abt (cl_command_queue q, size_t m, size_t n, size_t k, cl_mem a,
    size_t lda, cl_mem b, size_t ldb, cl_mem c, size_t c_offset, size_t ldc)
{
  return sgemm_abt_at (q, m, n, k, a, 0, lda, b, 0, ldb, 0.0f, c, c_offset,
      ldc);
}

Status
sgemm_abt_at (cl_command_queue q, size_t m, size_t n, size_t k, cl_mem a,
    size_t a_offset, size_t lda, cl_mem b, size_t b_offset, size_t ldb,
    float beta, cl_mem c, size_t c_offset, size_t ldc)
{
  /* one thread in CLBlast at a time: its kernel compilation and caches are
   * not safe against concurrent first use (8 afetplp pipelines starting
   * together on an H100: status -2039, "unexpected error"); the call only
   * enqueues, so the lock is held for microseconds once compiled */
  static std::mutex lock;
  std::lock_guard<std::mutex> guard (lock);
  /* chained as launch () chains (clutil.h): CLBlast's kernels are one
   * program a device, launched at many sizes */
  return chained_launches (q, "clblast", [&] () {
        CLBlastStatusCode st = CLBlastSgemm (CLBlastLayoutRowMajor,
            CLBlastTransposeNo, CLBlastTransposeYes, m, n, k, 1.0f, a,
            a_offset, lda, b, b_offset, ldb, beta, c, c_offset, ldc, &q,
            nullptr);
        if (st == CLBlastSuccess)
          return Status::Ok ();
        return Status (Status::GEMM, "CLBlastSgemm (" + std::to_string (m) +
            " x " + std::to_string (n) + " x " + std::to_string (k) +
            ") failed (CLBlast status " + std::to_string ((int) st) + ")");
      });
}

}  /* namespace afet */
