/* SPDX-License-Identifier: MIT */
/*
 * work.c - a more realistic traced load: a hash table and a sort.
 *
 * usage: work ROUNDS [KEYS]
 * Each round makes KEYS (default 20000) pseudo-random string keys,
 * inserts them into a chained hash table (nodes from malloc, the table
 * grown by rehashing as it fills), looks up each key and as many absent
 * ones, collects the entries into an array, sorts it by key with a
 * recursive quicksort (insertion sort below 16 elements), checks the
 * order and frees everything.  So the instrumented calls come at mixed
 * stack depths (1 to about 2 log2(KEYS)), most of them short (hashing,
 * comparing), with real memory work in between.
 *
 * Every instrumented function counts its own calls (CALLED()), so the
 * number of call pairs it prints is exact; everything else is NOTRACE but
 * main(), which is instrumented so that a tracer starts up before the
 * clock does (its one call pair is counted in C, not in D).  The work
 * section is timed with CLOCK_MONOTONIC in uninstrumented code.  It prints
 * one line on standard output:
 *	calls C timed_calls D threads 1 work_ns W wall_ns W result R
 * (the format of bench/apps/fib; R is a checksum of the work).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"		/* tests/apps/app.h: NOTRACE */

#define KEY_MAX		32
#define SMALL_SORT	16

struct node {
	struct node *next;
	uint64_t hash;
	unsigned long value;
	char key[KEY_MAX];
};

struct table {
	struct node **buckets;
	size_t nbuckets, count;
};

static unsigned long calls;	/* call pairs of the instrumented functions */
#define CALLED()	(calls++)

NOTRACE static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

NOTRACE static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (p == NULL) {
		perror("work");
		exit(1);
	}
	return p;
}

