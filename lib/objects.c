/* SPDX-License-Identifier: MIT */
/*
 * objects.c - record the loaded objects of this process image in the file,
 * so monitors can name frames even after the process is gone.
 *
 * Entries are claimed lock-free (FREE -> WRITING by compare-and-swap),
 * filled, then published VALID with a release store.  A full table takes
 * back entries of images whose process is dead and whose rings were all
 * reused; otherwise the loss is counted in the header.
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "lib/dyn/dyn.h"

struct rb_objects_ctx {
	struct rb_map	*m;
	pid_t		pid;
	uint64_t	pstart;
	uint64_t	image;
	int		index;
	char		exe[RB_PATH_MAX];
};

static bool rb_image_has_rings(struct rb_map *m, uint64_t image)
{
	uint32_t i;

	for (i = 0; i < m->geo.rings; i++) {
		uint64_t ctl = RB_LOAD(&rb_owner_at(m->base, &m->geo, i)->ctl);

		if (RB_OWN_STATE(ctl) != RB_OWN_FREE &&
		    RB_LOAD(&rb_ring_at(m->base, &m->geo, i)->image) == image)
			return true;
	}
	return false;
}

static struct rb_object *rb_object_claim(struct rb_map *m)
{
	const struct rb_header *h = &m->geo;
	struct rb_object *o;
	uint32_t i, st;

	for (i = 0; i < h->objects; i++) {
		o = rb_object_at(m->base, h, i);
		st = RB_OBJ_FREE;
		if (RB_LOAD(&o->state) == RB_OBJ_FREE &&
		    RB_CAS(&o->state, &st, RB_OBJ_WRITING))
			return o;
	}
	for (i = 0; i < h->objects; i++) {
		o = rb_object_at(m->base, h, i);
		st = RB_OBJ_VALID;
		if (RB_LOAD(&o->state) != RB_OBJ_VALID ||
		    rb_proc_alive(RB_LOAD(&o->pid), RB_LOAD(&o->pstart)) ||
		    rb_image_has_rings(m, RB_LOAD(&o->image)))
			continue;
		if (RB_CAS(&o->state, &st, RB_OBJ_WRITING))
			return o;
	}
	return NULL;
}

static bool rb_object_known(struct rb_map *m, uint64_t image, uint64_t base,
			    const char *path)
{
	uint32_t i;

	for (i = 0; i < m->geo.objects; i++) {
		struct rb_object *o = rb_object_at(m->base, &m->geo, i);

		if (RB_LOAD_ACQ(&o->state) == RB_OBJ_VALID &&
		    o->image == image && o->base == base &&
		    strncmp(o->path, path, sizeof(o->path)) == 0)
			return true;
	}
	return false;
}

static void rb_object_build_id(struct rb_object *o,
			       const struct dl_phdr_info *info)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			size_t name = (n->n_namesz + 3) & ~3u;
			size_t desc = (n->n_descsz + 3) & ~3u;
			const char *d = p + sizeof(*n) + name;

			if (d + desc > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(p + sizeof(*n), "GNU", 4) == 0 &&
			    n->n_descsz <= RB_BUILD_ID_MAX) {
				memcpy(o->build_id, d, n->n_descsz);
				o->build_id_len = n->n_descsz;
				return;
			}
			p = d + desc;
		}
	}
}

static int rb_objects_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct rb_objects_ctx *c = arg;
	const char *path = info->dlpi_name;
	uint64_t lo = UINT64_MAX, hi = 0;
	bool main_exe = c->index++ == 0;
	struct rb_object *o;
	int i;

	if (main_exe)
		path = c->exe;
	else if (path == NULL || path[0] != '/')
		return 0;	/* the vDSO and other objects with no file */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (hi == 0 || rb_object_known(c->m, c->image, info->dlpi_addr, path))
		return 0;
	o = rb_object_claim(c->m);
	if (o == NULL) {
		__atomic_fetch_add(&c->m->hdr->objects_lost, 1, __ATOMIC_RELAXED);
		return 0;
	}
	/*
	 * (L) Release fence: the entry left VALID before its fields change,
	 * so a reader that saw a new field sees state changed on its reread.
	 */
	RB_FENCE_REL();
	memset((char *)o + sizeof(o->state), 0, sizeof(*o) - sizeof(o->state));
	o->flags = main_exe ? RB_OBJF_MAIN : 0;
	o->pid = c->pid;
	o->pstart = c->pstart;
	o->image = c->image;
	o->base = info->dlpi_addr;
	o->lo = lo;
	o->hi = hi;
	rb_strlcpy(o->path, path, sizeof(o->path));
	rb_object_build_id(o, info);
	/* (L) Release: the entry's fields before VALID; pairs with readers' acquire of state. */
	RB_STORE_REL(&o->state, RB_OBJ_VALID);
	return 0;
}

pthread_mutex_t rb_objects_lock = PTHREAD_MUTEX_INITIALIZER;

/**
 * rb_objects_register - record every loaded object not yet recorded for @image
 *
 * Called at start-up and after each dlopen(); process-private mutex only.
 */
