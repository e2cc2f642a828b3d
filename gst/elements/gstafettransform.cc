/* afettransform: Kaldi's transform-feats as an element (one matrix, or one
 * per utterance or speaker from an archive).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afettransform
 * @title: afettransform
 *
 * Kaldi's transform-feats: every frame x of D values goes through a matrix
 * M of R rows, y = M x when M has D columns, y = M[:, :D] x + M[:, D] when
 * it has D + 1 (an affine transform: LDA, MLLT, fMLLR/CMLLR...), on the
 * device, a batch of frames a launch. The output has R values a frame
 * (kind user) and its caps record the matrix (the `transform` field:
 * `sha256:HEX:D:R`), so that a consumer can refuse a stream made with
 * another one.
 *
 * The matrix comes from a file (matrix: Kaldi's binary or text matrix, as
 * copy-matrix writes them, or a 2-D float32/float64 NumPy .npy), or, per
 * utterance or speaker, from a Kaldi archive of matrices (matrices, with
 * utt2spk for per-speaker ones: transform-feats --utt2spk=ark:utt2spk
 * ark:trans.ark). Then the stream's key is the afet-key tag (afetparse
 * sends one per archive entry); the matrix of that utterance (through
 * utt2spk, of its speaker) applies from the next run (the DISCONT that
 * starts the entry, or the next buffer under another key). A key without
 * a matrix, or a stream without a key, is an error naming both files and
 * the key: never passed through unchanged.
 *
 * Per frame, no context: nothing waits for later frames (no latency).
 *
 * ## Example launch lines
 * |[
 * ... ! afetparse ! afettransform matrix=final.mat ! \
 *     afetenc format=kaldi ! filesink location=lda.ark
 * filesrc location=feats.ark ! afetparse ! afettransform \
 *     matrices=trans.ark utt2spk=utt2spk ! afetenc format=kaldi ! ...
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafettransform.h"
#include "gstafetenc.h"
#include "afetmatrix.h"
#include "transform.h"

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

GST_DEBUG_CATEGORY_STATIC (gst_afet_transform_debug);
#define GST_CAT_DEFAULT gst_afet_transform_debug

#define DEFAULT_MATRIX nullptr
#define DEFAULT_MATRICES nullptr
#define DEFAULT_UTT2SPK nullptr

enum
{
  PROP_0,
  PROP_MATRIX,
  PROP_MATRICES,
  PROP_UTT2SPK,
};

/* The matrices the properties name, read once for the caps queries and
 * the run (the files are read again after a property changes or the
 * element stops). */
/* *INDENT-OFF* */
struct Loaded
{
  std::string matrix, matrices, utt2spk;      /* the properties read */
  std::string error;                          /* why they cannot be used */
  int rows = 0, cols = 0;
  std::vector<float> data;                    /* every matrix, in order */
  std::map<std::string, int> index;           /* archive key -> matrix */
  std::map<std::string, std::string> speaker; /* utt2spk */
  std::string sha256;
};

struct GstAfetTransformPrivate
{
  std::string matrix, matrices, utt2spk;
  std::mutex load_lock;
  std::shared_ptr<const Loaded> loaded;
  std::unique_ptr<afet::TransformStage> stage;
  std::shared_ptr<const Loaded> stage_loaded;  /* what the stage holds */
  /* the stream's key: the last afet-key tag, and the key of the run */
  std::string tag_key, run_key;
  bool run_keyed = false;
};
/* *INDENT-ON* */

struct _GstAfetTransform
{
  GstAfetBase parent;
  GstAfetTransformPrivate *priv;
};

G_DEFINE_TYPE (GstAfetTransform, gst_afet_transform, GST_TYPE_AFET_BASE);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (afettransform, "afettransform",
    GST_RANK_NONE, GST_TYPE_AFET_TRANSFORM, gst_afet_tag_register ());

static void
hash_matrix (GChecksum * sum, int rows, int cols, const float *data)
{
  gint32 size[2] = { GINT32_TO_LE (rows), GINT32_TO_LE (cols) };
  g_checksum_update (sum, (const guchar *) size, sizeof size);
  for (size_t i = 0; i < (size_t) rows * cols; i++) {
    guint32 u;
    memcpy (&u, &data[i], 4);
    u = GUINT32_TO_LE (u);
    g_checksum_update (sum, (const guchar *) &u, 4);
  }
}

