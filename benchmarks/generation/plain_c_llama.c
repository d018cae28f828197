/* The baseline: the same LLaMA forward pass with a cache of keys and values, in plain C in the
 * loop style of llama2.c's run.c (weights stored out x in, matmul one dot product per row of W,
 * rmsnorm, rope, attention over the cache, SwiGLU), float throughout, one thread. Greedy decoding
 * from BOS, timed as step.cpp times cxmat.
 *   plain_c_llama MODEL.bin [STEPS=128] [REPEATS=10]
 * Prints one line of JSON: the tokens of the first run and the seconds of each run. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  int dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
} Config;

typedef struct {
  float *token_embedding_table, *rms_att_weight, *wq, *wk, *wv, *wo, *rms_ffn_weight, *w1, *w2, *w3,
      *rms_final_weight, *wcls;
} Weights;

typedef struct {
  float *x, *xb, *xb2, *hb, *hb2, *q, *k, *v, *att, *logits, *key_cache, *value_cache;
} State;

static float* data;

static int load(const char* path, Config* c, Weights* w) {
  FILE* f = fopen(path, "rb");
  long size;
  float* p;
  int head_size, kv_dim, L, shared;
  if (!f) return 0;
  if (fread(c, sizeof(Config), 1, f) != 1) return 0;
  shared = c->vocab_size > 0; /* run.c's convention: a negative vocab_size means a separate head */
  if (!shared) c->vocab_size = -c->vocab_size;
  fseek(f, 0, SEEK_END);
  size = ftell(f) - (long)sizeof(Config);
  fseek(f, (long)sizeof(Config), SEEK_SET);
  data = malloc((size_t)size);
  if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) return 0;
  fclose(f);
  head_size = c->dim / c->n_heads;
  kv_dim = c->dim * c->n_kv_heads / c->n_heads;
  L = c->n_layers;
  if ((long)sizeof(float) * ((long)c->vocab_size * c->dim + (long)L * c->dim * (2 + 2 * c->dim + 2 * kv_dim) +
                             3L * L * c->dim * c->hidden_dim + c->dim + (long)c->seq_len * head_size +
                             (shared ? 0L : (long)c->vocab_size * c->dim)) !=
      size) {
    fprintf(stderr, "%s: size does not match its config\n", path);
    return 0;
  }
  p = data;
  w->token_embedding_table = p, p += c->vocab_size * c->dim;
  w->rms_att_weight = p, p += L * c->dim;
  w->wq = p, p += L * c->dim * c->dim;
  w->wk = p, p += L * c->dim * kv_dim;
  w->wv = p, p += L * c->dim * kv_dim;
  w->wo = p, p += L * c->dim * c->dim;
  w->rms_ffn_weight = p, p += L * c->dim;
  w->w1 = p, p += L * c->dim * c->hidden_dim;
  w->w2 = p, p += L * c->hidden_dim * c->dim;
  w->w3 = p, p += L * c->dim * c->hidden_dim;
  w->rms_final_weight = p, p += c->dim;
  p += c->seq_len * head_size; /* two unused tables of rotary angles, context x head/2 each */
  w->wcls = shared ? w->token_embedding_table : p;
  return 1;
}

static void alloc_state(State* s, const Config* c) {
  int kv_dim = c->dim * c->n_kv_heads / c->n_heads;
  s->x = calloc((size_t)c->dim, sizeof(float));
  s->xb = calloc((size_t)c->dim, sizeof(float));
  s->xb2 = calloc((size_t)c->dim, sizeof(float));
  s->hb = calloc((size_t)c->hidden_dim, sizeof(float));
  s->hb2 = calloc((size_t)c->hidden_dim, sizeof(float));
  s->q = calloc((size_t)c->dim, sizeof(float));
  s->att = calloc((size_t)c->n_heads * (size_t)c->seq_len, sizeof(float));
  s->logits = calloc((size_t)c->vocab_size, sizeof(float));
  s->key_cache = calloc((size_t)c->n_layers * (size_t)c->seq_len * (size_t)kv_dim, sizeof(float));
  s->value_cache = calloc((size_t)c->n_layers * (size_t)c->seq_len * (size_t)kv_dim, sizeof(float));
}

static void rmsnorm(float* o, const float* x, const float* weight, int size) {
  float ss = 0.0f;
  int j;
  for (j = 0; j < size; j++) ss += x[j] * x[j];
  ss /= (float)size;
  ss += 1e-5f;
  ss = 1.0f / sqrtf(ss);
  for (j = 0; j < size; j++) o[j] = weight[j] * (ss * x[j]);
}

static void softmax(float* x, int size) {
  float max_val = x[0], sum = 0.0f;
  int i;
  for (i = 1; i < size; i++)
    if (x[i] > max_val) max_val = x[i];
  for (i = 0; i < size; i++) {
    x[i] = expf(x[i] - max_val);
    sum += x[i];
  }
  for (i = 0; i < size; i++) x[i] /= sum;
}

/* W (d,n) @ x (n,) -> xout (d,) */
static void matmul(float* xout, const float* x, const float* w, int n, int d) {
  int i, j;
  for (i = 0; i < d; i++) {
    float val = 0.0f;
    for (j = 0; j < n; j++) val += w[i * n + j] * x[j];
    xout[i] = val;
  }
}

