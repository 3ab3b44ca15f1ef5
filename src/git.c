/* git.c: libgit2 for buffer diffs (loaded on first use, see gitlib.h). */
#include "dtk/git.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "gitenv.h"

#include <stdlib.h>
#include <string.h>

int dtk_git_diff_buffers(char **out, const char *old, size_t old_len, const char *new_,
                         size_t new_len, const char *path)
{
	git_patch *patch = NULL;
	git_buf buf = GIT_BUF_INIT;
	git_diff_options opts;
	int rc = -1;

	*out = NULL;
	if (dtk_gitlib_load() < 0)
		return -1;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.context_lines = 3;
	if (git_patch_from_buffers(&patch, old, old_len, path, new_, new_len, path, &opts) < 0) {
		dtk_gitlib_error("cannot diff");
		goto done;
	}
	if (git_patch_to_buf(&buf, patch) < 0) {
		dtk_gitlib_error("cannot print diff");
		goto done;
	}
	*out = dtk_xstrndup(buf.ptr ? buf.ptr : "", buf.size);
	rc = 0;
done:
	git_buf_dispose(&buf);
	git_patch_free(patch);
	return rc;
}

int dtk_git_stage_checkout(struct dtk_file_staged *st, const char *path, const char *text,
                           size_t len)
{
	char *conv = NULL;
	size_t conv_len = 0;
	int rc = dtk_git_checkout_form(&conv, &conv_len, path, text, len);

	if (rc >= 0)
		rc = dtk_file_stage(st, path, rc ? conv : text, rc ? conv_len : len, -1);
	free(conv);
	return rc;
}

int dtk_git_checkout_form(char **out, size_t *out_len, const char *path, const char *text,
                          size_t len)
{
	git_repository *repo = NULL;
	git_filter_list *fl = NULL;
	git_buf buf = GIT_BUF_INIT;
	const char *wd;
	char *dir = dtk_xstrdup(path), *slash = strrchr(dir, '/');
	size_t n;
	int rc = 0;

	*out = NULL;
	*out_len = 0;
	if (slash)
		*slash = '\0';
	/* no libgit2 or no repository: nothing converts the text */
	if (dtk_gitlib_load() < 0) {
		free(dir);
		return 0;
	}
	if (dtk_gitenv_open(&repo, slash ? dir : ".") < 0 || !(wd = git_repository_workdir(repo)) ||
	    strncmp(path, wd, (n = strlen(wd))))
		goto done;
	if (git_filter_list_load(&fl, repo, NULL, path + n, GIT_FILTER_TO_WORKTREE,
	                         GIT_FILTER_DEFAULT) < 0 ||
	    (fl && git_filter_list_apply_to_buffer(&buf, fl, text, len) < 0)) {
		rc = dtk_gitlib_error("cannot apply git's filters");
		goto done;
	}
	if (fl && (buf.size != len || memcmp(buf.ptr, text, len))) {
		*out = dtk_xstrndup(buf.ptr, buf.size);
		*out_len = buf.size;
		rc = 1;
	}
done:
	git_buf_dispose(&buf);
	git_filter_list_free(fl);
	git_repository_free(repo);
	free(dir);
	return rc;
}

int dtk_git_merge_text(char **out, size_t *out_len, char *const text[3], const size_t len[3],
                       const char *label_ours, const char *label_theirs)
{
	git_merge_file_input in[3];
	git_merge_file_options opts;
	git_merge_file_result res = {0};
	int i, rc;

	*out = NULL;
	*out_len = 0;
	if (dtk_gitlib_load() < 0)
		return -1;
	for (i = 0; i < 3; i++) {
		git_merge_file_input_init(&in[i], GIT_MERGE_FILE_INPUT_VERSION);
		in[i].ptr = text[i] ? text[i] : "";
		in[i].size = text[i] ? len[i] : 0;
	}
	git_merge_file_options_init(&opts, GIT_MERGE_FILE_OPTIONS_VERSION);
	opts.our_label = label_ours ? label_ours : "ours";
	opts.their_label = label_theirs ? label_theirs : "theirs";
	if (git_merge_file(&res, &in[0], &in[1], &in[2], &opts) < 0)
		return dtk_gitlib_error("cannot merge");
	*out = dtk_xstrndup(res.ptr ? res.ptr : "", res.len);
	*out_len = res.len;
	rc = res.automergeable ? 0 : 1;
	git_merge_file_result_free(&res);
	return rc;
}
