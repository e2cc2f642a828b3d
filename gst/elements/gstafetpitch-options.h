/* afetpitch's Kaldi options as GObject properties: one table of
 * PitchExtractionOptions and ProcessPitchOptions (gstafetpitch-options.cc).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "pitch.h"

#include <glib-object.h>

/* Installs every Kaldi option as a property, numbered from first_prop_id in
 * the table's order, its default the configs' (Kaldi's). */
void gst_afet_pitch_install_options (GObjectClass * klass,
    guint first_prop_id, GParamFlags flags);

/* Option index (prop_id - first_prop_id) set from / read into value; FALSE
 * when index names no option. The caller holds the object lock. */
gboolean gst_afet_pitch_set_option (afet::PitchConfig * pc,
    afet::ProcessPitchConfig * proc, guint index, const GValue * value);
gboolean gst_afet_pitch_get_option (const afet::PitchConfig * pc,
    const afet::ProcessPitchConfig * proc, guint index, GValue * value);
