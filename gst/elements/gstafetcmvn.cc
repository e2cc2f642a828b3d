/* The afetcmvn element: mean, variance or min/max normalisation of a feature
 * stream over the utterance, the sliding span or running from the start.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetcmvn
 * @title: afetcmvn
 *
 * Normalises a feature stream: subtracts the mean (CMN), also divides by
 * the standard deviation (CVN), or scales into [-1, 1] around the mean
 * (min/max, thesis eq. 4.3), with statistics accumulated in double over
 *
 * - the whole stream (scope=utterance, output at EOS or DISCONT; with
 *   columns=htk this is HTK's _Z; refused on a live source),
 * - Kaldi's sliding span (scope=sliding: apply-cmvn-sliding with
 *   cmn-window, center and min-window),
 * - everything from the stream's start (scope=running, optionally
 *   starting from statistics read from stats-file), for live use with no
 *   look-ahead,
 * - or Kaldi's statistics read from an archive (scope=archive: apply-cmvn;
 *   mode=meanvar for --norm-vars): each run of frames (an archive entry
 *   from afetparse, DISCONT to DISCONT) takes the entry of its key (the
 *   key property, else the afet-key tag), or of its speaker through
 *   utt2spk (--utt2spk), from stats-archive, as Kaldi's ApplyCmvn applies
 *   it; no look-ahead, live too.
 *
 * write-stats sums the input's statistics as compute-cmvn-stats does (per
 * key, or per speaker with utt2spk as --spk2utt) and writes them at EOS as
 * a binary Kaldi archive (2 x (D + 1) doubles an entry), in any scope (a
 * live sliding stream then keeps out of the shared lanes: its frames are
 * summed in order, alone). docs/kaldi-recipe.md compares both with Kaldi.
 *
 * energy-normalise applies HTK's ENORMALISE to the log-energy column (floor
 * at Emax - silence-floor ln(10) / 10, then 1 - (Emax - E) energy-scale);
 * HTK does it before the dynamics, so put afetcmvn before afetdelta then.
 *
 * Live, in the sliding scope, with rows in system memory: the rows of all
 * such streams of one configuration in the process stay in lanes of one
 * device buffer and are computed in shared launches (combine-streams;
 * results unchanged), for many live streams on one device.
 *
 * ## Example launch lines
 * |[
 * ... ! afetmfcc frame-length=20 ! afetdelta delta-window=3 accel-window=3 ! \
 *     afetcmvn columns=htk ! filesink location=s.mfcc        # HTK MFCC_0_D_A_Z
 * ... ! afetmfcc ! afetdelta ! afetcmvn scope=sliding ! ...   # live, Kaldi
 *     (many live streams: nothing to set, live input gets system memory
 *     between the elements and shared launches)
 * filesrc location=feats.ark ! afetparse ! afetcmvn scope=archive \
 *     stats-archive=cmvn.ark utt2spk=utt2spk mode=meanvar ! ...  # apply-cmvn
 * filesrc location=feats.ark ! afetparse ! afetcmvn mode=none \
 *     write-stats=cmvn.ark ! fakesink     # compute-cmvn-stats
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetcmvn.h"
#include "gstafetdebug.h"
#include "gstafetenc.h"
#include "afetmatrix.h"
#include "cmvn.h"

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

GST_DEBUG_CATEGORY_STATIC (gst_afet_cmvn_debug);
#define GST_CAT_DEFAULT gst_afet_cmvn_debug

#define DEFAULT_MODE GST_AFET_CMVN_MODE_MEAN
#define DEFAULT_SCOPE GST_AFET_CMVN_SCOPE_UTTERANCE
#define DEFAULT_CMN_WINDOW 600
#define DEFAULT_CENTER FALSE
#define DEFAULT_MIN_WINDOW 100
#define DEFAULT_COLUMNS GST_AFET_CMVN_COLUMNS_ALL
#define DEFAULT_ENERGY_NORMALISE FALSE
#define DEFAULT_ENERGY_SCALE 0.1
#define DEFAULT_SILENCE_FLOOR 50.0
#define DEFAULT_STATS_FILE nullptr
#define DEFAULT_STATS_ARCHIVE nullptr
#define DEFAULT_UTT2SPK nullptr
#define DEFAULT_KEY nullptr
#define DEFAULT_WRITE_STATS nullptr

enum
{
  PROP_0,
  PROP_MODE,
  PROP_SCOPE,
  PROP_CMN_WINDOW,
  PROP_CENTER,
  PROP_MIN_WINDOW,
  PROP_COLUMNS,
  PROP_ENERGY_NORMALISE,
  PROP_ENERGY_SCALE,
  PROP_SILENCE_FLOOR,
  PROP_STATS_FILE,
  PROP_STATS_ARCHIVE,
  PROP_UTT2SPK,
  PROP_KEY,
  PROP_WRITE_STATS,
};

GST_AFET_DEFINE_ENUM (gst_afet_cmvn_mode_get_type, "GstAfetCmvnMode",
    {GST_AFET_CMVN_MODE_NONE, "No normalisation", "none"},
    {GST_AFET_CMVN_MODE_MEAN, "Zero mean (CMN)", "mean"},
    {GST_AFET_CMVN_MODE_MEANVAR, "Zero mean, unit variance (CVN)",
        "meanvar"},
    {GST_AFET_CMVN_MODE_MINMAX, "Zero mean, within [-1, 1] (min/max)",
        "minmax"});
GST_AFET_DEFINE_ENUM (gst_afet_cmvn_scope_get_type, "GstAfetCmvnScope",
    {GST_AFET_CMVN_SCOPE_UTTERANCE, "The whole stream (up to EOS or DISCONT)",
        "utterance"},
    {GST_AFET_CMVN_SCOPE_SLIDING, "Kaldi's sliding span", "sliding"},
    {GST_AFET_CMVN_SCOPE_RUNNING, "Everything from the stream's start",
        "running"},
    {GST_AFET_CMVN_SCOPE_ARCHIVE, "Kaldi's statistics of the stream's key "
          "(or speaker) from stats-archive (apply-cmvn)", "archive"});
GST_AFET_DEFINE_ENUM (gst_afet_cmvn_columns_get_type, "GstAfetCmvnColumns",
    {GST_AFET_CMVN_COLUMNS_ALL, "Every column", "all"},
    {GST_AFET_CMVN_COLUMNS_STATICS, "The static block", "statics"},
    {GST_AFET_CMVN_COLUMNS_HTK, "The statics but log energy (HTK _Z)",
        "htk"});

/* *INDENT-OFF* */
struct GstAfetCmvnPrivate
{
  GstAfetCmvnMode mode = DEFAULT_MODE;
  GstAfetCmvnScope scope = DEFAULT_SCOPE;
  guint cmn_window = DEFAULT_CMN_WINDOW;
  gboolean center = DEFAULT_CENTER;
  guint min_window = DEFAULT_MIN_WINDOW;
  GstAfetCmvnColumns columns = DEFAULT_COLUMNS;
  gboolean energy_normalise = DEFAULT_ENERGY_NORMALISE;
  gdouble energy_scale = DEFAULT_ENERGY_SCALE;
  gdouble silence_floor = DEFAULT_SILENCE_FLOOR;
  std::string stats_file;
  std::string stats_archive, utt2spk, key, write_stats;
  std::unique_ptr<afet::CmvnStage> stage;

