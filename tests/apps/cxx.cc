// SPDX-License-Identifier: MIT
// cxx.cc - a C++ program parked in a member function of a class template
// inside a namespace: rbmon must show demangled names.
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace shop {

static void ready()
{
	const char *path = std::getenv("RBT_READY");
	int fd;

	if (path == nullptr)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
	if (fd >= 0) {
		if (write(fd, "cxx\n", 4) != 4)
			_exit(3);
		close(fd);
	}
}

template <typename T> struct Basket {
	T count;
	void wait(int fd)
	{
		char c;

		ready();
		while (read(fd, &c, 1) < 0)
			;
		count++;
	}
};

} // namespace shop

int main()
{
	int fds[2];
	shop::Basket<long> b{0};

	if (pipe(fds) < 0)
		return 2;
	b.wait(fds[0]);
	return 0;
}