void rb_objects_register(struct rb_map *m, pid_t pid, uint64_t pstart,
			 uint64_t image)
{
	struct rb_objects_ctx c = { m, pid, pstart, image, 0, "" };
	ssize_t n;

	n = readlink("/proc/self/exe", c.exe, sizeof(c.exe) - 1);
	c.exe[n > 0 ? n : 0] = '\0';
	pthread_mutex_lock(&rb_objects_lock);
	dl_iterate_phdr(rb_objects_cb, &c);
	pthread_mutex_unlock(&rb_objects_lock);
}

/**
 * rb_objects_evoff - did a monitor switch the event log of @image's
 * process off (RB_OBJF_EVOFF on its main entry)?
 */
bool rb_objects_evoff(struct rb_map *m, uint64_t image)
{
	uint32_t i;

	for (i = 0; i < m->geo.objects; i++) {
		struct rb_object *o = rb_object_at(m->base, &m->geo, i);

		/* (L) Acquire: the entry's fields; pairs with the release of VALID. */
		if (RB_LOAD_ACQ(&o->state) == RB_OBJ_VALID &&
		    RB_LOAD(&o->image) == image &&
		    (RB_LOAD(&o->flags) & RB_OBJF_MAIN))
			return (RB_LOAD(&o->flags) & RB_OBJF_EVOFF) != 0;
	}
	return false;
}

/**
 * rb_objects_copy - give a forked child's image the entries of its parent's
 */
void rb_objects_copy(struct rb_map *m, uint64_t from, pid_t pid,
		     uint64_t pstart, uint64_t to)
{
	uint32_t i;

	for (i = 0; i < m->geo.objects; i++) {
		struct rb_object *src = rb_object_at(m->base, &m->geo, i), *o;

		if (RB_LOAD_ACQ(&src->state) != RB_OBJ_VALID ||
		    src->image != from)
			continue;
		o = rb_object_claim(m);
		if (o == NULL) {
			__atomic_fetch_add(&m->hdr->objects_lost, 1,
					   __ATOMIC_RELAXED);
			return;
		}
		memcpy((char *)o + sizeof(o->state), (char *)src + sizeof(src->state),
		       sizeof(*o) - sizeof(o->state));
		o->pid = pid;
		o->pstart = pstart;
		o->image = to;
		/* (L) Release: as in rb_objects_cb(). */
		RB_STORE_REL(&o->state, RB_OBJ_VALID);
	}
}

/**
 * rb_sym_next - the next definition of a function this library interposes
 * @cache: where it is kept once found
 * @name: the function
 *
 * Any thread may make an interposed function's first call, several at
 * once.  Return: the definition (libc's, the C++ runtime's), or NULL.
 */
RB_NOINSTR void *rb_sym_next(void **cache, const char *name)
{
	/* Relaxed: every thread that looks it up stores the same pointer. */
	void *p = RB_LOAD(cache);

	if (p == NULL) {
		p = dlsym(RTLD_NEXT, name);
		/* Attached, the program's own objects come before us, not after. */
		if (p == NULL && rb_attach_state() != RB_ATT_NONE)
			p = rb_attach_real(name);
		if (p != NULL)
			RB_STORE(cache, p);
	}
	return p;
}

/*
 * dlopen() and dlmopen() are interposed so that objects loaded later are
 * recorded too.  Unversioned definitions satisfy every versioned reference.
 */
void *dlopen(const char *file, int mode) __attribute__((visibility("default")));
void *dlmopen(Lmid_t lmid, const char *file, int mode)
	__attribute__((visibility("default")));

void *dlopen(const char *file, int mode)
{
	static void *next;
	void *(*real)(const char *, int);
	void *handle;

	real = (void *(*)(const char *, int))rb_sym_next(&next, "dlopen");
	if (real == NULL)
		return NULL;
	handle = real(file, mode);
	if (handle != NULL &&
	    atomic_load_explicit(&rb_proc.init, memory_order_acquire) == RB_INIT_DONE) {
		rb_objects_register(&rb_proc.map, rb_proc.pid, rb_proc.pstart,
				    rb_proc.image);
		if (rb_attach_state() == RB_ATT_ON)
			rb_attach_rebind();
	}
	/* Its sites as the process's state wants them (asleep, excluded). */
	if (handle != NULL && rb_dyn_active())
		rb_dyn_loaded();
	return handle;
}

void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
	static void *next;
	void *(*real)(Lmid_t, const char *, int);
	void *handle;

	real = (void *(*)(Lmid_t, const char *, int))rb_sym_next(&next, "dlmopen");
	if (real == NULL)
		return NULL;
	handle = real(lmid, file, mode);
	if (handle != NULL &&
	    atomic_load_explicit(&rb_proc.init, memory_order_acquire) == RB_INIT_DONE) {
		rb_objects_register(&rb_proc.map, rb_proc.pid, rb_proc.pstart,
				    rb_proc.image);
		if (rb_attach_state() == RB_ATT_ON)
			rb_attach_rebind();
	}
	/* Its sites as the process's state wants them (asleep, excluded). */
	if (handle != NULL && rb_dyn_active())
		rb_dyn_loaded();
	return handle;
}
