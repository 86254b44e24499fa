// SPDX-License-Identifier: GPL-2.0
/*
 * A report drawn by two threads (parallel.h).  The caller's thread
 * finishes the first part while a second thread makes the second part
 * (the caller's make_second: for `report`, sorting every later analysis'
 * tables) and measures its columns.  Both parts are then drawn in pieces (PIECE_ROWS rows of a
 * table, or a summary) that the threads take in order, the first part's
 * before the second's.  This thread writes: the piece whose turn it is
 * it draws straight to the output if nobody took it, or writes from
 * memory if the other thread drew it; while the other thread still draws
 * it, this one draws the next free piece into memory rather than wait.
 * Until the first part is laid out, the second thread draws the second
 * part's first pieces.  Taken in order, the pieces in memory are a few
 * at a time once both threads draw; SPOOL_MAX bounds them before.
 * Sorting and drawing are a fifth of a report of a big recording, and
 * the parts' sizes differ (the page table's text is twice the slab
 * table's): taking pieces as they come shares the drawing evenly,
 * whatever the sizes and however the machine runs the threads.
 * Nothing is written before both parts are sorted.  The first analysis
 * shares only the session with the rest, and the views the live tracker
 * among themselves, all of which they only read now; the symbol table is
 * prepared for that first.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "render/parallel.h"
#include "render/render.h"
#include "report/report.h"
#include "util/strbuf.h"

/* the buffers of pieces written, kept to draw into again */
#define SPARE_TEXTS 4

enum piece_state {
	PIECE_FREE,		/* nobody draws it (not taken, or handed back) */
	PIECE_DRAWING,
	PIECE_HELD,		/* drawn into memory: text */
};

struct part;

struct piece {
	struct part *part;
	size_t sec, r0, r1;	/* what kmt_renderer.piece draws */
	int state;		/* enum piece_state, under the lock */
	struct kmt_sb text;
};

/* one part of the report: its sections, in pieces */
struct part {
	const struct kmt_report *r;
	struct kmt_layout *lay;	/* NULL: drawn whole, or nothing to draw */
	struct piece *pieces;
	size_t nr;
	size_t taken;		/* pieces [0, taken) were taken (under the lock) */
	int ready;		/* laid out, or known not to be */
	int whole;		/* no memory to lay it out: drawn whole */
};

struct kmt_par {
	int (*make_second)(void *ctx, struct kmt_report *r);
	void *ctx;
	const struct kmt_renderer *rd;
	struct kmt_report r;	/* the second part's sections */
	struct part part[2];
	size_t piece_rows, spool_max;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t held;		/* bytes of the pieces held in memory */
	struct kmt_sb spare[SPARE_TEXTS];
	size_t nr_spare;
	int finished;		/* the second part sorted, err says how */
	int err;		/* -ENOMEM when its sorting failed */
	int stop;		/* the second thread takes no more pieces */
	int no_ahead;		/* this thread found no memory to draw ahead */
	pthread_t thread;
};

static int errno_or_eio(void)
{
	return errno ? -errno : -EIO;
}

/* cuts p's sections into pieces; 0 or -ENOMEM */
static int make_pieces(struct part *p, size_t piece_rows)
{
	const struct kmt_report *r = p->r;
	size_t i, r0, n = 0;

	for (i = 0; i < r->nr; i++)
		n += kmt_render_section_rows(r, i) / piece_rows + 1;
	p->pieces = calloc(n ? n : 1, sizeof(*p->pieces));
	if (!p->pieces)
		return -ENOMEM;
	for (i = 0; i < r->nr; i++) {
		size_t rows = kmt_render_section_rows(r, i);

		r0 = 0;
		do {
			struct piece *pc = &p->pieces[p->nr++];

			pc->part = p;
			pc->sec = i;
			pc->r0 = r0;
			pc->r1 = rows - r0 > piece_rows ? r0 + piece_rows : rows;
			r0 = pc->r1;
		} while (r0 < rows);
	}
	return 0;
}

/* lays p out and cuts it; without the memory for it, p is drawn whole */
static void prepare_part(struct part *p, const struct kmt_renderer *rd,
			 int more, size_t piece_rows)
{
	p->lay = rd->layout(p->r, more);
	if (p->lay && make_pieces(p, piece_rows)) {
		rd->layout_free(p->lay);
		p->lay = NULL;
		p->nr = 0;
	}
	p->whole = !p->lay;
}

