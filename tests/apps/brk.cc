// SPDX-License-Identifier: MIT
// brk.cc - real C++ functions for the breakpoint tests, in a program whose
// threads all wait in read().
//
// Built as real programs are (-O2 -g -finstrument-functions): GCC splits
// each Json::Value::operator[] into its entry and a ".cold" part (the
// error path), so the symbol table holds ten operator[] overloads and
// their ten .cold fragments, the fragments first (local symbols).
// descend<N> are function templates, inner is static.
//
// usage: brk DIR
// The main thread and a "worker" thread each read one byte at a time from
// a FIFO, DIR/main and DIR/worker (made here), and block in read() in
// between: they pass no hook while they wait.  Each byte is one round:
//   o  calls each operator[] overload once (10 calls)
//   d  descend<0>(3) and descend<1>(2) (4 and 3 calls)
//   i  inner(1) (1 call)
//   f  (main) forks; the child calls child_work() once, reports
//      "child PID" first and exits 0; the parent reports "reaped PID
//      STATUS" when it has waited for it
//   q  the thread returns (main, after joining the worker)
// and is reported as "NAME done N C" (the Nth round, byte C).  Readiness:
// "main PID", "thread worker TID" (tests/apps/app.h).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"

#define NOINLINE	__attribute__((noinline))

namespace Json {

class Value {
public:
	Value();
	int &operator[](int i);
	int &operator[](unsigned i);
	int &operator[](long i);
	int &operator[](const char *key);
	int &operator[](const std::string &key);
	const int &operator[](int i) const;
	const int &operator[](unsigned i) const;
	const int &operator[](long i) const;
	const int &operator[](const char *key) const;
	const int &operator[](const std::string &key) const;

private:
	std::vector<int> v;
	static void bad(const char *what, long i) __attribute__((noreturn));
};

Value::Value() : v(16, 1) {}

NOTRACE void Value::bad(const char *what, long i)
{
	std::fprintf(stderr, "brk: bad %s %ld\n", what, i);
	throw std::out_of_range(what);
}

// The checks fail only on bad input: GCC moves their code to .cold.
NOINLINE int &Value::operator[](int i)
{
	if (i < 0 || (size_t)i >= v.size())
		bad("int index", i);
	return v[(size_t)i];
}

NOINLINE int &Value::operator[](unsigned i)
{
	if (i >= v.size())
		bad("unsigned index", (long)i);
	return v[i];
}

NOINLINE int &Value::operator[](long i)
{
	if (i < 0 || (size_t)i >= v.size())
		bad("long index", i);
	return v[(size_t)i];
}

NOINLINE int &Value::operator[](const char *key)
{
	if (key == nullptr || key[0] == '\0')
		bad("key", -1);
	return v[(size_t)key[0] % v.size()];
}

NOINLINE int &Value::operator[](const std::string &key)
{
	if (key.empty())
		bad("string key", -1);
	return v[(size_t)key[0] % v.size()];
}

NOINLINE const int &Value::operator[](int i) const
{
	if (i < 0 || (size_t)i >= v.size())
		bad("const int index", i);
	return v[(size_t)i];
}

NOINLINE const int &Value::operator[](unsigned i) const
{
	if (i >= v.size())
		bad("const unsigned index", (long)i);
	return v[i];
}

NOINLINE const int &Value::operator[](long i) const
{
	if (i < 0 || (size_t)i >= v.size())
		bad("const long index", i);
	return v[(size_t)i];
}

NOINLINE const int &Value::operator[](const char *key) const
{
	if (key == nullptr || key[0] == '\0')
		bad("const key", -1);
	return v[(size_t)key[0] % v.size()];
}

NOINLINE const int &Value::operator[](const std::string &key) const
{
	if (key.empty())
		bad("const string key", -1);
	return v[(size_t)key[0] % v.size()];
}

} // namespace Json

template <int N> NOINLINE int descend(int x)
{
	__asm__ volatile("" ::: "memory");
	return x > 0 ? descend<N>(x - 1) + 1 : N;
}

static NOINLINE int inner(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

NOINLINE int child_work(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 2;
}

static Json::Value value;
static volatile long sink;
static char fifo_dir[4096];

NOTRACE static void round_o()
{
	const Json::Value &c = value;
	std::string key("k");

	sink += value[1] + value[2u] + value[3L] + value["a"] + value[key];
	sink += c[1] + c[2u] + c[3L] + c["a"] + c[key];
}

NOTRACE static void do_fork()
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		app_ready("child %ld", (long)getpid());
		sink += child_work(3);
		_exit(0);
	}
	if (pid < 0) {
		std::perror("brk: fork");
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	app_ready("reaped %ld %d", (long)pid, status);
}

// One thread's loop: a byte, a round.  Uninstrumented, so that between
// rounds the thread passes no hook at all.
NOTRACE static void serve(const char *name)
{
	char path[4200], c;
	unsigned long n = 0;
	int fd;

	std::snprintf(path, sizeof path, "%s/%s", fifo_dir, name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		std::perror(path);
		std::exit(2);
	}
	for (;;) {
		ssize_t r = read(fd, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r != 1 || c == 'q')
			break;
		switch (c) {
		case 'o':
			round_o();
			break;
		case 'd':
			sink += descend<0>(3) + descend<1>(2);
			break;
		case 'i':
			sink += inner(1);
			break;
		case 'f':
			do_fork();
			break;
		default:
			continue;
		}
		app_ready("%s done %lu %c", name, ++n, c);
	}
	close(fd);
}

// Global: its name stays in the symbol table of brk-nolocals too.
void *worker_main(void *arg);

NOINLINE void *worker_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker");
	app_ready("thread worker %ld", (long)syscall(SYS_gettid));
	serve("worker");
	return nullptr;
}

int main(int argc, char **argv)
{
	pthread_t worker;
	char path[4200];

	if (argc != 2 || std::strlen(argv[1]) >= sizeof fifo_dir) {
		std::fprintf(stderr, "usage: brk DIR\n");
		return 2;
	}
	std::strcpy(fifo_dir, argv[1]);
	for (const char *name : { "main", "worker" }) {
		std::snprintf(path, sizeof path, "%s/%s", fifo_dir, name);
		if (mkfifo(path, 0600) != 0 && errno != EEXIST) {
			std::perror(path);
			return 2;
		}
	}
	if (pthread_create(&worker, nullptr, worker_main, nullptr) != 0)
		return 2;
	app_ready("main %ld", (long)getpid());
	serve("main");
	pthread_join(worker, nullptr);
	return 0;
}
