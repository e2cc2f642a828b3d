/* afet-extract's input lists: HCopy-style --scp, Kaldi's wav.scp and
 * segments, parsed into work items (lists.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "lists.h"

#include <glib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include <sys/stat.h>

namespace afetx
{

const char *
extension_of (const std::string & f)
{
  if (f == "htk")
    return "htk";
  if (f == "npy")
    return "npy";
  if (f == "kaldi")
    return "ark";
  return "f32";
}

std::string
base_name_no_ext (const std::string & path)
{
  gchar *b = g_path_get_basename (path.c_str ());
  std::string s = b;
  g_free (b);
  size_t dot = s.rfind ('.');
  if (dot != std::string::npos && dot > 0)
    s.resize (dot);
  return s;
}

/* white space as isspace () in the C locale has it (g_ascii_isspace leaves
 * out \v): space \t \n \v \f \r */
static bool
is_ws (char c)
{
  return c == ' ' || (c >= '\t' && c <= '\r');
}

std::vector<std::string>
split_ws (const std::string & line, size_t max_fields)
{
  std::vector<std::string> f;
  size_t i = 0;
  while (i < line.size ()) {
    while (i < line.size () && is_ws (line[i]))
      i++;
    if (i >= line.size ())
      break;
    if (f.size () + 1 == max_fields) {
      std::string rest = line.substr (i);
      while (!rest.empty () && is_ws (rest.back ()))
        rest.pop_back ();
      f.push_back (rest);
      break;
    }
    size_t j = i;
    while (j < line.size () && !is_ws (line[j]))
      j++;
    f.push_back (line.substr (i, j - i));
    i = j;
  }
  return f;
}

void
split_lines (const std::string & text, std::vector<std::string> *lines)
{
  size_t at = 0;
  for (;;) {
    size_t nl = text.find ('\n', at);
    std::string s = text.substr (at, nl == std::string::npos ?
        std::string::npos : nl - at);
    if (!s.empty () && s.back () == '\r')
      s.pop_back ();
    lines->push_back (s);
    if (nl == std::string::npos)
      break;
    at = nl + 1;
  }
}

bool
read_lines (const std::string & path, std::vector<std::string> *lines,
    std::string * why)
{
  gchar *text = nullptr;
  gsize len = 0;
  GError *err = nullptr;
  if (!g_file_get_contents (path.c_str (), &text, &len, &err)) {
    *why = err->message;
    g_error_free (err);
    return false;
  }
  /* a NUL would end a line early without a word */
  if (const char *nul = (const char *) memchr (text, 0, len)) {
    *why = path + ":" + std::to_string (1 + std::count ((const char *) text,
            nul, '\n')) + ": holds a NUL byte (at byte " + std::to_string
        (nul - text) + "): a list is text, one input a line";
    g_free (text);
    return false;
  }
  split_lines (std::string (text, len), lines);
  g_free (text);
  return true;
}

bool
blank (const std::string & s)
{
  /* the white space split_ws skips (is_ws): a line of \f, \v or
   * \r alone has no fields, and would be read as an entry without any */
  for (char c:s)
    if (!is_ws (c))
      return false;
  return true;
}

/* a segment's time: a finite number of seconds, at most kMaxSeconds */
static bool
parse_seconds (const std::string & s, double *v)
{
  char *e = nullptr;
  *v = g_ascii_strtod (s.c_str (), &e);
  return !s.empty () && !*e && std::isfinite (*v) && std::fabs (*v) <=
      kMaxSegmentSeconds;
}

bool
key_names_file (const std::string & key, const std::string & ext,
    std::string * why)
{
  const size_t name_max = 255;  /* NAME_MAX of Linux's file systems */
  const std::string name = key + "." + ext;
  if (key.empty () || key.find ('/') != std::string::npos)
    *why = std::string ("cannot name a file inside the output folder (") +
        (key.empty ()? "it is empty" : "it holds a '/'") + ")";
  else if (name.size () > name_max)
    *why = "makes a file name of " + std::to_string (name.size ()) +
        " bytes (" + name.substr (0, 24) + "...), longer than the " +
        std::to_string (name_max) + " a file name may have";
  else
    return true;
  *why += ": with --out-dir each key names the file DIR/KEY." + ext +
      "; shorten or rename the key, or write one archive with --ark";
  return false;
}

