/* crystal.c: the figures and the worklist of a crystallization. */
#include "dtk/crystal.h"

#include "dtk/index.h"
#include "dtk/kb.h"
#include "dtk/yemit.h"

#include <stdlib.h>
#include <string.h>

#define PUSH(arr, n, cap, v)                                                                       \
	do {                                                                                       \
		dtk_grow((void **)&(arr), &(cap), (n) + 1, sizeof(*(arr)));                        \
		(arr)[(n)++] = (v);                                                                \
	} while (0)

/* Returns 1 when a and b are the same string or both NULL. */
static int S_streq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Returns 1 when e declares an open contradiction with other. */
static int S_open_with(const struct dtk_entry *e, const char *other)
{
	size_t k;
	for (k = 0; e && k < e->n_contradicts; k++)
		if (e->contradicts[k].open && !strcmp(e->contradicts[k].ref.id, other))
			return 1;
	return 0;
}

/* Returns the item of entry e (with other, the other side of a pair; from,
 * the confidence before, -1: none). */
static struct dtk_crystal_item S_item(const struct dtk_entry *e, const char *other, int from)
{
	return (struct dtk_crystal_item){e,    e->id,        other, other ? NULL : e->title,
	                                 from, e->confidence};
}

static void S_add(struct dtk_crystal_list *l, struct dtk_crystal_item it)
{
	dtk_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = it;
}

/* Adds an event of kind k: entry e (with other, a contradiction's other
 * entry, when not NULL; then once for the pair, whichever side declares
 * it), from: the confidence before. */
static void S_event(struct dtk_crystal *c, int k, const struct dtk_entry *e, const char *other,
                    int from)
{
	struct dtk_crystal_list *l = &c->events[k];
	size_t i, cap = l->n;
	char *pair;

	for (i = 0; other && i < l->n; i++)
		if (!strcmp(l->v[i].other, e->id) && !strcmp(l->v[i].id, other))
			return;
	dtk_grow((void **)&c->rec.events[k], &cap, l->n + 1, sizeof(*c->rec.events[k]));
	if (other) {
		pair = dtk_xmalloc(strlen(e->id) + strlen(other) + 4);
		sprintf(pair, "%s\xE2\x86\x94%s", e->id, other); /* ↔ */
	}
	c->rec.events[k][c->rec.n_events[k]++] = other ? pair : e->id;
	S_add(l, S_item(e, other, from));
}

/* Returns contradiction other of e, or NULL. */
static const struct dtk_contradiction *S_contra(const struct dtk_entry *e, const char *other)
{
	size_t k;
	for (k = 0; e && k < e->n_contradicts; k++)
		if (!strcmp(e->contradicts[k].ref.id, other))
			return &e->contradicts[k];
	return NULL;
}

/* The events of entry e since the last run, dated by its fields, or, for
 * a field that is absent, told by p (e at the previous run; NULL: not
 * known or new); and the changes it counts: its high status against p's
 * (without the previous base: a new entry that is high), its open
 * contradictions that are new. */
