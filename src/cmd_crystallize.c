/* cmd_crystallize.c: dtk crystallize: the monthly review, as one git commit. */
#include "dtk/cmd.h"

#include "dtk/crystal.h"
#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/index.h"
#include "dtk/kb.h"
#include "dtk/repo.h"
#include "dtk/ytree.h"

#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct opts {
	int plan, dry_run, no_commit, json, sign, no_verify;
	dtk_date date;
	const char *eval, *review, *author, *sign_key;
};

/* Removes a scratch base made by S_prev (dir/insights/ files, then dirs). */
static void S_rm_scratch(const char *dir)
{
	char *ins = dtk_path_join(dir, "insights");
	DIR *d = opendir(ins);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *f;
		if (de->d_name[0] == '.')
			continue;
		f = dtk_path_join(ins, de->d_name);
		unlink(f);
		free(f);
	}
	if (d)
		closedir(d);
	rmdir(ins);
	rmdir(dir);
	free(ins);
}

/* Loads the base as it was at the run of since, from git; NULL when history
 * does not hold it (a warning says what that means). */
static struct dtk_kb *S_prev(struct dtk_ctx *ctx, struct dtk_repo *repo, dtk_date since)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	const char *tmp = getenv("TMPDIR");
	char *dir = dtk_path_join(tmp && *tmp ? tmp : P_tmpdir, "dtk-prev-XXXXXX"), hex[41], s[11];
	int rc = 0;

	if (repo && mkdtemp(dir))
		rc = dtk_repo_checkout_run(repo, since, dir, hex);
	/* lean: the previous base is asked only for confidences, contradictions,
	 * blooms and stances, never for a claim */
	if (rc == 1 && dtk_kb_load(&kb, dir, DTK_KB_ALL | DTK_KB_LEAN, NULL, &d) != 0)
		kb = NULL;
	if (!kb)
		fprintf(ctx->err,
		        "dtk crystallize: warning: the base at the previous run (%s) is %s; high "
		        "changes, bloom changes, stance rewrites and new contradictions count only "
		        "what the files show\n",
		        dtk_date_format(s, since),
		        rc == 1 ? "not valid by today's rules"
		                : "not in this repository's history");
	if (repo)
		S_rm_scratch(dir);
	dtk_diags_release(&d);
	free(dir);
	return kb;
}

static int S_parse_opts(struct dtk_ctx *ctx, struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {{"plan", no_argument, NULL, 'p'},
	                                   {"date", required_argument, NULL, 'd'},
	                                   {"format", required_argument, NULL, 'f'},
	                                   {"eval", required_argument, NULL, 'e'},
	                                   {"review", required_argument, NULL, 'r'},
	                                   {"author", required_argument, NULL, 'a'},
	                                   {"dry-run", no_argument, NULL, 'n'},
	                                   {"no-commit", no_argument, NULL, 'N'},
	                                   {"gpg-sign", optional_argument, NULL, 'S'},
	                                   {"no-gpg-sign", no_argument, NULL, 'G'},
	                                   {"no-verify", no_argument, NULL, 'V'},
	                                   {NULL, 0, NULL, 0}};
	int c;

	memset(o, 0, sizeof(*o));
	o->date = dtk_date_today();
	o->sign = -1;
	optind = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o->plan = 1; break;
		case 'n': o->dry_run = 1; break;
		case 'N': o->no_commit = 1; break;
		case 'e': o->eval = optarg; break;
		case 'r': o->review = optarg; break;
		case 'a': o->author = optarg; break;
		case 'S':
			o->sign = 1;
			o->sign_key = optarg;
			break;
		case 'G':
			o->sign = 0;
			o->sign_key = NULL;
			break;
		case 'V': o->no_verify = 1; break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				goto usage;
			o->json = !strcmp(optarg, "json");
			break;
		case 'd':
			if (dtk_date_parse(&o->date, optarg) < 0) {
				fprintf(ctx->err,
				        "dtk crystallize: error: --date must be a date "
				        "(YYYY-MM-DD), not '%s'\n",
				        optarg);
				return -1;
			}
			break;
		default: goto usage;
		}
	}
	if (optind == argc && (o->plan || (o->eval && strchr(o->eval, '=') && o->eval[0] != '=' &&
	                                   strchr(o->eval, '=')[1])))
		return 0;
