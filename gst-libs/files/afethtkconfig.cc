/* The reader of HCopy configuration files: settings to afet's chain and
 * its elements' properties (afethtkconfig.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * HCopy configuration files (afethtkconfig.h says what for).  Written from
 * the HTK Book's description of configuration files and of HParm's
 * variables, and checked against HCopy's output; no HTK code is used.
 */
#include "afethtkconfig.h"
#include "afethtkkeys.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <sstream>

namespace afet {

namespace {

/* ---- text -------------------------------------------------------------- */

Status
bad (const std::string &message)
{
  return Status (Status::BAD_CONFIG, message);
}

std::string
trim (const std::string &s)
{
  const size_t a = s.find_first_not_of (" \t\r\n\f\v");
  return a == std::string::npos ? "" :
      s.substr (a, s.find_last_not_of (" \t\r\n\f\v") - a + 1);
}

std::string
upper (std::string s)
{
  for (char &c : s)
    c = (c >= 'a' && c <= 'z') ? (char) (c - 'a' + 'A') : c;
  return s;
}

bool
is_name (const std::string &s)
{
  return !s.empty () && s.find_first_not_of ("ABCDEFGHIJKLMNOPQRSTUVWXYZ"
      "0123456789_") == std::string::npos;
}

/* The shortest text that reads back as v, whatever the locale says
 * (to_chars and from_chars never use a decimal comma, as gst_parse_launch
 * does not). */
std::string
number (double v)
{
  char buf[64];
  return std::string (buf, std::to_chars (buf, buf + sizeof buf, v).ptr);
}

template <typename T>
bool
parse_number (std::string s, T *out)
{
  if (!s.empty () && s[0] == '+')
    s.erase (0, 1);
  const char *end = s.data () + s.size ();
  auto r = std::from_chars (s.data (), end, *out);
  return !s.empty () && r.ec == std::errc () && r.ptr == end &&
      std::isfinite ((double) *out);
}

bool
parse_bool (const std::string &s, bool *out)
{
  const std::string u = upper (s);
  *out = u == "T" || u == "TRUE";
  return *out || u == "F" || u == "FALSE";
}

const char *
truth (bool b)
{
  return b ? "true" : "false";
}

/* "file:12: KEY = value", or, for a key the file leaves out, the default
 * HTK used, so that a message always says what was read. */
std::string
setting (const HtkConfig &c, const char *key, const std::string &value)
{
  auto it = c.lines.find (key);
  if (it == c.lines.end ())
    return c.origin + ": " + key + " is not set (HTK's default " + value +
        ")";
  return c.origin + ":" + std::to_string (it->second) + ": " + key + " = " +
      value;
}

Status
refuse (const HtkConfig &c, const char *key, const std::string &value,
    const std::string &why)
{
  return bad (setting (c, key, value) + ": " + why);
}

/* A value as the file gives it. */
struct Entry
{
  std::string key, value;
  int line = 0;
  bool module = false;          /* set with HPARM:, HWAVE: or HCOPY: */
};

/* Sets one key; its type decides how the value reads. */
Status
assign (HtkConfig *c, const Key &k, const Entry &e)
{
  const std::string at = c->origin + ":" + std::to_string (e.line) + ": " +
      e.key + " = " + e.value + ": ";
  const std::string range = std::string ("out of range: ") +
      (k.fix ? k.fix : "");
  bool b = false;
  int i = 0;
  double r = 0, want = 0;
  switch (k.type) {
    case 'x':
      return bad (at + k.fix);
    case 'b':
      if (!parse_bool (e.value, &b))
        return bad (at + "not a truth value: write T or F");
      if (k.only && b != (k.only[0] == 'T'))
        return bad (at + k.fix);
      if (k.b)
        c->*k.b = b;
      break;
    case 'i':
      if (!parse_number (e.value, &i))
        return bad (at + "not a whole number (for example " + e.key + " = " +
            std::to_string (c->*k.i) + ")");
      if (i < k.lo || i > k.hi)
        return bad (at + range);
      c->*k.i = i;
      break;
    case 'r':
      if (!parse_number (e.value, &r))
        return bad (at + "not a number");
      if (k.only && !(parse_number (std::string (k.only), &want) &&
              r == want))
        return bad (at + k.fix);
      if (k.r && (r < k.lo || r > k.hi))
        return bad (at + range);
      if (k.r)
        c->*k.r = r;
      break;
    case 's':
      if (k.only && (std::string ("|") + k.only + "|").find ("|" +
              upper (e.value) + "|") == std::string::npos)
        return bad (at + k.fix);
      if (e.key == "TARGETKIND")
        c->target_kind = upper (e.value);
      break;
  }
  return Status::Ok ();
}

/* TARGETKIND: the base kind, then one-letter qualifiers in any order. */
Status
parse_kind (HtkConfig *c)
{
  const std::string &kind = c->target_kind;
  auto no = [&](const std::string &why) {
    return refuse (*c, "TARGETKIND", kind.empty ()? "ANON" : kind, why);
  };
  const size_t us = kind.find ('_');
  const std::string base = kind.substr (0, us);
  if (base.empty () || base == "ANON")
    return no ("HTK's ANON keeps the source's kind (a waveform); set the "
        "features to compute, e.g. TARGETKIND = MFCC_0");
  if (base == "MFCC" || base == "FBANK" || base == "PLP")
    c->base = base == "PLP" ? HtkBase::PLP : base == "FBANK" ?
        HtkBase::FBANK : HtkBase::MFCC;
  else if (base == "MELSPEC")
    return no ("MELSPEC (the mel filter bank without the log) is not "
        "supported: afetmfcc gives the log filter bank, FBANK");
  else if (base == "LPC" || base == "LPREFC" || base == "LPCEPSTRA" ||
      base == "LPDELCEP" || base == "IREFC")
    return no (base + " is not supported: afet computes linear prediction "
        "only inside afetplp, which outputs PLP cepstra (TARGETKIND = PLP)");
  else if (base == "USER" || base == "DISCRETE" || base == "WAVEFORM")
    return no (base + " is not a kind afet computes from audio: afet "
        "computes MFCC, FBANK and PLP");
  else
    return no ("unknown parameter kind " + base + ": afet computes MFCC, "
        "FBANK and PLP");

  bool d = false, a = false, t = false;
  for (size_t p = us; p != std::string::npos; p = kind.find ('_', p + 1)) {
    const std::string q = kind.substr (p + 1, kind.find ('_', p + 1) - p - 1);
    const char letter = q.size () == 1 ? q[0] : '?';
    switch (letter) {
      case 'E': c->energy = true; break;
      case '0': c->c0 = true; break;
      case 'D': d = true; break;
      case 'A': a = true; break;
      case 'T': t = true; break;
      case 'Z': c->zero_mean = true; break;
      case 'N':
        return no ("_N (the static energy dropped, its dynamics kept) is not "
            "supported: afet cannot remove the E column; use _E");
      case 'C':
      case 'K':
        return no ("_" + q + " is a file option, not part of the features: "
            "afetenc writes the file (uncompressed, without CRC); remove _" +
            q);
      case 'V':
        return no ("_V (vector quantisation) is not supported");
      default:
        return no ("unknown qualifier _" + q + ": HTK's are _E _N _D _A _T "
            "_Z _0 _C _K _V");
    }
  }
  if (a && !d)
    return no ("_A needs _D (HTK computes accelerations from the deltas)");
  if (t && !a)
    return no ("_T needs _D_A (third differences come from the "
        "accelerations)");
  c->delta_order = t ? 3 : a ? 2 : d ? 1 : 0;
  if (c->c0 && c->base == HtkBase::FBANK)
    return no ("_0 (c0) belongs to cepstra: FBANK has none; use MFCC_0 or "
        "drop _0");
  return Status::Ok ();
}

/* What can only be judged with the whole file read. */
Status
check_whole (HtkConfig *c)
{
  AFET_RETURN_IF_ERROR (parse_kind (c));
  const std::string ceps = std::to_string (c->num_ceps);
  if (c->target_rate <= 0)
    return refuse (*c, "TARGETRATE", "0.0", "HCopy needs the frame period: "
        "set it in 100 ns units, e.g. TARGETRATE = 100000.0 for 10 ms");
  if (c->energy && !c->raw_energy)
    return refuse (*c, "RAWENERGY", "F", "afet's energy (_E) is taken from "
        "the raw frame, before pre-emphasis and window; set RAWENERGY = T");
  if (c->delta_order == 3 && c->third_window != c->acc_window)
    return refuse (*c, "THIRDWINDOW", std::to_string (c->third_window),
        "afetdelta computes third differences (_T) over accel-window, here "
        "ACCWINDOW = " + std::to_string (c->acc_window) + ": make the two "
        "equal");
  if (c->warp_freq != 1.0 && (!c->lines.count ("WARPLCUTOFF") ||
          !c->lines.count ("WARPUCUTOFF")))
    return refuse (*c, "WARPFREQ", number (c->warp_freq), "warping needs "
        "both cut-offs of the piecewise-linear warp: set WARPLCUTOFF and "
        "WARPUCUTOFF (Hz)");
  if (c->base == HtkBase::MFCC && c->num_ceps > c->num_chans)
    return refuse (*c, "NUMCEPS", ceps, "MFCC cannot have more cepstra than "
        "filter-bank channels (NUMCHANS = " + std::to_string (c->num_chans) +
        ")");
  if (c->base == HtkBase::PLP && c->num_ceps > 64)
    return refuse (*c, "NUMCEPS", ceps, "afetplp's num-ceps takes 1 to 64");
  if (c->base == HtkBase::PLP && c->lpc_order > 2 * c->num_chans + 1)
    return refuse (*c, "LPCORDER", std::to_string (c->lpc_order), "the "
        "order can be at most 2 x NUMCHANS + 1 = " +
        std::to_string (2 * c->num_chans + 1));
  if (c->lo_freq > 0 && c->hi_freq > 0 && c->lo_freq >= c->hi_freq)
    return refuse (*c, "LOFREQ", number (c->lo_freq), "it must be below "
        "HIFREQ = " + number (c->hi_freq));
  if (!c->lines.count ("SAVEWITHCRC"))
    c->notes.push_back ("SAVEWITHCRC is not set: HCopy would append a CRC "
        "(_K, HTK's default T); afetenc writes the same numbers without "
        "one, as SAVEWITHCRC = F does");
  if (c->natural_write_order)
    c->notes.push_back ("NATURALWRITEORDER = T: HCopy writes in the "
        "machine's byte order; afetenc writes HTK's standard big-endian "
        "files");
  return Status::Ok ();
}

/* ---- properties -------------------------------------------------------- */

void
add (HtkProperties *p, std::initializer_list<HtkProperty> more)
{
  p->insert (p->end (), more);
}

/* The framing of every element that cuts frames. */
void
framing (const HtkConfig &c, HtkProperties *p)
{
  add (p, {{"frame-length", number (c.window_size / 1e4)},
      {"frame-shift", number (c.target_rate / 1e4)},
      {"window", c.use_hamming ? "hamming" : "rectangular"},
      {"preemphasis", number (c.preemph)},
      {"pad", "false"}});       /* HTK drops the incomplete last frame */
  if (c.zmean_source)
    add (p, {{"remove-dc", "true"}});   /* per frame, as HTK's */
}

void
analysis (const HtkConfig &c, HtkProperties *p)
{
  add (p, {{"preset", "htk"}});
  framing (c, p);
  /* HTK's negative cut-offs mean none, as afet's 0 does (a negative
   * high-freq counts down from the Nyquist frequency in afet) */
  add (p, {{"num-filters", std::to_string (c.num_chans)},
      {"low-freq", number (std::max (c.lo_freq, 0.0))},
      {"high-freq", number (std::max (c.hi_freq, 0.0))},
      {"use-power", truth (c.use_power)}});
  if (c.warp_freq != 1.0)
    add (p, {{"warp-factor", number (c.warp_freq)},
        {"warp-low", number (c.warp_lcutoff)},
        {"warp-high", number (c.warp_ucutoff)}});
  if (c.base == HtkBase::FBANK)
    add (p, {{"num-ceps", "0"}});
  if (c.base == HtkBase::PLP)
    add (p, {{"filter-shape", "htk-mel"},
        {"num-ceps", std::to_string (c.num_ceps)},
        {"lpc-order", std::to_string (c.lpc_order)},
        {"compression", number (c.compress_fact)}});
  if (c.base == HtkBase::MFCC)
    add (p, {{"num-ceps", std::to_string (c.num_ceps)}});
  if (c.base != HtkBase::FBANK)
    add (p, {{"lifter", std::to_string (c.cep_lifter)},
        {"c0", truth (c.c0)}});
  add (p, {{"energy", truth (c.energy)}});
}

}  /* namespace */

Status
htk_config_parse (const std::string &text, const std::string &origin,
    HtkConfig *out)
{
  HtkConfig c;
  c.origin = origin;
  /* a NUL would end every message that quotes the line at the NUL, and no
   * text file holds one: refused first, with where it is */
  const size_t nul = text.find ('\0');
  if (nul != std::string::npos) {
    const size_t eol = nul == 0 ? std::string::npos : text.rfind ('\n',
        nul - 1);
    const size_t from = eol == std::string::npos ? 0 : eol + 1;
    const long n = 1 + std::count (text.begin (), text.begin () + nul, '\n');
    return bad (origin + ":" + std::to_string (n) + ": the HTK config holds "
        "a NUL byte at line " + std::to_string (n) + ", byte " +
        std::to_string (nul - from + 1) + " (byte " + std::to_string (nul) +
        " of the file, from 0): not a text file? An HCopy config is text, "
        "KEY = VALUE lines");
  }
  std::vector<Entry> entries;
  std::istringstream in (text);
  std::string line;
  for (int n = 1; std::getline (in, line); n++) {
    const std::string at = origin + ":" + std::to_string (n) + ": ";
    line = trim (line);
    if (line.compare (0, 8, "#include") == 0)
      return bad (at + "#include is not supported: copy the included "
          "file's lines into this one");
    /* a '#' outside quotes starts a comment */
    char quote = 0;
    for (size_t i = 0; i < line.size (); i++) {
      if (quote ? line[i] == quote : line[i] == '"' || line[i] == '\'')
        quote = quote ? 0 : line[i];
      else if (!quote && line[i] == '#')
        line.resize (i);
    }
    line = trim (line);
    if (line.empty ())
      continue;
    const size_t eq = line.find ('=');
    if (eq == std::string::npos)
      return bad (at + "'" + line + "' is not KEY = VALUE (or MODULE: KEY = "
          "VALUE)");
    Entry e;
    e.line = n;
    const std::string lhs = trim (line.substr (0, eq));
    const size_t colon = lhs.find (':');
    const std::string module = colon == std::string::npos ? "" :
        upper (trim (lhs.substr (0, colon)));
    e.key = upper (trim (lhs.substr (colon + 1)));      /* npos + 1 == 0 */
    if (!is_name (e.key) || (colon != std::string::npos &&
            !is_name (module)))
      return bad (at + "'" + lhs + "' is not a key name (letters, digits "
          "and _, with an optional MODULE: before it)");
    e.value = trim (line.substr (eq + 1));
    if (!e.value.empty () && (e.value[0] == '"' || e.value[0] == '\'')) {
      if (e.value.size () < 2 || e.value.back () != e.value[0])
        return bad (at + e.key + " = " + e.value + ": the quoted value must "
            "end with its quote");
      e.value = e.value.substr (1, e.value.size () - 2);
    }
    if (e.value.empty ())
      return bad (at + e.key + " has no value");
    /* HCopy's coding reads unprefixed settings and its own modules'; a
     * line for another tool (HVITE: ...) in a shared file is not its */
    if (!module.empty () && module != "HPARM" && module != "HWAVE" &&
        module != "HCOPY") {
      c.notes.push_back (at + module + ": " + e.key + " is for " + module +
          ", not for HCopy's coding: ignored");
      continue;
    }
    e.module = !module.empty ();
    /* a module's own setting overrides the global one wherever it stands;
     * otherwise the later line wins */
    auto same = std::find_if (entries.begin (), entries.end (),
        [&](const Entry &x) { return x.key == e.key; });
    if (same == entries.end ())
      entries.push_back (e);
    else if (e.module || !same->module)
      *same = e;
  }
  std::sort (entries.begin (), entries.end (),
      [](const Entry &a, const Entry &b) { return a.line < b.line; });
  for (const Entry &e : entries) {
    auto k = std::find_if (std::begin (keys), std::end (keys),
        [&](const Key &x) { return e.key == x.name; });
    if (k == std::end (keys))
      return bad (origin + ":" + std::to_string (e.line) + ": unknown key " +
          e.key + " (" + e.key + " = " + e.value + "): not an HCopy setting "
          "that afet knows; check its spelling or remove the line");
    AFET_RETURN_IF_ERROR (assign (&c, *k, e));
    c.lines[e.key] = e.line;
  }
  AFET_RETURN_IF_ERROR (check_whole (&c));
  *out = std::move (c);
  return Status::Ok ();
}

Status
htk_config_read (const std::string &path, HtkConfig *out)
{
  std::ifstream f (path, std::ios::binary);
  if (!f)
    return bad ("cannot read the HTK config " + path + ": " +
        std::strerror (errno));
  std::ostringstream s;
  s << f.rdbuf ();
  return htk_config_parse (s.str (), path, out);
}

const char *
htk_config_element (const HtkConfig &cfg, HtkRole role)
{
  switch (role) {
    case HtkRole::FRAMER:
      return "afetframer";
    case HtkRole::ANALYSIS:
      return cfg.base == HtkBase::PLP ? "afetplp" : "afetmfcc";
    case HtkRole::ENERGY_NORM:
      return cfg.energy && cfg.enormalise ? "afetcmvn" : nullptr;
    case HtkRole::DELTA:
      return cfg.delta_order ? "afetdelta" : nullptr;
    case HtkRole::MEAN_NORM:
      return cfg.zero_mean ? "afetcmvn" : nullptr;
  }
  return nullptr;
}

Status
htk_config_properties (const HtkConfig &c, HtkRole role, HtkProperties *out)
{
  out->clear ();
  const bool used = htk_config_element (c, role) != nullptr;
  if ((role == HtkRole::ENERGY_NORM || role == HtkRole::MEAN_NORM) &&
      !used) {
    /* afetcmvn doing nothing: its place in a pipeline is unused */
    add (out, {{"mode", "none"}, {"energy-normalise", "false"}});
    return Status::Ok ();
  }
  switch (role) {
    case HtkRole::FRAMER:
      framing (c, out);
      add (out, {{"energy", truth (c.energy)}});
      break;
    case HtkRole::ANALYSIS:
      analysis (c, out);
      break;
    case HtkRole::ENERGY_NORM:
      /* HTK normalises E over the file, before the dynamics */
      add (out, {{"mode", "none"}, {"scope", "utterance"},
          {"energy-normalise", "true"}, {"energy-scale", number (c.escale)},
          {"silence-floor", number (c.silfloor)}});
      break;
    case HtkRole::DELTA:
      if (!used)
        return refuse (c, "TARGETKIND", c.target_kind, "no _D: remove "
            "afetdelta from the pipeline, or add _D (_D_A, _D_A_T) to "
            "TARGETKIND");
      add (out, {{"order", std::to_string (c.delta_order)},
          {"delta-window", std::to_string (c.delta_window)}});
      if (c.delta_order >= 2)
        add (out, {{"accel-window", std::to_string (c.acc_window)}});
      break;
    case HtkRole::MEAN_NORM:
      /* _Z: the statics' mean over the file, E excepted, after the
       * dynamics (which it does not change) */
      add (out, {{"mode", "mean"}, {"scope", "utterance"},
          {"columns", "htk"}});
      break;
  }
  return Status::Ok ();
}

Status
htk_config_chain (const HtkConfig &cfg, std::string *launch)
{
  std::string text;
  for (HtkRole role : { HtkRole::ANALYSIS, HtkRole::ENERGY_NORM,
          HtkRole::DELTA, HtkRole::MEAN_NORM }) {
    const char *element = htk_config_element (cfg, role);
    if (!element)
      continue;
    HtkProperties props;
    AFET_RETURN_IF_ERROR (htk_config_properties (cfg, role, &props));
    text += (text.empty ()? "" : " ! ") + std::string (element);
    for (const auto &p : props)
      text += " " + p.first + "=" + p.second;
  }
  *launch = text;
  return Status::Ok ();
}

Status
htk_config_check_rate (const HtkConfig &cfg, int rate)
{
  /* within one 100 ns unit: 226.757 and 227 both say 44.1 kHz */
  if (cfg.source_rate <= 0 || (rate > 0 &&
          std::fabs (cfg.source_rate - 1e7 / rate) < 1.0))
    return Status::Ok ();
  const std::string hz = std::to_string (std::lround (1e7 /
          cfg.source_rate));
  const std::string in = std::to_string (rate);
  return refuse (cfg, "SOURCERATE", number (cfg.source_rate), "that is " +
      hz + " Hz, but the input is " + in + " Hz, and HCopy does not "
      "resample: resample the input to " + hz + " Hz (afet-extract --rate " +
      hz + "), or set SOURCERATE = " + number (1e7 / rate) + " for " + in +
      " Hz");
}

Status
htk_config_element_properties (const std::string &path, const char *element,
    HtkRole role, HtkProperties *out)
{
  HtkConfig cfg;
  AFET_RETURN_IF_ERROR (htk_config_read (path, &cfg));
  const char *want = htk_config_element (cfg, role);
  /* an unused normalisation role is still afetcmvn's */
  if (!want && (role == HtkRole::ENERGY_NORM || role == HtkRole::MEAN_NORM))
    want = "afetcmvn";
  if (element && want && std::strcmp (element, want) != 0)
    return refuse (cfg, "TARGETKIND", cfg.target_kind, std::string ("this "
            "is computed by ") + want + ", not by " + element + ": use " +
        want + " with this config");
  return htk_config_properties (cfg, role, out);
}

}  /* namespace afet */
