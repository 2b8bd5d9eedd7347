// SPDX-License-Identifier: MIT
// prog.cc - instrumented C++ for tests/sites.sh: inline member functions,
// templates, a virtual call, exceptions (landing pads, cold parts).
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

struct shape {
	virtual ~shape() {}
	virtual double area() const = 0;
};

struct square : shape {
	double	s;
	explicit square(double x) : s(x) {}
	double area() const override { return s * s; }
};

template <typename T> static T
total(const std::vector<T> &v)
{
	T	t = T();

	for (const T &x : v)
		t += x;
	return t;
}

__attribute__((noinline)) static double
check(double a)
{
	if (a < 0)
		throw std::runtime_error("negative");
	return a * 2;
}

__attribute__((noinline)) static double
guarded(double a)
{
	std::string	s("guarded");

	try {
		return check(a) + (double)s.size();
	} catch (const std::exception &e) {
		return -1;
	}
}

int
main(int argc, char **argv)
{
	std::vector<double>	v;
	square			sq(argc + 1.5);
	const shape		*sh = &sq;

	(void)argv;
	for (int i = 0; i < 10; i++)
		v.push_back(guarded(i - argc * 3) + sh->area());
	std::printf("%g %d\n", total(v), total(std::vector<int>{1, 2, argc}));
	return 0;
}
