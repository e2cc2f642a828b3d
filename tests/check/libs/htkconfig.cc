/* Tests of the HCopy configuration reader without GStreamer: reference
 * configs, HTK's defaults, the syntax, every refusal.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The HCopy configuration reader without GStreamer (afethtkconfig.h):
 * every reference config gives the chain golden.c runs for its kind;
 * HTK's defaults fill what a file leaves out; comments, module prefixes,
 * quotes and truth values read as HTK reads them; and every refusal names
 * the file, line, key and value it is about.
 *
 * Usage: test_htkconfig [CONFIG_DIR] (default tests/data/htk/configs).
 */
#include "afethtkconfig.h"
#include "enginecheck.h"

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <unistd.h>

#include "config.h"

using enginecheck::check;

static bool
has (const std::string &s, const std::string &part)
{
  return s.find (part) != std::string::npos;
}

static afet::Status
parse (const std::string &text, afet::HtkConfig *cfg)
{
  return afet::htk_config_parse (text, "t.cfg", cfg);
}

/* The chain of a config text, or "ERROR: message". */
static std::string
chain_of (const std::string &text)
{
  afet::HtkConfig cfg;
  afet::Status st = parse (text, &cfg);
  std::string chain;
  if (st.ok ())
    st = afet::htk_config_chain (cfg, &chain);
  return st.ok ()? chain : "ERROR: " + st.message ();
}

/* A config must be refused with a message holding every one of parts. */
static void
refused (const std::string &text, const std::vector<std::string> &parts,
    const std::string &what)
{
  std::string r = chain_of (text);
  bool ok = r.compare (0, 7, "ERROR: ") == 0;
  for (const auto &p : parts)
    ok = ok && has (r, p);
  check (ok, what + " -> " + r);
}

static const std::string base = "TARGETRATE = 100000.0\n";

/* ---- the reference configs --------------------------------------------- */

/* What each reference config must give: golden.c's chain for the kind,
 * with every property the numbers depend on spelled out. */
static std::string
expected_chain (const std::string &kind, int chans)
{
  const std::string framing = " preset=htk frame-length=20 frame-shift=10 "
      "window=hamming preemphasis=0.97 pad=false num-filters=" +
      std::to_string (chans) + " low-freq=0 high-freq=0 use-power=";
  const std::string mfcc = "afetmfcc" + framing + "false num-ceps=12 "
      "lifter=22 ";
  const std::string plp = "afetplp" + framing + "true filter-shape=htk-mel "
      "num-ceps=12 lpc-order=12 compression=0.33 lifter=22 c0=true "
      "energy=false";
  const std::string delta = " ! afetdelta order=2 delta-window=3 "
      "accel-window=3";
  const std::string zmean = " ! afetcmvn mode=mean scope=utterance "
      "columns=htk";
  if (kind == "MFCC_0")
    return mfcc + "c0=true energy=false";
  if (kind == "FBANK" || kind == "FBANK40")
    return "afetmfcc" + framing + "false num-ceps=0 energy=false";
  if (kind == "PLP_0")
    return plp;
  if (kind == "MFCC_E_D_A")
    return mfcc + "c0=false energy=true" + delta;
  if (kind == "MFCC_E_D_A_enorm")
    return mfcc + "c0=false energy=true ! afetcmvn mode=none "
        "scope=utterance energy-normalise=true energy-scale=0.1 "
        "silence-floor=50" + delta;
  if (kind == "MFCC_0_D_A_Z")
    return mfcc + "c0=true energy=false" + delta + zmean;
  if (kind == "PLP_0_D_A_Z")
    return plp + delta + zmean;
  return "?";
}