static void S_entry(struct dtk_crystal *c, const struct dtk_kb *kb, const struct dtk_entry *e,
                    const struct dtk_entry *p, int has_prev)
{
	dtk_date since = c->rec.since;
	int from = e->confidence_changed > since ? e->confidence_was
	           : p                           ? p->confidence
	                                         : -1;
	/* a retired high entry is out of the high list: a change */
	int high = dtk_entry_high(e), was = p && dtk_entry_high(p);
	int is_new = !since || e->created > since;
	size_t k;

	if (has_prev ? high != was : (high && is_new))
		c->rec.high_changes++;
	if (is_new)
		S_event(c, DTK_EV_ADDED, e, NULL, -1);
	if (from >= 0 && from != e->confidence)
		S_event(c, from > e->confidence ? DTK_EV_RAISED : DTK_EV_LOWERED, e, NULL, from);
	for (k = 0; k < e->n_contradicts; k++) {
		const struct dtk_contradiction *x = &e->contradicts[k],
		                               *before = S_contra(p, x->ref.id);
		if (x->open && (has_prev ? !S_open_with(p, x->ref.id) : is_new))
			c->rec.contradictions_new++;
		if (x->opened ? x->opened > since : has_prev ? !before : e->created > since)
			S_event(c, DTK_EV_OPENED, e, x->ref.id, -1);
		if (!x->open && (x->resolved ? x->resolved > since : before && before->open))
			S_event(c, DTK_EV_RESOLVED, e, x->ref.id, -1);
	}
	if (e->superseded > since)
		S_event(c, DTK_EV_SUPERSEDED, e, NULL, -1);
	if (e->retracted > since)
		S_event(c, DTK_EV_RETRACTED, e, NULL, -1);
	if (e->revised > since)
		S_event(c, DTK_EV_REVISED, e, NULL, -1);
	if (!dtk_entry_retired(e) && dtk_entry_is_stale(kb, e, c->rec.date) &&
	    (!since || !dtk_entry_is_stale(kb, e, since)))
		S_event(c, DTK_EV_NEWLY_STALE, e, NULL, -1);
}

/* Goes over the base once: the lists of the worklist, the events, the
 * figures. */
static void S_walk(struct dtk_crystal *c, const struct dtk_kb *kb, const struct dtk_kb *prev)
{
	dtk_date since = c->rec.since;
	struct dtk_crystal_list *l = c->lists;
	size_t i, j, k, news, cap_bc = 0;

	for (i = 0; i < kb->n_sources; i++)
		if (kb->sources[i].revised > since)
			S_add(&l[DTK_CL_SOURCES],
			      (struct dtk_crystal_item){NULL, kb->sources[i].id, NULL,
			                                kb->sources[i].title, -1, -1});

	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *n = kb->nodes[i],
		                      *pn = prev ? dtk_kb_node(prev, n->name) : NULL;
		struct dtk_bloom_change bc = {n->name, pn ? pn->bloom : n->bloom, n->bloom};
		if (bc.from != bc.to)
			PUSH(c->rec.bloom_changes, c->rec.n_bloom_changes, cap_bc, bc);
		if (pn && !S_streq(pn->stance, n->stance))
			c->rec.stance_rewrites++;
		for (j = news = 0; j < n->n_entries; j++) {
			const struct dtk_entry *e = &n->entries[j];
			dtk_date f = dtk_entry_fresh(e);
			S_entry(c, kb, e, prev ? dtk_kb_entry(prev, e->id) : NULL, !!prev);
			if (since == 0 || e->created > since) {
				S_add(&l[DTK_CL_NEW], S_item(e, NULL, -1));
				news++;
			}
			if (e->revised > since)
				S_add(&l[DTK_CL_REVISED], S_item(e, NULL, -1));
			if (dtk_entry_retired(e)) /* kept as history: no work left on it */
				continue;
			if (dtk_entry_is_stale(kb, e, c->rec.date))
				S_add(&l[DTK_CL_STALE], S_item(e, NULL, -1));
			if (e->confidence != DTK_CONF_HIGH && dtk_entry_verified_for_high(kb, e))
				S_add(&l[DTK_CL_PROMOTABLE], S_item(e, NULL, -1));
			if (dtk_entry_is_candidate(kb, e))
				S_add(&l[DTK_CL_CANDIDATES], S_item(e, NULL, -1));
			for (k = 0; k < e->n_relates + e->n_contradicts; k++) {
				const char *x = k < e->n_relates
				                        ? e->relates[k].id
				                        : e->contradicts[k - e->n_relates].ref.id;
				if (strchr(x, ':') && (e->created > since || e->revised > since))
					S_add(&l[DTK_CL_CROSS], S_item(e, x, -1));
			}
			if (!c->rec.earliest || f < c->rec.earliest)
				c->rec.earliest = f;
		}
		/* the plan's pairs: of every new entry, one dated after the run too */
		c->pairs += (long)(news * (n->n_entries - news) + news * (news - 1) / 2);
		if (news && pn && S_streq(pn->stance, n->stance))
			S_add(&l[DTK_CL_STANCE],
			      (struct dtk_crystal_item){NULL, n->name, NULL, NULL, -1, -1});
	}
	for (i = 0; prev && i < prev->n_nodes; i++) /* high entries gone */
		for (j = 0; j < prev->nodes[i]->n_entries; j++) {
			const struct dtk_entry *p = &prev->nodes[i]->entries[j];
			if (dtk_entry_high(p) && !dtk_kb_entry(kb, p->id))
				c->rec.high_changes++;
		}
}

