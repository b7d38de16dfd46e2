/*
 * Reference for the large-N bench: min-conflicts in C, single-threaded, as Sosic & Gu's
 * QS4: a greedy start (each column takes the first of up to 128 random unused rows whose
 * diagonals are free) and then, for each queen in conflict, random swap partners until a
 * swap lowers the number of conflicts. Prints "seconds solved" (search time, 1 if solved);
 * the board is checked from scratch before "solved" is printed. Usage: min-conflicts N SEED
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t state;
static uint32_t next_u32(void) { /* splitmix64 */
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (uint32_t)((z ^ (z >> 31)) >> 32);
}
static uint32_t below(uint32_t bound) { return (uint32_t)(((uint64_t)next_u32() * bound) >> 32); }

static int32_t n, *q, *up, *dn;
#define UP(i, r) up[(r) - (i) + n - 1]
#define DN(i, r) dn[(r) + (i)]

/* Change in conflicts (sum over diagonals of max(0, k - 1)) if queens i and j swap rows. */
static int delta(int32_t i, int32_t j) {
  int32_t ri = q[i], rj = q[j], d = 0;
  d -= (UP(i, ri) > 1) + (DN(i, ri) > 1) + (UP(j, rj) > 1) + (DN(j, rj) > 1);
  UP(i, ri)--; DN(i, ri)--; UP(j, rj)--; DN(j, rj)--;
  d += (UP(i, rj) > 0) + (DN(i, rj) > 0);
  UP(i, rj)++; DN(i, rj)++;
  d += (UP(j, ri) > 0) + (DN(j, ri) > 0);
  UP(i, rj)--; DN(i, rj)--;
  UP(i, ri)++; DN(i, ri)++; UP(j, rj)++; DN(j, rj)++;
  return d;
}
static void swap_rows(int32_t i, int32_t j) {
  int32_t ri = q[i], rj = q[j];
  UP(i, ri)--; DN(i, ri)--; UP(j, rj)--; DN(j, rj)--;
  q[i] = rj; q[j] = ri;
  UP(i, rj)++; DN(i, rj)++; UP(j, ri)++; DN(j, ri)++;
}
static int64_t conflicts(void) {
  int64_t c = 0;
  for (int32_t d = 0; d < 2 * n - 1; d++) c += (up[d] > 1 ? up[d] - 1 : 0) + (dn[d] > 1 ? dn[d] - 1 : 0);
  return c;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  n = atoi(argv[1]);
  state = (uint64_t)atoll(argv[2]);
  q = malloc(sizeof *q * n);
  up = calloc(2 * n, sizeof *up);
  dn = calloc(2 * n, sizeof *dn);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int32_t i = 0; i < n; i++) q[i] = i;
  for (int32_t i = 0; i < n; i++) {
    int32_t j = i + below(n - i), r = q[j];
    for (int t = 1; t < 128 && (UP(i, r) || DN(i, r)); t++) r = q[j = i + below(n - i)];
    q[j] = q[i]; q[i] = r;
    UP(i, r)++; DN(i, r)++;
  }
  int64_t c = conflicts();
  while (c > 0) {
    for (int32_t i = 0; i < n && c > 0; i++) {
      if (UP(i, q[i]) < 2 && DN(i, q[i]) < 2) continue;
      for (int t = 0; t < 4 * n; t++) {
        int32_t j = below(n - 1);
        if (j >= i) j++;
        int d = delta(i, j);
        if (d < 0) { swap_rows(i, j); c += d; break; }
      }
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  /* Check from scratch: a permutation with no shared diagonal. */
  int ok = 1;
  char *seen = calloc(n, 1);
  for (int32_t i = 0; i < 2 * n - 1; i++) up[i] = dn[i] = 0;
  for (int32_t i = 0; i < n; i++) { if (seen[q[i]]++) ok = 0; UP(i, q[i])++; DN(i, q[i])++; }
  if (conflicts() != 0) ok = 0;
  printf("%.4f %d\n", seconds, ok);
  return 0;
}
