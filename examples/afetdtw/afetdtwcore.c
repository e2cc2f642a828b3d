/* afetdtw's end-pointer and DTW distance (afetdtwcore.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* End-pointer.  Each frame's level L (dB) is its c0 or log-energy value
 * over the column's dB scale.  A noise floor follows the quietest frames:
 * F = min (L, F + rise), so it falls at once and climbs slowly (it must
 * climb: a sliding-window normalisation moves the silence level).  A frame
 * is loud when L > F + threshold.  A word starts at the first loud frame
 * and ends at its last loud frame once min-silence quiet frames follow (or
 * the run ends); words shorter than min-speech are dropped as clicks, and
 * margin frames are kept on each side.
 *
 * A run may start inside speech (no silence before it to learn the floor
 * from).  So the frames since the last word are kept (up to max-length of
 * them), and whenever the floor drops by more than RESCAN_DB below the one
 * they were judged against, they are judged again: a word whose start was
 * taken for the floor is then found from its real start. */

#include "afetdtwcore.h"

#include <math.h>
#include <string.h>

#define RESCAN_DB 1.0

AfetDtwSeq *
afet_dtw_seq_new (const gfloat * data, guint n_frames, guint dims)
{
  AfetDtwSeq *seq = g_new0 (AfetDtwSeq, 1);

  seq->n_frames = n_frames;
  seq->dims = dims;
  seq->data = g_new (gfloat, (gsize) n_frames * dims);
  if (data)
    memcpy (seq->data, data, sizeof (gfloat) * n_frames * dims);
  seq->start = seq->end = G_MAXUINT64;
  return seq;
}

void
afet_dtw_seq_free (AfetDtwSeq * seq)
{
  if (!seq)
    return;
  g_free (seq->data);
  g_free (seq);
}

/* Re-centres the first @columns columns (the statics) on the word's own
 * mean, whatever normalisation the stream had. */
void
afet_dtw_seq_subtract_mean (AfetDtwSeq * seq, guint columns)
{
  guint i, c;

  columns = MIN (columns, seq->dims);
  if (seq->n_frames == 0)
    return;
  for (c = 0; c < columns; c++) {
    gdouble sum = 0;

    for (i = 0; i < seq->n_frames; i++)
      sum += seq->data[(gsize) i * seq->dims + c];
    sum /= seq->n_frames;
    for (i = 0; i < seq->n_frames; i++)
      seq->data[(gsize) i * seq->dims + c] -= (gfloat) sum;
  }
}

struct _AfetDtwEndpointer
{
  AfetDtwEndpointParams p;
  guint dims;
  gint column;
  gdouble units_per_db;
  guint64 frame_duration;
  AfetDtwWordFunc func;
  gpointer user_data;

  /* the frames since the last word, their times, levels and judgements */
  GArray *frames;               /* gfloat */
  GArray *times;                /* guint64 */
  GArray *levels;               /* gdouble, dB */
  GArray *floors;               /* gdouble, the floor when each came */
  GArray *loud;                 /* gboolean */

  gboolean have_floor;
  gdouble floor;                /* noise floor, dB */
  gdouble judged_floor;         /* the floor the frames were judged with */

  gboolean in_word;
  guint start, last_loud;       /* indices into the arrays above */
  guint scanned;                /* frames the word search has looked at */
};

AfetDtwEndpointer *
afet_dtw_endpointer_new (const AfetDtwEndpointParams * params, guint dims,
    gint level_column, gdouble units_per_db, guint64 frame_duration,
    AfetDtwWordFunc func, gpointer user_data)
{
  AfetDtwEndpointer *ep = g_new0 (AfetDtwEndpointer, 1);

  ep->p = *params;
  ep->p.max_length = MAX (ep->p.max_length, 1);
  ep->p.min_silence = MAX (ep->p.min_silence, 1);
  ep->dims = dims;
  ep->column = level_column;
  ep->units_per_db = units_per_db > 0 ? units_per_db : 1.0;
  ep->frame_duration = frame_duration;
  ep->func = func;
  ep->user_data = user_data;
  ep->frames = g_array_new (FALSE, FALSE, sizeof (gfloat));
  ep->times = g_array_new (FALSE, FALSE, sizeof (guint64));
  ep->levels = g_array_new (FALSE, FALSE, sizeof (gdouble));
  ep->floors = g_array_new (FALSE, FALSE, sizeof (gdouble));
  ep->loud = g_array_new (FALSE, FALSE, sizeof (gboolean));
  return ep;
}

