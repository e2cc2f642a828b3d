/* GstAfetBase's live chains: a spectral element and the context elements
 * after it (afetmfcc ! afetdelta ! afetcmvn scope=sliding) computed in one
 * pass of the combined launches, each stream's thread waiting once a round.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* How it goes (engine/temporal/chain.h computes; this file finds the chain
 * and hands each element its rows):
 *
 * - A live spectral element that combines its batches (the front) asks
 *   downstream, at its second output buffer of a run, which elements
 *   would compute in its pass: a custom query ("afet-chain") that each
 *   context element answers when it is the direct peer of the one before,
 *   live, in a lane of its context combiner (gstafetbase-lanes.cc), with
 *   a latency budget of 0 and nothing held; it adds itself and asks its
 *   own peer. The front keeps references to them for the run.
 * - A round: the front computes, from each link's own state (the rows its
 *   lane has, the frames it has given), the rows each will be given and
 *   the frames each will then give (RowHistory::ready_of, the rule its
 *   own path uses), and hands the frames and those steps to the
 *   ChainCombiner, with a buffer for each stage's rows. Its output buffer
 *   (its rows) carries a GstAfetChainMeta for the next element: the rows
 *   that element's computation gives, as the buffer it pushes, itself
 *   with a meta for the element after. On a CPU device the pass leaves
 *   the rows between the stages on the device (chain.h, RowsBetween):
 *   then every element's buffer but the last one's is device memory, a
 *   region of the pass's block (a map downloads it; the links, which take
 *   their rows from the meta, never map it), and the pass waits for the
 *   device once, at the last element's download.
 * - A link that gets a buffer with its meta checks that it is the one
 *   meant and that its lane and counts are those the front read; then it
 *   takes the rows as its own output (timestamped and queued as its own
 *   path would) without computing or reading the buffer. Anything else
 *   (another element between, a run restarted, a budget set) and the
 *   buffer is an ordinary input: read (a region maps to a download) and
 *   computed the usual way, writing the same rows into the same lane
 *   places (a row's place follows from its index), so the values do not
 *   depend on which path ran.
 * - Only with the front's output queue empty (what it computed before
 *   has been pushed, so the links' counts are current: a direct peer
 *   computes in the pusher's thread) and not for a run's first buffer
 *   (its DISCONT restarts the links' runs after the front has read them).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetbase-private.h"

#include "gstafetclmemory.h"

#define GST_CAT_DEFAULT gst_afet_base_debug

#define CHAIN_QUERY "afet-chain"

/* on a front's output buffer (and a link's, for the next link): what the
 * next element would compute from it, computed */
struct GstAfetChainMeta
{
  GstMeta meta;
  GstAfetBase *target;          /* compared only, no reference */
  const void *combiner;
  gint lane;
  gint64 first_row;
  guint64 out_first;
  gint64 m, n;
  gboolean combined;
  /* the pass left the rows between the stages on the device (the target
   * read its rows there, and its own stay there unless it is the last) */
  gboolean on_device;
  gboolean last;
  GstBuffer *out;               /* n rows (a reference), or none */
};

static GType
chain_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { nullptr };
  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstAfetChainMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
chain_meta_init (GstMeta * meta, gpointer, GstBuffer *)
{
  GstAfetChainMeta *m = (GstAfetChainMeta *) meta;
  m->target = nullptr;
  m->combiner = nullptr;
  m->lane = -1;
  m->first_row = 0;
  m->out_first = 0;
  m->m = m->n = 0;
  m->combined = FALSE;
  m->on_device = m->last = FALSE;
  m->out = nullptr;
  return TRUE;
}

static void
chain_meta_free (GstMeta * meta, GstBuffer *)
{
  gst_clear_buffer (&((GstAfetChainMeta *) meta)->out);
}

/* no transform function: a copied buffer (anything that writes it) loses
 * the meta, and its next element computes from the rows themselves */
