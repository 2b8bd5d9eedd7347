// SPDX-License-Identifier: MIT
/*
 * stk-exc.cc - C++ exceptions: Store::serve() orders three times; each
 * order throws from three calls down and is caught in serve(), then
 * serve() restocks and parks.  The frames the throws unwound must be gone.
 */
#include <stdexcept>

#include "stk.h"

namespace shop {

struct out_of_stock : std::runtime_error {
	explicit out_of_stock(int n) : std::runtime_error("out of stock"), item(n) {}
	int item;
};

NOINLINE static int
check_shelf(int n)
{
	if (n >= 0)
		throw out_of_stock(n);
	return n;
}

NOINLINE static int
pick_item(int n)
{
	return check_shelf(n - 1) + 1;
}

NOINLINE static int
fill_order(int n)
{
	return pick_item(n + 1) * 2;
}

template <typename T>
struct Ledger {
	NOINLINE T wait_delivery(T n);
	T total;
};

template <typename T>
NOINLINE T
Ledger<T>::wait_delivery(T n)
{
	total += stk_park();
	return total + n;
}

template <typename T>
NOINLINE T
restock(Ledger<T> &l, T n)
{
	return l.wait_delivery(n + 1) + 1;
}

class Store {
public:
	NOINLINE long serve(int orders);
private:
	Ledger<long> ledger_ {};
	int misses_ = 0;
};

NOINLINE long
Store::serve(int orders)
{
	int i;

	for (i = 0; i < orders; i++) {
		try {
			fill_order(i);
		} catch (const out_of_stock &e) {
			misses_ += e.item;
		}
	}
	return restock(ledger_, (long)misses_);
}

}

int
main(int argc, char **argv)
{
	shop::Store store;

	stk_init(1);
	return store.serve(argc + 2) == 0;
}
