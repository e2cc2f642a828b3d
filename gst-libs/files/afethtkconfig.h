/* HCopy configuration files read without GStreamer: the afet chain that
 * computes HCopy's numbers, and each element's properties.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * HCopy configuration files read directly, without GStreamer: the reader
 * turns a file of `[MODULE:] KEY = VALUE` lines into the afet chain that
 * computes the same numbers, and into the properties each element of that
 * chain needs.
 *
 * Every setting the numbers depend on is given explicitly, with HTK 3.4's
 * built-in default where the file is silent (the elements' own defaults
 * are a common ASR set-up, not HTK's).  Whatever afet cannot reproduce is
 * refused with a message that names the file, the line, the key, the
 * value and what to do instead; a reader that guessed would produce
 * features that quietly differ from HCopy's.
 *
 * Used by afet-extract (-C FILE) and by the elements' htk-config property:
 *
 *   afet::HtkProperties props;
 *   afet::Status st = afet::htk_config_element_properties (path,
 *       "afetmfcc", afet::HtkRole::ANALYSIS, &props);
 *   if (!st.ok ()) ... post st.message () as the element's error ...
 *   for (auto &p : props) ... g_object_set from the string p.second ...
 */
#pragma once

#include "status.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace afet {

/* TARGETKIND's base kinds that afet computes. */
enum class HtkBase
{
  MFCC,                         /* afetmfcc */
  FBANK,                        /* afetmfcc num-ceps=0 */
  PLP,                          /* afetplp */
};

/* The steps of HCopy's coding, each done by one afet element.  In a chain
 * they come in this order, as HTK applies them. */
enum class HtkRole
{
  FRAMER,        /* afetframer: framing, when it is an element of its own */
  ANALYSIS,      /* afetmfcc (MFCC, FBANK) or afetplp (PLP) */
  ENERGY_NORM,   /* afetcmvn before afetdelta: ENORMALISE on _E */
  DELTA,         /* afetdelta: _D, _A, _T */
  MEAN_NORM,     /* afetcmvn after afetdelta: _Z */
};

/* (property, value) pairs, values as gst_parse_launch and
 * gst_util_set_object_arg take them. */
using HtkProperty = std::pair<std::string, std::string>;
using HtkProperties = std::vector<HtkProperty>;

/* A parsed configuration: every value is the file's, or HTK 3.4's default
 * (HParm's built-in table, the HTK Book's "Configuration Variables"). */
struct HtkConfig
{
  std::string origin;           /* the file name, for messages */

  /* TARGETKIND and its qualifiers */
  std::string target_kind;      /* as written, upper case */
  HtkBase base = HtkBase::MFCC;
  bool energy = false;          /* _E */
  bool c0 = false;              /* _0 */
  int delta_order = 0;          /* 1 _D, 2 _D_A, 3 _D_A_T */
  bool zero_mean = false;       /* _Z */

  /* framing, in HTK's 100 ns units */
  double window_size = 256000.0;
  double target_rate = 0.0;     /* HTK's default: unset, which HCopy refuses */
  double source_rate = 0.0;     /* 0: not given (the input's own rate) */
  bool use_hamming = true;
  double preemph = 0.97;
  bool zmean_source = false;    /* per-frame DC removal */

  /* filter bank */
  int num_chans = 20;
  bool use_power = false;
  double lo_freq = -1.0, hi_freq = -1.0;  /* < 0: off */
  double warp_freq = 1.0, warp_lcutoff = 0.0, warp_ucutoff = 0.0;

  /* cepstra and PLP */
  int num_ceps = 12;
  int cep_lifter = 22;
  int lpc_order = 12;
  double compress_fact = 0.33;

  /* energy */
  bool raw_energy = true;
  bool enormalise = true;
  double escale = 0.1, silfloor = 50.0;

  /* regression windows, in frames */
  int delta_window = 2, acc_window = 2, third_window = 2;

  bool natural_write_order = false;

  /* the line that set each key (absent: HTK's default) */
  std::map<std::string, int> lines;
  /* what differs from HCopy's output without changing the numbers (a
   * default CRC that afetenc does not write, ignored module lines, ...),
   * one sentence each, for the user */
  std::vector<std::string> notes;
};

/* Reads a configuration from text; origin names it in messages. */
Status htk_config_parse (const std::string &text, const std::string &origin,
    HtkConfig *out);

/* The same from a file. */
Status htk_config_read (const std::string &path, HtkConfig *out);

/* The element that does a role for this configuration ("afetmfcc",
 * "afetplp", "afetframer", "afetdelta", "afetcmvn"), or nullptr when the
 * configuration has no such step (no _D: no afetdelta, ...). */
const char *htk_config_element (const HtkConfig &cfg, HtkRole role);

/* The properties a role's element needs, in the order they are to be set.
 * A normalisation role the configuration does not use gives afetcmvn's
 * pass-through (mode=none), so that an element placed in a pipeline for
 * it does no harm; DELTA without _D is an error that says to remove the
 * element. */
Status htk_config_properties (const HtkConfig &cfg, HtkRole role,
    HtkProperties *out);

/* The whole feature chain as gst-launch text:
 *   ANALYSIS [! ENERGY_NORM] [! DELTA] [! MEAN_NORM]
 * ready for gst_parse_launch after the audio source. */
Status htk_config_chain (const HtkConfig &cfg, std::string *launch);

/* SOURCERATE, when the file gives one, against the input's rate in Hz:
 * HCopy does not resample, so a file meant for another rate is refused. */
Status htk_config_check_rate (const HtkConfig &cfg, int rate);

/* For an element's htk-config property: reads path and gives the
 * properties of the element doing role.  element (its factory name, or
 * nullptr not to check) must be the one the configuration asks for the
 * role: an afetmfcc given a PLP configuration is refused, for example.
 * afetcmvn does two roles: ENERGY_NORM before afetdelta, MEAN_NORM after
 * it (an element can tell them apart by its input's delta-order). */
Status htk_config_element_properties (const std::string &path,
    const char *element, HtkRole role, HtkProperties *out);

}  /* namespace afet */
