/* The compat-doc test: docs/compat.md's table "What each preset sets" against
 * the engine's presets table (engine/spectral/presets.cc).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every value the page states is the table's, every property the table sets
 * has a row on the page.
 *
 * A cell's leading value is compared ("25 (WINDOWSIZE)": 25; "1, 100,
 * -500 (...)": one value each for a row of three properties; "0: Fbank":
 * 0); "—" is not applicable (not compared); "as Kaldi" is the kaldi
 * column's cell. A property cell names its properties in backquotes, and
 * "(afetplp)" marks afetplp's own defaults.
 *
 * Usage: test_compat_doc COMPAT_MD
 */
#include "presets.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

static const char *const kHeading = "## What each preset sets";
static const char *const kDash = "\xe2\x80\x94";        /* — */

static int failures = 0;

static void
fail (const std::string &what)
{
  fprintf (stderr, "compat-doc: %s\n", what.c_str ());
  failures++;
}

static std::string
trim (const std::string &s)
{
  size_t a = s.find_first_not_of (" \t");
  size_t b = s.find_last_not_of (" \t\r");
  return a == std::string::npos ? "" : s.substr (a, b - a + 1);
}

static std::string
lower (std::string s)
{
  for (char &c : s)
    c = (char) tolower ((unsigned char) c);
  return s;
}

/* The cells of a table line "| a | b |". */
static std::vector<std::string>
cells (const std::string &line)
{
  std::vector<std::string> out;
  std::string t = trim (line);
  if (t.size () < 2 || t.front () != '|' || t.back () != '|')
    return out;
  std::stringstream ss (t.substr (1, t.size () - 2));
  std::string cell;
  while (std::getline (ss, cell, '|'))
    out.push_back (trim (cell));
  return out;
}

/* The leading values of a cell: "1, 100, -500 (x)" gives 1, 100, -500;
 * "0: Fbank" gives 0; "true with cepstra" gives true. */
static std::vector<std::string>
leading_values (const std::string &cell)
{
  std::vector<std::string> out;
  size_t i = 0;
  while (i < cell.size ()) {
    size_t j = i;
    while (j < cell.size () && !isspace ((unsigned char) cell[j]) &&
        cell[j] != ',' && cell[j] != '(' && cell[j] != ';')
      j++;
    std::string v = cell.substr (i, j - i);
    while (!v.empty () && (v.back () == ':' || v.back () == '.'))
      v.pop_back ();
    if (v.empty ())
      break;
    out.push_back (v);
    /* another value only after ", " */
    if (j + 1 < cell.size () && cell[j] == ',' && cell[j + 1] == ' ')
      i = j + 2;
    else
      break;
  }
  return out;
}

static bool
number (const std::string &s, double *v)
{
  char *end = nullptr;
  *v = strtod (s.c_str (), &end);
  return !s.empty () && end && *end == '\0';
}

static bool
same (const std::string &page, const std::string &table)
{
  double a, b;
  if (number (page, &a) && number (table, &b))
    return std::fabs (a - b) <= 1e-12 * std::fmax (1.0,
        std::fmax (std::fabs (a), std::fabs (b)));
  return page == table;
}

int
main (int argc, char **argv)
{
  if (argc != 2) {
    fprintf (stderr, "usage: %s COMPAT_MD\n", argv[0]);
    return 2;
  }
  std::ifstream in (argv[1]);
  if (!in) {
    fprintf (stderr, "compat-doc: cannot read %s\n", argv[1]);
    return 2;
  }
  /* the table's lines, after the heading */
  std::vector<std::string> lines;
  std::string line;
  bool inside = false;
  while (std::getline (in, line)) {
    if (!inside) {
      inside = line.rfind (kHeading, 0) == 0;
      continue;
    }
    if (trim (line).empty () && lines.empty ())
      continue;
    if (!line.empty () && line[0] == '|')
      lines.push_back (line);
    else if (!lines.empty ())
      break;
  }
  if (lines.size () < 3) {
    fprintf (stderr, "compat-doc: no table under \"%s\" in %s\n", kHeading,
        argv[1]);
    return 1;
  }

  /* the columns: one a preset */
  std::vector<std::string> header = cells (lines[0]);
  std::map<std::string, size_t> column;
  for (size_t c = 1; c < header.size (); c++)
    column[lower (header[c])] = c;
  std::map<std::string, std::map<std::string, std::string>> table;
  for (const auto &d : afet::preset_table ()) {
    if (!column.count (d.name))
      fail (std::string ("the table has no column for preset ") + d.name);
    for (const auto &kv : afet::preset_properties (d))
      table[d.name][kv.first] = kv.second;
  }

  std::set<std::string> on_page;
  int compared = 0;
  for (size_t r = 2; r < lines.size (); r++) {
    std::vector<std::string> row = cells (lines[r]);
    if (row.size () != header.size ()) {
      fail ("row " + std::to_string (r - 1) + " has " +
          std::to_string (row.size ()) + " cells, the header " +
          std::to_string (header.size ()) + ": " + trim (lines[r]));
      continue;
    }
    /* the properties the row is about */
    std::vector<std::string> names;
    const std::string &prop = row[0];
    for (size_t a = prop.find ('`'); a != std::string::npos;
        a = prop.find ('`', a)) {
      size_t b = prop.find ('`', a + 1);
      if (b == std::string::npos)
        break;
      names.push_back (prop.substr (a + 1, b - a - 1));
      a = b + 1;
    }
    if (prop.find ("(afetplp)") != std::string::npos)
      for (auto &n : names)
        n += " (afetplp)";
    if (names.empty ()) {
      fail ("row without a `property`: " + prop);
      continue;
    }
    for (const auto &n : names) {
      if (!table.begin ()->second.count (n))
        fail ("row `" + n + "`: the presets table sets no such property");
      on_page.insert (n);
    }
    for (const auto &d : afet::preset_table ()) {
      if (!column.count (d.name))
        continue;
      std::string cell = row[column[d.name]];
      /* "as Kaldi": that preset's cell */
      if (lower (cell).rfind ("as ", 0) == 0) {
        std::string other = lower (leading_values (cell.substr (3)).empty ()
            ? "" : leading_values (cell.substr (3))[0]);
        if (!column.count (other)) {
          fail ("row " + prop + ", " + d.name + ": \"" + cell +
              "\" names no preset column");
          continue;
        }
        cell = row[column[other]];
      }
      if (cell.rfind (kDash, 0) == 0)
        continue;
      std::vector<std::string> values = leading_values (cell);
      if (values.empty () || values.size () > names.size ()) {
        fail ("row " + prop + ", " + d.name + ": \"" + cell + "\" does not "
            "start with " + std::to_string (names.size ()) + " value(s) or "
            "\xe2\x80\x94");
        continue;
      }
      for (size_t k = 0; k < values.size (); k++) {
        auto it = table[d.name].find (names[k]);
        if (it == table[d.name].end ())
          continue;
        compared++;
        if (!same (values[k], it->second))
          fail ("`" + names[k] + "` under " + d.name + ": docs/compat.md "
              "says " + values[k] + ", the presets table "
              "(engine/spectral/presets.cc) " + it->second);
      }
    }
  }
  for (const auto &kv : table.begin ()->second)
    if (!on_page.count (kv.first))
      fail ("`" + kv.first + "` (the presets table) has no row in the "
          "page's table");
  if (failures) {
    fprintf (stderr, "compat-doc: %d difference(s): make docs/compat.md's "
        "\"What each preset sets\" and engine/spectral/presets.cc agree\n",
        failures);
    return 1;
  }
  printf ("compat-doc: %d values agree\n", compared);
  return 0;
}
