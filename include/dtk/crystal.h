/*
 * crystal.h: what a crystallization computes, independent of git. The base
 * now is compared with the base at the previous run (when known).
 */
#ifndef DTK_CRYSTAL_H
#define DTK_CRYSTAL_H

#include "dtk/dtk.h"
#include "dtk/model.h"

/* An item of the worklist as the plan shows it: its id (a node's name; NULL
 * for a gap without one), the other side of a pair (a contradiction's other
 * entry, a reference), a confidence change from→to (from -1: none), its
 * title (a gap's text; NULL beside other); e, when it is an entry's. */
struct dtk_crystal_item {
	const struct dtk_entry *e;
	const char *id, *other, *title;
	int from, to;
};

struct dtk_crystal_list {
	struct dtk_crystal_item *v;
	size_t n, cap;
};

/* The lists of the worklist, in the plan's order. */
enum {
	DTK_CL_NEW,        /* entries created after since, listing order */
	DTK_CL_STALE,      /* stale at date */
	DTK_CL_CANDIDATES, /* one verification short of high */
	DTK_CL_PROMOTABLE, /* not high, enough verified_by for high */
	DTK_CL_REVISED,    /* entries revised after since (any, before a run) */
	DTK_CL_SOURCES,    /* sources, likewise */
	DTK_CL_STANCE,     /* nodes with new entries, same stance as before */
	/* references into other domains of entries new or revised since the
	 * last run */
	DTK_CL_CROSS,
	/* gaps whose nodes got entries created after the gap was written (or,
	 * undated, after since): to be read again */
	DTK_CL_GAPS,
	DTK_CL_COUNT
};

/* The worklist and the figures of one run. */
struct dtk_crystal {
	int has_prev;            /* the base at the previous run was known */
	const struct dtk_kb *kb; /* the base now */
	/* the record of the run, but its eval and review's words (the
	 * command's to add): date, since (the last record's date, 0
	 * before any), the figures, the month's events as the record names
	 * them (entry ids; "a↔b", malloc'd, for contradictions) from the
	 * entries' dated fields (the base at the previous run where a field
	 * is absent), the review pairs per node (dtk_record_pairs); its
	 * arrays are c's */
	struct dtk_record rec;
	struct dtk_crystal_list lists[DTK_CL_COUNT];
	struct dtk_crystal_list events[DTK_EV_COUNT]; /* the month's, by kind */
	/* the review pairs the plan shows (rec.pairs', and those of entries
	 * dated after the run) */
	long pairs;
};

/*
 * Computes the run at date over now, comparing with prev (the base at the
 * previous run; NULL when it is not known: figures that need it then count
 * only what the files show, see docs/commands.md). Fills *out; free its
 * contents with dtk_crystal_release. now and prev must outlive *out.
 */
void dtk_crystal_compute(struct dtk_crystal *out, const struct dtk_kb *now,
                         const struct dtk_kb *prev, dtk_date date);
void dtk_crystal_release(struct dtk_crystal *c);

/*
 * Sets *out (malloc'd, the caller frees; node names are kb's) to the review
 * pairs of the run r as the files give them: per node in kb's order, with
 * k entries created in (r->since, r->date] and E created by r->since,
 * k·E + k(k−1)/2; nodes without new entries left out. Returns their count.
 */
size_t dtk_record_pairs(struct dtk_pair_count **out, const struct dtk_kb *kb,
                        const struct dtk_record *r);

/* Appends r as one YAML list item ("- date: ...") to out, every string
 * written so that it reads back as itself. Returns 0, or -1 with the error
 * set (a string that is not valid UTF-8). */
int dtk_record_to_yaml(struct dtk_buf *out, const struct dtk_record *r);

/*
 * Sets *out to the new text of _crystallizations.yaml: old (the file's bytes,
 * may be NULL) with r appended, every byte of old kept; r alone when old
 * holds neither a record nor only comments. Returns 0 (the caller frees
 * *out), or -1 with the error set.
 */
int dtk_records_append(char **out, const char *old, size_t old_len, size_t old_records,
                       const struct dtk_record *r);

/* Returns 1 when a and b hold the same values (positions aside): they are
 * written alike (dtk_record_to_yaml). */
int dtk_record_equal(const struct dtk_record *a, const struct dtk_record *b);

/* Appends the one-line summary of r ("4 new, 0 high changes, 1 stale,
 * 1 bloom change, ...") to out. */
void dtk_record_summary(struct dtk_buf *out, const struct dtk_record *r);

/* A page of the worklist: page (from 1) of each list cut in pages of limit
 * items (the review pairs: of limit new entries); pairs: the most review
 * pairs shown beside a new entry. */
struct dtk_plan_page {
	size_t page, limit, pairs;
};
#define DTK_PLAN_LIMIT 20
#define DTK_PLAN_PAIRS 5

/* Appends page pg of the reviewer's worklist of run c to out, as text or
 * as JSON (docs/commands.md gives the shape). */
void dtk_crystal_plan(struct dtk_buf *out, const struct dtk_crystal *c,
                      const struct dtk_plan_page *pg, int json);

/* Returns the text of a fold of kb's records of uses not folded yet
 * (kb->live_uses): a mapping of each record's name to what it holds
 * (docs/schema.md, "Counts"); malloc'd, the caller frees; NULL when there
 * is none. */
char *dtk_crystal_fold(const struct dtk_kb *kb);

/* ---- the runs git's history holds (crystal_runs.c) ---- */

struct dtk_repo;
struct dtk_diags;

/* A run found in history. */
struct dtk_run {
	struct dtk_record record; /* as committed (strings owned by the list) */
	char commit[41];          /* "" when no commit of history added it */
	long long time;           /* the commit's time, seconds since the epoch */
	int trailer;              /* the commit carries a Dtk-Crystallization trailer */
};

struct dtk_run_list {
	struct dtk_run *v;
	size_t n;
	struct dtk_kb *kb; /* owns the records' strings */
	int unborn;        /* HEAD has no commit yet */
};

/* Lists the runs recorded in HEAD's _crystallizations.yaml, newest first,
 * each with the commit that added it. Returns 0; DTK_EINVALID when HEAD's
 * records are invalid (the errors added to diags); or -1 with the error set.
 * Release *out with dtk_run_list_release. */
int dtk_crystal_runs(struct dtk_repo *repo, struct dtk_run_list *out, struct dtk_diags *diags);
void dtk_run_list_release(struct dtk_run_list *l);

/*
 * Finds the commit that recorded the run of date (a "Dtk-Crystallization:"
 * trailer, or the commit that added that record to _crystallizations.yaml)
 * and writes its insights/ files into dir/insights. Returns 1 and fills
 * commit_hex (41 bytes) when found; 0 when history does not hold it (a
 * shallow clone, a base copied in); -1 with the error set.
 */
int dtk_crystal_checkout_run(struct dtk_repo *repo, dtk_date date, const char *dir,
                             char commit_hex[41]);

#endif