static void
test_reference_configs (const std::string &dir)
{
  std::vector<std::string> names;
  if (DIR *d = opendir (dir.c_str ())) {
    while (struct dirent *e = readdir (d)) {
      std::string n = e->d_name;
      if (n.size () > 4 && n.compare (n.size () - 4, 4, ".cfg") == 0)
        names.push_back (n);
    }
    closedir (d);
  }
  check (names.size () == 24, "24 reference configs in " + dir + " (" +
      std::to_string (names.size ()) + ")");
  for (const auto &n : names) {
    /* KIND_RATE.cfg */
    const size_t us = n.rfind ('_');
    const std::string kind = n.substr (0, us);
    const std::string rate = n.substr (us + 1, n.size () - us - 5);
    const int chans = kind == "FBANK40" ? 40 : rate == "8k" ? 15 :
        rate == "44k" ? 25 : 23;
    afet::HtkConfig cfg;
    afet::Status st = afet::htk_config_read (dir + "/" + n, &cfg);
    std::string chain;
    if (st.ok ())
      st = afet::htk_config_chain (cfg, &chain);
    const std::string want = expected_chain (kind, chans);
    check (st.ok () && chain == want, n + ": " + (st.ok ()? chain :
            st.message ()) + (chain == want ? "" : "\n  want: " + want));
    check (st.ok () && cfg.notes.empty (), n + ": nothing to note");
  }
}

/* ---- defaults and syntax ----------------------------------------------- */

static void
test_defaults ()
{
  /* HTK 3.4's own values where the file is silent, not afetmfcc's */
  check (chain_of ("TARGETKIND = MFCC\n" + base) == "afetmfcc preset=htk "
      "frame-length=25.6 frame-shift=10 window=hamming preemphasis=0.97 "
      "pad=false num-filters=20 low-freq=0 high-freq=0 use-power=false "
      "num-ceps=12 lifter=22 c0=false energy=false", "MFCC defaults");
  check (chain_of ("TARGETKIND = PLP\n" + base) == "afetplp preset=htk "
      "frame-length=25.6 frame-shift=10 window=hamming preemphasis=0.97 "
      "pad=false num-filters=20 low-freq=0 high-freq=0 use-power=false "
      "filter-shape=htk-mel num-ceps=12 lpc-order=12 compression=0.33 "
      "lifter=22 c0=false energy=false", "PLP defaults (USEPOWER F)");
  /* ENORMALISE T, ESCALE 0.1, SILFLOOR 50, windows 2 */
  std::string c = chain_of ("TARGETKIND = MFCC_E_D_A_T\n" + base);
  check (has (c, " energy=true ! afetcmvn mode=none scope=utterance "
          "energy-normalise=true energy-scale=0.1 silence-floor=50 ! "
          "afetdelta order=3 delta-window=2 accel-window=2"),
      "energy and dynamics defaults: " + c);
  afet::HtkConfig cfg;
  parse ("TARGETKIND = MFCC_0\n" + base, &cfg);
  check (cfg.notes.size () == 1 && has (cfg.notes[0], "SAVEWITHCRC"),
      "a missing SAVEWITHCRC (HTK: T, a CRC) is noted");
  check (cfg.window_size == 256000.0 && cfg.num_chans == 20 &&
      cfg.num_ceps == 12 && cfg.cep_lifter == 22 && cfg.preemph == 0.97 &&
      cfg.use_hamming && !cfg.use_power && cfg.enormalise &&
      cfg.raw_energy && cfg.escale == 0.1 && cfg.silfloor == 50.0 &&
      cfg.delta_window == 2 && cfg.acc_window == 2 && cfg.lpc_order == 12 &&
      cfg.compress_fact == 0.33 && cfg.lo_freq == -1.0 &&
      cfg.hi_freq == -1.0 && cfg.warp_freq == 1.0 && !cfg.zmean_source,
      "HtkConfig holds HTK's defaults");
}