static const GstMetaInfo *
chain_meta_info (void)
{
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (chain_meta_api_get_type (),
        "GstAfetChainMeta", sizeof (GstAfetChainMeta), chain_meta_init,
        chain_meta_free, nullptr);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

void
afet_base_chain_release (GstAfetBaseState * p)
{
  for (GstAfetBase *l : p->chain_links)
    gst_object_unref (l);
  p->chain_links.clear ();
  p->chain.reset ();
  p->chain_checked = false;
}

bool
afet_base_chain_is_query (GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CUSTOM)
    return false;
  const GstStructure *s = gst_query_get_structure (query);
  return s && gst_structure_has_name (s, CHAIN_QUERY);
}

/* Whether pad's peer is the sink pad of l. */
static bool
peer_is (GstPad * pad, GstAfetBase * l)
{
  GstPad *peer = gst_pad_get_peer (pad);
  bool is = peer && peer == GST_BASE_TRANSFORM (l)->sinkpad;
  if (peer)
    gst_object_unref (peer);
  return is;
}

/* A link's state that lets the front compute for it: a lane, nothing held
 * (every row it was given is in the lane, every output it made pushed). */
static bool
link_ready (GstAfetBaseState * q)
{
  return q->configured && q->live && q->combiner && q->lane >= 0 &&
      q->budget == 0 && !q->out_device && q->stream.empty () &&
      !q->adopted && q->outq.empty ();
}

gboolean
afet_base_chain_answer (GstAfetBase * self, GstQuery * query)
{
  GstAfetBaseState *p = PRIV (self);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstStructure *s = gst_query_writable_structure (query);
  gpointer from = nullptr, links = nullptr;
  if (!gst_structure_get (s, "from", G_TYPE_POINTER, &from, "links",
          G_TYPE_POINTER, &links, nullptr) || !links)
    return FALSE;
  auto *v = (std::vector<GstAfetBase *> *) links;
  if (from != (gpointer) trans->sinkpad || v->size () >=
      (size_t) afet::ChainCombiner::kMaxLinks)
    return FALSE;
  if (!p->configured) {
    /* not yet: the front asks again at its next round */
    gst_structure_set (s, "open", G_TYPE_BOOLEAN, TRUE, nullptr);
    return FALSE;
  }
  if (!p->context_mode || p->in.audio)
    return FALSE;
  /* this element's state is its streaming thread's: held by the stream
   * lock of its sink pad (the asker's thread pushes into it, so the lock
   * is taken in the order the buffers take it), not changing under a
   * state change meanwhile */
  GST_PAD_STREAM_LOCK (trans->sinkpad);
  bool ready = !GST_PAD_IS_FLUSHING (trans->sinkpad);
  if (ready) {
    afet_base_check_live (self);
    ready = p->live && afet_base_lanes_active (self) && link_ready (p);
  }
  GST_PAD_STREAM_UNLOCK (trans->sinkpad);
  if (!ready)
    return FALSE;
  v->push_back ((GstAfetBase *) gst_object_ref (self));
  /* the elements after this one, the same way (their answer adds them;
   * "from": the pad the query is for, so that only a direct peer joins) */
  GstPad *peer = gst_pad_get_peer (trans->srcpad);
  if (peer) {
    gst_structure_set (s, "from", G_TYPE_POINTER, (gpointer) peer, nullptr);
    gst_object_unref (peer);
    gst_pad_peer_query (trans->srcpad, query);
  }
  return TRUE;
}

/* Asks downstream for the chain after this front element (the run's
 * second buffer, and again while a link is not yet configured). */