  /* streaming thread: what start () read, the afet-key tag last seen */
  std::map<std::string, afetfile::Matrix> archive;
  std::map<std::string, std::string> spk_of;
  std::string tag_key;
  std::set<std::string> warned;
  /* write-stats: the sums of each key (or speaker) in the order they
   * came; acc_target's are on the device while acc_open */
  std::vector<std::string> acc_order;
  std::map<std::string, std::vector<double>> acc;
  std::string acc_target;
  bool acc_open = false;
  int acc_dims = 0;
};
/* *INDENT-ON* */

struct _GstAfetCmvn
{
  GstAfetBase parent;
  GstAfetCmvnPrivate *priv;
};

G_DEFINE_TYPE (GstAfetCmvn, gst_afet_cmvn, GST_TYPE_AFET_BASE);
/* the afet-key tag names the stream's key */
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (afetcmvn, "afetcmvn", GST_RANK_NONE,
    GST_TYPE_AFET_CMVN, gst_afet_tag_register ());

/* stats-file: "count", then the means, then optionally the variances, as
 * whitespace-separated numbers (one line each is customary) */
static bool
read_stats (const std::string & path, afet::CmvnConfig * c, gchar ** why)
{
  std::ifstream in (path);
  if (!in || !g_file_test (path.c_str (), G_FILE_TEST_IS_REGULAR)) {
    *why = g_strdup_printf ("cannot read stats-file %s", path.c_str ());
    return false;
  }
  std::vector<double> v;
  std::string word;
  while (in >> word) {
    gchar *end = nullptr;
    double x = g_ascii_strtod (word.c_str (), &end);
    if (end == word.c_str () || *end || !std::isfinite (x)) {
      *why = g_strdup_printf ("stats-file %s: \"%s\" (number %zu) is not a "
          "finite number", path.c_str (), word.c_str (), v.size () + 1);
      return false;
    }
    v.push_back (x);
  }
  size_t d = (size_t) c->dims;
  if (v.size () != 1 + d && v.size () != 1 + 2 * d) {
    *why = g_strdup_printf ("stats-file %s holds %zu numbers; expected a "
        "frame count and %zu means (and %zu variances)", path.c_str (),
        v.size (), d, d);
    return false;
  }
  c->initial_count = v[0];
  c->initial_mean.assign (v.begin () + 1, v.begin () + 1 + d);
  if (v.size () == 1 + 2 * d)
    c->initial_var.assign (v.begin () + 1 + d, v.end ());
  return true;
}