static std::shared_ptr<const Loaded>
load (const std::string & matrix, const std::string & matrices,
    const std::string & utt2spk)
{
  auto l = std::make_shared<Loaded> ();
  l->matrix = matrix;
  l->matrices = matrices;
  l->utt2spk = utt2spk;
  std::string why;
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  if (matrix.empty () == matrices.empty ()) {
    l->error = matrix.empty () ? "set matrix= (one matrix file) or "
        "matrices= (a Kaldi archive of matrices by utterance or speaker)" :
        "set matrix= or matrices=, not both";
  } else if (!matrix.empty () && !utt2spk.empty ()) {
    l->error = "utt2spk maps utterances to the keys of matrices=, not to "
        "matrix=: unset one of them";
  } else if (!matrix.empty ()) {
    afetfile::Matrix m;
    if (afetfile::read_matrix_file (matrix, &m, &why)) {
      l->rows = m.rows;
      l->cols = m.cols;
      /* the device computes in float, as transform-feats does */
      l->data.assign (m.v.begin (), m.v.end ());
      hash_matrix (sum, l->rows, l->cols, l->data.data ());
    } else {
      l->error = why;
    }
  } else {
    std::vector<std::pair<std::string, afetfile::Matrix>> ark;
    if (!afetfile::read_matrix_archive (matrices, &ark, &why)) {
      l->error = why;
    } else if (!utt2spk.empty ()
        && !afetfile::read_kaldi_table (utt2spk, &l->speaker, &why)) {
      l->error = why;
    } else {
      /* one shape for every matrix: the output's dims are fixed */
      l->rows = ark[0].second.rows;
      l->cols = ark[0].second.cols;
      for (auto & e:ark) {
        if (e.second.rows != l->rows || e.second.cols != l->cols) {
          gchar *m = g_strdup_printf ("%s: the matrix of '%s' is %d x %d, "
              "that of '%s' %d x %d: every matrix of an archive must have "
              "one shape", matrices.c_str (), e.first.c_str (), e.second.rows,
              e.second.cols, ark[0].first.c_str (), l->rows, l->cols);
          l->error = m;
          g_free (m);
          break;
        }
        l->index[e.first] = (int) (l->data.size () / ((size_t) l->rows *
                l->cols));
        l->data.insert (l->data.end (), e.second.v.begin (),
            e.second.v.end ());
      }
      /* by key, so that the order of the entries does not count */
      for (auto & k:l->index) {
        g_checksum_update (sum, (const guchar *) k.first.c_str (),
            k.first.size () + 1);
        hash_matrix (sum, l->rows, l->cols, l->data.data () +
            (size_t) k.second * l->rows * l->cols);
      }
      for (auto & u:l->speaker) {
        g_checksum_update (sum, (const guchar *) u.first.c_str (),
            u.first.size () + 1);
        g_checksum_update (sum, (const guchar *) u.second.c_str (),
            u.second.size () + 1);
      }
    }
  }
  if (l->error.empty ())
    l->sha256 = g_checksum_get_string (sum);
  g_checksum_free (sum);
  return l;
}

/* The matrices of the current properties (read now if they changed). */
static std::shared_ptr<const Loaded>
get_loaded (GstAfetTransform * self)
{
  GstAfetTransformPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  std::string matrix = p->matrix, matrices = p->matrices,
      utt2spk = p->utt2spk;
  GST_OBJECT_UNLOCK (self);
  std::lock_guard<std::mutex> guard (p->load_lock);
  if (!p->loaded || p->loaded->matrix != matrix ||
      p->loaded->matrices != matrices || p->loaded->utt2spk != utt2spk)
    p->loaded = load (matrix, matrices, utt2spk);
  return p->loaded;
}

static const char *
source_name (const Loaded & l)
{
  return l.matrix.empty ()? l.matrices.c_str () : l.matrix.c_str ();
}

static gboolean
gst_afet_transform_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetTransform *self = GST_AFET_TRANSFORM (base);
  auto l = get_loaded (self);
  if (!l->error.empty ()) {
    *why = g_strdup (l->error.c_str ());
    return FALSE;
  }
  const int d = in->features.dims;
  if (l->cols != d && l->cols != d + 1) {
    *why = g_strdup_printf ("%s: a %d x %d matrix does not fit the stream's "
        "%d-value frames: it needs %d columns (y = M x) or %d (y = M x + b, "
        "the last column b)", source_name (*l), l->rows, l->cols, d, d,
        d + 1);
    return FALSE;
  }
  *out = in->features;
  /* the values are no longer the kind's columns, nor normalised as the
   * input was */
  out->kind = AFET_FEATURES_KIND_USER;
  out->dims = l->rows;
  out->statics = l->rows;
  out->delta_order = 0;
  out->c0_index = -1;
  out->energy_index = -1;
  out->normalization = AFET_FEATURES_NORM_NONE;
  out->norm_columns = AFET_FEATURES_NORM_COLUMNS_ALL;
  return TRUE;
}