static void
find_chain (GstAfetBase * self,
    const std::shared_ptr<afet::SpectralCombiner> &front)
{
  GstAfetBaseState *p = PRIV (self);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  afet_base_chain_release (p);
  std::vector<GstAfetBase *> links;
  GstPad *peer = gst_pad_get_peer (trans->srcpad);
  if (!peer) {
    p->chain_checked = true;
    return;
  }
  GstQuery *q = gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new (CHAIN_QUERY, "from", G_TYPE_POINTER,
          (gpointer) peer, "links", G_TYPE_POINTER, (gpointer) & links,
          "open", G_TYPE_BOOLEAN, FALSE, nullptr));
  gst_object_unref (peer);
  gst_pad_peer_query (trans->srcpad, q);
  gboolean open = FALSE;
  gst_structure_get_boolean (gst_query_get_structure (q), "open", &open);
  gst_query_unref (q);
  p->chain_checked = !open;
  if (links.empty ())
    return;
  std::vector<std::shared_ptr<afet::ContextCombiner>> combiners;
  for (GstAfetBase *l : links) {
    /* (the link's state under its stream lock: see chain_compute) */
    GstPad *sink = GST_BASE_TRANSFORM (l)->sinkpad;
    GST_PAD_STREAM_LOCK (sink);
    combiners.push_back (PRIV (l)->combiner);
    GST_PAD_STREAM_UNLOCK (sink);
  }
  afet::Status st = afet::ChainCombiner::get (front, combiners,
      afet::ChainCombiner::rows_between_for (*p->device, *front, combiners),
      &p->chain);
  if (!st.ok ()) {
    GST_DEBUG_OBJECT (self, "no live chain: %s", st.message ().c_str ());
    for (GstAfetBase *l : links)
      gst_object_unref (l);
    return;
  }
  p->chain_links.swap (links);
  GST_DEBUG_OBJECT (self, "live chain: %zu element(s) after this one "
      "compute in its combined launches%s", p->chain_links.size (),
      open ? " (asking again: one is not configured yet)" : "");
}

static GstFlowReturn chain_round (GstAfetBase * self, gint64 n,
    const void *frames, gsize bytes, GstBuffer ** out, gboolean * handled);

GstFlowReturn
afet_base_chain_compute (GstAfetBase * self, const GstAfetBatch * proto,
    gint64 n, GstBuffer ** out, gboolean * handled)
{
  GstAfetBaseState *p = PRIV (self);
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  *handled = FALSE;
  if (!klass->combined_front || !p->live || !p->in.audio || p->out_device ||
      p->frames_out == 0 || !p->outq.empty () || n <= 0 ||
      n > afet::ContextCombiner::kMaxRows ||
      (p->chain_checked && !p->chain))
    return GST_FLOW_OK;
  std::shared_ptr<afet::SpectralCombiner> front;
  const void *frames = nullptr;
  gsize bytes = 0;
  if (!klass->combined_front (self, proto, (gint) n, &front, &frames,
          &bytes))
    return GST_FLOW_OK;
  if (!p->chain_checked)
    find_chain (self, front);
  if (!p->chain)
    return GST_FLOW_OK;

  /* each link's step, from its own state: read, and its buffers made,
   * under the stream lock of its sink pad (its streaming thread's state;
   * this thread is the one that pushes into it, so the locks are taken
   * in the order the buffers take them), so that a state change of a
   * link (its stop releases its lane) waits for the round */
  /* (references of this round's own: the round may drop the chain) */
  GstAfetBase *held[afet::ChainCombiner::kMaxLinks];
  const size_t links = p->chain_links.size ();
  size_t locked = 0;
  for (; locked < links; locked++) {
    held[locked] = (GstAfetBase *) gst_object_ref (p->chain_links[locked]);
    GstPad *sink = GST_BASE_TRANSFORM (held[locked])->sinkpad;
    GST_PAD_STREAM_LOCK (sink);
    if (GST_PAD_IS_FLUSHING (sink)) {
      GST_PAD_STREAM_UNLOCK (sink);
      gst_object_unref (held[locked]);
      break;
    }
  }
  GstFlowReturn ret = GST_FLOW_OK;
  if (locked == links)
    ret = chain_round (self, n, frames, bytes, out, handled);
  for (size_t j = locked; j-- > 0;) {
    GST_PAD_STREAM_UNLOCK (GST_BASE_TRANSFORM (held[j])->sinkpad);
    gst_object_unref (held[j]);
  }
  return ret;
}