static void
test_syntax ()
{
  const std::string text =
      "# a comment line\r\n"
      "\n"
      "   # an indented comment\n"
      "HPARM: TARGETKIND = \"MFCC_0\"   # a comment after a quoted value\n"
      "targetrate=100000.0\n"
      "hwave: SOURCEFORMAT = 'WAV'\n"
      "HCOPY:WINDOWSIZE = 250000\r\n"
      "USEHAMMING = false\n"
      "PREEMCOEF = +0.9\n"
      "HPARM: NUMCHANS = 24\n"
      "NUMCHANS = 30\n"             /* HPARM:'s own value wins */
      "NUMCEPS = 13\n"
      "NUMCEPS = 14\n"              /* the later line wins */
      "HVITE: NUMCHANS = 99\n"      /* another tool's: ignored */
      "HVITE: NOSUCHKEY = 1\n"
      "USEPOWER = TRUE\n"
      "LOFREQ = 300\n"
      "HIFREQ = 3400.5\n"
      "ENORMALISE = F\n"
      "SAVECOMPRESSED = F\n"
      "SAVEWITHCRC = FALSE\n"
      "NATURALREADORDER = T\n"
      "TRACE = 0x1f\n";
  afet::HtkConfig cfg;
  afet::Status st = parse (text, &cfg);
  std::string chain;
  if (st.ok ())
    st = afet::htk_config_chain (cfg, &chain);
  check (st.ok () && chain == "afetmfcc preset=htk frame-length=25 "
      "frame-shift=10 window=rectangular preemphasis=0.9 pad=false "
      "num-filters=24 low-freq=300 high-freq=3400.5 use-power=true "
      "num-ceps=14 lifter=22 c0=true energy=false", "comments, prefixes, "
      "quotes, truth values, precedence: " + (st.ok ()? chain :
          st.message ()));
  check (cfg.notes.size () == 2 && has (cfg.notes[0], "t.cfg:14") &&
      has (cfg.notes[0], "HVITE"), "another module's lines are noted as "
      "ignored");
  check (cfg.lines["NUMCEPS"] == 13 && cfg.lines["NUMCHANS"] == 10,
      "lines record where each value came from");
  /* a comma locale changes nothing: values are read and written in C */
  if (std::setlocale (LC_ALL, "de_DE.UTF-8") ||
      std::setlocale (LC_ALL, "fr_FR.UTF-8")) {
    check (has (chain_of ("TARGETKIND = MFCC_0\nPREEMCOEF = 0.95\n" + base),
            "preemphasis=0.95"), "a decimal-comma locale is ignored");
    std::setlocale (LC_ALL, "C");
  } else {
    enginecheck::skip ("no decimal-comma locale installed");
  }
  /* the optional steps */
  std::string c = chain_of ("TARGETKIND = MFCC_0\nZMEANSOURCE = T\n" + base);
  check (has (c, "pad=false remove-dc=true num-filters"), "ZMEANSOURCE = T "
      "is remove-dc=true: " + c);
  c = chain_of ("TARGETKIND = FBANK_E_Z\nWARPFREQ = 1.1\nWARPLCUTOFF = 300\n"
      "WARPUCUTOFF = 3000\n" + base);
  check (has (c, "use-power=false warp-factor=1.1 warp-low=300 "
          "warp-high=3000 num-ceps=0 energy=true ! afetcmvn mode=none "
          "scope=utterance energy-normalise=true") &&
      has (c, " ! afetcmvn mode=mean scope=utterance columns=htk") &&
      !has (c, "afetdelta"), "warping; _Z without _D: " + c);
  check (!has (chain_of ("TARGETKIND = MFCC_0\nWARPFREQ = 1.0\n" + base),
          "warp"), "WARPFREQ = 1 emits nothing");
  c = chain_of ("TARGETKIND = PLP_E_D\nENORMALISE = F\nDELTAWINDOW = 4\n"
      + base);
  check (has (c, "energy=true ! afetdelta order=1 delta-window=4"),
      "_D alone; ENORMALISE = F: " + c);
  c = chain_of ("TARGETKIND = MFCC_E_D_A_T\nTHIRDWINDOW = 3\n"
      "ACCWINDOW = 3\n" + base);
  check (has (c, "order=3 delta-window=2 accel-window=3"), "_T with "
      "THIRDWINDOW = ACCWINDOW: " + c);
}

/* ---- refusals ---------------------------------------------------------- */

