/* The GStreamer-free part of afetdtw: the energy end-pointer that cuts a
 * frame stream into words, and dynamic time warping of a word against a
 * template.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Frames are rows of `dims` floats, as in a feature stream. */

#ifndef __AFET_DTW_CORE_H__
#define __AFET_DTW_CORE_H__

#include <glib.h>

G_BEGIN_DECLS

/* A word (or a template): frames and the time of each frame's start. */
typedef struct
{
  guint n_frames;
  guint dims;
  gfloat *data;                 /* n_frames x dims */
  guint64 start, end;           /* first frame's time, last frame's end
                                 * (G_MAXUINT64 when the stream had none) */
} AfetDtwSeq;

AfetDtwSeq *afet_dtw_seq_new (const gfloat * data, guint n_frames,
    guint dims);
void afet_dtw_seq_free (AfetDtwSeq * seq);
void afet_dtw_seq_subtract_mean (AfetDtwSeq * seq, guint columns);

/* End-pointer settings, in frames and dB. */
typedef struct
{
  gboolean split_on_silence;    /* FALSE: a run (up to DISCONT/EOS) is one
                                 * word, only its silent edges are cut */
  gdouble threshold_db;         /* speech: this far above the noise floor */
  gdouble rise_db;              /* the floor's upward drift per frame */
  guint min_speech;             /* shorter bursts are dropped */
  guint min_silence;            /* this much quiet ends a word */
  guint margin;                 /* frames kept on each side of a word */
  guint max_length;             /* a word is cut after this many frames */
} AfetDtwEndpointParams;

typedef struct _AfetDtwEndpointer AfetDtwEndpointer;

/* Called with each word found; the end-pointer keeps ownership of
 * nothing: the callee owns @word. */
typedef void (*AfetDtwWordFunc) (AfetDtwSeq * word, gpointer user_data);

/* @level_column: the column whose value, divided by @units_per_db, is the
 * frame's level in dB (c0 or log energy); -1: none, every run is a word */
AfetDtwEndpointer *afet_dtw_endpointer_new (const AfetDtwEndpointParams *
    params, guint dims, gint level_column, gdouble units_per_db,
    guint64 frame_duration, AfetDtwWordFunc func, gpointer user_data);
void afet_dtw_endpointer_free (AfetDtwEndpointer * ep);
void afet_dtw_endpointer_push (AfetDtwEndpointer * ep, const gfloat * frame,
    guint64 time);
/* the run ends (DISCONT, GAP, EOS): the word under way is finished */
void afet_dtw_endpointer_end_run (AfetDtwEndpointer * ep);
/* forget everything (flush) */
void afet_dtw_endpointer_reset (AfetDtwEndpointer * ep);

/* Symmetric DTW (steps (1,0), (1,1) weighted 2, (0,1)) with a band of
 * +-@band in normalised time, Euclidean frame distance with per-column
 * @weights (NULL: 1); the path cost divided by n + m.  A cost above
 * @give_up may come back as G_MAXDOUBLE, found early (pass G_MAXDOUBLE to
 * finish every comparison). */
gdouble afet_dtw_distance (const AfetDtwSeq * a, const AfetDtwSeq * b,
    const gfloat * weights, gdouble band, gdouble give_up);

G_END_DECLS

#endif /* __AFET_DTW_CORE_H__ */
