/* An LD_PRELOAD shim for test_extract_eos.py: every EOS message that a bus
 * with a sync handler passes on is posted twice (the same seqnum), as
 * GStreamer 1.22's GstBin does at times when a sink's EOS and the pipeline's
 * last state change to PLAYING meet (bin_do_eos in both threads).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * It wraps the sync handler a program sets (gst_bus_set_sync_handler is
 * called from the program, so the call can be interposed, where GStreamer's
 * own calls to gst_bus_post cannot: libgstreamer binds them itself).  At
 * exit it writes "dup-eos: N duplicates" on stderr, so that the test knows
 * the shim was in effect. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <gst/gst.h>

typedef void (*SetSyncHandler) (GstBus *, GstBusSyncHandler, gpointer,
    GDestroyNotify);

typedef struct
{
  GstBusSyncHandler func;
  gpointer data;
  GDestroyNotify notify;
} Wrapped;

static gint duplicates;
/* set while the duplicate is posted: it is not duplicated again */
static GPrivate posting;

static GstBusSyncReply
wrapper (GstBus * bus, GstMessage * m, gpointer user)
{
  Wrapped *w = user;
  GstBusSyncReply r = w->func ? w->func (bus, m, w->data) : GST_BUS_PASS;
  if (r == GST_BUS_PASS && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS &&
      !g_private_get (&posting)) {
    g_private_set (&posting, GINT_TO_POINTER (1));
    /* gst_message_copy keeps the seqnum, as the bin's second post has it */
    gst_bus_post (bus, gst_message_copy (m));
    g_private_set (&posting, NULL);
    g_atomic_int_inc (&duplicates);
  }
  return r;
}

static void
free_wrapped (gpointer user)
{
  Wrapped *w = user;
  if (w->notify)
    w->notify (w->data);
  g_free (w);
}

static void
report (void)
{
  fprintf (stderr, "dup-eos: %d duplicates\n", g_atomic_int_get (&duplicates));
}

void
gst_bus_set_sync_handler (GstBus * bus, GstBusSyncHandler func,
    gpointer user_data, GDestroyNotify notify)
{
  static SetSyncHandler real;
  static gsize once;
  if (g_once_init_enter (&once)) {
    real = (SetSyncHandler) dlsym (RTLD_NEXT, "gst_bus_set_sync_handler");
    atexit (report);
    g_once_init_leave (&once, 1);
  }
  if (!func) {
    real (bus, NULL, NULL, NULL);
    return;
  }
  Wrapped *w = g_new0 (Wrapped, 1);
  w->func = func;
  w->data = user_data;
  w->notify = notify;
  real (bus, wrapper, w, free_wrapped);
}