/* the next piece nobody took, in order, taken; NULL when none is ready */
static struct piece *take_next(struct kmt_par *sh)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		struct part *p = &sh->part[i];

		/* the first part's pieces go first once it has them */
		if (!p->ready)
			continue;
		if (p->taken < p->nr) {
			p->pieces[p->taken].state = PIECE_DRAWING;
			return &p->pieces[p->taken++];
		}
	}
	return NULL;
}

/*
 * A stream into a kmt_sb.  open_memstream would do, but glibc's does not
 * tell a write that found no memory: the text would come out short.
 */
static ssize_t sb_write(void *cookie, const char *buf, size_t len)
{
	struct kmt_sb *sb = cookie;

	kmt_sb_add(sb, buf, len);
	if (sb->oom) {
		errno = ENOMEM;
		return -1;
	}
	return (ssize_t)len;
}

/*
 * Draws pc, taken, into memory and holds it; called and returns with the
 * lock held.  0, or -1 (the piece handed back) when it could not be.
 */
static int hold(struct kmt_par *sh, struct piece *pc)
{
	static const cookie_io_functions_t io = { .write = sb_write };
	struct kmt_sb sb = KMT_SB_INIT;
	FILE *f;
	int ret = -1;

	if (sh->nr_spare)
		sb = sh->spare[--sh->nr_spare];
	pthread_mutex_unlock(&sh->lock);
	f = fopencookie(&sb, "w", io);
	if (f) {
		ret = sh->rd->piece(pc->part->lay, pc->sec, pc->r0, pc->r1, f);
		if (fclose(f) || sb.oom)
			ret = -1;
	}
	pthread_mutex_lock(&sh->lock);
	if (ret) {
		kmt_sb_release(&sb);
		pc->state = PIECE_FREE;
	} else {
		pc->text = sb;
		pc->state = PIECE_HELD;
		sh->held += sb.len;
	}
	pthread_cond_broadcast(&sh->cond);
	return ret;
}

/*
 * The second thread: its part sorted and laid out, then pieces of both
 * parts, in order, drawn into memory.  A piece it cannot draw (no
 * memory) it hands back, and the first thread draws it.
 */
static void *share_helper(void *arg)
{
	struct kmt_par *sh = arg;
	struct part *second = &sh->part[1];
	int err = sh->make_second(sh->ctx, &sh->r);

	if (!err && sh->r.oom)
		err = -ENOMEM;
	pthread_mutex_lock(&sh->lock);
	sh->err = err;
	sh->finished = 1;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	if (err)
		return NULL;
	prepare_part(second, sh->rd, 1, sh->piece_rows);
	pthread_mutex_lock(&sh->lock);
	second->ready = 1;
	pthread_cond_broadcast(&sh->cond);
	for (;;) {
		struct piece *pc = NULL;

		if (sh->stop)
			break;
		if (sh->held < sh->spool_max)
			pc = take_next(sh);
		if (pc) {
			if (hold(sh, pc))
				break;
			continue;
		}
		/* all taken: the first part's pieces were the last to come */
		if (sh->part[0].ready && sh->part[0].taken == sh->part[0].nr &&
		    second->taken == second->nr)
			break;
		pthread_cond_wait(&sh->cond, &sh->lock);
	}
	pthread_mutex_unlock(&sh->lock);
	return NULL;
}

struct kmt_par *kmt_par_start(const struct kmt_renderer *rd,
			      int (*make_second)(void *ctx, struct kmt_report *r),
			      void *ctx, size_t piece_rows, size_t spool_max)
{
	struct kmt_par *sh;

	if (!rd->layout)
		return NULL;
	sh = calloc(1, sizeof(*sh));
	if (!sh)
		return NULL;
	sh->make_second = make_second;
	sh->ctx = ctx;
	sh->rd = rd;
	sh->piece_rows = piece_rows ? piece_rows : KMT_PAR_PIECE_ROWS;
	sh->spool_max = spool_max;
	kmt_report_init(&sh->r);
	sh->part[1].r = &sh->r;
	pthread_mutex_init(&sh->lock, NULL);
	pthread_cond_init(&sh->cond, NULL);
	if (pthread_create(&sh->thread, NULL, share_helper, sh)) {
		pthread_cond_destroy(&sh->cond);
		pthread_mutex_destroy(&sh->lock);
		kmt_report_free(&sh->r);
		free(sh);
		return NULL;
	}
	return sh;
}

/*
 * The first part, r, sorted: laid out and offered to the second thread;
 * then waits until the second part is sorted.  Its error, or 0.
 */
