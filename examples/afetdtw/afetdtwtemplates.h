/* afetdtw's templates: the directory listing, the feature chain they go
 * through (copied from the afet elements upstream of the recogniser, or
 * given), and the internal pipelines that turn each file into frames.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __AFET_DTW_TEMPLATES_H__
#define __AFET_DTW_TEMPLATES_H__

#include <gst/gst.h>
#ifdef AFETDTW_IN_TREE
#include "afetfeatures.h"
#else
#include <gst/afet/afetfeatures.h>
#endif

#include "afetdtwcore.h"

G_BEGIN_DECLS

/* The chain used when none is given and none can be copied. */
#define AFET_DTW_DEFAULT_CHAIN "afetmfcc ! afetdelta ! afetcmvn"

typedef struct
{
  gchar *word;                  /* the name up to its first dot */
  gchar *path;
  gboolean features;            /* a feature file (afetparse), not audio */
} AfetDtwFile;

void afet_dtw_file_free (AfetDtwFile * file);

/* The templates in @dir (AfetDtwFile, sorted by file name); an empty
 * array when there are none; NULL and @error when @dir cannot be read. */
GPtrArray *afet_dtw_list_templates (const gchar * dir, GError ** error);

/* The afet elements upstream of @sinkpad as a launch line, with their
 * settings, from the one that takes audio; NULL when they do not start
 * with one (no afet element, or afetparse in front).  A sliding or
 * running normalisation becomes a per-file one (*@changed set). */
gchar *afet_dtw_chain_from_upstream (GstPad * sinkpad, gboolean * changed);

/* Runs @file through @chain (audio, resampled to @input's rate) or
 * afetparse (feature files); each run of the result (a Kaldi archive has
 * one per entry) is added to @runs as an AfetDtwSeq.  *@caps: the caps of
 * the result.  FALSE with @error (naming the file) on failure. */
gboolean afet_dtw_extract (const AfetDtwFile * file, const gchar * chain,
    const AfetFeaturesInfo * input, GPtrArray * runs, GstCaps ** caps,
    GError ** error);

G_END_DECLS

#endif /* __AFET_DTW_TEMPLATES_H__ */
