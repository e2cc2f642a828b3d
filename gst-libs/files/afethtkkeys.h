/* The HCopy configuration keys afet knows, as a table the reader follows.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The HCopy configuration keys afet knows, as data: for each, how its
 * value reads, where it goes in HtkConfig (whose initial values are HTK
 * 3.4's defaults), the range the afet element takes, and what to do when
 * afet cannot reproduce a value.  Included by afethtkconfig.cc alone (its
 * definitions have internal linkage); a key HTK has and this table does
 * not list is refused as unknown.
 */
#pragma once

#include "afethtkconfig.h"

namespace afet {

namespace {

/* One key HCopy reads.  type: 'b' T/F, 'i' whole number, 'r' number,
 * 's' text, 'x' known to HTK but refused (fix says why).  only: the one
 * value afet reproduces ('|' between alternatives for text); fix: the
 * range or what to do instead. */
struct Key
{
  const char *name;
  char type;
  bool HtkConfig::*b;
  int HtkConfig::*i;
  double HtkConfig::*r;
  double lo, hi;
  const char *only, *fix;
};

#define B(n, m) {n, 'b', &HtkConfig::m, nullptr, nullptr, 0, 0, nullptr, \
      nullptr}
#define I(n, m, lo, hi, fix) {n, 'i', nullptr, &HtkConfig::m, nullptr, lo, \
      hi, nullptr, fix}
#define R(n, m, lo, hi, fix) {n, 'r', nullptr, nullptr, &HtkConfig::m, lo, \
      hi, nullptr, fix}
#define ONLY(n, t, v, fix) {n, t, nullptr, nullptr, nullptr, 0, 0, v, fix}
#define ANY(n, t) ONLY (n, t, nullptr, nullptr)
#define NO(n, fix) ONLY (n, 'x', nullptr, fix)

const Key keys[] = {
  ANY ("TARGETKIND", 's'),
  R ("WINDOWSIZE", window_size, 1e4, 1e7, "afet's frame-length takes 1 to "
      "1000 ms, 10000 to 10000000 in 100 ns units (200000.0 is 20 ms)"),
  R ("TARGETRATE", target_rate, 1e3, 1e7, "afet's frame-shift takes 0.1 to "
      "1000 ms, 1000 to 10000000 in 100 ns units (100000.0 is 10 ms)"),
  R ("SOURCERATE", source_rate, 0, 1e6, "it is the sample period in 100 ns "
      "units (625 for 16 kHz)"),
  B ("USEHAMMING", use_hamming),
  R ("PREEMCOEF", preemph, 0, 1, "afet's preemphasis takes 0 (none) to 1"),
  B ("ZMEANSOURCE", zmean_source),
  I ("NUMCHANS", num_chans, 1, 256, "afet's num-filters takes 1 to 256"),
  I ("NUMCEPS", num_ceps, 1, 256, "afet's num-ceps takes 1 to 256"),
  I ("CEPLIFTER", cep_lifter, 0, 1000, "afet's lifter takes 0 to 1000"),
  B ("USEPOWER", use_power),
  R ("LOFREQ", lo_freq, -1e9, 96000, "it is in Hz, -1 for none"),
  R ("HIFREQ", hi_freq, -1e9, 96000, "it is in Hz, -1 for none"),
  R ("WARPFREQ", warp_freq, 0.1, 10, "it is a factor, 1.0 for none"),
  R ("WARPLCUTOFF", warp_lcutoff, 0, 96000, "it is in Hz"),
  R ("WARPUCUTOFF", warp_ucutoff, 0, 96000, "it is in Hz"),
  I ("LPCORDER", lpc_order, 1, 64, "afet's lpc-order takes 1 to 64"),
  R ("COMPRESSFACT", compress_fact, 0.01, 1, "afet's compression takes "
      "0.01 to 1"),
  B ("RAWENERGY", raw_energy),
  B ("ENORMALISE", enormalise),
  R ("ESCALE", escale, 0, 100, "afetcmvn's energy-scale takes 0 to 100"),
  R ("SILFLOOR", silfloor, 0, 1000, "afetcmvn's silence-floor takes 0 to "
      "1000 dB"),
  I ("DELTAWINDOW", delta_window, 1, 50, "afetdelta takes 1 to 50 frames"),
  I ("ACCWINDOW", acc_window, 1, 50, "afetdelta takes 1 to 50 frames"),
  I ("THIRDWINDOW", third_window, 1, 50, "afetdelta takes 1 to 50 frames"),
  B ("NATURALWRITEORDER", natural_write_order),
  ONLY ("CEPSCALE", 'r', "1", "afet does not rescale cepstra: leave "
      "CEPSCALE at HTK's 1.0"),
  ONLY ("ADDDITHER", 'r', "0", "afet adds no dither (HTK's is random: no "
      "two runs agree anyway): set ADDDITHER = 0"),
  ONLY ("SIMPLEDIFFS", 'b', "F", "afetdelta computes HTK's regression "
      "deltas only: set SIMPLEDIFFS = F"),
  ONLY ("DOUBLEFFT", 'b', "F", "afet's FFT is the next power of two at or "
      "above the window, HTK's default: set DOUBLEFFT = F"),
  ONLY ("V1COMPAT", 'b', "F", "HTK version 1 compatibility is not "
      "reproduced: set V1COMPAT = F"),
  ONLY ("SAVECOMPRESSED", 'b', "F", "compression (_C) is an HTK file option "
      "and afetenc writes the same numbers uncompressed: set SAVECOMPRESSED "
      "= F"),
  ONLY ("SAVEWITHCRC", 'b', "F", "the CRC (_K) is an HTK file option and "
      "afetenc writes none: set SAVEWITHCRC = F"),
  ONLY ("TARGETFORMAT", 's', "HTK", "afetenc writes HTK files (or NumPy, "
      "Kaldi, raw with its format property): set TARGETFORMAT = HTK"),
  ONLY ("SOURCEKIND", 's', "WAVEFORM|ANON", "afet computes features from "
      "audio: set SOURCEKIND = WAVEFORM (afetparse reads feature files)"),
  /* how HTK reads its input and what it reports: GStreamer decodes the
   * input, and none of these changes a number */
  ANY ("NATURALREADORDER", 'b'), ANY ("SOURCEFORMAT", 's'),
  ANY ("HEADERSIZE", 's'), ANY ("BYTEORDER", 's'), ANY ("NSAMPLES", 's'),
  ANY ("TRACE", 's'), ANY ("ABORTONERR", 's'), ANY ("NONUMESCAPES", 's'),
  ANY ("MAXTRYOPEN", 's'), ANY ("EXTENDFILENAMES", 's'),
  NO ("STEREOMODE", "afet reads mono audio (afet-extract mixes the "
      "channels): pick the channel before afet instead"),
  NO ("VQTABLE", "vector quantisation (_V, DISCRETE) is not supported"),
  NO ("MATTRANFN", "HTK's input transforms are not supported"),
  NO ("CMEANDIR", "stored cepstral means are not supported: afetcmvn "
      "normalises each file (_Z)"),
  NO ("VARSCALEDIR", "stored variances are not supported: afetcmvn "
      "mode=meanvar normalises each file"),
  NO ("USESILDET", "HTK's speech detector (live audio) is not supported"),
};

#undef B
#undef I
#undef R
#undef ONLY
#undef ANY
#undef NO

}  /* namespace */

}  /* namespace afet */