/* Lists the gaps whose nodes got entries after the gap was written. */
static void S_gaps(struct dtk_crystal *c, const struct dtk_kb *kb)
{
	size_t i, j, k;

	for (i = 0; i < kb->n_gaps; i++) {
		const struct dtk_gap *g = &kb->gaps[i];
		dtk_date after = g->written ? g->written : c->rec.since;
		int hit = 0;
		for (j = 0; j < g->n_nodes && !hit; j++) {
			const struct dtk_node *n = dtk_kb_node(kb, g->nodes[j].id);
			for (k = 0; n && k < n->n_entries && !hit; k++)
				hit = n->entries[k].created > after;
		}
		if (hit)
			S_add(&c->lists[DTK_CL_GAPS],
			      (struct dtk_crystal_item){NULL, g->id, NULL, g->text, -1, -1});
	}
}

void dtk_crystal_compute(struct dtk_crystal *out, const struct dtk_kb *now,
                         const struct dtk_kb *prev, dtk_date date)
{
	struct dtk_record *r = &out->rec;

	memset(out, 0, sizeof(*out));
	r->date = date;
	r->since = now->n_records ? now->records[now->n_records - 1].date : 0;
	out->has_prev = prev != NULL;
	out->kb = now;
	S_walk(out, now, prev);
	S_gaps(out, now);
	if (!r->earliest) /* no entries: nothing is older than the run */
		r->earliest = date;
	r->new_entries = (long)out->lists[DTK_CL_NEW].n;
	r->stale = (long)out->lists[DTK_CL_STALE].n;
	r->has_events = 1;
	r->has_review = 1; /* what was compared, a verdict or not */
	r->n_pairs = dtk_record_pairs(&r->pairs, now, r);
}

void dtk_crystal_release(struct dtk_crystal *c)
{
	size_t i, k;

	for (k = 0; k < DTK_CL_COUNT; k++)
		free(c->lists[k].v);
	for (k = 0; k < DTK_EV_COUNT; k++) {
		for (i = 0; i < c->rec.n_events[k]; i++)
			if (c->events[k].v[i].other)
				free((char *)c->rec.events[k][i]);
		free(c->events[k].v);
		free(c->rec.events[k]);
	}
	free(c->rec.pairs);
	free(c->rec.bloom_changes);
	memset(c, 0, sizeof(*c));
}

size_t dtk_record_pairs(struct dtk_pair_count **out, const struct dtk_kb *kb,
                        const struct dtk_record *r)
{
	size_t i, j, n = 0, cap = 0;

	*out = NULL;
	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *node = kb->nodes[i];
		long k = 0, e = 0;
		for (j = 0; j < node->n_entries; j++) {
			dtk_date d = node->entries[j].created;
			k += (!r->since || d > r->since) && d <= r->date;
			e += r->since && d <= r->since;
		}
		if (!k)
			continue;
		dtk_grow((void **)out, &cap, n + 1, sizeof(**out));
		(*out)[n].node = node->name;
		(*out)[n++].count = k * e + k * (k - 1) / 2;
	}
	return n;
}

/* Appends s as a YAML scalar that reads back as s (libyaml's emitter
 * decides the quoting). Returns 0, or -1 with the error set. */
static int S_scalar(struct dtk_buf *out, const char *s, int where, int indent)
{
	return dtk_yemit_scalar(out, s, strlen(s), where, indent, "\n");
}