static void
gst_afet_transform_describe_analysis (GstAfetBase * base,
    const GstAfetInput * in, GstStructure * s)
{
  auto l = get_loaded (GST_AFET_TRANSFORM (base));
  if (!l->error.empty ())
    return;
  /* the steps before (an earlier afettransform), then this one */
  gchar *step = g_strdup_printf ("%s%ssha256:%s:%d:%d",
      in->transform.c_str (), in->transform.empty ()? "" : " ",
      l->sha256.c_str (), in->features.dims, l->rows);
  gst_structure_set (s, "transform", G_TYPE_STRING, step, nullptr);
  g_free (step);
}

static gboolean
gst_afet_transform_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetTransform *self = GST_AFET_TRANSFORM (base);
  GstAfetTransformPrivate *p = self->priv;
  auto l = get_loaded (self);
  if (!l->error.empty ()) {
    *why = g_strdup (l->error.c_str ());
    return FALSE;
  }
  afet::TransformConfig c;
  c.dims = in->features.dims;
  c.row_stride = in->in_dims;
  c.out_dims = l->rows;
  c.cols = l->cols;
  c.matrices = l->data;
  c.max_batch = in->max_batch;
  auto stage = std::make_unique<afet::TransformStage> ();
  afet::Status st = stage->init (env->device, c, env->queue, env->stats);
  if (!st.ok ()) {
    *why = g_strdup_printf ("%s: %s", source_name (*l),
        st.message ().c_str ());
    return FALSE;
  }
  (void) out;
  (void) needs;
  p->stage = std::move (stage);
  p->stage_loaded = l;
  /* the matrix of the next run is chosen when it starts */
  p->run_keyed = false;
  return TRUE;
}

/* matrices=: the run's key (the last afet-key tag) picks its matrix */
static gboolean
gst_afet_transform_run_start (GstAfetBase * base)
{
  GstAfetTransform *self = GST_AFET_TRANSFORM (base);
  GstAfetTransformPrivate *p = self->priv;
  const Loaded *l = p->stage_loaded.get ();
  if (!p->stage || !l || l->matrices.empty ())
    return TRUE;
  const std::string key = p->tag_key;
  if (key.empty ()) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("%s: the stream has no key to pick its matrix from %s: feed it "
            "from afetparse (an afet-key tag for every archive entry) or "
            "set matrix= for one matrix", GST_ELEMENT_NAME (self),
            l->matrices.c_str ()), (nullptr));
    return FALSE;
  }
  std::string spk = key;
  if (!l->utt2spk.empty ()) {
    auto u = l->speaker.find (key);
    if (u == l->speaker.end ()) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("%s: utterance '%s' is not in utt2spk file %s, so no matrix of "
              "%s is known for it", GST_ELEMENT_NAME (self), key.c_str (),
              l->utt2spk.c_str (), l->matrices.c_str ()), (nullptr));
      return FALSE;
    }
    spk = u->second;
  }
  auto m = l->index.find (spk);
  if (m == l->index.end ()) {
    if (l->utt2spk.empty ())
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("%s: archive %s has no matrix for utterance '%s' (with "
              "per-speaker matrices, set utt2spk=)", GST_ELEMENT_NAME (self),
              l->matrices.c_str (), key.c_str ()), (nullptr));
    else
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("%s: archive %s has no matrix for speaker '%s' (of utterance "
              "'%s' in utt2spk file %s)", GST_ELEMENT_NAME (self),
              l->matrices.c_str (), spk.c_str (), key.c_str (),
              l->utt2spk.c_str ()), (nullptr));
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "run of '%s': matrix of '%s'", key.c_str (),
      spk.c_str ());
  p->stage->select (m->second);
  p->run_key = key;
  p->run_keyed = true;
  return TRUE;
}

/* a buffer under another key than its run's starts a run (as afetenc
 * starts an entry): the frames before go through the old matrix */
static GstFlowReturn
gst_afet_transform_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstAfetTransformPrivate *p = GST_AFET_TRANSFORM (trans)->priv;
  if (p->run_keyed && p->tag_key != p->run_key &&
      !GST_BUFFER_IS_DISCONT (input)) {
    input = gst_buffer_make_writable (input);
    GST_BUFFER_FLAG_SET (input, GST_BUFFER_FLAG_DISCONT);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_afet_transform_parent_class)->
      submit_input_buffer (trans, is_discont, input);
}

static gboolean
gst_afet_transform_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstAfetTransformPrivate *p = GST_AFET_TRANSFORM (trans)->priv;
  if (GST_EVENT_TYPE (event) == GST_EVENT_TAG) {
    GstTagList *tags;
    gchar *key = nullptr;
    gst_event_parse_tag (event, &tags);
    if (gst_tag_list_get_string (tags, GST_AFET_TAG_KEY, &key)) {
      p->tag_key = key;
      g_free (key);
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_afet_transform_parent_class)->
      sink_event (trans, event);
}

