// SPDX-License-Identifier: MIT
/*
 * stk-condvar.cc - threads blocked in pthread_cond_wait() inside an
 * inlined condition-variable wrapper (stk-condvar.h) that is inlined at
 * several places of one function, as leveldb's Benchmark::RunBenchmark
 * waits on port::CondVar::Wait().  Two threads park in Bench::run(), each
 * at another of its three inlined copies of CondVar::wait():
 *  - main: in the first loop, called from run() itself;
 *  - worker: through wait_turn(), inlined as well, in the second branch.
 * Nothing ever signals; a spurious wakeup waits again at the same place.
 */
#include "stk-condvar.h"

namespace bench {

class Bench {
public:
	Bench() : cv_(&mu_) {}
	NOINLINE int run(int mode);
private:
	/* Forced inline: clang would keep the loop out of line. */
	INLINE void wait_turn()
	{
		while (!ready_)
			cv_.wait();
	}
	port::Mutex mu_;
	port::CondVar cv_;
	int ready_ = 0;
	int done_ = 0;
};

NOINLINE int
Bench::run(int mode)
{
	int n = 0;

	mu_.lock();
	if (mode == 0) {
		stk_arrive();
		while (!done_) {
			cv_.wait();
			n++;
		}
	} else {
		stk_arrive();
		wait_turn();
		while (!done_) {
			cv_.wait();
			n--;
		}
	}
	mu_.unlock();
	return n;
}

} // namespace bench

static bench::Bench b;

static void *
worker_main(void *arg)
{
	return (void *)(long)b.run((int)(long)arg + 1);
}

int
main(int argc, char **argv)
{
	(void)argv;
	stk_init(2);
	stk_spawn(worker_main, (void *)(long)(argc - 1));
	return b.run(argc - 1);
}