/* with_stats: read stats-file too (configure; describe, which runs at
 * every caps query, does not need the numbers) */
static bool
make_config (GstAfetCmvn * self, const GstAfetInput * in,
    afet::CmvnConfig * c, gchar ** why, bool with_stats)
{
  GstAfetCmvnPrivate *p = self->priv;
  const AfetFeaturesInfo *f = &in->features;
  GST_OBJECT_LOCK (self);
  c->mode = (afet::CmvnMode) p->mode;
  c->scope = (afet::CmvnScope) p->scope;
  c->cmn_window = (int) p->cmn_window;
  c->center = p->center;
  c->min_window = (int) p->min_window;
  c->energy_normalise = p->energy_normalise;
  c->energy_scale = (float) p->energy_scale;
  c->silence_floor = (float) p->silence_floor;
  GstAfetCmvnColumns columns = p->columns;
  std::string stats_file = p->stats_file;
  const bool archive = !p->stats_archive.empty ();
  const bool utt2spk = !p->utt2spk.empty ();
  c->accumulate = !p->write_stats.empty ();
  GST_OBJECT_UNLOCK (self);

  if (c->scope == afet::CmvnScope::ARCHIVE && !archive) {
    *why = g_strdup ("scope=archive reads Kaldi's statistics from "
        "stats-archive: set stats-archive=PATH (an archive of "
        "compute-cmvn-stats)");
    return false;
  }
  if (archive && c->scope != afet::CmvnScope::ARCHIVE) {
    *why = g_strdup ("stats-archive is read in scope=archive only: set "
        "scope=archive, or unset stats-archive");
    return false;
  }
  if (utt2spk && !archive && !c->accumulate) {
    *why = g_strdup ("utt2spk maps keys to speakers for stats-archive or "
        "write-stats, and neither is set");
    return false;
  }

  c->dims = f->dims;
  c->row_stride = in->in_dims;
  c->max_batch = in->max_batch;
  c->energy_column = f->energy_index;
  c->mask.assign (f->dims, 0);
  for (int i = 0; i < f->dims; i++) {
    bool on = columns == GST_AFET_CMVN_COLUMNS_ALL || i < f->statics;
    if (columns == GST_AFET_CMVN_COLUMNS_HTK && i == f->energy_index)
      on = false;
    c->mask[i] = on ? 1 : 0;
  }
  if (with_stats && !stats_file.empty () && !read_stats (stats_file, c, why))
    return false;
  afet::Status st = c->validate ();
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return false;
  }
  return true;
}