void
afet_dtw_endpointer_free (AfetDtwEndpointer * ep)
{
  if (!ep)
    return;
  g_array_free (ep->frames, TRUE);
  g_array_free (ep->times, TRUE);
  g_array_free (ep->levels, TRUE);
  g_array_free (ep->floors, TRUE);
  g_array_free (ep->loud, TRUE);
  g_free (ep);
}

static void
drop_frames (AfetDtwEndpointer * ep, guint n)
{
  n = MIN (n, ep->times->len);
  if (n == 0)
    return;
  g_array_remove_range (ep->frames, 0, n * ep->dims);
  g_array_remove_range (ep->times, 0, n);
  g_array_remove_range (ep->levels, 0, n);
  g_array_remove_range (ep->floors, 0, n);
  g_array_remove_range (ep->loud, 0, n);
  ep->start = ep->start >= n ? ep->start - n : 0;
  ep->last_loud = ep->last_loud >= n ? ep->last_loud - n : 0;
  ep->scanned = ep->scanned >= n ? ep->scanned - n : 0;
}

/* Hands frames first .. last (and the margins) over as a word, if it is
 * long enough, and forgets the frames up to @last. */
static void
finish_word (AfetDtwEndpointer * ep, guint first, guint last)
{
  guint n = ep->times->len;

  if (last - first + 1 >= ep->p.min_speech) {
    guint a = first >= ep->p.margin ? first - ep->p.margin : 0;
    guint b = MIN (last + ep->p.margin, n - 1);
    AfetDtwSeq *word;

    word = afet_dtw_seq_new (&g_array_index (ep->frames, gfloat,
            (gsize) a * ep->dims), b - a + 1, ep->dims);
    word->start = g_array_index (ep->times, guint64, a);
    word->end = g_array_index (ep->times, guint64, b);
    if (word->end != G_MAXUINT64)
      word->end += ep->frame_duration;
    ep->func (word, ep->user_data);
  }
  ep->in_word = FALSE;
  drop_frames (ep, last + 1);
}

/* Walks the frames not looked at yet: starts, ends and cuts words. */
static void
search (AfetDtwEndpointer * ep)
{
  guint n = ep->times->len;

  while (ep->scanned < n) {
    guint k = ep->scanned++;
    gboolean loud = g_array_index (ep->loud, gboolean, k);

    if (!ep->in_word) {
      if (loud) {
        ep->in_word = TRUE;
        ep->start = ep->last_loud = k;
      }
      continue;
    }
    if (loud)
      ep->last_loud = k;
    if (ep->p.split_on_silence && k - ep->last_loud >= ep->p.min_silence) {
      finish_word (ep, ep->start, ep->last_loud);
      n = ep->times->len;
    } else if (k - ep->start + 1 >= ep->p.max_length) {
      finish_word (ep, ep->start, k);
      n = ep->times->len;
    }
  }
  /* between words: keep max-length frames for a later re-judgement */
  if (!ep->in_word && n > ep->p.max_length)
    drop_frames (ep, n - ep->p.max_length);
}

/* The floor fell: each frame is judged against the lower of the floor
 * it came with and this one. */
static void
judge_again (AfetDtwEndpointer * ep)
{
  guint k;

  for (k = 0; k < ep->times->len; k++) {
    gdouble *f = &g_array_index (ep->floors, gdouble, k);

    *f = MIN (*f, ep->floor);
    g_array_index (ep->loud, gboolean, k) =
        g_array_index (ep->levels, gdouble, k) > *f + ep->p.threshold_db;
  }
  ep->judged_floor = ep->floor;
  ep->in_word = FALSE;
  ep->scanned = 0;
}

