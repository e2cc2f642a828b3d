// kaldi_drv, a test-data tool (not part of the build): runs Kaldi's own PLP,
// spectrogram or MFCC computer on raw float32 samples and writes a float32
// .npy.
// Copyright (C) 2026 the afet authors
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// It uses compute-*-feats' library classes.  Built by build.sh against a
// Kaldi source tree.
//   kaldi_drv plp|spectrogram|mfcc RATE IN.f32 OUT.npy [--kaldi-option=value ...]
// (dither is set to 0 before the options are read)
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include "feat/feature-plp.h"
#include "feat/feature-spectrogram.h"
#include "feat/feature-mfcc.h"
using namespace kaldi;
static void write_npy(const char *path, const Matrix<BaseFloat> &m) {
  char dict[256];
  snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", m.NumRows(), m.NumCols());
  size_t total = 10 + strlen(dict) + 1, pad = (64 - total % 64) % 64;
  unsigned short hlen = strlen(dict) + pad + 1;
  FILE *f = fopen(path, "wb");
  fwrite("\x93NUMPY\x01\x00", 1, 8, f); fwrite(&hlen, 2, 1, f); fputs(dict, f);
  for (size_t i = 0; i < pad; i++) fputc(' ', f);
  fputc('\n', f);
  for (int r = 0; r < m.NumRows(); r++) fwrite(m.RowData(r), 4, m.NumCols(), f);
  fclose(f);
}
int main(int argc, char **argv) {
  // drv KIND RATE IN.f32 OUT.npy [key=value ...]
  std::string kind = argv[1]; float rate = atof(argv[2]);
  FILE *f = fopen(argv[3], "rb"); std::vector<float> x; float v;
  while (fread(&v, 4, 1, f) == 1) x.push_back(v);
  fclose(f);
  Vector<BaseFloat> wave(x.size()); for (size_t i = 0; i < x.size(); i++) wave(i) = x[i];
  ParseOptions po("drv");
  Matrix<BaseFloat> out;
  std::vector<const char*> args = {"drv"};
  for (int i = 5; i < argc; i++) args.push_back(argv[i]);
  if (kind == "plp") {
    PlpOptions o; o.frame_opts.samp_freq = rate; o.frame_opts.dither = 0;
    o.Register(&po); po.Read(args.size(), args.data());
    Plp c(o); c.ComputeFeatures(wave, rate, 1.0, &out);
  } else if (kind == "spectrogram") {
    SpectrogramOptions o; o.frame_opts.samp_freq = rate; o.frame_opts.dither = 0;
    o.Register(&po); po.Read(args.size(), args.data());
    Spectrogram c(o); c.ComputeFeatures(wave, rate, 1.0, &out);
  } else {
    MfccOptions o; o.frame_opts.samp_freq = rate; o.frame_opts.dither = 0;
    o.Register(&po); po.Read(args.size(), args.data());
    Mfcc c(o); c.ComputeFeatures(wave, rate, 1.0, &out);
  }
  write_npy(argv[4], out);
  fprintf(stderr, "%s: %d x %d\n", argv[4], out.NumRows(), out.NumCols());
  return 0;
}
