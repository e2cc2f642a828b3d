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

#include <map>

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

std::vector<std::string>
split_ws (const std::string & line, size_t max_fields)
{
  std::vector<std::string> f;
  size_t i = 0;
  while (i < line.size ()) {
    while (i < line.size () && g_ascii_isspace (line[i]))
      i++;
    if (i >= line.size ())
      break;
    if (f.size () + 1 == max_fields) {
      std::string rest = line.substr (i);
      while (!rest.empty () && g_ascii_isspace (rest.back ()))
        rest.pop_back ();
      f.push_back (rest);
      break;
    }
    size_t j = i;
    while (j < line.size () && !g_ascii_isspace (line[j]))
      j++;
    f.push_back (line.substr (i, j - i));
    i = j;
  }
  return f;
}

bool
read_lines (const std::string & path, std::vector<std::string> *lines,
    std::string * why)
{
  gchar *text = nullptr;
  GError *err = nullptr;
  if (!g_file_get_contents (path.c_str (), &text, nullptr, &err)) {
    *why = err->message;
    g_error_free (err);
    return false;
  }
  gchar **v = g_strsplit (text, "\n", -1);
  for (gchar ** l = v; *l; l++) {
    std::string s = *l;
    if (!s.empty () && s.back () == '\r')
      s.pop_back ();
    lines->push_back (s);
  }
  g_strfreev (v);
  g_free (text);
  return true;
}

bool
blank (const std::string & s)
{
  return s.find_first_not_of (" \t") == std::string::npos;
}

bool
make_items (const Options & o, std::vector<Item> *items, std::string * why)
{
  std::vector<std::string> lines;
  const std::string ext = extension_of (o.format);
  std::vector<Item> all;
  if (!o.scp.empty ()) {
    if (!read_lines (o.scp, &lines, why))
      return false;
    for (size_t n = 0; n < lines.size (); n++) {
      if (blank (lines[n]))
        continue;
      auto f = split_ws (lines[n], 2);
      Item it;
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
    if (!read_lines (o.wav_scp, &lines, why))
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
      it.key = f[0];
      it.input = f[1];
      if (!it.input.empty () && it.input.back () == '|') {
        it.command = true;
        it.input.pop_back ();
        while (!it.input.empty () && g_ascii_isspace (it.input.back ()))
          it.input.pop_back ();
      }
      if (o.ark.empty ())
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
      if (!read_lines (o.segments, &seg_lines, why))
        return false;
      std::vector<bool> used (all.size (), false);
      for (size_t n = 0; n < seg_lines.size (); n++) {
        if (blank (seg_lines[n]))
          continue;
        auto f = split_ws (seg_lines[n], 0);
        char *e1 = nullptr, *e2 = nullptr;
        Segment s;
        if (f.size () >= 4) {
          s.start = g_ascii_strtod (f[2].c_str (), &e1);
          s.end = g_ascii_strtod (f[3].c_str (), &e2);
        }
        if (f.size () < 4 || *e1 || *e2 || s.start < 0 ||
            (s.end >= 0 && s.end <= s.start)) {
          *why = o.segments + ":" + std::to_string (n + 1) + ": expected "
              "'segment-id recording-id start end' (seconds; end -1: to the "
              "end)";
          return false;
        }
        auto r = by_id.find (f[1]);
        if (r == by_id.end ()) {
          *why = o.segments + ":" + std::to_string (n + 1) + ": recording " +
              f[1] + " is not in " + o.wav_scp;
          return false;
        }
        s.id = f[0];
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
  for (size_t i = 0; i < all.size (); i++)
    if ((int) (i % o.shard_n) == o.shard_k - 1) {
      all[i].index = items->size ();
      items->push_back (all[i]);
    }
  return true;
}

}  /* namespace afetx */