void
afet_dtw_endpointer_push (AfetDtwEndpointer * ep, const gfloat * frame,
    guint64 time)
{
  gdouble level = ep->column >= 0 ? frame[ep->column] / ep->units_per_db : 0;
  gboolean loud;

  g_array_append_vals (ep->frames, frame, ep->dims);
  g_array_append_val (ep->times, time);
  g_array_append_val (ep->levels, level);

  if (ep->column < 0) {
    /* nothing to judge by: the whole run is the word */
    loud = TRUE;
    g_array_append_val (ep->floors, level);
    g_array_append_val (ep->loud, loud);
    search (ep);
    return;
  }

  if (!ep->have_floor) {
    ep->have_floor = TRUE;
    ep->floor = ep->judged_floor = level;
  } else {
    ep->floor = MIN (level, ep->floor + ep->p.rise_db);
  }
  loud = level > ep->floor + ep->p.threshold_db;
  g_array_append_val (ep->floors, ep->floor);
  g_array_append_val (ep->loud, loud);
  if (ep->floor < ep->judged_floor - RESCAN_DB)
    judge_again (ep);
  else if (ep->floor > ep->judged_floor)
    ep->judged_floor = ep->floor;
  search (ep);
}

void
afet_dtw_endpointer_end_run (AfetDtwEndpointer * ep)
{
  search (ep);
  if (ep->in_word)
    finish_word (ep, ep->start, ep->last_loud);
  drop_frames (ep, ep->times->len);
  /* the next run may be normalised otherwise: learn its floor anew */
  ep->have_floor = FALSE;
  ep->in_word = FALSE;
  ep->scanned = 0;
}

void
afet_dtw_endpointer_reset (AfetDtwEndpointer * ep)
{
  drop_frames (ep, ep->times->len);
  ep->have_floor = FALSE;
  ep->in_word = FALSE;
  ep->scanned = 0;
}

static inline gdouble
frame_distance (const gfloat * x, const gfloat * y, const gfloat * w,
    guint dims)
{
  gdouble sum = 0;
  guint k;

  if (w) {
    for (k = 0; k < dims; k++) {
      gdouble d = x[k] - y[k];

      sum += w[k] * d * d;
    }
  } else {
    for (k = 0; k < dims; k++) {
      gdouble d = x[k] - y[k];

      sum += d * d;
    }
  }
  return sqrt (sum);
}

gdouble
afet_dtw_distance (const AfetDtwSeq * a, const AfetDtwSeq * b,
    const gfloat * weights, gdouble band, gdouble give_up)
{
  guint n = a->n_frames, m = b->n_frames, dims = a->dims, i, j;
  gdouble *prev, *cur, result, limit;
  gint64 prev_hi = 0;

  g_return_val_if_fail (a->dims == b->dims, G_MAXDOUBLE);
  if (n == 0 || m == 0)
    return G_MAXDOUBLE;

  limit = give_up < G_MAXDOUBLE / (n + m + 1) ? give_up * (n + m) :
      G_MAXDOUBLE;
  prev = g_new (gdouble, m + 1);
  cur = g_new (gdouble, m + 1);
  for (j = 0; j <= m; j++)
    prev[j] = INFINITY;
  prev[0] = 0;

  for (i = 1; i <= n; i++) {
    const gfloat *x = a->data + (gsize) (i - 1) * dims;
    gdouble pos = (gdouble) i / n, row_min = INFINITY;
    gint64 lo = (gint64) ceil ((pos - band) * m);
    gint64 hi = (gint64) floor ((pos + band) * m);

    lo = CLAMP (lo, 1, (gint64) m);
    hi = CLAMP (hi, 1, (gint64) m);
    if (i == 1)
      lo = 1;
    if (i == n)
      hi = m;
    /* keep the band connected (very unequal lengths, a narrow band) */
    lo = MIN (lo, prev_hi + 1);
    if (hi < lo)
      hi = lo;
    prev_hi = hi;

    for (j = 0; j <= m; j++)
      cur[j] = INFINITY;
    for (j = (guint) lo; j <= (guint) hi; j++) {
      gdouble d = frame_distance (x, b->data + (gsize) (j - 1) * dims,
          weights, dims);
      gdouble v = prev[j] + d;

      v = MIN (v, prev[j - 1] + 2 * d);
      v = MIN (v, cur[j - 1] + d);
      cur[j] = v;
      row_min = MIN (row_min, v);
    }
    if (row_min > limit) {
      /* every path costs at least this much already */
      g_free (prev);
      g_free (cur);
      return G_MAXDOUBLE;
    }
    {
      gdouble *t = prev;

      prev = cur;
      cur = t;
    }
  }
  result = isfinite (prev[m]) ? prev[m] / (n + m) : G_MAXDOUBLE;
  g_free (prev);
  g_free (cur);
  return result;
}