static void
test_refusals ()
{
  const std::string k = "TARGETKIND = MFCC_0\n" + base;
  /* a NUL byte: its place, and the whole message (it once ended there) */
  refused (k + "NUM" + std::string (1, '\0') + "CHANS = 23\n", {"t.cfg:3",
          "NUL byte at line 3, byte 4", "not a text file?"},
      "a NUL byte");
  refused (std::string (1, '\0') + k, {"NUL byte at line 1, byte 1",
          "not a text file?"}, "a NUL byte first");
  {
    afet::HtkConfig cfg;
    const std::string m = parse (k + "X = " + std::string (1, '\0'),
        &cfg).message ();
    check (m.find ('\0') == std::string::npos && has (m, "line 3, byte 5"),
        "a NUL byte is not in the message: " + m);
  }
  refused (k + "FOO = 1\n", {"t.cfg:3", "unknown key FOO", "FOO = 1"},
      "unknown key");
  refused (k + "HPARM: NUMCHNS = 20\n", {"t.cfg:3", "NUMCHNS"},
      "unknown key with a module");
  refused (k + "NUMCHANS = abc\n", {"t.cfg:3", "NUMCHANS = abc",
          "whole number"}, "not a number");
  refused (k + "NUMCHANS = 23.5\n", {"NUMCHANS = 23.5", "whole number"},
      "not a whole number");
  refused (k + "NUMCHANS = 300\n", {"NUMCHANS = 300", "1 to 256"},
      "out of range");
  refused (k + "USEPOWER = yes\n", {"USEPOWER = yes", "T or F"},
      "not a truth value");
  refused (k + "PREEMCOEF = 1.5\n", {"PREEMCOEF = 1.5", "0 (none) to 1"},
      "pre-emphasis out of range");
  refused (k + "WINDOWSIZE = 20\n", {"WINDOWSIZE = 20", "100 ns"},
      "a window in the wrong unit");
  refused ("TARGETKIND = MFCC_E_N_D\n" + base, {"t.cfg:1", "TARGETKIND = "
          "MFCC_E_N_D", "_N"}, "_N");
  refused ("TARGETKIND = MFCC_0_C\n" + base, {"_C", "file option",
          "afetenc"}, "_C");
  refused ("TARGETKIND = MFCC_0_K\n" + base, {"_K", "file option"}, "_K");
  refused ("TARGETKIND = MFCC_V\n" + base, {"_V"}, "_V");
  refused ("TARGETKIND = MFCC_Q\n" + base, {"unknown qualifier _Q"}, "_Q");
  refused ("TARGETKIND = MFCC_0_A\n" + base, {"_A needs _D"}, "_A alone");
  refused ("TARGETKIND = MFCC_D_T\n" + base, {"_T needs _D_A"}, "_T alone");
  refused ("TARGETKIND = FBANK_0\n" + base, {"_0", "FBANK"}, "FBANK_0");
  refused ("TARGETKIND = MELSPEC\n" + base, {"TARGETKIND = MELSPEC",
          "MELSPEC", "FBANK"}, "MELSPEC");
  refused ("TARGETKIND = LPCEPSTRA\n" + base, {"LPCEPSTRA", "afetplp"},
      "LPC kinds");
  refused ("TARGETKIND = USER\n" + base, {"USER"}, "USER");
  refused ("TARGETKIND = WAVEFORM\n" + base, {"WAVEFORM"}, "WAVEFORM");
  refused ("TARGETKIND = MFCCX\n" + base, {"unknown parameter kind MFCCX"},
      "unknown kind");
  refused (base, {"TARGETKIND is not set", "ANON"}, "no TARGETKIND");
  refused ("TARGETKIND = MFCC_0\n", {"TARGETRATE is not set",
          "100000.0"}, "no TARGETRATE (HTK's 0.0)");
  refused (k + "SAVECOMPRESSED = T\n", {"t.cfg:3", "SAVECOMPRESSED = T",
          "SAVECOMPRESSED = F"}, "SAVECOMPRESSED = T");
  refused (k + "SAVEWITHCRC = T\n", {"SAVEWITHCRC = T", "CRC"},
      "SAVEWITHCRC = T");
  refused ("TARGETKIND = MFCC_E\nRAWENERGY = F\n" + base, {"t.cfg:2",
          "RAWENERGY = F", "RAWENERGY = T"}, "RAWENERGY = F with _E");
  check (!has (chain_of ("TARGETKIND = MFCC_0\nRAWENERGY = F\n" + base),
          "ERROR"), "RAWENERGY = F without _E changes nothing");
  refused (k + "CEPSCALE = 10\n", {"CEPSCALE = 10"}, "CEPSCALE");
  refused (k + "ADDDITHER = 1.0\n", {"ADDDITHER = 1.0", "dither"},
      "ADDDITHER");
  refused (k + "SIMPLEDIFFS = T\n", {"SIMPLEDIFFS = T"}, "SIMPLEDIFFS");
  refused (k + "DOUBLEFFT = T\n", {"DOUBLEFFT = T"}, "DOUBLEFFT");
  refused (k + "TARGETFORMAT = ESIG\n", {"TARGETFORMAT = ESIG", "HTK"},
      "TARGETFORMAT");
  refused (k + "SOURCEKIND = MFCC\n", {"SOURCEKIND = MFCC", "WAVEFORM"},
      "SOURCEKIND");
  refused (k + "STEREOMODE = LEFT\n", {"STEREOMODE = LEFT", "mono"},
      "STEREOMODE");
  refused (k + "VQTABLE = vq.tab\n", {"VQTABLE"}, "VQTABLE");
  refused ("TARGETKIND = MFCC_D_A_T\nACCWINDOW = 3\n" + base, {"THIRDWINDOW",
          "ACCWINDOW = 3"}, "_T with THIRDWINDOW (2) != ACCWINDOW");
  refused (k + "WARPFREQ = 1.1\n", {"WARPFREQ = 1.1", "WARPLCUTOFF"},
      "warping without its cut-offs");
  refused (k + "NUMCHANS = 10\nNUMCEPS = 12\n", {"NUMCEPS = 12",
          "NUMCHANS = 10"}, "more cepstra than channels");
  refused ("TARGETKIND = PLP_0\nNUMCHANS = 4\nLPCORDER = 12\n" + base,
      {"LPCORDER = 12", "2 x NUMCHANS + 1 = 9"}, "PLP order");
  refused (k + "LOFREQ = 4000\nHIFREQ = 3000\n", {"LOFREQ = 4000",
          "HIFREQ = 3000"}, "LOFREQ above HIFREQ");
  refused (k + "#include \"other.cfg\"\n", {"t.cfg:3", "#include"},
      "#include");
  refused (k + "NUMCHANS 23\n", {"t.cfg:3", "KEY = VALUE"}, "no '='");
  refused (k + "NUMCHANS = \n", {"t.cfg:3", "no value"}, "no value");
  refused (k + "SOURCEFORMAT = \"WAV\n", {"t.cfg:3", "quote"},
      "unterminated quote");
  refused (k + "NUM CHANS = 2\n", {"t.cfg:3", "not a key name"},
      "a space in a key");
}

