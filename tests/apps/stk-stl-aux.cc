// SPDX-License-Identifier: MIT
/*
 * stk-stl-aux.cc - a second unit using stk-stl.h's classes, linked after
 * stk-stl.cc, that describes the same out-of-line copies of their inline
 * functions (see stk-stl.h).  Never called while the program parks.
 */
#include "stk-stl.h"

namespace bench {

NOINLINE long
fill_aux(int n)
{
	static Mutex mu;
	static CondVar cv(&mu);
	std::vector<Item, ParkAlloc<Item>> v;
	long sum = 0;

	for (int i = 0; i < n; i++) {
		MutexLock l(&mu);
		v.push_back(Item{i, (long)i});
	}
	for (const Item &it : v)
		sum += it.value;
	if (sum < 0) {
		mu.lock();
		cv.wait((int)sum);
	}
	return sum;
}

} // namespace bench
