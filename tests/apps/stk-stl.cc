// SPDX-License-Identifier: MIT
/*
 * stk-stl.cc - deep chains of inlined instrumented C++ code, as
 * container-, lock- and condition-variable-heavy programs have them:
 * with -finstrument-functions, g++ calls the hooks for every function it
 * inlines too.  Four threads park at the end of such chains:
 *  - main: Bench::run() waits twice on a condition-variable wrapper
 *    (CondVar::wait(), inlined, around a std::unique_lock);
 *  - filler: a std::vector push_back() grows it through an allocator
 *    whose allocate() parks on its fourth call (_M_realloc_insert,
 *    _M_allocate, allocator_traits::allocate, all inlined or not as g++
 *    sees fit);
 *  - unlocker: a RAII guard's destructor unlocks a Mutex wrapper whose
 *    unlock() notes the release through inlined code;
 *  - mapper: std::for_each() over a std::vector with a lambda, and a
 *    std::function holding another lambda.
 * The classes are in stk-stl.h, which stk-stl-aux.cc uses too (see there).
 */
#include <algorithm>
#include <functional>

#include "stk-stl.h"

namespace bench {

volatile int sink;

NOINLINE int
wait_signal(int round)
{
	return stk_park() + round;
}

NOINLINE int
Bench::run(int n)
{
	MutexLock l(&mu_);

	if (n > 100)
		cv_.wait(n);
	done_ += n;
	cv_.wait(done_);
	return done_;
}

NOINLINE static long
fill(int n)
{
	std::vector<Item, ParkAlloc<Item>> v;
	long sum = 0;
	int i;

	for (i = 0; i < n; i++)
		v.push_back(Item{i, (long)i * 2});
	for (const Item &it : v)
		sum += it.value;
	return sum;
}

NOINLINE static int
unlock_twice(Mutex *mu)
{
	{
		MutexLock l(mu);
		sink++;
	}
	{
		MutexLock l(mu);
		sink--;
	}
	return sink;
}

NOINLINE static int
map_all(int n)
{
	std::vector<int> v;
	std::function<int(int)> twice;
	int total = 0;

	for (int i = 0; i < n; i++)
		v.push_back(i);
	twice = [&total](int x) { return total += 2 * wait_signal(x); };
	std::for_each(v.begin(), v.end(), [&](int x) {
		if (x == 3)
			total += twice(x);
		total += x;
	});
	return total;
}

} // namespace bench

static void *
filler_main(void *arg)
{
	return (void *)bench::fill((int)(long)arg + 20);
}

static void *
unlocker_main(void *arg)
{
	static bench::Mutex mu;

	(void)arg;
	return (void *)(long)bench::unlock_twice(&mu);
}

static void *
mapper_main(void *arg)
{
	return (void *)(long)bench::map_all((int)(long)arg + 8);
}

int
main(int argc, char **argv)
{
	static bench::Bench b;

	(void)argv;
	stk_init(4);
	stk_spawn(filler_main, (void *)1L);
	stk_spawn(unlocker_main, (void *)2L);
	stk_spawn(mapper_main, (void *)3L);
	return b.run(argc);
}