static gboolean
gst_afet_cmvn_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetCmvn *self = GST_AFET_CMVN (base);
  afet::CmvnConfig c;
  if (!make_config (self, in, &c, why, false))
    return FALSE;
  *out = in->features;
  static const AfetFeaturesNorm norms[] = { AFET_FEATURES_NORM_NONE,
    AFET_FEATURES_NORM_MEAN, AFET_FEATURES_NORM_MEANVAR,
    AFET_FEATURES_NORM_MINMAX
  };
  out->normalization = norms[(int) c.mode];
  /* the columns this element normalised, as the caps name them; energy
   * normalisation alone (mode none) leaves the field unwritten */
  GST_OBJECT_LOCK (self);
  GstAfetCmvnColumns columns = self->priv->columns;
  GST_OBJECT_UNLOCK (self);
  static const AfetFeaturesNormColumns sets[] = {
    AFET_FEATURES_NORM_COLUMNS_ALL, AFET_FEATURES_NORM_COLUMNS_STATICS,
    AFET_FEATURES_NORM_COLUMNS_HTK
  };
  out->norm_columns = sets[(int) columns];
  if (out->norm_columns == AFET_FEATURES_NORM_COLUMNS_ALL &&
      out->delta_order == 0)
    out->norm_columns = AFET_FEATURES_NORM_COLUMNS_STATICS;
  if (out->norm_columns == AFET_FEATURES_NORM_COLUMNS_HTK &&
      out->energy_index < 0)
    out->norm_columns = AFET_FEATURES_NORM_COLUMNS_STATICS;
  return TRUE;
}

static gboolean
gst_afet_cmvn_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetCmvn *self = GST_AFET_CMVN (base);
  afet::CmvnConfig c;
  if (!make_config (self, in, &c, why, true))
    return FALSE;
  auto stage = std::make_unique<afet::CmvnStage> ();
  afet::Status st = stage->init (env->device, c, env->queue);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  gst_afet_needs_context (needs, c.back (), c.ahead (), in->in_dims,
      c.start_need ());
  gst_afet_needs_lanes (needs, stage.get ());
  self->priv->stage = std::move (stage);
  return TRUE;
}

/* normalization-stats: where the statistics came from, the stream itself
 * (any of its scopes: a model trained per utterance takes a live sliding
 * stream) or Kaldi's archive, so that a consumer can refuse a stream
 * normalised otherwise; mode=none writes nothing (an input's field passes
 * on) */
static void
gst_afet_cmvn_describe_analysis (GstAfetBase * base, const GstAfetInput * in,
    GstStructure * s)
{
  GstAfetCmvn *self = GST_AFET_CMVN (base);
  GstAfetCmvnPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  GstAfetCmvnMode mode = p->mode;
  GstAfetCmvnScope scope = p->scope;
  bool speaker = !p->utt2spk.empty ();
  GST_OBJECT_UNLOCK (self);
  if (mode == GST_AFET_CMVN_MODE_NONE)
    return;
  const char *v = scope != GST_AFET_CMVN_SCOPE_ARCHIVE ? "stream" :
      speaker ? "kaldi-speaker" : "kaldi-utterance";
  gst_structure_set (s, "normalization-stats", G_TYPE_STRING, v, nullptr);
}

/* The stream's key (the key property, else the afet-key tag) and the key
 * its statistics go under (its speaker through utt2spk); FALSE with an
 * error posted when there is none. */
static gboolean
run_keys (GstAfetCmvn * self, const char *what, std::string * key,
    std::string * target)
{
  GstAfetCmvnPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  *key = p->key.empty ()? p->tag_key : p->key;
  std::string utt2spk = p->utt2spk;
  GST_OBJECT_UNLOCK (self);
  if (key->empty ()) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s needs the key (utterance "
            "id) of the stream: set %s key=..., or feed it from afetparse "
            "(its " GST_AFET_TAG_KEY " tag names each archive entry)", what,
            GST_ELEMENT_NAME (self)), ("no key"));
    return FALSE;
  }
  *target = *key;
  if (!utt2spk.empty ()) {
    auto it = p->spk_of.find (*key);
    if (it == p->spk_of.end ()) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Key '%s' is not in utt2spk "
              "%s: add its speaker there.", key->c_str (), utt2spk.c_str ()),
          ("%s", what));
      return FALSE;
    }
    *target = it->second;
  }
  return TRUE;
}

/* write-stats: the open sums back from the device into acc */
static gboolean
close_sums (GstAfetCmvn * self)
{
  GstAfetCmvnPrivate *p = self->priv;
  if (!p->acc_open)
    return TRUE;
  p->acc_open = false;
  std::vector<double> v;
  afet::Status st = p->stage ? p->stage->stats (&v) :
      afet::Status (afet::Status::BAD_CONFIG, "no engine");
  if (!st.ok ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Cannot read the statistics "
            "of '%s' back from the device: %s", p->acc_target.c_str (),
            st.message ().c_str ()), (nullptr));
    return FALSE;
  }
  p->acc[p->acc_target] = std::move (v);
  return TRUE;
}