/* A round through the chain (the links' sink pads' stream locks held). */
static GstFlowReturn
chain_round (GstAfetBase * self, gint64 n, const void *frames, gsize bytes,
    GstBuffer ** out, gboolean * handled)
{
  GstAfetBaseState *p = PRIV (self);
  afet::ChainCombiner::Call call;
  call.frames = frames;
  call.n = (int) n;
  call.gather_us = afet::ChainCombiner::gather_for (p->budget);
  const size_t links = p->chain_links.size ();
  GstPad *pad = GST_BASE_TRANSFORM (self)->srcpad;
  long long m = n;
  size_t last = 0;
  for (size_t j = 0; j < links; j++) {
    GstAfetBase *l = p->chain_links[j];
    GstAfetBaseState *q = PRIV (l);
    if (!peer_is (pad, l) || !link_ready (q) ||
        q->combiner.get () != p->chain->link (j)) {
      GST_DEBUG_OBJECT (self, "live chain left at %" GST_PTR_FORMAT, l);
      afet_base_chain_release (p);
      p->chain_checked = true;  /* until the next run */
      return GST_FLOW_OK;
    }
    pad = GST_BASE_TRANSFORM (l)->srcpad;
    afet::ChainCombiner::Step & s = call.steps[j];
    s.lane = q->lane;
    s.first_row = q->lane_rows;
    s.out_first = (long long) q->frames_out;
    s.m = (int) m;
    s.n = m > 0 ? (int) afet::RowHistory::ready_of (q->extent, s.first_row +
        m, q->frames_out, false) : 0;
    if (m > 0)
      last = j;
    m = s.n;
  }
  afet::Status st = p->chain->admit (call);
  if (!st.ok ()) {
    GST_DEBUG_OBJECT (self, "this round alone: %s", st.message ().c_str ());
    return GST_FLOW_OK;
  }
  /* every stage's rows into the buffer its element pushes: host memory,
   * or with the rows between the stages left on the device (CPU devices),
   * for all but the last the device memory they are in (made below) */
  const bool on_device = p->chain->between () ==
      afet::ChainCombiner::RowsBetween::DEVICE;
  GstBuffer *bufs[afet::ChainCombiner::kMaxLinks + 1] = { nullptr };
  GstMapInfo maps[afet::ChainCombiner::kMaxLinks + 1];
  bool ok = true;
  for (size_t j = on_device ? links : 0; j <= links && ok; j++) {
    const gint64 rows = j == 0 ? n : call.steps[j - 1].n;
    if (rows == 0)
      break;
    const gint dims = j == 0 ? p->out.dims : PRIV (p->chain_links[j -
            1])->out.dims;
    bufs[j] = gst_buffer_new_allocate (nullptr, (gsize) rows * dims *
        sizeof (float), nullptr);
    ok = gst_buffer_map (bufs[j], &maps[j], GST_MAP_WRITE);
    if (!ok) {
      gst_clear_buffer (&bufs[j]);
      break;
    }
    if (j == 0)
      call.front_out = (float *) maps[0].data;
    else
      call.steps[j - 1].out = (float *) maps[j].data;
  }
  bool combined = false;
  if (ok)
    st = p->chain->compute (&call, &combined);
  for (size_t j = 0; j <= links; j++)
    if (bufs[j])
      gst_buffer_unmap (bufs[j], &maps[j]);
  if (ok && st.ok () && on_device) {
    /* the rows left on the device: each element's its own memory */
    for (size_t j = 0; j < links; j++) {
      afet::DeviceRows & r = j == 0 ? call.front_rows :
          call.steps[j - 1].rows;
      const gint64 rows = j == 0 ? n : call.steps[j - 1].n;
      if (!r.block)
        continue;
      GstAfetBaseState *q = j == 0 ? p : PRIV (p->chain_links[j - 1]);
      bufs[j] = gst_buffer_new ();
      gst_buffer_append_memory (bufs[j], gst_afet_cl_memory_new_region
          (q->device, q->queue.get (), q->stats, std::move (r.block),
              r.offset, (gsize) rows * q->out.dims * sizeof (float),
              r.ready));
      r = afet::DeviceRows ();
    }
  }
  if (!ok || !st.ok ()) {
    for (size_t j = 0; j <= links; j++)
      gst_clear_buffer (&bufs[j]);
    afet_base_post_engine_error (self, ok ? st.message ().c_str () :
        "cannot map an output buffer");
    return GST_FLOW_ERROR;
  }
  /* each buffer tells its next element what it computed (from the last) */
  for (size_t j = last + 1; j-- > 0;) {
    if (!bufs[j])
      continue;
    afet::ChainCombiner::Step & s = call.steps[j];
    GstAfetChainMeta *meta = (GstAfetChainMeta *) gst_buffer_add_meta
        (bufs[j], chain_meta_info (), nullptr);
    meta->target = p->chain_links[j];
    meta->combiner = p->chain->link (j);
    meta->lane = s.lane;
    meta->first_row = s.first_row;
    meta->out_first = (guint64) s.out_first;
    meta->m = s.m;
    meta->n = s.n;
    meta->combined = combined;
    meta->on_device = on_device;
    meta->last = j + 1 == links;
    meta->out = bufs[j + 1];
    bufs[j + 1] = nullptr;
  }
  /* this element's share of the pass's copies, as its own path counts */
  p->stats->uploads++;
  p->stats->upload_bytes += bytes;
  if (!on_device) {
    p->stats->downloads++;
    p->stats->download_bytes += (guint64) n * p->out.dims * sizeof (float);
  }
  if (combined)
    gst_afet_base_count_combined (self);
  afet_base_count_chained (self);
  *out = bufs[0];
  *handled = TRUE;
  return GST_FLOW_OK;
}