static __attribute__((noinline)) uint32_t next_rand(uint32_t *s)
{
	uint32_t x = *s;

	CALLED();
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* A key of 6 to 25 lower-case letters. */
static __attribute__((noinline)) void make_key(char *key, uint32_t *seed)
{
	uint32_t len, i, r = 0;

	CALLED();
	len = 6 + next_rand(seed) % 20;
	for (i = 0; i < len; i++) {
		if (i % 6 == 0)
			r = next_rand(seed);
		key[i] = (char)('a' + r % 26);
		r /= 26;
	}
	key[len] = '\0';
}

/* FNV-1a */
static __attribute__((noinline)) uint64_t hash_key(const char *key)
{
	uint64_t h = 14695981039346656037u;

	CALLED();
	while (*key != '\0') {
		h ^= (unsigned char)*key++;
		h *= 1099511628211u;
	}
	return h;
}

static __attribute__((noinline)) int key_cmp(const char *a, const char *b)
{
	CALLED();
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static __attribute__((noinline)) void table_init(struct table *t, size_t n)
{
	CALLED();
	t->nbuckets = n;
	t->count = 0;
	t->buckets = xmalloc(n * sizeof(*t->buckets));
	memset(t->buckets, 0, n * sizeof(*t->buckets));
}

static __attribute__((noinline)) void table_grow(struct table *t)
{
	struct node **old = t->buckets, *n, *next;
	size_t i, size = t->nbuckets;

	CALLED();
	table_init(t, size * 2);
	for (i = 0; i < size; i++) {
		for (n = old[i]; n != NULL; n = next) {
			next = n->next;
			n->next = t->buckets[n->hash & (t->nbuckets - 1)];
			t->buckets[n->hash & (t->nbuckets - 1)] = n;
			t->count++;
		}
	}
	free(old);
}

static __attribute__((noinline)) struct node *table_find(struct table *t,
							 const char *key,
							 uint64_t h)
{
	struct node *n;

	CALLED();
	for (n = t->buckets[h & (t->nbuckets - 1)]; n != NULL; n = n->next)
		if (n->hash == h && key_cmp(n->key, key) == 0)
			return n;
	return NULL;
}

static __attribute__((noinline)) void table_insert(struct table *t,
						   const char *key,
						   unsigned long value)
{
	uint64_t h;
	struct node *n;

	CALLED();
	h = hash_key(key);
	n = table_find(t, key, h);
	if (n != NULL) {
		n->value += value;
		return;
	}
	if (t->count >= t->nbuckets)
		table_grow(t);
	n = xmalloc(sizeof(*n));
	strcpy(n->key, key);
	n->hash = h;
	n->value = value;
	n->next = t->buckets[h & (t->nbuckets - 1)];
	t->buckets[h & (t->nbuckets - 1)] = n;
	t->count++;
}

static __attribute__((noinline)) unsigned long table_lookup(struct table *t,
							    const char *key)
{
	struct node *n;

	CALLED();
	n = table_find(t, key, hash_key(key));
	return n != NULL ? n->value : 0;
}

static __attribute__((noinline)) void sort_small(struct node **a, size_t n)
{
	size_t i, j;
	struct node *x;

	CALLED();
	for (i = 1; i < n; i++) {
		x = a[i];
		for (j = i; j > 0 && key_cmp(a[j - 1]->key, x->key) > 0; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static __attribute__((noinline)) void quicksort(struct node **a, size_t n)
{
	struct node *pivot, *x;
	size_t i, j;

	CALLED();
	if (n <= SMALL_SORT) {
		sort_small(a, n);
		return;
	}
	pivot = a[n / 2];
	i = 0;
	j = n - 1;
	for (;;) {
		while (key_cmp(a[i]->key, pivot->key) < 0)
			i++;
		while (key_cmp(a[j]->key, pivot->key) > 0)
			j--;
		if (i >= j)
			break;
		x = a[i];
		a[i] = a[j];
		a[j] = x;
		i++;
		j--;
	}
	quicksort(a, j + 1);
	quicksort(a + j + 1, n - j - 1);
}

static __attribute__((noinline)) unsigned long round_of(size_t keys, uint32_t seed)
{
	struct table t;
	struct node **all, *n, *next;
	char key[KEY_MAX];
	unsigned long sum = 0;
	size_t i, k;
	uint32_t miss = seed ^ 0x5bd1e995u;

	CALLED();
	table_init(&t, 1024);
	for (i = 0; i < keys; i++) {
		make_key(key, &seed);
		table_insert(&t, key, i + 1);
	}
	for (i = 0; i < keys; i++) {	/* absent ones, mostly */
		make_key(key, &miss);
		sum += table_lookup(&t, key);
	}
	all = xmalloc(t.count * sizeof(*all));
	for (i = k = 0; i < t.nbuckets; i++)
		for (n = t.buckets[i]; n != NULL; n = n->next) {
			sum += table_lookup(&t, n->key);
			all[k++] = n;
		}
	quicksort(all, k);
	for (i = 1; i < k; i++)
		if (key_cmp(all[i - 1]->key, all[i]->key) > 0) {
			fprintf(stderr, "work: not sorted\n");
			exit(1);
		}
	sum += k + (unsigned char)all[0]->key[0] + (unsigned char)all[k - 1]->key[0];
	for (i = 0; i < t.nbuckets; i++)
		for (n = t.buckets[i]; n != NULL; n = next) {
			next = n->next;
			free(n);
		}
	free(t.buckets);
	free(all);
	return sum;
}

NOTRACE static int number(const char *s, unsigned long lo, unsigned long hi,
			  unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *s != '-' &&
	       *out >= lo && *out <= hi;
}

int main(int argc, char **argv)
{
	unsigned long rounds, keys = 20000, sum = 0, r;
	uint64_t t0, t1;

	if (argc < 2 || argc > 3 || !number(argv[1], 1, 1000000, &rounds) ||
	    (argc > 2 && !number(argv[2], 2, 10000000, &keys))) {
		fprintf(stderr, "usage: work ROUNDS [KEYS]\n");
		return 2;
	}
	t0 = now_ns();
	for (r = 0; r < rounds; r++)
		sum += round_of(keys, 0x9e3779b9u * (uint32_t)(r + 1));
	t1 = now_ns();
	printf("calls %lu timed_calls %lu threads 1 work_ns %llu wall_ns %llu result %lu\n",
	       calls + 1, calls, (unsigned long long)(t1 - t0),
	       (unsigned long long)(t1 - t0), sum);
	return 0;
}