static gboolean
gst_afet_cmvn_run_start (GstAfetBase * base)
{
  GstAfetCmvn *self = GST_AFET_CMVN (base);
  GstAfetCmvnPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  const bool archive = p->scope == GST_AFET_CMVN_SCOPE_ARCHIVE;
  const bool write = !p->write_stats.empty ();
  const std::string archive_path = p->stats_archive;
  const std::string utt2spk = p->utt2spk;
  const bool norm_vars = p->mode == GST_AFET_CMVN_MODE_MEANVAR;
  GST_OBJECT_UNLOCK (self);
  if (!archive && !write)
    return TRUE;
  if (!p->stage) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (nullptr), ("no engine"));
    return FALSE;
  }
  const int dims = p->stage->config ().dims;
  std::string key, target;
  if (!run_keys (self, archive ? "scope=archive" : "write-stats", &key,
          &target))
    return FALSE;
  const std::string of = target == key ? "" : " (the speaker of '" + key +
      "' in " + utt2spk + ")";

  if (write) {
    if (!close_sums (self))
      return FALSE;
    auto it = p->acc.find (target);
    if (it == p->acc.end ()) {
      p->acc_order.push_back (target);
      it = p->acc.emplace (target, std::vector<double> ()).first;
    } else if ((int) it->second.size () != 2 * (dims + 1)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("write-stats: the statistics "
              "of '%s'%s so far have %d columns, this stream %d (one "
              "archive entry holds one feature layout).", target.c_str (),
              of.c_str (), (int) it->second.size () / 2 - 1, dims),
          (nullptr));
      return FALSE;
    }
    afet::Status st = p->stage->set_stats (it->second);
    if (!st.ok ()) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("write-stats: %s",
              st.message ().c_str ()), (nullptr));
      return FALSE;
    }
    p->acc_target = target;
    p->acc_open = true;
  }

  if (archive) {
    auto it = p->archive.find (target);
    if (it == p->archive.end ()) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("No statistics for '%s'%s "
              "in stats-archive %s.", target.c_str (), of.c_str (),
              archive_path.c_str ()), ("key '%s'", key.c_str ()));
      return FALSE;
    }
    const afetfile::Matrix & m = it->second;
    std::vector<float> scale, offset;
    std::string warning;
    afet::Status st = afet::kaldi_cmvn_affine (m.v.data (), m.rows, m.cols,
        dims, norm_vars, &scale, &offset, &warning);
    if (st.ok ())
      st = p->stage->set_affine (scale, offset);
    if (!st.ok ()) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("The statistics of '%s'%s in "
              "stats-archive %s: %s", target.c_str (), of.c_str (),
              archive_path.c_str (), st.message ().c_str ()), (nullptr));
      return FALSE;
    }
    if (!warning.empty () && p->warned.insert (target).second)
      GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("The statistics of '%s'%s "
              "in stats-archive %s: %s (as Kaldi's apply-cmvn does)",
              target.c_str (), of.c_str (), archive_path.c_str (),
              warning.c_str ()), (nullptr));
    GST_DEBUG_OBJECT (self, "run of '%s': statistics of '%s'", key.c_str (),
        target.c_str ());
  }
  return TRUE;
}

/* EOS: write-stats writes every key's (speaker's) sums so far */
static gboolean
gst_afet_cmvn_stream_end (GstAfetBase * base)
{
  GstAfetCmvn *self = GST_AFET_CMVN (base);
  GstAfetCmvnPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  const std::string path = p->write_stats;
  GST_OBJECT_UNLOCK (self);
  if (path.empty ())
    return TRUE;
  if (!close_sums (self))
    return FALSE;
  std::string data;
  for (const std::string & k:p->acc_order) {
    const std::vector<double> &v = p->acc[k];
    afetfile::Matrix m;
    m.rows = 2;
    m.cols = (int) v.size () / 2;
    m.v = v;
    data += afetfile::kaldi_double_entry (k, m);
  }
  std::string why;
  if (!afetfile::write_file_atomically (path, data, &why)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("write-stats: %s",
            why.c_str ()), (nullptr));
    return FALSE;
  }
  if (p->acc_order.empty ())
    GST_ELEMENT_WARNING (self, STREAM, FAILED, ("write-stats: no frames came, "
            "so %s holds no statistics.", path.c_str ()), (nullptr));
  GST_DEBUG_OBJECT (self, "wrote the statistics of %zu keys to %s",
      p->acc_order.size (), path.c_str ());
  return TRUE;
}