static float* forward(const Config* p, const Weights* w, State* s, int token, int pos) {
  float* x = s->x;
  int dim = p->dim, kv_dim = p->dim * p->n_kv_heads / p->n_heads, kv_mul = p->n_heads / p->n_kv_heads;
  int hidden_dim = p->hidden_dim, head_size = dim / p->n_heads;
  int l, i, h, t;
  memcpy(x, w->token_embedding_table + token * dim, (size_t)dim * sizeof(float));
  for (l = 0; l < p->n_layers; l++) {
    int loff = l * p->seq_len * kv_dim;
    rmsnorm(s->xb, x, w->rms_att_weight + l * dim, dim);
    s->k = s->key_cache + loff + pos * kv_dim;
    s->v = s->value_cache + loff + pos * kv_dim;
    matmul(s->q, s->xb, w->wq + l * dim * dim, dim, dim);
    matmul(s->k, s->xb, w->wk + l * dim * kv_dim, dim, kv_dim);
    matmul(s->v, s->xb, w->wv + l * dim * kv_dim, dim, kv_dim);
    for (i = 0; i < dim; i += 2) { /* RoPE, interleaved pairs */
      int head_dim = i % head_size, rotn = i < kv_dim ? 2 : 1, r;
      float freq = 1.0f / powf(10000.0f, (float)head_dim / (float)head_size);
      float val = (float)pos * freq, fcr = cosf(val), fci = sinf(val);
      for (r = 0; r < rotn; r++) {
        float* vec = r == 0 ? s->q : s->k;
        float v0 = vec[i], v1 = vec[i + 1];
        vec[i] = v0 * fcr - v1 * fci;
        vec[i + 1] = v0 * fci + v1 * fcr;
      }
    }
    for (h = 0; h < p->n_heads; h++) { /* attention over the cache, positions 0 .. pos */
      float* q = s->q + h * head_size;
      float* att = s->att + h * p->seq_len;
      float* xb = s->xb + h * head_size;
      for (t = 0; t <= pos; t++) {
        float* k = s->key_cache + loff + t * kv_dim + (h / kv_mul) * head_size;
        float score = 0.0f;
        for (i = 0; i < head_size; i++) score += q[i] * k[i];
        att[t] = score / sqrtf((float)head_size);
      }
      softmax(att, pos + 1);
      memset(xb, 0, (size_t)head_size * sizeof(float));
      for (t = 0; t <= pos; t++) {
        float* v = s->value_cache + loff + t * kv_dim + (h / kv_mul) * head_size;
        float a = att[t];
        for (i = 0; i < head_size; i++) xb[i] += a * v[i];
      }
    }
    matmul(s->xb2, s->xb, w->wo + l * dim * dim, dim, dim);
    for (i = 0; i < dim; i++) x[i] += s->xb2[i];
    rmsnorm(s->xb, x, w->rms_ffn_weight + l * dim, dim);
    matmul(s->hb, s->xb, w->w1 + l * dim * hidden_dim, dim, hidden_dim);
    matmul(s->hb2, s->xb, w->w3 + l * dim * hidden_dim, dim, hidden_dim);
    for (i = 0; i < hidden_dim; i++) { /* SwiGLU */
      float val = s->hb[i];
      val *= (1.0f / (1.0f + expf(-val)));
      s->hb[i] = val * s->hb2[i];
    }
    matmul(s->xb, s->hb, w->w2 + l * dim * hidden_dim, hidden_dim, dim);
    for (i = 0; i < dim; i++) x[i] += s->xb[i];
  }
  rmsnorm(x, x, w->rms_final_weight, dim);
  matmul(s->logits, x, w->wcls, p->dim, p->vocab_size);
  return s->logits;
}

static int argmax(const float* v, int n) {
  int i, best = 0;
  for (i = 1; i < n; i++)
    if (v[i] > v[best]) best = i;
  return best;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run(const Config* c, const Weights* w, State* s, int steps, int* out) {
  int token = 1, pos; /* BOS */
  for (pos = 0; pos < steps; pos++) {
    token = argmax(forward(c, w, s, token, pos), c->vocab_size);
    out[pos] = token;
  }
}

int main(int argc, char** argv) {
  Config c;
  Weights w;
  State s;
  int steps, repeats, r, i, *first, *tokens;
  double* seconds;
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.bin [STEPS] [REPEATS]\n", argv[0]);
    return 2;
  }
  if (!load(argv[1], &c, &w)) {
    fprintf(stderr, "%s: cannot read the weights\n", argv[1]);
    return 1;
  }
  steps = argc > 2 ? atoi(argv[2]) : 128;
  repeats = argc > 3 ? atoi(argv[3]) : 10;
  if (steps < 1 || steps > c.seq_len || repeats < 1) return 2;
  alloc_state(&s, &c);
  first = malloc((size_t)steps * sizeof(int));
  tokens = malloc((size_t)steps * sizeof(int));
  seconds = malloc((size_t)repeats * sizeof(double));
  run(&c, &w, &s, steps, first); /* warm-up, and the tokens */
  for (r = 0; r < repeats; r++) {
    double t0 = now();
    run(&c, &w, &s, steps, tokens);
    seconds[r] = now() - t0;
    if (memcmp(tokens, first, (size_t)steps * sizeof(int)) != 0) {
      fprintf(stderr, "run %d gave other tokens\n", r);
      return 1;
    }
  }
  printf("{\"tokens\": [");
  for (i = 0; i < steps; i++) printf("%s%d", i ? ", " : "", first[i]);
  printf("], \"seconds\": [");
  for (i = 0; i < repeats; i++) printf("%s%.9f", i ? ", " : "", seconds[i]);
  printf("]}\n");
  return 0;
}