/* ---- the element API and SOURCERATE ------------------------------------ */

static std::string
props_text (const afet::HtkProperties &p)
{
  std::string s;
  for (const auto &x : p)
    s += (s.empty ()? "" : " ") + x.first + "=" + x.second;
  return s;
}

static void
test_roles ()
{
  char path[] = "/tmp/afet-htkconfig-XXXXXX";
  int fd = mkstemp (path);
  check (fd >= 0, "temporary config");
  close (fd);
  std::ofstream (path) << "TARGETKIND = MFCC_0_D\nTARGETRATE = 100000.0\n"
      "WINDOWSIZE = 200000.0\nNUMCHANS = 23\nSAVEWITHCRC = F\n";
  afet::HtkProperties p;
  afet::Status st = afet::htk_config_element_properties (path, "afetmfcc",
      afet::HtkRole::ANALYSIS, &p);
  check (st.ok () && props_text (p) == "preset=htk frame-length=20 "
      "frame-shift=10 window=hamming preemphasis=0.97 pad=false "
      "num-filters=23 low-freq=0 high-freq=0 use-power=false num-ceps=12 "
      "lifter=22 c0=true energy=false", "afetmfcc's properties: " +
      props_text (p) + st.message ());
  st = afet::htk_config_element_properties (path, "afetplp",
      afet::HtkRole::ANALYSIS, &p);
  check (!st.ok () && has (st.message (), ":1: TARGETKIND = MFCC_0_D") &&
      has (st.message (), "afetmfcc, not by afetplp"), "afetplp given an MFCC config: "
      + st.message ());
  st = afet::htk_config_element_properties (path, "afetframer",
      afet::HtkRole::FRAMER, &p);
  check (st.ok () && props_text (p) == "frame-length=20 frame-shift=10 "
      "window=hamming preemphasis=0.97 pad=false energy=false",
      "afetframer's properties: " + props_text (p));
  st = afet::htk_config_element_properties (path, "afetdelta",
      afet::HtkRole::DELTA, &p);
  check (st.ok () && props_text (p) == "order=1 delta-window=2",
      "afetdelta's properties: " + props_text (p));
  st = afet::htk_config_element_properties (path, "afetcmvn",
      afet::HtkRole::MEAN_NORM, &p);
  check (st.ok () && props_text (p) == "mode=none energy-normalise=false",
      "afetcmvn without _Z passes through: " + props_text (p));
  std::ofstream (path) << "TARGETKIND = MFCC_0\nTARGETRATE = 100000.0\n";
  st = afet::htk_config_element_properties (path, "afetdelta",
      afet::HtkRole::DELTA, &p);
  check (!st.ok () && has (st.message (), ":1: TARGETKIND = MFCC_0: no _D") &&
      has (st.message (), "remove afetdelta"), "afetdelta without _D: " +
      st.message ());
  unlink (path);
  st = afet::htk_config_element_properties (path, "afetmfcc",
      afet::HtkRole::ANALYSIS, &p);
  check (!st.ok () && has (st.message (), path), "a missing file is named: "
      + st.message ());

  afet::HtkConfig cfg;
  parse ("TARGETKIND = MFCC_0\nSOURCERATE = 625\n" + base, &cfg);
  check (afet::htk_config_check_rate (cfg, 16000).ok (), "SOURCERATE 625 "
      "is 16 kHz");
  st = afet::htk_config_check_rate (cfg, 8000);
  check (!st.ok () && has (st.message (), "t.cfg:2: SOURCERATE = 625") &&
      has (st.message (), "16000 Hz") && has (st.message (), "8000 Hz") &&
      has (st.message (), "--rate 16000"), "SOURCERATE against 8 kHz: " +
      st.message ());
  for (const char *sr : { "226.757", "227" }) {
    parse ("TARGETKIND = MFCC_0\nSOURCERATE = " + std::string (sr) + "\n" +
        base, &cfg);
    check (afet::htk_config_check_rate (cfg, 44100).ok () &&
        !afet::htk_config_check_rate (cfg, 48000).ok (),
        std::string ("SOURCERATE ") + sr + " is 44.1 kHz, not 48");
  }
  parse ("TARGETKIND = MFCC_0\n" + base, &cfg);
  check (afet::htk_config_check_rate (cfg, 8000).ok (), "no SOURCERATE: "
      "any rate");
}

int
main (int argc, char **argv)
{
  const char *data = std::getenv ("AFET_TESTDATA");
  const std::string dir = argc > 1 ? argv[1] :
      (data && *data ? std::string (data) : std::string (AFET_SOURCE_DIR) +
      "/tests/data") + "/htk/configs";
  test_reference_configs (dir);
  test_defaults ();
  test_syntax ();
  test_refusals ();
  test_roles ();
  return enginecheck::finish ();
}