static gboolean
gst_afet_transform_process (GstAfetBase * base, const GstAfetBatch * in,
    gint n, cl_mem out, gsize out_row, gchar ** why)
{
  GstAfetTransformPrivate *p = GST_AFET_TRANSFORM (base)->priv;
  afet::Status st = in->device ?
      p->stage->enqueue (in->device, in->in_row, n, out, out_row) :
      p->stage->enqueue_host ((const float *) in->host, n, out, out_row);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

static void
gst_afet_transform_release (GstAfetBase * base)
{
  GstAfetTransformPrivate *p = GST_AFET_TRANSFORM (base)->priv;
  p->stage.reset ();
  p->stage_loaded.reset ();
  p->run_keyed = false;
}

static gboolean
gst_afet_transform_stop (GstBaseTransform * trans)
{
  GstAfetTransformPrivate *p = GST_AFET_TRANSFORM (trans)->priv;
  {
    /* read the files again at the next start */
    std::lock_guard<std::mutex> guard (p->load_lock);
    p->loaded.reset ();
  }
  p->tag_key.clear ();
  p->run_key.clear ();
  p->run_keyed = false;
  return GST_BASE_TRANSFORM_CLASS (gst_afet_transform_parent_class)->stop
      (trans);
}

static void
gst_afet_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  /* the base class' (latency-budget) */
  if (gst_afet_base_set_framing_property (object, prop_id, value))
    return;
  GstAfetTransform *self = GST_AFET_TRANSFORM (object);
  GstAfetTransformPrivate *p = self->priv;
  const gchar *s = g_value_get_string (value);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MATRIX:
      p->matrix = s ? s : "";
      break;
    case PROP_MATRICES:
      p->matrices = s ? s : "";
      break;
    case PROP_UTT2SPK:
      p->utt2spk = s ? s : "";
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return;
  GstAfetTransform *self = GST_AFET_TRANSFORM (object);
  GstAfetTransformPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  const std::string *s = nullptr;
  switch (prop_id) {
    case PROP_MATRIX:
      s = &p->matrix;
      break;
    case PROP_MATRICES:
      s = &p->matrices;
      break;
    case PROP_UTT2SPK:
      s = &p->utt2spk;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (s)
    g_value_set_string (value, s->empty ()? nullptr : s->c_str ());
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_transform_finalize (GObject * object)
{
  delete GST_AFET_TRANSFORM (object)->priv;
  G_OBJECT_CLASS (gst_afet_transform_parent_class)->finalize (object);
}

static void
gst_afet_transform_class_init (GstAfetTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_transform_debug, "afettransform", 0,
      "afet linear / affine transform (Kaldi's transform-feats)");

  gobject_class->set_property = gst_afet_transform_set_property;
  gobject_class->get_property = gst_afet_transform_get_property;
  gobject_class->finalize = gst_afet_transform_finalize;

  g_object_class_install_property (gobject_class, PROP_MATRIX,
      g_param_spec_string ("matrix", "Matrix",
          "One matrix for every frame: Kaldi's binary or text matrix file "
          "(copy-matrix) or a 2-D float32/float64 NumPy .npy; D columns "
          "(D = the input's dims): y = M x; D + 1: y = M x + the last column",
          DEFAULT_MATRIX, flags));
  g_object_class_install_property (gobject_class, PROP_MATRICES,
      g_param_spec_string ("matrices", "Matrices",
          "A Kaldi archive of matrices (binary or text) keyed by utterance, "
          "or by speaker with utt2spk: the stream's afet-key tag picks the "
          "matrix of each entry (transform-feats ark:...)",
          DEFAULT_MATRICES, flags));
  g_object_class_install_property (gobject_class, PROP_UTT2SPK,
      g_param_spec_string ("utt2spk", "Utterance to speaker",
          "Kaldi utt2spk file ('utterance speaker' lines): the matrices' "
          "keys are speakers (transform-feats --utt2spk)",
          DEFAULT_UTT2SPK, flags));

  gst_afet_base_class_set_element (element_class,
      GST_AFET_FEATURES_CAPS (AFET_FEATURES_KINDS_ALL),
      GST_AFET_FEATURES_CAPS ("user"), "afet transform",
      "Linear or affine transform of every frame (Kaldi's transform-feats: "
      "LDA, MLLT, fMLLR) on an OpenCL device");

  trans_class->sink_event = gst_afet_transform_sink_event;
  trans_class->submit_input_buffer = gst_afet_transform_submit_input_buffer;
  trans_class->stop = gst_afet_transform_stop;

  base_class->describe = gst_afet_transform_describe;
  base_class->describe_analysis = gst_afet_transform_describe_analysis;
  base_class->configure = gst_afet_transform_configure;
  base_class->process = gst_afet_transform_process;
  base_class->release = gst_afet_transform_release;
  base_class->run_start = gst_afet_transform_run_start;
}

static void
gst_afet_transform_init (GstAfetTransform * self)
{
  self->priv = new GstAfetTransformPrivate ();
}
