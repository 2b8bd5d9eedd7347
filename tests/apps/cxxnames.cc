// SPDX-License-Identifier: MIT
// cxxnames.cc - a C++ program parked under long names, as a real one
// would be: two methods of one class in an anonymous namespace whose
// names differ only after 40 characters, one of them inlined; two
// methods of a class template with std::string's arguments; a function
// template with value arguments (<0ul, 1ul> to the demangler).
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <unistd.h>

#define NOINLINE	__attribute__((noinline, noclone))
#define INLINE		__attribute__((always_inline)) inline

namespace leveldb {
namespace {

int park_fd = -1;

NOINLINE void ready()
{
	const char *path = std::getenv("RBT_READY");
	int fd;

	if (path == nullptr)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
	if (fd >= 0) {
		if (write(fd, "cxxnames\n", 9) != 9)
			_exit(3);
		close(fd);
	}
}

template <unsigned long A, unsigned long B> NOINLINE int pick()
{
	char c;

	ready();
	while (read(park_fd, &c, 1) < 0)
		;
	return (int)(A + B);
}

template <typename C, typename T, typename Al> struct basic_text {
	unsigned long len;

	NOINLINE int _M_mutate(unsigned long n)
	{
		len += n;
		return pick<0, 1>() + (int)len;
	}
	NOINLINE int _M_create(unsigned long& n, unsigned long m)
	{
		n += m;
		return _M_mutate(n) + 1;
	}
};

struct PosixEnv {
	basic_text<char, std::char_traits<char>, std::allocator<char> > t;

	INLINE int BackgroundThreadMain()
	{
		unsigned long n = 1;

		return t._M_create(n, 2) + 3;
	}
	static NOINLINE int BackgroundThreadEntryPoint(PosixEnv *env)
	{
		return env->BackgroundThreadMain() + 4;
	}
};

} // namespace
} // namespace leveldb

int main()
{
	int fds[2];
	leveldb::PosixEnv env{{0}};

	if (pipe(fds) < 0)
		return 2;
	leveldb::park_fd = fds[0];
	return leveldb::PosixEnv::BackgroundThreadEntryPoint(&env) == 0;
}