/* Appends r's events ("  events:" and a line a kind, kinds with none left
 * out; "{}" when there are none), nothing for a record without them.
 * Returns 0, or -1 with the error set. */
static int S_events_yaml(struct dtk_buf *out, const struct dtk_record *r)
{
	size_t k, i, any = 0;
	int rc = 0;

	if (!r->has_events)
		return 0;
	for (k = 0; k < DTK_EV_COUNT; k++)
		any += r->n_events[k];
	dtk_buf_puts(out, any ? "  events:\n" : "  events: {}\n");
	for (k = 0; k < DTK_EV_COUNT; k++) {
		if (!r->n_events[k])
			continue;
		dtk_buf_printf(out, "    %s: [", dtk_event_names[k]);
		for (i = 0; i < r->n_events[k]; i++) {
			dtk_buf_puts(out, i ? ", " : "");
			rc |= S_scalar(out, r->events[k][i], DTK_YEMIT_FLOW, 0);
		}
		dtk_buf_puts(out, "]\n");
	}
	return rc ? -1 : 0;
}

int dtk_record_to_yaml(struct dtk_buf *out, const struct dtk_record *r)
{
	char d[11];
	size_t i;
	int rc = 0;

	dtk_buf_printf(out, "- date: %s\n", dtk_date_format(d, r->date));
	if (r->since)
		dtk_buf_printf(out, "  since: %s\n", dtk_date_format(d, r->since));
	dtk_buf_printf(out, "  new_entries: %ld\n  high_changes: %ld\n  stale: %ld\n",
	               r->new_entries, r->high_changes, r->stale);
	dtk_buf_printf(out, "  earliest: %s\n  bloom_changes: {", dtk_date_format(d, r->earliest));
	for (i = 0; i < r->n_bloom_changes; i++) {
		char change[64];
		snprintf(change, sizeof(change), "%s→%s", dtk_bloom_names[r->bloom_changes[i].from],
		         dtk_bloom_names[r->bloom_changes[i].to]);
		dtk_buf_puts(out, i ? ", " : "");
		rc |= S_scalar(out, r->bloom_changes[i].node, DTK_YEMIT_FLOW, 0);
		dtk_buf_puts(out, ": ");
		rc |= S_scalar(out, change, DTK_YEMIT_FLOW, 0);
	}
	dtk_buf_printf(out,
	               "}\n  stance_rewrites: %ld\n  contradictions_new: %ld\n  eval: {scenario: ",
	               r->stance_rewrites, r->contradictions_new);
	rc |= S_scalar(out, r->eval_scenario, DTK_YEMIT_FLOW, 0);
	dtk_buf_puts(out, ", verdict: ");
	rc |= S_scalar(out, r->eval_verdict, DTK_YEMIT_FLOW, 0);
	dtk_buf_puts(out, "}\n");
	rc |= S_events_yaml(out, r);
	if (!r->has_review)
		return rc ? -1 : 0;
	dtk_buf_puts(out, "  review:\n    pairs: {");
	for (i = 0; i < r->n_pairs; i++) {
		dtk_buf_puts(out, i ? ", " : "");
		rc |= S_scalar(out, r->pairs[i].node, DTK_YEMIT_FLOW, 0);
		dtk_buf_printf(out, ": %ld", r->pairs[i].count);
	}
	dtk_buf_puts(out, "}\n    cross_pairs: [");
	for (i = 0; i < r->n_cross_pairs; i++) {
		dtk_buf_puts(out, i ? ", " : "");
		rc |= S_scalar(out, r->cross_pairs[i], DTK_YEMIT_FLOW, 0);
	}
	dtk_buf_puts(out, "]\n");
	for (i = 0; i < 2; i++) { /* the verdict, then the note */
		const char *words = i ? r->review_note : r->review_verdict;
		if (!words)
			continue;
		dtk_buf_puts(out, i ? "    note: " : "    verdict: ");
		rc |= S_scalar(out, words, DTK_YEMIT_BLOCK, 4);
		dtk_buf_putc(out, '\n');
	}
	return rc ? -1 : 0;
}

