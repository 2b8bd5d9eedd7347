// SPDX-License-Identifier: MIT
/*
 * stk-condvar.h - a mutex and a condition variable wrapped in classes, as
 * portability layers have them (leveldb's port::CondVar): methods defined
 * in the class, so inline, each inlined wherever it is called, with the
 * hooks of -finstrument-functions.  CondVar::wait() blocks in
 * pthread_cond_wait(), which has no hooks: the thread's newest frame is
 * the inlined wait(), and only the address of its entry hook's call says
 * which of its inlined copies the thread is in.
 */
#ifndef RBT_STK_CONDVAR_H
#define RBT_STK_CONDVAR_H

#include "stk.h"

namespace port {

class Mutex {
public:
	Mutex() { pthread_mutex_init(&mu_, NULL); }
	void lock() { pthread_mutex_lock(&mu_); }
	void unlock() { pthread_mutex_unlock(&mu_); }
	pthread_mutex_t *raw() { return &mu_; }
private:
	pthread_mutex_t mu_;
};

class CondVar {
public:
	explicit CondVar(Mutex *mu) : mu_(mu) { pthread_cond_init(&cv_, NULL); }
	void wait() { pthread_cond_wait(&cv_, mu_->raw()); }
	void signal() { pthread_cond_signal(&cv_); }
private:
	pthread_cond_t cv_;
	Mutex *mu_;
};

} // namespace port

#endif
