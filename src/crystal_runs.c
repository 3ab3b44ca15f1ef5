/* crystal_runs.c: the crystallization runs git's history holds (crystal.h),
 * found with repo_history.c's walk of the records file. */
#include "dtk/crystal.h"

#include "dtk/kb.h"
#include "dtk/repo.h"

#include <stdlib.h>
#include <string.h>

#define RECORDS "insights/_crystallizations.yaml"
#define TRAILER "Dtk-Crystallization"

/* Parses records text[0..len) (NULL: none); returns a base holding them, or
 * NULL (none, or invalid). */
static struct dtk_kb *S_records(const char *text, size_t len)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;

	if (text)
		dtk_kb_parse_records(&kb, text, len, RECORDS, &d);
	dtk_diags_release(&d);
	return kb;
}

static int S_has_date(const struct dtk_kb *kb, dtk_date date)
{
	size_t i;
	for (i = 0; kb && i < kb->n_records; i++)
		if (kb->records[i].date == date)
			return 1;
	return 0;
}

/* Returns 1 when one of step's parents' records (parsed: prevs) has the
 * run of date. */
static int S_parent_has(struct dtk_kb *const *prevs, size_t n, dtk_date date)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (S_has_date(prevs[i], date))
			return 1;
	return 0;
}

/* Returns 1 when step's commit recorded the run of date: its trailer names
 * the date, or it added that record (now has it, no parent did: a merge
 * that brought it from a branch did not). */
static int S_recorded(const struct dtk_repo_step *step, const struct dtk_kb *now,
                      struct dtk_kb *const *prevs, dtk_date date, int *trailer)
{
	char want[11];

	*trailer = dtk_repo_trailer(step->message, TRAILER, dtk_date_format(want, date));
	return *trailer || (S_has_date(now, date) && !S_parent_has(prevs, step->n_prevs, date));
}

/* Parses the records of step into *now and those of its parents into the
 * array returned (each NULL when none); free both with S_parsed_free. */
static struct dtk_kb **S_parse(const struct dtk_repo_step *step, struct dtk_kb **now)
{
	struct dtk_kb **prevs = dtk_xcalloc(step->n_prevs + 1, sizeof(*prevs));
	size_t i;

	*now = S_records(step->now, step->now_len);
	for (i = 0; i < step->n_prevs; i++)
		prevs[i] = S_records(step->prevs[i], step->prev_lens[i]);
	return prevs;
}

static void S_parsed_free(struct dtk_kb *now, struct dtk_kb **prevs, size_t n)
{
	size_t i;

	dtk_kb_free(now);
	for (i = 0; i < n; i++)
		dtk_kb_free(prevs[i]);
	free(prevs);
}

struct find {
	dtk_date date;
	char commit[41];
};

static int S_find_step(void *arg, const struct dtk_repo_step *step)
{
	struct find *f = arg;
	struct dtk_kb *now, **prevs = S_parse(step, &now);
	int trailer, found;

	found = S_recorded(step, now, prevs, f->date, &trailer);
	if (found)
		memcpy(f->commit, step->commit, sizeof(f->commit));
	S_parsed_free(now, prevs, step->n_prevs);
	return found;
}

int dtk_crystal_checkout_run(struct dtk_repo *repo, dtk_date date, const char *dir,
                             char commit_hex[41])
{
	struct find f = {date, ""};
	int rc = dtk_repo_walk(repo, RECORDS, TRAILER, S_find_step, &f);

	commit_hex[0] = '\0';
	if (rc <= 0)
		return rc;
	if (dtk_repo_extract(repo, f.commit, "insights", dir) < 0)
		return -1;
	memcpy(commit_hex, f.commit, 41);
	return 1;
}

static int S_runs_step(void *arg, const struct dtk_repo_step *step)
{
	struct dtk_run_list *l = arg;
	struct dtk_kb *now, **prevs = S_parse(step, &now);
	size_t i;
	int trailer;

	for (i = 0; i < l->n; i++) {
		struct dtk_run *run = &l->v[i];
		if (run->commit[0] || !S_recorded(step, now, prevs, run->record.date, &trailer))
			continue;
		memcpy(run->commit, step->commit, sizeof(run->commit));
		run->time = step->time;
		run->trailer = trailer;
	}
	S_parsed_free(now, prevs, step->n_prevs);
	return 0;
}

int dtk_crystal_runs(struct dtk_repo *repo, struct dtk_run_list *out, struct dtk_diags *diags)
{
	char *text = NULL;
	size_t len = 0, i;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = dtk_repo_read_head(repo, RECORDS, &text, &len);
	out->unborn = rc == DTK_REPO_UNBORN;
	/* HEAD's records, invalid ones reported (not taken for no runs) */
	if (rc == DTK_REPO_FOUND)
		rc = dtk_kb_parse_records(&out->kb, text, len, RECORDS, diags);
	free(text);
	if (rc < 0 || !out->kb)
		return rc < 0 ? rc : 0;
	out->n = out->kb->n_records;
	out->v = dtk_xcalloc(out->n + 1, sizeof(*out->v));
	for (i = 0; i < out->n; i++)
		out->v[i].record = out->kb->records[out->n - 1 - i];
	return dtk_repo_walk(repo, RECORDS, TRAILER, S_runs_step, out) < 0 ? -1 : 0;
}

void dtk_run_list_release(struct dtk_run_list *l)
{
	free(l->v);
	dtk_kb_free(l->kb);
	memset(l, 0, sizeof(*l));
}