/* Returns 1 when text holds nothing but blank lines, comments and document
 * markers (a records file with no record that appending keeps). */
static int S_only_comments(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *q = p;
		while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q < e && *q != '#' && !(e - q >= 3 && !strncmp(q, "---", 3)))
			return 0;
		p = nl ? nl + 1 : end;
	}
	return 1;
}

int dtk_records_append(char **out, const char *old, size_t old_len, size_t old_records,
                       const struct dtk_record *r)
{
	struct dtk_buf b = DTK_BUF_INIT;

	struct dtk_buf rec = DTK_BUF_INIT;
	const char *nl = old ? memchr(old, '\n', old_len) : NULL;
	/* the lines added end as the file's first line does (CRLF or LF) */
	int crlf = nl && nl > old && nl[-1] == '\r';
	size_t i;

	*out = NULL;
	if (old && (old_records > 0 || S_only_comments(old, old_len))) {
		dtk_buf_put(&b, old, old_len);
		if (old_len && old[old_len - 1] != '\n')
			dtk_buf_puts(&b, crlf ? "\r\n" : "\n");
	}
	if (dtk_record_to_yaml(&rec, r) < 0) {
		dtk_buf_release(&rec);
		dtk_buf_release(&b);
		return -1;
	}
	for (i = 0; i < rec.len; i++) {
		if (crlf && rec.ptr[i] == '\n')
			dtk_buf_putc(&b, '\r');
		dtk_buf_putc(&b, rec.ptr[i]);
	}
	dtk_buf_release(&rec);
	*out = dtk_buf_detach(&b);
	return 0;
}

int dtk_record_equal(const struct dtk_record *a, const struct dtk_record *b)
{
	struct dtk_buf x = DTK_BUF_INIT, y = DTK_BUF_INIT;
	int eq = dtk_record_to_yaml(&x, a) == 0 && dtk_record_to_yaml(&y, b) == 0 &&
	         !strcmp(x.ptr, y.ptr);

	dtk_buf_release(&x);
	dtk_buf_release(&y);
	return eq;
}

void dtk_record_summary(struct dtk_buf *out, const struct dtk_record *r)
{
	long blooms = (long)r->n_bloom_changes;
	dtk_buf_printf(out,
	               "%ld new, %ld high change%s, %ld stale, %ld bloom change%s, "
	               "%ld stance rewrite%s, %ld new contradiction%s",
	               r->new_entries, r->high_changes, r->high_changes == 1 ? "" : "s", r->stale,
	               blooms, blooms == 1 ? "" : "s", r->stance_rewrites,
	               r->stance_rewrites == 1 ? "" : "s", r->contradictions_new,
	               r->contradictions_new == 1 ? "" : "s");
}

char *dtk_crystal_fold(const struct dtk_kb *kb)
{
	static const char *const keys[] = {"used", "cited"};
	const struct dtk_use_live *u = kb->live_uses;
	struct dtk_buf b = DTK_BUF_INIT;
	size_t i, j, k;
	int key, head;

	if (!kb->n_live_uses)
		return NULL;
	for (i = 0; i < kb->n_live_uses; i = j) {
		for (j = i; j < kb->n_live_uses && !strcmp(u[j].rec, u[i].rec); j++)
			;
		/* names and ids were read from valid UTF-8: cannot fail */
		(void)dtk_yemit_scalar(&b, u[i].rec, strlen(u[i].rec), DTK_YEMIT_FLOW, 0, "\n");
		dtk_buf_puts(&b, ":\n");
		for (key = 0; key < 2; key++)
			for (k = i, head = 0; k < j; k++) {
				if (u[k].cited != key)
					continue;
				if (!head++)
					dtk_buf_printf(&b, "  %s:\n", keys[key]);
				dtk_buf_puts(&b, "  - ");
				(void)dtk_yemit_scalar(&b, u[k].id, strlen(u[k].id), DTK_YEMIT_FLOW,
				                       2, "\n");
				dtk_buf_puts(&b, "\n");
			}
	}
	return dtk_buf_detach(&b);
}