bool
afet_base_chain_accept (GstAfetBase * self, GstBuffer * input)
{
  GstAfetChainMeta *meta = (GstAfetChainMeta *) gst_buffer_get_meta (input,
      chain_meta_api_get_type ());
  if (!meta || meta->target != self)
    return false;
  GstAfetBaseState *p = PRIV (self);
  const gsize row_bytes = (gsize) p->in.in_dims * sizeof (float);
  if (!p->live || p->budget != 0 || p->out_device || !p->combiner ||
      p->combiner.get () != meta->combiner ||
      p->lane != meta->lane || p->lane_rows != meta->first_row ||
      p->frames_out != meta->out_first || !p->stream.empty () ||
      p->adopted || row_bytes == 0 ||
      gst_buffer_get_size (input) != (gsize) meta->m * row_bytes) {
    GST_DEBUG_OBJECT (self, "rows computed in the chain's pass not taken "
        "(lane %d rows %" G_GINT64_FORMAT " frames %" G_GUINT64_FORMAT
        " against %d %" G_GINT64_FORMAT " %" G_GUINT64_FORMAT
        "): computing them here", p->lane, p->lane_rows, p->frames_out,
        meta->lane, meta->first_row, meta->out_first);
    return false;
  }
  p->lane_rows += meta->m;
  p->units_in += (guint64) meta->m;
  /* this stream's share of the pass's copies, as lanes_push counts */
  if (meta->m > 0 && !meta->on_device) {
    p->stats->uploads++;
    p->stats->upload_bytes += (guint64) meta->m * row_bytes;
  }
  if (meta->n > 0 && (!meta->on_device || meta->last)) {
    p->stats->downloads++;
    p->stats->download_bytes += (guint64) meta->n * p->out.dims *
        sizeof (float);
  }
  if (meta->combined)
    gst_afet_base_count_combined (self);
  afet_base_count_chained (self);
  if (meta->n > 0 && meta->out)
    afet_base_queue_output (self, gst_buffer_ref (meta->out), meta->n);
  return true;
}