usage:
	fprintf(ctx->err, "usage: %s\n%s", dtk_cmd_crystallize.usage,
	        o->plan ? "" : "a run needs --eval SCENARIO=VERDICT\n");
	return -1;
}

/* Makes the new _crystallizations.yaml (the old text with the record
 * appended, or written anew when appending would not parse back) and INDEX.md. */
static void S_texts(struct dtk_kb *kb, const struct dtk_record *rec, char **records, char **index)
{
	char *path = dtk_path_join(kb->root, "insights/_crystallizations.yaml"), *old = NULL;
	struct dtk_record *all = dtk_xcalloc(kb->n_records + 1, sizeof(*all)), *saved = kb->records;
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *check = NULL;
	size_t len = 0, i, n = kb->n_records;

	if (dtk_file_read(&old, &len, path, DTK_MAX_FILE_BYTES) < 0)
		old = NULL;
	*records = dtk_records_append(old, len, n, rec);
	if (dtk_kb_parse_records(&check, *records, strlen(*records), "new records", &d) != 0 ||
	    check->n_records != n + 1 || check->records[n].date != rec->date) {
		struct dtk_buf b = DTK_BUF_INIT;
		for (i = 0; i < n; i++)
			dtk_record_to_yaml(&b, &kb->records[i]);
		dtk_record_to_yaml(&b, rec);
		free(*records);
		*records = dtk_buf_detach(&b);
	}
	memcpy(all, saved, n * sizeof(*all));
	all[n] = *rec;
	kb->records = all;
	kb->n_records = n + 1;
	*index = dtk_index_render(kb);
	kb->records = saved;
	kb->n_records = n;
	dtk_kb_free(check);
	dtk_diags_release(&d);
	free(all);
	free(old);
	free(path);
}

static void S_message(struct dtk_buf *m, const struct dtk_record *r)
{
	struct dtk_buf y = DTK_BUF_INIT;
	char d[11], s[11];
	long pairs = 0;
	size_t i;

	for (i = 0; i < r->n_pairs; i++)
		pairs += r->pairs[i].count;
	dtk_buf_printf(m, "crystallize %s: ", dtk_date_format(d, r->date));
	dtk_record_summary(m, r);
	dtk_record_to_yaml(&y, r);
	dtk_buf_printf(m, "\n\n%s\nDtk-Crystallization: %s\n", y.ptr, d);
	if (r->since)
		dtk_buf_printf(m, "Dtk-Since: %s\n", dtk_date_format(s, r->since));
	dtk_buf_printf(m,
	               "Dtk-New-Entries: %ld\nDtk-High-Changes: %ld\nDtk-Stale: %ld\n"
	               "Dtk-Stance-Rewrites: %ld\nDtk-Contradictions-New: %ld\n"
	               "Dtk-Review-Pairs: %ld\n",
	               r->new_entries, r->high_changes, r->stale, r->stance_rewrites,
	               r->contradictions_new, pairs + (long)r->n_cross_pairs);
	dtk_buf_release(&y);
}

/* Writes the two files without git (--no-commit). */
static int S_write(const struct dtk_kb *kb, const char *records, const char *index)
{
	char *a = dtk_path_join(kb->root, "insights/_crystallizations.yaml");
	char *b = dtk_path_join(kb->root, DTK_INDEX_FILE);
	int rc = dtk_file_write_atomic(a, records, strlen(records));
	if (rc == 0)
		rc = dtk_file_write_atomic(b, index, strlen(index));
	free(a);
	free(b);
	return rc;
}