static gboolean
gst_afet_cmvn_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstAfetCmvn *self = GST_AFET_CMVN (trans);
  GstAfetCmvnPrivate *p = self->priv;
  if (GST_EVENT_TYPE (event) == GST_EVENT_TAG) {
    GstTagList *tags;
    gst_event_parse_tag (event, &tags);
    gchar *key = nullptr;
    if (gst_tag_list_get_string (tags, GST_AFET_TAG_KEY, &key)) {
      GST_OBJECT_LOCK (self);
      p->tag_key = key;
      GST_OBJECT_UNLOCK (self);
      g_free (key);
    }
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START) {
    GST_OBJECT_LOCK (self);
    p->tag_key.clear ();
    GST_OBJECT_UNLOCK (self);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_afet_cmvn_parent_class)->sink_event
      (trans, event);
}

/* reads stats-archive and utt2spk (each start: a file rewritten between
 * runs is read again); the sums of write-stats start empty */
static gboolean
gst_afet_cmvn_start (GstBaseTransform * trans)
{
  GstAfetCmvn *self = GST_AFET_CMVN (trans);
  GstAfetCmvnPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  const std::string archive = p->stats_archive, utt2spk = p->utt2spk;
  GST_OBJECT_UNLOCK (self);
  p->archive.clear ();
  p->spk_of.clear ();
  p->warned.clear ();
  p->acc.clear ();
  p->acc_order.clear ();
  p->acc_open = false;
  std::string why;
  if (!archive.empty ()) {
    std::vector<std::pair<std::string, afetfile::Matrix>> v;
    if (!afetfile::read_matrix_archive (archive, &v, &why)) {
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("stats-archive: %s",
              why.c_str ()), (nullptr));
      return FALSE;
    }
    for (auto & e:v)
      p->archive.emplace (e.first, std::move (e.second));
  }
  if (!utt2spk.empty () && !afetfile::read_kaldi_table (utt2spk, &p->spk_of,
          &why)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("utt2spk: %s",
            why.c_str ()), (nullptr));
    return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_afet_cmvn_parent_class)->start (trans);
}

