/* The spectrogram stage (spectrogram.h): its configuration's checks and
 * kernel.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "spectrogram.h"
#include "clutil.h"

#include "afet-kernels.h"


namespace afet {

std::string
SpectrogramConfig::key () const
{
  return "spectrogram " + front_key () + " raw=" +
      std::to_string (raw_energy ? 1 : 0);
}

Status
SpectrogramConfig::validate () const
{
  /* the mel-bank fields keep their (valid) defaults and are not used */
  AFET_RETURN_IF_ERROR (validate_front ());
  if (framing.energy_mode != EnergyMode::KALDI)
    return Status (Status::BAD_CONFIG, "the spectrogram's log energy is "
        "Kaldi's: the framing's energy mode must be KALDI");
  if (!(framing.energy_floor >= 0.0))
    return Status (Status::BAD_CONFIG, "energy-floor must be >= 0 (0 = "
        "none)");
  if (raw_energy == framing.energy_windowed)
    return Status (Status::BAD_CONFIG, "the spectrogram's raw_energy and "
        "its framing's energy_windowed disagree");
  if (frames_input && (!raw_energy || !input_has_energy))
    return Status (Status::BAD_CONFIG, "the spectrogram of frames needs "
        "their raw log energy: set energy=true on afetframer and "
        "raw-energy=true, or feed audio");
  return Status::Ok ();
}

Status
SpectrogramStage::init_kind ()
{
  return make_kernel (*device_, "spectrogram", kernels::spectrogram,
      kernels::spectrogram_sha256, stage_build_options (lsz_),
      "afet_spectrogram", &kernel_);
}

Status
SpectrogramStage::spectra_to_features (int n, cl_mem out, size_t out_row)
{
  const SpectrogramConfig &c = cfg_;
  const int dims = c.dims ();
  cl_mem spec = front_.spectra ();
  ArgSetter a (kernel_.get ());
  a (spec) ((cl_uint) front_.stride ()) ((cl_uint) (dims - 1)) (out)
      ((cl_uint) (out_row * dims)) ((cl_uint) dims) ((cl_uint) n);
  AFET_RETURN_IF_ERROR (a.status ("afet_spectrogram"));
  return launch (queue_, kernel_.get (), n, lsz_, "afet_spectrogram");
}

}  /* namespace afet */