/* Commits the run; returns the exit status. */
static int S_commit(struct dtk_ctx *ctx, struct dtk_repo *repo, const struct dtk_kb *kb,
                    const struct opts *o, const struct dtk_record *rec, const char *records,
                    const char *index)
{
	struct dtk_commit_req req = {records, strlen(records), index, strlen(index), NULL, 0,
	                             NULL,    o->author,       -1,    NULL,          0};
	struct dtk_buf msg = DTK_BUF_INIT, sum = DTK_BUF_INIT;
	const char **files = dtk_xcalloc(kb->n_nodes + 2, sizeof(*files));
	char hex[41], d[11];
	size_t i;
	int rc;

	files[0] = "_domain.yaml";
	files[1] = "_sources.yaml";
	for (i = 0; i < kb->n_nodes; i++)
		files[i + 2] = strrchr(kb->nodes[i]->path, '/') + 1;
	req.files = files;
	req.n_files = kb->n_nodes + 2;
	S_message(&msg, rec);
	req.message = msg.ptr;
	req.sign = o->sign;
	req.sign_key = o->sign_key;
	req.no_verify = o->no_verify;
	rc = dtk_repo_commit(repo, &req, hex);
	if (rc == 0) {
		dtk_record_summary(&sum, rec);
		fprintf(ctx->out, "crystallized %s as commit %.12s: %s\n",
		        dtk_date_format(d, rec->date), hex, sum.ptr);
	}
	dtk_buf_release(&msg);
	dtk_buf_release(&sum);
	free(files);
	return rc == 0 ? DTK_EXIT_OK : dtk_cmd_fail(ctx, "crystallize", DTK_EXIT_INVALID);
}

/* Runs (or plans) the crystallization with the base and history loaded. */
static int S_run(struct dtk_ctx *ctx, const struct opts *o, struct dtk_kb *kb,
                 struct dtk_repo *repo)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_kb *prev = NULL;
	struct dtk_crystal c;
	struct dtk_record rec, review;
	struct dtk_buf out = DTK_BUF_INIT;
	char *records = NULL, *index = NULL, *scenario = NULL, d1[11], d2[11];
	const char *eq;
	int rc = DTK_EXIT_INVALID;

	memset(&review, 0, sizeof(review));
	if (kb->n_records && o->date <= kb->records[kb->n_records - 1].date) {
		fprintf(ctx->err,
		        "dtk crystallize: error: the date %s is not after the last run %s\n",
		        dtk_date_format(d1, o->date),
		        dtk_date_format(d2, kb->records[kb->n_records - 1].date));
		return DTK_EXIT_INVALID;
	}
	if (kb->n_records)
		prev = S_prev(ctx, repo, kb->records[kb->n_records - 1].date);
	dtk_crystal_compute(&c, kb, prev, o->date);
	if (o->plan) {
		if (o->json) {
			dtk_crystal_plan_json(&out, &c);
			fputs(out.ptr, ctx->out);
		} else {
			dtk_crystal_plan_text(ctx->out, &c);
		}
		rc = DTK_EXIT_OK;
		goto done;
	}
	if (o->review && dtk_kb_read_review(kb, o->review, &review, &diags) != 0) {
		rc = diags.n ? dtk_cmd_report_invalid(ctx, &diags)
		             : dtk_cmd_fail(ctx, "crystallize", DTK_EXIT_INVALID);
		goto done;
	}
	eq = strchr(o->eval, '=');
	scenario = dtk_xstrndup(o->eval, (size_t)(eq - o->eval));
	dtk_crystal_record(&rec, &c, scenario, eq + 1, o->review ? &review : NULL);
	S_texts(kb, &rec, &records, &index);
	if (o->dry_run) {
		dtk_record_to_yaml(&out, &rec);
		fputs(out.ptr, ctx->out);
		rc = DTK_EXIT_OK;
	} else if (o->no_commit) {
		rc = S_write(kb, records, index) == 0
		             ? DTK_EXIT_OK
		             : dtk_cmd_fail(ctx, "crystallize", DTK_EXIT_INVALID);
	} else {
		rc = S_commit(ctx, repo, kb, o, &rec, records, index);
	}
