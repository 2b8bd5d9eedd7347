// SPDX-License-Identifier: MIT
// A C++ object for check_namematch: a namespace, a template, operators,
// an anonymous namespace; dlopen()ed, so that its C++ runtime is not in
// the global scope.
namespace names {

struct Box {
	int	v;
	int	operator()(int x) const;
	bool	operator<(const Box &o) const;
};

int
Box::operator()(int x) const
{
	return v + x;
}

bool
Box::operator<(const Box &o) const
{
	return v < o.v;
}

template <int N> int
twice(int x)
{
	return N * x;
}
template int twice<2>(int);
template int twice<3>(int);

int
plain(int a, int b)
{
	return a + b;
}

}

namespace {

int
hidden(int x)
{
	return x - 1;
}

}

extern "C" int
names_cxx_c(int x)
{
	return names::plain(x, 1) + hidden(x);
}

// The address of the function in the anonymous namespace, for the test.
extern "C" void *
names_cxx_hidden(void)
{
	return reinterpret_cast<void *>(&hidden);
}

// Something of the C++ runtime's, so that loading this loads it.
extern "C" int
names_cxx_throw(int n)
{
	try {
		if (n < 0)
			throw n;
	} catch (int e) {
		return -e;
	}
	return n;
}
