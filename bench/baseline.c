/*
 * A plain C implementation of the same reading of the paper's GA (ALGORITHM.md), used
 * by `npm run bench` as the same-run baseline: machines are noisy, so the TypeScript
 * island is reported as a ratio to this program measured minutes apart on one machine.
 * It draws from xoshiro128** seeded exactly as src/ga/rng.ts does and makes the same
 * draws in the same order, so for a given seed it takes the same number of iterations
 * as the TypeScript island: a differential check of both.
 *
 * usage: baseline N SEED [ITERATIONS]   prints: iterations evaluations seconds solved
 * With ITERATIONS, runs exactly that many iterations (ignoring solutions) to time throughput.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint32_t s[4];
static uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }
static uint32_t next_u32(void) {
  uint32_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 9;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 11);
  return result;
}
static double rfloat(void) { return next_u32() / 4294967296.0; }
static int rint_(int bound) { return (int)(((uint64_t)next_u32() * (uint64_t)bound) >> 32); }
static uint32_t mix32(uint32_t z) {
  z = (z ^ (z >> 16)) * 0x85ebca6bu; z = (z ^ (z >> 13)) * 0xc2b2ae35u; return z ^ (z >> 16);
}
static void seed_stream(uint64_t seed, uint32_t stream) {
  uint32_t x = mix32((uint32_t)seed) ^ mix32((uint32_t)(seed >> 32) + 0x632be5abu);
  x = mix32(x ^ ((stream + 1) * 0x9e3779b9u));
  for (int i = 0; i < 4; i++) { x += 0x9e3779b9u; s[i] = mix32(x); }
  if ((s[0] | s[1] | s[2] | s[3]) == 0) s[0] = 1;
}
static int uniform_other(int size, int excluded) { int b = rint_(size - 1); return b >= excluded ? b + 1 : b; }
static int rank_select(int size) { int a = rint_(size), b = uniform_other(size, a); return a < b ? a : b; }

static int n, m, nb, pairs;
static uint16_t *pop, *bad, *kids;
static int *fit, *order, *kfit, *cnt, *up, *down, *mark, *hp, *hc;
static int epoch_f = 0, epoch_m = 0;
static long long evaluations = 0;

static int fitness(const uint16_t *g) {
  int e = ++epoch_f, distinct = 0;
  for (int i = 0; i < n; i++) {
    int r = g[i], u = r - i + n - 1, d = r + i;
    distinct += (up[u] != e) + (down[d] != e); up[u] = e; down[d] = e;
  }
  evaluations++;
  return 2 * n - distinct;
}
static void rerank(const int *f, int *ord, int size) {
  memset(cnt, 0, sizeof(int) * (2 * n + 1));
  for (int i = 0; i < size; i++) cnt[f[i] + 1]++;
  for (int i = 1; i <= 2 * n; i++) cnt[i] += cnt[i - 1];
  for (int i = 0; i < size; i++) ord[cnt[f[i]]++] = i;
}
static void ox1(const uint16_t *p1, const uint16_t *p2, uint16_t *c, int lo, int hi) {
  int e = ++epoch_m, k = 0, pos = 0;
  for (int i = lo; i <= hi; i++) { mark[p1[i]] = e; c[i] = p1[i]; }
  if (lo == 0) pos = hi + 1;
  while (pos < n) { int a = p2[k++]; if (mark[a] != e) { c[pos++] = a; if (pos == lo) pos = hi + 1; } }
}
static void swap_random(uint16_t *g) {
  int i = rint_(n), j = uniform_other(n, i); uint16_t t = g[i]; g[i] = g[j]; g[j] = t;
}
/* Breeds children c and c+1; returns 1 when one of them is a solution. */
static int breed(const uint16_t *a, const uint16_t *b, int c) {
  int x = rint_(n), y = rint_(n), lo = x < y ? x : y, hi = x < y ? y : x;
  ox1(a, b, kids + (size_t)c * n, lo, hi);
  ox1(b, a, kids + (size_t)(c + 1) * n, lo, hi);
  for (int k = c; k <= c + 1; k++) {
    uint16_t *g = kids + (size_t)k * n;
    double u = rfloat();
    if (u < 0.8 || u < 0.4) { swap_random(g); if (u < 0.4) swap_random(g); }
    kfit[k] = fitness(g);
    if (kfit[k] == 0) return 1;
  }
  return 0;
}
static void survive(int count) {
  memset(hp, 0, sizeof(int) * 2 * n); memset(hc, 0, sizeof(int) * 2 * n);
  for (int i = 0; i < m; i++) hp[fit[i]]++;
  for (int c = 0; c < count; c++) hc[kfit[c]]++;
  int below = 0, t = 0;
  while (below + hp[t] + hc[t] < m) { below += hp[t] + hc[t]; t++; }
  int at_t = m - below - hp[t], rank = m - 1;
  for (int c = 0; c < count; c++) {
    int f = kfit[c];
    if (f < t || (f == t && at_t-- > 0)) {
      int slot = order[rank--];
      memcpy(pop + (size_t)slot * n, kids + (size_t)c * n, sizeof(uint16_t) * n); fit[slot] = f;
    }
  }
  if (rank < m - 1) rerank(fit, order, m);
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: baseline N SEED [ITERATIONS]\n"); return 2; }
  n = atoi(argv[1]); uint64_t seed = strtoull(argv[2], 0, 10); long fixed = argc > 3 ? atol(argv[3]) : 0;
  m = 1000; nb = (int)floor(sqrt((double)n)); pairs = m / 2;
  double t0 = now();
  seed_stream(seed, 0);
  int all = m + nb, nk = 2 * pairs + 4;
  uint16_t *init = malloc(sizeof(uint16_t) * (size_t)all * n);
  pop = malloc(sizeof(uint16_t) * (size_t)m * n); bad = malloc(sizeof(uint16_t) * (size_t)nb * n);
  kids = malloc(sizeof(uint16_t) * (size_t)nk * n);
  int *ifit = malloc(sizeof(int) * all), *iord = malloc(sizeof(int) * all);
  fit = malloc(sizeof(int) * m); order = malloc(sizeof(int) * m); kfit = malloc(sizeof(int) * nk);
  cnt = calloc(2 * n + 1, sizeof(int)); up = calloc(2 * n, sizeof(int)); down = calloc(2 * n, sizeof(int));
  mark = calloc(n, sizeof(int)); hp = calloc(2 * n, sizeof(int)); hc = calloc(2 * n, sizeof(int));
  for (int q = 0; q < all; q++) {
    uint16_t *g = init + (size_t)q * n;
    for (int i = 0; i < n; i++) g[i] = i;
    for (int i = n - 1; i > 0; i--) { int j = rint_(i + 1); uint16_t t = g[i]; g[i] = g[j]; g[j] = t; }
    ifit[q] = fitness(g);
  }
  rerank(ifit, iord, all);
  for (int r = 0; r < all; r++) {
    const uint16_t *src = init + (size_t)iord[r] * n;
    if (r < m) { memcpy(pop + (size_t)r * n, src, sizeof(uint16_t) * n); fit[r] = ifit[iord[r]]; }
    else memcpy(bad + (size_t)(r - m) * n, src, sizeof(uint16_t) * n);
  }
  rerank(fit, order, m);
  long it = 0; int solved = fit[order[0]] == 0;
  while (!solved || fixed) {
    if (fixed && it >= fixed) break;
    int c = 0, found = 0;
    for (int p = 0; p < pairs && !found; p++) {
      int ra = rank_select(m), rb;
      do rb = rank_select(m); while (rb == ra);
      found = breed(pop + (size_t)order[ra] * n, pop + (size_t)order[rb] * n, c); c += 2;
    }
    if (!found && nb >= 2) { int x = rint_(nb), y = uniform_other(nb, x); found = breed(bad + (size_t)x * n, bad + (size_t)y * n, c); c += 2; }
    if (!found && nb >= 1) { int x = rint_(nb), y = rint_(m); found = breed(bad + (size_t)x * n, pop + (size_t)y * n, c); c += 2; }
    /* The generation that made the solution counts, as the paper counts it. */
    if (found && !fixed) { solved = 1; it++; break; }
    survive(c); it++;
  }
  printf("%ld %lld %.4f %d\n", it, evaluations, now() - t0, solved);
  return 0;
}