done:
	dtk_crystal_release(&c);
	dtk_kb_free(prev);
	dtk_diags_release(&diags);
	dtk_buf_release(&out);
	free(scenario);
	free(records);
	free(index);
	return rc;
}

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_repo *repo = NULL;
	struct dtk_kb *kb = NULL;
	struct opts o;
	int rc, commits;

	if (S_parse_opts(ctx, &o, argc, argv) < 0)
		return DTK_EXIT_INVALID;
	commits = !o.plan && !o.dry_run && !o.no_commit;
	/* outside a repository only committing needs one; without libgit2 the
	 * previous run cannot be read either, so nothing goes */
	rc = dtk_repo_open(&repo, ctx->root);
	if (rc == DTK_ENOGIT || (rc < 0 && commits)) {
		rc = dtk_cmd_fail(ctx, "crystallize", DTK_EXIT_INVALID);
		goto done;
	}
	rc = repo && !o.plan && !o.dry_run ? dtk_repo_recover(repo) : 0;
	if (rc != 0) {
		if (rc > 0)
			fprintf(ctx->err,
			        "dtk crystallize: finished the crystallization that was "
			        "interrupted; nothing else was done (run again for a new one)\n");
		rc = rc > 0 ? DTK_EXIT_OK : dtk_cmd_fail(ctx, "crystallize", DTK_EXIT_INVALID);
		goto done;
	}
	if (commits && dtk_repo_check_ready(repo) < 0) {
		rc = dtk_cmd_fail(ctx, "crystallize", DTK_EXIT_INVALID);
		goto done;
	}
	rc = dtk_cmd_load(ctx, "crystallize", &kb, DTK_KB_ALL, NULL);
	if (rc == DTK_EXIT_OK)
		rc = S_run(ctx, &o, kb, repo);
done:
	dtk_kb_free(kb);
	dtk_repo_free(repo);
	return rc;
}

const struct dtk_cmd dtk_cmd_crystallize = {
        .name = "crystallize",
        .usage = "dtk crystallize --plan [--date D] [--format text|json]\n"
                 "       dtk crystallize --eval SCENARIO=VERDICT [--date D] [--review FILE]\n"
                 "                       [--author 'Name <email>'] [--dry-run | --no-commit]\n"
                 "                       [--gpg-sign[=KEYID] | --no-gpg-sign] [--no-verify]",
        .summary = "review what changed since the last run and commit the record",
        .help = "\nCompares the base now with the base at the previous run (read from git\n"
                "history), appends a record to insights/_crystallizations.yaml, rebuilds\n"
                "INDEX.md and commits insights/ and INDEX.md as one commit on the current\n"
                "branch. Other changes in the work tree and the index are left alone.\n"
                "The commit is made as 'git commit' makes it: identity, signing and hooks\n"
                "(pre-commit, prepare-commit-msg, commit-msg, post-commit); see docs/git.md.\n\n"
                "options:\n"
                "  --plan            print the reviewer's worklist; write nothing\n"
                "  --date D          the run's date (default today); after the last run\n"
                "  --format F        text or json (with --plan)\n"
                "  --eval S=V        the eval scenario and its verdict (required for a run)\n"
                "  --review FILE     YAML with cross_pairs, verdict and note of the review\n"
                "  --author A        'Name <email>' (default: user.name and user.email)\n"
                "  --dry-run         print the record; write nothing\n"
                "  --no-commit       write the files but do not commit\n"
                "  --gpg-sign[=KEYID]  sign the commit as git does (default:\n"
                "                    commit.gpgsign, key user.signingkey)\n"
                "  --no-gpg-sign     do not sign, whatever commit.gpgsign says\n"
                "  --no-verify       skip the pre-commit and commit-msg hooks\n\n"
                "examples:\n"
                "  dtk crystallize --plan --date 2026-10-15\n"
                "  dtk crystallize --date 2026-10-15 --eval scenario-004=acceptable --review "
                "r.yaml\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS,
        .exec = S_exec,
};