namespace
{

/* A path as one string for every way of writing it (absolute, . and ..
 * resolved, repeated slashes dropped; links are not followed). */
std::string
canonical (const std::string & path)
{
  gchar *c = g_canonicalize_filename (path.c_str (), nullptr);
  std::string s = c;
  g_free (c);
  return s;
}

/* Where two inputs would collide, or an output would overwrite an input:
 * checked before anything runs, over all shards (two shards writing the
 * same file collide as two jobs do). */
bool
check_names (const Options & o, const std::vector<Item> & all,
    std::string * why)
{
  const std::string ext = extension_of (o.format);
  /* what must never be written: the lists, the config, the recordings */
  std::map<std::string, std::string> inputs;    /* canonical -> what */
  for (const auto & l: {
      std::make_pair (o.scp, std::string ("the list --scp")),
      std::make_pair (o.wav_scp, std::string ("the list --wav-scp")),
      std::make_pair (o.segments, std::string ("the list --segments")),
      std::make_pair (o.config, std::string ("the config -C"))})
    if (!l.first.empty ())
      inputs[canonical (l.first)] = l.second + " (" + l.first + ")";
  for (const auto & it:all)
    if (!it.command)
      inputs.emplace (canonical (it.input), "the input of " + it.where +
          " (" + it.input + ")");
  std::set<std::pair<dev_t, ino_t>> list_files;
  for (const auto & l: {o.scp, o.wav_scp, o.segments, o.config}) {
    struct stat st;
    if (!l.empty () && stat (l.c_str (), &st) == 0)
      list_files.emplace (st.st_dev, st.st_ino);
  }
  auto not_an_input = [&](const std::string & out, const std::string & where)
  {
    auto in = inputs.find (canonical (out));
    struct stat st;
    if (in == inputs.end () && stat (out.c_str (), &st) == 0 &&
        list_files.count (std::make_pair (st.st_dev, st.st_ino)))
      in = inputs.begin ();     /* the same file by another name */
    if (in == inputs.end ())
      return true;
    *why = where + ": the output " + out + " would overwrite " +
        (canonical (out) == in->first ? in->second : "a list or config (the "
        "same file by another path)") + ": choose another output name";
    return false;
  };
  if (!o.ark.empty ()) {
    const std::string index = o.ark.substr (0, o.ark.size () - 4) + ".scp";
    if (!not_an_input (o.ark, "--ark") || !not_an_input (index, "--ark's "
            "index"))
      return false;
    /* an archive's keys are its entries' names: each once */
    std::map<std::string, std::string> keys;    /* key -> where */
    for (const auto & it:all) {
      std::vector<std::pair<std::string, std::string>> ks;
      if (it.segments.empty ())
        ks.emplace_back (it.key, it.where + " (" + it.input + ")");
      for (const auto & s:it.segments)
        ks.emplace_back (s.id, s.where);
      for (const auto & k:ks) {
        auto at = keys.emplace (k.first, k.second);
        if (!at.second) {
          *why = k.second + ": the key " + k.first + " is already the key "
              "of " + at.first->second + ": an archive holds each key once" +
              (o.scp.empty ()? "" : " (with --scp a key is the input's base "
              "name: use --wav-scp with unique uttids)");
          return false;
        }
      }
    }
    return true;
  }
  /* per-file outputs: inside --out-dir for keys, and each written once */
  std::map<std::string, std::string> outs;      /* canonical -> where */
  auto one_output = [&](const std::string & out, const std::string & key,
      bool named_by_key, const std::string & where) {
    std::string w;
    if (named_by_key && !key_names_file (key, ext, &w)) {
      *why = where + ": the key '" + key + "' " + w;
      return false;
    }
    if (!not_an_input (out, where))
      return false;
    auto at = outs.emplace (canonical (out), where);
    if (!at.second) {
      *why = where + ": writes " + out + ", as " + at.first->second +
          " does" + (named_by_key && !o.scp.empty ()? ": inputs with the "
          "same base name in different folders need names of their own: "
          "give each line its output ('IN OUT') in --scp" : "");
      return false;
    }
    return true;
  };
  for (const auto & it:all) {
    if (it.segments.empty () && !it.out.empty () &&
        !one_output (it.out, it.key, !o.wav_scp.empty () ||
            it.out == o.out_dir + "/" + it.key + "." + ext,
            it.where + " (" + it.input + ")"))
      return false;
    for (const auto & s:it.segments)
      if (!one_output (s.out, s.id, true, s.where))
        return false;
  }
  return true;
}

}  /* namespace */