int kmt_par_first(struct kmt_par *sh, const struct kmt_report *r)
{
	struct part *p = &sh->part[0];
	int err;

	p->r = r;
	prepare_part(p, sh->rd, 0, sh->piece_rows);
	pthread_mutex_lock(&sh->lock);
	p->ready = 1;
	pthread_cond_broadcast(&sh->cond);
	while (!sh->finished)
		pthread_cond_wait(&sh->cond, &sh->lock);
	err = sh->err;
	pthread_mutex_unlock(&sh->lock);
	return err;
}

/* returns a written piece's buffer to draw into again */
static void spare_text(struct kmt_par *sh, struct kmt_sb *text)
{
	if (sh->nr_spare < SPARE_TEXTS) {
		kmt_sb_reset(text);
		sh->spare[sh->nr_spare++] = *text;
	} else {
		kmt_sb_release(text);
	}
	*text = (struct kmt_sb)KMT_SB_INIT;
}

/* draws part i whole: no memory to draw it in pieces */
static int draw_whole(struct kmt_par *sh, size_t i, FILE *out)
{
	const struct kmt_report *r = sh->part[i].r;

	errno = 0;
	if (i ? sh->rd->render_more(r, out) : sh->rd->render(r, out))
		return errno_or_eio();
	return 0;
}

/*
 * Writes the report: both parts' pieces in order, as described above.  Called with both parts sorted; 0, or -errno.
 */
int kmt_par_draw(struct kmt_par *sh, FILE *out)
{
	struct part *p;
	struct piece *pc;
	size_t i = 0, w = 0;
	int err = 0;

	errno = 0;
	if (!sh->part[0].whole && sh->rd->head &&
	    sh->rd->head(sh->part[0].r, out))
		return errno_or_eio();
	pthread_mutex_lock(&sh->lock);
	while (i < 2 && !err) {
		p = &sh->part[i];
		if (!p->ready) {
			pthread_cond_wait(&sh->cond, &sh->lock);
			continue;
		}
		if (w == p->nr) {
			if (p->whole) {
				pthread_mutex_unlock(&sh->lock);
				err = draw_whole(sh, i, out);
				pthread_mutex_lock(&sh->lock);
			}
			i++;
			w = 0;
			continue;
		}
		pc = &p->pieces[w];
		if (pc->state == PIECE_HELD) {
			pthread_mutex_unlock(&sh->lock);
			errno = 0;
			/* A piece that drew nothing has no buffer: fwrite's
			 * pointer is declared non-NULL even for 0 bytes. */
			if (pc->text.len &&
			    fwrite(pc->text.buf, 1, pc->text.len, out) !=
				    pc->text.len)
				err = errno_or_eio();
			pthread_mutex_lock(&sh->lock);
			sh->held -= pc->text.len;
			spare_text(sh, &pc->text);
			pthread_cond_broadcast(&sh->cond);
			w++;
			continue;
		}
		if (pc->state == PIECE_FREE) {
			if (w == p->taken)
				p->taken++;
			pc->state = PIECE_DRAWING;
			pthread_mutex_unlock(&sh->lock);
			errno = 0;
			if (sh->rd->piece(p->lay, pc->sec, pc->r0, pc->r1, out))
				err = errno_or_eio();
			pthread_mutex_lock(&sh->lock);
			w++;
			continue;
		}
		/* the other thread draws it: draw ahead meanwhile */
		pc = sh->no_ahead || sh->held >= sh->spool_max ? NULL :
		     take_next(sh);
		if (!pc)
			pthread_cond_wait(&sh->cond, &sh->lock);
		else if (hold(sh, pc))
			sh->no_ahead = 1;
	}
	sh->stop = 1;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	return err;
}

void kmt_par_free(struct kmt_par *sh)
{
	size_t i, k;

	if (!sh)
		return;
	pthread_mutex_lock(&sh->lock);
	sh->stop = 1;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	pthread_join(sh->thread, NULL);
	for (i = 0; i < 2; i++) {
		struct part *p = &sh->part[i];

		for (k = 0; k < p->nr; k++)
			kmt_sb_release(&p->pieces[k].text);
		free(p->pieces);
		if (p->lay)
			sh->rd->layout_free(p->lay);
	}
	for (i = 0; i < sh->nr_spare; i++)
		kmt_sb_release(&sh->spare[i]);
	kmt_report_free(&sh->r);
	pthread_cond_destroy(&sh->cond);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}

