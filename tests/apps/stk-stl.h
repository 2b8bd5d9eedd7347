// SPDX-License-Identifier: MIT
/*
 * stk-stl.h - the classes of stk-stl.cc, used by stk-stl-aux.cc too.  Each
 * unit has its own out-of-line copy of their inline functions (the hooks
 * take their addresses) and its own description of them; the linker keeps
 * one copy and both units describe it at that address, so the function a
 * hook names may be found in stk-stl-aux.cc's unit while the calls of the
 * stack, and the functions inlined there, lie in stk-stl.cc's.
 */
#ifndef RBT_STK_STL_H
#define RBT_STK_STL_H

#include <mutex>
#include <new>
#include <vector>

#include "stk.h"

namespace bench {

extern volatile int sink;
NOINLINE int wait_signal(int round);

class Mutex {
public:
	void lock() { mu_.lock(); }
	void unlock()
	{
		mu_.unlock();
		note_release();
	}
	std::mutex &raw() { return mu_; }
private:
	void note_release()
	{
		if (++releases_ == 2)
			sink += wait_signal(releases_);
	}
	std::mutex mu_;
	int releases_ = 0;
};

class MutexLock {
public:
	explicit MutexLock(Mutex *mu) : mu_(mu) { mu_->lock(); }
	~MutexLock() { mu_->unlock(); }
private:
	Mutex *mu_;
};

class CondVar {
public:
	explicit CondVar(Mutex *mu) : mu_(mu) {}
	void wait(int round)
	{
		std::unique_lock<std::mutex> lock(mu_->raw(), std::adopt_lock);
		sink += wait_signal(round);
		lock.release();
	}
private:
	Mutex *mu_;
};

class Bench {
public:
	Bench() : cv_(&mu_) {}
	NOINLINE int run(int n);
private:
	Mutex mu_;
	CondVar cv_;
	int done_ = 0;
};

template <typename T>
struct ParkAlloc {
	typedef T value_type;
	ParkAlloc() = default;
	template <typename U> ParkAlloc(const ParkAlloc<U> &) {}
	T *allocate(std::size_t n)
	{
		if (++calls == 4)
			sink += wait_signal((int)n);
		return static_cast<T *>(::operator new(n * sizeof(T)));
	}
	void deallocate(T *p, std::size_t) { ::operator delete(p); }
	static int calls;
};
template <typename T> int ParkAlloc<T>::calls;
template <typename T, typename U>
bool operator==(const ParkAlloc<T> &, const ParkAlloc<U> &) { return true; }
template <typename T, typename U>
bool operator!=(const ParkAlloc<T> &, const ParkAlloc<U> &) { return false; }

struct Item {
	long key, value;
};

long	fill_aux(int);

} // namespace bench

#endif