bool
make_items (const Options & o, std::vector<Item> *items, std::string * why,
    const LineReader & read)
{
  const LineReader read_list = read ? read : LineReader (read_lines);
  std::vector<std::string> lines;
  const std::string ext = extension_of (o.format);
  std::vector<Item> all;
  if (!o.scp.empty ()) {
    if (!read_list (o.scp, &lines, why))
      return false;
    for (size_t n = 0; n < lines.size (); n++) {
      if (blank (lines[n]))
        continue;
      auto f = split_ws (lines[n], 2);
      Item it;
      it.where = o.scp + ":" + std::to_string (n + 1);
      it.input = f[0];
      it.key = base_name_no_ext (f[0]);
      if (f.size () == 2 && o.ark.empty ()) {
        it.out = f[1];
      } else if (!o.out_dir.empty ()) {
        it.out = o.out_dir + "/" + it.key + "." + ext;
      } else if (o.ark.empty ()) {
        *why = o.scp + ":" + std::to_string (n + 1) + ": one column needs "
            "--out-dir (or --ark)";
        return false;
      }
      all.push_back (it);
    }
  } else {
    if (!read_list (o.wav_scp, &lines, why))
      return false;
    std::map<std::string, size_t> by_id;
    for (size_t n = 0; n < lines.size (); n++) {
      if (blank (lines[n]))
        continue;
      auto f = split_ws (lines[n], 2);
      if (f.size () < 2) {
        *why = o.wav_scp + ":" + std::to_string (n + 1) + ": expected "
            "'uttid path' or 'uttid command |'";
        return false;
      }
      Item it;
      it.where = o.wav_scp + ":" + std::to_string (n + 1);
      it.key = f[0];
      it.input = f[1];
      if (!it.input.empty () && it.input.back () == '|') {
        it.command = true;
        it.input.pop_back ();
        while (!it.input.empty () && is_ws (it.input.back ()))
          it.input.pop_back ();
        if (it.input.empty ()) {
          *why = it.where + ": uttid " + it.key + " has an empty command "
              "before its '|'";
          return false;
        }
      }
      if (o.ark.empty () && o.segments.empty ())
        it.out = o.out_dir + "/" + it.key + "." + ext;
      if (by_id.count (it.key)) {
        *why = o.wav_scp + ":" + std::to_string (n + 1) + ": uttid " +
            it.key + " appears twice";
        return false;
      }
      by_id[it.key] = all.size ();
      all.push_back (it);
    }
    if (!o.segments.empty ()) {
      std::vector<std::string> seg_lines;
      if (!read_list (o.segments, &seg_lines, why))
        return false;
      std::vector<bool> used (all.size (), false);
      for (size_t n = 0; n < seg_lines.size (); n++) {
        if (blank (seg_lines[n]))
          continue;
        auto f = split_ws (seg_lines[n], 0);
        Segment s;
        /* times are finite and within kMaxSegmentSeconds, so that their
         * sample indices are computed without overflow (NaN, inf or 1e300
         * once cast to int64 gave the whole recording) */
        const bool times = f.size () >= 4 && parse_seconds (f[2], &s.start)
            && parse_seconds (f[3], &s.end);
        if (!times || s.start < 0 || (s.end != -1 && s.end <= s.start)) {
          *why = o.segments + ":" + std::to_string (n + 1) + ": expected "
              "'segment-id recording-id start end' (seconds, from 0 to " +
              std::to_string ((long long) kMaxSegmentSeconds) + "; end "
              "after start, or -1: to the end)";
          return false;
        }
        auto r = by_id.find (f[1]);
        if (r == by_id.end ()) {
          *why = o.segments + ":" + std::to_string (n + 1) + ": recording " +
              f[1] + " is not in " + o.wav_scp;
          return false;
        }
        s.id = f[0];
        s.where = o.segments + ":" + std::to_string (n + 1);
        if (o.ark.empty ())
          s.out = o.out_dir + "/" + s.id + "." + ext;
        all[r->second].segments.push_back (s);
        used[r->second] = true;
      }
      /* only recordings that have segments are extracted */
      std::vector<Item> kept;
      for (size_t i = 0; i < all.size (); i++)
        if (used[i])
          kept.push_back (all[i]);
      all.swap (kept);
    }
  }
  if (!check_names (o, all, why))
    return false;
  for (size_t i = 0; i < all.size (); i++)
    if ((int) (i % o.shard_n) == o.shard_k - 1) {
      all[i].index = items->size ();
      items->push_back (all[i]);
    }
  return true;
}

}  /* namespace afetx */