static gboolean
gst_afet_cmvn_process (GstAfetBase * base, const GstAfetBatch * in, gint n,
    cl_mem out, gsize out_row, gchar ** why)
{
  GstAfetCmvn *self = GST_AFET_CMVN (base);
  afet::Status st = self->priv->stage->enqueue (in->block, in->out_first, n,
      out, out_row);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

static void
gst_afet_cmvn_release (GstAfetBase * base)
{
  GstAfetCmvn *self = GST_AFET_CMVN (base);
  /* a format change: the run before it was drained, its sums stay */
  close_sums (self);
  self->priv->stage.reset ();
}

static void
gst_afet_cmvn_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  if (gst_afet_base_set_framing_property (object, prop_id, value))
    return;                     /* htk-config */
  GstAfetCmvn *self = GST_AFET_CMVN (object);
  GstAfetCmvnPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      p->mode = (GstAfetCmvnMode) g_value_get_enum (value);
      break;
    case PROP_SCOPE:
      p->scope = (GstAfetCmvnScope) g_value_get_enum (value);
      break;
    case PROP_CMN_WINDOW:
      p->cmn_window = g_value_get_uint (value);
      break;
    case PROP_CENTER:
      p->center = g_value_get_boolean (value);
      break;
    case PROP_MIN_WINDOW:
      p->min_window = g_value_get_uint (value);
      break;
    case PROP_COLUMNS:
      p->columns = (GstAfetCmvnColumns) g_value_get_enum (value);
      break;
    case PROP_ENERGY_NORMALISE:
      p->energy_normalise = g_value_get_boolean (value);
      break;
    case PROP_ENERGY_SCALE:
      p->energy_scale = g_value_get_double (value);
      break;
    case PROP_SILENCE_FLOOR:
      p->silence_floor = g_value_get_double (value);
      break;
    case PROP_STATS_FILE:{
      const gchar *s = g_value_get_string (value);
      p->stats_file = s ? s : "";
      break;
    }
    case PROP_STATS_ARCHIVE:
    case PROP_UTT2SPK:
    case PROP_KEY:
    case PROP_WRITE_STATS:{
      const gchar *s = g_value_get_string (value);
      std::string *dst = prop_id == PROP_STATS_ARCHIVE ? &p->stats_archive :
          prop_id == PROP_UTT2SPK ? &p->utt2spk : prop_id == PROP_KEY ?
          &p->key : &p->write_stats;
      *dst = s ? s : "";
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_cmvn_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return;
  GstAfetCmvn *self = GST_AFET_CMVN (object);
  GstAfetCmvnPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, p->mode);
      break;
    case PROP_SCOPE:
      g_value_set_enum (value, p->scope);
      break;
    case PROP_CMN_WINDOW:
      g_value_set_uint (value, p->cmn_window);
      break;
    case PROP_CENTER:
      g_value_set_boolean (value, p->center);
      break;
    case PROP_MIN_WINDOW:
      g_value_set_uint (value, p->min_window);
      break;
    case PROP_COLUMNS:
      g_value_set_enum (value, p->columns);
      break;
    case PROP_ENERGY_NORMALISE:
      g_value_set_boolean (value, p->energy_normalise);
      break;
    case PROP_ENERGY_SCALE:
      g_value_set_double (value, p->energy_scale);
      break;
    case PROP_SILENCE_FLOOR:
      g_value_set_double (value, p->silence_floor);
      break;
    case PROP_STATS_FILE:
      g_value_set_string (value, p->stats_file.empty () ? nullptr :
          p->stats_file.c_str ());
      break;
    case PROP_STATS_ARCHIVE:
    case PROP_UTT2SPK:
    case PROP_KEY:
    case PROP_WRITE_STATS:{
      const std::string & v = prop_id == PROP_STATS_ARCHIVE ?
          p->stats_archive : prop_id == PROP_UTT2SPK ? p->utt2spk :
          prop_id == PROP_KEY ? p->key : p->write_stats;
      g_value_set_string (value, v.empty ()? nullptr : v.c_str ());
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_cmvn_finalize (GObject * object)
{
  delete GST_AFET_CMVN (object)->priv;
  G_OBJECT_CLASS (gst_afet_cmvn_parent_class)->finalize (object);
}

static void
gst_afet_cmvn_class_init (GstAfetCmvnClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_cmvn_debug, "afetcmvn", 0,
      "afet normalisation");

  gobject_class->set_property = gst_afet_cmvn_set_property;
  gobject_class->get_property = gst_afet_cmvn_get_property;
  gobject_class->finalize = gst_afet_cmvn_finalize;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "What to normalise",
          gst_afet_cmvn_mode_get_type (), DEFAULT_MODE, flags));
  g_object_class_install_property (gobject_class, PROP_SCOPE,
      g_param_spec_enum ("scope", "Scope", "Frames the statistics cover",
          gst_afet_cmvn_scope_get_type (), DEFAULT_SCOPE, flags));
  g_object_class_install_property (gobject_class, PROP_CMN_WINDOW,
      g_param_spec_uint ("cmn-window", "CMN window",
          "Frames of the sliding span (Kaldi --cmn-window)", 1, 100000,
          DEFAULT_CMN_WINDOW, flags));
  g_object_class_install_property (gobject_class, PROP_CENTER,
      g_param_spec_boolean ("center", "Center",
          "Centre the sliding span on the frame (look-ahead of half the "
          "span; Kaldi --center)", DEFAULT_CENTER, flags));
  g_object_class_install_property (gobject_class, PROP_MIN_WINDOW,
      g_param_spec_uint ("min-window", "Minimum window",
          "Frames the sliding span covers at a stream's start, looking ahead "
          "if needed (Kaldi --min-cmn-window)", 1, 100000,
          DEFAULT_MIN_WINDOW, flags));
  g_object_class_install_property (gobject_class, PROP_COLUMNS,
      g_param_spec_enum ("columns", "Columns",
          "Columns to normalise, read from the caps' frame layout",
          gst_afet_cmvn_columns_get_type (), DEFAULT_COLUMNS, flags));
  g_object_class_install_property (gobject_class, PROP_ENERGY_NORMALISE,
      g_param_spec_boolean ("energy-normalise", "Energy normalise",
          "HTK's ENORMALISE on the log-energy column (scope=utterance)",
          DEFAULT_ENERGY_NORMALISE, flags));
  g_object_class_install_property (gobject_class, PROP_ENERGY_SCALE,
      g_param_spec_double ("energy-scale", "Energy scale",
          "Scale of the normalised log energy: 1 - (Emax - E) x scale (HTK "
          "ESCALE)", 0.0, 100.0, DEFAULT_ENERGY_SCALE, flags));
  g_object_class_install_property (gobject_class, PROP_SILENCE_FLOOR,
      g_param_spec_double ("silence-floor", "Silence floor",
          "HTK SILFLOOR in dB below the loudest frame", 0.0, 1000.0,
          DEFAULT_SILENCE_FLOOR, flags));
  g_object_class_install_property (gobject_class, PROP_STATS_FILE,
      g_param_spec_string ("stats-file", "Statistics file",
          "Initial statistics for scope=running: a frame count, the means, "
          "optionally the variances (whitespace-separated numbers)",
          DEFAULT_STATS_FILE, flags));
  g_object_class_install_property (gobject_class, PROP_STATS_ARCHIVE,
      g_param_spec_string ("stats-archive", "Statistics archive",
          "scope=archive: a Kaldi archive of CMVN statistics (compute-cmvn-"
          "stats: 2 x (D + 1) matrices, binary DM/FM or text) keyed by "
          "utterance, or by speaker with utt2spk; read at start",
          DEFAULT_STATS_ARCHIVE, flags));
  g_object_class_install_property (gobject_class, PROP_UTT2SPK,
      g_param_spec_string ("utt2spk", "Utterance to speaker",
          "A Kaldi utt2spk file (\"KEY SPEAKER\" lines): stats-archive is "
          "keyed, and write-stats sums, by speaker (apply-cmvn --utt2spk, "
          "compute-cmvn-stats --spk2utt)", DEFAULT_UTT2SPK, flags));
  g_object_class_install_property (gobject_class, PROP_KEY,
      g_param_spec_string ("key", "Key",
          "The stream's key (utterance id) for stats-archive and write-stats;"
          " unset: the " GST_AFET_TAG_KEY " tag (afetparse sends one per "
          "archive entry)", DEFAULT_KEY, flags));
  g_object_class_install_property (gobject_class, PROP_WRITE_STATS,
      g_param_spec_string ("write-stats", "Write statistics",
          "Sum the input's CMVN statistics per key (per speaker with "
          "utt2spk) as compute-cmvn-stats does and write them to this path "
          "at EOS as a binary Kaldi archive (through a temporary file and a "
          "rename)", DEFAULT_WRITE_STATS, flags));

  gst_afet_base_class_install_htk_config (gobject_class);
  gst_afet_base_class_install_combine (gobject_class);
  gst_afet_base_class_set_element (element_class,
      GST_AFET_FEATURES_CAPS (AFET_FEATURES_KINDS_ALL),
      GST_AFET_FEATURES_CAPS (AFET_FEATURES_KINDS_ALL), "afet CMVN",
      "Cepstral mean / variance normalisation on an OpenCL device");

  base_class->describe = gst_afet_cmvn_describe;
  base_class->configure = gst_afet_cmvn_configure;
  base_class->process = gst_afet_cmvn_process;
  base_class->release = gst_afet_cmvn_release;
  base_class->describe_analysis = gst_afet_cmvn_describe_analysis;
  base_class->run_start = gst_afet_cmvn_run_start;
  base_class->stream_end = gst_afet_cmvn_stream_end;
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_afet_cmvn_sink_event);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_afet_cmvn_start);

  gst_type_mark_as_plugin_api (gst_afet_cmvn_mode_get_type (),
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_afet_cmvn_scope_get_type (),
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (gst_afet_cmvn_columns_get_type (),
      (GstPluginAPIFlags) 0);
}

static void
gst_afet_cmvn_init (GstAfetCmvn * self)
{
  self->priv = new GstAfetCmvnPrivate ();
}
